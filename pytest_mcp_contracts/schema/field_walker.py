"""Walking a schema's fields lazily, within bounds: each field path (``$.items``,
``$.items[]``, ``$.metadata{*}``) is read only when asked for, and every read is counted
against ``SUMMARY_VISITS`` (fields deeper than ``DOCUMENT_DEPTH`` are not followed). The
summary, the field paths and the limits all walk a schema through a ``Walker``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from itertools import islice
from typing import Any, Final

from pytest_mcp_contracts.schema.budgets import DOCUMENT_DEPTH, SUMMARY_VISITS
from pytest_mcp_contracts.schema.document import SchemaDocument, declared_types
from pytest_mcp_contracts.schema.field_view import (
    ENUM_SHOWN,
    FieldView,
    SubSchema,
    combined,
    merge_views,
    own_limits,
    unique,
    view_types,
)
from pytest_mcp_contracts.schema.paths import child_path, items_path
from pytest_mcp_contracts.schema.refs import Unresolvable, unescape

EXTRA: Final = "{*}"


@dataclass(eq=False)
class FieldPath:
    """One field path: ``$.items``, ``$.items[]``, ``$.metadata{*}``."""

    path: str
    sub: SubSchema
    depth: int
    label: str  # as the field's line names it: key, ["odd key"], [] or {*}
    key: str | None = None
    optional: bool = False
    view: FieldView | None = None
    children: list[FieldPath] | None = None
    capped: bool = False


@dataclass(eq=False)
class FieldNode:
    """One line: a node, and the element nodes of the arrays it starts (``m[][]``)."""

    head: FieldPath
    end: FieldPath
    parent: FieldNode | None
    children: list[FieldNode] = field(default_factory=list)
    count: int = 0  # fields below, bounded
    capped: bool = False  # the count is a lower bound


class Walker:
    """Reads a schema on demand, every read counted against SUMMARY_VISITS."""

    def __init__(self, schema: Any) -> None:
        self.schema = schema
        self.doc = SchemaDocument.lenient(schema)
        self.visits = 0
        self.root = FieldPath("$", SubSchema(schema, ("#",)), 0, "$")

    def spend(self, visits: int) -> bool:
        self.visits += visits
        return self.visits <= SUMMARY_VISITS

    def view(self, node: FieldPath) -> FieldView:
        if node.view is None:
            node.view = self._view(node.sub, 0)
            node.capped |= node.view.capped
        return node.view

    def children(self, node: FieldPath) -> list[FieldPath]:
        if node.children is not None:
            return node.children
        view = self.view(node)
        kids: list[FieldPath] = []
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
                FieldPath(
                    child_path(node.path, key), sub, depth, label, key, key not in view.required
                )
            )
        if view.extra is not None:
            kids.append(FieldPath(node.path + EXTRA, view.extra, depth, EXTRA))
        if view.items is not None:
            kids.append(FieldPath(items_path(node.path), view.items, depth, "[]"))
        return kids

    def folded(self, e: FieldNode) -> Iterator[FieldView]:
        """The views of the plain arrays from a line's head to its end, outermost first."""
        node = e.head
        while node is not e.end:
            yield self.view(node)
            node = self.children(node)[0]

    def entry(self, head: FieldPath, parent: FieldNode | None) -> FieldNode:
        end = head
        while end.depth < DOCUMENT_DEPTH and _is_plain_array(self.view(end)):
            end = self.children(end)[0]
        return FieldNode(head, end, parent)

    def tree(self, node: FieldPath) -> list[FieldNode]:
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

    def _view(self, sub: SubSchema, depth: int) -> FieldView:
        if not sub.parts:
            return self._walk(sub.schema, sub.chain, depth)
        if depth > DOCUMENT_DEPTH:
            return FieldView(capped=True)
        views = [self._view(part, depth + 1) for part in sub.parts]
        return merge_views(views, alternatives=sub.alternatives)

    def _walk(self, schema: Any, chain: tuple[str, ...], depth: int) -> FieldView:
        if depth > DOCUMENT_DEPTH or not self.spend(1):
            return FieldView(capped=True)
        if schema is False:
            return FieldView(types=["never"])
        if not isinstance(schema, Mapping):
            return FieldView()
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
                parts.append(merge_views(views, alternatives=True))
        return merge_views(parts, alternatives=False)

    def _follow(
        self, ref: str, at: Mapping[str, Any], chain: tuple[str, ...], depth: int
    ) -> FieldView:
        try:
            target = self.doc.refs.lookup(ref, at)
        except Unresolvable as exc:
            why = "not fetched" if exc.reason == "remote" else "unresolved"
            return FieldView(types=[f"$ref {ref} ({why})"])
        pointer = target.pointer
        if pointer in chain:
            name = unescape(pointer.rsplit("/", 1)[-1])
            return FieldView(types=[f"→ {name if pointer != '#' else 'root'} (recursive)"])
        return self._walk(target.schema, (*chain, pointer), depth + 1)

    def _own(self, schema: Mapping[str, Any], chain: tuple[str, ...]) -> FieldView:
        """What ``schema``'s own keywords say, combinators and $ref aside."""
        view = FieldView()
        names = declared_types(schema)
        if names is not None:
            view.types = unique(str(name) for name in islice(names, 16))
        if schema.get("nullable") is True and view.types and "null" not in view.types:
            view.types.append("null")  # OpenAPI's spelling of "| null"
        props = schema.get("properties")
        if isinstance(props, Mapping):
            pairs = islice(props.items(), SUMMARY_VISITS)
            view.props = {str(key): SubSchema(sub, chain) for key, sub in pairs}
            self.spend(len(view.props))
        required = schema.get("required")
        if isinstance(required, list):
            view.required = {r for r in islice(required, SUMMARY_VISITS) if isinstance(r, str)}
        object_words = ("properties", "required", "additionalProperties", "patternProperties")
        view.is_object = "object" in view.types or any(word in schema for word in object_words)
        if view.is_object:
            extra = schema.get("additionalProperties", True)
            if isinstance(extra, Mapping) and extra:
                view.extra = SubSchema(extra, chain)
            closed = extra is False or schema.get("unevaluatedProperties") is False
            view.open = (not closed and view.extra is None) or bool(schema.get("patternProperties"))
        elements = schema.get("prefixItems")
        items = schema.get("items")
        tuple_items = elements if isinstance(elements, list) else items
        subs = (
            [SubSchema(s, chain) for s in islice(tuple_items, 64)]
            if isinstance(tuple_items, list)
            else []
        )
        if isinstance(items, Mapping) or items is True:
            subs.append(SubSchema(items, chain))
        if subs:
            view.items = combined(subs, alternatives=True)
        values = schema.get("enum")
        if isinstance(values, list):
            view.enum, view.enum_count = values[:ENUM_SHOWN], len(values)
        elif "const" in schema:
            view.enum, view.enum_count = [schema["const"]], 1
        if isinstance(schema.get("format"), str):
            view.formats = [schema["format"]]
        view.limits = own_limits(schema)
        return view


def _is_plain_array(view: FieldView) -> bool:
    return view_types(view) == ["array"] and view.items is not None and not view.props
