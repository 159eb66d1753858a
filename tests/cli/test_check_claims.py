"""Claims on the command line: in the input, given apart with --claim, in --jsonl lines, as text."""

import io
import json

import pytest

from fitproof.cli import run

INPUT = {
    "budget": 7,
    "items": [{"id": "A", "relevance": 9, "tokens": 4}, {"id": "B", "relevance": 8, "tokens": 5}, {"id": "C", "relevance": 7, "tokens": 3}],
}


class TerminalBytes(io.BytesIO):
    def isatty(self):
        return True


def call(argv, stdin=b"", stdin_class=io.BytesIO):
    stdout, stderr = io.StringIO(), io.StringIO()
    code = run(argv, stdin_class(stdin if isinstance(stdin, bytes) else stdin.encode()), stdout, stderr, {})
    return code, stdout.getvalue(), stderr.getvalue()


@pytest.fixture
def files(tmp_path):
    def write(name, value):
        path = tmp_path / name
        path.write_text(value if isinstance(value, str) else json.dumps(value))
        return str(path)

    return write


def test_a_claim_inside_the_input_is_judged():
    code, out, err = call(["check", "-"], json.dumps({**INPUT, "claim": {"selected": ["A", "C"]}}))
    result = json.loads(out)["result"]
    assert code == 0 and err == "" and result["claim"] == {"pass": True, "failures": []}
    code, out, _ = call(["check", "-"], json.dumps({**INPUT, "claim": {"selected": ["A"]}}))
    envelope = json.loads(out)
    assert code == 1 and envelope["ok"] is False
    assert envelope["error"].startswith("The claim fails: C fits the 3 tokens that remain")


def test_claim_file_is_joined_to_the_input(files):
    code, out, err = call(["check", files("in.json", INPUT), "--claim", files("claim.json", {"selected": ["C", "A"]})])
    result = json.loads(out)["result"]
    assert code == 0 and err == "" and result["claim"]["pass"] is True
    assert result["summary"] == "The claim holds: Selected A, C within 7 tokens."


def test_claim_file_replaces_the_claim_in_the_input(files):
    given = files("in.json", {**INPUT, "claim": {"selected": ["A", "C"]}})
    code, out, _ = call(["check", given, "--claim", files("claim.json", {"selected": ["B"]})])
    failures = json.loads(out)["result"]["claim"]["failures"]
    assert code == 1 and failures[0] == {
        "check": "follows the rule",
        "detail": "A fits the 7 tokens that remain (it needs 4) but is not claimed",
        "id": "A",
    }


def test_claim_from_standard_input_when_the_input_is_a_file(files):
    code, out, err = call(["check", files("in.json", INPUT), "--claim", "-"], '{"selected": ["A", "B"], "used": 9}')
    claim = json.loads(out)["result"]["claim"]
    assert code == 1 and err == ""
    assert [failure["check"] for failure in claim["failures"]] == ["token budget", "follows the rule"]


def test_a_claim_from_a_terminal_is_reminded_how_to_end(files):
    code, _, err = call(["check", files("in.json", INPUT), "--claim", "-"], '{"selected": ["A", "C"]}', TerminalBytes)
    assert code == 0 and "reading the claim from the terminal; end it with Ctrl+D" in err


@pytest.mark.parametrize("argv", [["check", "-", "--claim", "-"], ["check", "--claim", "-"]])
def test_input_and_claim_both_on_standard_input_are_refused(argv):
    code, out, err = call(argv, json.dumps(INPUT))
    assert code == 2 and out == ""
    assert err == "fitproof: check cannot read both the input and --claim from standard input: give one of them as a file\n"


def test_a_claim_file_that_cannot_be_read_is_exit_2(files, tmp_path):
    missing = str(tmp_path / "missing.json")
    code, out, err = call(["check", files("in.json", INPUT), "--claim", missing])
    assert (code, out) == (2, "")
    assert err == f"fitproof: check --claim: cannot read {missing}: No such file or directory\n"
    code, out, err = call(["check", files("in.json", INPUT), "--claim", str(tmp_path)])
    assert code == 2 and out == "" and err.startswith(f"fitproof: check --claim: cannot read {tmp_path}: ")
    assert err.count("\n") == 1


def test_an_empty_claim_name_is_exit_2(files):
    code, out, err = call(["check", files("in.json", INPUT), "--claim", ""])
    assert (code, out) == (2, "")
    assert err == "fitproof: check --claim needs a file name (or - for standard input), got an empty one\n"


@pytest.mark.parametrize(
    "text, message",
    [
        ('{"selected": ["A"', "claim {name}: invalid JSON: unexpected end of input at line 1 column 18"),
        ("The answer is A and C.", "claim {name}: invalid JSON: "),
        ('{"selected": ["A"], "selected": ["C"]}', "claim {name}: "),
    ],
)
def test_a_claim_file_that_is_not_json_is_one_line_and_exit_1(files, text, message):
    name = files("claim.json", text)
    code, out, err = call(["check", files("in.json", INPUT), "--claim", name])
    assert (code, out) == (1, "")
    assert err.startswith("fitproof: " + message.format(name=name)) and err.count("\n") == 1
    assert "Traceback" not in err


def test_a_claim_file_that_is_not_utf8_is_exit_1(tmp_path, files):
    name = tmp_path / "claim.json"
    name.write_bytes(b'{"selected": ["\xff"]}')
    code, out, err = call(["check", files("in.json", INPUT), "--claim", str(name)])
    assert (code, out) == (1, "") and err.startswith(f"fitproof: claim {name}: input is not valid UTF-8")


@pytest.mark.parametrize("claim, path", [([1], "$.claim"), ({"selected": "A"}, "$.claim.selected"), ({"kept": [0]}, "$.claim.kept")])
def test_a_claim_file_of_the_wrong_shape_is_an_input_error_at_its_path(files, claim, path):
    code, out, err = call(["check", files("in.json", INPUT), "--claim", files("claim.json", claim)])
    envelope = json.loads(out)
    assert code == 1 and err == "" and envelope["ok"] is False
    assert "claim" not in envelope["result"] and envelope["result"]["errors"][0]["path"] == path


def test_claim_with_an_input_that_is_not_json_reports_the_input(files):
    code, out, _ = call(["check", files("in.json", "[1,"), "--claim", files("claim.json", {"selected": []})])
    assert code == 1 and json.loads(out)["error"].startswith("invalid JSON")


def test_claim_with_jsonl_is_refused(files):
    code, out, err = call(["check", "--jsonl", files("in.jsonl", json.dumps(INPUT)), "--claim", files("c.json", {"selected": []})])
    assert (code, out) == (2, "")
    assert err == "fitproof: check: --claim joins one claim to one input; with --jsonl, put each line's claim in it\n"


@pytest.mark.parametrize("jobs", [[], ["--jobs", "2"]])
def test_jsonl_lines_carry_their_own_claims(files, jobs):
    lines = [
        {**INPUT, "claim": {"selected": ["A", "C"]}},
        INPUT,
        {**INPUT, "claim": {"selected": ["A", "B"]}},
        {**INPUT, "claim": {"selected": [3]}},
    ]
    name = files("in.jsonl", "\n".join(json.dumps(line) for line in lines) + "\n")
    code, out, err = call(["check", "--jsonl", name, *jobs])
    envelopes = [json.loads(line) for line in out.splitlines()]
    assert code == 1 and err == ""
    assert [envelope["ok"] for envelope in envelopes] == [True, True, False, False]
    assert [envelope["input_line"] for envelope in envelopes] == [1, 2, 3, 4]
    assert envelopes[0]["result"]["claim"]["pass"] is True and "claim" not in envelopes[1]["result"]
    assert envelopes[2]["result"]["claim"]["failures"][0]["check"] == "token budget"
    assert envelopes[3]["result"]["errors"][0]["path"] == "$.claim.selected[0]"


def test_text_shows_a_holding_claim_first(files):
    code, out, _ = call(["check", files("in.json", INPUT), "--claim", files("c.json", {"selected": ["A", "C"]}), "--format", "text"])
    assert code == 0
    assert out.startswith("CLAIM HOLDS  it is the selection the rule makes\n\nPASS  The claim holds: Selected A, C within 7 tokens.\n")


def test_text_shows_each_failure_of_a_failing_claim_first(files):
    claim = files("c.json", {"selected": ["A", "B", "Z"], "used": 3})
    code, out, _ = call(["check", files("in.json", INPUT), "--claim", claim, "--format", "text"])
    assert code == 1
    assert out.startswith(
        "CLAIM FAILS  4 failures\n"
        '  known ids: "Z" is not an id of the input\n'
        "  token budget: the claimed items cost 9 tokens (A 4 + B 5), over the budget of 7 by 2\n"
        "  follows the rule: B is claimed, but after A 3 tokens remain and B needs 5\n"
        "  used adds up: the claim says used 3, but the claimed costs add up to 9\n"
        "\n"
        'FAIL  The claim fails: "Z" is not an id of the input (and 3 more failures). Selected A, C within 7 tokens.\n'
    )
    assert "\nchecks\n" in out and "\nleft out (1)\n" in out  # then the usual report


def test_text_without_a_claim_is_unchanged(files):
    code, out, _ = call(["check", files("in.json", INPUT), "--format", "text"])
    assert code == 0 and out.startswith("PASS  Selected A, C within 7 tokens.\n") and "CLAIM" not in out


def test_text_keeps_a_claimed_id_with_a_line_break_on_one_line(files):
    claim = files("c.json", {"selected": ["A\nPASS  fake", "C", "A"]})
    code, out, _ = call(["check", files("in.json", INPUT), "--claim", claim, "--format", "text"])
    assert code == 1 and "\nPASS  fake" not in out and "A\\nPASS  fake" in out
