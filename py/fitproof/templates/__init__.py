"""Chat templates in Python: a conversation rendered to the exact prompt a model's server builds.

``render(messages, template)`` gives the prompt text; ``count_rendered(messages, template,
tokenizer)`` its exact token count and each message's share. The templates are the models' own
Jinja ``chat_template`` rewritten in plain Python (no Jinja at run time), and proven equal to
``jinja2`` rendering the original (with the globals Hugging Face gives it) in the tests:

- ``llama3``: Llama 3's template (``<|start_header_id|>role<|end_header_id|>\\n\\n`` + the content
  stripped + ``<|eot_id|>``, ``<|begin_of_text|>`` first);
- ``llama3_1``: Llama 3.1's official template: a system block dated by the ``date_string`` option
  ("Cutting Knowledge Date", "Today Date"), tools in the first user message (or, with
  ``tools_in_user_message=False``, the system block), one tool call per assistant message, tool
  results as ``ipython``, ``builtin_tools`` written as ``<|python_tag|>name.call(...)<|eom_id|>``;
- ``qwen3``: Qwen 3's, with its tools block, ``<tool_call>``/``<tool_response>`` and the
  ``<think>\\n\\n</think>\\n\\n`` it writes into assistant turns after the last user turn;
- ``deepseek_v3``: DeepSeek V3/R1's, system prompts joined at the start, tool calls and outputs;
- ``mistral``: Mistral's instruct format for its tekken tokenizer (mistral-common's V3, Mistral Nemo):
  ``<s>[INST]user[/INST]assistant</s>...``, the (non-empty) system prompts joined by a blank line in
  front of the last user message. Text conversations only: user and assistant turns alternate, starting and
  ending with a user turn (the ``[/INST]`` is the generation prompt); tools are refused;
- ``harmony``: GPT-OSS's official template (OpenAI's harmony format): the system message
  (``model_identity``, ``current_date``, ``reasoning_effort``, ``builtin_tools``), the first
  system/developer message and the tools (as TypeScript) in a developer message, final answers on
  the ``final`` channel, tool calls on ``commentary``, an assistant's ``thinking`` (or a tool call
  message's content) on ``analysis`` only where the template keeps it;
- ``gemma3``: Gemma 3's (``<bos>``, ``<start_of_turn>user\\n`` ... ``<end_of_turn>\\n``, an assistant as
  ``model``, the system prompt in front of the first turn's content); text and image parts, no tools.

Options are keywords (``OPTIONS`` lists each template's and checks them); the dates are options
with the defaults the docs give, never the clock, so a rendering is a pure function of its input.

A message is ``{"role": str, "content": str, ...}``; ``name`` is accepted and, as in these
templates, not rendered. Assistant messages may carry ``tool_calls`` (``[{"type": "function",
"function": {"name": str, "arguments": str or object}}]``), Qwen's ``reasoning_content`` too; DeepSeek
renders tool calls of an assistant message whose ``content`` is None; Llama 3.1 and harmony write
``arguments`` with ``tojson`` (pass the object). ``tools`` is a list of JSON schemas (Qwen 3 writes
them into its system block, Llama 3.1 as indented JSON, harmony as a TypeScript namespace).

How a count is shared out (``count_rendered``): the prompt is a sequence of pieces, each written for
one message (its header, content, end tokens) or for none (BOS, a tools block, Llama 3.1's dated
system block, harmony's system message, the generation prompt). Special tokens are one token each and cut the text, so a message's share is the tokens of
its own pieces; where two messages' text runs into each other with no special token between (Qwen's
consecutive tool responses), the run is counted whole and the difference from counting each piece
alone goes to the later message. So ``sum(per_message) + overhead == total`` always, and ``total``
is the count of exactly the rendered prompt.
"""

from __future__ import annotations

from ._common import Piece, Rendered, TemplateError
from .harmony import HARMONY_DATE, REASONING_EFFORTS
from .llama import LLAMA3_1_DATE
from .rendering import OPTIONS, TEMPLATES, count_rendered, count_rendered_detail, option_problems, pieces, render

__all__ = [
    "TEMPLATES",
    "OPTIONS",
    "TemplateError",
    "Piece",
    "Rendered",
    "render",
    "pieces",
    "count_rendered",
    "count_rendered_detail",
    "option_problems",
    "HARMONY_DATE",
    "REASONING_EFFORTS",
    "LLAMA3_1_DATE",
]
