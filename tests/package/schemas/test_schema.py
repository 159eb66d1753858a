"""The shipped JSON Schemas accept every valid fixture input and reject every shape-invalid one."""

import pytest

from conftest import FIXTURES
from fitproof._fixtures import case as _fixtures
from fitproof.modes import MODES
from json_schemas import BEYOND_SCHEMA, schema_for


CASES = [
    path for path in _fixtures.fixture_files(FIXTURES) if path.parent.name in MODES and _fixtures.load(path)["expected"]["mode"] is not None
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
        assert any(path.parent.name == mode and "errors" in _fixtures.load(path)["expected"] for path in CASES)
