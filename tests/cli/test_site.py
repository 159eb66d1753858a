"""`serve` and `build-site` without a browser: MIME types, 404s, the manifest, refusals; a build
never deletes or overwrites what it did not write; serve cuts idle and slow clients under load."""

import base64
import gzip
import hashlib
import io
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from conftest import ROOT
from fitproof._site import bundle as _site
from fitproof._site import bundle, writer
from fitproof._site import server
from fitproof._site import server as site_server
from fitproof._site.bundle import pyodide_version
from fitproof.cli import run
from cli_calls import call_cli as call, one_line_error


VERSION = _site.pyodide_version(_site.project_root() / "node_modules" / "pyodide")


def fetch(url, method="GET"):
    request = urllib.request.Request(url, method=method)
    with urllib.request.urlopen(request, timeout=30) as response:
        return response.status, response.headers, response.read()


@pytest.mark.parametrize(
    "path, mime",
    [
        ("", "text/html; charset=utf-8"),
        (f"pyodide/{VERSION}/pyodide.asm.wasm", "application/wasm"),
        (f"pyodide/{VERSION}/pyodide.mjs", "text/javascript; charset=utf-8"),
        (f"pyodide/{VERSION}/python_stdlib.zip", "application/zip"),
        (f"pyodide/{VERSION}/pyodide-lock.json", "application/json"),
        ("boot.json", "application/json"),
        ("fixtures/index.json", "application/json"),
    ],
)
def test_served_files_have_the_right_types(site_url, path, mime):
    status, headers, body = fetch(site_url + path)
    assert status == 200 and headers["Content-Type"] == mime and body
    assert "default-src 'self'" in headers["Content-Security-Policy"]


def boot(site_url):
    return json.loads(fetch(site_url + "boot.json")[2])


def test_the_bundle_is_the_sources_and_named_by_their_hash(site_url):
    package = boot(site_url)["package"]
    status, headers, body = fetch(site_url + package["url"])
    assert status == 200 and headers["Content-Type"] == "application/json"
    assert package["integrity"] == "sha256-" + base64.b64encode(hashlib.sha256(body).digest()).decode()
    assert package["bytes"] == len(body)
    bundle = json.loads(body)
    root = _site.PACKAGE_DIR.parent
    on_disk = {
        path.relative_to(root).as_posix(): path.read_text(encoding="utf-8")
        for path in _site.PACKAGE_DIR.rglob("*")
        if path.suffix in (".py", ".json") and "__pycache__" not in path.parts
    }
    assert bundle["files"] == on_disk
    assert "fitproof/modes/passages.py" in bundle["files"] and "fitproof/schemas/blocks.schema.json" in bundle["files"]
    assert bundle["sources_sha256"] == package["sources_sha256"] and package["url"] == f"py/fitproof-{package['sources_sha256'][:16]}.json"


def test_the_sources_hash_changes_with_any_file(monkeypatch):
    sources = _site.package_sources()
    _, original = _site.package_bundle()
    name = "fitproof/_envelope.py"
    for changed in ({**sources, name: sources[name] + " "}, {**sources, name + "x": ""}, {k: v for k, v in sources.items() if k != name}):
        monkeypatch.setattr(_site, "package_sources", lambda changed=changed: changed)
        assert _site.package_bundle()[1] != original
    # Moving text between a file's name and its content cannot collide either.
    monkeypatch.setattr(_site, "package_sources", lambda: {"ab": "c"})
    first = _site.package_bundle()[1]
    monkeypatch.setattr(_site, "package_sources", lambda: {"a": "bc"})
    assert _site.package_bundle()[1] != first


def test_boot_json_gives_the_sizes_of_what_the_page_downloads(site_url):
    config = boot(site_url)
    assert config["pyodide"]["version"] == VERSION and config["pyodide"]["url"] == f"pyodide/{VERSION}/"
    for name, size in config["pyodide"]["bytes"].items():
        assert int(fetch(site_url + f"pyodide/{VERSION}/{name}", method="HEAD")[1]["Content-Length"]) == size, name
    assert "pyodide.asm.wasm" in config["pyodide"]["bytes"] and config["pyodide"]["stdlib"] in config["pyodide"]["bytes"]
    assert config["pyodide"]["whole_stdlib"] == "python_stdlib.zip"  # served too (tested above), loaded only for a missing module


def test_versioned_and_hashed_files_are_cached_long_the_shell_is_revalidated(site_url):
    long_lived = [f"pyodide/{VERSION}/pyodide.asm.wasm", f"pyodide/{VERSION}/pyodide.mjs", boot(site_url)["package"]["url"]]
    for path in long_lived:
        headers = fetch(site_url + path, method="HEAD")[1]
        assert headers["Cache-Control"] == "public, max-age=31536000, immutable", path
        assert "ETag" not in headers
    for path in ("", "index.html", "app.js", "worker.js", "boot.json", "fixtures/index.json", "pyodide/pyodide.mjs"):
        _, headers, body = fetch(site_url + path)
        assert headers["Cache-Control"] == "no-cache" and headers["ETag"], path
        # Asked again with the ETag: 304 and no body; a stale ETag gets the file.
        request = urllib.request.Request(site_url + path, headers={"If-None-Match": headers["ETag"]})
        with pytest.raises(urllib.error.HTTPError) as answer:
            urllib.request.urlopen(request, timeout=30)
        assert answer.value.code == 304 and answer.value.read() == b""
        request = urllib.request.Request(site_url + path, headers={"If-None-Match": '"stale"'})
        with urllib.request.urlopen(request, timeout=30) as response:
            assert response.status == 200 and response.read() == body


def test_the_unversioned_pyodide_loader_is_the_versioned_one(site_url):
    """The worker imports pyodide/pyodide.mjs while boot.json is on its way: the same bytes as the
    versioned copy, revalidated on every load (a new Pyodide may replace it)."""
    assert fetch(site_url + "pyodide/pyodide.mjs")[2] == fetch(site_url + f"pyodide/{VERSION}/pyodide.mjs")[2]


def test_only_versioned_pyodide_paths_and_hashed_bundles_are_immutable():
    assert _site.cache_control("pyodide/314.0.7/pyodide.asm.wasm").endswith("immutable")
    assert _site.cache_control("py/fitproof-0123456789abcdef.json").endswith("immutable")
    for path in ("pyodide/pyodide.asm.wasm", "pyodide/314.0.7/", "py/fitproof-latest.json", "index.html", "worker.js", "boot.json"):
        assert _site.cache_control(path) == "no-cache", path


def test_the_old_unversioned_paths_are_gone(site_url):
    for path in ("pyodide/pyodide.asm.wasm", "py/files.json", "py/fitproof/__init__.py"):
        with pytest.raises(urllib.error.HTTPError) as error:
            fetch(site_url + path)
        assert error.value.code == 404, path


def test_unknown_paths_are_404_and_head_has_no_body(site_url):
    with pytest.raises(urllib.error.HTTPError) as error:
        fetch(site_url + "nope.txt")
    assert error.value.code == 404
    status, headers, body = fetch(site_url + f"pyodide/{VERSION}/pyodide.asm.wasm", method="HEAD")
    assert status == 200 and body == b"" and int(headers["Content-Length"]) > 1_000_000


def test_build_site_writes_a_verifiable_manifest(tmp_path):
    out = io.StringIO()
    assert run(["build-site", str(tmp_path / "site")], io.BytesIO(), out, io.StringIO()) == 0
    manifest = json.loads((tmp_path / "site" / "manifest.json").read_text())["files"]
    for name in ("index.html", "app.js", "worker.js", f"pyodide/{VERSION}/pyodide.asm.wasm", "boot.json"):
        assert hashlib.sha256((tmp_path / "site" / name).read_bytes()).hexdigest() == manifest[name]
    assert "Wrote" in out.getvalue()
    headers = (tmp_path / "site" / "_headers").read_text()
    assert f"/pyodide/{VERSION}/pyodide.asm.wasm\n  Cache-Control: public, max-age=31536000, immutable\n" in headers
    assert "/index.html\n  Cache-Control: no-cache\n" in headers and "/\n  Cache-Control: no-cache\n" in headers
    # Building again over an earlier site is fine; over anything else it is refused.
    assert run(["build-site", str(tmp_path / "site")], io.BytesIO(), io.StringIO(), io.StringIO()) == 0
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "keep.txt").write_text("mine")
    err = io.StringIO()
    assert run(["build-site", str(tmp_path / "other")], io.BytesIO(), io.StringIO(), err) == 2
    assert "not empty" in err.getvalue() and (tmp_path / "other" / "keep.txt").read_text() == "mine"


def test_a_checkout_without_pyodide_is_a_clear_error(tmp_path):
    (tmp_path / "web").mkdir()
    (tmp_path / "web" / "index.html").write_text("<!doctype html>")
    with pytest.raises(_site.SiteError, match="npm ci"):
        _site.site_map(tmp_path)


def test_serve_on_a_busy_port_is_a_usage_error(site_url):
    port = site_url.rsplit(":", 1)[1].strip("/")
    err = io.StringIO()
    assert run(["serve", "--port", port], io.BytesIO(), io.StringIO(), err) == 2
    assert "cannot listen" in err.getvalue()


@pytest.mark.skipif(__import__("shutil").which("node") is None, reason="the prebuilt snapshot is made with Node")
def test_the_prebuilt_snapshot_is_served_long_lived_with_the_probe_to_check_it(site_url):
    config = boot(site_url)
    snapshot = config["snapshot"]
    stdlib = config["pyodide"]["stdlib"]  # made with the compiled standard library (Node made both), named by it too
    assert stdlib.startswith("stdlib-")
    assert snapshot["url"] == f"pyodide/{VERSION}/fitproof-{config['package']['sources_sha256'][:16]}-{stdlib[7:15]}.snapshot.gz"
    status, headers, body = fetch(site_url + snapshot["url"])
    assert status == 200 and headers["Content-Type"] == "application/gzip" and len(body) == snapshot["bytes"]
    assert headers["Cache-Control"] == "public, max-age=31536000, immutable"
    assert gzip.decompress(body)[:4] == (1886286592).to_bytes(4, "little")  # Pyodide's snapshot magic number
    from fitproof._envelope import check_text

    assert config["probe"]["envelope"] == check_text(config["probe"]["input"])
    assert json.loads(config["probe"]["envelope"])["result"]["summary"] == "Selected A, C within 7 tokens."


def test_without_a_snapshot_boot_json_says_so_and_the_page_boots_normally():
    files = _site.site_map(snapshot=False)
    assert json.loads(files["boot.json"])["snapshot"] is None
    assert not any(name.endswith(".snapshot.gz") for name in files)


def test_no_node_means_no_prebuilt_snapshot(monkeypatch):
    monkeypatch.setattr(_site.shutil, "which", lambda name: None)
    bundle, sources = _site.package_bundle()
    assert _site.prebuilt_snapshot(_site.project_root(), VERSION, bundle, sources) is None


def test_the_page_csp_allows_its_one_inline_script_by_hash_in_the_header_and_the_meta_tag():
    import re as regex

    html = (_site.project_root() / "web" / "index.html").read_text(encoding="utf-8")
    inline = regex.findall(r"<script>(.*?)</script>", html, regex.DOTALL)
    assert len(inline) == 1 and "new Worker" in inline[0]
    digest = "'sha256-" + base64.b64encode(hashlib.sha256(inline[0].encode()).digest()).decode() + "'"
    meta = regex.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', html).group(1)
    assert meta == server.CONTENT_SECURITY_POLICY
    assert digest in server.CONTENT_SECURITY_POLICY.split("script-src ")[1].split(";")[0]
    assert "'unsafe-inline'" not in meta


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
        target = Path("/proc/fitproof-site")  # unwritable even for root
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
            # A guard against a hang, not a stopwatch: below the default idle timeout (20 s), so
            # that only the 0.5 s given to this server can have cut them.
            client.settimeout(min(15, site_server.IDLE_TIMEOUT_SECONDS * 0.75))
            assert client.recv(65536) == b""  # closed by the server, not held open for ever


def test_serve_builds_the_file_map_once(quick_server):
    import urllib.request

    server, calls = quick_server
    for _ in range(3):
        with urllib.request.urlopen(f"http://127.0.0.1:{server.server_address[1]}/index.html", timeout=10) as response:
            assert response.status == 200
    assert len(calls) == 1


def test_build_site_refuses_a_directory_inside_the_page_sources(small_root):
    # web/site would be served as part of the page and copied into itself on every build.
    for inside in ("web/site", "web", "node_modules/pyodide/site"):
        with pytest.raises(writer.TargetError, match="inside the page's own sources"):
            writer.build_site(small_root / inside, small_root, force=True)
    assert not (small_root / "web" / "site").exists()


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
            taken = [len(slow.recv(1024))]
            stop = threading.Event()

            def read_slowly():  # 1 KB each 0.05 s, 20 KB/s: 9.6 MB would take 8 minutes
                while not stop.wait(0.05) and (chunk := slow.recv(1024)):
                    taken.append(len(chunk))

            reader = threading.Thread(target=read_slowly, daemon=True)
            reader.start()
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/index.html", timeout=120) as response:
                assert response.status == 200  # the one slot came free while the slow client was still there
            stop.set()
            reader.join(30)
            slow.settimeout(60)
            while chunk := slow.recv(1 << 16):  # what the server had sent before it cut the connection
                taken.append(len(chunk))
            # Cut by the 1 s deadline: the download ended (EOF) far short of the file.
            assert sum(taken) < (ROOT / "node_modules" / "pyodide" / "pyodide.asm.wasm").stat().st_size / 2, sum(taken)
    finally:
        server.shutdown()
        server.server_close()


def test_serve_cuts_a_client_that_sends_its_request_a_byte_at_a_time(monkeypatch):
    # Never idle for the idle timeout (30 s here), yet its request never ends: the head's own
    # deadline (1 s here) frees the one slot for the next client.
    import socket
    import threading
    import urllib.request

    monkeypatch.setattr(site_server, "REQUEST_HEAD_SECONDS", 1.0)
    server = site_server.make_server(0, idle_timeout=30, max_connections=1)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    port = server.server_address[1]
    stop = threading.Event()
    try:
        with socket.create_connection(("127.0.0.1", port)) as trickler:

            def trickle():
                for byte in b"GET /index.html HTTP/1.1\r\nHost: x\r\n" + b"X-Pad: " + b"a" * 10_000:
                    if stop.wait(0.1):
                        return
                    try:
                        trickler.sendall(bytes([byte]))
                    except OSError:  # cut by the server: what the test waits for
                        return

            sender = threading.Thread(target=trickle, daemon=True)
            sender.start()
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/index.html", timeout=120) as response:
                assert response.status == 200  # the slot came free while the trickler was still sending
            trickler.settimeout(60)  # a guard against a hang, not a stopwatch
            assert trickler.recv(65536) == b""  # closed without an answer
    finally:
        stop.set()
        server.shutdown()
        server.server_close()


def test_a_request_head_read_in_pieces_is_the_same_request(quick_server):
    # The head reader's lines: a request sent a byte at a time, and one sent whole, get the same answer.
    import socket

    server, _ = quick_server
    port = server.server_address[1]
    request = b"GET /index.html HTTP/1.1\r\nHost: x\r\nAccept-Encoding: identity\r\n\r\n"
    answers = []
    for pieces in ([request], [bytes([byte]) for byte in request]):
        with socket.create_connection(("127.0.0.1", port)) as client:
            client.settimeout(30)  # a guard against a hang, not a stopwatch
            for piece in pieces:
                client.sendall(piece)
            answer = b""
            while chunk := client.recv(1 << 20):
                answer += chunk
        answers.append(answer)
    heads, bodies = zip(*(answer.split(b"\r\n\r\n", 1) for answer in answers))
    assert all(head.startswith(b"HTTP/1.0 200") for head in heads) and bodies[0] == bodies[1] and bodies[0]  # (Date may differ)


WASM_PATH = f"pyodide/{pyodide_version(ROOT / 'node_modules' / 'pyodide')}/pyodide.asm.wasm"  # a versioned path


FUZZ = settings(
    max_examples=int(os.environ.get("ROBUSTNESS_EXAMPLES", "150")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


@pytest.fixture(scope="module")
def page_server():
    import threading

    from fitproof._site import server as _site

    server = _site.make_server(0, idle_timeout=0.5)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


REQUEST_PARTS = st.sampled_from(
    [
        b"GET",
        b"HEAD",
        b"POST",
        b"PUT",
        b"DELETE",
        b"OPTIONS",
        b"G\x00T",
        b" ",
        b"/",
        b"/index.html",
        b"/../../etc/passwd",
        b"/%2e%2e/README.md",
        b"/py/fitproof/cli.py",
        b"/" + WASM_PATH.encode(),
        b"?x=1",
        b"#frag",
        b"//",
        b"HTTP/1.0",
        b"HTTP/1.1",
        b"HTTP/9.9",
        b"\r\n",
        b"\n",
        b"Host: x",
        b"Range: bytes=0-10",
        b"A" * 70000,
        b"\xff\xfe",
        b"\x1b[2J",
    ]
)


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
from fitproof._site import server as _site
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
        process = subprocess.Popen(
            [sys.executable, "-c", SERVER_SCRIPT, "1.0", "64"],
            stdout=subprocess.PIPE,
            stderr=stderr,
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT / "py")},
        )
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
    for client in downloads:  # every download under way (its answer has begun), not a guessed 1.5 s
        assert client.recv(12, socket.MSG_WAITALL) == b"HTTP/1.0 200"
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
    threads = [_status(process.pid, "Threads")]
    for client in idle:  # each recv guarded by the 15 s timeout, below the default idle timeout (20 s)
        assert client.recv(1 << 16) == b""  # closed by the server
        client.close()
        threads.append(_status(process.pid, "Threads"))  # read all along, not once after a guessed 0.5 s
    assert max(threads) <= 64 + 3, threads
    answer = _get(port, WASM_PATH)
    assert answer.startswith(b"HTTP/1.0 200") and len(answer) > wasm_size
    # The connections' threads end just after their sockets close: waited for, up to a minute.
    for _ in range(600):
        if _status(process.pid, "Threads") <= 3:
            break
        time.sleep(0.1)
    assert _status(process.pid, "Threads") <= 3
    # Downloads abandoned half-way and idle clients cut are no errors: no traceback, no line at all.
    assert process.stderr_path.read_bytes() == b""
