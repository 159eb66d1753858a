"""Mode ``messages``: images by the tile rule, tool definitions by the cookbook method, model names."""

import base64
import json
import struct
import zlib

import pytest

from fitproof import count_messages, count_tokens, evaluate, trim_messages
from fitproof.modes.messages import images
from fitproof.tokenizers import model_names as models

tiktoken = pytest.importorskip("tiktoken")


# ---------------------------------------------------------------- images


def png(width, height):
    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)) + chunk(b"IEND", b"")


def gif(width, height):
    return b"GIF89a" + struct.pack("<HH", width, height) + b"\x00\x00\x00;"


def jpeg(width, height):
    exif = b"\xff\xe1" + struct.pack(">H", 18) + b"Exif\x00\x00" + b"\x00" * 10
    frame = b"\xff\xc2" + struct.pack(">HBHHB", 11, 8, height, width, 1) + b"\x01\x11\x00"
    return b"\xff\xd8" + exif + frame + b"\xff\xd9"


def webp_lossy(width, height):
    body = b"VP8 " + struct.pack("<I", 10) + b"\x00\x00\x00\x9d\x01\x2a" + struct.pack("<HH", width, height)
    return b"RIFF" + struct.pack("<I", 4 + len(body)) + b"WEBP" + body


def webp_lossless(width, height):
    bits = (width - 1) | ((height - 1) << 14)
    body = b"VP8L" + struct.pack("<I", 5) + b"\x2f" + bits.to_bytes(4, "little")
    return b"RIFF" + struct.pack("<I", 4 + len(body)) + b"WEBP" + body


def webp_extended(width, height):
    body = b"VP8X" + struct.pack("<I", 10) + b"\x00" * 4 + (width - 1).to_bytes(3, "little") + (height - 1).to_bytes(3, "little")
    return b"RIFF" + struct.pack("<I", 4 + len(body)) + b"WEBP" + body


def url(data, kind="png"):
    return f"data:image/{kind};base64," + base64.b64encode(data).decode()


@pytest.mark.parametrize("make", [png, gif, jpeg, webp_lossy, webp_lossless, webp_extended])
@pytest.mark.parametrize("size", [(1, 1), (1024, 1024), (640, 480), (3000, 200)])
def test_image_headers_give_the_size(make, size):
    assert images.data_url_size(url(make(*size))) == size


def test_the_published_examples_of_the_tile_rule():
    assert images.tile_cost(1024, 1024) == 765  # scaled to 768 x 768: 4 tiles
    assert images.tile_cost(2048, 4096) == 1105  # to 1024 x 2048, then 768 x 1536: 6 tiles
    assert images.tile_cost(4096, 8192, "low") == 85
    assert images.tile_cost(512, 512) == 255 and images.tile_cost(513, 512) == 425
    assert max(images.tile_cost(w, h) for w in range(64, 4200, 97) for h in range(64, 4200, 101)) == images.MOST == 1445


def test_images_in_a_conversation_are_counted_and_the_unknown_ones_named():
    parts = [
        {"type": "text", "text": "Which is damaged?"},
        {"type": "image_url", "image_url": {"url": url(jpeg(2048, 4096), "jpeg")}},
        {"type": "image_url", "image_url": {"url": "https://example.invalid/a.png"}, "size": [1024, 1024]},
        {"type": "image_url", "image_url": {"url": "https://example.invalid/b.png", "detail": "high"}},
    ]
    messages = [{"role": "user", "content": parts}]
    data = {"mode": "messages", "limit": 5000, "messages": messages}
    report = evaluate(data)
    assert report["pass"] is True, report["checks"]
    assert [(image["part"], image["tokens"], image["at_most"]) for image in report["images"]] == [
        (1, 1105, False),
        (2, 765, False),
        (3, 1445, True),
    ]
    assert report["tokens"] == 3 + 3 + count_tokens("user") + count_tokens("Which is damaged?") + 1105 + 765 + 1445
    assert "size" not in report["messages"][0]["content"][2] and "size" in messages[0]["content"][2]  # not sent, not changed
    trimmed = trim_messages(messages, 5000)
    assert trimmed.images_at_most == [(0, 3)] and trimmed.tokens == report["tokens"]


def test_a_wrong_image_count_in_the_report_fails_a_check():
    data = {
        "mode": "messages",
        "limit": 5000,
        "messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": url(png(1024, 1024))}}]}],
    }
    from fitproof.modes import messages as mode

    result = mode.select(mode.parse(data))
    result["tokens"] += 1
    result["remaining"] -= 1
    assert [check for check in mode.verify(data, result) if not check["pass"]][0]["name"] == "kept messages re-counted"


# ---------------------------------------------------------------- tool definitions

from _cookbook import num_tokens_for_tools as cookbook_tools  # noqa: E402  (bench/, on pytest's pythonpath)


TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_current_weather",
            "description": "Get the current weather in a given location.",
            "parameters": {
                "type": "object",
                "properties": {
                    "location": {"type": "string", "description": "The city and state, e.g. San Francisco, CA"},
                    "unit": {"type": "string", "description": "The unit.", "enum": ["celsius", "fahrenheit"]},
                },
                "required": ["location"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "lookup_order",
            "description": "Find an order by its id",
            "parameters": {"type": "object", "properties": {"order_id": {"type": "string", "description": "The order id, e.g. A-1042."}}},
        },
    },
]
CHAT = [{"role": "user", "content": "What's the weather in Funchal?"}]


@pytest.mark.parametrize("tokenizer", ["o200k_base", "cl100k_base"])
def test_tool_definitions_count_as_the_cookbook_counts(tokenizer):
    report = evaluate({"mode": "messages", "limit": 1000, "tokenizer": tokenizer, "tools": TOOLS, "messages": CHAT})
    assert report["pass"] is True, report["checks"]
    assert report["tools_tokens"] == cookbook_tools(TOOLS, tokenizer)
    assert (
        report["tokens"]
        == count_messages(CHAT, tokenizer) + cookbook_tools(TOOLS, tokenizer)
        == count_messages(CHAT, tokenizer, tools=TOOLS)
    )
    assert [tool["name"] for tool in report["tools"]] == ["get_current_weather", "lookup_order"]
    assert sum(tool["tokens"] for tool in report["tools"]) + 12 == report["tools_tokens"]


def test_nested_schemas_count_as_their_compact_json_and_tools_are_pinned():
    nested = {
        "type": "function",
        "function": {
            "name": "book",
            "parameters": {
                "type": "object",
                "properties": {"passengers": {"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}}}}},
            },
        },
    }
    report = evaluate({"mode": "messages", "limit": 1000, "tools": [nested], "messages": CHAT})
    schema = nested["function"]["parameters"]["properties"]["passengers"]
    assert (
        report["tools_tokens"]
        == 7 + count_tokens("book:") + 3 + 3 + count_tokens("passengers:" + json.dumps(schema, separators=(",", ":"))) + 12
    )
    tight = report["tokens"] - 1
    failed = evaluate({"mode": "messages", "limit": tight, "tools": [nested], "messages": CHAT})
    assert failed["pass"] is False and failed["shortfall"] == 1 and "the tool definitions" in failed["summary"]


def test_a_wrong_tools_count_fails_a_check():
    from fitproof.modes import messages as mode

    data = {"mode": "messages", "limit": 1000, "tools": TOOLS, "messages": CHAT}
    result = mode.select(mode.parse(data))
    result["tools_tokens"] -= 1
    failing = [check for check in mode.verify(data, result) if not check["pass"]]
    assert failing and "tool definitions re-count" in failing[0]["detail"]


@pytest.mark.parametrize(
    "tools, path",
    [
        ({"type": "function"}, "$.tools"),
        ([{"type": "custom", "custom": {"name": "x"}}], "$.tools[0].type"),
        ([{"type": "function", "function": {"description": "no name"}}], "$.tools[0].function"),
        ([{"type": "function", "function": {"name": "f", "parameters": "{}"}}], "$.tools[0].function.parameters"),
    ],
)
def test_bad_tool_definitions_name_their_path(tools, path):
    report = evaluate({"mode": "messages", "limit": 1000, "tools": tools, "messages": CHAT})
    assert report["pass"] is False and path in [error["path"] for error in report["errors"]], report["errors"]


# ---------------------------------------------------------------- model names

NAMES = [
    "gpt-4o",
    "gpt-4o-mini",
    "gpt-4o-2024-08-06",
    "gpt-4o-mini-2024-07-18",
    "chatgpt-4o-latest",
    "gpt-4.1",
    "gpt-4.1-nano",
    "gpt-4.5-preview",
    "gpt-5",
    "gpt-5-mini",
    "gpt-5.1",
    "o1",
    "o1-mini",
    "o3",
    "o3-mini",
    "o4-mini",
    "o4-mini-2025-04-16",
    "gpt-4",
    "gpt-4-0613",
    "gpt-4-turbo",
    "gpt-3.5-turbo",
    "gpt-3.5-turbo-0125",
    "gpt-35-turbo-16k",
    "text-embedding-3-small",
    "text-embedding-3-large",
    "text-embedding-ada-002",
    "davinci-002",
    "ft:gpt-4o-2024-08-06:org::id",
    "ft:gpt-3.5-turbo:org::id",
    "text-davinci-003",
    "davinci",
    "gpt2",
    "gpt-oss-120b",
    "claude-3",
    "llama",
    "o200k_base",
]


@pytest.mark.parametrize("name", NAMES)
def test_model_names_map_as_tiktoken_maps_them(name):
    try:
        theirs = tiktoken.encoding_name_for_model(name)
    except KeyError:
        theirs = None
    assert models.encoding_of(name) == theirs
    if theirs in ("o200k_base", "cl100k_base"):
        assert count_tokens("Hello, world", name) == count_tokens("Hello, world", theirs)
        assert evaluate({"mode": "messages", "limit": 100, "tokenizer": name, "messages": CHAT})["model"] == name
    elif theirs is not None:
        with pytest.raises(ValueError, match=f"uses the {theirs} encoding"):
            count_tokens("x", name)


def test_every_mode_takes_a_model_name():
    assert evaluate({"mode": "passages", "question": "q", "limit": 100, "counter": "gpt-4o", "passages": [{"id": "a", "text": "hello"}]})[
        "pass"
    ]
    assert evaluate({"budget": 10, "tokenizer": "gpt-4", "items": [{"id": "a", "relevance": 1, "content": "hello"}]})["pass"]
    assert evaluate(
        {"mode": "required", "budget": 10, "tokenizer": "gpt-4o-mini", "items": [{"id": "a", "priority": 1, "content": "hello"}]}
    )["pass"]
    blocks = {
        "mode": "blocks",
        "tokenizer": "gpt-4.1",
        "task": "t",
        "window": {"context_tokens": 1000, "reserved_output_tokens": 0, "fixed_prompt_tokens": 10},
        "blocks": [{"id": "a", "content": "hello", "priority": 1, "source": "s", "observed_at": "2026-01-01T00:00:00Z"}],
    }
    report = evaluate(blocks)
    assert report["pass"] and report["tokenizer"] == "o200k_base", report["checks"]
    assert trim_messages(CHAT, 100, "gpt-4o") == trim_messages(CHAT, 100, "o200k_base")


# ---------------------------------------------------------------- anything near the new shapes

from hypothesis import example, given, strategies as st  # noqa: E402

JUNK = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-3, 5000),
        st.floats(allow_nan=True),
        st.text(max_size=8),
        st.sampled_from(["image_url", "text", "function", "custom", "refusal", "low", "data:image/png;base64,iVBORw0KGgo=", "input_audio"]),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(
            st.sampled_from(
                [
                    "type",
                    "image_url",
                    "url",
                    "detail",
                    "size",
                    "text",
                    "function",
                    "name",
                    "description",
                    "parameters",
                    "properties",
                    "enum",
                    "custom",
                    "input",
                    "id",
                ]
            ),
            inner,
            max_size=4,
        ),
    ),
    max_leaves=12,
)


@given(JUNK, JUNK, JUNK)
@example([{"type": []}], None, None)  # a part type that is no string was looked up in a dict
def test_near_valid_images_tools_and_replies_never_raise(content, tools, extra):
    messages = [{"role": "user", "content": content}, {"role": "assistant", "content": None, "refusal": extra, "tool_calls": extra}]
    for data in (
        {"mode": "messages", "limit": 3000, "messages": messages, "tools": tools},
        {"mode": "messages", "limit": 3000, "messages": [{"role": "user", "content": content}]},
    ):
        report = evaluate(data)
        assert "internal error" not in [check["name"] for check in report["checks"]], report
        if "errors" not in report:
            assert all(check["pass"] for check in report["checks"]), report["checks"]
        json.dumps(report)
