"""Recorded conversations for bench/clearing.py: three shapes of a few hundred model calls each.

Each is one OpenAI chat history, appended to (system, user, assistant with ``tool_calls``, tool
results, as bench/chat_loop.py's ``conversation`` writes them), and the history's length before
every model call. Every message's tokens are this package's accounting for gpt-4o (3 a message,
the role, the content, the tool_call_id, the tool calls' compact JSON; 3 more prime the reply),
checked against ``fitproof.count_messages`` unit by unit and on the whole history.

- ``chatty``: an assistant that talks: short user turns, replies of 40-320 words, a tool in about
  one turn in eight with a short result.
- ``agent``: a tool-heavy coding agent: a long system prompt (its tool instructions), a task, then
  2-8 tool rounds of 1-3 calls with long results (about 70 % of the tokens are tool results), each
  round a model call, and a reply.
- ``documents``: document Q&A: about one user turn in three pastes a document of 600-3,000 words
  with its question, the others are follow-ups; long answers; a search tool now and then.
"""

from __future__ import annotations

import json
import random
import sys
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE.parent / "py") not in sys.path:
    sys.path[:0] = [str(HERE.parent / "py"), str(HERE)]

from fitproof import count_messages, count_tokens  # noqa: E402
from messages import WORDS  # noqa: E402  (bench/messages.py's words, as bench/chat_loop.py uses them)

PER_MESSAGE = 3
PRIMING = 3
TOKENIZER = "gpt-4o"


@dataclass
class Recorded:
    """One recorded conversation: the final history, the history's length before each call, and
    each message's tokens (without the priming)."""

    name: str
    history: list[dict]
    calls: list[int]
    costs: list[int] = field(default_factory=list)
    tool_names: dict[int, str] = field(default_factory=dict)  # tool message index -> the function it answers
    _cleared: dict[tuple[int, str], int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.costs = message_costs(self.history)
        self.user_starts = [index for index, message in enumerate(self.history) if message["role"] == "user"]
        self.tools = [index for index, message in enumerate(self.history) if message["role"] == "tool"]
        names = {}
        for index, message in enumerate(self.history):
            for call in message.get("tool_calls") or ():
                names[call["id"]] = call["function"]["name"]
        self.tool_names = {index: names[self.history[index]["tool_call_id"]] for index in self.tools}
        self.by_call_id = {self.history[index]["tool_call_id"]: index for index in self.tools}

    def cleared_cost(self, index: int, placeholder: str) -> int:
        """The tokens of tool message ``index`` with its content replaced by ``placeholder``."""
        key = (index, placeholder)
        if key not in self._cleared:
            content = self.history[index]["content"]
            self._cleared[key] = self.costs[index] - count_tokens(content, TOKENIZER) + count_tokens(placeholder, TOKENIZER)
        return self._cleared[key]

    def live_start(self, call: int) -> int:
        """The index of the newest user message before call ``call``."""
        length = self.calls[call]
        return max(index for index in self.user_starts if index < length)

    def tool_share(self) -> float:
        """The tool results' share of the final history's tokens."""
        return sum(self.costs[index] for index in self.tools) / sum(self.costs)


def message_costs(history: list[dict]) -> list[int]:
    """Each message's tokens by this package's accounting, without the reply priming.

    A lone message is counted with ``count_messages``; a tool round (an assistant message with
    ``tool_calls`` and its results, which the package only reads together) is counted whole with
    it, each result as 3 + role + tool_call_id + content by ``count_tokens`` and the assistant
    message as the rest; the whole history is checked against ``count_messages`` too.
    """
    costs = [0] * len(history)
    index = 0
    while index < len(history):
        message = history[index]
        if message.get("tool_calls"):
            end = index + 1
            while end < len(history) and history[end]["role"] == "tool":
                end += 1
            whole = count_messages(history[index:end], TOKENIZER) - PRIMING
            for tool in range(index + 1, end):
                result = history[tool]
                costs[tool] = PER_MESSAGE + sum(
                    count_tokens(text, TOKENIZER) for text in ("tool", result["tool_call_id"], result["content"])
                )
            costs[index] = whole - sum(costs[index + 1 : end])
            index = end
        else:
            costs[index] = count_messages([message], TOKENIZER) - PRIMING
            index += 1
    assert PRIMING + sum(costs) == count_messages(history, TOKENIZER)
    return costs


def _text(rng: random.Random, low: int, high: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(low, high)))


def _tool_round(
    rng: random.Random,
    history: list[dict],
    ids: list[int],
    names: tuple[str, ...],
    calls: int,
    result: tuple[int, int],
    thought: tuple[int, int] | None,
) -> None:
    call_ids = [f"call_{ids[0] + k}" for k in range(calls)]
    ids[0] += calls
    history.append(
        {
            "role": "assistant",
            "content": _text(rng, *thought) if thought else None,
            "tool_calls": [
                {
                    "id": call_id,
                    "type": "function",
                    "function": {"name": rng.choice(names), "arguments": json.dumps({"query": _text(rng, 2, 6)})},
                }
                for call_id in call_ids
            ],
        }
    )
    history.extend({"role": "tool", "tool_call_id": call_id, "content": _text(rng, *result)} for call_id in call_ids)


def chatty(calls: int, seed: int) -> Recorded:
    rng = random.Random(seed * 1000 + 1)
    history = [{"role": "system", "content": "You are a friendly assistant for an online shop. " + _text(rng, 60, 90)}]
    lengths: list[int] = []
    ids = [0]
    while len(lengths) < calls:
        history.append({"role": "user", "content": _text(rng, 5, 80)})
        lengths.append(len(history))
        if rng.random() < 0.125 and len(lengths) < calls:
            _tool_round(rng, history, ids, ("lookup_order", "track_parcel"), 1, (50, 300), None)
            lengths.append(len(history))
        history.append({"role": "assistant", "content": _text(rng, 40, 320)})
    return Recorded("chatty", history, lengths)


AGENT_TOOLS = ("read_file", "grep", "run_tests", "list_dir", "web_fetch")


def agent(calls: int, seed: int) -> Recorded:
    rng = random.Random(seed * 1000 + 2)
    system = "You are a coding agent working in a repository. Tools: " + ", ".join(AGENT_TOOLS) + ". " + _text(rng, 1100, 1300)
    history = [{"role": "system", "content": system}]
    lengths: list[int] = []
    ids = [0]
    while len(lengths) < calls:
        history.append({"role": "user", "content": _text(rng, 10, 80)})
        lengths.append(len(history))
        for _round in range(rng.randint(2, 8)):
            if len(lengths) >= calls:
                break
            _tool_round(rng, history, ids, AGENT_TOOLS, rng.choice((1, 1, 1, 2, 2, 3)), (60, 500), (30, 170))
            lengths.append(len(history))
        history.append({"role": "assistant", "content": _text(rng, 30, 200)})
    return Recorded("agent", history, lengths)


def documents(calls: int, seed: int) -> Recorded:
    rng = random.Random(seed * 1000 + 3)
    history = [{"role": "system", "content": "You answer questions about the documents the user pastes. " + _text(rng, 100, 150)}]
    lengths: list[int] = []
    ids = [0]
    while len(lengths) < calls:
        if rng.random() < 0.35:
            question = "Here is a document:\n\n" + _text(rng, 600, 3000) + "\n\nQuestion: " + _text(rng, 8, 30)
        else:
            question = _text(rng, 10, 60)
        history.append({"role": "user", "content": question})
        lengths.append(len(history))
        if rng.random() < 0.1 and len(lengths) < calls:
            _tool_round(rng, history, ids, ("search_docs",), 1, (100, 400), None)
            lengths.append(len(history))
        history.append({"role": "assistant", "content": _text(rng, 60, 300)})
    return Recorded("documents", history, lengths)


SHAPES = {"chatty": chatty, "agent": agent, "documents": documents}
