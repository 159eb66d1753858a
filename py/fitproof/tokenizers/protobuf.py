"""A small, bounded reader of protobuf wire format (what a SentencePiece ``.model`` file is).

Only what a message's fields need: varints (at most 10 bytes), 32- and 64-bit fixed values and
length-delimited fields, each length checked against the end of the message that holds it. A
field that is cut short, a varint that does not end, a group (wire types 3 and 4) or an unknown
wire type raises ``ProtobufError`` with the byte offset where it broke; nothing is read past the
data given, and nothing is allocated from a length before it is checked.
"""

from __future__ import annotations

import struct
from typing import Any, Iterator

from .._base.errors import FitproofError

VARINT, FIXED64, DELIMITED, FIXED32 = 0, 1, 2, 5
_FLOAT = struct.Struct("<f")


class ProtobufError(FitproofError, ValueError):
    """Malformed protobuf data: ``offset`` is the byte where it broke."""

    def __init__(self, offset: int, message: str):
        super().__init__(f"byte {offset:,}: {message}")
        self.offset = offset
        self.reason = message


def varint(data: bytes, offset: int, end: int) -> tuple[int, int]:
    """(value, offset after it) of the varint at ``offset``."""
    value = shift = 0
    start = offset
    while True:
        if offset >= end:
            raise ProtobufError(start, "a varint cut short by the end of its message")
        byte = data[offset]
        offset += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, offset
        shift += 7
        if shift >= 70:
            raise ProtobufError(start, "a varint longer than 10 bytes")


def fields(data: bytes, start: int = 0, end: int | None = None) -> Iterator[tuple[int, int, Any, int]]:
    """Each field of the message in ``data[start:end]`` as (number, wire type, value, offset): an
    int for varints and fixed values (raw bits), a (start, end) span for a length-delimited field
    (typed Any: the caller knows which from the field's number and wire type)."""
    end = len(data) if end is None else end
    offset = start
    value: int | tuple[int, int]
    while offset < end:
        at = offset
        key, offset = varint(data, offset, end)
        number, wire = key >> 3, key & 7
        if number == 0:
            raise ProtobufError(at, "a field numbered 0")
        if wire == VARINT:
            value, offset = varint(data, offset, end)
        elif wire == DELIMITED:
            length, offset = varint(data, offset, end)
            if length > end - offset:
                raise ProtobufError(at, f"field {number} says {length:,} bytes, but its message has {end - offset:,} left")
            value = (offset, offset + length)
            offset += length
        elif wire == FIXED32:
            if end - offset < 4:
                raise ProtobufError(at, f"field {number}: a 32-bit value cut short")
            value = int.from_bytes(data[offset : offset + 4], "little")
            offset += 4
        elif wire == FIXED64:
            if end - offset < 8:
                raise ProtobufError(at, f"field {number}: a 64-bit value cut short")
            value = int.from_bytes(data[offset : offset + 8], "little")
            offset += 8
        else:
            raise ProtobufError(at, f"field {number} has wire type {wire} (groups and unknown types are not read)")
        yield number, wire, value, at


def as_float(bits: int) -> float:
    """A fixed32 field's bits as the float32 they hold (as a Python float, exactly)."""
    return _FLOAT.unpack(bits.to_bytes(4, "little"))[0]


def as_bool(value: int) -> bool:
    return value != 0


def as_int32(value: int) -> int:
    """A varint as int32 (negative numbers are written as 10-byte two's complement)."""
    value &= (1 << 64) - 1
    if value >= 1 << 63:
        value -= 1 << 64
    return value
