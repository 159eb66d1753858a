"""``compose --tokenizer-file NAME=PATH``: the refund pipeline's blocks counted by its local model's own
tokenizer (Qwen 3), and the prompt as the server gets it (one user message in the chat template) counted too."""

import json

import pytest

from cli_calls import call_cli
from conftest import ROOT

QWEN = ROOT / "tests" / "data" / "models" / "qwen3" / "tokenizer.json"
QWEN_CONFIG = ROOT / "tests" / "data" / "models" / "qwen3" / "tokenizer_config.json"
EXAMPLE = str(ROOT / "examples" / "refund-case.json")


@pytest.fixture(scope="module")
def qwen():
    if not QWEN.is_file():
        pytest.fail(f"{QWEN} is missing: run python3 scripts/fetch_model_tokenizers (scripts/test runs it)")
    from tokenizers import Tokenizer

    return Tokenizer.from_file(str(QWEN))


def test_compose_counts_the_refund_prompt_with_the_models_tokenizer(qwen):
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    code, out, err = call_cli(["compose", EXAMPLE, "--json", "--tokenizer-file", f"qwen3={QWEN}"])
    assert (code, err) == (0, ""), err
    said = json.loads(out)
    report = said["result"]
    assert report["tokenizer"] == "qwen3" and report["tokenizer_file"]["name"] == "qwen3"
    assert report["rendered_tokens"] == len(qwen.encode(report["prompt"], add_special_tokens=False).ids)
    # the chat prompt: jinja2 rendering Qwen 3's own chat_template, counted by tokenizers
    config = json.loads(QWEN_CONFIG.read_bytes())
    environment = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
    text = environment.from_string(config["chat_template"]).render(
        messages=[{"role": "user", "content": report["prompt"]}], add_generation_prompt=True
    )
    assert said["chat_prompt"] == {"template": "qwen3", "tokens": len(qwen.encode(text, add_special_tokens=False).ids)}

    code, text_out, err = call_cli(["compose", EXAMPLE, "--tokenizer-file", f"qwen3={QWEN}"])
    assert code == 0 and err == ""
    assert (
        f"counted by qwen3 (tokenizer.json (byte-level BPE), sha256 {report['tokenizer_file']['sha256'][:12]}), exactly; "
        f"sent as one user message, the qwen3 chat template makes it {said['chat_prompt']['tokens']} tokens"
    ) in text_out
    # without the option: the input's own tokenizer, no such line
    code, plain, _ = call_cli(["compose", EXAMPLE])
    assert code == 0 and "counted by" not in plain


def test_a_bad_tokenizer_file_is_bad_usage(tmp_path):
    missing = tmp_path / "missing.json"
    code, out, err = call_cli(["compose", EXAMPLE, "--json", "--tokenizer-file", f"qwen3={missing}"])
    assert code == 2 and str(missing) in err and json.loads(out)["ok"] is False
    code, _, err = call_cli(["compose", EXAMPLE, "--tokenizer-file", str(QWEN)])
    assert code == 2 and "expected NAME=PATH" in err
