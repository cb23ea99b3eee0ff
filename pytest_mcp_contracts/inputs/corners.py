"""A schema's simplest valid value and its corners: the values of an ``inputSchema`` worth
a call, each with the rest of the input at its simplest.

``simplest_value`` is the value shrinking moves toward (required properties only, shortest
strings and arrays, 0 or the bound nearest to it). The corners are every ``enum``/``const``
value, every ``anyOf``/``oneOf`` branch and type, ``null``, both booleans, numeric bounds
(``inputs/number_corners``), strings and arrays at their length bounds, a value for each
``format`` and ``pattern`` (``inputs/pattern_example``), each optional property absent and
present, and a large value where a string or array has no upper bound. Both work on a
draft-07 schema without ``$ref``s, bounded by ``SIMPLEST_DEPTH`` and ``CORNER_DEPTH``; the
coverage plan (``inputs/coverage``) chooses among the corners.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from pytest_mcp_contracts.inputs.number_corners import is_number, number_corners
from pytest_mcp_contracts.inputs.pattern_example import pattern_example
from pytest_mcp_contracts.schema.budgets import CORNER_DEPTH, SIMPLEST_DEPTH
from pytest_mcp_contracts.schema.document import (
    implied_types,
    value_key,
    with_branch,
    with_conjuncts,
)
from pytest_mcp_contracts.text import shorten

__all__ = [
    "FORMAT_VALUES",
    "Corner",
    "NoSimplestValue",
    "object_corners",
    "simplest_object",
    "simplest_value",
]

#: Values of one enum considered at most: a 100,000-value enum must not cost 100,000 inputs
#: (the budget would cut them anyway); the rest is reported as not visited.
MAX_VALUES_PER_DIMENSION = 256
#: Strings and arrays longer than this are not built at their maximum length.
MAX_LENGTH = 10_000
#: Large values sent where the schema sets no upper bound: a 64 KiB string and 1,000 items
#: (numbers: ``number_corners.LARGE_INTEGERS``). Nothing in the schema refuses them, so a
#: client may send them; a server that hangs or dies on one fails like on any other input.
LARGE_STRING = 64 * 1024
LARGE_ARRAY = 1_000

#: A fixed, valid value per format (jsonschema checks these formats when it can).
FORMAT_VALUES: dict[str, str] = {
    "date-time": "2000-01-01T00:00:00Z",
    "date": "2000-01-01",
    "time": "00:00:00Z",
    "duration": "P1D",
    "email": "user@example.com",
    "idn-email": "user@example.com",
    "hostname": "example.com",
    "idn-hostname": "example.com",
    "ipv4": "127.0.0.1",
    "ipv6": "::1",
    "uri": "https://example.com/",
    "uri-reference": "/",
    "iri": "https://example.com/",
    "iri-reference": "/",
    "uri-template": "https://example.com/{id}",
    "uuid": "00000000-0000-4000-8000-000000000000",
    "json-pointer": "/a",
    "relative-json-pointer": "0",
    "regex": "^a$",
}


class NoSimplestValue(Exception):
    """No value satisfies the sub-schema as far as ``simplest_value`` can tell."""


@dataclass(frozen=True)
class Corner:
    """One corner of the input space: ``path`` is the property (``a.b``, ``a[]`` for array
    items; ``""`` for the root), ``kind`` what sort of corner, ``label`` which one."""

    path: str
    kind: str
    label: str

    def __str__(self) -> str:
        where = self.path or "(input)"
        return f"{where}: {self.kind} {self.label}".rstrip()

    @property
    def top(self) -> str:
        """The top-level property the corner belongs to (pairs combine two of them)."""
        return self.path.split(".", 1)[0].split("[", 1)[0]


def simplest_value(schema: Any, depth: int = 0) -> Any:
    """The simplest value valid for ``schema`` (required properties only, shortest strings and
    arrays, 0 or the bound nearest to it); raises NoSimplestValue when none can be told."""
    if schema is True or schema == {}:
        return None
    if not isinstance(schema, dict) or depth > SIMPLEST_DEPTH:
        raise NoSimplestValue
    if "const" in schema:
        return schema["const"]
    if isinstance(schema.get("enum"), list):
        if not schema["enum"]:
            raise NoSimplestValue
        return schema["enum"][0]
    for keyword in ("anyOf", "oneOf"):
        if isinstance(schema.get(keyword), list):
            for branch in schema[keyword]:
                try:
                    return simplest_value(with_branch(schema, branch, keyword), depth + 1)
                except NoSimplestValue:
                    continue
            raise NoSimplestValue
    if isinstance(schema.get("allOf"), list):
        merged = with_conjuncts(schema)
        return simplest_value(merged, depth + 1)
    types = implied_types(schema)
    if not types:
        return None
    for kind in types:
        try:
            return _simplest_of_type(schema, kind, depth)
        except NoSimplestValue:
            continue
    raise NoSimplestValue


def _simplest_of_type(schema: dict[str, Any], kind: str, depth: int) -> Any:
    if kind == "null":
        return None
    if kind == "boolean":
        return False
    if kind in ("integer", "number"):
        values = number_corners(schema, kind)
        if values.simplest is None:
            raise NoSimplestValue
        return values.simplest
    if kind == "string":
        return _simplest_string(schema)
    if kind == "array":
        count = _int(schema.get("minItems"), 0)
        if count == 0:
            return []
        if count > MAX_LENGTH:
            raise NoSimplestValue
        items = schema.get("items")
        if isinstance(items, list):
            fixed = [simplest_value(s, depth + 1) for s in items[:count]]
            extra = schema.get("additionalItems", True)
            while len(fixed) < count:
                fixed.append(simplest_value(extra, depth + 1))
            return fixed
        if schema.get("uniqueItems") and count > 1:
            distinct = _distinct_values(items if items is not None else True, count, depth)
            return distinct
        return [simplest_value(items if items is not None else True, depth + 1)] * count
    if kind == "object":
        return simplest_object(schema, depth)
    raise NoSimplestValue


def simplest_object(schema: dict[str, Any], depth: int) -> dict[str, Any]:
    properties = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    assert isinstance(properties, dict)
    value: dict[str, Any] = {}
    required = [r for r in schema.get("required", []) or [] if isinstance(r, str)]
    for name in required:
        sub = properties.get(name, schema.get("additionalProperties", True))
        value[name] = simplest_value(sub if sub is not False else True, depth + 1)
    wanted = _int(schema.get("minProperties"), 0)
    for name, sub in properties.items():
        if len(value) >= wanted:
            break
        if name not in value:
            value[name] = simplest_value(sub, depth + 1)
    return value


def _distinct_values(items: Any, count: int, depth: int) -> list[Any]:
    found: list[Any] = []
    seen: set[str] = set()
    for _corner, value in _corners(items, "", depth + 1):
        if value_key(value) not in seen:
            seen.add(value_key(value))
            found.append(value)
        if len(found) == count:
            return found
    raise NoSimplestValue


def _int(value: Any, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _simplest_string(schema: dict[str, Any]) -> str:
    fmt = schema.get("format")
    if isinstance(fmt, str) and fmt in FORMAT_VALUES:
        return FORMAT_VALUES[fmt]
    pattern = schema.get("pattern")
    if isinstance(pattern, str):
        found = pattern_example(pattern)
        if found is None:
            raise NoSimplestValue
        return found
    low = _int(schema.get("minLength"), 0)
    if low > MAX_LENGTH:
        raise NoSimplestValue
    return "a" * low


# --------------------------------------------------------------------------- corners


def _corners(schema: Any, path: str, depth: int) -> Iterator[tuple[Corner, Any]]:
    """Each corner of ``schema`` with a value for it (the rest at its simplest)."""
    if not isinstance(schema, dict) or depth > CORNER_DEPTH:
        return
    if "const" in schema:
        yield Corner(path, "const", _shown(schema["const"])), schema["const"]
        return
    if isinstance(schema.get("enum"), list):
        for value in schema["enum"][:MAX_VALUES_PER_DIMENSION]:
            yield Corner(path, "enum", _shown(value)), value
        return
    for keyword in ("anyOf", "oneOf"):
        if isinstance(schema.get(keyword), list):
            for index, branch in enumerate(schema[keyword]):
                merged = with_branch(schema, branch, keyword)
                try:
                    yield (
                        Corner(path, "branch", f"{keyword}[{index}]"),
                        simplest_value(merged, depth),
                    )
                except NoSimplestValue:
                    continue
                yield from _corners(merged, path, depth + 1)
            return
    if isinstance(schema.get("allOf"), list):
        merged = with_conjuncts(schema)
        yield from _corners(merged, path, depth + 1)
        return
    types = implied_types(schema)
    several = len(types) > 1
    for kind in types:
        if several:
            try:
                yield Corner(path, "type", kind), _simplest_of_type(schema, kind, depth)
            except NoSimplestValue:
                continue
        yield from _type_corners(schema, kind, path, depth)


def _type_corners(
    schema: dict[str, Any], kind: str, path: str, depth: int
) -> Iterator[tuple[Corner, Any]]:
    if kind == "null":
        yield Corner(path, "null", ""), None
    elif kind == "boolean":
        yield Corner(path, "boolean", "false"), False
        yield Corner(path, "boolean", "true"), True
    elif kind in ("integer", "number"):
        for corner_kind, label, value in number_corners(schema, kind).corners:
            yield Corner(path, corner_kind, label), value
    elif kind == "string":
        yield from _string_corners(schema, path)
    elif kind == "array":
        yield from _array_corners(schema, path, depth)
    elif kind == "object":
        try:
            base = simplest_object(schema, depth)
        except NoSimplestValue:
            return
        yield from object_corners(schema, base, path, depth)


def _string_corners(schema: dict[str, Any], path: str) -> Iterator[tuple[Corner, Any]]:
    fmt = schema.get("format")
    if isinstance(fmt, str) and fmt in FORMAT_VALUES:
        yield Corner(path, "format", fmt), FORMAT_VALUES[fmt]
        return
    pattern = schema.get("pattern")
    if isinstance(pattern, str):
        found = pattern_example(pattern)
        if found is not None:
            yield Corner(path, "pattern", _shown(pattern)), found
        return  # the pattern decides the lengths
    low = _int(schema.get("minLength"), 0)
    high = schema.get("maxLength")
    if low == 0:
        yield Corner(path, "empty", '""'), ""
    elif low <= MAX_LENGTH:
        yield Corner(path, "minLength", str(low)), "a" * low
    if isinstance(high, int) and high != low and 0 < high <= MAX_LENGTH:
        yield Corner(path, "maxLength", str(high)), "a" * high
    if high is None and low < LARGE_STRING:
        yield Corner(path, "large", f"{LARGE_STRING} characters"), "a" * LARGE_STRING


def _array_corners(schema: dict[str, Any], path: str, depth: int) -> Iterator[tuple[Corner, Any]]:
    low = _int(schema.get("minItems"), 0)
    high = schema.get("maxItems")
    items = schema.get("items", True)
    if isinstance(items, list):  # a tuple: its lengths are what matters
        items_schema: Any = schema.get("additionalItems", True)
    else:
        items_schema = items
    tail_refused = items_schema is False
    try:
        base = simplest_value(schema, depth)
    except NoSimplestValue:
        return
    if low == 0:
        yield Corner(path, "minItems" if "minItems" in schema else "empty", "0"), []
    else:
        yield Corner(path, "minItems", str(low)), base
    if isinstance(high, int) and high != low and 0 < high <= MAX_LENGTH:
        try:
            filler = simplest_value(items_schema, depth + 1)
            tail = [filler] * (high - len(base))
            yield Corner(path, "maxItems", str(high)), [*base, *tail]
        except NoSimplestValue:
            pass
    if high is None and low < LARGE_ARRAY and not (isinstance(items, list) and tail_refused):
        large = _large_array(schema, base, items_schema, depth)
        if large is not None:
            yield Corner(path, "large", f"{LARGE_ARRAY} items"), large
    if isinstance(items, dict):
        # Each corner of the items, as the first item of the shortest non-empty array.
        for corner, value in _corners(items, f"{path}[]", depth + 1):
            rest = base[1:] if base else []
            yield corner, [value, *rest]


def _large_array(
    schema: dict[str, Any], base: list[Any], items_schema: Any, depth: int
) -> list[Any] | None:
    """``base`` filled up to LARGE_ARRAY items with the simplest item, or, under
    ``uniqueItems``, with distinct simple items (numbers counted up from the simplest, strings
    numbered); None when no such filler can be told (the re-check drops a wrong one)."""
    try:
        filler = simplest_value(items_schema, depth + 1)
    except NoSimplestValue:
        return None
    count = LARGE_ARRAY - len(base)
    if not schema.get("uniqueItems"):
        return [*base, *([filler] * count)]
    if isinstance(filler, bool) or not isinstance(filler, int | float | str):
        return None
    step = items_schema.get("multipleOf", 1) if isinstance(items_schema, dict) else 1
    step = step if is_number(step) and step > 0 else 1
    # Distinct values beside the base's: the base has at most a few items.
    taken = {value_key(v) for v in base}
    varied: list[Any] = []
    for index in range(count + len(base)):
        value = f"{filler}{index}" if isinstance(filler, str) else filler + index * step
        if value_key(value) not in taken:
            taken.add(value_key(value))
            varied.append(value)
        if len(varied) == count:
            return [*base, *varied]
    return None


def object_corners(
    schema: dict[str, Any], base: dict[str, Any], path: str, depth: int
) -> Iterator[tuple[Corner, Any]]:
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return
    required = set(schema.get("required", []) or [])
    prefix = f"{path}." if path else ""
    for name, sub in properties.items():
        where = f"{prefix}{name}"
        if name not in required:
            yield Corner(where, "absent", ""), {k: v for k, v in base.items() if k != name}
            try:
                present = simplest_value(sub, depth + 1)
            except NoSimplestValue:
                continue
            yield Corner(where, "present", ""), {**base, name: present}
        for corner, value in _corners(sub, where, depth + 1):
            yield corner, {**base, name: value}


def _shown(value: Any) -> str:
    return shorten(json.dumps(value, default=repr), 40)
