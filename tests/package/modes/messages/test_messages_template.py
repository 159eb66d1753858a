"""Mode ``messages`` with ``template``: the prompt counted as the model's own chat template renders it.

For qwen3, llama3 and deepseek_v3, generated conversations (system prompts, turns, names, tool rounds where
the template has them, pinned messages) trimmed under generated limits: the report's ``tokens`` equals
``tokenizers`` counting ``jinja2``'s rendering of the kept messages with the model's ``chat_template``
(``add_generation_prompt=True``), it fits the limit, and the unit that stopped the walk would not have fit.
"""

import json
import random
from datetime import datetime

import pytest

from model_files import CONFIG_TEMPLATES, OFFICIAL_TEMPLATES, content, corpus, jinja_template, official, ours, reference

from fitproof import count_messages, evaluate, templates, trim_messages
from fitproof.modes import messages as mode
from fitproof.modes.messages import MessagesError
from fitproof.tokenizers import TokenizerRegistry, using_tokenizers

CONVERSATIONS = 250


@pytest.fixture(scope="module")
def registry():
    registry = TokenizerRegistry()
    for template, folder in {**CONFIG_TEMPLATES, **OFFICIAL_TEMPLATES}.items():
        registry.register(template, ours(folder))
    return registry


def conversation(rng: random.Random, template: str, pool: list[str]) -> tuple[list[dict], list | None]:
    """An OpenAI-format history (call ids, tool_call_id) that the template renders."""
    messages: list[dict] = []
    if rng.random() < 0.6:
        messages.append({"role": "system", "content": content(rng, pool)})
    tools = None
    if template == "qwen3" and rng.random() < 0.3:
        tools = [
            {
                "type": "function",
                "function": {
                    "name": "refund",
                    "description": "Refund an order",
                    "parameters": {"type": "object", "properties": {"order": {"type": "integer"}}},
                },
            }
        ]
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
                calls.append(
                    {
                        "id": f"call_{calls_made}",
                        "type": "function",
                        "function": {"name": rng.choice(["refund", "lookup_order"]), "arguments": arguments},
                    }
                )
            messages.append(
                {
                    "role": "assistant",
                    "content": None if template == "deepseek_v3" else rng.choice(["", content(rng, pool)]),
                    "tool_calls": calls,
                }
            )
            for call in calls:
                messages.append({"role": "tool", "tool_call_id": call["id"], "content": content(rng, pool)})
        if rng.random() < 0.7:
            messages.append({"role": "assistant", "content": content(rng, pool) or "ok"})
    return messages, tools


def reference_counts(template: str, prompts: list[tuple[list[dict], list | None]]) -> list[int]:
    render = jinja_template(CONFIG_TEMPLATES[template])
    texts = [
        render(messages=[{k: v for k, v in m.items() if k != "pinned"} for m in messages], tools=tools, add_generation_prompt=True)
        for messages, tools in prompts
    ]
    return [len(encoded.ids) for encoded in reference(CONFIG_TEMPLATES[template]).encode_batch(texts, add_special_tokens=False)]


@pytest.mark.parametrize("template", list(CONFIG_TEMPLATES))
def test_tokens_equal_the_reference_rendering_of_the_kept_messages(template, registry):
    rng = random.Random(f"trim-{template}")
    pool = corpus(1_000, seed=61) + ["Hello", "What is the refund window?"]
    cases, prompts = [], []
    with using_tokenizers(registry):
        for _ in range(CONVERSATIONS):
            messages, tools = conversation(rng, template, pool)
            whole = evaluate(
                {
                    "mode": "messages",
                    "limit": 1_000_000,
                    "tokenizer": template,
                    "template": template,
                    "messages": messages,
                    **({"tools": tools} if tools else {}),
                }
            )
            assert whole["pass"] is True, whole.get("errors") or whole["checks"]
            limit = rng.randint(whole["pinned_tokens"] + whole["live_tokens"], whole["tokens"])
            report = evaluate(
                {
                    "mode": "messages",
                    "limit": limit,
                    "tokenizer": template,
                    "template": template,
                    "messages": messages,
                    **({"tools": tools} if tools else {}),
                }
            )
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
        for template in CONFIG_TEMPLATES:
            assert count_messages(messages, template, template=template) == reference_counts(template, [(messages, None)])[0]
        # not OpenAI's accounting: no 3 per message, no 3 priming
        assert count_messages(messages, "qwen3", template="qwen3") != count_messages(messages, "qwen3")


def test_qwen3_thinking_follows_the_last_user_turn_of_the_kept_messages(registry):
    messages = [
        {"role": "user", "content": "a " * 40},
        {"role": "assistant", "content": "b " * 40},
        {"role": "user", "content": "c"},
        {"role": "assistant", "content": "d"},
        {"role": "user", "content": "e"},
    ]
    with using_tokenizers(registry):
        whole = evaluate({"mode": "messages", "limit": 10_000, "tokenizer": "qwen3", "template": "qwen3", "messages": messages})
        report = evaluate(
            {"mode": "messages", "limit": whole["tokens"] - 1, "tokenizer": "qwen3", "template": "qwen3", "messages": messages}
        )
    assert report["pass"] is True and report["kept"] == [2, 3, 4], report["checks"]
    assert report["tokens"] == reference_counts("qwen3", [(messages[2:], None)])[0]


@pytest.mark.parametrize(
    "template, options", [("llama3", None), ("harmony", {"reasoning_effort": "high"}), ("llama3_1", {"date_string": "02 Dec 2026"})]
)
def test_the_recount_fails_on_a_corrupted_report(registry, template, options):
    messages = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "hello"},
        {"role": "user", "content": "refund?"},
    ]
    data = {
        "mode": "messages",
        "limit": 200,
        "tokenizer": template,
        "template": template,
        "messages": messages,
        **({"template_options": options} if options else {}),
    }
    with using_tokenizers(registry):
        result = mode.run(data)
        assert all(check["pass"] for check in mode.verify(data, result))
        for tamper, detail in [
            (lambda r: r.update(tokens=r["tokens"] + 1, remaining=r["remaining"] - 1), "re-count to"),
            (lambda r: r.update(template_tokens=r["template_tokens"] - 1), "tokens of its own"),
        ]:
            corrupted = json.loads(json.dumps(result))
            tamper(corrupted)
            checks = {check["name"]: check for check in mode.verify(data, corrupted)}
            assert checks["kept messages re-counted"]["pass"] is False and detail in checks["kept messages re-counted"]["detail"]
        if template == "harmony":  # the check renders with the input's options: a report made with others fails it
            other = {**data, "template_options": {"model_identity": "You are a refund assistant for a shop selling garden tools."}}
            checks = {check["name"]: check for check in mode.verify(other, result)}
            assert (
                checks["kept messages re-counted"]["pass"] is False and "tokens of its own" in checks["kept messages re-counted"]["detail"]
            )


@pytest.mark.parametrize(
    "change, path, words",
    [
        ({"template": "llama3_1", "template_options": {"date_string": "2026-12-02"}}, "$.template_options.date_string", '"26 Jul 2024"'),
        ({"template_options": {"reasoning_effort": "high"}}, "$.template_options.reasoning_effort", "takes enable_thinking"),
        ({"template_options": ["x"]}, "$.template_options", "an object"),
        ({"template": None, "template_options": {"enable_thinking": False}}, "$.template_options", "give template too"),
        (
            {"template": "harmony", "tokenizer": "harmony", "template_options": {"reasoning_effort": "max"}},
            "$.template_options.reasoning_effort",
            '"max"',
        ),
        (
            {
                "template": "harmony",
                "tokenizer": "harmony",
                "messages": [{"role": "user", "content": "a"}, {"role": "system", "content": "b"}],
            },
            "$.messages[1].role",
            "only as the first message",
        ),
        (
            {"template": "harmony", "tokenizer": "harmony", "tools": [{"type": "function", "function": {"name": "f"}}]},
            "$.tools[0].function.description",
            "must be a string, got NoneType",
        ),
        (
            {
                "template": "llama3_1",
                "tokenizer": "llama3_1",
                "messages": [
                    {"role": "user", "content": "a"},
                    {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [{"id": f"c{n}", "type": "function", "function": {"name": "f", "arguments": "{}"}} for n in (1, 2)],
                    },
                    {"role": "tool", "tool_call_id": "c1", "content": "x"},
                    {"role": "tool", "tool_call_id": "c2", "content": "y"},
                ],
            },
            "$.messages[1].tool_calls",
            "exactly one tool call",
        ),
        (
            {
                "template": "llama3",
                "tokenizer": "llama3",
                "messages": [{"role": "developer", "content": "x"}, {"role": "user", "content": "y"}],
            },
            "$.messages[0].role",
            "harmony",
        ),
        (
            {
                "template": "harmony",
                "tokenizer": "harmony",
                "messages": [{"role": "user", "content": "y"}, {"role": "developer", "content": "x"}],
            },
            "$.messages[1].role",
            "harmony takes it as the first message only",
        ),
        ({"template": "chatml"}, "$.template", '"chatml"'),
        ({"tokenizer": "o200k_base"}, "$.tokenizer", '"o200k_base"'),
        ({"tokenizer": None}, "$.tokenizer", "needs the model's own tokenizer"),
        ({"tokenizer": "llama3"}, "$.tokenizer", "does not have"),
        (
            {"tools": [{"type": "function", "function": {"name": "f"}}], "template": "llama3", "tokenizer": "llama3"},
            "$.tools",
            "only llama3_1, qwen3, harmony do",
        ),
        (
            {"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "https://x/y.png"}}]}]},
            "$.messages[0].content",
            "an image",
        ),
        ({"messages": [{"role": "developer", "content": "x"}, {"role": "user", "content": "y"}]}, "$.messages[0].role", "developer"),
        # a template that is no string, beside a developer message: an error naming it, not an internal TypeError (found by mypy)
        (
            {"template": ["qwen3"], "messages": [{"role": "developer", "content": "x"}, {"role": "user", "content": "y"}]},
            "$.messages[0].role",
            'with the template ["qwen3"]',
        ),
        ({"template": 3, "messages": [{"role": "developer", "content": "x"}, {"role": "user", "content": "y"}]}, "$.template", "got 3"),
    ],
)
def test_bad_template_input_is_an_error_naming_the_value(registry, change, path, words):
    data = {
        "mode": "messages",
        "limit": 100,
        "tokenizer": "qwen3",
        "template": "qwen3",
        "messages": [{"role": "user", "content": "hi"}],
        **change,
    }
    if data["tokenizer"] is None:
        del data["tokenizer"]
    with using_tokenizers(registry):
        report = evaluate(data)
    assert report["pass"] is False and report["errors"], report
    assert any(error["path"] == path and words in error["message"] for error in report["errors"]), report["errors"]


def test_the_api_refuses_a_template_without_the_models_tokenizer(registry):
    with pytest.raises(MessagesError, match=r"\$\.tokenizer: the template \"qwen3\" needs the model's own tokenizer"):
        trim_messages([{"role": "user", "content": "hi"}], 100, template="qwen3")
    with using_tokenizers(registry), pytest.raises(MessagesError, match=r"\$\.template: .*got \"chatml\""):
        count_messages([{"role": "user", "content": "hi"}], "qwen3", template="chatml")
    with using_tokenizers(registry), pytest.raises(MessagesError, match=r"\$\.template_options\.current_date: current_date must be"):
        count_messages([{"role": "user", "content": "hi"}], "harmony", template="harmony", template_options={"current_date": "today"})


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


def official_conversation(rng: random.Random, template: str, pool: list[str]) -> tuple[list[dict], list | None, dict]:
    """An OpenAI-format history for llama3_1 or harmony: one tool call per assistant message, options."""
    options: dict = {}
    if template == "llama3_1" and rng.random() < 0.5:
        options["date_string"] = rng.choice(["02 Dec 2026", "15 Sep 2030"])
    if template == "harmony":
        if rng.random() < 0.5:
            options["reasoning_effort"] = rng.choice(["low", "high"])
        if rng.random() < 0.5:
            options["current_date"] = "2026-12-02"
    messages: list[dict] = []
    if rng.random() < 0.6:
        messages.append({"role": rng.choice(["system", "developer"]) if template == "harmony" else "system", "content": content(rng, pool)})
    tools = None
    if rng.random() < 0.3:
        tools = [
            {
                "type": "function",
                "function": {
                    "name": "refund",
                    "description": "Refund an order",
                    "parameters": {"type": "object", "properties": {"order": {"type": "integer"}}},
                },
            }
        ]
    calls_made = 0
    for _ in range(rng.randint(1, 7)):
        user = {"role": "user", "content": content(rng, pool)}
        if rng.random() < 0.1:
            user["pinned"] = True
        messages.append(user)
        if rng.random() < 0.3:
            calls_made += 1
            call = {
                "id": f"call_{calls_made}",
                "type": "function",
                "function": {"name": rng.choice(["refund", "lookup_order"]), "arguments": json.dumps({"order": rng.randint(1, 999)})},
            }
            messages.append({"role": "assistant", "content": rng.choice(["", content(rng, pool)]), "tool_calls": [call]})
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": content(rng, pool)})
        if rng.random() < 0.7:
            messages.append({"role": "assistant", "content": content(rng, pool) or "ok"})
    return messages, tools, options


@pytest.mark.parametrize("template", list(OFFICIAL_TEMPLATES))
def test_llama3_1_and_harmony_count_the_official_rendering_of_the_kept_messages(template, registry):
    """As above, with the template's options and tools; the reference is the official template (jinja2)."""
    rng = random.Random(f"trim-{template}")
    pool = [text for text in corpus(1_000, seed=62) if "<|channel|>" not in text] + ["Hello", "What is the refund window?"]
    render = {date: official(template, datetime.strptime(date, "%Y-%m-%d")) for date in ("2025-08-05", "2026-12-02")}
    prompts, cases = [], []
    with using_tokenizers(registry):
        for _ in range(CONVERSATIONS):
            messages, tools, options = official_conversation(rng, template, pool)
            data = {
                "mode": "messages",
                "tokenizer": template,
                "template": template,
                "messages": messages,
                **({"tools": tools} if tools else {}),
                **({"template_options": options} if options else {}),
            }
            whole = evaluate({**data, "limit": 1_000_000})
            assert whole["pass"] is True, whole.get("errors") or whole["checks"]
            assert sum(row["tokens"] for row in whole["trace"]) + whole["template_tokens"] == whole["tokens"]  # the shares add up
            limit = rng.randint(whole["pinned_tokens"] + whole["live_tokens"], whole["tokens"])
            report = evaluate({**data, "limit": limit})
            assert report["pass"] is True and report["template"] == template, report["checks"]
            # what a server gives the template: a tool call's arguments parsed from the OpenAI format's JSON string
            kept = [{k: v for k, v in messages[i].items() if k != "pinned"} for i in report["kept"]]
            kept = [
                {
                    **m,
                    "tool_calls": [
                        {**c, "function": {**c["function"], "arguments": json.loads(c["function"]["arguments"])}} for c in m["tool_calls"]
                    ],
                }
                if "tool_calls" in m
                else m
                for m in kept
            ]
            prompts.append(
                render[options.get("current_date", "2025-08-05")](
                    messages=kept, tools=tools, add_generation_prompt=True, **{k: v for k, v in options.items() if k != "current_date"}
                )
            )
            trimmed = trim_messages(messages, limit, template, tools=tools, template=template, template_options=options or None)
            assert (trimmed.tokens, trimmed.kept) == (report["tokens"], report["kept"])
            cases.append((report, limit))
    counts = [len(e.ids) for e in reference(OFFICIAL_TEMPLATES[template]).encode_batch(prompts, add_special_tokens=False)]
    assert [report["tokens"] for report, _ in cases] == counts
    assert all(report["tokens"] <= limit for report, limit in cases)
    assert sum(bool(report["dropped"]) for report, _ in cases) > CONVERSATIONS // 5  # the limits trim


def test_the_options_reach_the_template_in_every_count(registry):
    messages = [{"role": "user", "content": "Where is my refund?"}]
    with using_tokenizers(registry):
        base = evaluate({"mode": "messages", "limit": 1000, "tokenizer": "llama3_1", "template": "llama3_1", "messages": messages})
        dated = evaluate(
            {
                "mode": "messages",
                "limit": 1000,
                "tokenizer": "llama3_1",
                "template": "llama3_1",
                "messages": messages,
                "template_options": {"date_string": "15 Sep 2030"},
            }
        )
        assert base["pass"] and dated["pass"], (base, dated)
        texts = [templates.render(messages, "llama3_1", date_string=date) for date in ("26 Jul 2024", "15 Sep 2030")]
        assert [base["tokens"], dated["tokens"]] == [ours("llama3_1").count(text) for text in texts]
        assert count_messages(messages, "harmony", template="harmony", template_options={"reasoning_effort": "high"}) == ours(
            "gptoss"
        ).count(templates.render(messages, "harmony", reasoning_effort="high"))


def test_the_schema_takes_the_new_templates_and_their_options():
    from json_schemas import schema_for

    validator = schema_for("messages")
    base = {"mode": "messages", "limit": 100, "messages": [{"role": "user", "content": "hi"}]}
    for template, options in [
        ("llama3_1", {"date_string": "02 Dec 2026", "tools_in_user_message": False}),
        ("harmony", {"reasoning_effort": "high", "current_date": "2026-12-02", "builtin_tools": ["python"]}),
        ("qwen3", {"enable_thinking": False}),
    ]:
        assert validator.is_valid({**base, "tokenizer": template, "template": template, "template_options": options})
    for options in [{"date_string": "2026-12-02"}, {"reasoning_effort": "max"}, {"current_date": "today"}, {"temperature": 1}]:
        assert not validator.is_valid({**base, "tokenizer": "harmony", "template": "harmony", "template_options": options})


def test_harmony_counts_alike_with_the_built_in_o200k_harmony(registry):
    """GPT-OSS's tokenizer.json and the built-in o200k_harmony give the same report."""
    messages = [
        {"role": "developer", "content": "Answer in one line."},
        {"role": "user", "content": "Where is order 12345? 你好"},
        {"role": "assistant", "content": "Shipped."},
        {"role": "user", "content": "Thanks!"},
    ]
    reports = []
    for tokenizer in ("harmony", "o200k_harmony"):
        with using_tokenizers(registry):
            reports.append(
                evaluate({"mode": "messages", "limit": 300, "tokenizer": tokenizer, "template": "harmony", "messages": messages})
            )
    assert reports[0]["pass"] and reports[1]["pass"], reports
    assert [r["tokens"] for r in reports] == [ours("gptoss").count(templates.render(messages, "harmony"))] * 2
    assert [row["tokens"] for row in reports[0]["trace"]] == [row["tokens"] for row in reports[1]["trace"]]
