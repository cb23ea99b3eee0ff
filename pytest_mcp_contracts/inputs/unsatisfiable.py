"""Why no input can be drawn for a schema: the innermost sub-schemas no value satisfies
(a ``GenerationError`` when building a strategy), and, when hypothesis gives up while
drawing, the constraints that make valid values rare (``explain_unsatisfiable``).
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Mapping
from typing import Any

from pytest_mcp_contracts.inputs.direct import direct_strategy
from pytest_mcp_contracts.inputs.format_strategies import LONG_TEXT
from pytest_mcp_contracts.inputs.hypothesis_compat import FALSEY, _from_schema, canonicalish
from pytest_mcp_contracts.inputs.input_schema import (
    GenerationError,
    check_schema,
    load_schema,
    short_pointer,
)
from pytest_mcp_contracts.inputs.rewrite import Schema, expand
from pytest_mcp_contracts.schema import dialects
from pytest_mcp_contracts.schema.document import SchemaDocument
from pytest_mcp_contracts.schema.refs import resolve_pointer

__all__ = ["explain_unsatisfiable", "unsatisfiable_error"]


def _unsatisfiable_pointers(doc: SchemaDocument, limit: int = 500) -> list[str]:
    """The innermost sub-schemas no value satisfies (best effort)."""
    found: list[str] = []
    for ptr in doc.refs.schema_pointers[:limit]:
        try:
            expanded = expand(doc, ptr)
            if canonicalish(copy.deepcopy(expanded)) == FALSEY or _never_generated(expanded):
                found.append(ptr)
        except Exception:  # a diagnosis must not fail: skip what it cannot judge
            continue
    return [p for p in found if not any(q.startswith(p + "/") for q in found)]


def _never_generated(schema: Schema) -> bool:
    """The direct builder sees that no value satisfies ``schema`` (canonicalish misses some,
    such as minLength > maxLength)."""
    direct = direct_strategy(schema)
    return direct is not None and direct.is_empty


def unsatisfiable_error(doc: SchemaDocument) -> GenerationError:
    pointers = _unsatisfiable_pointers(doc) or ["#"]
    where = ", ".join(short_pointer(p) for p in pointers[:3])
    return GenerationError(
        f"no value satisfies the schema at {where}: its constraints contradict each other "
        "(or every choice leads to a recursive reference that had to be cut). Fix the "
        "inputSchema; as it stands, no call to this tool can be valid.",
        pointer=pointers[0],
    )


def _costly_constraints(doc: SchemaDocument) -> Iterator[str]:
    checked = set(dialects.validator_class(doc.dialect).FORMAT_CHECKER.checkers)
    generated = set(_from_schema.STRING_FORMATS) | {"uuid", "duration"}
    for ptr in doc.refs.schema_pointers:
        node = resolve_pointer(doc.root, ptr)
        if not isinstance(node, Mapping):
            continue
        where = short_pointer(ptr)
        for key, limit in (("minItems", 50), ("minProperties", 20)):
            if isinstance(node.get(key), int) and node[key] > limit:
                yield (
                    f"{where}: {key} {node[key]} - every example must be this large, more "
                    "than hypothesis builds comfortably (HealthCheck.large_base_example)."
                )
        if "pattern" in node and "format" in node:
            yield f"{where}: pattern and format together - the pattern filters format values."
        long_text = isinstance(node.get("minLength"), int) and node["minLength"] > LONG_TEXT
        if long_text and ("pattern" in node or "format" in node):
            yield f"{where}: minLength {node['minLength']} with a pattern or format - rarely met."
        if node.get("format") in checked - generated:
            yield f"{where}: format {node['format']!r} is checked but not generated."
        if "oneOf" in node:
            yield f"{where}: oneOf - values matching several branches are discarded."
        if "not" in node:
            yield f"{where}: not - values are generated, then discarded when they match."
        for key in ("unevaluatedProperties", "unevaluatedItems", "minContains", "maxContains"):
            if key in node:
                yield f"{where}: {key} - approximated; the re-check discards the rest."
        if "dependentSchemas" in node:
            yield f"{where}: dependentSchemas - values violating them are discarded."


def explain_unsatisfiable(schema: Mapping[str, Any]) -> str:
    """Best-effort explanation for hypothesis reporting Unsatisfiable or
    FailedHealthCheck (filter_too_much, large_base_example) while drawing inputs."""
    try:
        doc = load_schema(schema)
        check_schema(doc)
        expand(doc)
    except GenerationError as err:
        return str(err)
    causes = [
        f"{short_pointer(p)}: no value satisfies this sub-schema "
        "(its constraints contradict each other)."
        for p in _unsatisfiable_pointers(doc)
    ]
    causes += list(_costly_constraints(doc))[:10]
    if not causes:
        return (
            "No single sub-schema stands out. Inputs are generated from a draft-07 rewrite "
            "of the schema and discarded when the original schema rejects them; a schema "
            "whose constraints are rarely met by chance (patterns, formats, combined "
            "keywords) makes hypothesis give up."
        )
    return "Hypothesis could not generate enough valid inputs. Likely causes:\n" + "\n".join(
        f"- {cause}" for cause in causes
    )
