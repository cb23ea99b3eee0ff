"""Infer: learn a JSON Schema from the outputs a tool returned, and spot drift from it.

Most tools declare no outputSchema, so the plugin learns one from what it observes and keeps
it in a reviewable snapshot. A learned contract must not flap between runs, so it claims
only what every observation agreed on: types, which properties were always present, item
shapes, and a string format only when every string had it. Never enums, lengths or ranges:
a sample cannot tell a limit from a coincidence.

A snapshot is ``(shape.to_schema(), shape.seen())``; ``Shape.from_record`` reads it back.
Hostile outputs are bounded: MAX_DEPTH levels, MAX_ITEMS elements per array and
MAX_PROPERTIES keys per object (the first in sorted order) are looked at per observation.
"""

from __future__ import annotations

import heapq
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

from jsonschema import Draft202012Validator

MAX_DEPTH: Final = 32
MAX_ITEMS: Final = 200
MAX_PROPERTIES: Final = 500
MAX_FORMAT_LENGTH: Final = 2048  # longer strings never get a format: the checkers are not cheap

# Strict and mutually exclusive, so "every string had format F" needs one format per node;
# in the priority order the product issue gives.
_FORMATS: Final = {
    "date-time": re.compile(
        r"[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?"
        r"([Zz]|[+-][0-9]{2}:[0-9]{2})"
    ),
    "date": re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}"),
    "uuid": re.compile(r"[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}"),
    "email": re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}"),
    "uri": re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s/?#]+[^\s]*"),
}
# The checker validation uses: a learned format must never fail a value it was learned from.
_CHECKER: Final = Draft202012Validator.FORMAT_CHECKER
_TYPE_ORDER: Final = ("array", "boolean", "integer", "number", "object", "string", "null")
_KEYWORDS: Final = frozenset({"type", "properties", "required", "items", "format"})


def child_path(parent: str, key: str) -> str:
    """``$.name`` for identifier keys, ``$["odd key"]`` otherwise (as schemas.json_path)."""
    if key.isidentifier():
        return f"{parent}.{key}"
    return f"{parent}[{json.dumps(key, ensure_ascii=False)}]"


def items_path(parent: str) -> str:
    """``$.items[]``: every element of the array at ``parent``."""
    return f"{parent}[]"


def json_type(value: Any) -> str:
    """The JSON Schema type name of a value parsed from JSON (a bool is never an integer)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    raise TypeError(f"not a JSON value: {type(value).__name__}")


def string_format(text: str) -> str | None:
    """The format ``text`` has (date-time, date, uuid, email, uri), or None."""
    if len(text) > MAX_FORMAT_LENGTH or not text.isascii():
        return None
    for name, pattern in _FORMATS.items():
        if pattern.fullmatch(text):
            return name if _CHECKER.conforms(text, name) else None
    return None


def _kept_keys(obj: dict[str, Any]) -> list[str]:
    if len(obj) <= MAX_PROPERTIES:
        return list(obj)
    return heapq.nsmallest(MAX_PROPERTIES, obj)


def _type_label(types: set[str]) -> str:
    return " | ".join(t for t in _TYPE_ORDER if t in types)


@dataclass(frozen=True)
class Drift:
    """One way a new output differs from the learned shape."""

    severity: Literal["breaking", "additive"]
    path: str
    change: str

    def __str__(self) -> str:
        return f"{self.path}: {self.change}"


class Shape:
    """Everything learned about the values seen at one path (mutable accumulator)."""

    def __init__(self, *, depth: int = 0) -> None:
        self._depth = depth
        self._count = 0
        self._types: set[str] = set()
        self._format: str | None = None  # meaningful once a string was seen
        self._properties: dict[str, Shape] = {}
        self._required: set[str] = set()  # present in every object seen here
        self._items: Shape | None = None  # None until an element was seen

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Shape):
            return NotImplemented
        return self._state() == other._state()

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return f"Shape({self.to_schema()!r}, count={self._count})"

    def _state(self) -> tuple[Any, ...]:
        return (
            self._depth,
            self._count,
            self._types,
            self._format,
            self._properties,
            self._required,
            self._items,
        )

    @property
    def count(self) -> int:
        """How many values were observed at this path."""
        return self._count

    def _explores(self) -> bool:
        return self._depth + 1 < MAX_DEPTH

    def _child(self) -> Shape:
        return Shape(depth=self._depth + 1)

    def _add_type(self, kind: str) -> None:
        self._types.add(kind)
        if "number" in self._types:
            self._types.discard("integer")

    # -- learning ------------------------------------------------------------------------

    def observe(self, value: Any) -> None:
        """Learn from one more value seen at this path."""
        kind = json_type(value)
        if kind == "string":
            if "string" not in self._types:
                self._format = string_format(value)
            elif self._format and string_format(value) != self._format:
                self._format = None
        first_object = "object" not in self._types
        self._add_type(kind)
        self._count += 1
        if not self._explores():
            return
        if kind == "object":
            keys = _kept_keys(value)
            self._required = set(keys) if first_object else self._required.intersection(keys)
            for key in keys:
                self._properties.setdefault(key, self._child()).observe(value[key])
        elif kind == "array":
            for element in value[:MAX_ITEMS]:
                if self._items is None:
                    self._items = self._child()
                self._items.observe(element)

    def merge(self, other: Shape) -> None:
        """Learn what ``other`` learned at the same path, as if its values came after ours."""
        if "string" in other._types:
            if "string" not in self._types:
                self._format = other._format
            elif self._format != other._format:
                self._format = None
        # A property is required if every object on both sides had it; a side that saw no
        # object has no say.
        mine = self._required if "object" in self._types else set(other._properties)
        theirs = other._required if "object" in other._types else set(self._properties)
        self._required = mine & theirs
        for kind in other._types:
            self._add_type(kind)
        self._count += other._count
        for key, child in other._properties.items():
            self._properties.setdefault(key, self._child()).merge(child)
        if other._items is not None:
            if self._items is None:
                self._items = self._child()
            self._items.merge(other._items)

    # -- the record ----------------------------------------------------------------------

    def to_schema(self) -> dict[str, Any]:
        """The learned JSON Schema (2020-12): type, properties, required, items, format."""
        schema: dict[str, Any] = {}
        types = [t for t in _TYPE_ORDER if t in self._types]
        if types:
            schema["type"] = types[0] if len(types) == 1 else types
        if self._format is not None and "string" in self._types:
            schema["format"] = self._format
        if self._properties:
            schema["properties"] = {
                key: self._properties[key].to_schema() for key in sorted(self._properties)
            }
        if self._required:
            schema["required"] = sorted(self._required)
        if self._items is not None:
            schema["items"] = self._items.to_schema()
        return schema

    def seen(self) -> dict[str, int]:
        """How many values were observed at each path, for every path learned."""
        counts: dict[str, int] = {}
        self._collect_seen("$", counts)
        return dict(sorted(counts.items()))

    def _collect_seen(self, path: str, counts: dict[str, int]) -> None:
        counts[path] = self._count
        for key, child in self._properties.items():
            child._collect_seen(child_path(path, key), counts)
        if self._items is not None:
            self._items._collect_seen(items_path(path), counts)

    @classmethod
    def from_record(cls, schema: Mapping[str, Any], seen: Mapping[str, int]) -> Shape:
        """The Shape whose ``to_schema()`` and ``seen()`` these are.

        Raises ValueError for a record no Shape produces: snapshots are hand-editable.
        """
        if not isinstance(seen, Mapping):
            raise ValueError(f"seen must map paths to counts, not {type(seen).__name__}")
        used: set[str] = set()
        shape = cls._read(schema, seen, "$", 0, used)
        extra = sorted(set(seen) - used)
        if extra:
            raise ValueError(f"seen has path(s) the schema does not: {', '.join(extra[:5])}")
        return shape

    @classmethod
    def _read(
        cls, schema: Any, seen: Mapping[str, int], path: str, depth: int, used: set[str]
    ) -> Shape:
        def bad(problem: str) -> ValueError:
            return ValueError(f"not a learned shape at {path}: {problem}")

        if not isinstance(schema, Mapping):
            raise bad(f"the schema is not an object: {schema!r:.80}")
        unknown = sorted(set(schema) - _KEYWORDS)
        if unknown:
            raise bad(
                f"unexpected keyword(s) {', '.join(map(repr, unknown))}; "
                "a learned schema uses only " + ", ".join(sorted(_KEYWORDS))
            )
        count = seen.get(path)
        if type(count) is not int or count < 0:
            raise bad(f"seen has no count for {path} (got {count!r})")
        used.add(path)
        shape = cls(depth=depth)
        shape._count = count
        shape._types = _read_types(schema.get("type"), bad)
        if not shape._types:
            if depth == 0 and count == 0 and not schema:
                return shape  # nothing observed yet
            raise bad("no type")
        if count == 0:
            raise bad("a count of 0 for a path with a type")

        fmt = schema.get("format")
        if fmt is not None and ("string" not in shape._types or str(fmt) not in _FORMATS):
            raise bad(f"format {fmt!r:.80} (allowed on strings: {', '.join(_FORMATS)})")
        shape._format = fmt
        properties = schema.get("properties", {})
        required = schema.get("required", [])
        if not isinstance(properties, Mapping) or not all(isinstance(k, str) for k in properties):
            raise bad("properties is not an object")
        if not isinstance(required, list) or not all(isinstance(k, str) for k in required):
            raise bad("required is not a list of names")
        if (properties or required) and "object" not in shape._types:
            raise bad("properties/required on a type that is not an object")
        if (properties or "items" in schema) and depth + 1 >= MAX_DEPTH:
            raise bad(f"deeper than {MAX_DEPTH} levels")
        if len(set(required)) != len(required) or not set(required) <= set(properties):
            raise bad("required must list distinct names from properties")
        shape._required = set(required)
        for key, sub in properties.items():
            child = cls._read(sub, seen, child_path(path, key), depth + 1, used)
            if child._count > count:
                raise bad(f"property {key!r} seen more often than its object")
            if shape._types == {"object"} and (key in shape._required) != (child._count == count):
                raise bad(f"required must be exactly the properties seen {count} times")
            shape._properties[key] = child
        if "items" in schema:
            if "array" not in shape._types:
                raise bad("items on a type that is not an array")
            shape._items = cls._read(schema["items"], seen, items_path(path), depth + 1, used)
        return shape

    # -- checking ------------------------------------------------------------------------

    def diff(self, value: Any) -> list[Drift]:
        """How one new value differs from what was learned, sorted by path.

        Nothing learned yet means nothing to differ from.
        """
        drifts: set[Drift] = set()
        if self._count:
            self._diff(value, "$", drifts)
        return sorted(drifts, key=lambda d: (d.path, d.change, d.severity))

    def _diff(self, value: Any, path: str, drifts: set[Drift]) -> None:
        kind = json_type(value)
        if kind not in self._types and not (kind == "integer" and "number" in self._types):
            drifts.add(Drift("breaking", path, f"{_type_label(self._types)} -> {kind}"))
            return
        if kind == "string" and self._format and string_format(value) != self._format:
            drifts.add(Drift("breaking", path, f"format {self._format} -> plain string"))
        if not self._explores():
            return
        if kind == "object":
            keys = _kept_keys(value)
            for key in self._required.difference(keys):
                drifts.add(Drift("breaking", child_path(path, key), "missing (was always present)"))
            for key in keys:
                child = self._properties.get(key)
                if child is None:
                    new = f"new field: {json_type(value[key])}"
                    drifts.add(Drift("additive", child_path(path, key), new))
                else:
                    child._diff(value[key], child_path(path, key), drifts)
        elif kind == "array":
            elements = value[:MAX_ITEMS]
            if self._items is not None:
                for element in elements:
                    self._items._diff(element, items_path(path), drifts)
            elif elements:
                kinds = _type_label({json_type(e) for e in elements})
                drifts.add(Drift("additive", items_path(path), f"new items: {kinds}"))


def _read_types(raw: Any, bad: Callable[[str], ValueError]) -> set[str]:
    if raw is None:
        return set()
    names = [raw] if isinstance(raw, str) else raw
    if (
        not isinstance(names, list)
        or not names
        or not all(isinstance(n, str) and n in _TYPE_ORDER for n in names)
        or len(set(names)) != len(names)
        or {"integer", "number"} <= set(names)
    ):
        raise bad(
            f"type must be one of {', '.join(_TYPE_ORDER)} or a list of distinct ones "
            f"(integer and number never together), not {raw!r:.80}"
        )
    return set(names)
