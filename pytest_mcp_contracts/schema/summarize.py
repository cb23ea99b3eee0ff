"""Summarize: show a JSON Schema to a person without dumping it whole or cutting it blindly.

A tool can return hundreds of fields, and a schema printed whole buries the one that
matters. A summary folds instead: top-level fields, then identifying fields (ids, names,
statuses, prices, timestamps) wherever they are, then breadth-first while a line budget
lasts. Every container left partly closed says how many fields it holds and how to open it,
and ``field_path`` drills into one subtree. Paths use infer's notation (``$``, ``.name``,
``["odd key"]``, ``[]``) plus ``{*}``: the value of any key an object does not declare.

One line per field, indented two spaces a level: ``name?: type (note) (note)``.

- ``?`` after the name: an optional property. ``items[]``: each element of an array;
  ``matrix[][]``: of an array of arrays.
- ``a | b``: a union (a ``type`` list, ``anyOf``, ``oneOf``); the properties of every
  object branch are listed, required only if every object branch requires them.
- ``{*}: type``: additionalProperties given as a schema (drill in with ``metadata{*}``);
  ``(other keys allowed)``: an object open to undeclared keys of any type (additionalProperties
  true or absent). The root object, having no line of its own, says so on a last line.
- ``→ Node (recursive)``: a local ``$ref`` to a schema already being expanded on this path;
  ``$ref <uri> (not fetched)``: a remote one, never dereferenced.
- ``(enum: a, b)``, ``(enum of 120: a, b, c, d, e, …)``, ``(format email)``.
- Limits, as a client must meet them: ``(1..100)``, ``(> 0, ≤ 1)``, ``(multiple of 5)``,
  ``(length ≤ 64)``, ``(pattern ^A-[0-9]+$)``, ``(1..5 items)``, ``(unique items)``,
  ``(≥ 1 keys)``; ``limits`` lists them by path, for machines.

Hostile schemas are bounded (``schema/budgets``): DOCUMENT_DEPTH levels of fields and of nested
$ref/allOf/anyOf, and SUMMARY_VISITS schemas walked, properties read and fields made per call.
Past a bound a count is a lower bound, shown as ``120+``.
"""

from __future__ import annotations

import difflib
import json
import re
from collections import deque
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from itertools import islice
from typing import Any, Final, Literal

from pytest_mcp_contracts.schema.budgets import DOCUMENT_DEPTH, SUMMARY_VISITS
from pytest_mcp_contracts.schema.document import (
    SchemaDocument,
    declared_types,
    json_type,
    union_text,
)
from pytest_mcp_contracts.schema.paths import child_path, items_path
from pytest_mcp_contracts.schema.refs import Unresolvable, unescape
from pytest_mcp_contracts.text import shorten

MIN_BUDGET: Final = 3  # a heading, one field and the line saying what is hidden
DEFAULT_HINT: Final = "--field-path {path!r}"
ENUM_SHOWN: Final = 5
_VALUE_WIDTH: Final = 40
_CHILDREN_LISTED: Final = 20
_EXTRA: Final = "{*}"
_IDENTIFYING: Final = re.compile(
    r"(?i:id|name|title|status|type|url|email|price|amount|created|updated|timestamp)"
    r"|.*(?i:_id|_at)|.*[a-z0-9](?:Id|ID|At)"
)
_STEP: Final = re.compile(
    r'\.?(?:(\[(?:\d+|\*)?\])|(\{\*\})|\[("(?:[^"\\]|\\.)*")\]|([^.\[\]{}]+))'
)


@dataclass(frozen=True)
class Summary:
    """A schema, or one field path of it, folded to fit a line budget."""

    lines: tuple[str, ...]
    hidden: int  # fields not shown (0 = complete)
    total: int  # fields in the (sub)schema, counted through resolved refs, bounded
    path: str  # the field path summarised ("$" for the root)
    hint: str = DEFAULT_HINT  # how a fold marker says to open a container

    def render(self) -> str:
        """The lines, and when something is folded, a last line saying how much and how."""
        text = "\n".join(self.lines)
        if not self.hidden:
            return text
        how = self.hint.format(path=_Verbatim("PATH"))
        shown = self.total - self.hidden
        return f"{text}\n({shown} of {self.total} fields shown; open a folded container with {how})"


class FieldPathError(ValueError):
    """A field path the schema does not have (or cannot be parsed)."""

    def __init__(
        self, path: str, stopped_at: str, children: list[str], matches: list[str], why: str = ""
    ) -> None:
        self.path = path
        self.stopped_at = stopped_at
        self.children = children
        self.matches = matches
        if why:
            where = why
        elif children:
            listed = ", ".join(children[:_CHILDREN_LISTED])
            more = len(children) - _CHILDREN_LISTED
            where = f"fields there: {listed}" + (f", … {more} more" if more > 0 else "")
        else:
            where = "it has no fields"
        message = f"no field path {path!r}: stopped at {stopped_at!r}; {where}"
        if matches:
            message += "; did you mean " + " or ".join(map(repr, matches)) + "?"
        super().__init__(message)


def summarize(
    schema: Mapping[str, Any],
    *,
    budget: int = 30,
    field_path: str | None = None,
    hint: str = DEFAULT_HINT,
) -> Summary:
    """``schema`` (or the subtree at ``field_path``) in at most ``budget`` rendered lines.

    ``hint`` is formatted with ``path=`` the short path of a folded container.
    Raises FieldPathError for a path the schema does not have.
    """
    if budget < MIN_BUDGET:
        raise ValueError(f"budget must be at least {MIN_BUDGET} lines, not {budget}")
    walker = _Walker(schema)
    node = walker.root if field_path is None else _find(walker, schema, field_path)
    order = walker.tree(node)
    top = order[0]
    # The root object's fields need no heading line; anything else does.
    plain = top.end is walker.root and _types(walker.view(top.end)) == ["object"]
    heading = node is not walker.root or not plain
    fits = heading + top.count <= budget
    if fits:
        shown, overflow = set(order[1:]), 0
    else:  # the last line says what is hidden
        shown, overflow = _select(top, order, budget - heading - 1)

    below = {e: 0 for e in order}
    for e in reversed(order[1:]):
        assert e.parent is not None
        below[e.parent] += below[e] + (e in shown)

    def line(e: _Entry, label: str, depth: int) -> str:
        view = walker.view(e.end)
        # The limits of the arrays a line folds in (ids[] says the items of ids) first.
        notes = [note for array in walker.folded(e) for note in limit_notes(array.limits)]
        notes += _notes(view, e)
        if any(c not in shown for c in e.children):
            count = f"{e.count}{'+' if e.capped else ''} field{'s' if e.count != 1 else ''}"
            seen = f", {below[e]} shown" if below[e] else ""
            notes.append(f"{count}{seen}; {hint.format(path=_short(e.end.path))}")
        kinds = union_text(_types(view))
        return f"{'  ' * depth}{label}: {kinds}" + "".join(f" ({n})" for n in notes)

    lines: list[str] = []
    if heading:
        lines.append(line(top, _short(node.path) + _label_tail(top), 0))
    stack = [(c, int(heading)) for c in reversed(top.children) if c in shown]
    while stack:
        e, depth = stack.pop()
        lines.append(line(e, e.head.label + _label_tail(e), depth))
        stack += [(c, depth + 1) for c in reversed(e.children) if c in shown]
    if overflow:
        lines.append(f"{'  ' * heading}… {overflow} more field{'s' if overflow != 1 else ''}")
    hidden = top.count - len(shown)
    if not heading and walker.view(top.end).open and len(lines) + bool(hidden) < budget:
        lines.append("… other keys allowed")
    return Summary(tuple(lines), hidden, top.count, node.path, hint)


def field_paths(schema: Mapping[str, Any]) -> list[str]:
    """Every field path the schema has, breadth-first (``$.a``, ``$.a[]``, ``$.m{*}``…),
    bounded like a summary."""
    walker = _Walker(schema)
    paths: list[str] = []
    queue = deque([walker.root])
    while queue:
        for child in walker.children(queue.popleft()):
            paths.append(child.path)
            queue.append(child)
    return paths


# -- where a field's schema comes from, and what it allows ---------------------------------


@dataclass(frozen=True, eq=False)
class _Sub:
    """One subschema, or several that together describe one field."""

    schema: Any = None
    chain: tuple[str, ...] = ()  # local $refs followed to reach it: a repeat is recursion
    parts: tuple[_Sub, ...] = ()
    alternatives: bool = False  # parts are anyOf/oneOf branches rather than allOf conjuncts


def _combined(subs: list[_Sub], alternatives: bool) -> _Sub:
    return subs[0] if len(subs) == 1 else _Sub(parts=tuple(subs), alternatives=alternatives)


@dataclass
class _View:
    """What the schemas of one field allow, their combinators and refs merged."""

    types: list[str] = field(default_factory=list)
    is_object: bool = False
    props: dict[str, _Sub] = field(default_factory=dict)
    required: set[str] = field(default_factory=set)
    open: bool = False
    extra: _Sub | None = None
    items: _Sub | None = None
    enum: list[Any] = field(default_factory=list)
    enum_count: int = 0
    formats: list[str] = field(default_factory=list)
    limits: dict[str, Any] = field(default_factory=dict)  # LIMITS keywords and their values
    capped: bool = False


# The keywords that bound a value, as a summary shows them; for each bound, which value of
# two conjuncts (allOf) is the tighter.
LIMITS: Final = {
    "minimum": max,
    "exclusiveMinimum": max,
    "maximum": min,
    "exclusiveMaximum": min,
    "multipleOf": None,
    "minLength": max,
    "maxLength": min,
    "pattern": None,
    "minItems": max,
    "maxItems": min,
    "uniqueItems": None,
    "minProperties": max,
    "maxProperties": min,
}


def _own_limits(schema: Mapping[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for keyword in LIMITS:
        value = schema.get(keyword)
        if keyword == "pattern":
            usable = isinstance(value, str)
        elif keyword == "uniqueItems":
            usable = value is True
        else:
            usable = isinstance(value, int | float) and not isinstance(value, bool)
        if usable:
            found[keyword] = value
    # Draft-04: a boolean exclusiveMinimum (exclusiveMaximum) makes minimum (maximum) strict.
    for bound, strict in (("minimum", "exclusiveMinimum"), ("maximum", "exclusiveMaximum")):
        if schema.get(strict) is True and bound in found:
            found[strict] = found.pop(bound)
    return found


def _merged_limits(views: list[_View], *, alternatives: bool) -> dict[str, Any]:
    """Conjuncts (allOf) hold every bound, the tighter where both set one; alternatives
    (anyOf, oneOf) only a bound every branch sets alike."""
    if alternatives:
        first, *others = [view.limits for view in views]
        return {k: v for k, v in first.items() if all(o.get(k) == v for o in others)}
    out: dict[str, Any] = {}
    for view in views:
        for keyword, value in view.limits.items():
            tighter = LIMITS[keyword]
            held = out.get(keyword)
            out[keyword] = value if held is None or tighter is None else tighter(held, value)
    return out


def _types(view: _View) -> list[str]:
    if view.types:
        return view.types
    if view.is_object:
        return ["object"]
    if view.items is not None:
        return ["array"]
    if view.enum:
        return _unique(_kind(value) for value in view.enum)
    return ["any"]


def _kind(value: Any) -> str:
    try:
        return json_type(value)
    except TypeError:
        return "any"


def _unique(names: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(names))


def _meet(a: list[str], b: list[str]) -> list[str]:
    """Types allowed by both (allOf); an unconstrained side allows anything."""
    if not a or "any" in a:
        return b or a
    if not b or "any" in b:
        return a
    return [t for t in a if t in b] or a + [t for t in b if t not in a]  # contradiction: show all


def _merge(views: list[_View], *, alternatives: bool) -> _View:
    if len(views) == 1:
        return views[0]
    out = _View()
    props: dict[str, list[_Sub]] = {}
    extras: list[_Sub] = []
    items: list[_Sub] = []
    for view in views:
        if alternatives:
            out.types += [t for t in _types(view) if t not in out.types]
        else:
            out.types = _meet(out.types, view.types)
        for key, sub in view.props.items():
            props.setdefault(key, []).append(sub)
        extras += [view.extra] if view.extra else []
        items += [view.items] if view.items else []
        out.enum += view.enum[: ENUM_SHOWN - len(out.enum)]
        out.enum_count += view.enum_count
        out.formats += [f for f in view.formats if f not in out.formats]
        out.capped |= view.capped
    out.limits = _merged_limits(views, alternatives=alternatives)
    out.props = {key: _combined(subs, alternatives) for key, subs in props.items()}
    out.extra = _combined(extras, alternatives) if extras else None
    out.items = _combined(items, alternatives) if items else None
    objects = [view for view in views if view.is_object]
    if objects:
        out.is_object = True
        # A branch of a union need not have a field its sibling requires; a conjunct must.
        if alternatives:
            out.required = set.intersection(*(view.required for view in objects))
            out.open = any(view.open for view in objects)
        else:
            out.required = set().union(*(view.required for view in objects))
            out.open = all(view.open for view in objects)
    return out


# -- walking a schema lazily, within bounds -------------------------------------------------


@dataclass(eq=False)
class _FieldPath:
    """One field path: ``$.items``, ``$.items[]``, ``$.metadata{*}``."""

    path: str
    sub: _Sub
    depth: int
    label: str  # as the field's line names it: key, ["odd key"], [] or {*}
    key: str | None = None
    optional: bool = False
    view: _View | None = None
    children: list[_FieldPath] | None = None
    capped: bool = False


@dataclass(eq=False)
class _Entry:
    """One line: a node, and the element nodes of the arrays it starts (``m[][]``)."""

    head: _FieldPath
    end: _FieldPath
    parent: _Entry | None
    children: list[_Entry] = field(default_factory=list)
    count: int = 0  # fields below, bounded
    capped: bool = False  # the count is a lower bound


class _Walker:
    """Reads a schema on demand, every read counted against SUMMARY_VISITS."""

    def __init__(self, schema: Any) -> None:
        self.schema = schema
        self.doc = SchemaDocument.lenient(schema)
        self.visits = 0
        self.root = _FieldPath("$", _Sub(schema, ("#",)), 0, "$")

    def spend(self, visits: int) -> bool:
        self.visits += visits
        return self.visits <= SUMMARY_VISITS

    def view(self, node: _FieldPath) -> _View:
        if node.view is None:
            node.view = self._view(node.sub, 0)
            node.capped |= node.view.capped
        return node.view

    def children(self, node: _FieldPath) -> list[_FieldPath]:
        if node.children is not None:
            return node.children
        view = self.view(node)
        kids: list[_FieldPath] = []
        node.children = kids
        if node.depth >= DOCUMENT_DEPTH:
            return kids
        depth = node.depth + 1
        for key, sub in view.props.items():
            if not self.spend(1):
                node.capped = True
                return kids
            label = child_path("", key).removeprefix(".")
            kids.append(
                _FieldPath(
                    child_path(node.path, key), sub, depth, label, key, key not in view.required
                )
            )
        if view.extra is not None:
            kids.append(_FieldPath(node.path + _EXTRA, view.extra, depth, _EXTRA))
        if view.items is not None:
            kids.append(_FieldPath(items_path(node.path), view.items, depth, "[]"))
        return kids

    def folded(self, e: _Entry) -> Iterator[_View]:
        """The views of the plain arrays from a line's head to its end, outermost first."""
        node = e.head
        while node is not e.end:
            yield self.view(node)
            node = self.children(node)[0]

    def entry(self, head: _FieldPath, parent: _Entry | None) -> _Entry:
        end = head
        while end.depth < DOCUMENT_DEPTH and _is_plain_array(self.view(end)):
            end = self.children(end)[0]
        return _Entry(head, end, parent)

    def tree(self, node: _FieldPath) -> list[_Entry]:
        """The lines under ``node``, breadth-first (the first is ``node``'s own), counted."""
        order = [self.entry(node, None)]
        for e in order:  # grows as it goes: breadth-first, bounded by spend()
            e.children = [self.entry(child, e) for child in self.children(e.end)]
            e.capped = e.end.capped or self.view(e.end).capped
            order += e.children
        for e in reversed(order[1:]):
            assert e.parent is not None
            e.parent.count += 1 + e.count
            e.parent.capped |= e.capped
        return order

    def _view(self, sub: _Sub, depth: int) -> _View:
        if not sub.parts:
            return self._walk(sub.schema, sub.chain, depth)
        if depth > DOCUMENT_DEPTH:
            return _View(capped=True)
        views = [self._view(part, depth + 1) for part in sub.parts]
        return _merge(views, alternatives=sub.alternatives)

    def _walk(self, schema: Any, chain: tuple[str, ...], depth: int) -> _View:
        if depth > DOCUMENT_DEPTH or not self.spend(1):
            return _View(capped=True)
        if schema is False:
            return _View(types=["never"])
        if not isinstance(schema, Mapping):
            return _View()
        parts = [self._own(schema, chain)]
        ref = schema.get("$ref")
        if isinstance(ref, str):
            parts.append(self._follow(ref, schema, chain, depth))
        conjuncts = schema.get("allOf")
        if isinstance(conjuncts, list):
            parts += [self._walk(s, chain, depth + 1) for s in islice(conjuncts, SUMMARY_VISITS)]
        for keyword in ("anyOf", "oneOf"):
            branches = schema.get(keyword)
            if isinstance(branches, list) and branches:
                views = [self._walk(s, chain, depth + 1) for s in islice(branches, SUMMARY_VISITS)]
                parts.append(_merge(views, alternatives=True))
        return _merge(parts, alternatives=False)

    def _follow(self, ref: str, at: Mapping[str, Any], chain: tuple[str, ...], depth: int) -> _View:
        try:
            target = self.doc.refs.lookup(ref, at)
        except Unresolvable as exc:
            why = "not fetched" if exc.reason == "remote" else "unresolved"
            return _View(types=[f"$ref {ref} ({why})"])
        pointer = target.pointer
        if pointer in chain:
            name = unescape(pointer.rsplit("/", 1)[-1])
            return _View(types=[f"→ {name if pointer != '#' else 'root'} (recursive)"])
        return self._walk(target.schema, (*chain, pointer), depth + 1)

    def _own(self, schema: Mapping[str, Any], chain: tuple[str, ...]) -> _View:
        """What ``schema``'s own keywords say, combinators and $ref aside."""
        view = _View()
        names = declared_types(schema)
        if names is not None:
            view.types = _unique(str(name) for name in islice(names, 16))
        if schema.get("nullable") is True and view.types and "null" not in view.types:
            view.types.append("null")  # OpenAPI's spelling of "| null"
        props = schema.get("properties")
        if isinstance(props, Mapping):
            pairs = islice(props.items(), SUMMARY_VISITS)
            view.props = {str(key): _Sub(sub, chain) for key, sub in pairs}
            self.spend(len(view.props))
        required = schema.get("required")
        if isinstance(required, list):
            view.required = {r for r in islice(required, SUMMARY_VISITS) if isinstance(r, str)}
        object_words = ("properties", "required", "additionalProperties", "patternProperties")
        view.is_object = "object" in view.types or any(word in schema for word in object_words)
        if view.is_object:
            extra = schema.get("additionalProperties", True)
            if isinstance(extra, Mapping) and extra:
                view.extra = _Sub(extra, chain)
            closed = extra is False or schema.get("unevaluatedProperties") is False
            view.open = (not closed and view.extra is None) or bool(schema.get("patternProperties"))
        elements = schema.get("prefixItems")
        items = schema.get("items")
        tuple_items = elements if isinstance(elements, list) else items
        subs = (
            [_Sub(s, chain) for s in islice(tuple_items, 64)]
            if isinstance(tuple_items, list)
            else []
        )
        if isinstance(items, Mapping) or items is True:
            subs.append(_Sub(items, chain))
        if subs:
            view.items = _combined(subs, alternatives=True)
        values = schema.get("enum")
        if isinstance(values, list):
            view.enum, view.enum_count = values[:ENUM_SHOWN], len(values)
        elif "const" in schema:
            view.enum, view.enum_count = [schema["const"]], 1
        if isinstance(schema.get("format"), str):
            view.formats = [schema["format"]]
        view.limits = _own_limits(schema)
        return view


def _is_plain_array(view: _View) -> bool:
    return _types(view) == ["array"] and view.items is not None and not view.props


# -- choosing what to show ------------------------------------------------------------------


def _select(top: _Entry, order: list[_Entry], room: int) -> tuple[set[_Entry], int]:
    """The lines to show in ``room`` lines, and how many top-level fields did not fit."""
    if len(top.children) > room:
        return set(top.children[: room - 1]), len(top.children) - (room - 1)
    shown = set(top.children)
    left = room - len(shown)
    for e in order[1:]:
        if left and e not in shown and e.head.key and _IDENTIFYING.fullmatch(e.head.key):
            missing = [a for a in _lineage(e, top) if a not in shown]
            if len(missing) <= left:
                shown.update(missing)
                left -= len(missing)
    # Whole containers first, so fewer are left half open; then whatever still fits.
    for partly in (False, True):
        for e in order:
            closed = [c for c in e.children if c not in shown]
            if (e is top or e in shown) and closed and (partly or len(closed) <= left):
                shown.update(closed[:left])
                left -= len(closed[:left])
    return shown, 0


def _lineage(e: _Entry, top: _Entry) -> Iterator[_Entry]:
    while e is not top:
        yield e
        assert e.parent is not None
        e = e.parent


def _label_tail(e: _Entry) -> str:
    return "[]" * (e.end.depth - e.head.depth) + ("?" if e.head.optional else "")


def limits(schema: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every field's limits, breadth-first, bounded like a summary: ``{"path": "$.limit",
    "minimum": 1, "maximum": 100}``, ``{"path": "$.sort", "enumSize": 3}``."""
    walker = _Walker(schema)
    found = []
    queue = deque([walker.root])
    while queue:
        node = queue.popleft()
        view = walker.view(node)
        bounds = dict(view.limits)
        if view.enum_count:
            bounds["enumSize"] = view.enum_count
        if bounds:
            found.append({"path": node.path, **bounds})
        queue.extend(walker.children(node))
    return found


def limit_notes(bounds: Mapping[str, Any]) -> list[str]:
    """A value's limits in a summary's words: ``1..100``, ``length ≤ 64``, ``1..5 items``."""
    notes = []
    lower = _bound(bounds, "minimum", "≥", "exclusiveMinimum", ">")
    upper = _bound(bounds, "maximum", "≤", "exclusiveMaximum", "<")
    notes += _range("", lower, upper, "")
    if "multipleOf" in bounds:
        notes.append(f"multiple of {_number(bounds['multipleOf'])}")
    notes += _range("length ", _bound(bounds, "minLength", "≥"), _bound(bounds, "maxLength", "≤"))
    if "pattern" in bounds:
        notes.append(f"pattern {shorten(bounds['pattern'], _VALUE_WIDTH)}")
    notes += _range("", _bound(bounds, "minItems", "≥"), _bound(bounds, "maxItems", "≤"), " items")
    if bounds.get("uniqueItems") is True:
        notes.append("unique items")
    keys = (_bound(bounds, "minProperties", "≥"), _bound(bounds, "maxProperties", "≤"))
    notes += _range("", *keys, " keys")
    return notes


def _bound(
    bounds: Mapping[str, Any], inclusive: str, sign: str, exclusive: str = "", strict: str = ""
) -> tuple[str, Any] | None:
    """The tighter of a bound's inclusive and exclusive keywords, with its sign: ("≥", 1)
    or (">", 0); at an equal value the exclusive one is the tighter."""
    found = [(sign, bounds[inclusive])] if inclusive in bounds else []
    if exclusive in bounds:
        found.append((strict, bounds[exclusive]))
    if not found:
        return None
    if sign == "≥":
        return max(found, key=lambda bound: (bound[1], bound[0] == strict))
    return min(found, key=lambda bound: (bound[1], bound[0] != strict))


def _range(
    prefix: str, lower: tuple[str, Any] | None, upper: tuple[str, Any] | None, unit: str = ""
) -> list[str]:
    if lower is None and upper is None:
        return []
    if lower and upper and lower[0] == "≥" and upper[0] == "≤":
        return [f"{prefix}{_number(lower[1])}..{_number(upper[1])}{unit}"]
    parts = [f"{bound[0]} {_number(bound[1])}" for bound in (lower, upper) if bound]
    return [f"{prefix}{', '.join(parts)}{unit}"]


def _number(value: Any) -> str:
    return json.dumps(value)


def _notes(view: _View, e: _Entry) -> list[str]:
    notes: list[str] = limit_notes(view.limits)
    if view.enum_count:
        values = ", ".join(map(_value, view.enum))
        if view.enum_count > len(view.enum):
            notes.append(f"enum of {view.enum_count}: {values}, …")
        else:
            notes.append(f"enum: {values}")
    if view.formats:
        notes.append("format " + " | ".join(view.formats))
    if view.open:
        notes.append("other keys allowed")
    if e.end.depth >= DOCUMENT_DEPTH and (view.props or view.items or view.extra):
        notes.append(f"deeper than {DOCUMENT_DEPTH} levels: not shown")
    if view.capped or e.end.capped:
        notes.append("too deep or too large: not all shown")
    return notes


def _value(value: Any) -> str:
    if isinstance(value, Mapping | list):
        return "{…}" if isinstance(value, Mapping) else "[…]"  # may be nested without bound
    if isinstance(value, str) and value and ", " not in value:
        text = value
    else:
        text = json.dumps(value, ensure_ascii=False)
    return shorten(text, _VALUE_WIDTH)


def _short(path: str) -> str:
    """The path as a person types it: ``items[].sku`` for ``$.items[].sku``."""
    return path if path == "$" else path.removeprefix("$").removeprefix(".")


class _Verbatim(str):
    """A placeholder that a hint's ``{path!r}`` shows unquoted."""

    def __repr__(self) -> str:
        return str(self)


# -- drilling down --------------------------------------------------------------------------


def _steps(path: str) -> Iterator[tuple[Literal["key", "items", "extra"], str]]:
    text = path.strip().removeprefix("$").removeprefix(".")
    pos = 0
    while pos < len(text):
        match = _STEP.match(text, pos)
        try:
            if match is None:
                raise ValueError(text[pos:])
            items, extra, quoted, name = match.groups()
            key = json.loads(quoted) if quoted else name
        except ValueError:
            read = _short("$" + text[:pos])
            raise FieldPathError(path, read, [], [], f"cannot read {text[pos:]!r}") from None
        yield ("items", "") if items else ("extra", "") if extra else ("key", key)
        pos = match.end()


def _find(walker: _Walker, schema: Mapping[str, Any], path: str) -> _FieldPath:
    node = walker.root
    for kind, key in list(_steps(path)):  # an unreadable path is that, not an unknown one
        kids = walker.children(node)
        found = next((k for k in kids if _is_step(k, kind, key)), None)
        if found is None:
            raise _unknown(walker, schema, path, node, kind, key)
        node = found
    return node


def _is_step(node: _FieldPath, kind: str, key: str) -> bool:
    if kind == "key":
        return node.key == key
    return node.key is None and node.label == ("[]" if kind == "items" else _EXTRA)


def _unknown(
    walker: _Walker, schema: Mapping[str, Any], path: str, node: _FieldPath, kind: str, key: str
) -> FieldPathError:
    kids = walker.children(node)
    children = [_short(walker.entry(k, None).end.path) for k in kids]  # items[], not items
    wanted = _short(path.strip() if path.strip().startswith("$") else "$." + path.strip())
    everything = [_short(p) for p in field_paths(schema)]
    matches = difflib.get_close_matches(wanted, everything, n=3)
    if kind == "key":
        names = [k.key for k in kids if k.key is not None]
        close = difflib.get_close_matches(key, names, n=3)
        matches += [_short(child_path(node.path, name)) for name in close]
    why = ""
    if node.depth >= DOCUMENT_DEPTH:
        why = f"fields deeper than {DOCUMENT_DEPTH} levels are not followed"
    return FieldPathError(path, _short(node.path), children, _unique(matches)[:3], why)
