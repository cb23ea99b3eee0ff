"""Content: what a resource read or a prompt get returns, as the value a content contract is
learned from (``contracts/observe.EntryObservations`` folds it in).

Prompts, JSON resources and resource templates get inferred content contracts with the
quality levels and flap rules of tool outputs (``contracts/observe``, ``contracts/infer``):
these functions only turn their results into the JSON the inference sees.

- A read result (``resources/read``) is JSON when its text parses as a JSON object or array,
  or, under a ``mimeType`` of ``application/json`` or ``*+json``, as any JSON value. One
  entry of ``contents`` is that value; several are the list of them. Its kind (json-text,
  prose, binary) is counted as a tool output's is, so a JSON resource that starts returning
  prose is breaking drift.
- A prompt result (``prompts/get``) becomes an object with one key per content block,
  ``message<n>_<role>_<type>`` (``message2_assistant_text``), holding the block: its message
  count, roles and block types are the object's keys, so a message gone, a role changed or
  a text turned image is a property missing (breaking, once established) and one more
  message a new property (additive). A prompt of ``infer.MAP_MANY_KEYS`` blocks or more is
  learned as a map (keys that are data): its count and roles are then not held.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

from pytest_mcp_contracts.contracts.classify import Classified, OutputKind, parse_json_text

_JSON_MIME_SUFFIX: Final = "+json"
_JSON_MIME: Final = "application/json"


def _json_mime(mime: Any) -> bool:
    if not isinstance(mime, str):
        return False
    essence = mime.split(";", 1)[0].strip().lower()
    return essence == _JSON_MIME or essence.endswith(_JSON_MIME_SUFFIX)


def _entry_kind(entry: Any) -> tuple[OutputKind, Any]:
    """One ``contents`` entry's kind and, for JSON, its value."""
    if not isinstance(entry, Mapping):
        return OutputKind.MIXED, None
    text = entry.get("text")
    if isinstance(text, str):
        parsed: Any = parse_json_text(text)
        if parsed is None and _json_mime(entry.get("mimeType")):
            try:
                parsed = json.loads(text)
            except (ValueError, RecursionError):
                parsed = None
        return (OutputKind.PROSE, None) if parsed is None else (OutputKind.JSON_TEXT, parsed)
    if isinstance(entry.get("blob"), str):
        return OutputKind.BINARY, None
    return OutputKind.MIXED, None


def read_classified(result: Mapping[str, Any]) -> Classified:
    """What kind of content a ``resources/read`` result holds, and its JSON value."""
    contents = result.get("contents")
    if not isinstance(contents, list):
        return Classified(OutputKind.MIXED)
    if not contents:
        return Classified(OutputKind.EMPTY)
    entries = [_entry_kind(entry) for entry in contents]
    kinds = {kind for kind, _ in entries}
    if len(kinds) > 1:
        return Classified(OutputKind.MIXED)
    (kind,) = kinds
    if kind is not OutputKind.JSON_TEXT:
        return Classified(kind)
    if len(entries) == 1:
        return Classified(OutputKind.JSON_TEXT, entries[0][1])
    return Classified(OutputKind.JSON_ITEMS, [value for _, value in entries])


def read_observable(result: Mapping[str, Any]) -> Any | None:
    """The JSON a read result holds (the value its content contract is learned from), or
    None when it holds none: prose, binary, or a malformed result (``judges/content_results``
    judges that)."""
    return read_classified(result).value


def _word(value: Any) -> str:
    return value if isinstance(value, str) and value else "unknown"


def prompt_observable(result: Mapping[str, Any]) -> dict[str, Any] | None:
    """A ``prompts/get`` result as the object its content contract is learned from (see the
    module's docstring), or None when it has no ``messages`` array."""
    messages = result.get("messages")
    if not isinstance(messages, list):
        return None
    value: dict[str, Any] = {}
    for number, message in enumerate(messages, start=1):
        message = message if isinstance(message, Mapping) else {}
        role = _word(message.get("role"))
        content = message.get("content")
        # One block per message in the spec; a list of them is read block by block.
        blocks = content if isinstance(content, list) else [content]
        for index, block in enumerate(blocks, start=1):
            kind = _word(block.get("type") if isinstance(block, Mapping) else None)
            suffix = f"_{index}" if len(blocks) > 1 else ""
            value[f"message{number}_{role}_{kind}{suffix}"] = block
    return value
