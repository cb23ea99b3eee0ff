"""The rewrite of any ``inputSchema`` into one self-contained draft-07 schema, the form
hypothesis-jsonschema understands.

2019-09/2020-12 keywords become their draft-07 equivalents where that is sound (or a close
approximation: every value is re-checked against the original schema), local ``$ref``s are
inlined with recursion unrolled ``RECURSION_UNROLL`` times, annotations are dropped. A loop
of refs that never moves into a member, a remote ref or a schema that inlines into more than
``EXPANDED_SUBSCHEMAS`` sub-schemas is a ``GenerationError`` that names the spot.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Final, cast

from pytest_mcp_contracts.inputs.input_schema import (
    GenerationError,
    check_pattern,
    load_schema,
    short_pointer,
)
from pytest_mcp_contracts.schema.budgets import (
    DOCUMENT_DEPTH,
    EXPANDED_SUBSCHEMAS,
    RECURSION_UNROLL,
)
from pytest_mcp_contracts.schema.document import IN_PLACE_LISTS, IN_PLACE_SINGLES, SchemaDocument
from pytest_mcp_contracts.schema.refs import (
    LEGACY_DIALECTS,
    SCHEMA_SINGLES,
    Unresolvable,
    escape,
    resolve_pointer,
)

__all__ = [
    "MAX_ENUM",
    "Schema",
    "draft07_children",
    "expand",
    "prepare_for_generation",
]

#: hypothesis-jsonschema checks each enum value against the whole schema, enum included,
#: which is quadratic: larger enums are generated from an evenly spread sample.
MAX_ENUM = 200

Schema = bool | dict[str, Any]

_REF_KEYWORDS = ("$ref", "$dynamicRef", "$recursiveRef")


class _TooLarge(Exception):
    pass


@dataclass(frozen=True)
class _Trail:
    """Where the expansion is: how deep, which $refs it is inside, and which schemas it
    entered since it last moved into a member of the instance (a repeat there is a loop)."""

    depth: int
    refs: tuple[str, ...]
    in_place: tuple[str, ...]

    def member(self, ptr: str) -> _Trail:
        return _Trail(self.depth + 1, self.refs, (ptr,))

    def same_instance(self, ptr: str) -> _Trail:
        return _Trail(self.depth + 1, self.refs, (*self.in_place, ptr))

    def through_ref(self, target: str) -> _Trail:
        return _Trail(self.depth + 1, (*self.refs, target), (*self.in_place, target))


def _copy_value(value: Any) -> Any:
    # Keyword values are copied so that nothing downstream can mutate the caller's schema;
    # flat lists (a 100,000-value enum) do not need the cost of deepcopy.
    if isinstance(value, list) and not any(isinstance(v, (dict, list)) for v in value):
        return list(value)
    return copy.deepcopy(value)


class _Expander:
    """Turns (part of) a document into one self-contained draft-07 schema."""

    def __init__(self, doc: SchemaDocument, unroll: int) -> None:
        self.doc = doc
        self.unroll = unroll
        self.subschemas = 0

    def at(self, ptr: str) -> Schema:
        return self.schema(resolve_pointer(self.doc.root, ptr), ptr, _Trail(0, (), (ptr,)))

    def schema(self, node: object, ptr: str, trail: _Trail) -> Schema:
        if isinstance(node, bool):
            return node
        if not isinstance(node, Mapping):
            raise GenerationError(
                f"expected a schema (an object, true or false) at {short_pointer(ptr)}, "
                f"found {node!r:.60}. Fix the tool's inputSchema.",
                pointer=ptr,
            )
        if trail.depth > DOCUMENT_DEPTH:
            return False  # only reachable through $refs: stop inlining them here
        self.subschemas += 1
        if self.subschemas > EXPANDED_SUBSCHEMAS:
            raise _TooLarge
        refs = [k for k in _REF_KEYWORDS if k in node and k in self.doc.keywords]
        if refs and self.doc.legacy:
            return self.follow(node, ptr, "$ref", trail)
        targets = [self.follow(node, ptr, k, trail) for k in refs]
        if any(target is False for target in targets):
            return False
        return self.keywords(node, ptr, trail, targets)

    def follow(self, node: Mapping[str, Any], at: str, keyword: str, trail: _Trail) -> Schema:
        """Inline the target of ``node[keyword]``, a ref written in the schema at ``at``."""
        ptr = f"{at}/{escape(keyword)}"
        target = self.locate(node[keyword], at, ptr)
        if target in trail.in_place:
            loop = [*trail.in_place[trail.in_place.index(target) :], target]
            raise GenerationError(
                f"the $ref at {short_pointer(ptr)} is part of a loop ({' -> '.join(loop)}) that "
                "never moves into a property or item, so validating anything against it "
                "recurses forever. Break the loop: recursion must go through "
                "'properties', 'items' or similar.",
                pointer=ptr,
            )
        if trail.refs.count(target) >= self.unroll:
            # Past the bound, recursion stops: optional recursive members are left out
            # and anyOf [ref, null] picks null.
            return False
        return self.schema(
            resolve_pointer(self.doc.root, target), target, trail.through_ref(target)
        )

    def locate(self, ref: object, at: str, ptr: str) -> str:
        """The pointer a local reference leads to.  Never fetches anything."""
        try:
            return self.doc.refs.lookup(ref, at).pointer
        except Unresolvable as exc:
            raise GenerationError(_unresolvable_message(exc, ptr), pointer=ptr) from None

    def keywords(
        self, node: Mapping[str, Any], ptr: str, trail: _Trail, ref_targets: list[Schema]
    ) -> Schema:
        dialect = self.doc.dialect
        out: dict[str, Any] = {}
        dependencies: dict[str, Any] = {}
        unevaluated: dict[str, Schema] = {}
        for key, value in node.items():
            if key not in self.doc.keywords or key in _REF_KEYWORDS:
                continue  # annotations, unknown keywords, $defs: not needed once refs are inlined
            at = f"{ptr}/{escape(key)}"
            if key in ("properties", "patternProperties"):
                if not isinstance(value, Mapping):
                    raise GenerationError(f"{key} must be an object at {at}.", pointer=at)
                if key == "patternProperties":
                    for pattern in value:
                        check_pattern(pattern, f"{at}/{escape(pattern)}")
                named = {name: f"{at}/{escape(name)}" for name in value}
                out[key] = {
                    name: self.schema(sub, named[name], trail.member(named[name]))
                    for name, sub in value.items()
                }
            elif key in IN_PLACE_LISTS or (
                key in ("items", "prefixItems") and isinstance(value, list)
            ):
                if not isinstance(value, list):
                    raise GenerationError(f"{key} must be an array at {at}.", pointer=at)
                step = trail.same_instance if key in IN_PLACE_LISTS else trail.member
                out[key] = [
                    self.schema(sub, f"{at}/{i}", step(f"{at}/{i}")) for i, sub in enumerate(value)
                ]
            elif key in IN_PLACE_SINGLES:
                out[key] = self.schema(value, at, trail.same_instance(at))
            elif key in ("unevaluatedProperties", "unevaluatedItems"):
                unevaluated[key] = self.schema(value, at, trail.member(at))
            elif key in SCHEMA_SINGLES:
                out[key] = self.schema(value, at, trail.member(at))
            elif key in ("dependencies", "dependentSchemas", "dependentRequired"):
                if not isinstance(value, Mapping):
                    raise GenerationError(f"{key} must be an object at {at}.", pointer=at)
                for name, dependency in value.items():
                    if isinstance(dependency, list):
                        merged: Any = list(dependency)
                    else:
                        sub_at = f"{at}/{escape(name)}"
                        merged = self.schema(dependency, sub_at, trail.same_instance(sub_at))
                    if name in dependencies:  # both dependentRequired and dependentSchemas
                        merged = {"allOf": [_as_schema(dependencies[name]), _as_schema(merged)]}
                    dependencies[name] = merged
            else:
                if key == "pattern":
                    check_pattern(value, at)
                if key == "enum" and isinstance(value, list) and len(value) > MAX_ENUM:
                    value = value[:: math.ceil(len(value) / MAX_ENUM)]
                out[key] = _copy_value(value)

        if dependencies:
            out["dependencies"] = dependencies
        if dialect == "2020-12":
            # 2020-12 "prefixItems" + "items" are draft-07 array "items" + "additionalItems".
            prefix, rest = out.pop("prefixItems", None), out.pop("items", None)
            if prefix is not None:
                out["items"] = prefix
                if rest is not None:
                    out["additionalItems"] = rest
            elif rest is not None:
                out["items"] = rest
        if dialect not in LEGACY_DIALECTS and node.get("minContains") == 0:
            out.pop("contains", None)  # "contains" then asserts nothing; maxContains: re-check
        if ref_targets:
            out["allOf"] = [*ref_targets, *out.get("allOf", [])]
        if "unevaluatedProperties" in unevaluated:
            _rewrite_unevaluated_properties(out, unevaluated["unevaluatedProperties"])
        if "unevaluatedItems" in unevaluated:
            _rewrite_unevaluated_items(out, unevaluated["unevaluatedItems"])
        if list(out) == ["allOf"] and len(out["allOf"]) == 1:
            return cast(Schema, out["allOf"][0])
        return out


# What to do about each kind of unresolvable $ref (schema/refs.Unresolvable.reason).
_REF_ADVICE: Final = {
    "not-a-string": "Fix the tool's inputSchema.",
    "malformed": 'Fix the reference (a local one looks like "#/$defs/name").',
    "remote": "Inputs are generated offline: inline the referenced schema into the "
    'inputSchema (under $defs) and refer to it as "#/$defs/...".',
    "dangling": "Fix the reference or add the missing definition.",
}


def _unresolvable_message(exc: Unresolvable, ptr: str) -> str:
    return f"{exc.explain(short_pointer(ptr))}. {_REF_ADVICE[exc.reason]}"


def _as_schema(dependency: Any) -> Schema:
    return {"required": dependency} if isinstance(dependency, list) else cast(Schema, dependency)


def _in_place_branches(schema: Mapping[str, Any]) -> Iterator[dict[str, Any]]:
    """Draft-07 sub-schemas applied to the same instance (whose properties count as evaluated)."""
    for key in ("allOf", "anyOf", "oneOf"):
        for branch in schema.get(key, ()):
            if isinstance(branch, dict):
                yield branch
                yield from _in_place_branches(branch)
    for key in ("if", "then", "else"):
        branch = schema.get(key)
        if isinstance(branch, dict):
            yield branch
            yield from _in_place_branches(branch)
    for dependency in schema.get("dependencies", {}).values():
        if isinstance(dependency, dict):
            yield dependency
            yield from _in_place_branches(dependency)


def _rewrite_unevaluated_properties(out: dict[str, Any], unevaluated: Schema) -> None:
    if "additionalProperties" in out:
        return  # every property is evaluated at this level already: a no-op
    branches = list(_in_place_branches(out))
    if any(b.get("additionalProperties", False) is not False for b in branches):
        return  # a branch evaluates arbitrary properties: leave it to the re-check
    # Allow exactly the properties some branch declares.  This may let through a property
    # whose branch fails (the re-check discards those), but unlike dropping the keyword it
    # does not fill most objects with extra properties for the re-check to reject.
    for key in ("properties", "patternProperties"):
        names = {name for b in branches for name in b.get(key, {})}
        if names - set(out.get(key, {})):
            out[key] = {**dict.fromkeys(sorted(names), True), **out.get(key, {})}
    out["additionalProperties"] = unevaluated


def _rewrite_unevaluated_items(out: dict[str, Any], unevaluated: Schema) -> None:
    items = out.get("items")
    if isinstance(items, (dict, bool)) or (isinstance(items, list) and "additionalItems" in out):
        return  # every item is evaluated at this level already: a no-op
    if "contains" in out or any(True for _ in _in_place_branches(out)):
        return  # which items those evaluate depends on the value: leave it to the re-check
    out["additionalItems" if isinstance(items, list) else "items"] = unevaluated


def expand(doc: SchemaDocument, ptr: str = "#") -> Schema:
    for unroll in range(RECURSION_UNROLL, 0, -1):
        try:
            return _Expander(doc, unroll).at(ptr)
        except _TooLarge:
            continue
    raise GenerationError(
        f"inlining the $refs of the schema at {short_pointer(ptr)} produces more than "
        f"{EXPANDED_SUBSCHEMAS} sub-schemas, even with recursion cut short. Simplify "
        "the schema's references.",
        pointer=ptr,
    )


def prepare_for_generation(schema: Mapping[str, Any]) -> dict[str, Any]:
    """Rewrite ``schema`` into a self-contained draft-07 schema for hypothesis-jsonschema.

    2019-09/2020-12 keywords become their draft-07 equivalents where that is sound (or a
    close approximation the re-check corrects), local ``$ref``s are inlined with recursion
    unrolled ``RECURSION_UNROLL`` times, annotations are dropped.  Pure: the input is not
    mutated and shares nothing with the result.  Raises GenerationError.
    """
    result = expand(load_schema(schema))
    if isinstance(result, bool):
        return {} if result else {"not": {}}
    return result


def draft07_children(schema: Mapping[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """The sub-schemas of one node of the rewrite, each with the keyword it is under."""
    for key, value in schema.items():
        if key in ("properties", "patternProperties") or (
            key == "dependencies" and isinstance(value, dict)
        ):
            yield from ((key, v) for v in value.values() if isinstance(v, dict))
        elif key in ("allOf", "anyOf", "oneOf", "items") and isinstance(value, list):
            yield from ((key, v) for v in value if isinstance(v, dict))
        elif key in SCHEMA_SINGLES and isinstance(value, dict):
            yield key, value
