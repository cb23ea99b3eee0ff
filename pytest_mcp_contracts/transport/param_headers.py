"""The ``Mcp-Param-*`` headers of a 2026-07-28 ``tools/call`` over Streamable HTTP, and the
header value encoding that ``Mcp-Name`` shares.

A tool's ``inputSchema`` may mark a property with ``x-mcp-header: "Region"``; a client then
mirrors that argument into an ``Mcp-Param-Region`` header, and a server that reads the body
refuses a call whose headers disagree with it (HeaderMismatch). The rules, from the
specification (basic/transports, "Custom Headers from Tool Parameters") and as the Python
SDK's ``mcp.shared.inbound`` applies them on both ends:

* an annotation counts only on a property reached from the root through ``properties`` keys
  alone; one under any other keyword (``items``, ``anyOf``, ``$defs``...) or on the root
  makes the whole schema's annotations invalid, and a client mirrors none of them (the
  server then expects none);
* the header name is an RFC 9110 token, unique across the schema regardless of case; the
  property is ``string``, ``integer`` or ``boolean`` (``number`` is not: float to text is not
  portable);
* an absent or ``null`` argument sends no header; ``true``/``false`` for booleans, ``str()``
  otherwise; a value that would not survive as a header is sent as ``=?base64?...?=``.

Written here rather than imported from the SDK, so that reaching a server over HTTP needs
no MCP SDK in the tester's environment (the server's may be any generation).
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterator, Mapping
from typing import Any, Final

ANNOTATION: Final = "x-mcp-header"
PREFIX: Final = "Mcp-Param-"

# Visible ASCII and the space: what a header value carries unchanged.
_HEADER_SAFE = re.compile(r"[\x20-\x7E]*")
_SENTINEL = re.compile(r"=\?base64\?.*\?=")
# RFC 9110 5.6.2 token: the characters an HTTP field name may have.
_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
_TYPES: Final = frozenset({"string", "integer", "boolean"})

# JSON Schema 2020-12 keywords whose values are schemas (one, a list, a map of them). Any of
# them leaves the ``properties`` chain; data keywords (``default``, ``const``, ``enum``,
# ``examples``) are not entered, and ``$ref`` is not followed.
_ONE: Final = frozenset(
    {
        "items",
        "contains",
        "unevaluatedItems",
        "additionalProperties",
        "propertyNames",
        "unevaluatedProperties",
        "not",
        "if",
        "then",
        "else",
        "contentSchema",
    }
)
_LIST: Final = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})
_MAP: Final = frozenset({"patternProperties", "dependentSchemas", "$defs", "definitions"})

HeaderMap = dict[tuple[str, ...], str]
"""An annotated property's path of ``properties`` keys -> its header's token."""


def encode_value(value: str) -> str:
    """Printable ASCII without edge whitespace as it is, anything else base64-wrapped (and
    a value that looks like the wrapper itself, so the receiver does not unwrap it)."""
    if _HEADER_SAFE.fullmatch(value) and value == value.strip() and not _SENTINEL.fullmatch(value):
        return value
    return f"=?base64?{base64.b64encode(value.encode('utf-8')).decode('ascii')}?="


def _positions(root: Any) -> Iterator[tuple[tuple[str, ...] | None, dict[str, Any]]]:
    """Every schema position of ``root`` with its ``properties`` path (``()`` for the root,
    None once another keyword was crossed). An explicit stack: a deep schema cannot overflow
    the interpreter's."""
    stack: list[tuple[tuple[str, ...] | None, Any]] = [((), root)]
    while stack:
        path, node = stack.pop()
        if not isinstance(node, dict):
            continue
        yield path, node
        for keyword, value in node.items():
            if keyword == "properties" and isinstance(value, dict):
                for name, sub in value.items():
                    stack.append(((*path, name) if path is not None else None, sub))
            elif keyword in _ONE:
                stack.append((None, value))
            elif keyword in _LIST and isinstance(value, list):
                stack.extend((None, sub) for sub in value)
            elif keyword in _MAP and isinstance(value, dict):
                stack.extend((None, sub) for sub in value.values())


def invalid_reason(input_schema: Any) -> str | None:
    """Why the schema's ``x-mcp-header`` annotations are invalid, or None when they are
    valid (or there are none)."""
    seen: dict[str, str] = {}
    for path, schema in _positions(input_schema):
        if ANNOTATION not in schema:
            continue
        if not path:  # the root itself, or off the properties chain
            return f"{ANNOTATION} at a position not reached through properties alone"
        where = ".".join(path)
        token = schema[ANNOTATION]
        if not isinstance(token, str):
            return f"property {where!r}: {ANNOTATION} must be a string"
        if not _TOKEN.fullmatch(token):
            return f"property {where!r}: {ANNOTATION} {token!r} is not an RFC 9110 token"
        kind = schema.get("type")
        if not isinstance(kind, str) or kind not in _TYPES:
            return f"property {where!r}: {ANNOTATION} on a type other than string/integer/boolean"
        if token.lower() in seen:
            return f"{ANNOTATION} {token!r} on {where!r} repeats the one on {seen[token.lower()]!r}"
        seen[token.lower()] = where
    return None


def header_map(input_schema: Any) -> HeaderMap:
    """The properties a call mirrors into headers: empty when the annotations are invalid
    (a client mirrors none of them then) or absent."""
    if invalid_reason(input_schema) is not None:
        return {}
    return {
        path: schema[ANNOTATION]
        for path, schema in _positions(input_schema)
        if path and isinstance(schema.get(ANNOTATION), str)
    }


def _rendered(value: Any) -> str | None:
    if isinstance(value, bool):
        return "true" if value else "false"
    if not isinstance(value, str | int | float):
        return None  # an object or a list: nothing to mirror
    try:
        return str(value)
    except ValueError:  # an int past the interpreter's int-to-text digit limit
        return None


def _value_at(arguments: Mapping[str, Any], path: tuple[str, ...]) -> Any:
    node: Any = arguments
    for key in path:
        if not isinstance(node, Mapping):
            return None
        node = node.get(key)
    return node


def headers_for(headers: HeaderMap, arguments: Mapping[str, Any]) -> dict[str, str]:
    """The ``Mcp-Param-*`` headers of one call: one per annotated argument it carries."""
    mirrored: dict[str, str] = {}
    for path, token in headers.items():
        value = _value_at(arguments, path)
        if value is None or (text := _rendered(value)) is None:
            continue
        mirrored[f"{PREFIX}{token}"] = encode_value(text)
    return mirrored
