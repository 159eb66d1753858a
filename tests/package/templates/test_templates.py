"""Chat templates in Python equal the models' own Jinja templates, rendered as Hugging Face renders them.

For each template, ≥ 2,000 generated conversations (system prompts, multi-turn, names, tool calls and
tools where the template has them, contents with leading newlines, spaces and special-token text):
the text equals ``jinja2`` rendering the model's ``chat_template`` from its tokenizer_config.json, and
``count_rendered``'s total equals ``tokenizers`` counting that text.
"""

import json
import random

import pytest

from model_files import CONFIG_TEMPLATES, content, corpus, jinja_template, model_file, ours, reference

from fitproof import templates
from fitproof.tokenizers import TokenizerRegistry, using_tokenizers

CONVERSATIONS = 2_000


def tool_call(rng: random.Random, as_string: bool) -> dict:
    arguments = {"order": rng.randint(1, 999), "reason": rng.choice(["damaged", "late", "wrong item"])}
    return {
        "type": "function",
        "function": {
            "name": rng.choice(["refund", "lookup_order", "escalate"]),
            "arguments": json.dumps(arguments) if as_string else arguments,
        },
    }


def conversation(rng: random.Random, template: str, pool: list[str]):
    messages = []
    if rng.random() < 0.5:
        messages.append({"role": "system", "content": content(rng, pool)})
    tools = None
    if template == "qwen3" and rng.random() < 0.3:
        tools = [
            {
                "type": "function",
                "function": {
                    "name": "refund",
                    "description": "Refund an order: <b>&'</b>",
                    "parameters": {"type": "object", "properties": {"order": {"type": "integer"}}},
                },
            }
        ]
    for _ in range(rng.randint(1, 5)):
        user = {"role": "user", "content": content(rng, pool)}
        if rng.random() < 0.2:
            user["name"] = rng.choice(["ana", "bo"])
        messages.append(user)
        if template != "llama3" and rng.random() < 0.3:  # a tool round
            calls = [tool_call(rng, template == "deepseek_v3" or rng.random() < 0.5) for _ in range(rng.randint(1, 2))]
            messages.append(
                {
                    "role": "assistant",
                    "content": None if template == "deepseek_v3" else rng.choice(["", content(rng, pool)]),
                    "tool_calls": calls,
                }
            )
            for _ in calls:
                messages.append({"role": "tool", "content": content(rng, pool)})
        if rng.random() < 0.7:
            reply = content(rng, pool)
            if template == "qwen3" and rng.random() < 0.3:
                reply = "<think>\nreasoning " + content(rng, pool) + "\n</think>\n\n" + reply
            messages.append({"role": "assistant", "content": reply})
        if template == "llama3" and rng.random() < 0.1:
            messages.append({"role": rng.choice(["system", "ipython"]), "content": content(rng, pool)})
    return messages, tools


@pytest.mark.parametrize("template", list(CONFIG_TEMPLATES))
def test_rendering_and_counts_equal_jinja_and_tokenizers(template):
    folder = CONFIG_TEMPLATES[template]
    reference_render = jinja_template(folder)
    tokenizer = ours(folder)
    rng = random.Random(template)
    pool = corpus(3_000, seed=51) + ["", "Hello", "a\n\nb", "What is the refund window?"]
    cases = []
    for _ in range(CONVERSATIONS):
        messages, tools = conversation(rng, template, pool)
        generation = rng.random() < 0.8
        kwargs = {"enable_thinking": False} if template == "qwen3" and rng.random() < 0.2 else {}
        expected = reference_render(messages=messages, tools=tools, add_generation_prompt=generation, **kwargs)
        assert templates.render(messages, template, add_generation_prompt=generation, tools=tools, **kwargs) == expected, messages
        cases.append((messages, tools, generation, kwargs, expected))
    counts = [len(e.ids) for e in reference(folder).encode_batch([case[-1] for case in cases], add_special_tokens=False)]
    for (messages, tools, generation, kwargs, _), expected in zip(cases, counts):
        result = templates.count_rendered_detail(messages, template, tokenizer, add_generation_prompt=generation, tools=tools, **kwargs)
        assert result.total == expected == tokenizer.count(result.text)
        assert sum(result.per_message) + result.overhead == result.total
        # every message costs something, but DeepSeek writes an empty system prompt as nothing at all
        assert min(result.per_message) > (-1 if template == "deepseek_v3" else 0)


def mistral_conversation(rng: random.Random, pool: list[str]) -> list[dict]:
    messages = []
    for turn in range(rng.randint(0, 4) * 2 + 1):  # user, assistant, ..., user
        if rng.random() < 0.25 and (turn == 0 or turn % 2 == 1):  # never right after an assistant turn (mistral-common refuses it)
            messages.append({"role": "system", "content": content(rng, pool)})
        if turn % 2 == 0:
            user = {"role": "user", "content": content(rng, pool)}
            if rng.random() < 0.2:
                user["name"] = "ana"
            messages.append(user)
        else:
            messages.append({"role": "assistant", "content": content(rng, pool).rstrip(" ") or "ok"})
    return messages


def test_mistral_equals_mistral_common():
    """mistral-common's own chat encoding (InstructTokenizerV3 for tekken) is the reference: its tokens and text."""
    from mistral_common.protocol.instruct.messages import AssistantMessage, SystemMessage, UserMessage
    from mistral_common.protocol.instruct.request import ChatCompletionRequest
    from mistral_common.tokens.tokenizers.base import SpecialTokenPolicy
    from mistral_common.tokens.tokenizers.mistral import MistralTokenizer

    reference_tokenizer = MistralTokenizer.from_file(str(model_file("mistral", "tekken_240911.json")))
    kinds = {"system": SystemMessage, "user": UserMessage, "assistant": AssistantMessage}
    tokenizer = ours("tekken")
    rng = random.Random("mistral")
    pool = corpus(3_000, seed=52) + ["", "Hello", "What is the refund window?"]
    for _ in range(CONVERSATIONS):
        messages = mistral_conversation(rng, pool)
        request = ChatCompletionRequest(messages=[kinds[m["role"]](content=m["content"]) for m in messages])
        expected = reference_tokenizer.encode_chat_completion(request)
        result = templates.count_rendered_detail(messages, "mistral", tokenizer)
        assert result.text == reference_tokenizer.decode(expected.tokens, special_token_policy=SpecialTokenPolicy.KEEP), messages
        assert result.total == len(expected.tokens), messages
        assert sum(result.per_message) + result.overhead == result.total


def test_a_leading_newline_changes_the_overhead_as_the_model_sees_it():
    """Not additive constants: Llama strips the content, Qwen keeps the newline."""
    tokenizer = ours("qwen3")
    plain = templates.count_rendered([{"role": "user", "content": "Hi there"}], "qwen3", tokenizer)[1][0]
    newline = templates.count_rendered([{"role": "user", "content": "\nHi there"}], "qwen3", tokenizer)[1][0]
    assert (plain - tokenizer.count("Hi there"), newline - tokenizer.count("\nHi there")) == (5, 4)


def test_qwen3_thinks_only_after_the_last_user_turn():
    messages = [
        {"role": "user", "content": "a"},
        {"role": "assistant", "content": "b"},
        {"role": "user", "content": "c"},
        {"role": "assistant", "content": "d"},
    ]
    text = templates.render(messages, "qwen3", add_generation_prompt=False)
    assert text.count("<think>\n\n</think>\n\n") == 1 and text.endswith("<think>\n\n</think>\n\nd<|im_end|>\n")


def test_per_message_shares_go_to_their_messages_and_a_name_works():
    tokenizer = ours("llama3_1")
    messages = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "x " * 50}]
    total, per_message = templates.count_rendered(messages, "llama3", tokenizer)
    assert per_message[1] == 2 + tokenizer.count("user") + tokenizer.count("\n\n" + ("x " * 50).strip()) + 1
    assert per_message[0] == 1 + 2 + tokenizer.count("system") + tokenizer.count("\n\nBe brief.") + 1  # BOS is in the first
    registry = TokenizerRegistry()
    registry.register("llama", tokenizer)
    with using_tokenizers(registry):
        assert templates.count_rendered(messages, "llama3", "llama") == (total, per_message)


def test_wrong_tokenizer_or_template_or_message_is_refused():
    with pytest.raises(templates.TemplateError, match="does not have"):
        templates.count_rendered([{"role": "user", "content": "x"}], "qwen3", ours("llama3_1"))
    with pytest.raises(templates.TemplateError, match="unknown template 'chatml'"):
        templates.render([], "chatml")
    with pytest.raises(templates.TemplateError, match="end with a user turn"):
        templates.render([{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}], "mistral")
    with pytest.raises(templates.TemplateError, match="tools and tool calls are not supported"):
        templates.render([{"role": "user", "content": "a"}], "mistral", tools=[{"type": "function"}])
    with pytest.raises(templates.TemplateError, match=r"messages\[0\].content must be a string, got int"):
        templates.render([{"role": "user", "content": 3}], "llama3")
