"""A tool's ``inputSchema`` as generation reads it: the dialect it declares, the document
it is (nested no deeper than ``DOCUMENT_DEPTH``), whether it is valid for its dialect
(checked once per schema), and ``GenerationError``, which says what is wrong and where.

Every other module of input generation starts here: the rewrite (``inputs/rewrite``), the
strategies and the coverage plan (``inputs/generate``), the diagnosis
(``inputs/unsatisfiable``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import jsonschema.exceptions

from pytest_mcp_contracts.schema import dialects
from pytest_mcp_contracts.schema.budgets import DOCUMENT_DEPTH
from pytest_mcp_contracts.schema.document import SchemaDocument
from pytest_mcp_contracts.schema.refs import json_pointer
from pytest_mcp_contracts.text import shorten_middle

if TYPE_CHECKING:
    from jsonschema.protocols import Validator

__all__ = [
    "GenerationError",
    "cache_key",
    "check_pattern",
    "check_schema",
    "input_dialect",
    "load_schema",
    "original_validator",
    "short_pointer",
]


class GenerationError(Exception):
    """Why no inputs can be generated for a schema.

    The message names the sub-schema (a JSON pointer like ``'#/properties/when'``) and
    the reason, in plain words, plus what to do; ``pointer`` holds the JSON pointer.
    """

    def __init__(self, message: str, *, pointer: str = "#") -> None:
        super().__init__(message)
        self.pointer = pointer


def input_dialect(schema: Mapping[str, Any]) -> str:
    """The JSON Schema dialect a schema declares: "2020-12" (the default), "2019-09",
    "draft-07", "draft-06" or "draft-04"."""
    try:
        return dialects.dialect_of(schema)
    except dialects.UnsupportedDialect as exc:
        raise GenerationError(f"{exc}.", pointer="#/$schema") from None


def load_schema(schema: Mapping[str, Any]) -> SchemaDocument:
    if not isinstance(schema, Mapping):
        raise GenerationError(
            f"a tool's inputSchema must be a JSON object, not {type(schema).__name__}."
        )
    doc = SchemaDocument(schema, input_dialect(schema))
    too_deep = doc.refs.too_deep
    if too_deep is not None:
        raise GenerationError(
            f"the schema is nested deeper than {DOCUMENT_DEPTH} levels at "
            f"{short_pointer(too_deep)}. "
            "Deeper schemas exhaust the recursion limits of validators and generators; "
            "flatten the schema (recursive structures should use $ref).",
            pointer=too_deep,
        )
    return doc


def short_pointer(pointer: str) -> str:
    return shorten_middle(pointer, 120)


def check_pattern(pattern: object, ptr: str) -> None:
    if not isinstance(pattern, str):
        return
    try:
        re.compile(pattern)
    except re.error as err:
        raise GenerationError(_pattern_message(pattern, ptr, err), pointer=ptr) from None


def _pattern_message(pattern: str, ptr: str, err: object) -> str:
    return (
        f"the pattern {pattern!r} at {short_pointer(ptr)} cannot be used: Python's re module "
        f"rejects it ({err}). JSON Schema patterns are ECMA-262 regular expressions, and "
        "some of their syntax (such as \\p{L} Unicode property escapes) has no Python "
        "equivalent, so neither generation nor validation can run. Rewrite the pattern "
        "with portable syntax (e.g. [^\\W\\d_] for letters)."
    )


def check_schema(doc: SchemaDocument) -> None:
    """Reject schemas that are invalid for their own dialect, naming the offending spot."""
    key = cache_key(doc.root)
    problem = _schema_problem(doc.dialect, key) if key is not None else _problem_of(doc)
    if problem is not None:
        message, pointer = problem
        raise GenerationError(message, pointer=pointer)


@lru_cache(maxsize=256)
def _schema_problem(dialect: str, schema_json: str) -> tuple[str, str] | None:
    # Validating against the metaschema walks the whole metaschema; a tool's inputSchema
    # is checked for its strategy and again for its coverage plan, so once is kept.
    return _problem_of(SchemaDocument(json.loads(schema_json), dialect))


def _problem_of(doc: SchemaDocument) -> tuple[str, str] | None:
    """(message, pointer) of what makes the schema invalid for its dialect, or None."""
    try:
        _metaschema_check(doc)
    except GenerationError as exc:
        return str(exc), exc.pointer
    return None


def _metaschema_check(doc: SchemaDocument) -> None:
    cls = dialects.validator_class(doc.dialect)
    meta = cls(cls.META_SCHEMA, format_checker=cls.FORMAT_CHECKER)
    try:
        error = jsonschema.exceptions.best_match(meta.iter_errors(doc.root))
    except RecursionError:  # pragma: no cover - depth is bounded by _scan
        raise GenerationError("the schema is too deeply nested to check.") from None
    if error is None:
        return
    ptr = json_pointer(list(error.absolute_path))
    if error.validator == "format" and error.validator_value == "regex":
        raise GenerationError(_pattern_message(str(error.instance), ptr, error.cause), pointer=ptr)
    hint = ""
    if error.absolute_path and error.absolute_path[-1] == "type":
        hint = " A type must be one of array, boolean, integer, null, number, object, string."
    raise GenerationError(
        f"the inputSchema is not a valid {doc.dialect} JSON Schema at {short_pointer(ptr)}: "
        f"{error.message}.{hint} Fix the tool's inputSchema.",
        pointer=ptr,
    )


def original_validator(doc: SchemaDocument) -> Validator:
    return dialects.make_validator(doc.root)


def cache_key(schema: object) -> str | None:
    """The schema as JSON text when that reads back as an equal schema, else None."""
    try:
        key = json.dumps(schema)
        return key if json.loads(key) == schema else None
    except (TypeError, ValueError, RecursionError):  # not JSON, or absurdly deep
        return None
