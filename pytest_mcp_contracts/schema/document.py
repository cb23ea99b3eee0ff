"""One JSON Schema document, and the facts about schemas that every walker shares.

Drift, summaries, generation, invalid inputs, the coverage phase, shrinking and the listing
check each walk tool schemas their own way, for their own purpose; what they must agree on
lives here: which dialect a document speaks, where its ``$ref``s lead (``schema/refs``,
which never fetches), the types a subschema declares or implies, the JSON type of a value,
the order types are listed in and how a union of them is printed. The bounds of every walk
are in ``schema/budgets``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from functools import cached_property
from typing import Any, Final

from pytest_mcp_contracts.schema import dialects
from pytest_mcp_contracts.schema.budgets import DOCUMENT_DEPTH
from pytest_mcp_contracts.schema.refs import LEGACY_DIALECTS, RefIndex, resolve_pointer

__all__ = [
    "IN_PLACE_LISTS",
    "IN_PLACE_SINGLES",
    "TYPE_ORDER",
    "SchemaDocument",
    "declared_types",
    "implied_types",
    "json_type",
    "ordered_types",
    "union_text",
    "value_key",
    "with_branch",
    "with_conjuncts",
]

#: The order type names are listed in, wherever several are shown.
TYPE_ORDER: Final = ("array", "boolean", "integer", "number", "object", "string", "null")

# Applicators that apply to the instance itself rather than to its members: a ``$ref`` cycle
# through only these never reaches a smaller part of the instance, and the properties they
# name count as "evaluated".
IN_PLACE_LISTS: Final = ("allOf", "anyOf", "oneOf")
IN_PLACE_SINGLES: Final = ("not", "if", "then", "else")

# Keywords that say which type a schema without ``type`` is about, the way a reader guesses.
_IMPLIED: Final = (
    ("object", frozenset({"properties", "required", "additionalProperties"})),
    ("array", frozenset({"items", "minItems", "maxItems"})),
    ("string", frozenset({"minLength", "maxLength", "pattern", "format"})),
    (
        "number",
        frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"}),
    ),
)


# -- values and types --------------------------------------------------------------------------


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


def value_key(value: Any) -> str:
    """A canonical text for a JSON value, to tell equal values apart from different ones."""
    return json.dumps(value, sort_keys=True, default=repr)


def ordered_types(names: Iterable[str]) -> list[str]:
    """``names`` once each in ``TYPE_ORDER``; names outside it (not JSON types) last, sorted."""
    unique = set(names)
    return [t for t in TYPE_ORDER if t in unique] + sorted(unique.difference(TYPE_ORDER))


def union_text(names: Iterable[str]) -> str:
    """A union of types as reports print it: ``integer | string``, in the order given."""
    return " | ".join(names)


def declared_types(schema: Mapping[str, Any]) -> list[str] | None:
    """The names a schema's ``type`` keyword lists, in its order (a single name as a list
    of one); None when there is no ``type``, or it is neither a string nor a list. Entries
    that are no strings are kept: whether they are an error is the caller's to say."""
    declared = schema.get("type")
    if isinstance(declared, str):
        return [declared]
    if isinstance(declared, list):
        return list(declared)
    return None


def implied_types(schema: Mapping[str, Any]) -> list[str]:
    """The type names a schema declares, or, without ``type``, the one its keywords imply
    (``properties``: object, ``minLength``: string...); [] when nothing says."""
    declared = declared_types(schema)
    if declared is not None:
        return [name for name in declared if isinstance(name, str)]
    return [name for name, words in _IMPLIED if words & schema.keys()][:1]


def with_branch(schema: Mapping[str, Any], branch: Any, keyword: str) -> Any:
    """``schema`` with its ``keyword`` combinator (anyOf, oneOf) replaced by one of its
    branches: a shallow merge, good enough for a value that is re-checked afterwards."""
    if not isinstance(branch, dict):
        return branch
    rest = {k: v for k, v in schema.items() if k != keyword}
    return {**rest, **branch}


def with_conjuncts(schema: Mapping[str, Any]) -> dict[str, Any]:
    """``schema`` with its ``allOf`` members merged into it (shallow, later ones win)."""
    merged = {k: v for k, v in schema.items() if k != "allOf"}
    for branch in schema.get("allOf") or ():
        if isinstance(branch, dict):
            merged = {**merged, **branch}
    return merged


# -- the document ------------------------------------------------------------------------------


class SchemaDocument:
    """One schema document: its root, its dialect and a ``$ref`` index built on first use
    (most schemas have no ``$ref``), scanned ``DOCUMENT_DEPTH`` levels deep."""

    def __init__(self, root: Any, dialect: str = dialects.DEFAULT_DIALECT) -> None:
        self.root = root
        self.dialect = dialect

    @classmethod
    def read(cls, root: Mapping[str, Any]) -> SchemaDocument:
        """The document in the dialect its ``$schema`` names; raises
        ``dialects.UnsupportedDialect`` for one we cannot validate with."""
        return cls(root, dialects.dialect_of(root))

    @classmethod
    def lenient(cls, root: Any) -> SchemaDocument:
        """The document in its dialect, or the default one when it names none we know (or
        is no object): for walkers that describe a schema rather than judge it."""
        try:
            dialect = dialects.dialect_of(root) if isinstance(root, Mapping) else ""
        except dialects.UnsupportedDialect:
            dialect = ""
        return cls(root, dialect or dialects.DEFAULT_DIALECT)

    @property
    def legacy(self) -> bool:
        """Before 2019-09: keywords next to ``$ref`` are ignored, ``$id`` included."""
        return self.dialect in LEGACY_DIALECTS

    @cached_property
    def keywords(self) -> frozenset[str]:
        """The keywords this dialect validates with; the others are annotations."""
        return frozenset(dialects.validator_class(self.dialect).VALIDATORS)

    @cached_property
    def refs(self) -> RefIndex:
        return RefIndex(self.root, self.dialect, max_depth=DOCUMENT_DEPTH)

    def in_place_refs(self, pointer: str) -> list[str]:
        """Where the ``$ref``s that the schema at ``pointer`` applies to the same instance
        lead (through allOf/anyOf/oneOf/not/if/then/else; unresolvable ones are left out)."""
        found: list[str] = []
        stack: list[tuple[Any, str]] = [(resolve_pointer(self.root, pointer), pointer)]
        while stack:
            current, at = stack.pop()
            if not isinstance(current, dict):
                continue
            target = self.refs.find(current["$ref"], at) if "$ref" in current else None
            if target is not None:
                found.append(target.pointer)
            for key in IN_PLACE_LISTS:
                if isinstance(current.get(key), list):
                    stack += [(sub, f"{at}/{key}/{i}") for i, sub in enumerate(current[key])]
            stack += [(current.get(key), f"{at}/{key}") for key in IN_PLACE_SINGLES]
        return found
