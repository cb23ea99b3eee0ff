"""Feeding: the values in one call's output that a later call can take, and the slots of an
input that take them.

A lookup or an update takes an id that only a create makes: a random id never exists, so
alone such a tool answers "not found" on every call. The ids, names, paths, uris and keys
found in each result's structured content (or JSON text) go into a pool, and later inputs
whose properties match them by name and type take values from it (the idea of hypothesis's
bundles, and of tooltest's corpus mined from outputs). Pure: no I/O.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from pytest_mcp_contracts.contracts.classify import OutputKind, classify

if TYPE_CHECKING:
    from pytest_mcp_contracts.transport.discover import Entry

# The names of values that identify something another tool can act on.
BASES: Final = ("id", "name", "path", "uri", "key")
POOL_LIMIT: Final = 64  # the newest values are kept: later steps act on what was just made
MINE_DEPTH: Final = 6
ITEM: Final = "[]"  # a path segment: every item of an array


def _normalized(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def base_of(name: str, *, plural: bool = False) -> str | None:
    """The identifying kind a property or output key names (``note_id`` -> ``id``,
    ``entityName`` -> ``name``; with ``plural``, ``entityNames`` -> ``name`` too), else None."""
    norm = _normalized(name)
    for base in BASES:
        if norm.endswith(base) or (plural and norm.endswith(base + "s")):
            return base
    return None


def names_match(key: str, prop: str, *, plural: bool = False) -> bool:
    """Whether a value found under output key ``key`` may feed input property ``prop``: the
    same name, or one of them is the bare kind (``id`` feeds ``note_id``, ``note_id`` feeds
    ``id``). ``plural``: ``prop`` names an array of them (``names``, ``note_ids``)."""
    base = base_of(key)
    if base is None or base_of(prop, plural=plural) != base:
        return False
    k, p = _normalized(key), _normalized(prop)
    if plural and not p.endswith(base):
        p = p[:-1]
    return k in (p, base) or p == base


@dataclass(frozen=True)
class Origin:
    """Where a value came from: the ``ordinal``-th value under ``key`` in the output of call
    ``step`` (its position in the run). A replay takes the value found there again, as a
    state machine's bundle reference would: ids a fresh server makes may differ."""

    step: int
    key: str
    ordinal: int


@dataclass(frozen=True)
class Mined:
    """A value found in a tool's output, under ``key``."""

    key: str
    value: str | int
    tool: str
    origin: Origin


def _walk(value: Any, key: str | None, depth: int) -> Iterator[tuple[str, str | int]]:
    if depth > MINE_DEPTH:
        return
    if isinstance(value, Mapping):
        for k in sorted(value, key=str):
            yield from _walk(value[k], str(k), depth + 1)
    elif isinstance(value, list):
        # "ids": [3, 4] holds ids; a list of objects holds whatever its objects hold.
        item_key = key[:-1] if key and key.endswith("s") and base_of(key[:-1]) else key
        for item in value:
            yield from _walk(item, item_key, depth + 1)
    elif key is not None and base_of(key) is not None:
        text = isinstance(value, str) and 0 < len(value) <= 500
        if text or (isinstance(value, int) and not isinstance(value, bool)):
            yield key, value


def mine(result: Mapping[str, Any]) -> list[tuple[str, str | int]]:
    """The identifying values a successful result holds: under keys named like BASES, in its
    structured content, else in JSON text; in a stable order, without repeats."""
    classified = classify(result)
    if classified.kind not in (OutputKind.STRUCTURED, OutputKind.JSON_TEXT, OutputKind.JSON_ITEMS):
        return []
    found: list[tuple[str, str | int]] = []
    seen: set[str] = set()
    for key, value in _walk(classified.value, None, 0):
        marker = json.dumps([key, value])
        if marker not in seen:
            seen.add(marker)
            found.append((key, value))
    return found


def mined_with_origins(step: int, result: Mapping[str, Any]) -> list[tuple[str, str | int, Origin]]:
    ordinals: dict[str, int] = {}
    out = []
    for key, value in mine(result):
        ordinal = ordinals.get(key, 0)
        ordinals[key] = ordinal + 1
        out.append((key, value, Origin(step, key, ordinal)))
    return out


def resolve(origin: Origin, outputs: Mapping[int, Mapping[str, Any]]) -> str | int | None:
    """The value at ``origin`` in the outputs of a replay, or None when that call is not part
    of it (or no longer returns it)."""
    result = outputs.get(origin.step)
    if result is None:
        return None
    for key, value, found in mined_with_origins(origin.step, result):
        if key == origin.key and found == origin:
            return value
    return None


@dataclass
class Pool:
    """What earlier calls of one sequence returned, newest last."""

    values: list[Mined] = field(default_factory=list)
    # The tools whose successful calls were sent or returned each value: a read after an
    # update of what a create made is another state than a read after the create alone.
    acted_on: dict[str | int, set[str]] = field(default_factory=dict)

    def add(self, step: int, tool: str, result: Mapping[str, Any]) -> None:
        for key, value, origin in mined_with_origins(step, result):
            # A value seen again (a listing shows what a create made) is fresh again, but
            # keeps its first origin: a replay finds it where it was made.
            first = next((m for m in self.values if (m.key, m.value) == (key, value)), None)
            if first is not None:
                self.values.remove(first)
            self.values.append(first or Mined(key, value, tool, origin))
        del self.values[:-POOL_LIMIT]

    def candidates(self, slot: Slot) -> list[Mined]:
        """Values that may fill ``slot``, newest first, each once."""
        out: list[Mined] = []
        for entry in reversed(self.values):
            if slot.accepts(entry) and all(entry.value != m.value for m in out):
                out.append(entry)
        return out


@dataclass(frozen=True)
class Slot:
    """A place in a tool's input that can take a mined value: a property (``path``, with
    ITEM for every item of an array) of one of ``types``."""

    path: tuple[str, ...]
    types: frozenset[str]  # empty: any

    @property
    def name(self) -> str:
        return next(p for p in reversed(self.path) if p != ITEM)

    def accepts(self, entry: Mined) -> bool:
        plural = self.path[-1] == ITEM
        if not names_match(entry.key, self.name, plural=plural):
            return False
        if not self.types:
            return True
        if isinstance(entry.value, str):
            return "string" in self.types
        return bool(self.types & {"integer", "number"})


def _types(schema: Mapping[str, Any]) -> frozenset[str]:
    declared = schema.get("type")
    if isinstance(declared, str):
        return frozenset([declared])
    if isinstance(declared, list):
        return frozenset(t for t in declared if isinstance(t, str))
    return frozenset()


_SCALARS: Final = frozenset({"string", "integer", "number"})


def feed_slots(schema: Any, path: tuple[str, ...] = (), depth: int = 0) -> list[Slot]:
    """The slots of an input schema whose names say they take an identifying value: string
    or integer properties (and arrays of them) named like BASES, also inside objects and
    arrays of objects. ``$ref``s are not followed: a value that misses is simply not fed."""
    if not isinstance(schema, Mapping) or depth > 4:
        return []
    properties = schema.get("properties")
    if not isinstance(properties, Mapping):
        return []
    slots = []
    for name, sub in properties.items():
        if not isinstance(sub, Mapping):
            continue
        types = _types(sub)
        here = (*path, str(name))
        if "array" in types and isinstance(sub.get("items"), Mapping):
            items = sub["items"]
            item_types = _types(items)
            if (item_types & _SCALARS or not item_types) and base_of(str(name), plural=True):
                slots.append(Slot((*here, ITEM), item_types & _SCALARS))
            slots += feed_slots(items, (*here, ITEM), depth + 1)
        elif "object" in types:
            slots += feed_slots(sub, here, depth + 1)
        elif (types & _SCALARS or not types) and base_of(str(name)):
            slots.append(Slot(here, types & _SCALARS))
    return slots


Location = tuple[str | int, ...]


def _locations(value: Any, path: tuple[str, ...], at: Location = ()) -> Iterator[Location]:
    """The concrete places (keys and array indices) ``path`` reaches in ``value``."""
    head, rest = path[0], path[1:]
    if head == ITEM:
        if isinstance(value, list):
            for index, item in enumerate(value):
                here = (*at, index)
                yield from [here] if not rest else _locations(item, rest, here)
    elif isinstance(value, dict) and head in value:
        here = (*at, head)
        yield from [here] if not rest else _locations(value[head], rest, here)


def _get(value: Any, location: Location) -> Any:
    for part in location:
        value = value[part]
    return value


def _set(value: Any, location: Location, new: Any) -> bool:
    """Put ``new`` at ``location`` if that place exists in ``value``."""
    for part in location[:-1]:
        if isinstance(part, int):
            if not isinstance(value, list) or part >= len(value):
                return False
        elif not isinstance(value, dict) or part not in value:
            return False
        value = value[part]
    last = location[-1]
    if isinstance(last, int):
        if not isinstance(value, list) or last >= len(value):
            return False
    elif not isinstance(value, dict) or last not in value:
        return False
    value[last] = new
    return True


def shown_location(location: Location) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in location).lstrip(".")


@dataclass(frozen=True)
class Fed:
    """A value put into an input: where, which value, and where it came from."""

    location: Location
    value: str | int
    origin: Origin


# A choice made for a slot: a value from the pool (by position: 0 is the newest candidate,
# larger ones wrap around) or None, keep the generated value.
Choice = int | None
Chooser = Callable[[Slot], Choice]


def feed(
    arguments: dict[str, Any],
    slots: Sequence[Slot],
    pool: Pool,
    choose: Chooser,
    valid: Callable[[dict[str, Any]], bool],
) -> tuple[dict[str, Any], list[Fed]]:
    """``arguments`` with pool values put into its slots as ``choose`` picks them. ``choose``
    is asked once for every place a slot reaches in the input, whatever the pool holds: the
    draws of a sequence then have the same shape on any server state, so that a seed gives
    the same run. A value that would make the input invalid for the schema is not put in."""
    fed: list[Fed] = []
    current = json.loads(json.dumps(arguments))
    for slot in slots:
        for location in list(_locations(current, slot.path)):
            pick = choose(slot)
            candidates = pool.candidates(slot)
            if pick is None or not candidates:
                continue
            entry = candidates[pick % len(candidates)]
            before = _get(current, location)
            _set(current, location, entry.value)
            if valid(current):
                fed.append(Fed(location, entry.value, entry.origin))
            else:
                _set(current, location, before)
    return current, fed


Names = dict[str | int, tuple[str | int, int]]


def renamed(before: Mapping[str, Any] | None, after: Mapping[str, Any], step: int) -> Names:
    """What a replayed call's output calls the things its first run's output named: the
    value under the same key at the same position (a fresh server's create makes the same
    note under another id), with the replayed call's position."""
    if before is None:
        return {}
    new = {(key, origin.ordinal): value for key, value, origin in mined_with_origins(0, after)}
    return {
        value: (new[(key, origin.ordinal)], step)
        for key, value, origin in mined_with_origins(0, before)
        if (key, origin.ordinal) in new
    }


def refeed(
    arguments: dict[str, Any],
    feeds: Sequence[Fed],
    outputs: Mapping[int, Mapping[str, Any]],
    valid: Callable[[dict[str, Any]], bool],
    names: Names | None = None,
) -> tuple[dict[str, Any], list[Fed]]:
    """A replayed call's input: each fed value under its new name (``names``: what the first
    call of the replay that returned it calls it now), else the value found at its origin in
    this replay's outputs, else as it was; as long as the input stays valid. The name comes
    first: a listing's n-th item is another thing once a create before it is dropped."""
    current = json.loads(json.dumps(arguments))
    fed = []
    for item in feeds:
        again, origin = None, item.origin
        if names and item.value in names:
            again, step = names[item.value]
            origin = Origin(step, origin.key, origin.ordinal)
        else:
            again = resolve(item.origin, outputs)
        value = item.value if again is None else again
        try:
            before = _get(current, item.location)
        except (KeyError, IndexError, TypeError):
            continue
        if _set(current, item.location, value) and not valid(current):
            _set(current, item.location, before)
        elif again is not None:
            fed.append(Fed(item.location, value, origin))
    return current, fed


def _output_keys(schema: Any, depth: int = 0) -> Iterator[str]:
    """The property names an output schema declares, nested ones too."""
    if not isinstance(schema, Mapping) or depth > MINE_DEPTH:
        return
    properties = schema.get("properties")
    if isinstance(properties, Mapping):
        for name, sub in properties.items():
            yield str(name)
            yield from _output_keys(sub, depth + 1)
    yield from _output_keys(schema.get("items"), depth + 1)


def _path_like(schema: Any) -> list[str]:
    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    if not isinstance(properties, Mapping):
        return []
    words = ("path", "file", "dir", "folder")
    return [str(n) for n in properties if any(w in _normalized(str(n)) for w in words)]


def ways_to_reach(tool: Entry, tools: Sequence[Entry], *, sequences: bool) -> list[str]:
    """How a tool whose calls were nearly all refused could get inputs it accepts: values
    another tool's declared output holds (sequences), a folder of real files (roots) for a
    path-like input, and inputs the user writes (examples)."""
    slots = feed_slots(tool.input_schema)
    makers = sorted(
        other.name
        for other in tools
        if other.name != tool.name
        and any(
            names_match(key, slot.name, plural=slot.path[-1] == ITEM)
            for key in _output_keys(other.raw.get("outputSchema"))
            for slot in slots
        )
    )
    names = ", ".join(sorted({slot.name for slot in slots}))
    ways = []
    if makers and sequences:
        ways.append(
            f"sequences: {', '.join(makers[:3])} return(s) what its {names} can take; the "
            "server's sequences item feeds them (its report section says what it reached)"
        )
    elif makers or (slots and not sequences):
        source = f" from what {', '.join(makers[:3])} return(s)" if makers else ""
        ways.append(f"sequences: --mcp-sequences=on feeds its {names}{source}")
    paths = _path_like(tool.input_schema)
    if paths:
        ways.append(
            f"roots: its {', '.join(paths)} look(s) like a path: --mcp-roots=DIR offers a "
            "folder holding files of the kind it reads"
        )
    ways.append(f"examples: inputs it accepts in [tool.mcp-contracts.tools.{tool.name}] examples")
    return ways
