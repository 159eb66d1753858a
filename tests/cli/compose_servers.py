"""What the `fitproof compose` test files share (test_compose.py, test_compose_settings.py,
test_compose_model_call.py, test_compose_secrets.py): the example input, the command run
in-process, the environments of a model call, and the model servers on 127.0.0.1 (ChatServer,
a well-behaved OpenAI-compatible one; and _fake_model's misbehaving ones). The test files
import the fixtures chat_server and models from here: pytest finds them by name."""

import http.server
import json
import socket
import threading

import pytest

from _fake_model import FakeModels
from cli_calls import call_cli
from conftest import ROOT

EXAMPLE = str(ROOT / "examples" / "refund-case.json")

# The key of the tests that look for it in the output: long enough that 8 of its characters shown are a leak.
SECRET = "sk-live-7f3a9c1e5b2d4f60"


def call(argv, environ=None):
    """(exit code, stdout, stderr) of ``fitproof ARGV`` with empty stdin and only ``environ`` as the environment."""
    return call_cli(argv, environ=environ)


def compose(environ):
    """``fitproof compose EXAMPLE --call-model`` in ``environ``."""
    return call(["compose", EXAMPLE, "--call-model"], environ=environ)


def model_env(base_url, **extra):
    """A model call's settings as the ChatServer tests check them arrive: the key and the model
    are plain words, asserted as sent (``Bearer sk-test``, ``Model answer (local-model)``)."""
    return {"FITPROOF_BASE_URL": base_url, "FITPROOF_API_KEY": "sk-test", "FITPROOF_MODEL": "local-model", **extra}


def model_env_secrets(base_url, **extra):
    """A model call's settings for the tests that look for the key in the output: SECRET (not
    model_env's short word, which no run of 8 characters could leak), and a 5 s deadline."""
    return {"FITPROOF_BASE_URL": base_url, "FITPROOF_API_KEY": SECRET, "FITPROOF_TIMEOUT_SECONDS": "5", **extra}


def free_port():
    """A port of 127.0.0.1 that nothing listens on (a model server that is down)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class ChatServer(http.server.BaseHTTPRequestHandler):
    behaviour = "answer"
    received = []
    released = threading.Event()

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        ChatServer.received.append((self.path, self.headers.get("Authorization"), body))
        if self.behaviour == "slow":  # no answer before the test ends (or a minute): only the client's deadline ends the call
            ChatServer.released.wait(60)
        if self.behaviour == "error":
            self._reply(500, b'{"error": "model not loaded"}')
        elif self.behaviour == "garbage":
            self._reply(200, b"<html>not json</html>")
        else:
            answer = "<think>The customer is first-time.<think>nested</think> still thinking</think>Full refund, no return shipping. [REFUND_POLICY]"
            self._reply(200, json.dumps({"choices": [{"message": {"role": "assistant", "content": answer}}]}).encode())

    def _reply(self, status, body):
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            self.wfile.write(body)
        except OSError:
            pass

    def log_message(self, *args):
        pass


@pytest.fixture
def chat_server():
    servers = []

    def start(behaviour):
        handler = type("Handler", (ChatServer,), {"behaviour": behaviour})
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}/v1"

    ChatServer.received = []
    ChatServer.released.clear()
    yield start
    ChatServer.released.set()
    for server in servers:
        server.shutdown()
        server.server_close()


@pytest.fixture
def models():
    fakes = FakeModels()
    yield fakes
    fakes.close()
