import os
from pathlib import Path

from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"


def generated_table_is_current(script: str) -> None:
    """``scripts/<script> --check`` passes: the committed tables are what the generator writes now."""
    import subprocess
    import sys

    result = subprocess.run([sys.executable, str(ROOT / "scripts" / script), "--check"], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


settings.register_profile("default", max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("quick", max_examples=50, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


def signals_as_from_a_terminal() -> None:
    """A child's ``preexec_fn`` for tests that send it SIGINT, SIGTERM or SIGHUP: their default
    actions, as a command started from a terminal has them. Run in the background (``pytest &``:
    SIGINT ignored) or under ``nohup`` (SIGHUP ignored), pytest's children inherit the ignored
    signal and the test's signal never arrives."""
    import signal

    for name in ("SIGINT", "SIGTERM", "SIGHUP"):
        signal.signal(getattr(signal, name), signal.SIG_DFL)


# ---------------------------------------------------------------- browser tests
import threading  # noqa: E402

import pytest  # noqa: E402

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    """Debian's Chromium (never a downloaded one); FITPROOF_CHROMIUM names another."""
    return {
        **browser_type_launch_args,
        "executable_path": os.environ.get("FITPROOF_CHROMIUM", "/usr/bin/chromium"),
        "args": CHROMIUM_ARGS,
    }


@pytest.fixture(scope="session")
def site_url():
    """The page served by `fitproof serve` on a free port, for the whole session."""
    from fitproof._site import server as _site

    server = _site.make_server(0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()
