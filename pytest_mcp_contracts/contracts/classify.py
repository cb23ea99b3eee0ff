"""Classify: what kind of output a ``tools/call`` result carries, and the JSON in it.

A tool without an ``outputSchema`` still has an output contract in practice; this decides
whether a result holds JSON whose shape can be learned (structured content, JSON text, one
JSON text block per list item) or something that cannot (prose, binary, resources, errors).

The result is raw JSON from a server we do not trust, so nothing here assumes its shape:
``content`` that is present but not an array, and blocks that are not objects or are of
unknown type, make the result MIXED; a text block whose ``text`` is not a string is PROSE.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, NoReturn


class OutputKind(StrEnum):
    """The values are what snapshots and messages show."""

    STRUCTURED = "structured"
    JSON_TEXT = "json-text"
    JSON_ITEMS = "json-items"
    PROSE = "prose"
    BINARY = "binary"
    RESOURCE = "resource"
    ERROR = "error"
    MIXED = "mixed"
    EMPTY = "empty"


@dataclass(frozen=True)
class Classified:
    """``value`` is the JSON to learn from: structuredContent, the parsed JSON text, or for
    JSON_ITEMS the list of parsed items; None for the other kinds. ``mirrored`` is set for
    STRUCTURED only: whether a text block repeats the structured content as JSON."""

    kind: OutputKind
    value: Any = None
    mirrored: bool | None = None


_BLOCK_KINDS = {
    "image": OutputKind.BINARY,
    "audio": OutputKind.BINARY,
    "resource": OutputKind.RESOURCE,
    "resource_link": OutputKind.RESOURCE,
}


def _refuse_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not JSON")


def parse_json_text(text: object) -> dict[str, Any] | list[Any] | None:
    """The JSON object or array a text holds, else None.

    Only text starting with ``{`` or ``[`` is parsed: it keeps huge prose cheap, and a bare
    scalar ("42", "true") is too ambiguous to hold a server to. Nesting too deep for Python's
    parser reads as not JSON.
    """
    if not isinstance(text, str):
        return None
    stripped = text.strip()
    if not stripped.startswith(("{", "[")):
        return None
    try:
        value: dict[str, Any] | list[Any] = json.loads(stripped, parse_constant=_refuse_constant)
    except (ValueError, RecursionError):
        return None
    return value


def _canonical(value: Any) -> str | None:
    # json.dumps rather than ==: Python's == calls True equal to 1.
    try:
        return json.dumps(value, sort_keys=True)
    except (TypeError, ValueError, RecursionError):
        return None


_NOT_JSON = object()


def _any_json(text: object) -> Any:
    # For the mirror a bare scalar counts: "42" is the serialized JSON of 42.
    if not isinstance(text, str):
        return _NOT_JSON
    try:
        return json.loads(text, parse_constant=_refuse_constant)
    except (ValueError, RecursionError):
        return _NOT_JSON


def _is_mirrored(structured: Any, texts: list[Any]) -> bool:
    wanted = {_canonical(structured)}
    if isinstance(structured, dict) and len(structured) == 1:
        # The Python SDK wraps a non-object return as {"result": X} and writes X as text:
        # a scalar as its bare value (a string without JSON quotes), a list as one block
        # per item.
        inner = next(iter(structured.values()))
        if isinstance(inner, str) and inner in texts:
            return True
        wanted.add(_canonical(inner))
    wanted.discard(None)
    parsed = [_any_json(text) for text in texts]
    if any(_canonical(value) in wanted for value in parsed if value is not _NOT_JSON):
        return True
    return len(parsed) > 1 and _NOT_JSON not in parsed and _canonical(parsed) in wanted


def _parsed_blocks(content: list[Any]) -> list[tuple[OutputKind, Any]]:
    blocks: list[tuple[OutputKind, Any]] = []
    for block in content:
        block_type = block.get("type") if isinstance(block, Mapping) else None
        if block_type == "text":
            parsed = parse_json_text(block.get("text"))
            kind = OutputKind.PROSE if parsed is None else OutputKind.JSON_TEXT
            blocks.append((kind, parsed))
        elif isinstance(block_type, str) and block_type in _BLOCK_KINDS:
            blocks.append((_BLOCK_KINDS[block_type], None))
        else:
            blocks.append((OutputKind.MIXED, None))
    return blocks


def classify(result: Mapping[str, Any]) -> Classified:
    """Which kind of output ``result`` is, and the JSON value to learn its shape from.

    A ``structuredContent`` of null counts as absent: it is how serializers spell "none".
    """
    if result.get("isError") is True:
        return Classified(OutputKind.ERROR)
    content = result.get("content")
    structured = result.get("structuredContent")
    if structured is not None:
        texts = [
            block.get("text")
            for block in (content if isinstance(content, list) else [])
            if isinstance(block, Mapping) and block.get("type") == "text"
        ]
        return Classified(OutputKind.STRUCTURED, structured, _is_mirrored(structured, texts))
    if content is None:
        content = []
    if not isinstance(content, list):
        return Classified(OutputKind.MIXED)
    blocks = _parsed_blocks(content)
    kinds = {kind for kind, _ in blocks}
    if not kinds:
        return Classified(OutputKind.EMPTY)
    if len(kinds) > 1:
        return Classified(OutputKind.MIXED)
    (kind,) = kinds
    if kind is OutputKind.JSON_TEXT:
        if len(blocks) == 1:
            return Classified(OutputKind.JSON_TEXT, blocks[0][1])
        return Classified(OutputKind.JSON_ITEMS, [value for _, value in blocks])
    return Classified(kind)
