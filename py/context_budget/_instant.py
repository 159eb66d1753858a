"""ISO-8601 date-times with an offset, read as exact instants (no float, no lost digits)."""

from __future__ import annotations

import calendar
import re
from typing import NamedTuple
from datetime import date

from ._values import Invalid, preview

# [0-9], not \d: in Python \d also matches full-width and Arabic-Indic digits, which the
# schema's pattern (and a JavaScript port) refuses.
_DATE_TIME = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt]([0-9]{2}):([0-9]{2})(?::([0-9]{2})(?:\.([0-9]{1,9}))?)?(?:([Zz])|([+-])([0-9]{2}):([0-9]{2}))\Z"
)
_DAY_SECONDS = 86_400


class Instant(NamedTuple):
    """Nanoseconds since 0001-01-01T00:00Z; ``text`` is the value as given."""

    nanoseconds: int
    text: str = ""

    def utc_text(self) -> str:
        """The instant in UTC as .NET's round-trip ("O") format writes it: 7 fractional digits, +00:00."""
        seconds, nanos = divmod(self.nanoseconds, 10**9)
        days, seconds = divmod(seconds, _DAY_SECONDS)
        day = date.fromordinal(days + 1)
        hours, seconds = divmod(seconds, 3600)
        minutes, seconds = divmod(seconds, 60)
        fraction = f"{nanos:09d}"
        fraction = fraction[:7] if fraction[7:] == "00" else fraction
        return f"{day.isoformat()}T{hours:02d}:{minutes:02d}:{seconds:02d}.{fraction}+00:00"


def read_instant(value: object) -> Instant:
    if not isinstance(value, str):
        raise Invalid(f"expected an ISO-8601 date-time with an offset or Z, got {preview(value)}")
    match = _DATE_TIME.match(value)
    if match is None:
        raise Invalid(f"expected an ISO-8601 date-time with an offset or Z (like 2026-03-13T13:18:00Z), got {preview(value)}")
    year, month, day, hour, minute, second, fraction, zulu, sign, offset_hours, offset_minutes = match.groups()
    # Our own words, not the date library's: its messages differ between Python versions,
    # and the page (Pyodide's Python) must say exactly what the CLI says.
    if not (1 <= int(year) and 1 <= int(month) <= 12):
        raise Invalid(f"not a calendar date (year from 0001, month 01 to 12), got {preview(value)}")
    days_in_month = calendar.monthrange(int(year), int(month))[1]
    if not 1 <= int(day) <= days_in_month:
        raise Invalid(f"not a calendar date ({year}-{month} has {days_in_month} days), got {preview(value)}")
    ordinal = date(int(year), int(month), int(day)).toordinal() - 1
    if int(hour) > 23 or int(minute) > 59 or int(second or 0) > 59:
        raise Invalid(f"time of day out of range, got {preview(value)}")
    offset = 0
    if not zulu:
        if int(offset_hours) > 23 or int(offset_minutes) > 59:
            raise Invalid(f"offset out of range, got {preview(value)}")
        offset = (int(offset_hours) * 3600 + int(offset_minutes) * 60) * (1 if sign == "+" else -1)
    seconds = ordinal * _DAY_SECONDS + int(hour) * 3600 + int(minute) * 60 + int(second or 0) - offset
    if not 0 <= seconds < date.max.toordinal() * _DAY_SECONDS:
        raise Invalid(f"outside the years 0001 to 9999 once converted to UTC, got {preview(value)}")
    nanoseconds = seconds * 10**9 + int((fraction or "").ljust(9, "0"))
    return Instant(nanoseconds, value)
