"""`fitproof serve` under load on loopback: memory and threads against a baseline in the same run.

The baseline is a plain handler (each response read whole into memory, no idle timeout,
a listen backlog of 5), built here on the same file map. Both
servers run in their own process; each gets the same clients, one after the other:

1. CLIENTS downloads of the largest Pyodide file at once, none reading (a browser tab that
   stalls): the server's peak resident memory over its idle baseline.
2. IDLE connections that send nothing: the server's thread count after a few seconds.

Loopback only, bounded in count (CLIENTS + IDLE sockets) and time (about 30 s).
Run: PYTHONPATH=py python bench/serve.py
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CLIENTS, IDLE = 100, 500

SERVER = r"""
import http.server, sys, threading
from fitproof._site import bundle, server as site_server

if sys.argv[1] == "current":
    server = site_server.make_server(0)
else:  # the plain handler: the whole file in memory per response, no timeout, backlog 5
    files = bundle.site_map()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            entry = files.get(self.path.lstrip("/"))
            body = bundle.content_of(entry) if entry is not None else b""
            self.send_response(200 if entry is not None else 404)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
files = bundle.site_map()
largest = max((path for path, entry in files.items() if not isinstance(entry, bytes)), key=lambda path: files[path].stat().st_size)
print(server.server_address[1], largest, files[largest].stat().st_size, flush=True)
server.serve_forever()
"""


def status(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise KeyError(field)


def measure(kind: str) -> dict:
    process = subprocess.Popen(
        [sys.executable, "-c", SERVER, kind],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT / "py")},
    )
    try:
        port, largest, size = process.stdout.readline().decode().split()
        port, size = int(port), int(size)
        with socket.create_connection(("127.0.0.1", port)) as warm:
            warm.sendall(b"GET /index.html HTTP/1.0\r\n\r\n")
            warm.recv(1 << 16)
        baseline = status(process.pid, "VmRSS")
        downloads = [socket.create_connection(("127.0.0.1", port), timeout=30) for _ in range(CLIENTS)]
        for client in downloads:
            client.sendall(f"GET /{largest} HTTP/1.0\r\n\r\n".encode())
        time.sleep(4)
        peak = status(process.pid, "VmHWM")
        for client in downloads:
            client.close()
        time.sleep(1)
        started = time.monotonic()
        idle = []
        for _ in range(IDLE):
            try:
                idle.append(socket.create_connection(("127.0.0.1", port), timeout=3))
            except OSError:
                break
        connect_seconds = time.monotonic() - started
        time.sleep(3)
        threads = status(process.pid, "Threads")
        for client in idle:
            client.close()
        return {
            "file": largest,
            "size": size,
            "baseline_mb": baseline / 1024,
            "peak_mb": peak / 1024,
            "threads": threads,
            "connected": len(idle),
            "connect_s": connect_seconds,
        }
    finally:
        process.kill()
        process.wait()
        process.stdout.close()


def main() -> None:
    results = {kind: measure(kind) for kind in ("before", "current")}
    before, current = results["before"], results["current"]
    print(f"{CLIENTS} stalled downloads of {current['file']} ({current['size'] / 1e6:.1f} MB), then {IDLE} idle connections")
    print(f"{'':10} {'RSS idle':>9} {'RSS peak':>9} {'growth':>8} {'threads':>8} {'connected':>10} {'connect s':>10}")
    for kind, result in results.items():
        growth = result["peak_mb"] - result["baseline_mb"]
        print(
            f"{kind:10} {result['baseline_mb']:8.0f}M {result['peak_mb']:8.0f}M {growth:7.0f}M {result['threads']:8d} "
            f"{result['connected']:10d} {result['connect_s']:10.2f}"
        )
    ratio = (before["peak_mb"] - before["baseline_mb"]) / max(current["peak_mb"] - current["baseline_mb"], 1)
    print(
        f"memory growth under the downloads: current is 1/{ratio:.0f} of before; "
        f"threads for {IDLE} idle clients: {current['threads']} against {before['threads']}"
    )


if __name__ == "__main__":
    main()
