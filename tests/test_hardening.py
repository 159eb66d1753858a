"""Regression tests for issue 12: nothing lost, no secret leaked, no traceback, no hang.

Each test names the failure it keeps from coming back; each failed on the code before the fix.
"""

import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from _fake_model import FakeModels
from conftest import ROOT
from context_budget import evaluate
from context_budget._site import bundle, writer
from context_budget._site import server as site_server
from context_budget.cli import _settings
from context_budget.cli import run

EXAMPLE = str(ROOT / "examples" / "refund-case.json")
SECRET = "sk-live-7f3a9c1e5b2d4f60"


def call(argv, stdin=b"", environ=None):
    stdout, stderr = io.StringIO(), io.StringIO()
    code = run(argv, io.BytesIO(stdin), stdout, stderr, environ or {})
    return code, stdout.getvalue(), stderr.getvalue()


def one_line_error(err):
    return err.count("\n") == 1 and err.startswith("context-budget: ") and "Traceback" not in err


# ---------------------------------------------------------------- build-site: never delete what it did not write

@pytest.fixture
def small_root(tmp_path):
    """A checkout with a tiny web page and fake Pyodide files, so that a build takes milliseconds."""
    root = tmp_path / "checkout"
    (root / "web").mkdir(parents=True)
    (root / "web" / "index.html").write_text("<!doctype html>v1")
    (root / "web" / "app.js").write_text("// app")
    pyodide = root / "node_modules" / "pyodide"
    pyodide.mkdir(parents=True)
    for name in bundle.PYODIDE_FILES:
        (pyodide / name).write_text(name)
    (pyodide / "package.json").write_text('{"version": "314.0.7"}')
    return root


def snapshot(directory):
    return {
        path.relative_to(directory).as_posix(): (path.is_symlink(), path.read_bytes() if path.is_file() and not path.is_symlink() else None)
        for path in sorted(directory.rglob("*"))
    }


def test_a_foreign_manifest_json_does_not_make_a_directory_ours(tmp_path, small_root):
    # A manifest.json this tool did not write gives build-site no licence to delete anything.
    app = tmp_path / "extension"
    app.mkdir()
    (app / "manifest.json").write_text('{"manifest_version": 3, "name": "my extension"}')
    (app / "background.js").write_text("// mine")
    before = snapshot(app)
    with pytest.raises(writer.TargetError, match="holds no earlier site"):
        writer.build_site(app, small_root)
    assert snapshot(app) == before
    code, _, err = call(["build-site", str(app)])
    assert code == 2 and one_line_error(err) and snapshot(app) == before


def test_rebuilding_keeps_files_the_user_added(tmp_path, small_root):
    site = tmp_path / "site"
    writer.build_site(site, small_root)
    (site / "notes.txt").write_text("mine")
    (site / "pyodide" / "extra.bin").write_bytes(b"mine too")
    (small_root / "web" / "index.html").write_text("<!doctype html>v2")
    writer.build_site(site, small_root)
    assert (site / "notes.txt").read_text() == "mine" and (site / "pyodide" / "extra.bin").read_bytes() == b"mine too"
    assert (site / "index.html").read_text() == "<!doctype html>v2"
    manifest = json.loads((site / "manifest.json").read_text())
    assert manifest["generator"] == writer.GENERATOR and "notes.txt" not in manifest["files"]


def test_a_site_file_changed_by_the_user_is_not_overwritten_without_force(tmp_path, small_root):
    site = tmp_path / "site"
    writer.build_site(site, small_root)
    (site / "app.js").write_text("// edited by hand")
    (small_root / "web" / "app.js").write_text("// app v2")
    with pytest.raises(writer.TargetError, match=r"changed since \(app\.js\).*--force"):
        writer.build_site(site, small_root)
    assert (site / "app.js").read_text() == "// edited by hand"
    writer.build_site(site, small_root, force=True)
    assert (site / "app.js").read_text() == "// app v2"


def test_force_writes_the_site_files_and_deletes_nothing_else(tmp_path, small_root):
    target = tmp_path / "mixed"
    (target / "deep").mkdir(parents=True)
    (target / "deep" / "keep.txt").write_text("mine")
    (target / "index.html").write_text("my own page")
    code, _, err = call(["build-site", str(target)])
    assert code == 2 and "--force" in err and (target / "index.html").read_text() == "my own page"
    writer.build_site(target, small_root, force=True)
    assert (target / "deep" / "keep.txt").read_text() == "mine"
    assert (target / "index.html").read_text() == "<!doctype html>v1"


def test_files_an_earlier_build_wrote_are_removed_only_if_unchanged(tmp_path, small_root):
    site = tmp_path / "site"
    (small_root / "web" / "old").mkdir()
    (small_root / "web" / "old" / "gone.js").write_text("// old")
    (small_root / "web" / "edited.js").write_text("// old")
    writer.build_site(site, small_root)
    (small_root / "web" / "old" / "gone.js").unlink()
    (small_root / "web" / "edited.js").unlink()
    (site / "edited.js").write_text("// the user's now")
    writer.build_site(site, small_root)
    assert not (site / "old").exists()  # ours, unchanged: removed with its emptied folder
    assert (site / "edited.js").read_text() == "// the user's now"


@pytest.mark.parametrize("stop", [KeyboardInterrupt, lambda: OSError(28, "No space left on device")])
@pytest.mark.parametrize("earlier", [False, True])
@pytest.mark.parametrize("written", [0, 2, 5])
@pytest.mark.parametrize("changed", [False, True])
def test_a_build_cut_short_is_finished_by_the_next(monkeypatch, tmp_path, small_root, stop, earlier, written, changed):
    """A build stopped by Ctrl+C or a full disk left files and no manifest: the rerun said the
    folder "holds no earlier site of this tool" and asked for --force. Cut after `written` files,
    into an empty folder or over an earlier site (with a file the new one drops); the next build
    from the same sources or from changed ones."""
    site = tmp_path / "site"
    (small_root / "web" / "dropped.js").write_text("// old")
    if earlier:
        writer.build_site(site, small_root)
        (site / "notes.txt").write_text("mine")
    (small_root / "web" / "dropped.js").unlink()
    (small_root / "web" / "index.html").write_text("<!doctype html>v2")
    replace, calls = writer._replace_file, []

    def failing(directory, url_path, data):
        calls.append(url_path)
        if len(calls) > written + 1:  # the manifest is the first write
            raise stop()
        replace(directory, url_path, data)

    monkeypatch.setattr(writer, "_replace_file", failing)
    with pytest.raises((KeyboardInterrupt, writer.TargetError)):
        writer.build_site(site, small_root)
    monkeypatch.setattr(writer, "_replace_file", replace)
    if changed:
        (small_root / "web" / "index.html").write_text("<!doctype html>v3")
        (small_root / "web" / "app.js").write_text("// app v3")
    writer.build_site(site, small_root)  # no --force needed
    clean = tmp_path / "clean"
    writer.build_site(clean, small_root)
    mine = {"notes.txt": (False, b"mine")} if earlier else {}
    assert snapshot(site) == {**snapshot(clean), **mine}


def test_a_manifest_listing_paths_outside_the_site_is_not_trusted(tmp_path, small_root):
    outside = tmp_path / "precious.txt"
    outside.write_text("keep me")
    site = tmp_path / "site"
    site.mkdir()
    digest = hashlib.sha256(b"keep me").hexdigest()
    (site / "manifest.json").write_text(json.dumps({"generator": writer.GENERATOR, "files": {"../precious.txt": digest}}))
    with pytest.raises(writer.TargetError, match="holds no earlier site"):
        writer.build_site(site, small_root)
    writer.build_site(site, small_root, force=True)
    assert outside.read_text() == "keep me"


def test_a_symbolic_link_inside_the_site_is_never_written_through(tmp_path, small_root):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    site = tmp_path / "site"
    writer.build_site(site, small_root)
    (site / "app.js").unlink()
    (site / "app.js").symlink_to(elsewhere / "app.js")
    (elsewhere / "app.js").write_text("outside")
    writer.build_site(site, small_root, force=True)  # replaces the link, not what it points to
    assert (elsewhere / "app.js").read_text() == "outside" and not (site / "app.js").is_symlink()
    shutil.rmtree(site / "pyodide")
    (site / "pyodide").symlink_to(elsewhere)
    with pytest.raises(writer.TargetError, match="in the way"):
        writer.build_site(site, small_root, force=True)
    assert sorted(path.name for path in elsewhere.iterdir()) == ["app.js"]


@pytest.mark.parametrize("kind", ["file", "symlink", "unwritable"])
def test_a_directory_that_cannot_be_used_is_a_one_line_usage_error(tmp_path, kind):
    target = tmp_path / "target"
    if kind == "file":
        target.write_text("a file")
    elif kind == "symlink":
        (tmp_path / "real").mkdir()
        target.symlink_to(tmp_path / "real")
    else:
        target = Path("/proc/context-budget-site")  # unwritable even for root
    code, out, err = call(["build-site", str(target)])
    assert code == 2 and out == "" and one_line_error(err), err
    if kind == "file":
        assert target.read_text() == "a file"
    if kind == "symlink":
        assert list((tmp_path / "real").iterdir()) == []


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into any directory")
def test_an_unwritable_directory_is_a_usage_error(tmp_path):
    target = tmp_path / "locked"
    target.mkdir()
    target.chmod(0o500)
    try:
        code, _, err = call(["build-site", str(target)])
    finally:
        target.chmod(0o700)
    assert code == 2 and "not writable" in err


# ---------------------------------------------------------------- compose --call-model: secrets

@pytest.fixture
def models():
    fakes = FakeModels()
    yield fakes
    fakes.close()


def model_env(base_url, **extra):
    return {"CONTEXT_BUDGET_BASE_URL": base_url, "CONTEXT_BUDGET_API_KEY": SECRET, "CONTEXT_BUDGET_TIMEOUT_SECONDS": "5", **extra}


def compose(environ):
    return call(["compose", EXAMPLE, "--call-model"], environ=environ)


def test_a_redirect_is_not_followed_and_the_key_goes_nowhere_else(models):
    # A redirect is not followed: the Authorization header goes to no other host, and its answer is not printed.
    other_url, other_received = models.start("answer")
    url, received = models.start("redirect", redirect_to=other_url + "/chat/completions")
    code, out, err = compose(model_env(url))
    assert code == 1 and one_line_error(err) and "redirect" in err and "not followed" in err
    assert received == [("/v1/chat/completions", f"Bearer {SECRET}")] and other_received == []
    assert "Full refund" not in out


@pytest.mark.parametrize("key", [SECRET + "\r\nX-Injected: 1", SECRET + "\n", "sk-ключ-" + SECRET, SECRET + " x", ""])
def test_a_key_that_cannot_be_a_header_is_a_settings_error_that_does_not_echo_it(models, key):
    # A key with CR/LF or outside Latin-1 is refused in one line, never in a traceback that would print it.
    url, received = models.start("answer")
    code, out, err = compose(model_env(url, CONTEXT_BUDGET_API_KEY=key))
    assert code == 2 and "CONTEXT_BUDGET_API_KEY" in err and "Traceback" not in err
    assert SECRET not in err and SECRET not in out and received == []


def test_a_password_in_the_base_url_is_refused_without_printing_it(models):
    url, received = models.start("answer")
    code, _, err = compose(model_env(url.replace("http://", "http://admin:hunter2pass@")))
    assert code == 2 and one_line_error(err) and "hunter2pass" not in err and "***@127.0.0.1" in err and received == []


@pytest.mark.parametrize("behaviour", ["echo-500", "echo-garbage", "echo-answer"])
def test_a_server_that_echoes_the_key_does_not_get_it_onto_the_terminal(models, behaviour):
    url, _ = models.start(behaviour)
    code, out, err = compose(model_env(url))
    assert SECRET not in out and SECRET not in err
    assert "[redacted]" in out + err and "Traceback" not in err
    if behaviour != "echo-answer":
        assert code == 1 and one_line_error(err)


def test_an_echoed_key_cut_at_the_edge_of_what_is_shown_is_still_redacted(models):
    key = "sk-" + "k" * 3000
    url, _ = models.start("echo-garbage")
    code, _, err = compose(model_env(url, CONTEXT_BUDGET_API_KEY=key))
    assert code == 1 and "kkkkkkkk" not in err


# A key as some providers write them: base64-like characters, long.
ODD_KEY = "sk-proj-AbC/+=Xy9_8765&<zQ-" + "Ab1_" * 20 + "TAIL"


def leaked(key: str, text: str) -> list[str]:
    """Every run of 8 characters of the key (in any case) found in ``text``."""
    text = text.lower()
    return [key[start:start + 8] for start in range(len(key) - 7) if key[start:start + 8].lower() in text]


@pytest.mark.parametrize("behaviour", ["echo-cut", "echo-cut-lines", "echo-escaped"])
@pytest.mark.parametrize("key", [SECRET, ODD_KEY])
def test_no_part_of_an_echoed_key_is_shown_however_it_is_written_or_cut(models, behaviour, key):
    """A body cut at 4 KiB through the key must not show the rest of it; a key written with
    escaped slashes, HTML entities or in lower case is redacted too."""
    url, _ = models.start(behaviour)
    code, out, err = compose(model_env(url, CONTEXT_BUDGET_API_KEY=key))
    assert code == 1 and one_line_error(err) and "answered HTTP 500" in err
    assert leaked(key, out + err) == [], err
    if behaviour != "echo-cut-lines":
        assert "[redacted]" in err


@pytest.mark.parametrize("key", [SECRET, ODD_KEY])
def test_the_start_of_a_key_left_at_the_end_of_a_cut_body_is_redacted(models, key):
    url, _ = models.start("echo-tail")
    code, out, err = compose(model_env(url, CONTEXT_BUDGET_API_KEY=key))
    assert code == 1 and "answered HTTP 500: [redacted]" in err and key[:4] not in err, err


def test_redaction_keeps_its_place_in_any_text():
    """Spans are found in a text as long as the original: "İ" lowers to two characters with
    str.lower(), so each one before the key would move the redaction right, and forty let it out."""
    from context_budget.cli._secrets import redact as _redact

    key = "sk-proj-Q7ahZk3LmN9pXyZw12345abc"
    assert _redact("İ" * 40 + " " + key + " tail", [key]) == "İ" * 40 + " [redacted] tail"
    assert _redact(f"a {key.upper()} b {key[3:20]} c", [key]) == "a [redacted] b [redacted] c"
    assert _redact("error: " + key[:6], [key], cut=True) == "error: [redacted]"
    assert _redact("error: " + key[:6], [key]) == "error: " + key[:6]  # not cut: 6 characters are not the key
    assert _redact("nothing here", [key]) == "nothing here" and _redact("any", []) == "any"
    assert _redact("ab" * 100 + "!", ["ab" * 12]) == "[redacted]!"  # a periodic key: covered end to end


@pytest.mark.parametrize("setting, value", [
    ("CONTEXT_BUDGET_BASE_URL", "https://x.openai.azure.com/v1?api-key={key}"),
    ("CONTEXT_BUDGET_BASE_URL", "http://admin:{key}?x@host/v1"),
    ("CONTEXT_BUDGET_TEMPERATURE", "Bearer {key}"),
    ("CONTEXT_BUDGET_TEMPERATURE", "{key}"),
    ("CONTEXT_BUDGET_CONTEXT_TOKENS", "{key}"),
    # a key pasted into the URL itself (with api_key unset, a plain key is described: the test below)
    ("CONTEXT_BUDGET_BASE_URL", "http://127.0.0.1:99999/{key}"),
    ("CONTEXT_BUDGET_BASE_URL", "{key}.example.com"),
    ("CONTEXT_BUDGET_BASE_URL", "http://[{key}]/v1"),
])
def test_a_key_cut_short_in_a_settings_message_is_still_redacted(setting, value):
    """Values are cut to 60 characters before they are shown: the cut key must still be
    redacted; a key in a URL's query is hidden even with api_key unset."""
    in_the_url = setting == "CONTEXT_BUDGET_BASE_URL" and "?" not in value
    for environ in ({"CONTEXT_BUDGET_API_KEY": ODD_KEY}, *([] if in_the_url else [{}])):
        code, out, err = call(["compose", EXAMPLE], environ={**environ, setting: value.format(key=ODD_KEY)})
        assert code == 2 and one_line_error(err) and leaked(ODD_KEY, out + err) == [], err
        if setting == "CONTEXT_BUDGET_BASE_URL" and "?" in value:
            assert 'got "https://x.openai.azure.com/v1?***"' in err or 'got "http://***@host/v1"' in err


def test_a_key_like_run_in_a_url_is_described_but_a_long_host_name_is_shown():
    for key in ("sk-test-ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", "Ab3" * 10, "0123456789abcdef" * 2):
        code, _, err = call(["compose", EXAMPLE], environ={"CONTEXT_BUDGET_BASE_URL": f"http://x:99999/{key}"})
        assert code == 2 and key not in err and f"<{len(key)} characters: may be a key>" in err, err
    host = "http://my-resource-name-eastus.openai.azure.com:0/v1"
    code, _, err = call(["compose", EXAMPLE], environ={"CONTEXT_BUDGET_BASE_URL": host})
    assert code == 2 and f'got "{host}"' in err  # a long lower-case label is a host, shown as typed


def test_a_key_like_run_in_the_url_stays_hidden_in_model_call_errors_and_a_placeholder_key_hides_nothing():
    run_in_path = "AbCdEfGhIjKlMnOpQrStUvWx0123"
    code, out, err = call(["compose", EXAMPLE, "--call-model", "--json"], environ={"CONTEXT_BUDGET_BASE_URL": f"http://127.0.0.1:9/v1/{run_in_path}"})
    assert code == 1 and run_in_path not in out + err and "cannot reach http://127.0.0.1:9/v1/<28 characters: may be a key>/chat/completions" in err, err
    # "ollama" or "local" as api_key is a placeholder: it once cut words out of the address ("[redacted]host")
    code, _, err = call(["compose", EXAMPLE, "--call-model"], environ={"CONTEXT_BUDGET_BASE_URL": "http://localhost:9/v1", "CONTEXT_BUDGET_API_KEY": "local"})
    assert code == 1 and "cannot reach http://localhost:9/v1/chat/completions" in err and "[redacted]" not in err, err


def test_names_of_settings_and_variables_are_shown_unless_they_hold_a_key(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps({"reserved_output_token": 1}))
    code, _, err = call(["compose", EXAMPLE, "--config", str(tmp_path / "config.json")])
    assert code == 2 and 'config: unknown setting "reserved_output_token" (did you mean "reserved_output_tokens"?)' in err, err
    name = "CONTEXT_BUDGET_API_KEYsk_proj_AbCdEf0123456789xyzXYZ"
    code, _, err = call(["compose", EXAMPLE], environ={name: "1"})
    assert code == 2 and "AbCdEf0123" not in err and "CONTEXT_BUDGET_<37 characters: may be a key>: no such setting" in err, err


def test_an_unknown_config_key_that_may_be_a_key_is_not_shown(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps({ODD_KEY: 1}))
    code, out, err = call(["compose", EXAMPLE, "--config", str(tmp_path / "config.json")])
    assert code == 2 and leaked(ODD_KEY, out + err) == [] and "config: unknown setting a text of" in err, err


# ---------------------------------------------------------------- compose --call-model: hangs and resource use

def test_the_timeout_bounds_the_whole_call_not_each_read(models):
    # A byte every 0.1 s keeps every single read inside its timeout: only a deadline for the whole call ends it.
    url, _ = models.start("drip")
    started = time.monotonic()
    code, _, err = compose(model_env(url, CONTEXT_BUDGET_TIMEOUT_SECONDS="1"))
    elapsed = time.monotonic() - started
    assert code == 1 and one_line_error(err) and "did not answer within 1 s" in err
    assert elapsed < 3, elapsed


@pytest.mark.parametrize("behaviour", ["huge", "huge-undeclared"])
def test_an_answer_over_10_mb_is_refused(models, behaviour):
    url, _ = models.start(behaviour)
    code, _, err = compose(model_env(url, CONTEXT_BUDGET_TIMEOUT_SECONDS="30"))
    assert code == 1 and one_line_error(err) and "more than the 10,485,760" in err


def test_a_deeply_nested_answer_is_an_error_not_a_recursion_error(models):
    url, _ = models.start("nested")
    code, _, err = compose(model_env(url))
    assert code == 1 and one_line_error(err) and "nested too deeply" in err


def test_control_characters_from_the_server_never_reach_the_terminal(models):
    url, _ = models.start("escapes")
    code, out, err = compose(model_env(url))
    assert code == 0, err
    answer = out.split("=== Model answer", 1)[1]
    assert "\x1b" not in answer and "\x07" not in answer and "\x9b" not in answer and "\r" not in answer
    assert answer.endswith("Full refund.\nSecond line\tend\n")
    # whole sequences go, not only their control characters ("[2J", "[1;31m" and the title once stayed)
    assert answer.split("\n", 1)[1] == "Full refund.\nSecond line\tend\n", answer
    url, _ = models.start("error-escapes")
    code, _, err = compose(model_env(url))
    assert code == 1 and one_line_error(err) and "\x1b" not in err and "\r" not in err and "overloaded" in err


# ---------------------------------------------------------------- compose settings: ASCII numbers, whole URLs

@pytest.mark.parametrize(
    "name, value",
    [
        ("CONTEXT_TOKENS", "²"), ("CONTEXT_TOKENS", "①"), ("CONTEXT_TOKENS", "٣٠٠٠"), ("CONTEXT_TOKENS", "1_000"),
        ("CONTEXT_TOKENS", "３０００"), ("CONTEXT_TOKENS", "9" * 5000), ("TEMPERATURE", "٠.٥"), ("TEMPERATURE", "0_1"),
        ("TIMEOUT_SECONDS", "１"), ("BASE_URL", "http://[::1"), ("BASE_URL", "http://例え.jp/v1"),
        ("BASE_URL", "http://localhost:99999/v1"), ("BASE_URL", "http://localhost:port/v1"), ("BASE_URL", "http:///v1"),
        ("BASE_URL", "http://localhost/v1?x=1"), ("BASE_URL", "http://local host/v1"), ("BASE_URL", "http://localhost:0/v1"),
    ],
)
def test_settings_take_ascii_numbers_and_whole_urls_only(name, value):
    code, out, err = call(["compose", EXAMPLE], environ={f"CONTEXT_BUDGET_{name}": value})
    assert code == 2 and out == "" and one_line_error(err) and f"CONTEXT_BUDGET_{name}" in err, err


def test_ascii_numbers_and_ipv6_urls_still_work():
    settings = _settings.effective_settings(_settings.NO_WINDOW, None, {
        "CONTEXT_BUDGET_CONTEXT_TOKENS": " 1200 ", "CONTEXT_BUDGET_TEMPERATURE": "0.5", "CONTEXT_BUDGET_BASE_URL": "http://[::1]:1234/v1/",
    })
    assert settings["context_tokens"] == 1200 and settings["temperature"] == 0.5 and settings["base_url"] == "http://[::1]:1234/v1"


# ---------------------------------------------------------------- tracebacks and exit codes

@pytest.mark.parametrize("argv", [["serve", "--port", "70000"], ["serve", "--port", "-1"], ["serve", "--port", "٨٠"],
                                  ["check", "--indent", "-1"], ["check", "--indent", "100000000"]])
def test_out_of_range_options_are_usage_errors(argv):
    code, out, err = call(argv, b"{}")
    assert code == 2 and out == "" and "Traceback" not in err and "must be an integer from" in err


def cli_process(args, **options):
    return subprocess.run([sys.executable, "-m", "context_budget", *args], capture_output=True, cwd=ROOT, timeout=60, **options)


@pytest.mark.parametrize("args", [["check", "-"], ["check", "--jsonl", "-"], ["compose", "-"]])
def test_closed_stdin_is_a_usage_error(args):
    # `<&-`: descriptor 0 closed before Python starts, so sys.stdin is None: no AttributeError traceback.
    result = cli_process(args, stdin=None, preexec_fn=lambda: os.close(0))
    assert result.returncode == 2 and result.stderr == b"context-budget: cannot read standard input: it is closed\n", result.stderr
    # Closed after start-up: reading fails with EBADF, said in one line, not an OSError traceback.
    result = subprocess.run(
        [sys.executable, "-c", "import os, sys; os.close(0); from context_budget.cli import main; sys.argv[1:] = " + repr(args) + "; main()"],
        capture_output=True, cwd=ROOT, timeout=60,
    )
    assert result.returncode == 2 and result.stderr.startswith(b"context-budget: cannot read standard input: "), result.stderr
    assert result.stderr.count(b"\n") == 1


def test_a_closed_stdout_ends_quietly(tmp_path):
    # `check --jsonl big | head -1` ends without a BrokenPipeError traceback.
    big = tmp_path / "big.jsonl"
    big.write_text((json.dumps({"budget": 5, "items": [{"id": "A", "relevance": 1, "tokens": 1}]}) + "\n") * 20_000)
    process = subprocess.Popen([sys.executable, "-m", "context_budget", "check", "--jsonl", str(big)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    assert json.loads(process.stdout.readline())["ok"] is True
    process.stdout.close()
    assert process.wait(timeout=60) == 1
    assert process.stderr.read() == b""
    process.stderr.close()


def test_a_reader_that_goes_away_during_one_large_report_exits_1(tmp_path):
    """One write of a 5 MB report to a pipe whose reader has gone can return a partial count,
    and CPython's buffered writer drops the rest without an error: exit 0 would say all was read."""
    big = tmp_path / "big.json"
    big.write_text(json.dumps({"budget": 10**6, "items": [{"id": f"item-{i}", "relevance": i % 97, "tokens": 3} for i in range(30_000)]}))
    process = subprocess.Popen([sys.executable, "-m", "context_budget", "check", "--indent", "2", str(big)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    assert process.stdout.readline() == b"{\n"
    process.stdout.close()
    assert process.wait(timeout=60) == 1
    assert process.stderr.read() == b""
    process.stderr.close()


def test_jsonl_reports_an_unclosed_bracket_on_its_own_line(tmp_path):
    lines = tmp_path / "in.jsonl"
    lines.write_bytes(b'{"budget": 1, "items": [\n{"budget": 1, "items": []}\r\n{"budget": \r\n')
    code, out, _ = call(["check", "--jsonl", str(lines)])
    envelopes = [json.loads(line) for line in out.splitlines()]
    assert code == 1
    assert (envelopes[0]["input_line"], envelopes[0]["line"]) == (1, 1)
    assert envelopes[1]["ok"] is True
    assert (envelopes[2]["input_line"], envelopes[2]["line"]) == (3, 1)


# ---------------------------------------------------------------- the contract: ASCII digits, UTF-16 ids

@pytest.mark.parametrize("observed_at", ["２０２６-03-13T13:18:00Z", "2026-03-13T13:18:٠٠Z", "2026-03-13T13:18:00+０1:00"])
def test_observed_at_takes_ascii_digits_only(observed_at):
    report = evaluate({
        "mode": "blocks", "window": {"context_tokens": 900, "reserved_output_tokens": 100, "fixed_prompt_tokens": 0},
        "blocks": [{"id": "a", "source": "s", "content": "c", "priority": 1, "observed_at": observed_at}],
    })
    assert report["pass"] is False and report["errors"][0]["path"] == "$.blocks[0].observed_at"


def test_the_shipped_schema_pattern_is_ascii_only():
    schema = json.loads((ROOT / "py" / "context_budget" / "schemas" / "blocks.schema.json").read_text())
    assert "\\d" not in json.dumps(schema)


@pytest.mark.parametrize("mode", ["relevance", "passages"])
def test_ids_equal_as_utf16_are_duplicates(mode):
    split, joined = "\ud83d\ude00", "😀"
    if mode == "relevance":
        document = {"budget": 9, "items": [{"id": split, "relevance": 1, "tokens": 1}, {"id": joined, "relevance": 2, "tokens": 1}]}
        path = "$.items[1].id"
    else:
        document = {"mode": "passages", "question": "q", "limit": 99, "counter": "words",
                    "passages": [{"id": split, "text": "a"}, {"id": joined, "text": "b"}]}
        path = "$.passages[1].id"
    report = evaluate(document)
    assert report["pass"] is False and [error["path"] for error in report["errors"]] == [path]
    assert "UTF-16 code units" in report["errors"][0]["message"]
    # Many ids take the column-wise fast path: the same answer.
    if mode == "relevance":
        document["items"] += [{"id": f"x{n}", "relevance": 1, "tokens": 1} for n in range(2000)]
        assert [error["path"] for error in evaluate(document)["errors"]] == [path]


# ---------------------------------------------------------------- serve: idle clients, one file map

@pytest.fixture
def quick_server(monkeypatch):
    import threading

    calls = []
    real_site_map = site_server.site_map
    monkeypatch.setattr(site_server, "site_map", lambda root=None, *rest: calls.append(root) or real_site_map(root, *rest))
    server = site_server.make_server(0, idle_timeout=0.5)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server, calls
    server.shutdown()
    server.server_close()


def test_serve_cuts_idle_and_half_open_connections(quick_server):
    import socket

    server, _ = quick_server
    port = server.server_address[1]
    with socket.create_connection(("127.0.0.1", port)) as idle, socket.create_connection(("127.0.0.1", port)) as half:
        half.sendall(b"GET /index.html HTTP/1.1\r\nHost: x\r\n")  # the request never ends
        for client in (idle, half):
            client.settimeout(5)
            started = time.monotonic()
            assert client.recv(65536) == b""  # closed by the server, not held open for ever
            assert time.monotonic() - started < 4


def test_serve_builds_the_file_map_once(quick_server):
    import urllib.request

    server, calls = quick_server
    for _ in range(3):
        with urllib.request.urlopen(f"http://127.0.0.1:{server.server_address[1]}/index.html", timeout=10) as response:
            assert response.status == 200
    assert len(calls) == 1


def test_compose_prints_a_report_whose_costs_were_counted_exactly(tmp_path):
    # Found by the robustness fuzz: a blocks input with a tokenizer has no sensitivity margin (KeyError).
    document = json.loads((ROOT / "fixtures" / "blocks" / "tokenizer-refund-counted-exactly.json").read_text())["input"]
    (tmp_path / "input.json").write_text(json.dumps(document))
    code, out, err = call(["compose", str(tmp_path / "input.json")])
    assert code in (0, 1) and "Traceback" not in err and "costs counted exactly (o200k_base)" in out


def test_nesting_depth_is_measured_in_one_pass():
    # A million levels in one pass: one pass per level would be quadratic, in `check` and in the page.
    deep = "[" * 1_000_000 + "]" * 1_000_000
    result = subprocess.run([sys.executable, "-m", "context_budget", "check", "-"], input=deep.encode(), capture_output=True,
                            cwd=ROOT, timeout=20)
    assert result.returncode == 1 and b"more than 512 levels deep" in result.stdout


def test_build_site_refuses_a_directory_inside_the_page_sources(small_root):
    # Found while hardening: web/site would be served as part of the page and copied into itself on every build.
    for inside in ("web/site", "web", "node_modules/pyodide/site"):
        with pytest.raises(writer.TargetError, match="inside the page's own sources"):
            writer.build_site(small_root / inside, small_root, force=True)
    assert not (small_root / "web" / "site").exists()


@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
def test_an_output_that_cannot_carry_utf8_gets_escapes_not_a_traceback(tmp_path, encoding):
    # PYTHONIOENCODING=ascii and an id with "é" or an emoji: escapes, never a UnicodeEncodeError.
    document = {"budget": 5, "items": [{"id": "é😀", "relevance": 1, "tokens": 1}]}
    (tmp_path / "in.json").write_text(json.dumps(document))
    (tmp_path / "in.jsonl").write_text(json.dumps(document) + "\n")
    environ = {**os.environ, "PYTHONIOENCODING": encoding}
    for args in (["check", str(tmp_path / "in.json")], ["check", "--jsonl", str(tmp_path / "in.jsonl")],
                 ["check", "--jsonl", "--jobs", "2", str(tmp_path / "in.jsonl")]):
        result = cli_process(args, env=environ)
        assert result.returncode == 0 and result.stderr == b"", result.stderr
        assert json.loads(result.stdout)["result"]["selected"] == ["é😀"]
    result = cli_process(["check", str(tmp_path / "in.json"), "--format", "text"], env=environ)
    assert result.returncode == 0 and result.stderr == b"" and b"\\U0001f600" in result.stdout


def test_an_endless_input_is_refused_at_the_size_limit(monkeypatch, tmp_path):
    # `check /dev/zero` (or an endless pipe) must not read until memory runs out.
    from context_budget.cli import _input

    monkeypatch.setattr(_input, "MAX_INPUT_BYTES", 1000)
    endless = Path("/dev/zero")
    for argv, stdin in ((["check", str(endless)], b""), (["check", "-"], b"[" * 5000), (["count", str(endless)], b""),
                        (["check", "--jsonl", str(endless)], b""), (["check", "--jsonl", "-"], b"1\n" + b" " * 5000),
                        (["compose", str(tmp_path / "in.json"), "--config", str(endless)], b"")):
        (tmp_path / "in.json").write_text("{}")
        code, _, err = call(argv, stdin)
        assert code == 2 and one_line_error(err) and "larger than" in err, (argv, err)
        # the advice fits the command: only check's input is split into JSONL lines
        advice = "count a smaller file" if argv[0] == "count" else "a config holds a few settings" if "--config" in argv else "check --jsonl"
        assert advice in err or "each input must be smaller" in err, (argv, err)


def test_tool_call_ids_equal_as_utf16_match_and_collide():
    # Tool call ids are compared as UTF-16 code units, not as Python strings: a result for
    # "\ud83d\ude00" answers the call "😀", and two such calls are duplicates.
    def conversation(call_ids, answer_id):
        calls = [{"id": call_id, "type": "function", "function": {"name": "f", "arguments": "{}"}} for call_id in call_ids]
        return {"mode": "messages", "limit": 500, "tokenizer": "estimate", "messages": [
            {"role": "user", "content": "q"}, {"role": "assistant", "content": None, "tool_calls": calls},
            {"role": "tool", "tool_call_id": answer_id, "content": "r"}]}

    answered = evaluate(conversation(["😀"], "\ud83d\ude00"))
    assert "errors" not in answered, answered.get("errors")
    duplicated = evaluate(conversation(["😀", "\ud83d\ude00"], "😀"))
    assert any("duplicate tool call id" in error["message"] for error in duplicated["errors"])


def test_serve_cuts_a_client_that_reads_too_slowly(monkeypatch):
    # A client taking a little now and then (each send inside the idle timeout) would otherwise
    # hold its connection slot for as long as it likes. One slot: the next request waits for it.
    import socket
    import threading
    import urllib.request

    monkeypatch.setattr(site_server, "MIN_SEND_SECONDS", 1.0, raising=False)
    monkeypatch.setattr(site_server, "MIN_SEND_BYTES_PER_SECOND", 1e12, raising=False)  # so the deadline is the 1 s minimum
    server = site_server.make_server(0, idle_timeout=30, max_connections=1)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    port = server.server_address[1]
    wasm = next(path for path in server.RequestHandlerClass.files if path.endswith("pyodide.asm.wasm"))
    try:
        with socket.create_connection(("127.0.0.1", port)) as slow:
            slow.sendall(f"GET /{wasm} HTTP/1.0\r\n\r\n".encode())
            slow.recv(1024)
            stop = threading.Event()
            threading.Thread(target=lambda: [slow.recv(1024) for _ in iter(lambda: stop.wait(0.05), True)], daemon=True).start()
            started = time.monotonic()
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/index.html", timeout=20) as response:
                assert response.status == 200
            stop.set()
            assert time.monotonic() - started < 10  # the slot came free at the 1 s deadline, not after 9.6 MB at 20 KB/s
    finally:
        server.shutdown()
        server.server_close()
