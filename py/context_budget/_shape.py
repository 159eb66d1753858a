"""Declarative validation of a mode's input: keys, fields and ids, every problem collected."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ._values import (
    Invalid,
    Problem,
    child_path,
    expect_array,
    expect_object,
    json_text,
    read_id,
    unknown_key_problems,
)

_MISSING = object()


@dataclass(frozen=True)
class Field:
    """One key of an object: how to read it, and what it is when absent (if optional)."""

    name: str
    read: Callable[[object], object]
    optional: bool = False
    default: object = None


class InvalidInput(Exception):
    """Raised by a mode's parser with every problem found and how to summarise them."""

    def __init__(self, problems: list[Problem], check: str, summary: str) -> None:
        super().__init__(summary)
        self.problems = problems
        self.check = check
        self.summary = summary


def read_fields(obj: dict, path: str, fields: tuple[Field, ...], problems: list[Problem]) -> list:
    """The fields' values in declaration order; a bad or missing one becomes None and a problem."""
    values = []
    for field in fields:
        raw = obj.get(field.name, _MISSING)
        if raw is _MISSING:
            if not field.optional:
                problems.append(Problem(path, f"missing required key {json_text(field.name)}"))
            values.append(field.default)
            continue
        try:
            values.append(field.read(raw))
        except Invalid as error:
            problems.append(Problem(child_path(path, field.name), str(error)))
            values.append(None)
    return values


def read_object(value: object, path: str, fields: tuple[Field, ...], problems: list[Problem]) -> list | None:
    """An object with exactly the declared keys; None when it is not an object at all."""
    try:
        obj = expect_object(value)
    except Invalid as error:
        problems.append(Problem(path, str(error)))
        return None
    problems.extend(unknown_key_problems(obj, path, tuple(field.name for field in fields)))
    return read_fields(obj, path, fields, problems)


def read_records(value: object, path: str, fields: tuple[Field, ...], problems: list[Problem]) -> list[list] | None:
    """An array of objects whose first field is a unique id.

    Returns one list of field values per element (None for an element that is not an
    object), or None when ``value`` is not an array. Ids are unique by exact string
    equality; a repeat is reported at the later element with the first one's path.
    """
    try:
        elements = expect_array(value)
    except Invalid as error:
        problems.append(Problem(path, str(error)))
        return None
    id_field = fields[0]
    assert id_field.read is read_id
    records: list[list] = []
    first_seen: dict[str, int] = {}
    for index, element in enumerate(elements):
        element_path = child_path(path, index)
        record = read_object(element, element_path, fields, problems)
        records.append(record)
        if record is None or record[0] is None:
            continue
        item_id = record[0]
        earlier = first_seen.setdefault(item_id, index)
        if earlier != index:
            problems.append(
                Problem(
                    child_path(element_path, id_field.name),
                    f"duplicate id {json_text(item_id)} (first used at {child_path(path, earlier)})",
                )
            )
    return records
