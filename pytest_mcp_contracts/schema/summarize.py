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
  ``(≥ 1 keys)``; ``limits.limits`` lists them by path, for machines.

Hostile schemas are bounded (``schema/budgets``): DOCUMENT_DEPTH levels of fields and of nested
$ref/allOf/anyOf, and SUMMARY_VISITS schemas walked, properties read and fields made per call.
Past a bound a count is a lower bound, shown as ``120+``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Final

from pytest_mcp_contracts.schema.budgets import DOCUMENT_DEPTH
from pytest_mcp_contracts.schema.document import union_text
from pytest_mcp_contracts.schema.field_paths import find_field, short_path
from pytest_mcp_contracts.schema.field_view import FieldView, view_types
from pytest_mcp_contracts.schema.field_walker import FieldNode, Walker
from pytest_mcp_contracts.schema.limits import VALUE_WIDTH, limit_notes
from pytest_mcp_contracts.text import shorten

MIN_BUDGET: Final = 3  # a heading, one field and the line saying what is hidden
DEFAULT_HINT: Final = "--field-path {path!r}"
_IDENTIFYING: Final = re.compile(
    r"(?i:id|name|title|status|type|url|email|price|amount|created|updated|timestamp)"
    r"|.*(?i:_id|_at)|.*[a-z0-9](?:Id|ID|At)"
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
    walker = Walker(schema)
    node = walker.root if field_path is None else find_field(walker, schema, field_path)
    order = walker.tree(node)
    top = order[0]
    # The root object's fields need no heading line; anything else does.
    plain = top.end is walker.root and view_types(walker.view(top.end)) == ["object"]
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

    def line(e: FieldNode, label: str, depth: int) -> str:
        view = walker.view(e.end)
        # The limits of the arrays a line folds in (ids[] says the items of ids) first.
        notes = [note for array in walker.folded(e) for note in limit_notes(array.limits)]
        notes += _notes(view, e)
        if any(c not in shown for c in e.children):
            count = f"{e.count}{'+' if e.capped else ''} field{'s' if e.count != 1 else ''}"
            seen = f", {below[e]} shown" if below[e] else ""
            notes.append(f"{count}{seen}; {hint.format(path=short_path(e.end.path))}")
        kinds = union_text(view_types(view))
        return f"{'  ' * depth}{label}: {kinds}" + "".join(f" ({n})" for n in notes)

    lines: list[str] = []
    if heading:
        lines.append(line(top, short_path(node.path) + _label_tail(top), 0))
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


# -- choosing what to show ------------------------------------------------------------------


def _select(top: FieldNode, order: list[FieldNode], room: int) -> tuple[set[FieldNode], int]:
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


def _lineage(e: FieldNode, top: FieldNode) -> Iterator[FieldNode]:
    while e is not top:
        yield e
        assert e.parent is not None
        e = e.parent


def _label_tail(e: FieldNode) -> str:
    return "[]" * (e.end.depth - e.head.depth) + ("?" if e.head.optional else "")


def _notes(view: FieldView, e: FieldNode) -> list[str]:
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
    return shorten(text, VALUE_WIDTH)


class _Verbatim(str):
    """A placeholder that a hint's ``{path!r}`` shows unquoted."""

    def __repr__(self) -> str:
        return str(self)
