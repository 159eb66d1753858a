"""Robustness: every command, driven as an attacker or a careless user would.

1. A hypothesis-driven CLI fuzz over bad files, encodings, options, settings and closed
   streams: each run ends with an exit code from the contract's table, one message on
   stderr, no traceback, no terminal escape, and no file touched outside the paths given.
2. A fake model server on 127.0.0.1 for every misbehaviour (slow drip, redirect, garbage,
   huge body, 500 with echo, deep nesting, escapes): one line, exit 1, no secret, no hang.
3. A load test of `serve` on loopback, bounded in count and time: memory stays bounded
   while many clients download the 9.6 MB wasm, idle clients are cut, the server answers after.
"""

from __future__ import annotations

import codecs
import io
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from _fake_model import FakeModels
from conftest import ROOT
from context_budget._site.bundle import pyodide_version
from context_budget.cli import run

WASM_PATH = f"pyodide/{pyodide_version(ROOT / 'node_modules' / 'pyodide')}/pyodide.asm.wasm"  # a versioned path

CONTRACT = (ROOT / "docs" / "contract.md").read_text(encoding="utf-8")
DOCUMENTED_EXIT_CODES = {int(code) for code in re.findall(r"^\| ([0-9]+) \| ", CONTRACT, re.M)}
# What a run that nobody interrupted may end with: 130 is Ctrl+C's.
RUN_EXIT_CODES = DOCUMENTED_EXIT_CODES - {130}
EXAMPLE = (ROOT / "examples" / "refund-case.json").read_bytes()
SECRET = "sk-fuzz-3b8e0c7d1a9f"
# A port nothing listens on (discard): a model call there is refused at once, on loopback.
CLOSED_PORT_URL = "http://127.0.0.1:9/v1"
FUZZ = settings(max_examples=int(os.environ.get("ROBUSTNESS_EXAMPLES", "150")), deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


def test_the_contract_table_has_the_exit_codes():
    assert DOCUMENTED_EXIT_CODES == {0, 1, 2, 3, 130} and RUN_EXIT_CODES == {0, 1, 2, 3}  # 3: a --jobs worker killed


# ---------------------------------------------------------------- 1. the CLI fuzz

def _mutations(document: bytes) -> st.SearchStrategy[bytes]:
    """A valid input broken in one place: cut short, a byte changed, a byte inserted."""
    return st.one_of(
        st.integers(0, len(document)).map(lambda cut: document[:cut]),
        st.tuples(st.integers(0, len(document) - 1), st.integers(0, 255)).map(
            lambda change: document[: change[0]] + bytes([change[1]]) + document[change[0] + 1 :]),
        st.tuples(st.integers(0, len(document)), st.sampled_from([b"\x00", b"\xff", b"\x1b[2J", b"\\", b'"', b"{", b"]", b"\xed\xa0\x80"])).map(
            lambda insert: document[: insert[0]] + insert[1] + document[insert[0] :]),
    )


JSON_TEXTS = st.sampled_from([
    "", " ", "{}", "[]", "null", "1", '"x"', "{", "[1,", '{"a": 1,}', '{"a": 1, "a": 2}', "NaN", "[Infinity]",
    "1" * 5000, "[" * 100_000, "[" * 513 + "]" * 513, '{"budget": 5, "items": [{"id": "\\ud800", "relevance": 1, "tokens": 1}]}',
    '{"budget": 5, "items": [{"id": "\\ud83d\\ude00", "relevance": 1, "tokens": 1}, {"id": "😀", "relevance": 2, "tokens": 1}]}',
    '{"mode": "blocks", "blocks": [{"id": "\\u001b[31mred", "source": "s", "content": "\\u001b]0;t\\u0007", "priority": 1, '
    '"observed_at": "２０２６-03-13T13:18:00Z"}], "window": {"context_tokens": "٣٠٠٠"}}',
    '{"budget": 1e400, "items": []}', '{"mode": "passages"}', '{"mode": 1}', "\ufeff{}", "\ufeff\ufeff{}",
])
ENCODINGS = st.sampled_from(["utf-8", "utf-8-sig", "utf-16", "utf-16-be", "utf-32", "latin-1", "cp1252"])
# Fixture inputs: valid documents of every mode, some failing their checks on purpose.
FIXTURE_INPUTS = [
    json.dumps(json.loads(path.read_text(encoding="utf-8"))["input"]).encode()
    for path in sorted((ROOT / "fixtures").rglob("*.json"))
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
SETTING_VALUES = st.one_of(
    st.sampled_from(["", "0", "850", "²", "①", "٣٠٠٠", "1_000", "1e3", "nan", "-1", "0.5", "true", "yes", "maybe", "9" * 5000,
                     "http://[::1", "http://例え.jp/v1", "http://u:pw@127.0.0.1:9/v1", "ftp://x", "http://", CLOSED_PORT_URL,
                     SECRET + "\r\nX: 1", "ключ", "\x1b[2J"]),
    st.text(max_size=20).filter(lambda text: "\x00" not in text),
)
SETTING_NAMES = ["CONTEXT_TOKENS", "RESERVED_OUTPUT_TOKENS", "FIXED_PROMPT_TOKENS", "BASE_URL", "API_KEY", "MODEL",
                 "TEMPERATURE", "CALL_MODEL", "TIMEOUT_SECONDS"]


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
            files["config.json"] = draw(st.one_of(FILE_CONTENTS, st.dictionaries(
                st.sampled_from([name.lower() for name in SETTING_NAMES] + ["nope"]), SETTING_VALUES, max_size=3,
            ).map(lambda config: json.dumps(config).encode())))
            argv += ["--config", "config.json"]
        argv += draw(st.sampled_from([[], ["--json"], ["--call-model"]]))
        environ = draw(st.dictionaries(st.sampled_from(SETTING_NAMES).map(lambda name: "CONTEXT_BUDGET_" + name), SETTING_VALUES, max_size=2))
        # The fuzz never reaches another host: a model call, if one is made, goes to a closed loopback port.
        environ["CONTEXT_BUDGET_BASE_URL"] = draw(st.sampled_from([CLOSED_PORT_URL] * 3 + ["http://[::1", "ftp://x", "http://u:pw@127.0.0.1:9/v1"]))
        environ.setdefault("CONTEXT_BUDGET_API_KEY", SECRET)
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
        argv = draw(st.sampled_from([["nonsense"], ["chek"], ["--port"], ["-"], [""], ["\x1b[2J"], ["check", "--\x1b[2J"],
                                     ["check", "--format", "\x1b[2J"], ["fixtures", "\x1b]0;title\x07"]]))
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
        generator = "context-budget build-site" if target_state == "changed-site" else "my web app"
        if target_state != "foreign":
            (target / "manifest.json").write_text(json.dumps({"generator": generator, "files": {"index.html": "0" * 64}}))
            (target / "index.html").write_text("edited by hand")


def _tree(directory: Path) -> dict:
    """Every path under ``directory`` with its kind, content and modification time."""
    tree = {}
    for path in sorted(directory.rglob("*")):
        stat = path.lstat()
        content = path.read_bytes() if path.is_file() and not path.is_symlink() else os.readlink(path) if path.is_symlink() else None
        tree[path.relative_to(directory).as_posix()] = (stat.st_mode, stat.st_mtime_ns, content)
    return tree


def _message_lines(err: str) -> list[str]:
    """stderr's message lines: argparse's usage line and indented details of a message are not messages of their own."""
    return [line for line in err.splitlines() if line and not line.startswith((" ", "usage:"))]


@FUZZ
@given(invocations())
def test_every_command_survives_bad_files_encodings_options_and_settings(invocation):
    argv, stdin, environ, files, target_state = invocation
    with tempfile.TemporaryDirectory() as work:
        directory = Path(work)
        _prepare(directory, files, target_state)
        before = _tree(directory)
        stdout, stderr = io.StringIO(), io.StringIO()
        previous = os.getcwd()
        os.chdir(directory)
        try:
            started = time.monotonic()
            code = run(argv, None if stdin is None else io.BytesIO(stdin), stdout, stderr, environ)
            elapsed = time.monotonic() - started
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
    assert len(messages) <= 1 or all(line.startswith("context-budget: settings: ") for line in messages), err
    assert all(line.startswith("context-budget") for line in messages), err
    if code == 0:
        assert err == "", (argv, err)
    elif code == 2:
        assert messages, (argv, out)  # bad usage always says what was wrong, on stderr
    else:
        assert messages or out, argv  # a failure says why: on stderr, or in the report on stdout
    assert "\x1b" not in out and "\x1b" not in err and "\r" not in err
    assert SECRET not in out and SECRET not in err
    assert after == before, (argv, set(after) ^ set(before))  # nothing written, changed or deleted
    assert elapsed < 20, (argv, elapsed)


COUNT_SETTINGS = ("CONTEXT_TOKENS", "RESERVED_OUTPUT_TOKENS", "FIXED_PROMPT_TOKENS")


@FUZZ
@given(
    st.dictionaries(st.sampled_from(SETTING_NAMES), SETTING_VALUES, max_size=5),
    st.sampled_from([[], ["--json"], ["--call-model"]]),
)
def test_compose_settings_are_ascii_numbers_whole_urls_and_unechoed_keys(settings_values, options):
    environ = {"CONTEXT_BUDGET_" + name: value for name, value in settings_values.items()}
    if "BASE_URL" in settings_values and not settings_values["BASE_URL"].startswith(("http://u:pw@", "http://[::1", "ftp:", "http:///")):
        environ["CONTEXT_BUDGET_BASE_URL"] = CLOSED_PORT_URL  # never another host
    with tempfile.TemporaryDirectory() as work:
        (Path(work) / "input.json").write_bytes(EXAMPLE)
        stdout, stderr = io.StringIO(), io.StringIO()
        code = run(["compose", str(Path(work) / "input.json"), *options], io.BytesIO(), stdout, stderr, environ)
    out, err = stdout.getvalue(), stderr.getvalue()
    assert code in RUN_EXIT_CODES and "Traceback" not in err
    assert "pw@" not in out + err and "\x1b" not in out + err
    key = settings_values.get("API_KEY", "")
    if len(key) >= 8 and list(settings_values.values()).count(key) == 1:
        assert key not in out + err and json.dumps(key)[1:-1] not in out + err
    # The oracle: a count written with anything but ASCII digits (and blanks around them) is refused.
    for name in COUNT_SETTINGS:
        value = settings_values.get(name)
        if value is not None and not re.fullmatch(r"[ \t\n\r]*[0-9]+[ \t\n\r]*", value):
            assert code == 2 and f"CONTEXT_BUDGET_{name}" in err, (name, value, err)
    if code == 2:
        assert all(line.startswith("context-budget: settings: ") for line in err.splitlines()), err


def test_the_fuzz_can_fail():
    """The invariants are not vacuous: a traceback, a second message or a touched file is caught."""
    with pytest.raises(AssertionError):
        assert len(_message_lines("context-budget: one\ncontext-budget: two\n")) <= 1
    with tempfile.TemporaryDirectory() as work:
        before = _tree(Path(work))
        (Path(work) / "new").write_text("x")
        assert _tree(Path(work)) != before


# ---------------------------------------------------------------- main(): the process around run()

def _process(args, **options):
    return subprocess.run([sys.executable, "-m", "context_budget", *args], capture_output=True, cwd=ROOT, timeout=60, **options)


@pytest.mark.parametrize("closing, args, code, message", [
    (0, ["check", "-"], 2, b"context-budget: cannot read standard input: it is closed\n"),
    (0, ["count", "-"], 2, b"context-budget: cannot read standard input: it is closed\n"),
    (1, ["check", "examples/refund-case.json"], 2, b"context-budget: cannot write standard output: it is closed\n"),
    (2, ["check", "missing.json"], 2, b""),
])
def test_closed_standard_streams(closing, args, code, message):
    result = _process(args, stdin=subprocess.DEVNULL, preexec_fn=lambda: os.close(closing))
    assert result.returncode == code and result.stderr == message, result.stderr


# ---------------------------------------------------------------- 2. a misbehaving model server

@pytest.fixture(scope="module")
def models():
    fakes = FakeModels()
    yield fakes
    fakes.close()


@pytest.mark.parametrize("behaviour, code, words", [
    ("answer", 0, "Full refund."),
    ("redirect", 1, "not followed"),
    ("drip", 1, "did not answer within 1 s"),
    ("garbage", 1, "OpenAI-style"),
    ("huge", 1, "10,485,760"),
    ("huge-undeclared", 1, "10,485,760"),
    ("echo-500", 1, "HTTP 500"),
    ("echo-garbage", 1, "[redacted]"),
    ("echo-answer", 0, "[redacted]"),
    ("nested", 1, "nested too deeply"),
    ("escapes", 0, "Full refund."),
    ("silent", 1, "did not answer within 1 s"),
    ("header-drip", 1, "did not answer within 1 s"),
    ("bad-chunks", 1, "failed"),
    ("error-escapes", 1, "HTTP 503"),
])
def test_every_model_server_misbehaviour_is_one_line_and_bounded(models, tmp_path, behaviour, code, words):
    target, target_received = models.start("answer")
    url, received = models.start(behaviour, redirect_to=target + "/chat/completions")
    (tmp_path / "input.json").write_bytes(EXAMPLE)
    stdout, stderr = io.StringIO(), io.StringIO()
    environ = {"CONTEXT_BUDGET_BASE_URL": url, "CONTEXT_BUDGET_API_KEY": SECRET, "CONTEXT_BUDGET_TIMEOUT_SECONDS": "1"}
    started = time.monotonic()
    result = run(["compose", str(tmp_path / "input.json"), "--call-model"], io.BytesIO(), stdout, stderr, environ)
    elapsed = time.monotonic() - started
    out, err = stdout.getvalue(), stderr.getvalue()
    assert result == code, err
    assert words in (out if code == 0 else err)
    assert elapsed < 4, elapsed  # the deadline is 1 s for the whole call
    assert SECRET not in out + err and "Traceback" not in err
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", out + err)
    assert err.count("\n") == (0 if code == 0 else 1)
    assert len(received) == 1 and target_received == []  # one request, never one to another address


# ---------------------------------------------------------------- 3. serve under load, loopback only

@pytest.fixture(scope="module")
def page_server():
    import threading

    from context_budget._site import server as _site

    server = _site.make_server(0, idle_timeout=0.5)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


REQUEST_PARTS = st.sampled_from([
    b"GET", b"HEAD", b"POST", b"PUT", b"DELETE", b"OPTIONS", b"G\x00T", b" ", b"/", b"/index.html", b"/../../etc/passwd",
    b"/%2e%2e/README.md", b"/py/context_budget/cli.py", b"/" + WASM_PATH.encode(), b"?x=1", b"#frag", b"//",
    b"HTTP/1.0", b"HTTP/1.1", b"HTTP/9.9", b"\r\n", b"\n", b"Host: x", b"Range: bytes=0-10", b"A" * 70000, b"\xff\xfe", b"\x1b[2J",
])


@FUZZ
@given(st.lists(REQUEST_PARTS, max_size=12).map(b"".join))
def test_serve_answers_any_request_bytes_and_stays_up(page_server, request_bytes):
    with socket.create_connection(("127.0.0.1", page_server), timeout=10) as client:
        try:
            client.sendall(request_bytes + b"\r\n\r\n")
        except OSError:  # the server may close on an oversized request line before reading it all
            pass
        answer = b""
        try:
            while chunk := client.recv(1 << 16):
                answer += chunk
                if len(answer) > 20_000_000:
                    break
        except ConnectionResetError:
            pass
    status = re.match(rb"HTTP/1\.[01] ([0-9]{3}) ", answer)
    assert answer == b"" or status, answer[:200]
    if status and int(status.group(1)) == 200:
        path = request_bytes.split(b" ")[1] if b" " in request_bytes else b""
        assert b".." not in path and b"README" not in path  # only the site's own files are ever served
    assert _get(page_server, "index.html").startswith(b"HTTP/1.0 200")




SERVER_SCRIPT = """
import sys
from context_budget._site import server as _site
server = _site.make_server(0, idle_timeout=float(sys.argv[1]), max_connections=int(sys.argv[2]))
print(server.server_address[1], flush=True)
server.serve_forever()
"""


def _status(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise KeyError(field)


@pytest.fixture
def served(tmp_path):
    """The server in its own process (its memory and threads are read from /proc); stderr kept in a file."""
    with open(tmp_path / "stderr.txt", "wb") as stderr:
        process = subprocess.Popen([sys.executable, "-c", SERVER_SCRIPT, "1.0", "64"], stdout=subprocess.PIPE, stderr=stderr,
                                   cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT / "py")})
    port = int(process.stdout.readline())
    process.stderr_path = tmp_path / "stderr.txt"
    yield process, port
    process.kill()
    process.wait(timeout=30)
    process.stdout.close()


def _get(port: int, path: str, timeout: float = 20) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as client:
        client.sendall(f"GET /{path} HTTP/1.0\r\n\r\n".encode())
        chunks = []
        while chunk := client.recv(1 << 16):
            chunks.append(chunk)
    return b"".join(chunks)


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads the server's memory from /proc")
def test_serve_under_load_keeps_memory_bounded_and_cuts_idle_clients(served):
    process, port = served
    wasm_size = (ROOT / "node_modules" / "pyodide" / "pyodide.asm.wasm").stat().st_size
    assert _get(port, "index.html").startswith(b"HTTP/1.0 200")
    baseline_kb = _status(process.pid, "VmRSS")
    # 60 clients ask for the 9.6 MB wasm at once and read nothing: read whole, that is 576 MB.
    downloads = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(60)]
    for client in downloads:
        client.sendall(f"GET /{WASM_PATH} HTTP/1.0\r\n\r\n".encode())
    time.sleep(1.5)
    busy_threads = _status(process.pid, "Threads")
    for client in downloads:
        client.close()
    peak_kb = _status(process.pid, "VmHWM")
    assert (peak_kb - baseline_kb) * 1024 < wasm_size * 4, (baseline_kb, peak_kb)  # far below 60 whole copies
    assert busy_threads <= 64 + 3
    # 200 clients connect and send nothing (or half a request): at most 64 threads hold
    # them, each is cut after the 1 s idle timeout, and a real request is answered after.
    idle = [socket.create_connection(("127.0.0.1", port), timeout=15) for _ in range(200)]
    for index, client in enumerate(idle):
        if index % 2:
            client.sendall(b"GET /index.html HTTP/1.1\r\nHost: x\r\n")
    time.sleep(0.5)
    assert _status(process.pid, "Threads") <= 64 + 3
    started = time.monotonic()
    for client in idle:
        assert client.recv(1 << 16) == b""  # closed by the server
        client.close()
    assert time.monotonic() - started < 12  # 200 clients / 64 at a time x 1 s, with slack
    answer = _get(port, WASM_PATH)
    assert answer.startswith(b"HTTP/1.0 200") and len(answer) > wasm_size
    assert _status(process.pid, "Threads") <= 3
    # Downloads abandoned half-way and idle clients cut are no errors: no traceback, no line at all.
    assert process.stderr_path.read_bytes() == b""


def test_the_api_key_is_not_echoed_when_it_lands_in_another_setting(tmp_path):
    """A key pasted into CONTEXT_BUDGET_CONTEXT_TOKENS is not echoed in the settings error (a case the fuzz above found)."""
    source = tmp_path / "input.json"
    source.write_bytes((ROOT / "examples" / "refund-case.json").read_bytes())
    stdout, stderr = io.StringIO(), io.StringIO()
    environ = {"CONTEXT_BUDGET_API_KEY": SECRET, "CONTEXT_BUDGET_CONTEXT_TOKENS": SECRET + "\r\nX: 1"}
    assert run(["compose", str(source)], None, stdout, stderr, environ) == 2
    assert SECRET not in stderr.getvalue() and ("[redacted]" in stderr.getvalue() or "not shown: it may be a key" in stderr.getvalue())
    assert stderr.getvalue().startswith("context-budget: settings: CONTEXT_BUDGET_CONTEXT_TOKENS: expected an integer")


@pytest.mark.parametrize("content, said", [
    (b"{bad", "invalid JSON: expected an object key in double quotes at line 1 column 2"),
    (b"", "invalid JSON"),
    (b"\xff{}", "input is not valid UTF-8"),
])
def test_compose_input_that_is_not_acceptable_json_exits_1_like_check(tmp_path, content, said):
    """Input that is not acceptable JSON is exit 1 for compose, as the exit-code table says, not 2 (bad usage)."""
    source = tmp_path / "input.json"
    source.write_bytes(content)
    stdout, stderr = io.StringIO(), io.StringIO()
    assert run(["compose", str(source)], None, stdout, stderr, {}) == 1
    assert stderr.getvalue().startswith(f"context-budget: input {source}: ") and said in stderr.getvalue()
    assert stderr.getvalue().count("\n") == 1 and stdout.getvalue() == ""
    assert run(["check", str(source)], None, io.StringIO(), io.StringIO(), {}) == 1  # the same input, the same code
    stderr = io.StringIO()
    assert run(["compose", "-"], io.BytesIO(content), io.StringIO(), stderr, {}) == 1
    assert stderr.getvalue().startswith("context-budget: input standard input: ") and said in stderr.getvalue()
    # A --config that is not JSON is a settings problem: bad usage.
    config = tmp_path / "config.json"
    config.write_bytes(content)
    example = ROOT / "examples" / "refund-case.json"
    assert run(["compose", str(example), "--config", str(config)], None, io.StringIO(), io.StringIO(), {}) == 2


@pytest.mark.parametrize("content", [b"[]", b"null", b'{"mode": "relevance", "budget": 1, "items": []}'])
def test_compose_input_that_is_not_a_blocks_object_exits_1_like_check(tmp_path, content):
    source = tmp_path / "input.json"
    source.write_bytes(content)
    stdout, stderr = io.StringIO(), io.StringIO()
    assert run(["compose", str(source)], None, stdout, stderr, {}) == 1
    assert stderr.getvalue() == "context-budget: compose needs a JSON object in mode blocks (see examples/refund-case.json)\n"
    assert stdout.getvalue() == ""


@pytest.mark.parametrize("argv, said", [
    (["build-site", ""], "build-site needs a directory name, got an empty one"),
    (["build-site", "", "--force"], "build-site needs a directory name, got an empty one"),
    (["fixtures", ""], "fixtures needs a directory name, got an empty one"),
    (["fixtures", "/dev/null"], "/dev/null is neither a directory nor a file: fixtures runs every *.json case under a directory, or one case file"),
    (["fixtures"], "fixtures needs a directory of cases or one case file (there is no ./fixtures here): give one, or run the package's own cases with --shipped"),
    (["check", ""], "check needs a file name (or - for standard input), got an empty one"),
    (["compose", ""], "compose needs a file name (or - for standard input), got an empty one"),
    (["count", ""], "count needs a file name (or - for standard input), got an empty one"),
])
def test_empty_or_wrong_path_arguments_are_never_guessed(tmp_path, monkeypatch, argv, said):
    """`build-site "$OUT" --force` with OUT unset must not write into the current directory
    (Path("") is "."): an empty DIR is refused, and nothing is written."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a-file.json").write_text("{}")
    (tmp_path / "index.html").write_text("mine")
    before = _tree(tmp_path)
    stdout, stderr = io.StringIO(), io.StringIO()
    assert run(argv, None, stdout, stderr, {}) == 2
    assert stderr.getvalue() == f"context-budget: {said}\n" and stdout.getvalue() == ""
    assert _tree(tmp_path) == before


def test_compose_overflow_advice_is_one_message_with_indented_details(tmp_path):
    """The advice for a required overflow is one message with its details, not three (a case the fuzz above found)."""
    data = json.loads((ROOT / "examples" / "refund-case.json").read_text(encoding="utf-8"))
    data["window"] = {"context_tokens": 850, "reserved_output_tokens": 300, "fixed_prompt_tokens": 470}
    source = tmp_path / "input.json"
    source.write_text(json.dumps(data), encoding="utf-8")
    stdout, stderr = io.StringIO(), io.StringIO()
    assert run(["compose", str(source)], None, stdout, stderr, {}) == 1
    assert _message_lines(stderr.getvalue()) == [stderr.getvalue().splitlines()[0]]
    assert stderr.getvalue().startswith("context-budget: budgeting failed: the required blocks need")
    assert stderr.getvalue().splitlines()[1].startswith("  To fix it: raise context_tokens from 850 to at least")
