"""A top-level ``tokenizer`` in ``relevance`` and ``required``: an item may give ``content`` instead of a count.

The input the mode sees is a copy in which every item without its cost key but with a string
``content`` carries the tokenizer's count of that content; an explicit count always wins. The
caller's input is never changed, and the mode validates, selects and checks the copy as it would
any input, so every check holds against the counted costs.
"""

from __future__ import annotations

from .shape import InvalidInput
from ..tokenizers import counter, read_tokenizer
from .._base.values import Invalid, problem_from


def with_counts(data: dict, cost_key: str, input_summary: str) -> tuple[dict, str, list[str]]:
    """(the input with counted costs and no ``tokenizer`` key, the tokenizer, the ids counted)."""
    try:
        tokenizer = read_tokenizer(data["tokenizer"])
    except Invalid as error:
        raise InvalidInput([problem_from(error, ("tokenizer",))], "input shape", input_summary) from None
    count = counter(tokenizer)
    items = data.get("items")
    counted: list[str] = []
    if isinstance(items, list):
        copies = []
        for item in items:
            if isinstance(item, dict) and cost_key not in item and isinstance(item.get("content"), str):
                item = {**item, cost_key: count(item["content"])}
                if isinstance(item.get("id"), str):
                    counted.append(item["id"])
            copies.append(item)
        items = copies
    counted_input = {key: value for key, value in data.items() if key != "tokenizer"}
    if "items" in data:
        counted_input["items"] = items
    return counted_input, tokenizer, counted
