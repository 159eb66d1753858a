"""Tool definitions (the request's ``tools``): read, and counted by the method OpenAI's cookbook
publishes ("How to count tokens with tiktoken", ``num_tokens_for_tools``).

Per function: ``func_init`` + the count of ``"name:description"`` (a final ``.`` of the
description dropped); when its parameters have properties, ``prop_init``, then per property
``prop_key`` + the count of ``"key:type:description"`` (final ``.`` dropped), and for an
``enum``, ``enum_init`` + per value ``enum_item`` + its count. After all functions, ``func_end``.
A property with any other schema keyword (nested ``properties``, ``items``, ``minimum``, a list
of types, ...) is beyond that method: it counts as ``prop_key`` + the count of
``"key:"`` and the property's compact JSON. Both are approximations of what OpenAI bills.
"""

from __future__ import annotations

import json
from typing import Callable

from ..._shared.shape import missing_key
from ..._base.values import INVALID_VALUE, WRONG_TYPE, Key, Problem, got, json_text, preview, unknown_keys

# (func_init, prop_init, prop_key, enum_init, enum_item, func_end), the cookbook's constants.
CONSTANTS = {"o200k_base": (7, 3, 3, -3, 3, 12), "cl100k_base": (10, 3, 3, -3, 3, 12)}
DEFAULT_CONSTANTS = CONSTANTS["o200k_base"]  # the estimate, and any other counter
_SIMPLE = frozenset(("type", "description", "enum"))


def compact(value: object) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _without_dot(text: str) -> str:
    return text[:-1] if text.endswith(".") else text


def read_tools(value: object, at: tuple[Key, ...], problems: list[Problem]) -> list[dict] | None:
    """The function definitions, or None after recording every problem."""
    if not isinstance(value, list):
        problems.append(
            Problem(
                at,
                WRONG_TYPE,
                f'expected an array of tool definitions {{"type": "function", "function": {{name, description?, parameters?}}}}, got {got(value)}',
            )
        )
        return None
    count = len(problems)
    for index, tool in enumerate(value):
        tool_at = (*at, index)
        if not isinstance(tool, dict):
            problems.append(Problem(tool_at, WRONG_TYPE, f"expected a tool definition object, got {got(tool)}"))
            continue
        problems.extend(unknown_keys(tool, tool_at, ("type", "function")))
        if tool.get("type") != "function":
            if "type" not in tool:
                problems.append(missing_key(tool_at, "type"))
            else:
                problems.append(
                    Problem(
                        (*tool_at, "type"),
                        INVALID_VALUE,
                        f'expected "function", got {preview(tool["type"])}: only function tools are counted',
                    )
                )
        function = tool.get("function")
        function_at = (*tool_at, "function")
        if "function" not in tool:
            problems.append(missing_key(tool_at, "function"))
            continue
        if not isinstance(function, dict):
            problems.append(
                Problem(function_at, WRONG_TYPE, f"expected an object {{name, description?, parameters?}}, got {got(function)}")
            )
            continue
        problems.extend(unknown_keys(function, function_at, ("name", "description", "parameters", "strict")))
        if "name" not in function:
            problems.append(missing_key(function_at, "name"))
        elif not isinstance(function["name"], str) or not function["name"]:
            problems.append(Problem((*function_at, "name"), WRONG_TYPE, f"expected a non-empty string, got {preview(function['name'])}"))
        if function.get("description") is not None and not isinstance(function["description"], str):
            problems.append(
                Problem((*function_at, "description"), WRONG_TYPE, f"expected a string, got {preview(function['description'])}")
            )
        if function.get("strict") is not None and not isinstance(function["strict"], bool):
            problems.append(Problem((*function_at, "strict"), WRONG_TYPE, f"expected true or false, got {preview(function['strict'])}"))
        parameters = function.get("parameters")
        if parameters is not None:
            if not isinstance(parameters, dict):
                problems.append(Problem((*function_at, "parameters"), WRONG_TYPE, f"expected a JSON Schema object, got {got(parameters)}"))
            elif parameters.get("properties") is not None and not isinstance(parameters["properties"], dict):
                problems.append(
                    Problem(
                        (*function_at, "parameters", "properties"),
                        WRONG_TYPE,
                        f"expected an object of properties, got {got(parameters['properties'])}",
                    )
                )
            else:
                _read_properties(parameters.get("properties") or {}, (*function_at, "parameters", "properties"), problems)
    return value if len(problems) == count else None


def _read_properties(properties: dict, at: tuple[Key, ...], problems: list[Problem]) -> None:
    """What the counting method reads of each property, by its type: ``type`` (a string, or a list
    of strings), ``description`` (a string), ``enum`` (an array), each counted as text; the rest
    of a property is counted as its compact JSON, so it must be JSON."""
    for key, schema in properties.items():
        schema_at = (*at, key)
        if not isinstance(key, str):
            problems.append(Problem(at, WRONG_TYPE, f"expected property names that are strings, got {got(key)}"))
            continue
        if isinstance(schema, dict):
            kind = schema.get("type")
            if (
                "type" in schema
                and not isinstance(kind, str)
                and not (isinstance(kind, list) and all(isinstance(one, str) for one in kind))
            ):
                problems.append(
                    Problem((*schema_at, "type"), WRONG_TYPE, f"expected a type name or a list of type names, got {preview(kind)}")
                )
            if "description" in schema and not isinstance(schema["description"], str):
                problems.append(
                    Problem((*schema_at, "description"), WRONG_TYPE, f"expected a string, got {preview(schema['description'])}")
                )
            if "enum" in schema and not isinstance(schema["enum"], list):
                problems.append(
                    Problem((*schema_at, "enum"), WRONG_TYPE, f"expected an array of the allowed values, got {preview(schema['enum'])}")
                )
        try:
            compact(schema)
        except (TypeError, ValueError, RecursionError) as error:  # from Python: a set, an object, a cycle
            problems.append(
                Problem(schema_at, WRONG_TYPE, f"expected a JSON Schema made of JSON values, got {got(schema)} ({error})"[:300])
            )


def _simple(schema: object) -> bool:
    """A property the cookbook's method counts: a type, a description and an enum of strings at most."""
    return (
        isinstance(schema, dict)
        and schema.keys() <= _SIMPLE
        and isinstance(schema.get("type", ""), str)
        and isinstance(schema.get("description", ""), str)
        and isinstance(schema.get("enum", ()), list | tuple)
        and all(isinstance(item, str) for item in schema.get("enum", ()))
    )


def tool_costs(tools: list[dict], count: Callable[[str], int], tokenizer: str) -> tuple[list[int], int]:
    """Each function's tokens, and the total with ``func_end`` (0 without tools)."""
    func_init, prop_init, prop_key, enum_init, enum_item, func_end = CONSTANTS.get(tokenizer, DEFAULT_CONSTANTS)
    costs = []
    for tool in tools:
        function = tool["function"]
        tokens = func_init + count(function["name"] + ":" + _without_dot(function.get("description") or ""))
        properties = (function.get("parameters") or {}).get("properties") or {}
        if properties:
            tokens += prop_init
            for key, schema in properties.items():
                tokens += prop_key
                if _simple(schema):
                    if "enum" in schema:
                        tokens += enum_init + sum(enum_item + count(item) for item in schema["enum"])
                    tokens += count(f"{key}:{schema.get('type', '')}:{_without_dot(schema.get('description', ''))}")
                else:
                    tokens += count(f"{key}:{compact(schema)}")
        costs.append(tokens)
    return costs, (sum(costs) + func_end if costs else 0)


def tool_name(tool: dict) -> str:
    return tool["function"]["name"]


__all__ = ["CONSTANTS", "read_tools", "tool_costs", "tool_name", "compact", "json_text"]
