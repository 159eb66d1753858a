"""Mode ``messages``: which turns of an OpenAI-format chat history still fit the prompt.

Every ``system`` and ``developer`` message and every message marked ``pinned`` is kept, and
so is the live turn (the newest ``user`` message and every message after it); when they do not
fit, the selection fails with the shortfall. An assistant message that calls tools and the tool
messages answering it form one unit. From the newest unit to the oldest, a unit is kept while
it fits what is left; the first one that does not fit stops the walk, so the kept history has
no holes. The conversation sent starts at a user turn and never with a reply to a dropped
message: kept units that break this are dropped, oldest first. Costs follow OpenAI's published accounting
for its chat models: 3 tokens per message, the count of each value it has (plus 1 for
a ``name``), and 3 more that prime the reply. With ``template`` (``prompt_template.py``), a message costs
its share of the prompt the model's own chat template renders, and the prompt's count is the kept
messages rendered again.

Anthropic's Messages and OpenAI's Responses items are read into the same units
(``formats/``), so the rule, its checks and its claims are the chat format's.

The parts: ``reading`` (the chat format's input, its problems; ``message`` one message,
``accounting`` the costs, ``pairing`` the tool calls, ``memory`` the histories read before), ``rule`` (the walk and
the report), ``checks`` (the independent verifications), ``api`` (``trim_messages``,
``count_messages``, ``MessagesError``), ``template``, ``stable`` (strategy stable: the cut kept
across calls, ``previous`` as input), ``reuse`` (the prefix shared with the previous prompt, the
caching rules, the costs) and ``stable_checks``. This module is the mode (``modes/protocol.py``).
"""

from __future__ import annotations

from ...tokenizers import TOKENIZERS, count_tokens
from .api import MessagesDoNotFit, MessagesError, TrimmedMessages, count_messages, trim_messages
from .formats import verify  # the checks of the three formats: chat (reading.py), anthropic, responses
from .accounting import PER_MESSAGE, PER_NAME, REPLY_PRIMING, message_cost, tool_calls_text
from .message import ALWAYS_PINNED, ROLES
from .reading import DEFAULT_TOKENIZER, INPUT_SUMMARY, MESSAGE_SUMMARY
from . import rule as rule_module  # noqa: F401  (tests call rule_module.kept_fast beside the mode)
from .rule import as_sent, succeeded, summarize

# The formats' readers and rule (formats/), with strategy stable and the reuse when their keys are given (stable.py),
# and clearing when its keys are (clearing.py)
from .clearing import parse, select
from .stable import RememberedCallLost
from ..protocol import Words
from .history import Parsed, Result

NAME = "messages"
WORDS = Words(kept="kept", left_out="dropped", used="tokens", limit="limit", listed="message indices")
COUNTED_COST = None
SHAPE = None  # its own reader: a chat history is no list of records with ids


def beyond_the_rule(parsed: Parsed, result: Result) -> dict[str, object]:
    """Nothing: the walk keeps the newest turns, and no other choice is weighed against it."""
    return {}


def run(data: object) -> Result:
    return select(parse(data))


__all__ = [
    "NAME",
    "WORDS",
    "COUNTED_COST",
    "SHAPE",
    "DEFAULT_TOKENIZER",
    "INPUT_SUMMARY",
    "MESSAGE_SUMMARY",
    "parse",
    "select",
    "run",
    "succeeded",
    "summarize",
    "verify",
    "beyond_the_rule",
    "Parsed",
    "Result",
    "MessagesError",
    "MessagesDoNotFit",
    "RememberedCallLost",
    "TrimmedMessages",
    "trim_messages",
    "count_messages",
    "ROLES",
    "ALWAYS_PINNED",
    "PER_MESSAGE",
    "PER_NAME",
    "REPLY_PRIMING",
    "TOKENIZERS",
    "count_tokens",
    "message_cost",
    "tool_calls_text",
    "as_sent",
]
