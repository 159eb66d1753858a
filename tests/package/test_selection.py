"""``select``: typed results that say the same as ``evaluate``'s report, and an exception for invalid input."""

import copy
import dataclasses
import types
import typing
from importlib import resources

import pytest

from conftest import FIXTURES
from fitproof import Check, Decision, InputProblem, InvalidInputError, Selection, evaluate, select
from fitproof._fixtures import case as _fixtures
from seeds import SEED_000

from fitproof.modes import MODES

CASES = [path for path in _fixtures.fixture_files(FIXTURES) if path.parent.name in MODES]
IDS = [path.relative_to(FIXTURES).as_posix() for path in CASES]


def ids_of(entries):
    return tuple(entry["id"] if isinstance(entry, dict) else entry for entry in entries)


@pytest.mark.parametrize("path", CASES, ids=IDS)
def test_select_says_what_the_report_says(path):
    case = _fixtures.load(path)
    report = case["expected"]
    if "errors" in report:
        with pytest.raises(InvalidInputError) as raised:
            select(case["input"])
        assert isinstance(raised.value, ValueError)
        assert [(p.path, p.message) for p in raised.value.problems] == [(e["path"], e["message"]) for e in report["errors"]]
        assert str(raised.value).startswith(report["summary"] + " " + report["errors"][0]["path"] + ": ")
        # More than one problem: a Python caller is pointed at .problems, not at the report's key.
        assert ("listed in errors" in str(raised.value), "listed in .problems)" in str(raised.value)) == (False, len(report["errors"]) > 1)
        return
    selection = select(case["input"])
    assert selection.report == report
    assert (selection.mode, selection.passed, selection.summary) == (report["mode"], report["pass"], report["summary"])
    kept, left_out, used, limit = {
        "relevance": ("selected", "omitted", "used", "budget"),
        "required": ("selected", "omitted", "used", "budget"),
        "blocks": ("included", "excluded", "used", "available"),
        "passages": ("chosen", "skipped", "units", "limit"),
        "messages": ("kept", "dropped", "tokens", "limit"),
    }[report["mode"]]
    assert selection.kept == ids_of(report[kept]) and selection.left_out == ids_of(report[left_out])
    assert (selection.used, selection.limit) == (report[used], report[limit])
    assert selection.remaining == selection.limit - selection.used
    assert [check.passed for check in selection.checks] == [check["pass"] for check in report["checks"]]
    assert [(d.id, d.kept, d.reason, d.remaining_before) for d in selection.decisions] == [
        (row.get("id", row.get("index")), row["kept"], row["reason"], row["remaining_before"]) for row in report["trace"]
    ]
    assert {d.id for d in selection.decisions if d.kept} == set(selection.kept)


def test_a_failed_selection_is_a_result_not_an_exception():
    selection = select({"mode": "required", "budget": 1, "items": [{"id": "a", "cost": 2, "priority": 0, "required": True}]})
    assert selection.passed is False and selection.kept == () and selection.left_out == ("a",)
    assert selection.decisions[0].reason == "required_items_exceed_budget"


def test_input_is_not_changed_and_any_mapping_works():
    document = copy.deepcopy(SEED_000)
    assert select(types.MappingProxyType(document)).kept == ("A", "C")
    assert document == SEED_000


@pytest.mark.parametrize("value", [None, [1, 2], "text", 3])
def test_anything_but_an_object_is_invalid_input(value):
    with pytest.raises(InvalidInputError, match=r"\$: expected an object"):
        select(value)


def test_results_are_frozen_and_fully_typed():
    selection = select(SEED_000)
    with pytest.raises(dataclasses.FrozenInstanceError):
        selection.kept = ()
    for cls in (Selection, Check, Decision, InputProblem):
        hints = typing.get_type_hints(cls)  # every annotation resolves, so a type checker can read it
        assert set(hints) == {field.name for field in dataclasses.fields(cls)}
    assert typing.get_type_hints(select)["return"] is Selection


def test_the_package_says_it_is_typed():
    assert resources.files("fitproof").joinpath("py.typed").is_file()


def test_evaluate_still_never_raises_on_the_same_input():
    assert evaluate({"budget": -1, "items": []})["pass"] is False


TYPED_USE = """
from typing import TypedDict

from fitproof import Decision, InvalidInputError, Selection, count_messages, select, trim_messages


class Message(TypedDict):  # as the OpenAI SDK types a history: it was refused by list[dict]
    role: str
    content: str


history: list[Message] = [{"role": "user", "content": "hi"}]
to_send: list[dict[str, object]] = trim_messages(history, 100)
trimmed = trim_messages(history, 100, "gpt-4o", tools=None, token_counter=len)
prompt_tokens: int = trimmed.tokens + trimmed.remaining
tokens: int = count_messages(tuple(history))

selection: Selection = select({"budget": 7, "items": []})
kept: tuple[str | int, ...] = selection.kept
used: int = selection.used
first: Decision | None = selection.decisions[0] if selection.decisions else None
try:
    select({"budget": -1})
except InvalidInputError as error:
    paths: list[str] = [problem.path for problem in error.problems]
wrong: str = selection.used  # the one line mypy must reject: the types are known, not Any
"""
WRONG_LINE = next(line for line in TYPED_USE.splitlines() if line.startswith("wrong: str"))


def test_a_type_checker_knows_the_types(tmp_path):
    """mypy --strict accepts typed use of select() and rejects exactly the line that misuses a result."""
    import os
    import subprocess
    import sys

    from conftest import ROOT

    source = tmp_path / "use.py"
    source.write_text(TYPED_USE)
    process = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent", "--no-incremental", "--cache-dir", os.devnull, "use.py"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
        env={**os.environ, "MYPYPATH": str(ROOT / "py")},
    )
    errors = [line for line in process.stdout.splitlines() if ": error:" in line]
    assert (
        len(errors) == 1 and errors[0].startswith(f"use.py:{TYPED_USE.splitlines().index(WRONG_LINE) + 1}:") and "[assignment]" in errors[0]
    ), process.stdout + process.stderr


def test_the_errors_survive_pickling_so_a_process_pool_hands_them_back():
    """They could not be rebuilt from their pickle, and one bad input broke the whole pool."""
    import pickle
    from concurrent.futures import ProcessPoolExecutor

    from fitproof import MessagesError, trim_messages

    with pytest.raises(InvalidInputError) as raised:
        select({"budget": "x", "items": []})
    copy = pickle.loads(pickle.dumps(raised.value))
    assert (str(copy), copy.summary, copy.problems, copy.report) == (
        str(raised.value),
        raised.value.summary,
        raised.value.problems,
        raised.value.report,
    )
    with ProcessPoolExecutor(1) as pool:
        with pytest.raises(MessagesError, match=r"\$\.messages\[0\]\.role") as raised_there:
            pool.submit(trim_messages, [{"role": "usr", "content": "x"}], 10).result()
    assert raised_there.value.problems[0]["path"] == "$.messages[0].role"


def test_a_messages_decision_says_the_unit_cost_it_weighed():
    """A tool result's row said cost 19, 34 remaining, left out for exceeding: its unit cost 54."""
    history = [
        {"role": "user", "content": "Where is my order?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "lookup", "arguments": "{}"}}],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "shipped"},
        {"role": "user", "content": "Thanks"},
    ]
    selection = select({"mode": "messages", "limit": 30, "tokenizer": "estimate", "messages": history})
    for decision, row in zip(selection.decisions, selection.report["trace"]):
        assert decision.unit_cost == row["unit_tokens"] >= decision.cost
        if not decision.kept and decision.reason == "exceeds_remaining_budget":
            assert decision.unit_cost > decision.remaining_before
    assert any(decision.unit_cost > decision.cost for decision in selection.decisions)
    assert (
        select({"budget": 1, "items": []}).decisions == ()
        and select({"budget": 1, "items": [{"id": "a", "relevance": 1, "tokens": 1}]}).decisions[0].unit_cost is None
    )
