"""fitproof.langchain_middleware.TrimMessagesMiddleware in a real ``create_agent`` loop, offline: a
fake chat model calls a tool that answers at length until the history is well past the limit."""

import json
import subprocess
import sys

import pytest

from conftest import ROOT

pytest.importorskip("langchain.agents")
import fitproof  # noqa: E402
from langchain.agents import create_agent  # noqa: E402
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel  # noqa: E402
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage, convert_to_openai_messages  # noqa: E402
from langchain_core.tools import tool  # noqa: E402
from langchain_core.utils.function_calling import convert_to_openai_tool  # noqa: E402
from langgraph.checkpoint.memory import InMemorySaver  # noqa: E402

from fitproof.langchain_middleware import TrimMessagesMiddleware  # noqa: E402

LIMIT = 900


@tool
def lookup(page: int) -> str:
    """Read one page of the manual."""
    return f"page {page}: " + "the manual says to check the valve again " * 25


class RecordingModel(GenericFakeChatModel):
    """The fake model, recording every request's messages; binding tools changes nothing."""

    seen: list = []

    def bind_tools(self, tools, **kwargs):
        return self

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        self.seen.append(list(messages))
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs)


def script(pages, answer):
    calls = [
        AIMessage("", tool_calls=[{"name": "lookup", "args": {"page": page}, "id": f"call_{page}", "type": "tool_call"}]) for page in pages
    ]
    return [*calls, AIMessage(answer)]


def check_every_request(seen, tools):
    for messages in seen:
        sent = convert_to_openai_messages(messages)
        assert fitproof.count_messages(messages, tools=tools) <= LIMIT
        assert sent[0]["role"] == "system"
        assert sent[-1]["role"] in ("user", "tool")
        answered = [message["tool_call_id"] for message in sent if message["role"] == "tool"]
        called = [call["id"] for message in sent for call in message.get("tool_calls", ())]
        assert answered == called  # every call with its result, and no result without its call


QUESTIONS = ["What does the manual say about the valve?", "And the pump?", "And the filter?", "And the hose?", "And the gauge?"]


def test_every_model_call_gets_a_history_within_the_limit():
    answers = [message for turn in range(5) for message in script([2 * turn + 1, 2 * turn + 2], f"Answer {turn}.")]
    model = RecordingModel(messages=iter(answers), seen=[])
    middleware = TrimMessagesMiddleware(LIMIT, "o200k_base")
    agent = create_agent(model, [lookup], system_prompt="You answer from the manual.", middleware=[middleware])
    messages: list = []
    for question in QUESTIONS:  # each turn: two tool calls, then the answer
        messages = agent.invoke({"messages": [*messages, HumanMessage(question)]})["messages"]
    tools = [convert_to_openai_tool(lookup)]
    assert len(model.seen) == 15 and len(messages) == 30  # the state keeps the whole history
    whole = [model.seen[0][0], *messages[:-1]]
    assert fitproof.count_messages(whole, tools=tools) > 2 * LIMIT
    check_every_request(model.seen, tools)
    for call, seen in enumerate(model.seen):  # the live turn: the newest question and what followed it
        contents = [message.content for message in seen]
        assert QUESTIONS[call // 3] in contents and not any(question in contents for question in QUESTIONS[call // 3 + 1 :])
    assert middleware.last.dropped and middleware.last.tokens <= LIMIT
    assert all(any(message is kept for kept in messages) for message in model.seen[-1][1:])  # the agent's own objects


def test_clear_and_stable_across_the_turns_of_a_thread():
    answers = [message for turn in range(5) for message in script([2 * turn + 1, 2 * turn + 2], f"Answer {turn}.")]
    model = RecordingModel(messages=iter(answers), seen=[])
    middleware = TrimMessagesMiddleware(LIMIT, "o200k_base", strategy="stable", clear={"keep": 1})
    agent = create_agent(
        model, [lookup], system_prompt="You answer from the manual.", middleware=[middleware], checkpointer=InMemorySaver()
    )
    config = {"configurable": {"thread_id": "t1"}}
    lasts = []
    for question in QUESTIONS:
        state = agent.invoke({"messages": [HumanMessage(question)]}, config)
        lasts.append(middleware.last)
    assert len(model.seen) == 15 and len(state["messages"]) == 30
    check_every_request(model.seen, [convert_to_openai_tool(lookup)])
    assert middleware.last.cleared and middleware.last.previous is not None  # remembered for thread t1
    assert any(last.dropped for last in lasts)
    cleared = [
        message for seen in model.seen for message in seen if isinstance(message, ToolMessage) and message.content.startswith("[cleared")
    ]
    assert cleared  # copies sent; the agent's state keeps the results
    assert not any(message.content.startswith("[cleared") for message in state["messages"] if isinstance(message, ToolMessage))


def test_a_live_turn_over_the_limit_raises():
    """One question whose own tool calls outgrow the limit: the live turn is never trimmed."""
    model = RecordingModel(messages=iter(script(range(1, 9), "Done.")), seen=[])
    agent = create_agent(model, [lookup], middleware=[TrimMessagesMiddleware(LIMIT, "o200k_base")])
    with pytest.raises(fitproof.MessagesDoNotFit):
        agent.invoke({"messages": [HumanMessage("Read the whole manual.")]})
    assert all(fitproof.count_messages(seen) <= LIMIT for seen in model.seen)


def test_a_long_run_of_one_question_goes_on_when_its_own_results_may_be_cleared():
    """The same run with ``clear={"live_turn": True}``: its older results are cleared, the newest kept."""
    model = RecordingModel(messages=iter(script(range(1, 9), "Done.")), seen=[])
    middleware = TrimMessagesMiddleware(LIMIT, "o200k_base", clear={"keep": 2, "live_turn": True})
    agent = create_agent(model, [lookup], middleware=[middleware])
    state = agent.invoke({"messages": [HumanMessage("Read the whole manual.")]})
    assert state["messages"][-1].content == "Done." and len(model.seen) == 9
    assert all(fitproof.count_messages(seen) <= LIMIT for seen in model.seen)
    last = model.seen[-1]
    results = [message for message in last if isinstance(message, ToolMessage)]
    assert len(results) == 8 and [message.content.startswith("[cleared") for message in results] == [True] * 6 + [False] * 2


def test_importing_fitproof_and_its_other_modules_imports_no_langchain():
    probe = """
import importlib, json, pkgutil, sys
import fitproof
for info in pkgutil.walk_packages(fitproof.__path__, "fitproof."):
    if info.name not in ("fitproof.__main__", "fitproof.langchain_middleware"):
        importlib.import_module(info.name)
print(json.dumps(sorted(name for name in sys.modules if name.split(".")[0] in ("langchain", "langchain_core", "langgraph"))))
"""
    done = subprocess.run(
        [sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(ROOT / 'py')!r})\n{probe}"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == []
