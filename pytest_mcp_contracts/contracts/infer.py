"""Infer: learn a JSON Schema from the outputs a tool returned, and spot drift from it.

Most tools declare no outputSchema, so the plugin learns one from what it observes and keeps
it in a reviewable snapshot. A learned contract must not flap between runs, so it claims
only what every observation agreed on: types, which properties were always present, item
shapes, and a string format only when every string had it. Never enums, lengths or ranges:
a sample cannot tell a limit from a coincidence.

Two more things keep a committed contract honest:

- **Breaking needs evidence.** ``seen`` counts the non-null values at each path, capped at
  ``ESTABLISHED``: a new type where only ``null`` was seen, or where fewer than
  ``ESTABLISHED`` values were seen, widens the contract (additive drift), and so does a
  number with a fraction where only whole numbers were seen; a missing property is
  breaking only when its object was seen ``ESTABLISHED`` times with it every time.
- **Maps.** An object whose keys are data (ids, dates, environment variable names, many
  keys, or keys that come and go) is learned as a map: ``additionalProperties`` with one
  schema for every value, never its keys as required properties.
- **Keys that depend on the input.** A generic query tool answers ``SELECT a, b`` with rows
  ``{a, b}`` and ``SELECT c`` with rows ``{c}``: within one call every object at a path has
  the same keys, and from call to call they change, sharing few or none. Such an object is
  learned open: the keys every call had (often none) as its properties, and
  ``additionalProperties: true`` for the rest, never the union of unrelated columns as
  optional properties (``open_paths`` lists them).

A snapshot is ``(shape.to_schema(), shape.seen())``; ``Shape.from_record`` reads it back.
Hostile outputs are bounded: MAX_DEPTH levels, MAX_ITEMS elements per array and
MAX_PROPERTIES keys per object (the first in sorted order) are looked at per observation.
"""

from __future__ import annotations

import copy
import heapq
import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Final

from pytest_mcp_contracts.contracts.change import Change
from pytest_mcp_contracts.schema.dialects import validator_class
from pytest_mcp_contracts.schema.document import TYPE_ORDER, json_type, ordered_types, union_text
from pytest_mcp_contracts.schema.paths import child_path, items_path, values_path
from pytest_mcp_contracts.vocabulary import Impact

MAX_DEPTH: Final = 32
MAX_ITEMS: Final = 200
MAX_PROPERTIES: Final = 500
MAX_FORMAT_LENGTH: Final = 2048  # longer strings never get a format: the checkers are not cheap

# Strict and mutually exclusive, so "every string had format F" needs one format per node.
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
#: The only keywords a learned schema uses; reading a recorded one refuses any other.
_KEYWORDS: Final = frozenset(
    {"type", "properties", "required", "items", "format", "additionalProperties"}
)

# A path's recorded facts can break a later run only once this many non-null values were seen
# there (and a property must have been in every one of this many objects to be missed). Below
# it a difference widens the contract instead: 10 inputs already show a real field or type
# (a field present half the time is in all 10 with probability 1/1024), while a field seen
# 3 times may simply not have met its other values yet.
ESTABLISHED: Final = 10

# Map heuristics (docs/explanation/inference.md, "Maps"): keys that are data, not names.
MAP_MANY_KEYS: Final = 20  # quicktype's mapSizeThreshold: this many keys, same value type
MAP_ENV_KEYS: Final = 4  # this many keys, three in four in ENV_VAR style (`_`, `npm_*` occur)
MAP_VARYING_KEYS: Final = 4  # this many keys, none in every object, most in at most half
_DATA_KEY: Final = re.compile(
    r"-?[0-9]+"  # numeric ids
    r"|[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}"  # uuids
    r"|[0-9]{4}-[0-9]{2}(-[0-9]{2})?([Tt ][0-9:.]+([Zz]|[+-][0-9:]+)?)?"  # dates
)
_ENV_KEY: Final = re.compile(r"_*[A-Z][A-Z0-9]*(_+[A-Z0-9]*)*")


def _base_type(kind: str) -> str:
    # integer and number are one type for unions and maps: 2 and 2.5 are both numbers.
    return "number" if kind == "integer" else kind


def _keys_are_data(keys: list[str], objects: int, required: set[str], presence: int) -> bool:
    """Whether an object's keys look like data (a map) rather than field names (a struct).

    ``presence`` is how many (key, object) pairs were seen, so ``presence / len(keys)`` is
    the average number of objects a key was in.
    """
    if not keys:
        return False
    if all(_DATA_KEY.fullmatch(k) for k in keys):
        return True
    if len(keys) >= MAP_MANY_KEYS:
        return True
    if _env_style(keys):
        return True
    return (
        objects >= 3
        and len(keys) >= MAP_VARYING_KEYS
        and not required
        and presence * 2 <= objects * len(keys)
    )


def _env_style(keys: list[str]) -> bool:
    """Enough keys, three in four named like environment variables: a map of them."""
    env_style = sum(bool(_ENV_KEY.fullmatch(k)) for k in keys)
    return len(keys) >= MAP_ENV_KEYS and env_style * 4 >= len(keys) * 3


def string_format(text: str) -> str | None:
    """The format ``text`` has (date-time, date, uuid, email, uri), or None."""
    if len(text) > MAX_FORMAT_LENGTH or not text.isascii():
        return None
    for name, pattern in _FORMATS.items():
        if pattern.fullmatch(text):
            # The checker validation uses: a learned format must never fail a value it was
            # learned from.
            checker = validator_class("2020-12").FORMAT_CHECKER
            return name if checker.conforms(text, name) else None
    return None


def _kept_keys(obj: dict[str, Any]) -> list[str]:
    if len(obj) <= MAX_PROPERTIES:
        return list(obj)
    return heapq.nsmallest(MAX_PROPERTIES, obj)


def _type_label(types: set[str]) -> str:
    return union_text(ordered_types(types))


class Shape:
    """Everything learned about the values seen at one path (mutable accumulator)."""

    def __init__(self, *, depth: int = 0) -> None:
        self._depth = depth
        self._count = 0  # non-null values seen here: the evidence behind the path's type
        self._types: set[str] = set()
        self._format: str | None = None  # meaningful once a string was seen
        self._properties: dict[str, Shape] = {}
        self._required: set[str] = set()  # present in every object seen here
        self._items: Shape | None = None  # None until an element was seen
        self._values: Shape | None = None  # a map read from a record: every value's shape
        self._recorded = False  # read from a record: its record/map layout is fixed
        self._objects = 0  # objects seen here, and the keys they had, for the map heuristic
        self._presence = 0
        # Keys by call, for "keys that depend on the input" (``_keys_by_input``): the keys
        # of this call's objects so far and whether they all had the same; over the calls
        # that had an object with keys here: the keys every one had, whether their keys
        # differed, whether each call's objects agreed, and how many calls had several.
        self._pending: frozenset[str] | None = None
        self._pending_objects = 0
        self._pending_uniform = True
        self._first_keys: frozenset[str] | None = None
        self._core: frozenset[str] | None = None
        self._varied = False
        self._uniform = True
        self._rows_calls = 0
        self._open = False  # read open from a record, or kept open by settle

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
            self._values,
            self._is_open(),
        )

    @property
    def count(self) -> int:
        """How many non-null values were observed at this path."""
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
        """Learn from one more result's value (one call's) seen at this path."""
        touched: list[Shape] = []
        self._learn(value, touched)
        for shape in touched:
            shape._end_call()

    def _learn(self, value: Any, touched: list[Shape]) -> None:
        kind = json_type(value)
        if kind == "string":
            if "string" not in self._types:
                self._format = string_format(value)
            elif self._format and string_format(value) != self._format:
                self._format = None
        first_object = "object" not in self._types
        self._add_type(kind)
        self._count += kind != "null"
        if not self._explores():
            return
        if kind == "object":
            keys = _kept_keys(value)
            self._objects += 1
            self._presence += len(keys)
            self._required = set(keys) if first_object else self._required.intersection(keys)
            self._note_keys(frozenset(keys), touched)
            for key in keys:
                if self._values is not None:
                    self._values._learn(value[key], touched)
                else:
                    self._properties.setdefault(key, self._child())._learn(value[key], touched)
        elif kind == "array":
            for element in value[:MAX_ITEMS]:
                if self._items is None:
                    self._items = self._child()
                self._items._learn(element, touched)

    def _note_keys(self, keys: frozenset[str], touched: list[Shape]) -> None:
        """One object of this call had ``keys`` (an empty object tells nothing)."""
        if not keys:
            return
        if self._pending is None:
            self._pending = keys
            touched.append(self)
        elif keys != self._pending:
            self._pending_uniform = False
            self._pending |= keys
        self._pending_objects += 1

    def _end_call(self) -> None:
        """Fold this call's keys into what the calls so far had."""
        keys = self._pending
        if keys is None:
            return
        self._uniform = self._uniform and self._pending_uniform
        self._rows_calls += self._pending_objects > 1
        self._core = keys if self._core is None else self._core & keys
        if self._first_keys is None:
            self._first_keys = keys
        elif keys != self._first_keys:
            self._varied = True
        self._pending, self._pending_objects, self._pending_uniform = None, 0, True

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
        self._objects += other._objects
        self._presence += other._presence
        if other._first_keys is not None:
            if self._first_keys is None:
                self._first_keys = other._first_keys
            elif other._first_keys != self._first_keys:
                self._varied = True
            self._core = other._core if self._core is None else self._core & (other._core or set())
        self._varied = self._varied or other._varied
        self._uniform = self._uniform and other._uniform
        self._rows_calls += other._rows_calls
        self._open = self._open or other._open
        if self._values is not None or other._values is not None:
            values = self._value_shape()
            values.merge(other._value_shape())
            self._values, self._properties, self._required = values, {}, set()
            self._recorded = self._recorded or other._recorded
        else:
            for key, child in other._properties.items():
                self._properties.setdefault(key, self._child()).merge(child)
        if other._items is not None:
            if self._items is None:
                self._items = self._child()
            self._items.merge(other._items)

    # -- structs and maps ------------------------------------------------------------------

    def _value_shape(self) -> Shape:
        """Every value of this object, keys forgotten: what a map of it holds."""
        if self._values is not None:
            return self._values
        values = self._child()
        for child in self._properties.values():
            values.merge(child)
        return values

    def _is_map(self) -> bool:
        if self._recorded or "object" not in self._types:
            return False
        kinds = {_base_type(t) for c in self._properties.values() for t in c._types} - {"null"}
        if len(kinds) > 1:
            return False  # values of different types are fields of a struct
        return _keys_are_data(
            sorted(self._properties), self._objects, self._required, self._presence
        )

    def _keys_by_input(self) -> bool:
        """Whether this object's keys depend on the call, as a query tool's rows do on the
        columns asked for: each call's objects agreed on their keys, the calls did not, and
        they share no key, or (with rows: several objects in each of two calls) fewer
        keys than they do not share. Keys that look like data make a map instead."""
        if not self._varied or not self._uniform or self._core is None:
            return False
        keys = sorted(self._properties)
        if all(_DATA_KEY.fullmatch(k) for k in keys) or _env_style(keys):
            return False
        rest = len(keys) - len(self._core)
        return not self._core or (self._rows_calls >= 2 and len(self._core) < rest)

    def _is_open(self) -> bool:
        """An object learned open: the keys every call had, and any others."""
        if self._open:
            return True
        if self._recorded or self._values is not None or "object" not in self._types:
            return False
        return self._keys_by_input() and (self._rows_calls >= 2 or not self._is_map())

    def _layout(self) -> tuple[dict[str, Shape], set[str], Shape | None]:
        """(properties, required, map values): a struct has the first two, a map the last;
        an open object the properties every call had (``_is_open``)."""
        if self._values is not None:
            return {}, set(), self._values
        if self._open or self._recorded:
            return self._properties, self._required, None
        by_input = self._keys_by_input()
        # Rows that agreed within each call are the stronger evidence; a lone object per
        # call whose keys come and go, all of one value type, is a map's (by the heuristic).
        if by_input and (self._rows_calls >= 2 or not self._is_map()):
            core = self._core or frozenset()
            kept = {key: shape for key, shape in self._properties.items() if key in core}
            return kept, self._required & core, None
        if self._is_map():
            return {}, set(), self._value_shape()
        return self._properties, self._required, None

    # -- accepting ---------------------------------------------------------------------------

    def settle(self, recorded: Shape) -> None:
        """Keep what ``recorded`` knew where this run (``self``) has too little evidence to
        say it changed; everything this run has the evidence for, it decides.

        Accepting replaces the contract with what the run observed, but a run that saw a
        field as ``null`` only (or an array only empty, or an object 3 times) has not seen
        the field's string, the array's items or the object's optional properties go away.
        Without this, an update with no change in the server would rewrite a file whenever
        a rare value happened not to come up. A property recorded but absent from ESTABLISHED
        objects of this run is gone; one absent from fewer is kept, as optional.
        """
        if self._recorded or not self._types or not recorded._types:
            return
        # Thin, and nothing the record did not know: a type this run saw that the record
        # never had is a change, and is not to be blended into a union with the old one.
        kinds = {_base_type(t) for t in self._types - {"null"}}
        known = {_base_type(t) for t in recorded._types - {"null"}}
        thin = self._count < ESTABLISHED and kinds <= known
        if "number" in recorded._types and "integer" in self._types:
            self._add_type("number")  # whole numbers only this time: a sampling accident
        if thin:
            for kind in recorded._types - self._types:
                self._add_type(kind)
            if "string" in recorded._types and recorded._format != self._format:
                # A format stands only on every string of both runs.
                self._format = recorded._format if "string" not in self._types else None
        if "object" in self._types and "object" in recorded._types:
            self._settle_object(recorded, thin)
        if recorded._items is not None:
            if self._items is None:
                if "array" in self._types:
                    self._items = copy.deepcopy(recorded._items)
            else:
                self._items.settle(recorded._items)

    def _settle_object(self, recorded: Shape, thin: bool) -> None:
        if thin and recorded._is_open() and not self._is_open():
            self._open_as(recorded)  # too few values here to say the keys stopped varying
        mine, _, my_values = self._layout()
        theirs, their_required, their_values = recorded._layout()
        if (my_values is None) != (their_values is None):
            return  # learned as a map one time, a struct the other: this run decides
        if my_values is not None and their_values is not None:
            values = self._value_shape()
            values.settle(their_values)
            self._values, self._properties, self._required = values, {}, set()
            return
        for key, theirs_child in theirs.items():
            child = mine.get(key)
            if child is not None:
                child.settle(theirs_child)
            elif thin:
                self._properties[key] = copy.deepcopy(theirs_child)
        if thin:
            # Optional stays optional on thin evidence; a key this run saw missing is optional.
            new = set(self._properties) - set(theirs)
            self._required &= their_required | new

    def _open_as(self, recorded: Shape) -> None:
        """Open this object as ``recorded`` is: its properties only, any other key allowed."""
        mine, _, _ = self._layout()
        self._properties = {key: mine[key] for key in recorded._properties if key in mine}
        self._required &= set(self._properties)
        self._open = True

    # -- the record ----------------------------------------------------------------------

    def to_schema(self) -> dict[str, Any]:
        """The learned JSON Schema (2020-12): type, properties, required, items, format,
        additionalProperties (for a map)."""
        schema: dict[str, Any] = {}
        types = [t for t in TYPE_ORDER if t in self._types]
        if types:
            schema["type"] = types[0] if len(types) == 1 else types
        if self._format is not None and "string" in self._types:
            schema["format"] = self._format
        properties, required, values = self._layout()
        if properties:
            schema["properties"] = {key: properties[key].to_schema() for key in sorted(properties)}
        if required:
            schema["required"] = sorted(required)
        if values is not None:
            schema["additionalProperties"] = values.to_schema()
        elif self._is_open():
            schema["additionalProperties"] = True
        if self._items is not None:
            schema["items"] = self._items.to_schema()
        return schema

    def seen(self) -> dict[str, int]:
        """How many non-null values were observed at each path learned, up to ESTABLISHED.

        Capped so that the file changes only when the evidence changes what a run may fail
        on: 10 and 47 observations mean the same thing.
        """
        counts = {path: min(shape._count, ESTABLISHED) for path, shape in self._walk("$")}
        return dict(sorted(counts.items()))

    def _walk(self, path: str) -> Iterator[tuple[str, Shape]]:
        """This shape and every shape below it, each with its JSON path."""
        yield path, self
        properties, _, values = self._layout()
        for key, child in properties.items():
            yield from child._walk(child_path(path, key))
        if values is not None:
            yield from values._walk(values_path(path))
        if self._items is not None:
            yield from self._items._walk(items_path(path))

    def unions(self) -> list[tuple[str, str]]:
        """``(path, types)`` of every path that took more than one non-null type: a value
        that is a number on some calls and a string on others is more often a bug than a
        contract, so it is flagged rather than learned quietly."""
        found = []
        for path, shape in self._walk("$"):
            kinds = shape._types - {"null"}
            if len({_base_type(t) for t in kinds}) > 1:
                found.append((path, _type_label(kinds)))
        return sorted(found)

    def open_paths(self) -> list[str]:
        """The paths of objects learned open: their keys depend on the input."""
        return sorted(path for path, shape in self._walk("$") if shape._is_open())

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
        shape._recorded = True
        shape._count = count
        shape._types = _read_types(schema.get("type"), bad)
        if not shape._types:
            if depth == 0 and count == 0 and not schema:
                return shape  # nothing observed yet
            raise bad("no type")
        if count == 0 and shape._types != {"null"}:
            raise bad("a count of 0 for a path that was not only null")

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
        nested = properties or "items" in schema or "additionalProperties" in schema
        if (properties or required or "additionalProperties" in schema) and (
            "object" not in shape._types
        ):
            raise bad("properties/required/additionalProperties on a type that is not an object")
        if nested and depth + 1 >= MAX_DEPTH:
            raise bad(f"deeper than {MAX_DEPTH} levels")
        if len(set(required)) != len(required) or not set(required) <= set(properties):
            raise bad("required must list distinct names from properties")
        shape._required = set(required)
        for key, sub in properties.items():
            child = cls._read(sub, seen, child_path(path, key), depth + 1, used)
            if child._count > count:
                raise bad(f"property {key!r} seen more often than its object")
            shape._properties[key] = child
        if schema.get("additionalProperties") is True:
            shape._open = True  # an object whose other keys depend on the input
        elif "additionalProperties" in schema:
            if properties:
                raise bad("a learned map has additionalProperties and no properties")
            sub = schema["additionalProperties"]
            shape._values = cls._read(sub, seen, values_path(path), depth + 1, used)
        if "items" in schema:
            if "array" not in shape._types:
                raise bad("items on a type that is not an array")
            shape._items = cls._read(schema["items"], seen, items_path(path), depth + 1, used)
        return shape

    # -- checking ------------------------------------------------------------------------

    def diff(self, value: Any) -> list[Change]:
        """How one new value differs from what was learned, sorted by path.

        Nothing learned yet means nothing to differ from. A difference is breaking only
        where the record has the evidence for it (see ESTABLISHED); otherwise it widens.
        """
        drifts: set[Change] = set()
        if self._types:
            self._diff(value, "$", drifts)
        return sorted(drifts, key=lambda d: (d.path, d.change, d.impact))

    def _widens(self, kind: str) -> str | None:
        """Why a value of the new type ``kind`` only widens the contract, or None."""
        if kind == "number" and "integer" in self._types:
            return "widened: only whole numbers were seen"
        if self._types <= {"null"}:
            return "widened: only null was seen"
        if self._count < ESTABLISHED:
            return f"widened: only {self._count} value(s) were seen"
        return None

    def _diff(self, value: Any, path: str, drifts: set[Change]) -> None:
        kind = json_type(value)
        if kind not in self._types and not (kind == "integer" and "number" in self._types):
            change = f"{_type_label(self._types)} -> {kind}"
            why = self._widens(kind)
            if why is None:
                drifts.add(Change(Impact.BREAKING, path, change))
            else:
                drifts.add(Change(Impact.ADDITIVE, path, f"{change} ({why})"))
            return
        if kind == "string" and self._format and string_format(value) != self._format:
            impact = Impact.BREAKING if self._count >= ESTABLISHED else Impact.ADDITIVE
            drifts.add(Change(impact, path, f"format {self._format} -> plain string"))
        if not self._explores():
            return
        if kind == "object":
            self._diff_object(value, path, drifts)
        elif kind == "array":
            elements = value[:MAX_ITEMS]
            if self._items is not None:
                for element in elements:
                    self._items._diff(element, items_path(path), drifts)
            elif elements:
                kinds = _type_label({json_type(e) for e in elements})
                drifts.add(Change(Impact.ADDITIVE, items_path(path), f"new items: {kinds}"))

    def _diff_object(self, value: dict[str, Any], path: str, drifts: set[Change]) -> None:
        properties, required, values = self._layout()
        keys = _kept_keys(value)
        if values is not None:
            for key in keys:
                if values._types:
                    values._diff(value[key], child_path(path, key), drifts)
                else:
                    new = f"new entry: {json_type(value[key])}"
                    drifts.add(Change(Impact.ADDITIVE, child_path(path, key), new))
            return
        for key in required.difference(keys):
            if self._count >= ESTABLISHED:
                drifts.add(
                    Change(Impact.BREAKING, child_path(path, key), "missing (was always present)")
                )
            else:
                why = f"missing (widened: was in all of only {self._count} object(s) seen)"
                drifts.add(Change(Impact.ADDITIVE, child_path(path, key), why))
        open_keys = self._is_open()  # its other keys depend on the input: no news
        for key in keys:
            child = properties.get(key)
            if child is None:
                if not open_keys:
                    new = f"new field: {json_type(value[key])}"
                    drifts.add(Change(Impact.ADDITIVE, child_path(path, key), new))
            else:
                child._diff(value[key], child_path(path, key), drifts)


def _read_types(raw: Any, bad: Callable[[str], ValueError]) -> set[str]:
    if raw is None:
        return set()
    names = [raw] if isinstance(raw, str) else raw
    if (
        not isinstance(names, list)
        or not names
        or not all(isinstance(n, str) and n in TYPE_ORDER for n in names)
        or len(set(names)) != len(names)
        or {"integer", "number"} <= set(names)
    ):
        raise bad(
            f"type must be one of {', '.join(TYPE_ORDER)} or a list of distinct ones "
            f"(integer and number never together), not {raw!r:.80}"
        )
    return set(names)
