"""Agreement: whether a result's JSON text says what its ``structuredContent`` says.

The spec asks a tool that returns structured content to serialize it into a text block too,
for clients that read only text. When that text is JSON holding other data, two clients get
two answers. Python ``mcp`` 2.3 produces exactly this: it coerces a tool's output into valid
structured content (``"252.50"`` becomes ``252.5``) but writes the raw value into the text.

These shapes agree; where a text block is JSON and none of them holds, the text
contradicts the structured content:

- a text block whose JSON equals ``structuredContent``;
- a text block whose JSON equals the one value of a single-key ``structuredContent``:
  MCPServer wraps a non-object return as ``{"result": x}`` and writes ``x``; servers put a
  bare array in the text beside ``{"entities": [...]}``;
- the text blocks in order, one per item, equal that list (``structuredContent`` or its one
  value): MCPServer writes a list one block per item, strings without JSON quotes.

A text block that is not a JSON object or array (prose, a bare scalar, a Python repr) is
never compared. Values compare as JSON: 1 and 1.0 are the same number, ``true`` is not 1.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

from pytest_mcp_contracts.checks.classify import parse_json_text
from pytest_mcp_contracts.schema.paths import child_path
from pytest_mcp_contracts.text import json_text

MAX_PATHS: Final = 10
_MAX_DEPTH: Final = 50


def text_contradiction(result: Mapping[str, Any]) -> tuple[Any, list[str]] | None:
    """None when the result's text agrees with its structured content (or holds no JSON to
    compare); else the text's JSON that disagrees and the paths where it differs, for the
    closest reading (the whole structured content or its one value)."""
    structured = result.get("structuredContent")
    content = result.get("content")
    if structured is None or not isinstance(content, list):
        return None
    texts = [
        block["text"]
        for block in content
        if isinstance(block, Mapping)
        and block.get("type") == "text"
        and isinstance(block.get("text"), str)
    ]
    parsed = [value for value in map(parse_json_text, texts) if value is not None]
    if not parsed:
        return None
    readings = [structured]
    if isinstance(structured, dict) and len(structured) == 1:
        readings.append(next(iter(structured.values())))
    if any(same(value, reading) for value in parsed for reading in readings):
        return None
    if any(_items_agree(texts, reading) for reading in readings):
        return None
    first = parsed[0]
    # The reading of the text's own kind first (an array against {"result": [...]}'s list).
    own = [reading for reading in readings if _kind(reading) == _kind(first)] or readings
    diffs = min((differences(first, reading) for reading in own), key=len)
    return first, diffs


def same(left: Any, right: Any) -> bool:
    """Equal as JSON values: numbers by value, booleans only to booleans."""
    return not differences(left, right, limit=1)


def differences(text: Any, structured: Any, *, limit: int = MAX_PATHS) -> list[str]:
    """Where ``text`` differs from ``structured``: a path and both values per line."""
    found: list[str] = []
    _diff(text, structured, "$", found, limit, 0)
    return found


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if value is None:
        return "null"
    return "array" if isinstance(value, list) else "object" if isinstance(value, dict) else "?"


def _shown(value: Any) -> str:
    return f"{json_text(value, 60)} ({_kind(value)})"


def _diff(text: Any, structured: Any, path: str, found: list[str], limit: int, depth: int) -> None:
    if len(found) >= limit:
        return
    if depth > _MAX_DEPTH:
        # Too deep to walk (a hostile server can nest for ever): compared as serialized.
        if _serialized(text) != _serialized(structured):
            found.append(f"{path}: differs below this point (nested too deep to show where)")
        return
    kind = _kind(text)
    if kind != _kind(structured):
        found.append(f"{path}: the text has {_shown(text)}, structuredContent {_shown(structured)}")
    elif kind == "object":
        for key in [*text, *(k for k in structured if k not in text)]:
            where = child_path(path, str(key))
            if key not in structured:
                found.append(f"{where}: only in the text ({json_text(text[key], 60)})")
            elif key not in text:
                found.append(
                    f"{where}: missing from the text (structuredContent has "
                    f"{json_text(structured[key], 60)})"
                )
            else:
                _diff(text[key], structured[key], where, found, limit, depth + 1)
            if len(found) >= limit:
                return
    elif kind == "array":
        if len(text) != len(structured):
            found.append(
                f"{path}: the text has {len(text)} items, structuredContent {len(structured)}"
            )
            return
        for index, (left, right) in enumerate(zip(text, structured, strict=True)):
            _diff(left, right, f"{path}[{index}]", found, limit, depth + 1)
    elif text != structured:
        found.append(f"{path}: the text has {_shown(text)}, structuredContent {_shown(structured)}")


def _serialized(value: Any) -> str | None:
    try:
        return json.dumps(value, sort_keys=True)
    except (ValueError, RecursionError):
        return None  # nothing to tell them apart by: not a contradiction


def _items_agree(texts: list[str], reading: Any) -> bool:
    if not isinstance(reading, list) or len(reading) != len(texts) or not texts:
        return False
    return all(_item_agrees(text, item) for text, item in zip(texts, reading, strict=True))


def _item_agrees(text: str, item: Any) -> bool:
    if isinstance(item, str) and text == item:
        return True
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return False
    return same(value, item)
