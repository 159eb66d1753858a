"""Mode ``messages`` with ``template``: the prompt counted as the model's own chat template renders it.

For qwen3, llama3 and deepseek_v3, generated conversations (system prompts, turns, names, tool rounds where
the template has them, pinned messages) trimmed under generated limits: the report's ``tokens`` equals
``tokenizers`` counting ``jinja2``'s rendering of the kept messages with the model's ``chat_template``
(``add_generation_prompt=True``), it fits the limit, and the unit that stopped the walk would not have fit.
"""

import json
import random

import pytest

from test_model_tokenizers import corpus, reference
from test_templates import FOLDER, content, jinja_template, ours

from context_budget import count_messages, evaluate, trim_messages
from context_budget.modes import messages as mode
from context_budget.modes.messages import MessagesError
from context_budget.tokenizers import TokenizerRegistry, using_tokenizers

CONVERSATIONS = 250


@pytest.fixture(scope="module")
def registry():
    registry = TokenizerRegistry()
    for template, folder in FOLDER.items():
        registry.register(template, ours(folder))
    return registry


def conversation(rng: random.Random, template: str, pool: list[str]) -> tuple[list[dict], list | None]:
    """An OpenAI-format history (call ids, tool_call_id) that the template renders."""
    messages: list[dict] = []
    if rng.random() < 0.6:
        messages.append({"role": "system", "content": content(rng, pool)})
    tools = None
    if template == "qwen3" and rng.random() < 0.3:
        tools = [{"type": "function", "function": {"name": "refund", "description": "Refund an order",
                                                   "parameters": {"type": "object", "properties": {"order": {"type": "integer"}}}}}]
    calls_made = 0
    for turn in range(rng.randint(1, 7)):
        user = {"role": "user", "content": content(rng, pool)}
        if rng.random() < 0.2:
            user["name"] = rng.choice(["ana", "bo"])
        if rng.random() < 0.1:
            user["pinned"] = True
        messages.append(user)
        # DeepSeek's template writes only the first tool call of a conversation with its opening tokens, so a
        # message's share can change by a token when an earlier round is dropped: one round here (docs/contract.md)
        if template != "llama3" and rng.random() < 0.3 and (template != "deepseek_v3" or not calls_made):
            calls = []
            for _ in range(rng.randint(1, 2)):
                calls_made += 1
                arguments = json.dumps({"order": rng.randint(1, 999)})
                calls.append({"id": f"call_{calls_made}", "type": "function",
                              "function": {"name": rng.choice(["refund", "lookup_order"]), "arguments": arguments}})
            messages.append({"role": "assistant", "content": None if template == "deepseek_v3" else rng.choice(["", content(rng, pool)]),
                             "tool_calls": calls})
            for call in calls:
                messages.append({"role": "tool", "tool_call_id": call["id"], "content": content(rng, pool)})
        if rng.random() < 0.7:
            messages.append({"role": "assistant", "content": content(rng, pool) or "ok"})
    return messages, tools


def reference_counts(template: str, prompts: list[tuple[list[dict], list | None]]) -> list[int]:
    render = jinja_template(FOLDER[template])
    texts = [render(messages=[{k: v for k, v in m.items() if k != "pinned"} for m in messages], tools=tools,
                    add_generation_prompt=True) for messages, tools in prompts]
    return [len(encoded.ids) for encoded in reference(FOLDER[template]).encode_batch(texts, add_special_tokens=False)]


@pytest.mark.parametrize("template", list(FOLDER))
def test_tokens_equal_the_reference_rendering_of_the_kept_messages(template, registry):
    rng = random.Random(f"trim-{template}")
    pool = corpus(1_000, seed=61) + ["Hello", "What is the refund window?"]
    cases, prompts = [], []
    with using_tokenizers(registry):
        for _ in range(CONVERSATIONS):
            messages, tools = conversation(rng, template, pool)
            whole = evaluate({"mode": "messages", "limit": 1_000_000, "tokenizer": template, "template": template,
                              "messages": messages, **({"tools": tools} if tools else {})})
            assert whole["pass"] is True, whole.get("errors") or whole["checks"]
            limit = rng.randint(whole["pinned_tokens"] + whole["live_tokens"], whole["tokens"])
            report = evaluate({"mode": "messages", "limit": limit, "tokenizer": template, "template": template,
                               "messages": messages, **({"tools": tools} if tools else {})})
            assert report["pass"] is True and report["template"] == template, report["checks"]
            prompts.append(([messages[i] for i in report["kept"]], tools))
            stop = next((row["unit"] for row in report["trace"] if row["reason"] == "exceeds_remaining_budget"), None)
            if stop is not None:  # the unit that stopped the walk, added back, would not have fit the walk's kept units
                unit = {row["index"] for row in report["trace"] if row["unit"] == stop or row["reason"] == "history_must_start_with_user"}
                prompts.append(([messages[i] for i in sorted(set(report["kept"]) | unit)], tools))
            cases.append((report, limit, stop is not None))
            trimmed = trim_messages(messages, limit, template, tools=tools, template=template)
            assert (trimmed.tokens, trimmed.kept) == (report["tokens"], report["kept"])
    counts = iter(reference_counts(template, prompts))
    stops = 0
    for report, limit, stopped in cases:
        assert report["tokens"] == next(counts) <= limit
        if stopped:
            stops += 1
            assert next(counts) > limit
    assert stops > CONVERSATIONS // 5  # the limits trim


def test_count_messages_is_the_rendered_prompt(registry):
    messages = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "\nWhere is my refund?"}]
    with using_tokenizers(registry):
        for template in FOLDER:
            assert count_messages(messages, template, template=template) == reference_counts(template, [(messages, None)])[0]
        # not OpenAI's accounting: no 3 per message, no 3 priming
        assert count_messages(messages, "qwen3", template="qwen3") != count_messages(messages, "qwen3")


def test_qwen3_thinking_follows_the_last_user_turn_of_the_kept_messages(registry):
    messages = [{"role": "user", "content": "a " * 40}, {"role": "assistant", "content": "b " * 40},
                {"role": "user", "content": "c"}, {"role": "assistant", "content": "d"}, {"role": "user", "content": "e"}]
    with using_tokenizers(registry):
        whole = evaluate({"mode": "messages", "limit": 10_000, "tokenizer": "qwen3", "template": "qwen3", "messages": messages})
        report = evaluate({"mode": "messages", "limit": whole["tokens"] - 1, "tokenizer": "qwen3", "template": "qwen3", "messages": messages})
    assert report["pass"] is True and report["kept"] == [2, 3, 4], report["checks"]
    assert report["tokens"] == reference_counts("qwen3", [(messages[2:], None)])[0]


def test_the_recount_fails_on_a_corrupted_report(registry):
    messages = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "hi"},
                {"role": "assistant", "content": "hello"}, {"role": "user", "content": "refund?"}]
    data = {"mode": "messages", "limit": 200, "tokenizer": "llama3", "template": "llama3", "messages": messages}
    with using_tokenizers(registry):
        result = mode.run(data)
        assert all(check["pass"] for check in mode.verify(data, result))
        for tamper, detail in [(lambda r: r.update(tokens=r["tokens"] + 1, remaining=r["remaining"] - 1), "re-count to"),
                               (lambda r: r.update(template_tokens=r["template_tokens"] - 1), "tokens of its own")]:
            corrupted = json.loads(json.dumps(result))
            tamper(corrupted)
            checks = {check["name"]: check for check in mode.verify(data, corrupted)}
            assert checks["kept messages re-counted"]["pass"] is False and detail in checks["kept messages re-counted"]["detail"]


@pytest.mark.parametrize("change, path, words", [
    ({"template": "llama3_1"}, "$.template", "not available"),
    ({"template": "harmony"}, "$.template", "not available"),
    ({"template": "chatml"}, "$.template", '"chatml"'),
    ({"tokenizer": "o200k_base"}, "$.tokenizer", '"o200k_base"'),
    ({"tokenizer": None}, "$.tokenizer", "needs the model's own tokenizer"),
    ({"tokenizer": "llama3"}, "$.tokenizer", "does not have"),
    ({"tools": [{"type": "function", "function": {"name": "f"}}], "template": "llama3", "tokenizer": "llama3"}, "$.tools", "only qwen3"),
    ({"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "https://x/y.png"}}]}]},
     "$.messages[0].content", "an image"),
    ({"messages": [{"role": "developer", "content": "x"}, {"role": "user", "content": "y"}]}, "$.messages[0].role", "developer"),
])
def test_bad_template_input_is_an_error_naming_the_value(registry, change, path, words):
    data = {"mode": "messages", "limit": 100, "tokenizer": "qwen3", "template": "qwen3",
            "messages": [{"role": "user", "content": "hi"}], **change}
    if data["tokenizer"] is None:
        del data["tokenizer"]
    with using_tokenizers(registry):
        report = evaluate(data)
    assert report["pass"] is False and report["errors"], report
    assert any(error["path"] == path and words in error["message"] for error in report["errors"]), report["errors"]


def test_the_api_refuses_a_template_without_the_models_tokenizer(registry):
    with pytest.raises(MessagesError, match=r"\$\.tokenizer: the template \"qwen3\" needs the model's own tokenizer"):
        trim_messages([{"role": "user", "content": "hi"}], 100, template="qwen3")
    with using_tokenizers(registry), pytest.raises(MessagesError, match=r"\$\.template: .*got \"harmony\", which is not available"):
        count_messages([{"role": "user", "content": "hi"}], "qwen3", template="harmony")


def test_a_model_tokenizer_without_template_is_not_remembered_across_registries():
    """OpenAI's accounting with a model's tokenizer: the same name in two registries counts by each file."""
    messages = [{"role": "user", "content": "Where is my refund for order 12345? 你好"}]
    counts = []
    for folder in ("qwen3", "deepseek_v3", "qwen3"):
        registry = TokenizerRegistry()
        registry.register("model", ours(folder))
        with using_tokenizers(registry):
            report = evaluate({"mode": "messages", "limit": 1000, "tokenizer": "model", "messages": messages})
        assert report["pass"] is True and report["tokenizer_file"]["sha256"] == ours(folder).sha256, report
        counts.append(report["tokens"])
    expected = [3 + 3 + ours(f).count("user") + ours(f).count(messages[0]["content"]) for f in ("qwen3", "deepseek_v3")]
    assert counts == [expected[0], expected[1], expected[0]] and expected[0] != expected[1]
