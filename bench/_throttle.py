"""A throttling TCP proxy on 127.0.0.1 for bench/page.py: a slow link in front of a local server.

Chromium's network emulation throttles the page's own requests but not those of its workers,
which carry Pyodide; this proxy slows every connection instead. All of them share one
downstream rate (a token bucket, in chunks taken in turn), and each request the browser sends
reaches the server ``latency`` seconds late (one round trip). It counts the bytes it passes
back, in all and by the request they answer (HTTP/1.1 without pipelining: a connection's bytes
after a request line belong to that request).
"""

from __future__ import annotations

import asyncio
import collections
import re
import threading

CHUNK = 16 * 1024
_REQUEST_LINE = re.compile(rb"^(GET|HEAD|POST|PUT|DELETE|OPTIONS|PATCH) (\S+) HTTP/1\.[01]\r\n")


class ThrottlingProxy:
    """``with ThrottlingProxy(upstream_port, bits_per_second, latency) as proxy: proxy.url``."""

    def __init__(self, upstream_port: int, bits_per_second: float = 20e6, latency: float = 0.040) -> None:
        self.upstream_port = upstream_port
        self.rate = bits_per_second / 8  # bytes per second
        self.latency = latency
        self.port = 0
        self.bytes_down = 0
        self.by_path: collections.Counter[str] = collections.Counter()
        self.requests: list[str] = []
        self._next_free = 0.0  # when the shared link is free again (loop time)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._ready = threading.Event()
        self._tasks: set = set()  # the connections' tasks, held (asyncio keeps only weak references)
        self._thread = threading.Thread(target=self._run, name="throttle", daemon=True)

    # ------------------------------------------------------------ the bench's side
    def __enter__(self) -> "ThrottlingProxy":
        self._thread.start()
        self._ready.wait(10)
        return self

    def __exit__(self, *exc) -> None:
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(10)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def reset(self) -> None:
        """Zero the counters (between visits): read them with ``counted()``."""
        self.bytes_down = 0
        self.by_path = collections.Counter()
        self.requests = []

    # ------------------------------------------------------------ the proxy
    def _run(self) -> None:
        asyncio.run(self._main())

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        server = await asyncio.start_server(self._connection, "127.0.0.1", 0)
        self.port = server.sockets[0].getsockname()[1]
        self._ready.set()
        async with server:
            await self._stop.wait()

    async def _take(self, size: int) -> None:
        """Wait for ``size`` bytes' turn on the shared link."""
        loop = asyncio.get_running_loop()
        start = max(loop.time(), self._next_free)
        self._next_free = start + size / self.rate
        delay = self._next_free - loop.time()
        if delay > 0:
            await asyncio.sleep(delay)

    async def _connection(self, client_reader, client_writer) -> None:
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection("127.0.0.1", self.upstream_port)
        except OSError:
            client_writer.close()
            return
        current = {"path": "?"}
        queue: asyncio.Queue = asyncio.Queue()

        async def read_requests() -> None:
            loop = asyncio.get_running_loop()
            while data := await client_reader.read(CHUNK):
                match = _REQUEST_LINE.match(data)
                path = match.group(2).decode("latin-1") if match else None
                if path is not None:
                    self.requests.append(path)
                queue.put_nowait((loop.time() + self.latency, data, path))
            queue.put_nowait(None)

        async def send_requests() -> None:
            loop = asyncio.get_running_loop()
            while (item := await queue.get()) is not None:
                due, data, path = item
                if due > loop.time():
                    await asyncio.sleep(due - loop.time())
                if path is not None:
                    current["path"] = path
                upstream_writer.write(data)
                await upstream_writer.drain()
            upstream_writer.write_eof()

        async def send_answers() -> None:
            while data := await upstream_reader.read(CHUNK):
                await self._take(len(data))
                self.bytes_down += len(data)
                self.by_path[current["path"]] += len(data)
                client_writer.write(data)
                await client_writer.drain()
            client_writer.close()

        tasks = [asyncio.create_task(job()) for job in (read_requests, send_requests, send_answers)]
        self._tasks.update(tasks)
        try:
            # Done when the answers end (the server or the browser closed the connection).
            await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            self._tasks.difference_update(tasks)
            for writer in (client_writer, upstream_writer):
                writer.close()
