"""Gemma 3's chat template (``templates.py``, ``gemma3``) equals ``jinja2`` running the model's own
``chat_template`` (from its tokenizer_config.json, fetched by scripts/fetch_model_tokenizers) on 2,000
generated conversations, and ``count_rendered`` equals ``tokenizers`` counting that text."""

import json
import random

import pytest

from model_files import corpus, hf_environment, model_file, ours, reference

from fitproof import templates

CONVERSATIONS = 2_000


def gemma_template():
    config = json.loads(model_file("gemma3", "tokenizer_config.json").read_bytes())
    compiled = hf_environment().from_string(config["chat_template"])
    return lambda **kwargs: compiled.render(bos_token=config["bos_token"], eos_token=config["eos_token"], **kwargs)


def text(rng: random.Random, pool: list[str]) -> str:
    value = rng.choice(pool)
    kind = rng.random()
    if kind < 0.1:
        value = "\n" + value
    elif kind < 0.2:
        value = "  " + value + " \n\t"
    elif kind < 0.25:
        value = value + rng.choice(["<start_of_turn>", "<end_of_turn>", "<bos>", "\u2581"])
    return value


def content(rng: random.Random, pool: list[str]):
    if rng.random() < 0.8:
        return text(rng, pool)
    parts = []
    for _ in range(rng.randint(0, 3)):
        parts.append({"type": "image"} if rng.random() < 0.3 else {"type": "text", "text": text(rng, pool)})
    return parts


def conversation(rng: random.Random, pool: list[str]) -> list[dict]:
    messages = []
    if rng.random() < 0.5:
        system = text(rng, pool)
        messages.append({"role": "system", "content": system if rng.random() < 0.8 else [{"type": "text", "text": system}]})
    for turn in range(rng.randint(0 if messages else 1, 6)):
        role = "user" if turn % 2 == 0 else rng.choice(["assistant", "assistant", "model"])
        messages.append({"role": role, "content": content(rng, pool)})
    return messages


def test_rendering_and_counts_equal_jinja_and_tokenizers():
    reference_render = gemma_template()
    tokenizer = ours("gemma3")
    rng = random.Random("gemma3")
    pool = corpus(3_000, seed=52) + ["", "Hello", "a\n\nb", "What is the refund window?"]
    cases = []
    for _ in range(CONVERSATIONS):
        messages = conversation(rng, pool)
        generation = rng.random() < 0.8
        expected = reference_render(messages=messages, add_generation_prompt=generation)
        assert templates.render(messages, "gemma3", add_generation_prompt=generation) == expected, messages
        cases.append((messages, generation, expected))
    counts = [len(e.ids) for e in reference("gemma3").encode_batch([case[-1] for case in cases], add_special_tokens=False)]
    for (messages, generation, _), expected in zip(cases, counts):
        result = templates.count_rendered_detail(messages, "gemma3", tokenizer, add_generation_prompt=generation)
        assert result.total == expected == tokenizer.count(result.text)
        assert sum(result.per_message) + result.overhead == result.total


@pytest.mark.parametrize(
    "messages, fragment",
    [
        ([], "needs at least one message"),
        ([{"role": "assistant", "content": "hi"}], "needs user and other turns in turn"),
        ([{"role": "user", "content": "a"}, {"role": "user", "content": "b"}], "messages[1]"),
        ([{"role": "user", "content": 7}], "messages[0].content must be a string or a list of parts"),
        ([{"role": "system", "content": 7}, {"role": "user", "content": "x"}], "messages[0].content must be a string"),
    ],
)
def test_what_the_template_refuses_is_refused_as_jinja_refuses_it(messages, fragment):
    reference_render = gemma_template()
    with pytest.raises(templates.TemplateError, match=fragment.replace("[", r"\[").replace("]", r"\]").replace(".", r"\.")):
        templates.render(messages, "gemma3")
    with pytest.raises(Exception):
        reference_render(messages=messages, add_generation_prompt=True)


def test_tools_are_refused_not_dropped():
    with pytest.raises(templates.TemplateError, match="writes no tools"):
        templates.render([{"role": "user", "content": "x"}], "gemma3", tools=[{"type": "function", "function": {"name": "f"}}])
