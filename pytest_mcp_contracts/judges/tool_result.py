"""Result checks: each ``tools/call`` result against the contract its tool declared."""

from __future__ import annotations

from collections.abc import Mapping
from itertools import islice
from typing import Any

from jsonschema.exceptions import SchemaError
from referencing.exceptions import Unresolvable

from pytest_mcp_contracts.contracts.agreement import text_contradiction
from pytest_mcp_contracts.judges.content_blocks import BLOCK_FIELDS, check_embedded_resource
from pytest_mcp_contracts.judges.content_results import MAX_ENTRIES_JUDGED
from pytest_mcp_contracts.judges.failures import FailureKind, Finding
from pytest_mcp_contracts.judges.lints import LintLevels, lint_finding
from pytest_mcp_contracts.judges.tool_listing import describe_errors
from pytest_mcp_contracts.schema.dialects import (
    UnsupportedDialect,
    dialect_of,
    validator_for_schema,
)
from pytest_mcp_contracts.text import json_text
from pytest_mcp_contracts.transport.discover import Entry
from pytest_mcp_contracts.vocabulary import MODERN_VERSION, Level

# -- dynamic checks ------------------------------------------------------------------------


def _content_problem(content: list[Any]) -> str | None:
    """What makes a ``content`` array not a list of content blocks, or None (unknown types
    are left alone: a newer protocol revision may add some)."""
    for index, block in enumerate(content):
        where = f"content[{index}]"
        if not isinstance(block, dict):
            return f"{where} is not an object: {json_text(block, 80)}"
        kind = block.get("type")
        if not isinstance(kind, str):
            return f"{where} has no string 'type': {json_text(block, 120)}"
        missing = [f for f in BLOCK_FIELDS.get(kind, ()) if not isinstance(block.get(f), str)]
        if missing:
            return f"{where} is a {kind!r} block without a string {missing[0]!r}"
    return None


def _embedded_findings(content: list[Any], protocol_version: str) -> list[Finding]:
    """The errors of the resources a result embeds or links, the first MAX_ENTRIES_JUDGED
    of them (judges/content_blocks, as a prompt's are judged). Its warnings are left out: the
    judge fails a call on any finding."""
    resources = (
        (index, block)
        for index, block in enumerate(content)
        if block.get("type") in ("resource", "resource_link")
    )
    return [
        found
        for index, block in islice(resources, MAX_ENTRIES_JUDGED)
        for found in check_embedded_resource(
            block, f"content[{index}]", protocol_version=protocol_version
        )
        if found.level is Level.ERROR
    ]


def check_result(tool: Entry, result: Mapping[str, Any], *, protocol_version: str) -> list[Finding]:
    """One ``tools/call`` result against the contract the tool declared."""
    content = result.get("content")
    if not isinstance(content, list):
        return [
            Finding(
                "contract",
                "the result is not a CallToolResult: 'content' must be an array, got "
                + json_text(content),
                kind=FailureKind.MALFORMED_RESULT,
            )
        ]
    problem = _content_problem(content)
    if problem is not None:
        return [
            Finding(
                "contract",
                f"the result is not a CallToolResult: {problem}",
                kind=FailureKind.MALFORMED_RESULT,
            )
        ]
    embedded = _embedded_findings(content, protocol_version)
    if result.get("isError") is True:
        return embedded
    findings = embedded + _against_output_schema(tool, result, protocol_version)
    contradiction = _contradiction(result, tool.output_schema)
    return findings + ([contradiction] if contradiction is not None else [])


def _contradiction(result: Mapping[str, Any], schema: object) -> Finding | None:
    """A text block whose JSON says other than structuredContent (contracts/agreement)."""
    found = text_contradiction(result, schema)
    if found is None:
        return None
    value, paths = found
    details = list(paths)
    if isinstance(schema, dict):
        try:
            errors = list(validator_for_schema(schema).iter_errors(value))
        except (UnsupportedDialect, SchemaError, RecursionError, ValueError, Unresolvable):
            errors = []  # the schema's own problems are reported by the other checks
        if errors:
            details.append(f"and the text's JSON breaks the outputSchema ({dialect_of(schema)}):")
            details += [f"  {line}" for line in describe_errors(errors)]
    details.append(
        "a client that reads the text gets other data than one that reads structuredContent; "
        "serialize the structured content itself into the text"
    )
    return Finding(
        "contract",
        "the text content contradicts structuredContent: a text block is JSON that differs from it",
        details=tuple(details),
        kind=FailureKind.CONTRADICTION,
    )


def _against_output_schema(
    tool: Entry, result: Mapping[str, Any], protocol_version: str
) -> list[Finding]:
    schema = tool.output_schema
    if not isinstance(schema, dict):
        return []
    if "structuredContent" not in result:
        return [
            Finding(
                "contract",
                "the tool declares an outputSchema but the result has no structuredContent",
                details=(
                    "a tool with an outputSchema must return structured results that conform to it",
                ),
                kind=FailureKind.OUTPUT_SCHEMA,
            )
        ]
    structured = result["structuredContent"]
    findings = []
    if protocol_version != MODERN_VERSION and not isinstance(structured, dict):
        findings.append(
            Finding(
                "contract",
                f"structuredContent must be an object under protocol {protocol_version}, "
                f"got {type(structured).__name__}",
                kind=FailureKind.MALFORMED_RESULT,
            )
        )
    try:
        validator = validator_for_schema(schema)
    except (UnsupportedDialect, SchemaError):
        return findings  # the schema item already reports it
    try:
        errors = list(validator.iter_errors(structured))
    except RecursionError:
        findings.append(
            Finding(
                "contract",
                "structuredContent cannot be checked: validating it against the outputSchema "
                "recursed too deeply (a $ref loop, or nesting too deep)",
                kind=FailureKind.INVALID_LISTING,
            )
        )
        return findings
    except ValueError:  # a $ref indexing an array with a non-number: referencing crashes
        findings.append(
            Finding(
                "contract",
                "structuredContent cannot be checked: the outputSchema has a $ref that "
                "validators cannot follow (see the tool's schema check)",
                kind=FailureKind.INVALID_LISTING,
            )
        )
        return findings
    except Unresolvable as exc:
        findings.append(
            Finding(
                "contract",
                "structuredContent cannot be checked: the outputSchema refers to "
                f"{getattr(exc, 'ref', exc)!r}, which cannot be resolved (network $refs are "
                "never fetched)",
                kind=FailureKind.INVALID_LISTING,
            )
        )
        return findings
    if errors:
        findings.append(
            Finding(
                "contract",
                f"structuredContent does not match the outputSchema ({dialect_of(schema)})",
                details=tuple(describe_errors(errors)),
                kind=FailureKind.OUTPUT_SCHEMA,
            )
        )
    return findings


def empty_content_finding(result: Mapping[str, Any], levels: LintLevels) -> Finding | None:
    """The ``empty-content`` lint: a successful result whose structuredContent comes with an
    empty content array, which a client that shows content (Claude Desktop) shows as nothing."""
    if (
        result.get("isError") is True
        or "structuredContent" not in result
        or result.get("content") != []
    ):
        return None
    return lint_finding(
        "empty-content",
        levels,
        "a result has structuredContent and an empty content array: a client that shows "
        "content shows nothing",
        check="contract",
        where="result content",
    )
