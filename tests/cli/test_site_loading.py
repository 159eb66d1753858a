"""What makes the page quick to load, without a browser: `serve` answers with gzip where the
request allows it (one compression per file and process), `build-site` writes `.gz` siblings
that its manifest tracks, the page carries its default input's report, made by evaluate, and
(with Node) a compiled standard library with the package's bytecode."""

import gzip
import hashlib
import http.client
import io
import json
import re
import shutil
import threading
import zipfile

import pytest

from fitproof._envelope import check_text
from fitproof._site import bundle, compress, writer
from fitproof._site import server as site_server
from test_site import small_root  # noqa: F401 (a fixture: a tiny checkout, built in milliseconds)

VERSION = bundle.pyodide_version(bundle.project_root() / "node_modules" / "pyodide")
WASM = f"pyodide/{VERSION}/pyodide.asm.wasm"


def ask(site_url, path, method="GET", **headers):
    """(status, headers, raw body): http.client decodes nothing, so the bytes are the wire's."""
    host, port = site_url.split("//")[1].strip("/").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    try:
        connection.request(method, "/" + path, headers=headers)
        response = connection.getresponse()
        return response.status, response.headers, response.read()
    finally:
        connection.close()


@pytest.mark.parametrize("path", ["", "app.js", "boot.json", WASM, f"pyodide/{VERSION}/pyodide.asm.mjs"])
def test_serve_answers_gzip_when_accepted_with_its_own_length_and_etag(site_url, path):
    status, plain_headers, plain = ask(site_url, path)
    assert status == 200 and "Content-Encoding" not in plain_headers and plain_headers["Vary"] == "Accept-Encoding"
    status, headers, body = ask(site_url, path, **{"Accept-Encoding": "gzip, deflate, br"})
    assert status == 200 and headers["Content-Encoding"] == "gzip" and headers["Vary"] == "Accept-Encoding"
    assert int(headers["Content-Length"]) == len(body) < len(plain)
    assert gzip.decompress(body) == plain
    assert headers["Content-Type"] == plain_headers["Content-Type"]  # the .wasm stays application/wasm
    if path == WASM:
        assert headers["Content-Type"] == "application/wasm"
    if path.startswith("pyodide/"):
        assert "ETag" not in headers and headers["Cache-Control"].endswith("immutable")  # never revalidated
    else:
        assert headers["ETag"] != plain_headers["ETag"]  # another body, another tag
        # Each representation's tag gets its 304; the other's gets the body in the chosen coding.
        assert ask(site_url, path, **{"Accept-Encoding": "gzip", "If-None-Match": headers["ETag"]})[0] == 304
        status, again, body_again = ask(site_url, path, **{"Accept-Encoding": "gzip", "If-None-Match": plain_headers["ETag"]})
        assert status == 200 and again["Content-Encoding"] == "gzip" and body_again == body
    # HEAD says what GET would send; a Range is not supported: the whole file, in the chosen coding.
    status, head, empty = ask(site_url, path, "HEAD", **{"Accept-Encoding": "gzip"})
    assert empty == b"" and head["Content-Length"] == headers["Content-Length"] and head["Content-Encoding"] == "gzip"
    status, ranged, whole = ask(site_url, path, **{"Accept-Encoding": "gzip", "Range": "bytes=0-9"})
    assert status == 200 and whole == body and "Accept-Ranges" not in ranged


@pytest.mark.parametrize("accept", ["identity", "gzip;q=0", "br", "*;q=0", "deflate, gzip;q=0.0"])
def test_serve_sends_plain_bytes_when_gzip_is_not_accepted(site_url, accept):
    status, headers, body = ask(site_url, "app.js", **{"Accept-Encoding": accept})
    assert status == 200 and "Content-Encoding" not in headers and body.startswith(b"//")


def test_already_compressed_files_are_sent_as_they_are(site_url):
    for path in (
        f"pyodide/{VERSION}/python_stdlib.zip",
        *([json.loads(ask(site_url, "boot.json")[2])["snapshot"]["url"]] if json.loads(ask(site_url, "boot.json")[2])["snapshot"] else []),
    ):
        status, headers, body = ask(site_url, path, **{"Accept-Encoding": "gzip"})
        assert status == 200 and "Content-Encoding" not in headers and "Vary" not in headers, path


@pytest.mark.parametrize(
    "header, expected",
    [
        ("gzip", True),
        ("GZIP", True),
        ("deflate, gzip;q=0.5", True),
        ("*", True),
        ("x-gzip", True),
        ("br, *", True),
        (None, False),
        ("", False),
        ("identity", False),
        ("gzip;q=0", False),
        ("gzip; q=0.000", False),
        ("*, gzip;q=0", False),
        ("br;q=1, zstd", False),
        ("gzip;q=oops", False),
    ],
)
def test_accept_encoding_is_read_as_rfc_9110_says(header, expected):
    assert compress.accepts_gzip(header) is expected


def test_each_file_is_compressed_once_per_process(monkeypatch):
    calls = []
    real = compress.gzipped

    def counted(data, level):
        # Not the warm-up threads of servers other tests started (site_url's goes on compressing
        # the runtime in the background): only this test's cache.
        if threading.current_thread().name != "gzip-warm":
            calls.append(len(data))
        return real(data, level)

    monkeypatch.setattr(compress, "gzipped", counted)
    cache = compress.GzipCache()
    entry = b"x" * 50_000
    threads = [threading.Thread(target=cache.get, args=("a.js", entry)) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert cache.get("a.js", entry) == real(entry, compress.SERVE_LEVEL)
    assert calls == [50_000]  # eight requests at once and one more: one compression
    assert cache.get("tiny.js", b"x" * 10) is None and cache.get("a.zip", entry) is None and calls == [50_000]


def test_a_file_edited_while_serving_is_compressed_again(tmp_path):
    path = tmp_path / "app.js"
    path.write_text("// one\n" * 500)
    cache = compress.GzipCache()
    assert gzip.decompress(cache.get("app.js", path)) == path.read_bytes()
    path.write_text("// two, longer\n" * 500)
    assert gzip.decompress(cache.get("app.js", path)) == path.read_bytes()


# ---------------------------------------------------------------- build-site's .gz siblings


def test_build_site_writes_gz_siblings_the_manifest_tracks(tmp_path, small_root):
    (small_root / "web" / "big.js").write_text("// a comment\n" * 1000)
    (small_root / "web" / "small.js").write_text("// tiny")
    (small_root / "node_modules" / "pyodide" / "pyodide.asm.wasm").write_bytes(b"\0asm" + bytes(100_000))
    site = tmp_path / "site"
    writer.build_site(site, small_root)
    manifest = json.loads((site / "manifest.json").read_text())["files"]
    for name in ("big.js", f"pyodide/{VERSION}/pyodide.asm.wasm"):
        assert gzip.decompress((site / f"{name}.gz").read_bytes()) == (site / name).read_bytes()
        assert manifest[f"{name}.gz"] == hashlib.sha256((site / f"{name}.gz").read_bytes()).hexdigest()
    assert not (site / "small.js.gz").exists() and not (site / f"pyodide/{VERSION}/python_stdlib.zip.gz").exists()
    first = (site / "big.js.gz").read_bytes()
    writer.build_site(site, small_root)
    assert (site / "big.js.gz").read_bytes() == first  # the same bytes on every build (no time stamp)
    # A sibling of a file the site no longer has goes with it; one the user wrote stays.
    (site / "mine.js.gz").write_bytes(b"mine")
    (small_root / "web" / "big.js").unlink()
    writer.build_site(site, small_root)
    assert not (site / "big.js.gz").exists() and (site / "mine.js.gz").read_bytes() == b"mine"


def test_a_gz_sibling_the_user_changed_is_not_overwritten_without_force(tmp_path, small_root):
    (small_root / "web" / "big.js").write_text("// a comment\n" * 1000)
    site = tmp_path / "site"
    writer.build_site(site, small_root)
    (site / "big.js.gz").write_bytes(b"changed")
    with pytest.raises(writer.TargetError, match="big.js.gz"):
        writer.build_site(site, small_root)
    assert (site / "big.js.gz").read_bytes() == b"changed"


# ---------------------------------------------------------------- the first report

FIRST = re.compile(r'<script type="application/json" id="first-report">(.*?)</script>', re.DOTALL)


def first_report(html: bytes):
    match = FIRST.search(html.decode())
    return None if match is None else json.loads(match.group(1))


def default_input():
    examples = json.loads((bundle.project_root() / "web" / "examples.json").read_text())
    lesson = bundle.project_root() / "web" / "lesson.json"
    if lesson.is_file():
        return json.loads(lesson.read_text())["steps"][0]["input"]
    return json.loads((bundle.project_root() / "fixtures" / examples[0]["fixture"]).read_text())["input"]


def test_the_page_carries_its_default_inputs_report_as_evaluate_gives_it(site_url):
    carried = first_report(ask(site_url, "")[2])
    assert carried["input"] == default_input()
    assert carried["envelope"] == json.loads(check_text(json.dumps(default_input())))
    assert carried["envelope"]["result"]["summary"]  # a report, not an error


def test_serve_and_build_site_carry_the_same_first_report(site_url, tmp_path):
    files = bundle.site_map(snapshot=False)
    assert first_report(files["index.html"]) == first_report(ask(site_url, "")[2])
    assert FIRST.search((bundle.project_root() / "web" / "index.html").read_text()) is None  # never written by hand


def with_head(root):
    (root / "web" / "index.html").write_text("<!doctype html><head></head>v1")
    return root


def test_the_first_lesson_step_is_the_default_input(small_root):
    with_head(small_root)
    step = {"budget": 5, "items": [{"id": "x", "relevance": 2, "tokens": 3}, {"id": "y</script>", "relevance": 1, "tokens": 4}]}
    (small_root / "web" / "lesson.json").write_text(json.dumps({"steps": [{"title": "one", "input": step}, {"title": "two", "input": {}}]}))
    html = bundle.site_map(small_root, snapshot=False)["index.html"]
    assert html.count(b"</script>") == 1  # the id's "</script>" cannot end the block
    carried = first_report(html)
    assert carried == {"input": step, "envelope": json.loads(check_text(json.dumps(step)))}
    assert carried["envelope"]["result"]["summary"] == "Selected x within 5 tokens."


def test_the_check_of_the_first_report_fails_on_a_corrupted_one(small_root):
    """The comparison above is not vacuous: a report changed by one number no longer matches."""
    with_head(small_root)
    step = {"budget": 5, "items": [{"id": "x", "relevance": 2, "tokens": 3}]}
    (small_root / "web" / "lesson.json").write_text(json.dumps({"steps": [{"input": step}]}))
    html = bundle.site_map(small_root, snapshot=False)["index.html"].replace(b'"used":3', b'"used":4')
    assert first_report(html)["envelope"] != json.loads(check_text(json.dumps(step)))


def test_a_lesson_without_a_first_input_is_a_clear_error(small_root):
    (small_root / "web" / "lesson.json").write_text('{"steps": []}')
    with pytest.raises(bundle.SiteError, match=r"steps\[0\]\.input"):
        bundle.site_map(small_root, snapshot=False)


def test_a_page_without_examples_or_lesson_is_served_as_it_is(small_root):
    assert bundle.site_map(small_root, snapshot=False)["index.html"] == small_root / "web" / "index.html"


def test_serve_warms_the_runtime_gzip_ahead(monkeypatch):
    warmed = []
    monkeypatch.setattr(compress.GzipCache, "warm", lambda self, files, prefixes: warmed.append(prefixes))
    server = site_server.make_server(0, snapshot=False)
    server.server_close()
    assert warmed == [("pyodide/", "py/", "index.html")]


def test_the_page_preloads_its_module_graph(small_root):
    web = with_head(small_root) / "web"
    (web / "index.html").write_text('<!doctype html><head><script type="module" src="app.js"></script></head>')
    (web / "page").mkdir()
    (web / "common").mkdir()
    (web / "app.js").write_text('import { a } from "./page/a.js";\nimport "./page/c.js";\nconst later = import("./page/lazy.js");\n')
    (web / "page" / "a.js").write_text(
        'import {\n  b,\n  c,\n} from "../common/b.js";\nexport { d } from "./d.js";\n// import "./not-a-module.js"\n'
    )
    (web / "page" / "c.js").write_text('import { a } from "./a.js";  // already listed\n')
    for name in ("common/b.js", "page/d.js", "page/lazy.js"):
        (web / name).write_text("export const x = 1;\n")
    (web / "examples.json").write_text('[{"template": "t.json"}]')
    (web / "t.json").write_text('{"budget": 1, "items": []}')
    html = bundle.site_map(small_root, snapshot=False)["index.html"].decode()
    assert re.findall(r'<link rel="modulepreload" href="([^"]+)">', html) == ["page/a.js", "page/c.js", "common/b.js", "page/d.js"]
    assert first_report(html.encode())["input"] == {"budget": 1, "items": []}  # a template as the first example


def test_boot_json_gives_the_rank_files_sizes(site_url):
    """Sent gzipped, a rank file's Content-Length is the gzip's: its progress bar counts against these."""
    sizes = json.loads(ask(site_url, "boot.json")[2])["tokenizers"]
    assert set(sizes) == {"o200k_base", "cl100k_base"}
    for name, size in sizes.items():
        assert len(ask(site_url, f"tokenizers/{name}.tiktoken")[2]) == size > 1_000_000


@pytest.mark.skipif(shutil.which("node") is None, reason="the compiled standard library is made with Node")
def test_the_compiled_standard_library_is_bytecode_and_the_packages_is_checked_against_its_sources():
    files = bundle.site_map()
    config = json.loads(files["boot.json"])
    name = config["pyodide"]["stdlib"]
    assert (
        re.fullmatch(r"stdlib-[0-9a-f]{16}\.zip", name)
        and name[7:23] == hashlib.sha256(files[f"pyodide/{VERSION}/{name}"]).hexdigest()[:16]
    )
    assert bundle.cache_control(f"pyodide/{VERSION}/{name}") == bundle.LONG_LIVED  # named by its content
    assert (
        config["pyodide"]["bytes"][name] == len(files[f"pyodide/{VERSION}/{name}"])
        and "python_stdlib.zip" not in config["pyodide"]["bytes"]
    )
    assert f"pyodide/{VERSION}/python_stdlib.zip" in files  # the whole one stays, for a module missing here
    archive = zipfile.ZipFile(io.BytesIO(files[f"pyodide/{VERSION}/{name}"]))
    standard = [entry for entry in archive.namelist() if not entry.startswith("fitproof-bytecode/")]
    assert standard and all(entry.endswith(".pyc") for entry in standard)  # no sources
    assert {"json/__init__.pyc", "difflib.pyc", "encodings/utf_8.pyc", "pyodide/__init__.pyc"} <= set(standard)
    assert "email/__init__.pyc" not in standard  # what nothing imports stays out
    sources = json.loads(files[config["package"]["url"]])["files"]
    listed = archive.read("fitproof-bytecode/files.txt").decode().split()
    assert "fitproof/__pycache__/_envelope.cpython-314.pyc" in listed
    for entry in listed:
        folder, _, compiled = entry.partition("/__pycache__/")
        assert f"{folder}/{compiled.split('.')[0]}.py" in sources, entry
        data = archive.read("fitproof-bytecode/" + entry)
        assert int.from_bytes(data[4:8], "little") == 0b11, entry  # hash-based and checked: used only for its source
    assert "fitproof/_site/__pycache__/bundle.cpython-314.pyc" not in listed  # the page never imports it


def test_without_node_the_page_loads_pyodides_own_standard_library(monkeypatch):
    monkeypatch.setattr(bundle.shutil, "which", lambda name: None)
    files = bundle.site_map()
    config = json.loads(files["boot.json"])
    assert config["pyodide"]["stdlib"] == "python_stdlib.zip" and config["snapshot"] is None
    assert "python_stdlib.zip" in config["pyodide"]["bytes"]
    assert not any(path.startswith(f"pyodide/{VERSION}/stdlib-") for path in files)
    assert files["worker/site.js"].count(f'PYODIDE_FOLDER = "pyodide/{VERSION}/"'.encode()) == 1  # the folder named all the same
