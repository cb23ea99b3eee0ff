"""JSON paths as reports print them: ``$.items[0].price``, ``$["odd key"]``, ``$.items[]``.

One renderer for every path a person reads (validation errors, inferred contracts, drift,
schema summaries); JSON pointers, which resolve, live in ``schema/refs``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any


def child_path(parent: str, key: str) -> str:
    """``$.name`` for identifier keys, ``$["odd key"]`` otherwise."""
    if key.isidentifier():
        return f"{parent}.{key}"
    return f"{parent}[{json.dumps(key, ensure_ascii=False)}]"


def items_path(parent: str) -> str:
    """``$.items[]``: every element of the array at ``parent``."""
    return f"{parent}[]"


def values_path(parent: str) -> str:
    """``$.env{}``: every value of the map at ``parent``."""
    return f"{parent}{{}}"


def json_path(path: Iterable[Any]) -> str:
    """``$.items[0].price`` for a jsonschema error's ``absolute_path``."""
    out = "$"
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        elif isinstance(part, str):
            out = child_path(out, part)
        else:
            out += f"[{json.dumps(part, ensure_ascii=False)}]"
    return out
