"""No number in a lesson's prose is written by hand: each is a placeholder, {path}, that the page
fills from the package's report for the step's input (web/page/lesson-numbers.js), so the text
cannot disagree with the page. Every placeholder is resolved here against the report CPython
gives for the same input, and a digit left in the prose fails.

What may keep its digits: a message's index ("message 3", "#3", "messages 1 to 6"), a quoted
text (“5 Elm Street, please.”), and the names listed in NAMES (a tokenizer's, a model's)."""

import re

import pytest

from fitproof import evaluate
from lesson_text import PLACEHOLDER, said, value_at
from test_lessons_replay import IDS, LESSONS, STEPS

NAMES = ("o200k_base", "cl100k_base", "GPT-4o", "A-1042", "gpt-4o")
INDEX = re.compile(r"\b(?:messages?|turns?) \d+(?:(?:, | and | to | or )\d+)*|#\d+", re.IGNORECASE)
QUOTED = re.compile(r"“[^”]*”")


def prose(step):
    """Every piece of a step's text the page shows."""
    yield from step["text"]
    yield step["do"]
    predict = step.get("predict")
    if predict:
        yield predict["question"]
        yield from (choice["label"] for choice in predict["choices"])
    if "explore" in step:
        yield step["explore"]["before"]
        yield step["explore"]["after"]
    why = step.get("why")
    if why:
        yield why["question"]
        for option in why["options"]:
            yield option["text"]
            yield option["explain"]


def hand_written_numbers(text):
    """The digits left in ``text`` once its placeholders, indices, quotes and names are taken out."""
    rest = QUOTED.sub("", PLACEHOLDER.sub("", text))
    for name in NAMES:
        rest = rest.replace(name, "")
    rest = INDEX.sub("", rest)
    return re.findall(r"\d+(?:[.,]\d+)?", rest)


def test_a_hand_written_number_is_found_and_a_placeholder_or_an_index_is_not():
    assert hand_written_numbers("The verdict: needs 54 of the 27 left.") == ["54", "27"]
    assert hand_written_numbers("B goes first (relevance 8).") == ["8"]
    assert hand_written_numbers("0.7 × 100 = 70") == ["0.7", "100", "70"]
    assert hand_written_numbers("Message 3 needs {trace.#3.tokens} with {trace.#3.remaining_before} left.") == []
    assert hand_written_numbers("The frame needs {limit - trace.#a.remaining_before} words.") == []
    assert hand_written_numbers("#9 user: “5 Elm Street, please.” (o200k_base), messages 1 to 6") == []


@pytest.mark.parametrize("key, number, step", STEPS, ids=IDS)
def test_no_number_in_the_step_s_prose_is_written_by_hand(key, number, step):
    found = [(text, hand_written_numbers(text)) for text in prose(step) if hand_written_numbers(text)]
    assert found == [], f"{key} step {number}: write these numbers as placeholders of the report: {found}"


@pytest.mark.parametrize("key, number, step", STEPS, ids=IDS)
def test_every_placeholder_is_a_value_of_the_step_s_report(key, number, step):
    report = evaluate(step["input"])
    for text in prose(step):
        for expression in PLACEHOLDER.findall(text):
            terms = re.split(r" [-+] ", expression)
            for path in terms:
                value = value_at(report, path)
                assert value is not None and not isinstance(value, dict), f"{key} step {number}: {{{path}}} is not in the report"
                if path.endswith(".reason"):
                    assert isinstance(value, str)
                if len(terms) > 1:  # a sum or a difference: of numbers
                    assert isinstance(value, int | float) and not isinstance(value, bool), (key, number, expression)
            assert said(report, expression) != "None"


def test_the_lessons_titles_and_abouts_have_no_number_either():
    texts = [entry["about"] for entry in LESSONS["relevance"]["lessons"]] + [step["title"] for _, _, step in STEPS]
    assert [text for text in texts if hand_written_numbers(text)] == []
