"""``fitproof count --tokenizer`` takes a model name, counted by its encoding as tiktoken maps it."""

import pytest

from cli_calls import call_cli
from fitproof import count_tokens


@pytest.mark.parametrize(
    "name, encoding",
    [
        ("gpt-4o", "o200k_base"),
        ("gpt-4o-2024-08-06", "o200k_base"),
        ("o3-mini", "o200k_base"),
        ("gpt-4", "cl100k_base"),
        ("gpt-3.5-turbo-0125", "cl100k_base"),
    ],
)
def test_count_takes_a_model_name(name, encoding):
    text = "Hello, world! Grüße aus 東京 🙂"
    code, out, err = call_cli(["count", "--tokenizer", name, "-"], text.encode())
    assert (code, out, err) == (0, f"{count_tokens(text, encoding)}\n", "")
    assert count_tokens(text, "o200k_base") != count_tokens(text, "cl100k_base")  # the encoding is seen in the count


@pytest.mark.parametrize(
    "name, words", [("gpt4o", "or a model name such as gpt-4o, got 'gpt4o'"), ("text-davinci-003", "uses the p50k_base encoding")]
)
def test_an_unknown_or_uncounted_model_is_a_usage_error(name, words):
    code, out, err = call_cli(["count", "--tokenizer", name, "-"], b"x")
    assert code == 2 and out == "" and words in err and "Traceback" not in err
