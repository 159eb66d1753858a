"""Every command, driven as an attacker or a careless user would: a hypothesis-driven CLI fuzz.

The rule: over bad files, encodings, options, settings and closed streams, each run ends with
an exit code from the contract's table, one message on stderr, no traceback, no terminal
escape, and no file touched outside the paths given"."""

import io
import json
import os
import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from conftest import ROOT
from fitproof.cli import run
from cli_calls import CLOSED_PORT_URL, SETTING_NAMES, setting_values, file_tree as _tree


CONTRACT = (ROOT / "docs" / "contract.md").read_text(encoding="utf-8")
DOCUMENTED_EXIT_CODES = {int(code) for code in re.findall(r"^\| ([0-9]+) \| ", CONTRACT, re.M)}
# What a run that nobody interrupted may end with: 130 is Ctrl+C's.
RUN_EXIT_CODES = DOCUMENTED_EXIT_CODES - {130}
EXAMPLE = (ROOT / "examples" / "refund-case.json").read_bytes()
SECRET = "sk-fuzz-3b8e0c7d1a9f"
FUZZ = settings(
    max_examples=int(os.environ.get("ROBUSTNESS_EXAMPLES", "150")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


def test_the_contract_table_has_the_exit_codes():
    """The fuzz's exit codes are the contract's table: 0, 1, 2, and 130 for Ctrl+C only."""
    assert DOCUMENTED_EXIT_CODES == {0, 1, 2, 3, 130} and RUN_EXIT_CODES == {0, 1, 2, 3}  # 3: a --jobs worker killed


# ---------------------------------------------------------------- the CLI fuzz


def _mutations(document: bytes) -> st.SearchStrategy[bytes]:
    """A valid input broken in one place: cut short, a byte changed, a byte inserted."""
    return st.one_of(
        st.integers(0, len(document)).map(lambda cut: document[:cut]),
        st.tuples(st.integers(0, len(document) - 1), st.integers(0, 255)).map(
            lambda change: document[: change[0]] + bytes([change[1]]) + document[change[0] + 1 :]
        ),
        st.tuples(
            st.integers(0, len(document)), st.sampled_from([b"\x00", b"\xff", b"\x1b[2J", b"\\", b'"', b"{", b"]", b"\xed\xa0\x80"])
        ).map(lambda insert: document[: insert[0]] + insert[1] + document[insert[0] :]),
    )


JSON_TEXTS = st.sampled_from(
    [
        "",
        " ",
        "{}",
        "[]",
        "null",
        "1",
        '"x"',
        "{",
        "[1,",
        '{"a": 1,}',
        '{"a": 1, "a": 2}',
        "NaN",
        "[Infinity]",
        "1" * 5000,
        "[" * 100_000,
        "[" * 513 + "]" * 513,
        '{"budget": 5, "items": [{"id": "\\ud800", "relevance": 1, "tokens": 1}]}',
        '{"budget": 5, "items": [{"id": "\\ud83d\\ude00", "relevance": 1, "tokens": 1}, {"id": "😀", "relevance": 2, "tokens": 1}]}',
        '{"mode": "blocks", "blocks": [{"id": "\\u001b[31mred", "source": "s", "content": "\\u001b]0;t\\u0007", "priority": 1, '
        '"observed_at": "２０２６-03-13T13:18:00Z"}], "window": {"context_tokens": "٣٠٠٠"}}',
        '{"budget": 1e400, "items": []}',
        '{"mode": "passages"}',
        '{"mode": 1}',
        "\ufeff{}",
        "\ufeff\ufeff{}",
    ]
)
ENCODINGS = st.sampled_from(["utf-8", "utf-8-sig", "utf-16", "utf-16-be", "utf-32", "latin-1", "cp1252"])
# Fixture inputs: valid documents of every mode, some failing their checks on purpose.
FIXTURE_INPUTS = [
    json.dumps(json.loads(path.read_text(encoding="utf-8"))["input"]).encode() for path in sorted((ROOT / "fixtures").rglob("*.json"))
]
BLOCKS_INPUTS = [document for document in FIXTURE_INPUTS if b'"blocks"' in document]
FILE_CONTENTS = st.one_of(
    st.just(EXAMPLE),
    st.sampled_from(FIXTURE_INPUTS),
    st.sampled_from(FIXTURE_INPUTS).flatmap(_mutations),
    st.binary(max_size=300),
    st.tuples(JSON_TEXTS, ENCODINGS).map(lambda pair: pair[0].encode(pair[1], "replace")),
    _mutations(EXAMPLE),
    st.text(max_size=200).map(lambda text: text.encode("utf-8", "surrogatepass")),
)
OPTION_VALUES = st.sampled_from(["-1", "0", "2", "16", "17", "70000", "99999999999999999999", "٣", "１", "x", "", " 2", "1_0", "--"])

SETTING_VALUES = setting_values(SECRET)


@st.composite
def invocations(draw):
    """(argv, stdin bytes or None for a closed stdin, environ, files to create, build-site target state)."""
    command = draw(st.sampled_from(["check", "check-jsonl", "compose", "count", "fixtures", "build-site", "serve", "nonsense"]))
    if command == "compose":  # mostly blocks inputs that parse, so that the settings and the call are reached
        content = draw(st.one_of(st.sampled_from([EXAMPLE] * 4 + BLOCKS_INPUTS), _mutations(EXAMPLE), FILE_CONTENTS))
    else:
        content = draw(FILE_CONTENTS)
    files = {"input.json": content}
    stdin = draw(st.one_of(st.none(), st.just(content), st.binary(max_size=50)))
    source = draw(st.sampled_from(["input.json"] * 4 + ["-"] * 2 + ["missing.json", ".", "input.json/nope", "\x1b[2Jnope\r"]))
    environ: dict[str, str] = {}
    target_state = None
    if command == "check":
        argv = ["check", source]
        if draw(st.booleans()):
            argv += ["--indent", draw(OPTION_VALUES)]
        if draw(st.booleans()):
            argv += ["--format", draw(st.sampled_from(["json", "text", "xml"]))]
    elif command == "check-jsonl":
        argv = ["check", "--jsonl", source]
        files["input.json"] = b"\n".join(draw(st.lists(FILE_CONTENTS, max_size=4)))
    elif command == "compose":
        argv = ["compose", source]
        if draw(st.booleans()):
            files["config.json"] = draw(
                st.one_of(
                    FILE_CONTENTS,
                    st.dictionaries(
                        st.sampled_from([name.lower() for name in SETTING_NAMES] + ["nope"]),
                        SETTING_VALUES,
                        max_size=3,
                    ).map(lambda config: json.dumps(config).encode()),
                )
            )
            argv += ["--config", "config.json"]
        argv += draw(st.sampled_from([[], ["--json"], ["--call-model"]]))
        environ = draw(st.dictionaries(st.sampled_from(SETTING_NAMES).map(lambda name: "FITPROOF_" + name), SETTING_VALUES, max_size=2))
        # The fuzz never reaches another host: a model call, if one is made, goes to a closed loopback port.
        environ["FITPROOF_BASE_URL"] = draw(
            st.sampled_from([CLOSED_PORT_URL] * 3 + ["http://[::1", "ftp://x", "http://u:pw@127.0.0.1:9/v1"])
        )
        environ.setdefault("FITPROOF_API_KEY", SECRET)
    elif command == "count":
        argv = ["count", source, "--tokenizer", draw(st.sampled_from(["o200k_base", "cl100k_base", "estimate", "gpt2", ""]))]
    elif command == "fixtures":
        files["cases/a.json"] = content
        files["cases/deep/b.json"] = draw(FILE_CONTENTS)
        argv = ["fixtures", draw(st.sampled_from(["cases", "input.json", "missing", "empty"]))]
    elif command == "build-site":
        # Only the states that are refused before anything is written: a real build copies 20 MB.
        target_state = draw(st.sampled_from(["file", "symlink", "foreign", "foreign-manifest", "changed-site"]))
        argv = ["build-site", "target"] + draw(st.sampled_from([[], ["--forc"]]))
    elif command == "serve":
        argv = ["serve", "--port", draw(OPTION_VALUES.filter(lambda value: value not in ("0", "2", "16", "17")))]
    else:
        argv = draw(
            st.sampled_from(
                [
                    ["nonsense"],
                    ["chek"],
                    ["--port"],
                    ["-"],
                    [""],
                    ["\x1b[2J"],
                    ["check", "--\x1b[2J"],
                    ["check", "--format", "\x1b[2J"],
                    ["fixtures", "\x1b]0;title\x07"],
                ]
            )
        )
    return argv, stdin, environ, files, target_state


def _prepare(directory: Path, files: dict, target_state: str | None) -> None:
    (directory / "empty").mkdir()
    for name, data in files.items():
        (directory / name).parent.mkdir(parents=True, exist_ok=True)
        (directory / name).write_bytes(data)
    target = directory / "target"
    if target_state == "file":
        target.write_text("a file")
    elif target_state == "symlink":
        (directory / "real").mkdir()
        target.symlink_to(directory / "real")
    elif target_state in ("foreign", "foreign-manifest", "changed-site"):
        target.mkdir()
        (target / "mine.txt").write_text("mine")
        generator = "fitproof build-site" if target_state == "changed-site" else "my web app"
        if target_state != "foreign":
            (target / "manifest.json").write_text(json.dumps({"generator": generator, "files": {"index.html": "0" * 64}}))
            (target / "index.html").write_text("edited by hand")


def _message_lines(err: str) -> list[str]:
    """stderr's message lines: argparse's usage line and indented details of a message are not messages of their own."""
    return [line for line in err.splitlines() if line and not line.startswith((" ", "usage:"))]


@FUZZ
@given(invocations())
def test_every_command_survives_bad_files_encodings_options_and_settings(invocation):
    """The rule: "each run ends with an exit code from the contract's table, one message on stderr, no
    traceback, no terminal escape, and no file touched outside the paths given"."""
    argv, stdin, environ, files, target_state = invocation
    with tempfile.TemporaryDirectory() as work:
        directory = Path(work)
        _prepare(directory, files, target_state)
        before = _tree(directory)
        stdout, stderr = io.StringIO(), io.StringIO()
        previous = os.getcwd()
        os.chdir(directory)
        try:
            code = run(argv, None if stdin is None else io.BytesIO(stdin), stdout, stderr, environ)
        finally:
            os.chdir(previous)
        out, err = stdout.getvalue(), stderr.getvalue()
        after = _tree(directory)
    if os.environ.get("ROBUSTNESS_LOG"):
        with open(os.environ["ROBUSTNESS_LOG"], "a") as log:
            log.write(json.dumps([argv[0] if argv else "", code, (_message_lines(err) or [""])[0][:90]]) + "\n")
    assert code in RUN_EXIT_CODES, (argv, code, err)
    assert "Traceback" not in err and "Traceback" not in out
    messages = _message_lines(err)
    assert len(messages) <= 1 or all(line.startswith("fitproof: settings: ") for line in messages), err
    assert all(line.startswith("fitproof") for line in messages), err
    if code == 0:
        assert err == "", (argv, err)
    elif code == 2:
        assert messages, (argv, out)  # bad usage always says what was wrong, on stderr
    else:
        assert messages or out, argv  # a failure says why: on stderr, or in the report on stdout
    assert "\x1b" not in out and "\x1b" not in err and "\r" not in err
    assert SECRET not in out and SECRET not in err
    assert after == before, (argv, set(after) ^ set(before))  # nothing written, changed or deleted
    # Bounded, without a stopwatch (a busy machine is slow, not wrong): nothing waited out a
    # deadline; a model call goes to a closed loopback port and is refused at once.
    assert "did not answer within" not in err, (argv, err)


def test_the_fuzz_can_fail():
    """The invariants are not vacuous: a traceback, a second message or a touched file is caught."""
    with pytest.raises(AssertionError):
        assert len(_message_lines("fitproof: one\nfitproof: two\n")) <= 1
    with tempfile.TemporaryDirectory() as work:
        before = _tree(Path(work))
        (Path(work) / "new").write_text("x")
        assert _tree(Path(work)) != before
