"""Tool definitions with any JSON in their schemas: mode ``messages`` reads every part of a tool
that its counting method walks by that part's type, so whatever the schema holds, the report is
either a count or input errors at paths inside ``$.tools``, never an internal error.

(Found by fuzzing: ``"enum": 3`` in a property made ``evaluate`` report "'int' object is not
iterable" as an internal error.)
"""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from fitproof import MessagesError, evaluate, trim_messages

SCALARS = (
    st.none() | st.booleans() | st.integers(-(10**20), 10**20) | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8)
)
JSON = st.recursive(
    SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3), max_leaves=12
)
SCHEMA_KEYS = st.sampled_from(["type", "description", "enum", "items", "properties", "minimum", "required", "anyOf"])
SCHEMA = JSON | st.dictionaries(SCHEMA_KEYS, JSON | st.lists(st.text(max_size=5), max_size=3), max_size=4)
PARAMETERS = JSON | st.fixed_dictionaries(
    {"type": st.just("object")},
    optional={
        "properties": JSON | st.dictionaries(st.text(min_size=1, max_size=6), SCHEMA, max_size=4),
        "required": JSON,
    },
)
FUNCTION = JSON | st.fixed_dictionaries(
    {"name": st.text(min_size=1, max_size=8) | JSON},
    optional={"description": st.text(max_size=20) | JSON, "parameters": PARAMETERS, "strict": JSON},
)
TOOL = JSON | st.fixed_dictionaries({"type": st.just("function") | JSON, "function": FUNCTION})
# A well-formed tool whose properties' schemas are anything: where the counting method walks by type.
PROPERTY_SCHEMA = SCHEMA | st.dictionaries(st.sampled_from(["type", "description", "enum"]), JSON, min_size=1, max_size=3)
SCHEMA_TOOL = st.builds(
    lambda name, properties: {
        "type": "function",
        "function": {"name": name, "description": "A tool.", "parameters": {"type": "object", "properties": properties}},
    },
    st.text(min_size=1, max_size=6),
    st.dictionaries(st.text(min_size=1, max_size=6), PROPERTY_SCHEMA, min_size=1, max_size=4),
)
MESSAGES = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "What is the weather in Paris?"}]


@settings(max_examples=200, deadline=None)
@given(tools=st.lists(TOOL | SCHEMA_TOOL, max_size=3), tokenizer=st.sampled_from(["o200k_base", "cl100k_base", "estimate"]))
def test_any_tool_schema_is_a_count_or_an_input_error_inside_tools(tools, tokenizer):
    report = evaluate({"mode": "messages", "limit": 100_000, "tokenizer": tokenizer, "messages": MESSAGES, "tools": tools})
    failed = [check for check in report["checks"] if not check["pass"]]
    assert all(check["name"] != "internal error" for check in failed), failed
    if "errors" in report:
        assert report["errors"] and all(error["path"].startswith("$.tools") for error in report["errors"]), report["errors"]
        assert not report["pass"]
    else:
        assert report["pass"], failed
        assert report["tools_tokens"] >= 0 if tools else True
        try:  # the library call reads the tools the same way: the same count, or MessagesError
            trimmed = trim_messages(MESSAGES, 100_000, tokenizer=tokenizer, tools=tools)
        except MessagesError as error:
            raise AssertionError(f"evaluate accepted the tools, trim_messages refused them: {error}") from None
        assert trimmed.tools_tokens == report["tools_tokens"]


@settings(max_examples=100, deadline=None)
@given(tools=st.lists(TOOL | SCHEMA_TOOL, min_size=1, max_size=3))
def test_trim_messages_refuses_bad_tools_as_messages_error_never_another_exception(tools):
    try:
        trim_messages(MESSAGES, 100_000, tools=tools)
    except MessagesError as error:
        assert error.problems and all(problem.path.startswith("$.tools") for problem in error.problems)


def test_a_number_for_enum_is_an_input_error_at_its_path():
    tools = [
        {
            "type": "function",
            "function": {"name": "f", "parameters": {"type": "object", "properties": {"unit": {"type": "string", "enum": 3}}}},
        }
    ]
    report = evaluate({"mode": "messages", "limit": 1000, "messages": MESSAGES, "tools": tools})
    assert report["errors"] == [
        {"path": "$.tools[0].function.parameters.properties.unit.enum", "message": "expected an array of the allowed values, got 3"}
    ]
