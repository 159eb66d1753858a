"""The shipped JSON Schemas accept every valid fixture input and reject every shape-invalid one."""

import functools
import json
from importlib import resources

import jsonschema
import pytest

from conftest import FIXTURES
from fitproof._fixtures import case as _fixtures
from fitproof.modes import MODES

# Rules a JSON Schema cannot state: ids unique by a property of array elements, and
# arithmetic across fields (the window's three numbers must leave a positive budget).
BEYOND_SCHEMA = (
    "duplicate id", "no context budget", "the prompt without passages",
    # messages: how tool calls and results pair up across the array
    "no assistant message made", "no tool message answers", "duplicate tool call id", "answers the call", "the call ",
)


@functools.lru_cache(maxsize=None)
def schema_for(mode):
    """The shipped schema of ``mode``, checked against its meta-schema, as a validator (made once:
    the property tests ask for it on every example)."""
    text = resources.files("fitproof").joinpath("schemas", f"{mode}.schema.json").read_text()
    schema = json.loads(text)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker())


CASES = [
    path for path in _fixtures.fixture_files(FIXTURES)
    if path.parent.name in MODES and _fixtures.load(path)["expected"]["mode"] is not None
]


@pytest.mark.parametrize("path", CASES, ids=[path.relative_to(FIXTURES).as_posix() for path in CASES])
def test_schema_agrees_with_evaluate(path):
    case = _fixtures.load(path)
    errors = case["expected"].get("errors", [])
    valid = schema_for(path.parent.name).is_valid(case["input"])
    if not errors:
        assert valid, "evaluate accepts this input, so the schema must"
    elif all(error["message"].startswith(BEYOND_SCHEMA) for error in errors):
        assert valid, "the schema cannot see duplicate ids; this case documents that"
    else:
        assert not valid, "evaluate rejects this input's shape, so the schema must"


def test_there_are_shape_invalid_cases_for_each_mode():
    for mode in MODES:
        assert any(
            path.parent.name == mode and "errors" in _fixtures.load(path)["expected"] for path in CASES
        )
