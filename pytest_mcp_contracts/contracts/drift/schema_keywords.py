"""The JSON Schema keywords as the schema comparison sorts them (annotations, structure,
bounds, sub-schemas it cannot classify, keywords coupled to a sibling), and how it reads one
keyword's value."""

from __future__ import annotations

import heapq
from collections.abc import Hashable, Mapping
from typing import Any, Final, Literal

from pytest_mcp_contracts.contracts.drift.json_values import show, value_key
from pytest_mcp_contracts.schema import dialects
from pytest_mcp_contracts.schema.document import TYPE_ORDER, ordered_types

# fmt: off
ANNOTATIONS: Final = frozenset({
    "title", "description", "default", "examples", "$comment", "deprecated", "readOnly",
    "writeOnly", "contentMediaType", "contentEncoding",
})
# Only matter through the $refs that are resolved, or (additionalItems once prefixItems
# has absorbed a legacy items array) are ignored by validators.
STRUCTURAL: Final = frozenset({
    "$defs", "definitions", "$id", "$anchor", "$dynamicAnchor", "$vocabulary", "additionalItems",
})
UPPER: Final = ("maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties")
LOWER: Final = ("minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties")
# Sub-schema keywords the comparison cannot classify, by how their sub-schemas pair up.
APPLICATORS: Final[dict[str, Literal["list", "map", "one"]]] = {
    "allOf": "list", "anyOf": "list", "oneOf": "list",
    "dependentSchemas": "map", "patternProperties": "map", "dependencies": "map",
    "not": "one", "if": "one", "then": "one", "else": "one", "contains": "one",
    "propertyNames": "one", "unevaluatedProperties": "one", "unevaluatedItems": "one",
    "contentSchema": "one",
}
OPAQUE: Final = frozenset({
    "$ref", "$dynamicRef", "$recursiveRef", "dependentRequired", "minContains", "maxContains",
})
HANDLED: Final = frozenset({
    "type", "enum", "const", "properties", "required", "additionalProperties", "items",
    "prefixItems", "pattern", "format", "multipleOf", "uniqueItems", "$schema", *UPPER, *LOWER,
})
# Keywords whose meaning depends on a sibling: merging two schemas that each hold part of
# a group would change what they mean.
COUPLED: Final = (
    frozenset({"properties", "patternProperties", "additionalProperties"}),
    frozenset({"prefixItems", "items", "additionalItems"}),
    frozenset({"contains", "minContains", "maxContains"}),
    frozenset({"if", "then", "else"}),
    frozenset({"maximum", "exclusiveMaximum"}),  # draft-04's boolean exclusiveMaximum
    frozenset({"minimum", "exclusiveMinimum"}),
)
# Keywords a null instance always passes (they constrain other types): X with only these
# means "X or null" once "null" is added to its type.
NULL_NEUTRAL: Final = ANNOTATIONS | STRUCTURAL | frozenset({
    "type", "enum", *UPPER, *LOWER, "multipleOf", "pattern", "format", "items",
    "prefixItems", "contains", "minContains", "maxContains", "uniqueItems", "unevaluatedItems",
    "properties", "patternProperties", "additionalProperties", "required", "propertyNames",
    "dependentRequired", "dependentSchemas", "dependencies", "unevaluatedProperties",
    "contentSchema",
})
# fmt: on


def is_schema(value: Any) -> bool:
    return isinstance(value, bool | Mapping)


def accepts_all(schema: Any) -> bool:
    return schema is True or (isinstance(schema, Mapping) and not schema)


def extra_properties(schema: Mapping[str, Any]) -> Literal["allowed", "refused", "constrained"]:
    """Whether a property the schema does not name is accepted."""
    if {"patternProperties", "propertyNames", "unevaluatedProperties"} & schema.keys():
        return "constrained"
    extra = schema.get("additionalProperties", True)
    if accepts_all(extra):
        return "allowed"
    return "refused" if extra is False else "constrained"


def schema_label(schema: Any) -> str:
    return "false" if schema is False else "true" if accepts_all(schema) else "schema"


def dialect_name(uri: Any) -> str:
    if uri is None:
        return dialects.DEFAULT_DIALECT
    try:
        return dialects.dialect_of({"$schema": uri})
    except dialects.UnsupportedDialect:
        return show(uri)


def type_names(raw: Any) -> frozenset[str] | Literal[False] | None:
    """The type names (None: no type keyword), or False when it is not one."""
    if raw is None:
        return None
    if isinstance(raw, str):
        return frozenset({raw})
    if isinstance(raw, list) and raw and all(isinstance(name, str) for name in raw):
        return frozenset(raw)
    return False


def accepted(names: frozenset[str] | None) -> frozenset[str]:
    if names is None:
        return frozenset(TYPE_ORDER)
    return names | {"integer"} if "number" in names else names


def type_label(names: frozenset[str] | None) -> str:
    # Drift keeps its own spelling of a union, the ``type`` keyword's list: the docs and
    # users' CI logs quote it, and drift lines are sorted by their text.
    if names is None:
        return "any"
    ordered = ordered_types(names)
    return ordered[0] if len(ordered) == 1 else f"[{', '.join(ordered)}]"


def name_set(raw: Any) -> set[str] | None:
    if isinstance(raw, list) and all(isinstance(name, str) for name in raw):
        return set(raw)
    return None


def allowed_values(schema: Mapping[str, Any]) -> dict[Hashable, Any] | Literal[False] | None:
    """The values enum and const allow, by value_key (None: any), or False when the
    enum is not a list."""
    values: dict[Hashable, Any] | None = None
    if "enum" in schema:
        if not isinstance(schema["enum"], list):
            return False
        values = {value_key(v): v for v in schema["enum"]}
    if "const" in schema:
        const = schema["const"]
        key = value_key(const)
        values = {key: const} if values is None or key in values else {}
    return values


def values_label(schema: Mapping[str, Any]) -> str:
    return "enum" if "enum" in schema else "const"


def enum_delta(verb: str, keys: set[Hashable], values: Mapping[Hashable, Any]) -> str:
    shown = heapq.nsmallest(5, keys, key=_sort_key)
    listed = ", ".join(show(values[k]) for k in shown)
    more = f" (+{len(keys) - len(shown)} more)" if len(keys) > len(shown) else ""
    return f"enum value{'s' if len(keys) > 1 else ''} {verb}: {listed}{more}"


def show_values(values: Mapping[Hashable, Any]) -> str:
    shown = heapq.nsmallest(5, values, key=_sort_key)
    listed = ", ".join(show(values[k]) for k in shown)
    return listed + (f" (+{len(values) - len(shown)} more)" if len(values) > len(shown) else "")


def _sort_key(key: Hashable) -> str:
    return repr(key)


def divides(step: float, value: float) -> bool:
    if isinstance(step, int) and isinstance(value, int):
        return value % step == 0
    try:
        return (value / step).is_integer()
    except OverflowError:  # a hostile 10**400 next to a float
        return False


def is_number_or_none(value: Any) -> bool:
    return value is None or (isinstance(value, int | float) and not isinstance(value, bool))
