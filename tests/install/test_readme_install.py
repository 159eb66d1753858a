"""The README's install block works word for word on a fresh clone, as a newcomer types it.

The clone is the checkout's files as git would give them (tracked, plus new files not ignored:
no .venv, no node_modules, no dist), so `scripts/setup` makes its own .venv and runs `npm ci`.
Each line of the block runs in one bash, in order, with HOME in a temporary directory (the
block makes its venv under ~). The one change: `fitproof serve` gets `--port 0`, so that the
test never depends on port 8000 being free; it is started, asked for the page and the wasm,
and stopped.
"""

import json
import os
import re
import shutil
import subprocess
import threading
import urllib.request

import pytest

from conftest import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")


def install_block() -> list[str]:
    """The command lines of the first ```sh block under "## Install", comments kept (bash ignores them)."""
    section = README.split("\n## Install\n", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```sh\n(.*?)```", section, re.S)
    assert block, "no ```sh block under ## Install"
    return [line for line in block.group(1).splitlines() if line.strip()]


def fresh_clone(target):
    """The files a clone of this tree holds, copied (git ls-files: tracked and new, never ignored)."""
    listed = (
        subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT, capture_output=True, check=True, timeout=60
        )
        .stdout.decode()
        .split("\0")
    )
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():  # a file deleted but not yet staged is listed and absent
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target


def test_the_install_block_names_setup_build_install_check_and_serve():
    lines = [line.split("#", 1)[0].strip() for line in install_block()]
    assert lines[:2] == ["scripts/setup", "scripts/build"]
    assert any(line.startswith("pip install") and line.endswith(" fitproof") for line in lines)
    assert any(line.startswith("pip install") and '"fitproof[page]"' in line for line in lines)
    assert lines[-1] == "fitproof serve"


@pytest.mark.skipif(shutil.which("npm") is None or shutil.which("git") is None, reason="needs npm and git, as scripts/setup does")
def test_the_readme_s_install_block_works_on_a_fresh_clone(tmp_path):
    clone = fresh_clone(tmp_path / "clone")
    home = tmp_path / "home"
    home.mkdir()
    *commands, serve = install_block()
    assert serve.split("#", 1)[0].strip() == "fitproof serve"
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env["HOME"] = str(home)
    script = "set -euo pipefail\n" + "\n".join(commands) + "\n" + "exec fitproof serve --port 0\n"
    errors = (tmp_path / "stderr").open("w+")
    server = subprocess.Popen(["bash", "-c", script], cwd=clone, env=env, stdout=subprocess.PIPE, stderr=errors, text=True)
    watchdog = threading.Timer(600, server.kill)  # a set-up that hangs fails the test, never the suite
    watchdog.start()
    try:
        lines = []
        for line in server.stdout:  # everything the block printed, then serve's one line
            lines.append(line)
            if line.startswith("Serving the fitproof page at "):
                break
        url = re.search(r"http://127\.0\.0\.1:\d+/", lines[-1] if lines else "")
        errors.seek(0)
        assert url, "".join(lines)[-3000:] + errors.read()[-3000:]
        checked = next(line for line in lines if line.startswith('{"ok"'))
        assert json.loads(checked)["result"]["selected"] == ["A", "C"]
        with urllib.request.urlopen(url.group(0) + "boot.json", timeout=30) as response:
            boot = json.loads(response.read())
        with urllib.request.urlopen(url.group(0) + boot["pyodide"]["url"] + "pyodide.asm.wasm", timeout=30) as response:
            assert response.headers["Content-Type"] == "application/wasm" and response.read(4) == b"\0asm"
    finally:
        watchdog.cancel()
        server.terminate()
        server.wait(timeout=30)
        server.stdout.close()
        errors.close()
    installed = home / "fitproof-env" / "lib"
    wheels = sorted(path.name for path in (clone / "dist").glob("*.whl"))
    assert [name.split("-")[0] for name in wheels] == ["fitproof", "fitproof_page"]
    assert list(installed.glob("python3*/site-packages/fitproof_page/_data/pyodide/pyodide.asm.wasm"))
