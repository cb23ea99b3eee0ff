"""A field's limits, as a client must meet them: in a summary's words (``limit_notes``:
``1..100``, ``length ≤ 64``, ``1..5 items``) and, for machines, every field's by path
(``limits``).
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Mapping
from typing import Any, Final

from pytest_mcp_contracts.schema.field_walker import Walker
from pytest_mcp_contracts.text import shorten

VALUE_WIDTH: Final = 40


def limits(schema: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every field's limits, breadth-first, bounded like a summary: ``{"path": "$.limit",
    "minimum": 1, "maximum": 100}``, ``{"path": "$.sort", "enumSize": 3}``."""
    walker = Walker(schema)
    found = []
    queue = deque([walker.root])
    while queue:
        node = queue.popleft()
        view = walker.view(node)
        bounds = dict(view.limits)
        if view.enum_count:
            bounds["enumSize"] = view.enum_count
        if bounds:
            found.append({"path": node.path, **bounds})
        queue.extend(walker.children(node))
    return found


def limit_notes(bounds: Mapping[str, Any]) -> list[str]:
    """A value's limits in a summary's words: ``1..100``, ``length ≤ 64``, ``1..5 items``."""
    notes = []
    lower = _bound(bounds, "minimum", "≥", "exclusiveMinimum", ">")
    upper = _bound(bounds, "maximum", "≤", "exclusiveMaximum", "<")
    notes += _range("", lower, upper, "")
    if "multipleOf" in bounds:
        notes.append(f"multiple of {_number(bounds['multipleOf'])}")
    notes += _range("length ", _bound(bounds, "minLength", "≥"), _bound(bounds, "maxLength", "≤"))
    if "pattern" in bounds:
        notes.append(f"pattern {shorten(bounds['pattern'], VALUE_WIDTH)}")
    notes += _range("", _bound(bounds, "minItems", "≥"), _bound(bounds, "maxItems", "≤"), " items")
    if bounds.get("uniqueItems") is True:
        notes.append("unique items")
    keys = (_bound(bounds, "minProperties", "≥"), _bound(bounds, "maxProperties", "≤"))
    notes += _range("", *keys, " keys")
    return notes


def _bound(
    bounds: Mapping[str, Any], inclusive: str, sign: str, exclusive: str = "", strict: str = ""
) -> tuple[str, Any] | None:
    """The tighter of a bound's inclusive and exclusive keywords, with its sign: ("≥", 1)
    or (">", 0); at an equal value the exclusive one is the tighter."""
    found = [(sign, bounds[inclusive])] if inclusive in bounds else []
    if exclusive in bounds:
        found.append((strict, bounds[exclusive]))
    if not found:
        return None
    if sign == "≥":
        return max(found, key=lambda bound: (bound[1], bound[0] == strict))
    return min(found, key=lambda bound: (bound[1], bound[0] != strict))


def _range(
    prefix: str, lower: tuple[str, Any] | None, upper: tuple[str, Any] | None, unit: str = ""
) -> list[str]:
    if lower is None and upper is None:
        return []
    if lower and upper and lower[0] == "≥" and upper[0] == "≤":
        return [f"{prefix}{_number(lower[1])}..{_number(upper[1])}{unit}"]
    parts = [f"{bound[0]} {_number(bound[1])}" for bound in (lower, upper) if bound]
    return [f"{prefix}{', '.join(parts)}{unit}"]


def _number(value: Any) -> str:
    return json.dumps(value)
