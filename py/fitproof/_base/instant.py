"""ISO-8601 date-times with an offset, read as exact instants (no float, no lost digits)."""

from __future__ import annotations

import re
from typing import NamedTuple
from datetime import date

from .values import WRONG_TYPE, Invalid, preview

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


# Days in each month of a common year (index 1 = January); February has 29 in leap years.
_MONTH_DAYS = (0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def read_instant(value: object) -> Instant:
    if not isinstance(value, str):
        raise Invalid(f"expected an ISO-8601 date-time with an offset or Z, got {preview(value)}", WRONG_TYPE)
    match = _DATE_TIME.match(value)
    if match is None:
        raise Invalid(f"expected an ISO-8601 date-time with an offset or Z (like 2026-03-13T13:18:00Z), got {preview(value)}")
    year_text, month_text, day_text, hour_text, minute_text, second_text, fraction, zulu, sign, offset_hours, offset_minutes = (
        match.groups()
    )
    year, month, day = int(year_text), int(month_text), int(day_text)
    # Our own words, not the date library's: its messages differ between Python versions,
    # and the page (Pyodide's Python) must say exactly what the CLI says.
    if not (1 <= year and 1 <= month <= 12):
        raise Invalid(f"not a calendar date (year from 0001, month 01 to 12), got {preview(value)}")
    leap = month == 2 and year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    days_in_month = _MONTH_DAYS[month] + leap
    if not 1 <= day <= days_in_month:
        raise Invalid(f"not a calendar date ({year_text}-{month_text} has {days_in_month} days), got {preview(value)}")
    hour, minute, second = int(hour_text), int(minute_text), int(second_text) if second_text else 0
    if hour > 23 or minute > 59 or second > 59:
        raise Invalid(f"time of day out of range, got {preview(value)}")
    offset = 0
    if not zulu:
        if int(offset_hours) > 23 or int(offset_minutes) > 59:
            raise Invalid(f"offset out of range, got {preview(value)}")
        offset = (int(offset_hours) * 3600 + int(offset_minutes) * 60) * (1 if sign == "+" else -1)
    seconds = (date(year, month, day).toordinal() - 1) * _DAY_SECONDS + hour * 3600 + minute * 60 + second - offset
    if not 0 <= seconds < _LAST_SECOND:
        raise Invalid(f"outside the years 0001 to 9999 once converted to UTC, got {preview(value)}")
    nanoseconds = seconds * 1_000_000_000 + (int(fraction.ljust(9, "0")) if fraction else 0)
    return Instant(nanoseconds, value)


_LAST_SECOND = date.max.toordinal() * _DAY_SECONDS
