"""`serve` and `build-site` without a browser: MIME types, 404s, the manifest, refusals."""

import base64
import gzip
import hashlib
import io
import json
import urllib.error
import urllib.request

import pytest

from context_budget._site import bundle as _site
from context_budget._site import server
from context_budget.cli import run

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
    on_disk = {path.relative_to(root).as_posix(): path.read_text(encoding="utf-8")
               for path in _site.PACKAGE_DIR.rglob("*") if path.suffix in (".py", ".json") and "__pycache__" not in path.parts}
    assert bundle["files"] == on_disk
    assert "context_budget/modes/passages.py" in bundle["files"] and "context_budget/schemas/blocks.schema.json" in bundle["files"]
    assert bundle["sources_sha256"] == package["sources_sha256"] and package["url"] == f"py/context_budget-{package['sources_sha256'][:16]}.json"


def test_the_sources_hash_changes_with_any_file(monkeypatch):
    sources = _site.package_sources()
    _, original = _site.package_bundle()
    name = "context_budget/_envelope.py"
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
    assert "pyodide.asm.wasm" in config["pyodide"]["bytes"] and "python_stdlib.zip" in config["pyodide"]["bytes"]


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
    assert _site.cache_control("py/context_budget-0123456789abcdef.json").endswith("immutable")
    for path in ("pyodide/pyodide.asm.wasm", "pyodide/314.0.7/", "py/context_budget-latest.json", "index.html", "worker.js", "boot.json"):
        assert _site.cache_control(path) == "no-cache", path


def test_the_old_unversioned_paths_are_gone(site_url):
    for path in ("pyodide/pyodide.asm.wasm", "py/files.json", "py/context_budget/__init__.py"):
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
    assert snapshot["url"] == f"pyodide/{VERSION}/context_budget-{config['package']['sources_sha256'][:16]}.snapshot.gz"
    status, headers, body = fetch(site_url + snapshot["url"])
    assert status == 200 and headers["Content-Type"] == "application/gzip" and len(body) == snapshot["bytes"]
    assert headers["Cache-Control"] == "public, max-age=31536000, immutable"
    assert gzip.decompress(body)[:4] == (1886286592).to_bytes(4, "little")  # Pyodide's snapshot magic number
    from context_budget._envelope import check_text
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
