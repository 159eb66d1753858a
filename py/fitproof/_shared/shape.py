"""Declarative validation of a mode's input: keys, fields and ids, every problem collected."""

from __future__ import annotations

import math
from typing import Callable, NamedTuple
from itertools import repeat
from operator import itemgetter

from .._base.errors import FitproofError
from .._base.ordinal import has_surrogate, identity_key
from .._base.values import (
    DUPLICATE_ID,
    JS_WHITESPACE,
    MAX_SAFE_INTEGER,
    MISSING_KEY,
    Invalid,
    Key,
    Problem,
    expect_array,
    expect_object,
    json_text,
    path_text,
    problem_from,
    read_bool,
    read_count,
    read_id,
    read_score,
    read_text,
    unknown_keys,
)

_MISSING = object()


class Field(NamedTuple):
    """One key of an object: how to read it, and what it is when absent (if optional)."""

    name: str
    read: Callable[[object], object]
    optional: bool = False
    default: object = None
    # The fast path's reader for a whole column: the values as ``read`` would give them,
    # or None when any of them needs the item-by-item reader (which reports the problem).
    column: Callable[[list], list | None] | None = None


class InvalidInput(FitproofError, ValueError):
    """Raised by a mode's parser with every problem found and how to summarise them."""

    def __init__(self, problems: list[Problem], check: str, summary: str) -> None:
        super().__init__(summary)
        self.problems = problems
        self.check = check
        self.summary = summary


def read_fields(obj: dict, at: tuple[Key, ...], fields: tuple[Field, ...], problems: list[Problem]) -> list:
    """The fields' values in declaration order; a bad or missing one becomes None and a problem."""
    values = []
    for field in fields:
        raw = obj.get(field.name, _MISSING)
        if raw is _MISSING:
            if not field.optional:
                problems.append(missing_key(at, field.name))
            values.append(field.default)
            continue
        try:
            values.append(field.read(raw))
        except Invalid as error:
            problems.append(problem_from(error, (*at, field.name)))
            values.append(None)
    return values


def missing_key(at: tuple[Key, ...], key: str, hint: str = "") -> Problem:
    return Problem(at, MISSING_KEY, f"missing required key {json_text(key)}{hint}", key)


def read_object(value: object, at: tuple[Key, ...], fields: tuple[Field, ...], problems: list[Problem]) -> list | None:
    """An object with exactly the declared keys; None when it is not an object at all."""
    try:
        obj = expect_object(value)
    except Invalid as error:
        problems.append(problem_from(error, at))
        return None
    problems.extend(unknown_keys(obj, at, tuple(field.name for field in fields)))
    return read_fields(obj, at, fields, problems)


def read_records(value: object, at: tuple[Key, ...], fields: tuple[Field, ...], problems: list[Problem]) -> list[list | None] | None:
    """An array of objects whose first field is a unique id.

    Returns one list of field values per element (None for an element that is not an
    object), or None when ``value`` is not an array. Ids are unique by exact string
    equality; a repeat is reported at the later element with the first one's path.
    """
    try:
        elements = expect_array(value)
    except Invalid as error:
        problems.append(problem_from(error, at))
        return None
    id_field = fields[0]
    assert id_field.read is read_id
    records: list[list | None] = []
    first_seen: dict[str, int] = {}
    first_text: dict[str, str] = {}
    for index, element in enumerate(elements):
        element_at = (*at, index)
        record = read_object(element, element_at, fields, problems)
        records.append(record)
        if record is None or record[0] is None:
            continue
        item_id = record[0]
        key = identity_key(item_id)
        earlier = first_seen.setdefault(key, index)
        first_text.setdefault(key, item_id)
        if earlier != index:
            same_units = (
                ""
                if first_text[key] == item_id
                else (
                    "; ids compare by UTF-16 code units, so a surrogate pair given as two code points"
                    " is the same id as the character it encodes"
                )
            )
            first = path_text((*at, earlier))
            problems.append(
                Problem(
                    (*element_at, id_field.name),
                    DUPLICATE_ID,
                    f"duplicate id {json_text(item_id)} (first used at {first}{same_units})",
                    first,
                )
            )
    return records


# ---------------------------------------------------------------- the fast path
# Large, valid inputs are the common case: check them column by column with C-level
# builtins (map, set, min, max) instead of item by item. Any doubt sends the input to
# read_records, which finds and reports every problem; both paths accept exactly the
# same inputs (tests/package/shared/test_shape.py compares them).


# Each check is given the column and the set of its values' types (one pass for both).
def _ids_ok(values: list, types: set) -> bool:
    return (
        types <= {str}
        and all(map(str.strip, values, repeat(JS_WHITESPACE)))
        and len(set(values)) == len(values)
        and not has_surrogate(values)  # ids are equal by UTF-16 code units: read_records compares them so
    )


def _counts_ok(values: list, types: set) -> bool:
    return not values or (types <= {int} and min(values) >= 0 and max(values) <= MAX_SAFE_INTEGER)


def _scores_ok(values: list, types: set) -> bool:
    if not types <= {int, float}:
        return False
    try:
        return all(map(math.isfinite, map(float, values)))
    except OverflowError:  # an integer too large for a double
        return False


def _texts_ok(values: list, types: set) -> bool:
    return types <= {str}


def _bools_ok(values: list, types: set) -> bool:
    return types <= {bool}


_COLUMN_CHECKS: dict[Callable[[object], object], Callable[[list, set], bool]] = {
    read_id: _ids_ok,
    read_count: _counts_ok,
    read_score: _scores_ok,
    read_text: _texts_ok,
    read_bool: _bools_ok,
}
_ABSENT = object()


# From this many values on, equal integers (counts, and scores given as integers) become one
# object each. A long column is read in rank or trace order many times (the rule, the trace
# rows, the checks); its ints, one object per item spread through the parsed input, then
# miss the cache on every read, while a few hundred shared ones stay in it (relevance and
# required at 100,000 items: 5-13 % faster). Shorter columns fit in the cache anyway.
# Floats are left as they are: 0.0 and -0.0 are equal but are written differently.
SHARE_INTEGERS_FROM = 4096
# Only a column that repeats its values gains: when the first SHARE_SAMPLE values hold more
# than SHARE_DISTINCT distinct ones, the column is left as it is (sharing mostly distinct
# values would build a dict as long as the column for nothing: ~8.6 MB at 100,000 items).
SHARE_SAMPLE = 4096
SHARE_DISTINCT = 1024


def _shared(values: list) -> list:
    """The same values, equal ones as one object (the first of them)."""
    first: dict = {}
    return list(map(first.setdefault, values, values))


def _read_column(field: Field, values: list) -> list | None:
    if field.column is not None:
        return field.column(values)
    check = _COLUMN_CHECKS.get(field.read)
    if check is None:
        return None
    types = set(map(type, values))
    if not check(values, types):
        return None
    if (
        len(values) >= SHARE_INTEGERS_FROM
        and (field.read is read_count or (field.read is read_score and types == {int}))
        and len(set(values[:SHARE_SAMPLE])) <= SHARE_DISTINCT
    ):
        return _shared(values)
    return values


def fast_columns(elements: object, fields: tuple[Field, ...]) -> list[list] | None:
    """Each field's values as a column, or None when anything needs a closer look."""
    if not isinstance(elements, list) or not set(map(type, elements)) <= {dict}:
        return None
    count = len(elements)
    total_keys = sum(map(len, elements))
    required_keys = count * sum(1 for field in fields if not field.optional)
    columns, expected_keys = [], 0
    try:
        for field in fields:
            if not field.optional:
                column = _read_column(field, list(map(itemgetter(field.name), elements)))
                if column is None:
                    return None
                expected_keys += count
            elif total_keys == required_keys:  # no element has any optional key
                column = [field.default] * count
            else:
                column = list(map(dict.get, elements, repeat(field.name), repeat(_ABSENT)))
                absent = column.count(_ABSENT)
                expected_keys += count - absent
                if absent == count:
                    column = [field.default] * count
                else:
                    present: list | None
                    present = column if not absent else [value for value in column if value is not _ABSENT]
                    present = _read_column(field, present)
                    if present is None:
                        return None
                    if absent:  # the values read, in their places, and the default elsewhere
                        values = iter(present)
                        column = [field.default if value is _ABSENT else next(values) for value in column]
                    else:
                        column = present
            columns.append(column)
    except KeyError:  # a required key is missing somewhere
        return None
    if total_keys != expected_keys:  # some element has a key no field declares
        return None
    return columns


def in_element(problem: Problem, list_key: str) -> bool:
    """Whether the problem is inside an element of the top-level array ``list_key``."""
    return len(problem.at) >= 2 and problem.at[0] == list_key and isinstance(problem.at[1], int)


class InputShape(NamedTuple):
    """A mode's input: top-level fields, one of which (``list_key``) is an array of objects."""

    top: tuple[Field, ...]
    list_key: str
    item: tuple[Field, ...]
    input_summary: str
    item_check: str
    item_summary: str


def read_input(
    data: object, shape: InputShape, more_checks: Callable[[list, list[Problem]], None] | None = None
) -> tuple[list, list[list]]:
    """The top-level field values and the array's columns (one list per item field).

    Every problem is collected first; ``more_checks(top_values, problems)`` adds a mode's
    own rules across fields. Problems only inside the array's elements are summarised as
    ``shape.item_check``, any other as ``input shape``.
    """
    problems: list[Problem] = []
    top = read_object(data, (), shape.top, problems)
    if top is None:
        raise InvalidInput(problems, "input shape", shape.input_summary)
    if more_checks is not None:
        more_checks(top, problems)
    assert isinstance(data, dict)  # read_object read it as an object (once per input)
    columns = None
    if shape.list_key in data:
        elements = data[shape.list_key]
        columns = fast_columns(elements, shape.item)
        if columns is None:
            records = read_records(elements, (shape.list_key,), shape.item, problems)
            if not problems:
                columns = [list(column) for column in zip(*records)] if records else [[] for _ in shape.item]
    if problems:
        if all(in_element(problem, shape.list_key) for problem in problems):
            raise InvalidInput(problems, shape.item_check, shape.item_summary)
        raise InvalidInput(problems, "input shape", shape.input_summary)
    assert columns is not None  # no problems: list_key is a required top field, so its array was read
    return top, columns
