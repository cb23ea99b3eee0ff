"""Answers to a form elicitation: content valid for the ``requestedSchema`` a server sends.

The spec restricts that schema to a flat object of primitives (strings with an optional
format, numbers, booleans, single- and multi-select enums), so the simplest valid value of
each property is derived directly: no hypothesis run inside the reader thread that answers
the request (hypothesis may be running the contract test on the main thread meanwhile).
Anything beyond that falls back to ``examples.simplest_example``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from functools import lru_cache
from typing import Any, Final

# Valid examples of the string formats the spec allows in a requested schema.
_FORMATS: Final = {
    "email": "user@example.com",
    "uri": "https://example.com/",
    "date": "2000-01-01",
    "date-time": "2000-01-01T00:00:00Z",
}


class NoContent(ValueError):
    """No valid content could be made for this schema. A ValueError: the client
    (``transport/client.FormContent``) declines the form on one, naming why."""


def form_content(schema: Mapping[str, Any]) -> dict[str, Any]:
    """Content for every property of ``schema`` (its simplest valid value), checked against
    the schema; NoContent when there is none."""
    try:
        key = json.dumps(schema, sort_keys=True)
    except (TypeError, ValueError) as exc:
        raise NoContent(f"the requested schema is not JSON: {exc}") from None
    return dict(_cached(key))


@lru_cache(maxsize=128)
def _cached(key: str) -> tuple[tuple[str, Any], ...]:
    schema = json.loads(key)
    if not isinstance(schema, dict):
        raise NoContent("the requested schema is not an object")
    properties = schema.get("properties")
    content: dict[str, Any] = {}
    for name, sub in (properties if isinstance(properties, dict) else {}).items():
        value = _simplest(sub) if isinstance(sub, dict) else None
        if value is not None:
            content[name] = value
    if not _valid(schema, content):
        content = _from_hypothesis(schema)
    return tuple(content.items())


def _simplest(schema: Mapping[str, Any]) -> Any:
    if "default" in schema:
        return schema["default"]
    if "const" in schema:
        return schema["const"]
    enum = schema.get("enum")
    if isinstance(enum, list) and enum:
        return enum[0]
    for key in ("oneOf", "anyOf"):  # titled single-select: [{"const": ..., "title": ...}]
        options = schema.get(key)
        if isinstance(options, list) and options and isinstance(options[0], dict):
            return _simplest(options[0])
    kind = schema.get("type")
    if kind == "string":
        return _string(schema)
    if kind in ("number", "integer"):
        return _number(schema, integer=kind == "integer")
    if kind == "boolean":
        return False
    if kind == "array":
        items = schema.get("items")
        first = _simplest(items) if isinstance(items, dict) else None
        count = _whole(schema.get("minItems"), 0)
        return [] if first is None or count == 0 else [first] * count
    return None


def _string(schema: Mapping[str, Any]) -> str:
    if isinstance(schema.get("format"), str) and schema["format"] in _FORMATS:
        return _FORMATS[schema["format"]]
    low = _whole(schema.get("minLength"), 0)
    high = _whole(schema.get("maxLength"), low + 1)
    # One character rather than none: an empty answer to "your name" is valid but tells a
    # server's own checks nothing.
    return "x" * min(max(low, 1), high)


def _whole(value: Any, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _number(schema: Mapping[str, Any], *, integer: bool) -> float | int:
    low, high = schema.get("minimum"), schema.get("maximum")
    value: float = 0
    if isinstance(low, int | float) and value < low:
        value = low
    if isinstance(high, int | float) and value > high:
        value = high
    exclusive_low = schema.get("exclusiveMinimum")
    if isinstance(exclusive_low, int | float) and value <= exclusive_low:
        value = exclusive_low + 1 if integer else exclusive_low + 0.5
    if integer:
        return math.ceil(value)
    return value


def _valid(schema: Mapping[str, Any], content: Mapping[str, Any]) -> bool:
    from jsonschema import Draft202012Validator

    from pytest_mcp_contracts.schema.dialects import offline

    try:
        return bool(offline(Draft202012Validator, schema).is_valid(content))
    except Exception:  # a schema jsonschema cannot use: let the server judge the answer
        return True


def _from_hypothesis(schema: dict[str, Any]) -> dict[str, Any]:
    from pytest_mcp_contracts.inputs.examples import simplest_example
    from pytest_mcp_contracts.inputs.generate import input_strategy
    from pytest_mcp_contracts.inputs.input_schema import GenerationError

    try:
        found: dict[str, Any] = simplest_example(input_strategy(schema))
    except (GenerationError, Exception) as exc:
        raise NoContent(f"no valid content for the requested schema: {exc}") from None
    return found
