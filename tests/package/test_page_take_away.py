"""The page's "Take this with you" (fitproof._page.take_away): an input as a fixture case
that passes, and as a Python program that gives the same report, whatever the input's text holds."""

import json
import subprocess
import sys

import pytest

from fitproof import _page, evaluate
from fitproof.fixtures import check_case

RELEVANCE = {
    "budget": 7,
    "items": [
        {"id": "A", "relevance": 9, "tokens": 4},
        {"id": "B", "relevance": 8, "tokens": 5},
        {"id": "C", "relevance": 7, "tokens": 3, "content": 'say """hi""" \\ back'},
    ],
}
MESSAGES = {
    "mode": "messages",
    "limit": 60,
    "messages": [
        {"role": "system", "content": "You are terse."},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"a":"\\\\"}'}}],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "done\r\n"},
        {"role": "user", "content": "And now?"},
    ],
}


@pytest.mark.parametrize(
    "data",
    [RELEVANCE, MESSAGES, {**RELEVANCE, "claim": {"selected": ["A", "B"]}}, {"budget": -1, "items": []}],
    ids=["triple-quotes", "escapes", "claim", "invalid"],
)
def test_the_case_passes_and_the_program_prints_the_same_summary(data, tmp_path):
    answer = json.loads(_page.take_away(json.dumps(data), "from a test"))
    assert answer["ok"] is True
    report = evaluate(data)
    case = json.loads(answer["case"])
    assert case["description"] == "from a test" and case["input"] == data
    assert case["expect"]["pass"] is report["pass"]
    (tmp_path / "case.json").write_text(answer["case"])
    outcome = check_case(tmp_path / "case.json")
    assert outcome.passed, outcome.detail
    run = subprocess.run([sys.executable, "-c", answer["python"]], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout == report["summary"] + "\n" == answer["summary"] + "\n"


def test_text_that_is_not_json_is_said_in_one_line():
    answer = json.loads(_page.take_away('{"budget": 7,', "x"))
    assert answer["ok"] is False and answer["error"].startswith("invalid JSON")
