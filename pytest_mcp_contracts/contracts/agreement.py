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
- a text block that is, character for character, the string ``structuredContent`` holds (or
  its one value): a ``-> str`` tool that returns a JSON document, such as a file's text;
- the text blocks in order, one per item, equal that list (``structuredContent`` or its one
  value): MCPServer writes a list one block per item, strings without JSON quotes;
- ``structuredContent`` (or its one value) is the content blocks themselves, their texts
  those of the text blocks: FastMCP in ``mcp`` 1.x renders a tool that returns a list of
  ``TextContent`` as ``{"result": [{"type": "text", "text": ...}]}``, the SDK's rendering of
  the content, not data of the tool's.

A text block that is not a JSON object or array (prose, a bare scalar, a Python repr) is
never compared. Values compare as JSON: 1 and 1.0 are the same number, ``true`` is not 1. A
key missing from the text agrees when ``structuredContent`` has null there or the default
the ``outputSchema`` declares for it, and a key only in the text agrees when the
``outputSchema`` neither declares nor forbids it: MCPServer fills a model's defaults into the
structured content of a tool that returns a dict, drops the keys the model does not know,
and writes the dict as it was into the text.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from pytest_mcp_contracts.contracts.classify import parse_json_text
from pytest_mcp_contracts.schema.dialects import dialect_of
from pytest_mcp_contracts.schema.paths import child_path
from pytest_mcp_contracts.schema.refs import RefIndex
from pytest_mcp_contracts.text import json_text

MAX_PATHS: Final = 10
_MAX_DEPTH: Final = 50


def text_contradiction(
    result: Mapping[str, Any], output_schema: object = None
) -> tuple[Any, list[str]] | None:
    """None when the result's text agrees with its structured content (or holds no JSON to
    compare); else the text's JSON that disagrees and the paths where it differs, for the
    closest reading (the whole structured content or its one value)."""
    structured = result.get("structuredContent")
    content = result.get("content")
    if structured is None or not isinstance(content, list):
        return None
    texts = _texts(content)
    parsed = [value for value in map(parse_json_text, texts) if value is not None]
    if not parsed or _is_the_content(structured, texts):
        return None
    schema = _Schema(output_schema)
    readings = _readings(structured, schema)
    if _mirrored(texts, parsed, readings, schema):
        return None
    first = parsed[0]
    # The reading of the text's own kind first (an array against {"result": [...]}'s list),
    # or item by item when there is a block per item.
    own = [r for r in readings if _kind(r[0]) == _kind(first)] or readings
    candidates = [
        _item_differences(texts, reading, node, schema)
        for reading, node in readings
        if isinstance(reading, list) and len(reading) == len(texts)
    ]
    candidates += [schema.differences(first, *reading) for reading in own]
    return first, min((c for c in candidates if c), key=len)


def mirrors(result: Mapping[str, Any], output_schema: object = None) -> bool:
    """Whether a JSON text block of the result (or a block per item) says what its
    structuredContent says, by the rules above."""
    structured = result.get("structuredContent")
    texts = _texts(result.get("content"))
    parsed = [value for value in map(parse_json_text, texts) if value is not None]
    schema = _Schema(output_schema)
    return structured is not None and _mirrored(
        texts, parsed, _readings(structured, schema), schema
    )


def _is_the_content(structured: Any, texts: list[str]) -> bool:
    """Whether ``structured`` (or its one value) is a list of content blocks whose texts are
    ``texts``: the content rendered again, which cannot contradict it."""
    if isinstance(structured, Mapping) and len(structured) == 1:
        structured = next(iter(structured.values()))
    if not isinstance(structured, list) or not structured:
        return False
    blocks = [b for b in structured if isinstance(b, Mapping) and isinstance(b.get("type"), str)]
    return len(blocks) == len(structured) and _texts(blocks) == texts


def _texts(content: object) -> list[str]:
    return [
        block["text"]
        for block in (content if isinstance(content, list) else [])
        if isinstance(block, Mapping)
        and block.get("type") == "text"
        and isinstance(block.get("text"), str)
    ]


def _readings(structured: Any, schema: _Schema) -> list[tuple[Any, Any]]:
    """What a text may mirror: the structured content, or the one value of a single-key
    one; each with the part of the schema that describes it."""
    readings = [(structured, schema.root)]
    if isinstance(structured, dict) and len(structured) == 1:
        key, inner = next(iter(structured.items()))
        readings.append((inner, schema.child(schema.root, key)))
    return readings


def _mirrored(
    texts: list[str], parsed: list[Any], readings: list[tuple[Any, Any]], schema: _Schema
) -> bool:
    # A string written as it is: a `-> str` tool returning a JSON document (a file's text)
    # has {"result": "<the document>"} and the document itself as its text.
    if any(isinstance(reading, str) and reading in texts for reading, _ in readings):
        return True
    if any(schema.agrees(value, *reading) for value in parsed for reading in readings):
        return True
    return any(_items_agree(texts, reading, node, schema) for reading, node in readings)


def same(left: Any, right: Any) -> bool:
    """Equal as JSON values: numbers by value, booleans only to booleans."""
    return _NO_SCHEMA.agrees(left, right, None)


class _Schema:
    """The outputSchema, walked beside the values for the defaults of missing keys."""

    def __init__(self, schema: object) -> None:
        self.root = schema if isinstance(schema, dict) else None
        self._index: RefIndex | None = None

    def agrees(self, text: Any, structured: Any, node: Any) -> bool:
        return not self.differences(text, structured, node, limit=1)

    def differences(
        self, text: Any, structured: Any, node: Any, *, limit: int = MAX_PATHS
    ) -> list[str]:
        """Where ``text`` differs from ``structured`` (described by ``node``, a part of the
        schema): a path and both values per line."""
        walk = _Walk(self, limit)
        walk.diff(text, structured, "$", 0, node)
        return walk.found

    def child(self, node: Any, key: str) -> Any:
        properties = (self._structure(node) or {}).get("properties")
        return properties.get(key) if isinstance(properties, dict) else None

    def undeclared(self, node: Any, key: str) -> bool:
        """Whether ``key`` is one the schema neither declares nor forbids: a model drops
        it from structuredContent (pydantic ignores extra keys) while the text keeps it."""
        structure = self._structure(node)
        if structure is None:
            return False
        properties = structure.get("properties")
        declared = isinstance(properties, dict) and key in properties
        return not declared and structure.get("additionalProperties", True) is not False

    def items(self, node: Any) -> Any:
        items = (self._structure(node) or {}).get("items")
        return items if isinstance(items, dict) else None

    def _structure(self, node: Any, depth: int = 0) -> Mapping[str, Any] | None:
        """The object or array schema ``node`` stands for: through ``$ref``s, and the branch
        with structure of an ``anyOf`` (pydantic writes ``Optional[Model]`` that way)."""
        if not isinstance(node, dict) or depth > 20 or self.root is None:
            return None
        if "properties" in node or "items" in node:
            return node
        if "$ref" in node:
            if self._index is None:
                self._index = RefIndex(self.root, dialect_of(self.root))
            target = self._index.find(node["$ref"], node)
            return self._structure(target.schema, depth + 1) if target is not None else None
        for key in ("anyOf", "oneOf", "allOf"):
            branches = node.get(key)
            for branch in branches if isinstance(branches, list) else ():
                found = self._structure(branch, depth + 1)
                if found is not None:
                    return found
        return None


_NO_SCHEMA: Final = _Schema(None)


@dataclass
class _Walk:
    """One comparison: where it is in the schema, and the differences found so far."""

    schema: _Schema
    limit: int
    found: list[str] = field(default_factory=list)

    def diff(self, text: Any, structured: Any, path: str, depth: int, node: Any) -> None:
        if len(self.found) >= self.limit:
            return
        if depth > _MAX_DEPTH:
            # Too deep to walk (a hostile server can nest for ever): compared as serialized.
            if _serialized(text) != _serialized(structured):
                self.found.append(
                    f"{path}: differs below this point (nested too deep to show where)"
                )
            return
        kind = _kind(text)
        if kind != _kind(structured):
            self.found.append(
                f"{path}: the text has {_shown(text)}, structuredContent {_shown(structured)}"
            )
        elif kind == "object":
            self._object(text, structured, path, depth, node)
        elif kind == "array":
            if len(text) != len(structured):
                self.found.append(
                    f"{path}: the text has {len(text)} items, structuredContent {len(structured)}"
                )
                return
            item = self.schema.items(node)
            for index, (left, right) in enumerate(zip(text, structured, strict=True)):
                self.diff(left, right, f"{path}[{index}]", depth + 1, item)
        elif text != structured:
            self.found.append(
                f"{path}: the text has {_shown(text)}, structuredContent {_shown(structured)}"
            )

    def _object(
        self, text: dict[str, Any], structured: dict[str, Any], path: str, depth: int, node: Any
    ) -> None:
        for key in [*text, *(k for k in structured if k not in text)]:
            where = child_path(path, str(key))
            child = self.schema.child(node, key)
            if key not in structured:
                if not self.schema.undeclared(node, key):
                    self.found.append(f"{where}: only in the text ({json_text(text[key], 60)})")
            elif key not in text:
                if not _filled_in(structured[key], child):
                    self.found.append(
                        f"{where}: missing from the text (structuredContent has "
                        f"{json_text(structured[key], 60)})"
                    )
            else:
                self.diff(text[key], structured[key], where, depth + 1, child)
            if len(self.found) >= self.limit:
                return


def _filled_in(value: Any, node: Any) -> bool:
    """Whether a key the text leaves out is one the structured content has only as null or
    as the schema's default for it."""
    if value is None:
        return True
    return isinstance(node, dict) and "default" in node and same(node["default"], value)


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


def _serialized(value: Any) -> str | None:
    try:
        return json.dumps(value, sort_keys=True)
    except (ValueError, RecursionError):
        return None  # nothing to tell them apart by: not a contradiction


def _items_agree(texts: list[str], reading: Any, node: Any, schema: _Schema) -> bool:
    if not isinstance(reading, list) or len(reading) != len(texts) or not texts:
        return False
    item = schema.items(node)
    return all(
        _item_agrees(text, value, item, schema) for text, value in zip(texts, reading, strict=True)
    )


def _item_differences(
    texts: list[str], reading: list[Any], node: Any, schema: _Schema
) -> list[str]:
    item = schema.items(node)
    found = []
    for index, (text, value) in enumerate(zip(texts, reading, strict=True)):
        if not _item_agrees(text, value, item, schema):
            parsed = parse_json_text(text)
            shown = (
                schema.differences(parsed, value, item)
                if parsed is not None
                else [f"$: the text has {json_text(text, 60)}, structuredContent {_shown(value)}"]
            )
            found += [f"$[{index}]{line[1:]}" for line in shown]
    return found[:MAX_PATHS]


def _item_agrees(text: str, item: Any, node: Any, schema: _Schema) -> bool:
    if isinstance(item, str) and text == item:
        return True
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return False
    return schema.agrees(value, item, node)
