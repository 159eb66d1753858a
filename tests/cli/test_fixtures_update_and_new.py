"""`fitproof fixtures`: expect cases, `--update` of failing snapshots, `fixtures new`; exit codes
as the contract's table says, one-line errors, no traceback."""

import json

import pytest

from cli_calls import call_cli, file_tree, one_line_error
from conftest import FIXTURES
from fitproof import evaluate

INPUT = {
    "budget": 7,
    "items": [
        {"id": "A", "relevance": 0.9, "tokens": 4},
        {"id": "B", "relevance": 0.8, "tokens": 5},
        {"id": "C", "relevance": 0.5, "tokens": 3},
    ],
}


def case(expect=None, expected=None, data=INPUT, description="A and C fit"):
    made = {"description": description, "input": data}
    made.update({"expect": expect} if expect is not None else {"expected": expected})
    return json.dumps(made, indent=2, ensure_ascii=False) + "\n"


@pytest.fixture
def cases(tmp_path):
    """A folder with a passing and a failing expect case, a stale snapshot, a passing one, and a file that is no case."""
    folder = tmp_path / "cases"
    (folder / "sub").mkdir(parents=True)
    (folder / "two-fit.json").write_text(case({"pass": True, "selected": ["A", "C"]}))
    (folder / "sub" / "wrong.json").write_text(case({"selected": ["A", "B"]}))
    (folder / "stale.json").write_text(case(expected={**evaluate(INPUT), "summary": "an older wording"}))
    (folder / "fresh.json").write_text(case(expected=evaluate(INPUT)))
    (folder / "schema.json").write_text('{"type": "object"}\n')
    return folder


def test_expect_cases_run_with_the_snapshots(cases):
    code, out, err = call_cli(["fixtures", str(cases)])
    assert (code, err) == (1, "")
    assert out.splitlines() == [
        "ok   fresh.json",
        "FAIL schema.json: cannot load: $.type: unknown key (a case has description, input, and expected or expect); "
        '$: missing keys "description", "input"; $: missing "expected" (the whole report) or "expect" (the keys it states)',
        'FAIL stale.json: $.summary: expected "an older wording", got "Selected A, C within 7 tokens."',
        'FAIL sub/wrong.json: $.selected: expected ["A", "B"], got ["A", "C"]',
        "ok   two-fit.json",
        "2 passed, 3 failed",
    ]


def test_update_rewrites_the_failing_snapshot_and_nothing_else(cases):
    before = file_tree(cases)
    code, out, err = call_cli(["fixtures", str(cases), "--update"])
    assert (code, err) == (1, "")  # the expect case and the file that is no case still fail
    assert out.splitlines() == [
        "ok   fresh.json",
        "FAIL schema.json: cannot load: $.type: unknown key (a case has description, input, and expected or expect); "
        '$: missing keys "description", "input"; $: missing "expected" (the whole report) or "expect" (the keys it states)',
        "updated stale.json: 1 change",
        '    $.summary: "an older wording" -> "Selected A, C within 7 tokens."',
        'FAIL sub/wrong.json: $.selected: expected ["A", "B"], got ["A", "C"] (not updated: an expect case is never updated; edit what it states by hand)',
        "ok   two-fit.json",
        "2 passed, 1 updated, 2 failed",
    ]
    after = file_tree(cases)
    assert {name for name in before if before[name] != after.get(name)} == {"stale.json"} and set(after) == set(before)
    assert (cases / "stale.json").read_text() == case(expected=evaluate(INPUT))  # as the project writes its cases
    (cases / "schema.json").unlink()
    (cases / "sub" / "wrong.json").unlink()
    assert call_cli(["fixtures", str(cases), "--update"]) == (
        0,
        "ok   fresh.json\nok   stale.json\nok   two-fit.json\n3 passed, 0 updated, 0 failed\n",
        "",
    )


def test_update_of_a_failing_snapshot_alone_is_exit_0(tmp_path):
    (tmp_path / "stale.json").write_text(case(expected={**evaluate(INPUT), "used": 6}))
    assert call_cli(["fixtures", str(tmp_path / "stale.json"), "--update"]) == (
        0,
        "updated stale.json: 1 change\n    $.used: 6 -> 7\n0 passed, 1 updated, 0 failed\n",
        "",
    )
    assert call_cli(["fixtures", str(tmp_path)])[0] == 0


def test_update_never_touches_the_shipped_cases():
    code, _, err = call_cli(["fixtures", "--shipped", "--update"])
    assert code == 2 and one_line_error(err) and "--update rewrites your own cases" in err


# --- fixtures new ------------------------------------------------------------------------------


@pytest.fixture
def here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "input.json").write_text(json.dumps(INPUT))
    return tmp_path


def test_new_writes_a_case_with_the_keys_of_todays_report(here):
    (here / "my-cases").mkdir()
    code, out, err = call_cli(["fixtures", "new", "my-cases/two-fit", "--input", "input.json"])
    assert (code, err) == (0, "")
    assert out == 'wrote my-cases/two-fit.json: expect {"pass": true, "selected": ["A", "C"]}\n'
    written = json.loads((here / "my-cases" / "two-fit.json").read_text())
    assert written == {"description": "Selected A, C within 7 tokens.", "input": INPUT, "expect": {"pass": True, "selected": ["A", "C"]}}
    assert call_cli(["fixtures", "my-cases"]) == (0, "ok   two-fit.json\n1 passed, 0 failed\n", "")


def test_new_with_chosen_keys_and_a_description(here):
    code, out, _ = call_cli(
        ["fixtures", "new", "case.json", "--input", "input.json", "--expect", "used, optimal.value,optimal", "--description", "why"]
    )
    assert code == 0 and out.startswith("wrote case.json: expect ")
    written = json.loads((here / "case.json").read_text())
    assert written["description"] == "why" and written["expect"] == {"used": 7, "optimal": evaluate(INPUT)["optimal"]}
    code, _, _ = call_cli(["fixtures", "new", "value", "--input", "input.json", "--expect", "optimal.value"])
    assert code == 0 and json.loads((here / "value.json").read_text())["expect"] == {"optimal": {"value": 1.4}}


def test_new_with_a_claim_expects_its_verdict_and_with_errors_the_errors(here):
    (here / "claim.json").write_text(json.dumps({**INPUT, "claim": {"selected": ["A", "B"]}}))
    assert call_cli(["fixtures", "new", "judged", "--input", "claim.json"])[1] == (
        'wrote judged.json: expect {"pass": false, "selected": ["A", "C"], "claim": {"pass": false}}\n'
    )
    (here / "invalid-input.json").write_text('{"budget": -1, "items": []}')
    code, out, _ = call_cli(["fixtures", "new", "invalid", "--input", "invalid-input.json"])
    errors = evaluate({"budget": -1, "items": []})["errors"]
    assert code == 0 and json.loads((here / "invalid.json").read_text())["expect"] == {"pass": False, "errors": errors}


@pytest.mark.parametrize(
    "argv, said",
    [
        (
            ["fixtures", "new", "input", "--input", "input.json"],
            "fitproof: fixtures new: input.json exists, and is not overwritten (choose another NAME)\n",
        ),
        (
            ["fixtures", "new", "none/case", "--input", "input.json"],
            "fitproof: fixtures new: there is no directory none to write case.json in (create it first)\n",
        ),
        (["fixtures", "new", "case", "--input", "missing.json"], "fitproof: cannot read missing.json: No such file or directory\n"),
        (
            ["fixtures", "new", "case", "--input", "input.json", "--expect", "pass,selcted"],
            'fitproof: fixtures new: --expect selcted: the report has no key "selcted" (it has pass, summary, checks, mode, budget, used, remaining, selected, omitted, trace, optimal)\n',
        ),
        (
            ["fixtures", "new", "case", "--input", "input.json", "--expect", "pass,,used"],
            "fitproof: fixtures new: --expect takes report keys separated by commas (pass,selected or claim.pass), got 'pass,,used'\n",
        ),
        (
            ["fixtures", "new", "case", "--input", "input.json", "--expect", "selected.id"],
            'fitproof: fixtures new: --expect selected.id: the report\'s selected is ["A", "C"], not an object\n',
        ),
        (
            ["fixtures", "new", "case"],
            "fitproof: fixtures new needs NAME and --input FILE (fixtures new my-cases/two-fit --input input.json); to run the cases in a directory named new, write ./new\n",
        ),
        (["fixtures", "new", "", "--input", "input.json"], "fitproof: fixtures new needs a NAME for the case, got an empty one\n"),
        (["fixtures", "new", "case", "--input", "input.json", "--update"], "fitproof: fixtures new: --update runs cases; new writes one\n"),
        (["fixtures", "cases", "--input", "input.json"], "fitproof: fixtures: --input belongs to `fixtures new NAME --input FILE`\n"),
        (
            ["fixtures", "cases", "more"],
            "fitproof: fixtures: unexpected argument 'more' (one DIR or FILE; to write a case: fixtures new NAME --input FILE)\n",
        ),
    ],
)
def test_new_refuses_with_one_line_and_exit_2(here, argv, said):
    before = file_tree(here)
    code, out, err = call_cli(argv)
    assert (code, out, err) == (2, "", said) and one_line_error(err)
    assert file_tree(here) == before


def test_new_refuses_an_input_that_is_not_json_with_exit_1(here):
    (here / "prose.json").write_text("The answer is A and C.")
    code, out, err = call_cli(["fixtures", "new", "case", "--input", "prose.json"])
    assert (code, out) == (1, "") and one_line_error(err) and err.startswith("fitproof: input prose.json: invalid JSON: expected a value")
    assert not (here / "case.json").exists()


def test_new_reads_the_input_from_standard_input(here):
    code, out, _ = call_cli(["fixtures", "new", "piped", "--input", "-"], stdin=json.dumps(INPUT).encode())
    assert code == 0 and json.loads((here / "piped.json").read_text())["input"] == INPUT


def test_a_directory_named_new_is_run_as_dot_slash_new(here):
    (here / "new").mkdir()
    (here / "new" / "case.json").write_text(case({"pass": True}))
    assert call_cli(["fixtures", "./new"]) == (0, "ok   case.json\n1 passed, 0 failed\n", "")
    code, _, err = call_cli(["fixtures", "new"])
    assert code == 2 and "to run the cases in a directory named new, write ./new" in err


def test_the_projects_cases_stay_full_snapshots():
    """The project's own fixtures pin the contract: every one is a whole report."""
    for path in FIXTURES.rglob("*.json"):
        assert "expected" in json.loads(path.read_text()) and "expect" not in json.loads(path.read_text()), path


def test_the_docs_examples_of_new_and_update_print_what_is_shown(here):
    """docs/fixtures.md's `fixtures new` and `--update` examples, run in a folder set up as they say."""
    import re
    import shlex

    from conftest import ROOT

    page = (ROOT / "docs" / "fixtures.md").read_text(encoding="utf-8")
    examples = [block for block in re.findall(r"```text\n(.*?)```", page, re.S) if block.startswith("$ fitproof fixtures")]
    assert len(examples) == 2
    (here / "my-cases").mkdir()
    (here / "two-fit-input.json").write_text(json.dumps(INPUT))
    (here / "my-cases" / "snapshot.json").write_text(case(expected={**evaluate(INPUT), "summary": "Kept A and C."}))
    for block in examples:
        command, *shown = block.splitlines()
        code, out, err = call_cli(shlex.split(command[2:])[1:])
        assert (code, out, err) == (0, "\n".join(shown) + "\n", ""), command


def test_new_writes_no_case_from_a_report_that_lacks_tokenizer_data(here, monkeypatch):
    from fitproof.tokenizers import exact

    monkeypatch.setattr(exact, "CHECKOUT_DATA", here / "none")
    monkeypatch.setattr(exact, "PACKAGED_DATA", str(here / "none"))
    monkeypatch.setattr(exact, "ENCODINGS", {name: exact.Encoding(name) for name in exact.EXACT})
    monkeypatch.delenv(exact.DATA_ENV, raising=False)
    (here / "counted.json").write_text(
        json.dumps({"budget": 9, "tokenizer": "o200k_base", "items": [{"id": "A", "relevance": 1, "content": "hi"}]})
    )
    code, out, err = call_cli(["fixtures", "new", "case", "--input", "counted.json"])
    assert (code, out) == (1, "") and one_line_error(err) and not (here / "case.json").exists()
    assert err.startswith(
        "fitproof: fixtures new: no case written, its report would record missing data: o200k_base needs o200k_base.tiktoken"
    )


def test_update_says_why_a_link_is_not_written(tmp_path):
    outside = tmp_path / "outside.json"
    outside.write_text(case(expected={**evaluate(INPUT), "used": 6}))
    (tmp_path / "cases").mkdir()
    (tmp_path / "cases" / "link.json").symlink_to(outside)
    before = outside.read_bytes()
    code, out, _ = call_cli(["fixtures", str(tmp_path / "cases"), "--update"])
    assert code == 1 and out == (
        "FAIL link.json: $.used: expected 6, got 7 (not updated: it is a symbolic link; update the file it points to, where it is)\n"
        "0 passed, 0 updated, 1 failed\n"
    )
    assert outside.read_bytes() == before
