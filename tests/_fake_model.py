"""A misbehaving OpenAI-compatible model server on 127.0.0.1, for the compose tests.

Each behaviour is one way a real server (or an attacker in its place) can answer; every
request is recorded as (path, Authorization header). Loopback only, bounded in time: the
slow behaviours never end the exchange on their own before the servers are stopped (so only
the client's deadline can end the call while a test waits for it), and give up after a
minute even if the client never leaves (a client without a deadline then fails its test).
"""

from __future__ import annotations

import http.server
import json
import threading
import time

ANSWER = "<think>reasoning</think>Full refund. [REFUND_POLICY]"


def completion(content: str) -> bytes:
    return json.dumps({"choices": [{"message": {"role": "assistant", "content": content}}]}).encode()


class FakeModel(http.server.BaseHTTPRequestHandler):
    behaviour = "answer"
    redirect_to = ""
    received: list = []
    protocol_version = "HTTP/1.0"
    stopped = threading.Event()  # FakeModels.close: the slow behaviours end
    GIVE_UP_SECONDS = 60

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length)
        self.received.append((self.path, self.headers.get("Authorization")))
        getattr(self, "_" + self.behaviour.replace("-", "_"))(body)

    # ---------------------------------------------------------------- behaviours
    def _answer(self, body: bytes) -> None:
        self._reply(200, completion(ANSWER))

    def _redirect(self, body: bytes) -> None:
        self.send_response(302)
        self.send_header("Location", self.redirect_to)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _drip(self, body: bytes) -> None:
        """Headers at once, then one byte every 0.1 s: each read is quick, the whole never ends
        (the declared length is never reached)."""
        payload = completion("x" * 200)
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload) + 1_000_000))
        self.end_headers()
        give_up = time.monotonic() + self.GIVE_UP_SECONDS
        for byte in payload + b" " * 1_000_000:
            if time.monotonic() > give_up:
                return
            try:
                self.wfile.write(bytes([byte]))
                self.wfile.flush()
            except OSError:
                return
            if self.stopped.wait(0.1):
                return

    def _silent(self, body: bytes) -> None:
        """Reads the request, then says nothing and keeps the connection open."""
        self.stopped.wait(self.GIVE_UP_SECONDS)

    def _header_drip(self, body: bytes) -> None:
        """A status line, then a new header every 0.1 s: the answer's body never starts."""
        self.wfile.write(b"HTTP/1.1 200 OK\r\n")
        give_up = time.monotonic() + self.GIVE_UP_SECONDS
        try:
            while time.monotonic() < give_up:
                self.wfile.write(b"X-Padding: x\r\n")
                self.wfile.flush()
                if self.stopped.wait(0.1):
                    return
        except OSError:
            pass

    def _bad_chunks(self, body: bytes) -> None:
        """Chunked transfer encoding with a chunk size that is not a number."""
        self.wfile.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n")

    def _garbage(self, body: bytes) -> None:
        self._reply(200, b"<html>\x1b[31mnot json\x1b[0m</html>")

    def _huge(self, body: bytes) -> None:
        """11 MB of a valid-looking answer, with its length declared."""
        size = 11 * 1024 * 1024
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(size))
        self.end_headers()
        self._stream(size)

    def _huge_undeclared(self, body: bytes) -> None:
        """The same without a Content-Length: the body ends when the connection closes."""
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self._stream(11 * 1024 * 1024)

    def _stream(self, size: int) -> None:
        chunk = b" " * 65536
        try:
            for _ in range(size // len(chunk)):
                self.wfile.write(chunk)
        except OSError:
            pass

    def _echo_500(self, body: bytes) -> None:
        """An error page that echoes the request, headers (with the key) first."""
        self._reply(500, (str(self.headers) + body.decode()).encode())

    def _key(self) -> str:
        return self.headers.get("Authorization", "").removeprefix("Bearer ")

    def _echo_cut(self, body: bytes) -> None:
        """An error body over the 4 KiB the client reads, with the key across the point where
        a cut that drops one key's length from the end would fall (it kept all but one character)."""
        key = self._key()
        self._reply(500, (" " * (4097 - 2 * len(key)) + key + "x" * 500).encode())

    def _echo_tail(self, body: bytes) -> None:
        """The key starting 6 bytes before the 4 KiB the client reads: only its start is left."""
        self._reply(500, (" " * 4090 + self._key() + "x" * 500).encode())

    def _echo_cut_lines(self, body: bytes) -> None:
        """As echo-cut, the space before the key in newlines (whitespace is collapsed when shown)."""
        key = self._key()
        self._reply(500, ("\n" * (4096 - 3 * len(key) // 2) + key + "x" * 500).encode())

    def _echo_escaped(self, body: bytes) -> None:
        """The key as PHP's json_encode writes it (slashes escaped), and HTML-escaped, and in lower case."""
        import html

        key = self._key()
        self._reply(
            500, (json.dumps({"error": "bad key " + key}).replace("/", "\\/") + " <p>" + html.escape(key) + "</p> " + key.lower()).encode()
        )

    def _echo_garbage(self, body: bytes) -> None:
        self._reply(200, b"debug: Authorization: " + self.headers.get("Authorization", "").encode() + b"\n" + str(self.headers).encode())

    def _echo_answer(self, body: bytes) -> None:
        self._reply(200, completion("your key is " + self.headers.get("Authorization", "")))

    def _nested(self, body: bytes) -> None:
        depth = 100_000
        self._reply(200, b'{"choices": ' + b"[" * depth + b"]" * depth + b"}")

    def _escapes(self, body: bytes) -> None:
        self._reply(200, completion("\x1b]0;pwned\x07\x1b[2J\x1b[1;31mFull\x1b[0m refund.\r\nSecond line\tend\x9b"))

    def _error_escapes(self, body: bytes) -> None:
        self._reply(503, b"\x1b[2Joverloaded\rretry later")

    # ---------------------------------------------------------------- plumbing
    def _reply(self, status: int, payload: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        try:
            self.wfile.write(payload)
        except OSError:
            pass

    def log_message(self, *args: object) -> None:
        pass


class FakeModels:
    """Starts fake servers on 127.0.0.1 and stops them all at the end."""

    def __init__(self) -> None:
        self.servers: list = []
        self.stopped = threading.Event()

    def start(self, behaviour: str, redirect_to: str = "") -> tuple[str, list]:
        received: list = []
        handler = type(
            "Handler", (FakeModel,), {"behaviour": behaviour, "redirect_to": redirect_to, "received": received, "stopped": self.stopped}
        )
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        server.daemon_threads = True
        # A short poll, so that stopping a dozen servers takes a moment, not 0.5 s each.
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        self.servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}/v1", received

    def close(self) -> None:
        self.stopped.set()
        for server in self.servers:
            server.shutdown()
            server.server_close()
