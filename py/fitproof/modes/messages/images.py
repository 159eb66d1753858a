"""Images in a chat message: their size read from a ``data:`` URL's header (PNG, JPEG, GIF, WebP,
standard library only) and their cost by OpenAI's published tile rule for the GPT-4o family.

``detail: "low"`` costs 85. Otherwise the image is scaled down to fit 2048 x 2048, then down so
that its shorter side is at most 768, and costs 85 + 170 per 512-pixel tile it then covers
(1024 x 1024 -> 765, 2048 x 4096 -> 1105). An image whose size is not known (a remote URL
without this tool's own ``size`` key) counts as the most a high-detail image can cost.
The scaling is exact (rational numbers), so every runtime gives the same count.
"""

from __future__ import annotations

import binascii
import struct
from fractions import Fraction
from math import ceil

LOW_DETAIL = BASE = 85
PER_TILE = 170
TILE = 512
FIT, SHORT_SIDE = 2048, 768
MOST = BASE + PER_TILE * 8  # 1445: e.g. 768 x 2048 after scaling covers 2 x 4 tiles
# A header is near the start; a JPEG's frame header can follow its metadata (EXIF, ICC), so
# more is decoded for it, but never a whole large image.
HEADER_CHARS = 1 << 20
DETAILS = ("auto", "low", "high", "original")


def tile_cost(width: int, height: int, detail: str = "auto") -> int:
    if detail == "low":
        return LOW_DETAIL
    w, h = Fraction(width), Fraction(height)
    if max(w, h) > FIT:
        scale = FIT / max(w, h)
        w, h = w * scale, h * scale
    if min(w, h) > SHORT_SIDE:
        scale = SHORT_SIDE / min(w, h)
        w, h = w * scale, h * scale
    return BASE + PER_TILE * ceil(w / TILE) * ceil(h / TILE)


def data_url_size(url: str) -> tuple[int, int] | None:
    """``(width, height)`` from a base64 ``data:image/...`` URL's header, or None when it cannot be read."""
    if not url.startswith("data:"):
        return None
    head, comma, body = url.partition(",")
    if not comma or not head.endswith(";base64"):
        return None
    body = body[:HEADER_CHARS]
    body = body[: len(body) - len(body) % 4]
    try:
        data = binascii.a2b_base64(body)
    except ValueError:  # binascii.Error is one
        return None
    return image_size(data)


def image_size(data: bytes) -> tuple[int, int] | None:
    """The size a PNG, GIF, WebP or JPEG header states, or None."""
    size = None
    if data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR" and len(data) >= 24:
        size = struct.unpack(">II", data[16:24])
    elif data[:6] in (b"GIF87a", b"GIF89a") and len(data) >= 10:
        size = struct.unpack("<HH", data[6:10])
    elif data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        size = _webp_size(data)
    elif data[:2] == b"\xff\xd8":
        size = _jpeg_size(data)
    if size is None or size[0] <= 0 or size[1] <= 0:
        return None
    return int(size[0]), int(size[1])


def _webp_size(data: bytes) -> tuple[int, int] | None:
    chunk = data[12:16]
    if chunk == b"VP8 " and len(data) >= 30 and data[23:26] == b"\x9d\x01\x2a":
        width, height = struct.unpack("<HH", data[26:30])
        return width & 0x3FFF, height & 0x3FFF
    if chunk == b"VP8L" and len(data) >= 25 and data[20] == 0x2F:
        bits = int.from_bytes(data[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8X" and len(data) >= 30:
        return int.from_bytes(data[24:27], "little") + 1, int.from_bytes(data[27:30], "little") + 1
    return None


# Start-of-frame markers: every SOFn but DHT (C4), JPG (C8) and DAC (CC).
_FRAMES = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    at = 2
    while at + 4 <= len(data):
        if data[at] != 0xFF:
            return None
        marker = data[at + 1]
        if marker == 0xFF:  # fill byte
            at += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:  # markers without a length
            at += 2
            continue
        length = int.from_bytes(data[at + 2 : at + 4], "big")
        if marker in _FRAMES:
            if at + 9 > len(data):
                return None
            height, width = struct.unpack(">HH", data[at + 5 : at + 9])
            return width, height
        if marker == 0xDA or length < 2:  # the scan starts: no frame header before it
            return None
        at += 2 + length
    return None
