"""Raw JSON values as drift compares and prints them: equality without recursion, keys that
make values a set, a bounded rendering, and the words an unclassifiable change ends with."""

from __future__ import annotations

import json
from collections.abc import Hashable, Mapping
from typing import Any, Final

UNSOUND: Final = "(cannot be classified soundly: review it)"
_SHOW: Final = 40

MISSING: Final = object()  # absent, unlike a JSON null


def _scalar_key(value: Any) -> Hashable:
    # JSON equality: 1 == 1.0, but true != 1.
    if isinstance(value, bool):
        return ("boolean", value)
    if isinstance(value, int | float):
        return ("number", value)
    if isinstance(value, str):
        return ("string", value)
    if value is None:
        return ("null",)
    return ("other", type(value).__name__, id(value))


def value_key(value: Any) -> Hashable:
    if not isinstance(value, Mapping | list):
        return _scalar_key(value)
    try:
        return ("json", json.dumps(value, sort_keys=True))
    except (RecursionError, TypeError, ValueError):
        return ("unprintable", id(value))


def same(a: Any, b: Any) -> bool:
    """JSON equality without recursion (raw values may be nested thousands of levels)."""
    stack = [(a, b)]
    while stack:
        x, y = stack.pop()
        if x is y:
            continue
        if isinstance(x, Mapping) and isinstance(y, Mapping):
            if x.keys() != y.keys():
                return False
            stack += [(x[k], y[k]) for k in x]
        elif isinstance(x, list) and isinstance(y, list):
            if len(x) != len(y):
                return False
            stack += zip(x, y, strict=True)
        elif (
            isinstance(x, Mapping | list)
            or isinstance(y, Mapping | list)
            or _scalar_key(x) != _scalar_key(y)
        ):
            return False
    return True


def show(value: Any) -> str:
    if isinstance(value, str):
        return repr(value) if len(value) <= _SHOW else repr(value[:_SHOW]) + "..."
    try:
        text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    except (RecursionError, TypeError, ValueError):
        text = f"<{type(value).__name__}>"
    return text if len(text) <= _SHOW else text[:_SHOW] + "..."
