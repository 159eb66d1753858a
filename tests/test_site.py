"""`serve` and `build-site` without a browser: MIME types, 404s, the manifest, refusals."""

import hashlib
import io
import json
import urllib.error
import urllib.request

import pytest

from context_budget import _site
from context_budget.cli import run


def fetch(url, method="GET"):
    request = urllib.request.Request(url, method=method)
    with urllib.request.urlopen(request, timeout=30) as response:
        return response.status, response.headers, response.read()


@pytest.mark.parametrize(
    "path, mime",
    [
        ("", "text/html; charset=utf-8"),
        ("pyodide/pyodide.asm.wasm", "application/wasm"),
        ("pyodide/pyodide.mjs", "text/javascript; charset=utf-8"),
        ("pyodide/python_stdlib.zip", "application/zip"),
        ("pyodide/pyodide-lock.json", "application/json"),
        ("py/context_budget/__init__.py", "text/x-python; charset=utf-8"),
        ("py/files.json", "application/json"),
        ("fixtures/index.json", "application/json"),
    ],
)
def test_served_files_have_the_right_types(site_url, path, mime):
    status, headers, body = fetch(site_url + path)
    assert status == 200 and headers["Content-Type"] == mime and body
    assert "default-src 'self'" in headers["Content-Security-Policy"]


def test_the_package_listing_names_every_module(site_url):
    _, _, body = fetch(site_url + "py/files.json")
    files = json.loads(body)
    assert "context_budget/__init__.py" in files and "context_budget/modes/passages.py" in files
    assert "context_budget/schemas/blocks.schema.json" in files
    assert not any("__pycache__" in name for name in files)


def test_unknown_paths_are_404_and_head_has_no_body(site_url):
    with pytest.raises(urllib.error.HTTPError) as error:
        fetch(site_url + "nope.txt")
    assert error.value.code == 404
    status, headers, body = fetch(site_url + "pyodide/pyodide.asm.wasm", method="HEAD")
    assert status == 200 and body == b"" and int(headers["Content-Length"]) > 1_000_000


def test_build_site_writes_a_verifiable_manifest(tmp_path):
    out = io.StringIO()
    assert run(["build-site", str(tmp_path / "site")], io.BytesIO(), out, io.StringIO()) == 0
    manifest = json.loads((tmp_path / "site" / "manifest.json").read_text())["files"]
    for name in ("index.html", "app.js", "worker.js", "pyodide/pyodide.asm.wasm", "py/files.json"):
        assert hashlib.sha256((tmp_path / "site" / name).read_bytes()).hexdigest() == manifest[name]
    assert "Wrote" in out.getvalue()
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
