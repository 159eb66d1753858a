"""The site compressed: which files gain from gzip, and the gzip of each, made once.

``serve`` answers with these bytes when the request's Accept-Encoding allows gzip;
``build-site`` writes them beside the files as ``NAME.gz``, which nginx (``gzip_static``),
Caddy (``precompressed``), Apache (with its documented rewrite) and npm's ``http-server -g``
send in place of the file to a browser that accepts them.
"""

from __future__ import annotations

import gzip
import threading
from pathlib import Path

# What gains from gzip: text and WebAssembly (Pyodide's .wasm shrinks from 9.6 to 3.5 MB).
# Already compressed files are left alone: python_stdlib.zip (its members are deflated), the
# snapshot (.gz), images.
COMPRESSIBLE_SUFFIXES = (".html", ".js", ".mjs", ".css", ".json", ".wasm", ".svg", ".txt", ".py", ".tiktoken")
# Below this, the gzip header and the Content-Encoding line cost about what they save.
MIN_BYTES = 1024
# serve compresses while it runs (level 6: half the time of 9 for 0.5 % more bytes);
# build-site once for good (level 9).
SERVE_LEVEL = 6
BUILD_LEVEL = 9


def compressible(url_path: str, size: int) -> bool:
    return size >= MIN_BYTES and url_path.endswith(COMPRESSIBLE_SUFFIXES)


def gzipped(data: bytes, level: int) -> bytes:
    """Deterministic (no file name, modification time 0): the same file always gives the same bytes."""
    return gzip.compress(data, compresslevel=level, mtime=0)


def accepts_gzip(accept_encoding: str | None) -> bool:
    """Whether an Accept-Encoding header allows gzip (RFC 9110: named with q > 0, or ``*`` with
    q > 0 and gzip not named; an unreadable weight counts as a refusal)."""
    if not accept_encoding:
        return False
    weights: dict[str, float] = {}
    for part in accept_encoding.split(","):
        name, *parameters = part.split(";")
        weight = 1.0
        for parameter in parameters:
            key, _, value = parameter.partition("=")
            if key.strip().lower() == "q":
                try:
                    weight = float(value.strip())
                except ValueError:
                    weight = 0.0
        if name.strip():
            weights[name.strip().lower()] = weight
    for name in ("gzip", "x-gzip"):
        if name in weights:
            return weights[name] > 0
    return weights.get("*", 0.0) > 0


class GzipCache:
    """Each compressible entry of a site map gzipped once per process (per content: a file of
    the checkout edited while ``serve`` runs is compressed again), on first request or ahead of
    it by ``warm``; requests for the same file wait for the one compression."""

    def __init__(self, level: int = SERVE_LEVEL) -> None:
        self.level = level
        self._lock = threading.Lock()
        self._made: dict[str, tuple[object, threading.Event, list[bytes | None]]] = {}

    @staticmethod
    def _version(entry: Path | bytes) -> tuple[int, int]:
        if isinstance(entry, bytes):
            return id(entry), len(entry)
        stat = entry.stat()
        return stat.st_size, stat.st_mtime_ns

    def get(self, url_path: str, entry: Path | bytes) -> bytes | None:
        """The gzip of ``entry``, or None when it does not gain from gzip (or cannot be read)."""
        try:
            version = self._version(entry)
            size = len(entry) if isinstance(entry, bytes) else version[0]
        except OSError:
            return None
        if not compressible(url_path, size):
            return None
        with self._lock:
            made = self._made.get(url_path)
            mine = made is None or made[0] != version
            if mine:
                made = (version, threading.Event(), [None])
                self._made[url_path] = made
        assert made is not None  # found, or made just now
        _, done, result = made
        if mine:
            try:
                data = entry if isinstance(entry, bytes) else entry.read_bytes()
                packed = gzipped(data, self.level)
                result[0] = packed if len(packed) < len(data) else None
            except OSError:
                result[0] = None
            finally:
                done.set()
        done.wait()
        return result[0]

    def warm(self, files: dict[str, Path | bytes], prefixes: tuple[str, ...]) -> threading.Thread:
        """Compresses the files under ``prefixes`` (what every visit loads), largest first, on a
        background thread (zlib lets go of the GIL meanwhile), so the first visit after ``serve``
        starts finds them ready; the rest is compressed when first asked for."""
        chosen = [(url_path, entry) for url_path, entry in files.items() if url_path.startswith(prefixes)]

        def run() -> None:
            for url_path, entry in sorted(chosen, key=lambda item: -_size(item[1])):
                self.get(url_path, entry)

        thread = threading.Thread(target=run, name="gzip-warm", daemon=True)
        thread.start()
        return thread


def _size(entry: Path | bytes) -> int:
    try:
        return len(entry) if isinstance(entry, bytes) else entry.stat().st_size
    except OSError:
        return 0
