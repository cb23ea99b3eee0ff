"""Drift: compare an entry's recorded listing with its current one and classify each change.

The listing is a raw listing entry (name, title, description, inputSchema, outputSchema,
annotations). Each difference becomes a ``Change`` of one impact (``vocabulary.Impact``):

- breaking: the input side refuses something the old schema accepted, or the output side
  may now send something a client written against the old schema does not expect, or a
  tool annotation hint flipped, either way: a hint that now promises *more* safety
  (``destructiveHint`` true -> false, ``readOnlyHint`` false -> true, ...) is what a client
  that skips confirmation for safe tools trusts, so a tool that starts claiming it is the
  privilege escalation of a rug pull, not an improvement; a hint left out means the spec's
  default (``HINT_DEFAULTS``);
- review: cannot be classified soundly (combinators, a changed dialect, output
  constraints, hostile or huge schemas): it fails until a human accepts it;
- description: the tool's description or a property's (``description`` anywhere in either
  schema) changed, shown as a word diff (``contracts/wording``): descriptions are
  instructions to the model, and a changed one is how tool poisoning arrives after review
  (Invariant Labs' "rug pull"; mcp-diff, https://pypi.org/project/mcp-diff/, warns on it;
  lurq's mcp_drift calls a tool that stops being read-only "privilege widening"). It warns,
  and fails where descriptions are pinned or under --mcp-strict;
- additive: accepts more on input, promises more on output;
- cosmetic: titles, whitespace of descriptions, examples, defaults, unknown keywords,
  custom annotations, and hints a client ignores (``destructiveHint``/``idempotentHint``
  where ``readOnlyHint`` is true: the spec gives them meaning only when it is false).

Output constraints (ranges, lengths, patterns, formats, multipleOf, uniqueItems,
additionalProperties) are always ``review``: whether a client relies on a bound it was
told is not knowable from the schema. Output types, enums/consts, fields and
required-ness follow the client's view (wider breaks it, narrower does not).

Local ``$ref``s are followed lazily as the two schemas are walked side by side, each
followed at most RECURSION_UNROLL times along one path (the bounds are in
``schema/budgets``); a remote ``$ref`` is compared as an opaque value. Sibling keywords of a
``$ref`` (2019-09 and later), single-branch ``anyOf``/``oneOf`` and ``allOf`` branches are
merged into their schema when that is exact (no coupled keywords on both sides), so
refactors into ``$defs`` show no drift; and ``anyOf: [X, {"type": "null"}]`` reads as X with
"null" added to its type. Positional ``prefixItems`` are compared position by position (an
absent position means ``items``).

Hostile schemas stay bounded: the walk stops DRIFT_DEPTH levels down (one ``review`` change
if what lies deeper differs), spends at most DRIFT_WORK steps per tool, compares enums as
sets and never uses recursive equality or printing on raw values.
"""

from __future__ import annotations

import heapq
import json
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final, Literal

from pytest_mcp_contracts.contracts.change import Change, impact_rank
from pytest_mcp_contracts.contracts.wording import same_words, word_diff
from pytest_mcp_contracts.schema import dialects
from pytest_mcp_contracts.schema.budgets import DRIFT_DEPTH, DRIFT_WORK, RECURSION_UNROLL
from pytest_mcp_contracts.schema.document import (
    TYPE_ORDER,
    SchemaDocument,
    ordered_types,
)
from pytest_mcp_contracts.schema.paths import child_path, items_path
from pytest_mcp_contracts.schema.refs import resolve_pointer
from pytest_mcp_contracts.transport.discover import LISTINGS
from pytest_mcp_contracts.vocabulary import EntryKind, Impact

__all__ = [
    "HINT_DEFAULTS",
    "Change",
    "added",
    "diff_listing",
    "moved",
    "removed",
]


_UNSOUND: Final = "(cannot be classified soundly: review it)"
_SHOW: Final = 40

#: What a tool that leaves out an annotation hint means by it (the MCP spec's defaults).
HINT_DEFAULTS: Final = {
    "readOnlyHint": False,
    "destructiveHint": True,
    "idempotentHint": False,
    "openWorldHint": True,
}
# The value of each hint that promises the safer tool.
_SAFE_HINTS: Final = {
    "readOnlyHint": True,
    "destructiveHint": False,
    "idempotentHint": True,
    "openWorldHint": False,
}

# fmt: off
_ANNOTATIONS: Final = frozenset({
    "title", "description", "default", "examples", "$comment", "deprecated", "readOnly",
    "writeOnly", "contentMediaType", "contentEncoding",
})
# Only matter through the $refs that are resolved, or (additionalItems once prefixItems
# has absorbed a legacy items array) are ignored by validators.
_STRUCTURAL: Final = frozenset({
    "$defs", "definitions", "$id", "$anchor", "$dynamicAnchor", "$vocabulary", "additionalItems",
})
_UPPER: Final = ("maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties")
_LOWER: Final = ("minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties")
# Sub-schema keywords this module cannot classify, by how their sub-schemas pair up.
_APPLICATORS: Final[dict[str, Literal["list", "map", "one"]]] = {
    "allOf": "list", "anyOf": "list", "oneOf": "list",
    "dependentSchemas": "map", "patternProperties": "map", "dependencies": "map",
    "not": "one", "if": "one", "then": "one", "else": "one", "contains": "one",
    "propertyNames": "one", "unevaluatedProperties": "one", "unevaluatedItems": "one",
    "contentSchema": "one",
}
_OPAQUE: Final = frozenset({
    "$ref", "$dynamicRef", "$recursiveRef", "dependentRequired", "minContains", "maxContains",
})
_HANDLED: Final = frozenset({
    "type", "enum", "const", "properties", "required", "additionalProperties", "items",
    "prefixItems", "pattern", "format", "multipleOf", "uniqueItems", "$schema", *_UPPER, *_LOWER,
})
# Keywords whose meaning depends on a sibling: merging two schemas that each hold part of
# a group would change what they mean.
_COUPLED: Final = (
    frozenset({"properties", "patternProperties", "additionalProperties"}),
    frozenset({"prefixItems", "items", "additionalItems"}),
    frozenset({"contains", "minContains", "maxContains"}),
    frozenset({"if", "then", "else"}),
    frozenset({"maximum", "exclusiveMaximum"}),  # draft-04's boolean exclusiveMaximum
    frozenset({"minimum", "exclusiveMinimum"}),
)
# Keywords a null instance always passes (they constrain other types): X with only these
# means "X or null" once "null" is added to its type.
_NULL_NEUTRAL: Final = _ANNOTATIONS | _STRUCTURAL | frozenset({
    "type", "enum", *_UPPER, *_LOWER, "multipleOf", "pattern", "format", "items",
    "prefixItems", "contains", "minContains", "maxContains", "uniqueItems", "unevaluatedItems",
    "properties", "patternProperties", "additionalProperties", "required", "propertyNames",
    "dependentRequired", "dependentSchemas", "dependencies", "unevaluatedProperties",
    "contentSchema",
})
# fmt: on
_NORMALIZE_LEVELS: Final = 4  # nested allOf/anyOf merged per schema; deeper ones stay as they are
_RECURSION: Final = "(recursion)"  # a $ref cut by the unroll bound: equal on both sides
_MISSING: Final = object()  # absent, unlike a JSON null


def removed(kind: EntryKind) -> Change:
    """A recorded entry the server no longer lists: breaking, whatever its kind."""
    return Change(Impact.BREAKING, str(kind), "removed")


def added(kind: EntryKind) -> Change:
    return Change(Impact.ADDITIVE, str(kind), "new")


def diff_listing(kind: EntryKind, old: Mapping[str, Any], new: Mapping[str, Any]) -> list[Change]:
    """Every change from ``old`` to ``new`` (recorded listings of one entry of ``kind``:
    ``record.listing_of``), gravest first, then by path. A tool's are its schemas'; a
    prompt's, resource's or template's its members' (the classes below)."""
    if kind is EntryKind.TOOL:
        return _tool_changes(old, new)
    return _listing_changes(old, new)


def _tool_changes(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[Change]:
    work = _Work()
    changes = [
        Change(Impact.COSMETIC, key, _text_change(old.get(key, _MISSING), new.get(key, _MISSING)))
        for key in sorted(
            (set(old) | set(new))
            - {"name", "inputSchema", "outputSchema", "annotations", "description"}
        )
        if not _same(old.get(key, _MISSING), new.get(key, _MISSING))
    ]
    described = _description_change(
        old.get("description", _MISSING), new.get("description", _MISSING)
    )
    if described is not None:
        changes.append(Change(Impact(described[0]), "description", described[1]))
    changes += _schema_changes("input", old.get("inputSchema"), new.get("inputSchema"), work)
    changes += _schema_changes("output", old.get("outputSchema"), new.get("outputSchema"), work)
    changes += _annotation_changes(old.get("annotations"), new.get("annotations"))
    return sorted(set(changes), key=lambda c: (impact_rank(c.impact), c.path, c.change))


# ------------------------------------------------------- prompts, resources, templates
#
# A prompt, resource or template is recorded by its key (name, URI, URI template), so a
# changed key is the old entry removed and a new one added; ``moved`` says what the
# removed one became when a listed entry of the same kind keeps its name. The classes
# (docs/prompts-resources.md):
#
# - breaking: an entry removed; a prompt argument removed (a client that sends it is
#   refused by the Python SDK, "Error rendering prompt", and has its value silently dropped
#   by the TypeScript SDK, whose zod object strips unknown keys) or newly required (a
#   client that leaves it out is refused), a new required argument; a resource's or
#   template's mimeType changed
#   or removed (a client parses by it); a resource that moved to another URI; a template
#   whose variables changed (a client fills the old names);
# - review: a template with the same variables whose text changed (their order, or the
#   literal parts): a client that expands the listed template by variable name is
#   unaffected, but a URI it built from the old one may no longer resolve, which only a
#   person can judge (so it fails until accepted, as tools' unclassifiable changes do);
# - description: the description or title of an entry or of a prompt argument, and a
#   resource's or template's name, as a word diff: what a model or a user reads to choose it;
# - additive: a new entry, a new optional argument, a required argument made optional, a
#   mimeType declared where there was none;
# - cosmetic: the order of prompt arguments (they are sent by name), other members.


def _listing_changes(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[Change]:
    changes: list[Change] = []
    for key in sorted(set(old) | set(new)):
        was, now = old.get(key, _MISSING), new.get(key, _MISSING)
        if _same(was, now):
            continue
        if key in ("description", "title", "name"):
            described = _description_change(was, now)
            if described is not None:
                changes.append(Change(Impact(described[0]), key, described[1]))
        elif key == "arguments":
            changes += _argument_changes(was, now)
        elif key == "mimeType":
            grade = Impact.ADDITIVE if was is _MISSING else Impact.BREAKING
            changes.append(Change(grade, key, _value_change(was, now)))
        elif key in ("uri", "uriTemplate"):  # the key itself: a file records one entry
            changes.append(Change(Impact.BREAKING, key, _value_change(was, now)))
        else:
            changes.append(Change(Impact.COSMETIC, key, _text_change(was, now)))
    return sorted(set(changes), key=lambda c: (impact_rank(c.impact), c.path, c.change))


def moved(
    kind: EntryKind, old: Mapping[str, Any], listed_now: Sequence[Mapping[str, Any]]
) -> Change | None:
    """What a removed resource or template became, when an entry of the same kind now
    listed has its name: None when none has (or for a tool or prompt, whose name is its
    key)."""
    name = old.get("name")
    if kind not in (EntryKind.RESOURCE, EntryKind.TEMPLATE) or not isinstance(name, str):
        return None
    key_field = LISTINGS[kind].key_field
    same = [e for e in listed_now if e.get("name") == name]
    if len(same) != 1 or not isinstance(same[0].get(key_field), str):
        return None
    was, now = old.get(key_field), same[0][key_field]
    if not isinstance(was, str):
        return None
    if kind == EntryKind.RESOURCE:
        return Change(Impact.BREAKING, "uri", f"{_show(was)} -> {_show(now)} (the same name)")
    from pytest_mcp_contracts.schema.synthetic import template_variables

    before, after = template_variables(was), template_variables(now)
    moved = f"{_show(was)} -> {_show(now)}"
    if set(before) == set(after):
        return Change(
            Impact.REVIEW,
            key_field,
            f"{moved}: the same variables, reordered or in other literal text (a URI built "
            "from the old template may no longer resolve)",
        )
    gone = [v for v in before if v not in after]
    came = [v for v in after if v not in before]
    parts = [
        f"{label} {', '.join(names)}"
        for label, names in (("removed", gone), ("added", came))
        if names
    ]
    return Change(Impact.BREAKING, key_field, f"{moved}: variables {'; '.join(parts)}")


def _argument_changes(old: Any, new: Any) -> list[Change]:
    """A prompt's arguments, matched by name (clients send them by name)."""
    was, now = _named(old), _named(new)
    if was is None or now is None:
        return [Change(Impact.REVIEW, "arguments", f"changed {_UNSOUND}")]
    gone = [name for name in was if name not in now]
    came = [name for name in now if name not in was]
    changes = []
    if len(gone) == 1 and len(came) == 1:
        # One change, honestly worded: the names differ, so it may be a rename or not.
        (name,), (other,) = gone, came
        required = now[other].get("required") is True
        changes.append(
            Change(
                Impact.BREAKING,
                child_path("arguments", name),
                f"removed, and {other!r} added ({'required' if required else 'optional'}): "
                f"renamed to {other!r}?",
            )
        )
    else:
        changes += [Change(Impact.BREAKING, child_path("arguments", n), "removed") for n in gone]
        for name in came:
            required = now[name].get("required") is True
            changes.append(
                Change(
                    Impact.BREAKING if required else Impact.ADDITIVE,
                    child_path("arguments", name),
                    "new (required)" if required else "new (optional)",
                )
            )
    for name in (n for n in was if n in now):
        changes += _argument_change(child_path("arguments", name), was[name], now[name])
    kept = [n for n in was if n in now]
    if kept != [n for n in now if n in was]:
        changes.append(Change(Impact.COSMETIC, "arguments", "reordered"))
    return changes


def _argument_change(path: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> list[Change]:
    changes = []
    for key in sorted((set(old) | set(new)) - {"name"}):
        was, now = old.get(key, _MISSING), new.get(key, _MISSING)
        if _same(was, now):
            continue
        if key == "required":
            before, after = was is True, now is True
            if before != after:
                changes.append(
                    Change(Impact.BREAKING, path, "optional -> required")
                    if after
                    else Change(Impact.ADDITIVE, path, "required -> optional")
                )
        elif key in ("description", "title"):
            described = _description_change(was, now)
            if described is not None:
                changes.append(Change(Impact(described[0]), path, f"{key} {described[1]}"))
        else:
            changes.append(Change(Impact.COSMETIC, path, f"{key} {_text_change(was, now)}"))
    return changes


def _named(arguments: Any) -> dict[str, Mapping[str, Any]] | None:
    """A prompt's arguments by name, in order ({} when there are none); None when they are
    not a list of objects with distinct string names."""
    if arguments is _MISSING or arguments is None:
        return {}
    if not isinstance(arguments, list):
        return None
    out: dict[str, Mapping[str, Any]] = {}
    for argument in arguments:
        if not isinstance(argument, Mapping) or not isinstance(argument.get("name"), str):
            return None
        if argument["name"] in out:
            return None
        out[argument["name"]] = argument
    return out


def _value_change(old: Any, new: Any) -> str:
    if old is _MISSING:
        return f"declared: {_show(new)}"
    if new is _MISSING:
        return f"removed (was {_show(old)})"
    return f"{_show(old)} -> {_show(new)}"


# --------------------------------------------------------------------------- tool level


def _schema_changes(side: _Side, old: Any, new: Any, work: _Work) -> list[Change]:
    label = f"{side}Schema"
    if _same(old, new):
        return []  # the same text means the same: no walk, however large
    if isinstance(old, Mapping) and isinstance(new, Mapping):
        differ = _Differ(side, _Normalizer(old, work), _Normalizer(new, work), work)
        differ.compare(old, new, _Where(side, 0))
        return differ.changes
    if side == "output" and old is None and new is not None:
        return [Change(Impact.ADDITIVE, label, "declared")]
    if side == "output" and new is None and old is not None:
        return [Change(Impact.BREAKING, label, "removed")]
    return [Change(Impact.REVIEW, label, "changed")]


def _annotation_changes(old: Any, new: Any) -> list[Change]:
    old = {} if old is None else old
    new = {} if new is None else new
    if not (isinstance(old, Mapping) and isinstance(new, Mapping)):
        return [] if _same(old, new) else [Change(Impact.REVIEW, "annotations", "changed")]
    read_only = "readOnlyHint"
    # The spec: destructiveHint and idempotentHint are "meaningful only when readOnlyHint
    # == false"; where it is true, a client ignores them (and a flip of readOnlyHint is
    # its own breaking change).
    ignored = old.get(read_only) is True or new.get(read_only) is True
    changes = []
    for key in sorted(set(old) | set(new)):
        path = child_path("annotations", key)
        if key not in HINT_DEFAULTS:
            was, now = old.get(key, _MISSING), new.get(key, _MISSING)
            if not _same(was, now):
                changes.append(Change(Impact.COSMETIC, path, _text_change(was, now)))
            continue
        was, now = old.get(key, HINT_DEFAULTS[key]), new.get(key, HINT_DEFAULTS[key])
        if not (isinstance(was, bool) and isinstance(now, bool)):
            if not _same(was, now):
                changes.append(Change(Impact.REVIEW, path, f"{_show(was)} -> {_show(now)}"))
        elif was != now:
            text = f"{_show(was)} -> {_show(now)}"
            if ignored and key in ("destructiveHint", "idempotentHint"):
                changes.append(
                    Change(Impact.COSMETIC, path, f"{text} (ignored: readOnlyHint is true)")
                )
            elif now == _SAFE_HINTS[key]:
                # Breaking too: a client that runs "safe" tools without asking now would.
                changes.append(Change(Impact.BREAKING, path, f"{text} {_SAFER}"))
            else:
                changes.append(Change(Impact.BREAKING, path, text))
    return changes


_SAFER: Final = "(now claims a safer tool: clients that trust hints may stop asking first)"


def _description_change(
    old: Any, new: Any
) -> tuple[Literal["description", "cosmetic"], str] | None:
    """A changed description (``_MISSING`` where there is none) as its class and its text:
    a word diff, or None when nothing changed."""
    if _same(old, new):
        return None
    was = "" if old is _MISSING else old
    now = "" if new is _MISSING else new
    if not (isinstance(was, str) and isinstance(now, str)):
        return "description", _text_change(old, new)
    if same_words(was, now):
        return "cosmetic", "whitespace changed"
    return "description", word_diff(was, now)


def _text_change(old: Any, new: Any) -> str:
    if isinstance(old, str) and isinstance(new, str) and len(old) < 60 and len(new) < 60:
        return f"{old!r} -> {new!r}"
    return "changed"


# --------------------------------------------------------------------------- documents


class _Work:
    """The steps left for one tool, shared by both schemas and both sides."""

    def __init__(self) -> None:
        self.left = DRIFT_WORK
        self.reported = False

    def spend(self) -> bool:
        self.left -= 1
        return self.left >= 0


class _Normalizer:
    """Reads one schema document for the comparison: follows its local refs and normalises
    sub-dialects, spending the tool's work."""

    def __init__(self, root: Mapping[str, Any], work: _Work) -> None:
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
    out = {k: v for k, v in general.items() if k not in _STRUCTURAL and k != "$schema"}
    unevaluated = {"unevaluatedProperties", "unevaluatedItems"}
    if not unevaluated.isdisjoint(out) or not unevaluated.isdisjoint(specific):
        return None  # they depend on every in-place sibling
    if any(not g.isdisjoint(out) and not g.isdisjoint(specific) for g in _COUPLED):
        return None
    for key, value in specific.items():
        if key not in out or key in _ANNOTATIONS:
            out[key] = value
        elif key == "required" and isinstance(value, list) and isinstance(out[key], list):
            out[key] = [*out[key], *(name for name in value if name not in out[key])]
        elif not _same(out[key], value):
            return None
    return out


def _is_null_schema(schema: Any) -> bool:
    return (
        isinstance(schema, dict)
        and schema.get("type") in ("null", ["null"])
        and set(schema) <= _ANNOTATIONS | {"type"}
    )


def _with_null(schema: dict[str, Any], *, exclusive: bool) -> dict[str, Any] | None:
    """``schema`` widened by null, when every keyword it has lets null through anyway."""
    types = _type_names(schema.get("type"))
    enum = schema.get("enum", [])
    if not types or not set(schema) <= _NULL_NEUTRAL or not isinstance(enum, list):
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
        return _MISSING


# --------------------------------------------------------------------------- the walk

_Side = Literal["input", "output"]
# What a change does to the set of accepted values ("changed": both more and less).
_Effect = Literal["tightened", "loosened", "changed", "review", "description", "cosmetic"]


def _impact(side: _Side, effect: _Effect, constraint: bool) -> Impact:
    if effect == "review" or effect == "cosmetic" or effect == "description":
        return Impact(effect)
    if side == "input":  # the client sends: anything refused that was accepted breaks it
        return Impact.ADDITIVE if effect == "loosened" else Impact.BREAKING
    if constraint:
        return Impact.REVIEW
    return Impact.ADDITIVE if effect == "tightened" else Impact.BREAKING  # the client receives


@dataclass(frozen=True)
class _Where:
    path: str
    depth: int
    old_refs: tuple[str, ...] = ()
    new_refs: tuple[str, ...] = ()

    def to(self, path: str) -> _Where:
        return _Where(path, self.depth + 1, self.old_refs, self.new_refs)


class _Differ:
    """Walks an old and a new schema side by side and collects their changes."""

    def __init__(self, side: _Side, old: _Normalizer, new: _Normalizer, work: _Work) -> None:
        self.side = side
        self.old = old
        self.new = new
        self.work = work
        self.changes: list[Change] = []

    def note(self, path: str, effect: _Effect, text: str, *, constraint: bool = False) -> None:
        self.changes.append(Change(_impact(self.side, effect, constraint), path, text))

    def compare(self, old_raw: Any, new_raw: Any, at: _Where) -> None:
        if at.depth > DRIFT_DEPTH:
            if not _same(old_raw, new_raw):
                self.note(at.path, "review", "nested too deeply to compare")
            return
        if not self.work.spend():
            if not self.work.reported:
                self.work.reported = True
                self.note(at.path, "review", "too large to compare: review it")
            return
        old, old_refs = self.old.normalize(old_raw, at.old_refs)
        new, new_refs = self.new.normalize(new_raw, at.new_refs)
        if (old is False) != (new is False) and _is_schema(old) and _is_schema(new):
            text = f"{_schema_label(old)} -> {_schema_label(new)}"
            self.note(at.path, "tightened" if new is False else "loosened", text)
            return
        if not (isinstance(old, dict) and isinstance(new, dict)):
            if not _same(old, new):
                self.note(at.path, "review", "changed")
            return
        at = replace(at, old_refs=old_refs, new_refs=new_refs)
        self._dialect(old, new, at)
        self._type(old, new, at)
        self._values(old, new, at)
        self._object(old, new, at)
        self._array(old, new, at)
        self._bounds(old, new, at)
        self._texts(old, new, at)
        self._multiple_of(old, new, at)
        self._unique_items(old, new, at)
        for key in sorted((set(old) | set(new)) - _HANDLED - _STRUCTURAL):
            self._other(key, old.get(key, _MISSING), new.get(key, _MISSING), at)

    # -- keywords --------------------------------------------------------------------

    def _dialect(self, old: dict[str, Any], new: dict[str, Any], at: _Where) -> None:
        was, now = _dialect_name(old.get("$schema")), _dialect_name(new.get("$schema"))
        if was != now:
            self.note(at.path, "review", f"$schema {was} -> {now} {_UNSOUND}")

    def _type(self, old: dict[str, Any], new: dict[str, Any], at: _Where) -> None:
        was, now = old.get("type"), new.get("type")
        was_names, now_names = _type_names(was), _type_names(now)
        if was_names is False or now_names is False:
            if not _same(was, now):
                self.note(at.path, "review", f"type changed {_UNSOUND}")
            return
        before, after = _accepted(was_names), _accepted(now_names)
        if before != after:
            effect: _Effect = (
                "loosened" if before < after else "tightened" if after < before else "changed"
            )
            self.note(at.path, effect, f"{_type_label(was_names)} -> {_type_label(now_names)}")

    def _values(self, old: dict[str, Any], new: dict[str, Any], at: _Where) -> None:
        was, now = _allowed_values(old), _allowed_values(new)
        if was is False or now is False:
            for key in ("enum", "const"):
                if not _same(old.get(key), new.get(key)):
                    self.note(at.path, "review", f"{key} changed {_UNSOUND}")
            return
        if was is None and now is None:
            return
        if was is None and now is not None:
            self.note(at.path, "tightened", f"{_values_label(new)} added: {_show_values(now)}")
        elif now is None and was is not None:
            self.note(at.path, "loosened", f"{_values_label(old)} removed")
        elif was is not None and now is not None:
            removed, added = was.keys() - now.keys(), now.keys() - was.keys()
            if "enum" not in old and "enum" not in new and removed and added:
                self.note(
                    at.path, "changed", f"const {_show(old['const'])} -> {_show(new['const'])}"
                )
                return
            if removed:
                self.note(at.path, "tightened", _enum_delta("removed", removed, was))
            if added:
                self.note(at.path, "loosened", _enum_delta("added", added, now))

    def _object(self, old: dict[str, Any], new: dict[str, Any], at: _Where) -> None:
        self._additional(old, new, at)
        old_props, new_props = old.get("properties", {}), new.get("properties", {})
        old_required, new_required = (
            _names(old.get("required", [])),
            _names(new.get("required", [])),
        )
        if (
            not isinstance(old_props, Mapping)
            or not isinstance(new_props, Mapping)
            or old_required is None
            or new_required is None
        ):
            for key in ("properties", "required"):
                if not _same(old.get(key), new.get(key)):
                    self.note(at.path, "review", f"{key} changed {_UNSOUND}")
            return
        extras = _extras(new)
        for name in sorted(set(old_props) | set(new_props) | old_required | new_required):
            path = child_path(at.path, name)
            in_old = name in old_props or name in old_required
            in_new = name in new_props or name in new_required
            if not in_old:
                if self.side == "output":
                    self.note(path, "tightened", "new")
                elif name in new_required:
                    self.note(path, "tightened", "new (required)")
                else:
                    self.note(path, "loosened", "new (optional)")
            elif not in_new:
                if self.side == "output" or extras == "refused":
                    self.note(path, "tightened" if self.side == "input" else "loosened", "removed")
                elif extras == "allowed":
                    self.note(path, "loosened", "removed (now accepted as an extra property)")
                else:
                    self.note(
                        path, "review", f"removed (extra properties are constrained) {_UNSOUND}"
                    )
            else:
                if (name in old_required) != (name in new_required):
                    now_required = name in new_required
                    text = "optional -> required" if now_required else "required -> optional"
                    self.note(path, "tightened" if now_required else "loosened", text)
                self.compare(old_props.get(name, True), new_props.get(name, True), at.to(path))

    def _additional(self, old: dict[str, Any], new: dict[str, Any], at: _Where) -> None:
        was, now = old.get("additionalProperties", True), new.get("additionalProperties", True)
        if _same(was, now) or (_accepts_all(was) and _accepts_all(now)):
            return
        if was is not False and now is not False and _is_schema(was) and _is_schema(now):
            self.compare(was, now, at.to(f"{at.path}.*"))  # true is {} here: recurse
        elif _is_schema(was) and _is_schema(now):
            text = f"additionalProperties {_schema_label(was)} -> {_schema_label(now)}"
            self.note(at.path, "tightened" if now is False else "loosened", text, constraint=True)
        else:
            self.note(at.path, "review", f"additionalProperties changed {_UNSOUND}")

    def _array(self, old: dict[str, Any], new: dict[str, Any], at: _Where) -> None:
        if not {"items", "prefixItems"} & (old.keys() | new.keys()):
            return
        old_prefix, new_prefix = old.get("prefixItems", []), new.get("prefixItems", [])
        if not (isinstance(old_prefix, list) and isinstance(new_prefix, list)):
            self.note(at.path, "review", f"prefixItems changed {_UNSOUND}")
            return
        old_rest, new_rest = old.get("items", True), new.get("items", True)
        # A position beyond prefixItems is governed by items: compare what each position gets.
        for i in range(max(len(old_prefix), len(new_prefix))):
            was = old_prefix[i] if i < len(old_prefix) else old_rest
            now = new_prefix[i] if i < len(new_prefix) else new_rest
            self.compare(was, now, at.to(f"{at.path}[{i}]"))
        self.compare(old_rest, new_rest, at.to(items_path(at.path)))

    def _bounds(self, old: dict[str, Any], new: dict[str, Any], at: _Where) -> None:
        for key in (*_UPPER, *_LOWER):
            was, now = old.get(key), new.get(key)
            if self._added_or_removed(key, was, now, at, _is_number_or_none):
                continue
            assert was is not None and now is not None  # both numbers, and they differ
            lower = now < was if key in _UPPER else now > was
            effect: _Effect = "tightened" if lower else "loosened"
            self.note(at.path, effect, f"{key} {_show(was)} -> {_show(now)}", constraint=True)

    def _texts(self, old: dict[str, Any], new: dict[str, Any], at: _Where) -> None:
        for key in ("pattern", "format"):
            was, now = old.get(key), new.get(key)
            if self._added_or_removed(key, was, now, at, lambda v: isinstance(v, str | None)):
                continue
            text = f"{key} {_show(was)} -> {_show(now)}"
            self.note(at.path, "changed", text, constraint=True)

    def _added_or_removed(
        self, key: str, was: Any, now: Any, at: _Where, valid: Callable[[Any], bool]
    ) -> bool:
        """Note a constraint that appeared, went, or is not of a comparable kind; False when
        both sides hold comparable values that differ (the caller classifies the change)."""
        if _same(was, now):
            return True
        if not (valid(was) and valid(now)):
            self.note(at.path, "review", f"{key} changed {_UNSOUND}")
        elif was is None:
            self.note(at.path, "tightened", f"{key} added: {_show(now)}", constraint=True)
        elif now is None:
            self.note(at.path, "loosened", f"{key} removed: {_show(was)}", constraint=True)
        else:
            return False
        return True

    def _multiple_of(self, old: dict[str, Any], new: dict[str, Any], at: _Where) -> None:
        was, now = old.get("multipleOf"), new.get("multipleOf")
        if self._added_or_removed(
            "multipleOf", was, now, at, lambda v: _is_number_or_none(v) and v != 0
        ):
            return
        assert was is not None and now is not None  # both non-zero numbers, and they differ
        # Multiples of 4 are multiples of 2: only a divisor of the old step loosens.
        effect: _Effect = "loosened" if _divides(now, was) else "tightened"
        text = f"multipleOf {_show(was)} -> {_show(now)}"
        self.note(at.path, effect, text, constraint=True)

    def _unique_items(self, old: dict[str, Any], new: dict[str, Any], at: _Where) -> None:
        was, now = old.get("uniqueItems", False), new.get("uniqueItems", False)
        if _same(was, now):
            return
        if not (isinstance(was, bool) and isinstance(now, bool)):
            self.note(at.path, "review", f"uniqueItems changed {_UNSOUND}")
        else:
            effect: _Effect = "tightened" if now else "loosened"
            self.note(at.path, effect, f"uniqueItems {_show(was)} -> {_show(now)}", constraint=True)

    def _other(self, key: str, was: Any, now: Any, at: _Where) -> None:
        """Any other keyword; ``_MISSING`` when one side does not have it."""
        if _same(was, now):
            return
        if key == "description":
            effect, text = _description_change(was, now) or ("cosmetic", "")
            self.note(at.path, effect, f"description {text}")
            return
        what = "added" if was is _MISSING else "removed" if now is _MISSING else "changed"
        if key in _APPLICATORS:
            if was is _MISSING or now is _MISSING:
                self.note(at.path, "review", f"{key} {what} {_UNSOUND}")
            else:
                self._applicator(key, was, now, at)
        elif key in _OPAQUE:
            self.note(at.path, "review", f"{key} {what} {_UNSOUND}")
        else:  # annotations and unknown keywords: validators ignore both
            self.note(at.path, "cosmetic", f"{key} {what}")

    def _applicator(self, key: str, was: Any, now: Any, at: _Where) -> None:
        """Sub-schemas whose changes cannot be classified: only "no change" and "only
        annotations changed" are sound verdicts."""
        scratch = _Differ(self.side, self.old, self.new, self.work)
        sound = True
        for a, b in _pairs(_APPLICATORS[key], was, now):
            if a is _MISSING:
                sound = False
            elif _is_schema(a) and _is_schema(b):
                scratch.compare(a, b, at.to(at.path))
            elif not _same(a, b):
                sound = False
        impacts = {change.impact for change in scratch.changes}
        if not sound or impacts - {Impact.COSMETIC, Impact.DESCRIPTION}:
            self.note(at.path, "review", f"{key} changed {_UNSOUND}")
            return
        # A description inside a branch is still an instruction to the model: said as such.
        for change in scratch.changes:
            if change.impact is Impact.DESCRIPTION:
                self.note(at.path, "description", f"{key}: {change.change}")
        if Impact.COSMETIC in impacts:
            self.note(at.path, "cosmetic", f"{key} changed (annotations only)")


def _pairs(shape: str, was: Any, now: Any) -> Iterator[tuple[Any, Any]]:
    """Sub-schemas of one applicator, old with new; (_MISSING, None) when they do not pair."""
    if shape == "list" and isinstance(was, list) and isinstance(now, list):
        if len(was) == len(now):
            yield from zip(was, now, strict=True)
            return
    elif shape == "map" and isinstance(was, Mapping) and isinstance(now, Mapping):
        if was.keys() == now.keys():
            yield from ((was[k], now[k]) for k in was)
            return
    elif shape == "one":
        yield was, now
        return
    yield _MISSING, None


# --------------------------------------------------------------------------- values


def _is_schema(value: Any) -> bool:
    return isinstance(value, bool | Mapping)


def _accepts_all(schema: Any) -> bool:
    return schema is True or (isinstance(schema, Mapping) and not schema)


def _extras(schema: Mapping[str, Any]) -> Literal["allowed", "refused", "constrained"]:
    """Whether a property the schema does not name is accepted."""
    if {"patternProperties", "propertyNames", "unevaluatedProperties"} & schema.keys():
        return "constrained"
    extra = schema.get("additionalProperties", True)
    if _accepts_all(extra):
        return "allowed"
    return "refused" if extra is False else "constrained"


def _schema_label(schema: Any) -> str:
    return "false" if schema is False else "true" if _accepts_all(schema) else "schema"


def _dialect_name(uri: Any) -> str:
    if uri is None:
        return dialects.DEFAULT_DIALECT
    try:
        return dialects.dialect_of({"$schema": uri})
    except dialects.UnsupportedDialect:
        return _show(uri)


def _type_names(raw: Any) -> frozenset[str] | Literal[False] | None:
    """The type names (None: no type keyword), or False when it is not one."""
    if raw is None:
        return None
    if isinstance(raw, str):
        return frozenset({raw})
    if isinstance(raw, list) and raw and all(isinstance(name, str) for name in raw):
        return frozenset(raw)
    return False


def _accepted(names: frozenset[str] | None) -> frozenset[str]:
    if names is None:
        return frozenset(TYPE_ORDER)
    return names | {"integer"} if "number" in names else names


def _type_label(names: frozenset[str] | None) -> str:
    # Drift keeps its own spelling of a union, the ``type`` keyword's list: the docs and
    # users' CI logs quote it, and drift lines are sorted by their text.
    if names is None:
        return "any"
    ordered = ordered_types(names)
    return ordered[0] if len(ordered) == 1 else f"[{', '.join(ordered)}]"


def _names(raw: Any) -> set[str] | None:
    if isinstance(raw, list) and all(isinstance(name, str) for name in raw):
        return set(raw)
    return None


def _allowed_values(schema: Mapping[str, Any]) -> dict[Hashable, Any] | Literal[False] | None:
    """The values enum and const allow, by _value_key (None: any), or False when the
    enum is not a list."""
    values: dict[Hashable, Any] | None = None
    if "enum" in schema:
        if not isinstance(schema["enum"], list):
            return False
        values = {_value_key(v): v for v in schema["enum"]}
    if "const" in schema:
        const = schema["const"]
        key = _value_key(const)
        values = {key: const} if values is None or key in values else {}
    return values


def _values_label(schema: Mapping[str, Any]) -> str:
    return "enum" if "enum" in schema else "const"


def _enum_delta(verb: str, keys: set[Hashable], values: Mapping[Hashable, Any]) -> str:
    shown = heapq.nsmallest(5, keys, key=_sort_key)
    listed = ", ".join(_show(values[k]) for k in shown)
    more = f" (+{len(keys) - len(shown)} more)" if len(keys) > len(shown) else ""
    return f"enum value{'s' if len(keys) > 1 else ''} {verb}: {listed}{more}"


def _show_values(values: Mapping[Hashable, Any]) -> str:
    shown = heapq.nsmallest(5, values, key=_sort_key)
    listed = ", ".join(_show(values[k]) for k in shown)
    return listed + (f" (+{len(values) - len(shown)} more)" if len(values) > len(shown) else "")


def _sort_key(key: Hashable) -> str:
    return repr(key)


def _divides(step: float, value: float) -> bool:
    if isinstance(step, int) and isinstance(value, int):
        return value % step == 0
    try:
        return (value / step).is_integer()
    except OverflowError:  # a hostile 10**400 next to a float
        return False


def _is_number_or_none(value: Any) -> bool:
    return value is None or (isinstance(value, int | float) and not isinstance(value, bool))


def _scalar_key(value: Any) -> Hashable:
    # JSON equality: 1 == 1.0, but true != 1.
    if isinstance(value, bool):
        return ("boolean", value)
    if isinstance(value, int | float):
        return ("number", value)
    if isinstance(value, str):
        return ("string", value)
    if value is None:
        return ("null",)
    return ("other", type(value).__name__, id(value))


def _value_key(value: Any) -> Hashable:
    if not isinstance(value, Mapping | list):
        return _scalar_key(value)
    try:
        return ("json", json.dumps(value, sort_keys=True))
    except (RecursionError, TypeError, ValueError):
        return ("unprintable", id(value))


def _same(a: Any, b: Any) -> bool:
    """JSON equality without recursion (raw values may be nested thousands of levels)."""
    stack = [(a, b)]
    while stack:
        x, y = stack.pop()
        if x is y:
            continue
        if isinstance(x, Mapping) and isinstance(y, Mapping):
            if x.keys() != y.keys():
                return False
            stack += [(x[k], y[k]) for k in x]
        elif isinstance(x, list) and isinstance(y, list):
            if len(x) != len(y):
                return False
            stack += zip(x, y, strict=True)
        elif (
            isinstance(x, Mapping | list)
            or isinstance(y, Mapping | list)
            or _scalar_key(x) != _scalar_key(y)
        ):
            return False
    return True


def _show(value: Any) -> str:
    if isinstance(value, str):
        return repr(value) if len(value) <= _SHOW else repr(value[:_SHOW]) + "..."
    try:
        text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    except (RecursionError, TypeError, ValueError):
        text = f"<{type(value).__name__}>"
    return text if len(text) <= _SHOW else text[:_SHOW] + "..."
