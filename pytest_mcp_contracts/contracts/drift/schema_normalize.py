"""A schema as the comparison reads it (``Normalizer``), and the work one tool may spend.

Local ``$ref``s are followed lazily as the two schemas are walked side by side, each
followed at most RECURSION_UNROLL times along one path (the bounds are in
``schema/budgets``); a remote ``$ref`` is compared as an opaque value. Sibling keywords of a
``$ref`` (2019-09 and later), single-branch ``anyOf``/``oneOf`` and ``allOf`` branches are
merged into their schema when that is exact (no coupled keywords on both sides), so
refactors into ``$defs`` show no drift; and ``anyOf: [X, {"type": "null"}]`` reads as X with
"null" added to its type. Positional ``prefixItems`` are compared position by position (an
absent position means ``items``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from pytest_mcp_contracts.contracts.drift.json_values import MISSING, same
from pytest_mcp_contracts.contracts.drift.schema_keywords import (
    ANNOTATIONS,
    COUPLED,
    NULL_NEUTRAL,
    STRUCTURAL,
    type_names,
)
from pytest_mcp_contracts.schema.budgets import DRIFT_WORK, RECURSION_UNROLL
from pytest_mcp_contracts.schema.document import SchemaDocument, ordered_types
from pytest_mcp_contracts.schema.refs import resolve_pointer

_NORMALIZE_LEVELS: Final = 4  # nested allOf/anyOf merged per schema; deeper ones stay as they are
_RECURSION: Final = "(recursion)"  # a $ref cut by the unroll bound: equal on both sides


class Work:
    """The steps left for one tool, shared by both schemas and both sides."""

    def __init__(self) -> None:
        self.left = DRIFT_WORK
        self.reported = False

    def spend(self) -> bool:
        self.left -= 1
        return self.left >= 0


class Normalizer:
    """Reads one schema document for the comparison: follows its local refs and normalises
    sub-dialects, spending the tool's work."""

    def __init__(self, root: Mapping[str, Any], work: Work) -> None:
        self.root = root
        self.work = work
        self.doc = SchemaDocument.lenient(root)

    def locate(self, ref: str, at: str | Mapping[str, Any]) -> str | None:
        """The JSON pointer a ref written in the schema ``at`` leads to; None for remote,
        malformed or dangling refs (compared as opaque values)."""
        target = self.doc.refs.find(ref, at)
        return None if target is None else target.pointer

    def normalize(
        self, node: Any, refs: tuple[str, ...], level: int = 0
    ) -> tuple[Any, tuple[str, ...]]:
        """``node`` as a dict with its local refs followed and exact merges done (or, when
        it is no schema object, as it is), and the refs followed to get there."""
        if node is True:
            return {}, refs
        if not isinstance(node, Mapping):  # false, or no schema at all
            return node, refs
        at = self.doc.refs.where(node) if "$ref" in node else None
        out = dict(node)
        if not self.work.spend():
            return out, refs
        out, refs = self._follow_refs(out, refs, at or "#")
        if level < _NORMALIZE_LEVELS:
            out, refs = self._flatten_all_of(out, refs, level)
            out, refs = self._fold_branches(out, refs, level)
        if isinstance(out.get("items"), list) and "prefixItems" not in out:
            out["prefixItems"] = out.pop("items")  # draft-07 tuples are 2020-12 prefixItems
            if "additionalItems" in out:
                out["items"] = out.pop("additionalItems")
        return out, refs

    def _follow_refs(
        self, out: dict[str, Any], refs: tuple[str, ...], at: str
    ) -> tuple[dict[str, Any], tuple[str, ...]]:
        while isinstance(ref := out.get("$ref"), str):
            pointer = self.locate(ref, at)
            if pointer is None:
                break
            if refs.count(pointer) >= RECURSION_UNROLL:
                out["$ref"] = _RECURSION
                break
            refs, at = (*refs, pointer), pointer  # a further $ref now comes from the target
            target = _at_pointer(self.root, pointer)
            target = {} if target is True else {"not": {}} if target is False else target
            if not isinstance(target, Mapping):
                break
            siblings = {k: v for k, v in out.items() if k != "$ref"}
            merged = _merge(target, siblings) if siblings and not self.doc.legacy else dict(target)
            out = merged if merged is not None else {"allOf": [dict(target), siblings]}
        return out, refs

    def _flatten_all_of(
        self, out: dict[str, Any], refs: tuple[str, ...], level: int
    ) -> tuple[dict[str, Any], tuple[str, ...]]:
        branches = out.get("allOf")
        if not isinstance(branches, list):
            return out, refs
        merged = {k: v for k, v in out.items() if k != "allOf"}
        kept = []
        for branch in branches:
            resolved, branch_refs = self.normalize(branch, refs, level + 1)
            combined = _merge(resolved, merged) if isinstance(resolved, dict) else None
            if combined is None:
                kept.append(branch)
            else:
                merged, refs = combined, branch_refs
        if kept:
            merged["allOf"] = kept
        return merged, refs

    def _fold_branches(
        self, out: dict[str, Any], refs: tuple[str, ...], level: int
    ) -> tuple[dict[str, Any], tuple[str, ...]]:
        for key in ("anyOf", "oneOf"):
            branches = out.get(key)
            # Only [X] and [X, null]: wider unions cannot be folded soundly anyway.
            if not isinstance(branches, list) or not 1 <= len(branches) <= 2:
                continue
            resolved = [self.normalize(branch, refs, level + 1) for branch in branches]
            others = [(b, r) for b, r in resolved if not _is_null_schema(b)]
            if len(others) != 1 or not isinstance(others[0][0], dict):
                continue
            only, only_refs = others[0]
            if len(others) < len(resolved):
                only = _with_null(only, exclusive=key == "oneOf")
            merged = (
                None if only is None else _merge(only, {k: v for k, v in out.items() if k != key})
            )
            if merged is not None:
                out, refs = merged, only_refs
        return out, refs


def _merge(general: Mapping[str, Any], specific: Mapping[str, Any]) -> dict[str, Any] | None:
    """The schema both must hold for (``specific``'s annotations win), if one dict says it
    exactly; None otherwise."""
    out = {k: v for k, v in general.items() if k not in STRUCTURAL and k != "$schema"}
    unevaluated = {"unevaluatedProperties", "unevaluatedItems"}
    if not unevaluated.isdisjoint(out) or not unevaluated.isdisjoint(specific):
        return None  # they depend on every in-place sibling
    if any(not g.isdisjoint(out) and not g.isdisjoint(specific) for g in COUPLED):
        return None
    for key, value in specific.items():
        if key not in out or key in ANNOTATIONS:
            out[key] = value
        elif key == "required" and isinstance(value, list) and isinstance(out[key], list):
            out[key] = [*out[key], *(name for name in value if name not in out[key])]
        elif not same(out[key], value):
            return None
    return out


def _is_null_schema(schema: Any) -> bool:
    return (
        isinstance(schema, dict)
        and schema.get("type") in ("null", ["null"])
        and set(schema) <= ANNOTATIONS | {"type"}
    )


def _with_null(schema: dict[str, Any], *, exclusive: bool) -> dict[str, Any] | None:
    """``schema`` widened by null, when every keyword it has lets null through anyway."""
    types = type_names(schema.get("type"))
    enum = schema.get("enum", [])
    if not types or not set(schema) <= NULL_NEUTRAL or not isinstance(enum, list):
        return None
    if "null" in types:
        return None if exclusive else schema  # oneOf then refuses null: both branches match
    out = {**schema, "type": [*ordered_types(types), "null"]}
    if "enum" in schema and None not in enum:
        out["enum"] = [*enum, None]
    return out


def _at_pointer(root: Any, pointer: str) -> Any:
    try:
        return resolve_pointer(root, pointer)
    except KeyError:
        return MISSING
