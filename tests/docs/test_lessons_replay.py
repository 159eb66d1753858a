"""Every lesson step replayed through the real package (CPython), so that a lesson can never
teach what the code does not do: the step's input is valid, the prediction it wants holds as a
claim and is the rule's own choice, every number it names in `facts` is the report's, and every
"why" answer that shows a misconception with a claim fails with the checks it says.

The lessons are data: web/lesson.json (the first, and the picker's list) and web/lessons/<id>.json."""

import json

import pytest

from conftest import FIXTURES
from fitproof import count_tokens, evaluate
from fitproof._evaluation.claims import LIST_KEY
from lesson_text import PLACEHOLDER

WEB = FIXTURES.parent / "web"
FIRST = json.loads((WEB / "lesson.json").read_text(encoding="utf-8"))


def lessons():
    found = {FIRST["id"]: FIRST}
    for entry in FIRST["lessons"][1:]:
        found[entry["id"]] = json.loads((WEB / "lessons" / f"{entry['id']}.json").read_text(encoding="utf-8"))
    return found


LESSONS = lessons()
STEPS = [(key, number, step) for key, lesson in LESSONS.items() for number, step in enumerate(lesson["steps"], 1)]
IDS = [f"{key}-{number}" for key, number, _ in STEPS]


def at(report, dotted):
    value = report
    for part in dotted.split("."):
        value = value[int(part)] if isinstance(value, list) else value[part]
    return value


def choice_values(step):
    """What a prediction can name: the input's ids, or in messages its indices, in input order."""
    data = step["input"]
    if data.get("mode") == "messages":
        return list(range(len(data["messages"])))
    return [item["id"] for item in data.get("items", data.get("passages", []))]


def test_the_picker_lists_every_lesson_file_and_the_first_is_this_one():
    assert FIRST["lessons"][0]["id"] == FIRST["id"] == "relevance"
    files = sorted(path.stem for path in (WEB / "lessons").glob("*.json"))
    assert files == sorted(entry["id"] for entry in FIRST["lessons"][1:])
    for key, lesson in LESSONS.items():
        assert lesson["id"] == key and lesson["steps"]
    # The lessons teach the relevance, messages, required and passages rules, the cache-stable trim among them.
    modes = {step["input"].get("mode", "relevance") for _, _, step in STEPS}
    assert modes == {"relevance", "messages", "required", "passages"}
    assert any(step["input"].get("strategy") == "stable" for _, _, step in STEPS)


def test_every_lesson_asks_for_a_prediction_and_a_why():
    for key, lesson in LESSONS.items():
        assert any("predict" in step or step.get("claim") for step in lesson["steps"]), key
        assert any("why" in step for step in lesson["steps"]), key


@pytest.mark.parametrize("key, number, step", STEPS, ids=IDS)
def test_the_step_s_input_is_valid_and_its_facts_are_the_report_s(key, number, step):
    report = evaluate(step["input"])
    assert "errors" not in report, report.get("errors")
    for dotted, value in step.get("facts", {}).items():
        assert at(report, dotted) == value, f"{key} step {number}: {dotted} is {at(report, dotted)!r}, the lesson says {value!r}"
    for item, tokens in step.get("text_tokens", {}).items():
        text = next(passage["text"] for passage in step["input"]["passages"] if passage["id"] == item)
        assert count_tokens(text, step["input"]["counter"]) == tokens
    if "newest" in step:  # what the default strategy would do with the same history
        plain = {name: value for name, value in step["input"].items() if name not in ("strategy", "previous", "low_watermark")}
        newest = evaluate(plain)
        assert {name: newest[name] for name in step["newest"]} == step["newest"]


@pytest.mark.parametrize(
    "key, number, step",
    [s for s in STEPS if "predict" in s[2] or "answer" in s[2]],
    ids=[i for i, s in zip(IDS, STEPS) if "predict" in s[2] or "answer" in s[2]],
)
def test_the_intended_prediction_holds_and_is_the_rule_s_choice(key, number, step):
    predict = step.get("predict", {})
    field = predict.get("field", "selected")
    answer = predict.get("answer", step.get("answer"))
    mode = step["input"].get("mode", "relevance")
    assert field == LIST_KEY[mode]
    values = choice_values(step)
    if predict:  # the buttons are the input's ids (indices), every one, in order
        assert [choice["value"] for choice in predict["choices"]] == values
        assert all(choice["label"] for choice in predict["choices"])
        assert predict["question"]
    assert set(answer) <= set(values)
    report = evaluate({**step["input"], "claim": {field: answer}})
    assert report["claim"] == {"pass": True, "failures": []}, report["claim"]
    assert sorted(report[field], key=values.index) == sorted(answer, key=values.index)


WHYS = [(key, number, step) for key, number, step in STEPS if "why" in step]


@pytest.mark.parametrize("key, number, step", WHYS, ids=[f"{k}-{n}" for k, n, _ in WHYS])
def test_each_why_has_one_right_answer_and_every_misconception_shown_fails_as_said(key, number, step):
    why = step["why"]
    assert why["question"]
    assert [option["right"] for option in why["options"]].count(True) == 1
    assert len(why["options"]) >= 3
    for option in why["options"]:
        assert option["text"] and option["explain"]
        assert option["explain"].startswith("Right." if option["right"] else "No:")
        if "claim" in option:
            report = evaluate({**step["input"], "claim": option["claim"]})
            assert report["claim"]["pass"] is False, option["text"]
            checks = {failure["check"] for failure in report["claim"]["failures"]}
            assert checks == set(option["fails"]), (option["text"], report["claim"]["failures"])
        else:
            assert "fails" not in option


def test_the_picker_says_how_many_steps_each_lesson_has():
    assert {entry["id"]: entry["steps"] for entry in FIRST["lessons"]} == {key: len(lesson["steps"]) for key, lesson in LESSONS.items()}


EXPLORES = [(key, number, step) for key, number, step in STEPS if "explore" in step]


@pytest.mark.parametrize("key, number, step", EXPLORES, ids=[f"{k}-{n}" for k, n, _ in EXPLORES])
def test_every_value_a_number_can_be_dragged_to_is_a_valid_input(key, number, step):
    """The number in the text moves from min to max: each value's report is the package's, and
    none of them is an input error (the page would show an error, never a traceback, but a
    lesson should not lead there)."""
    spec = step["explore"]
    assert spec["label"] and spec["before"] is not None and spec["after"] is not None
    assert spec["min"] <= at(step["input"], ".".join(map(str, spec["path"]))) <= spec["max"]
    own = evaluate(step["input"])
    changed = False  # the step is done once the number moved until the rule's choice changed: it can
    for value in range(spec["min"], spec["max"] + 1, spec["step"]):
        data = json.loads(json.dumps(step["input"]))
        place = data
        for part in spec["path"][:-1]:
            place = place[part]
        place[spec["path"][-1]] = value
        report = evaluate(data)
        assert "errors" not in report, (value, report.get("errors"))
        field = LIST_KEY[data.get("mode", "relevance")]
        changed = changed or (report["pass"], report[field]) != (own["pass"], own[field])
    assert changed, "no value in the range changes the rule's choice"


REFUSALS = [(key, number, step) for key, number, step in STEPS if "refuse" in step]


@pytest.mark.parametrize("key, number, step", REFUSALS, ids=[f"{k}-{n}" for k, n, _ in REFUSALS])
def test_a_claim_the_step_asks_the_checker_to_refuse_is_refused(key, number, step):
    field = LIST_KEY[step["input"].get("mode", "relevance")]
    assert set(step["refuse"]) <= set(choice_values(step))
    assert evaluate({**step["input"], "claim": {field: step["refuse"]}})["claim"]["pass"] is False


def shown_length(text):
    """A text's length as the page shows it, a placeholder counted as a two-digit number."""
    return len(PLACEHOLDER.sub("00", text))


def giveaways(whys):
    """How the right answers could be found without reading: one place for most of them (or a
    place never used), or being the longest in more than a third of the questions."""
    found = []
    places = [[option["right"] for option in options].index(True) for options in whys]
    if set(places) != set(range(min(len(options) for options in whys))) or max(map(places.count, places)) > len(places) // 2:
        found.append(f"the right answers' places: {places}")
    longest = [max(options, key=lambda option: shown_length(option["text"]))["right"] for options in whys]
    if longest.count(True) > len(whys) // 3:
        found.append(f"the right answer is the longest in {longest.count(True)} of {len(whys)}")
    return found


def test_the_right_answer_is_not_found_by_its_place_or_its_length():
    """The options are shown in their order in the file: the right one moves between questions
    (every place used, none holding half of them), and is the longest in at most a third."""
    assert giveaways([step["why"]["options"] for _, _, step in WHYS]) == []


def test_a_right_answer_always_in_one_place_or_always_the_longest_is_caught():
    first = [[{"right": i == 0, "text": "x" * (9 - i)} for i in range(3)] for _ in range(6)]
    assert len(giveaways(first)) == 2
    moved = [options[k:] + options[:k] for k, options in zip([0, 1, 2, 0, 1, 2], first)]
    assert giveaways(moved) == ["the right answer is the longest in 6 of 6"]


NEWEST = [(key, number, step) for key, number, step in STEPS if "newest" in step]


@pytest.mark.parametrize("key, number, step", NEWEST, ids=[f"{k}-{n}" for k, n, _ in NEWEST])
def test_the_natural_wrong_guess_is_told_the_first_failure_in_the_lesson_s_words(key, number, step):
    """What plain trimming sends is the guess a learner of strategy stable makes first: its
    verdict names the stable rule (the watermark's cut, or the cut kept), never a reason the
    guess does not break."""
    report = evaluate({**step["input"], "claim": {"kept": step["newest"]["kept"]}})
    assert report["claim"]["pass"] is False
    (failure,) = [failure for failure in report["claim"]["failures"] if failure["check"] == "follows the rule"]
    assert "strategy stable" in failure["detail"], failure
    assert "user turn" not in failure["detail"], failure
    if evaluate(step["input"])["cut_from"] == "low_watermark":
        assert f"{evaluate(step['input'])['walk_limit']} tokens" in failure["detail"]


def test_every_step_asks_the_learner_to_show_something():
    """No step is done on arrival (web/page/lesson-tasks.js): each has a prediction, a "why", a
    number to drag or decisions to step through."""
    for key, number, step in STEPS:
        assert step.get("focus") == "steps" or {"predict", "claim", "why", "explore", "refuse"} & set(step), (key, number)
