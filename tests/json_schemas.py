"""The shipped JSON Schemas as validators, and the rules no schema can state: what the schema
tests (tests/package/schemas/) and the messages tests' schema properties share."""

import functools
import json
from importlib import resources

import jsonschema

# Rules a JSON Schema cannot state: ids unique by a property of array elements, and
# arithmetic across fields (the window's three numbers must leave a positive budget).
BEYOND_SCHEMA = (
    "duplicate id",
    "no context budget",
    "the prompt without passages",
    # messages: how tool calls and results pair up across the array
    "no assistant message made",
    "no tool message answers",
    "duplicate tool call id",
    "answers the call",
    "the call ",
)


@functools.lru_cache(maxsize=None)
def schema_for(mode):
    """The shipped schema of ``mode``, checked against its meta-schema, as a validator (made once:
    the property tests ask for it on every example)."""
    text = resources.files("fitproof").joinpath("schemas", f"{mode}.schema.json").read_text()
    schema = json.loads(text)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker())
