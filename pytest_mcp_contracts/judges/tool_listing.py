"""Check: judge a tool's listing (static) and each call's result (dynamic), as plain data.

Nothing here talks to a server or to pytest: the items feed in what was listed and what came
back, and get ``Finding``s (``judges/failures``) out.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Iterator
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import unquote

from pytest_mcp_contracts.judges.clients import check_clients
from pytest_mcp_contracts.judges.failures import FailureKind, Finding
from pytest_mcp_contracts.judges.lints import LintLevels, poisoning_findings, tool_lints
from pytest_mcp_contracts.options import DEFAULT_CLIENTS
from pytest_mcp_contracts.schema.dialects import UnsupportedDialect, dialect_of, validator_class
from pytest_mcp_contracts.schema.document import SchemaDocument
from pytest_mcp_contracts.schema.paths import json_path
from pytest_mcp_contracts.schema.refs import (
    RefIndex,
    Unresolvable,
    bad_array_index,
)
from pytest_mcp_contracts.text import shorten
from pytest_mcp_contracts.transport.discover import Entry
from pytest_mcp_contracts.vocabulary import MODERN_VERSION, ClientProfile, Level, SecurityMode

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError

MAX_ERRORS_SHOWN: Final = 5


def describe_errors(errors: Iterable[ValidationError]) -> list[str]:
    """``$.items[0].price: 'abc' is not of type 'number'`` lines, shallowest first."""
    ordered = sorted(errors, key=lambda e: (len(e.absolute_path), json_path(e.absolute_path)))
    lines = [f"{json_path(e.absolute_path)}: {shorten(e.message)}" for e in ordered]
    if len(lines) > MAX_ERRORS_SHOWN:
        lines = [*lines[:MAX_ERRORS_SHOWN], f"… and {len(lines) - MAX_ERRORS_SHOWN} more"]
    return lines


def spec_finding(
    message: str,
    details: tuple[str, ...] = (),
    level: Level = Level.ERROR,
    *,
    rule: str,
    where: str | None = None,
    fix: str | None = None,
) -> Finding:
    """A finding of the schema check: a listing that breaks the spec (the ``mcp`` profile's
    rules, ``mcp/<rule>``; docs/clients.md and docs/prompts-resources.md list them)."""
    return Finding(
        "schema",
        message,
        level,
        details,
        kind=FailureKind.INVALID_LISTING,
        rule=f"{ClientProfile.MCP}/{rule}",
        client=str(ClientProfile.MCP),
        where=where,
        fix=fix,
    )


# -- static checks -------------------------------------------------------------------------


def _schema_findings(
    label: str, schema: Any, *, root_object: bool, root_reason: str
) -> Iterator[Finding]:
    if not isinstance(schema, dict):
        yield spec_finding(
            f"{label} is not a JSON object: {shorten(repr(schema))}",
            rule="schema-object",
            where=label,
        )
        return
    try:
        dialect = dialect_of(schema)
    except UnsupportedDialect as exc:
        yield spec_finding(f"{label}: {exc}", rule="dialect", where=label)
        return
    from jsonschema.exceptions import SchemaError

    cls = validator_class(dialect)
    try:
        cls.check_schema(schema)
    except SchemaError as exc:
        where = json_path(exc.absolute_path) if exc.absolute_path else "$"
        yield spec_finding(
            f"{label} is not a valid {dialect} schema",
            details=(f"at {where}: {shorten(exc.message)}",),
            rule="valid-schema",
            where=f"{label} {where}",
        )
        return
    except RecursionError:
        yield spec_finding(f"{label} is nested too deeply to check", rule="depth", where=label)
        return
    if root_object and schema.get("type") != "object":
        yield spec_finding(
            f"{label} root must be an object schema ({root_reason}); it has "
            f"type {schema.get('type', '(none)')!r}",
            rule="root-object",
            where=f"{label} $",
        )
    doc = SchemaDocument(schema, dialect)
    refs = doc.refs
    remote = sorted(set(_network_refs(refs)))
    if remote:
        yield spec_finding(
            f"{label} refers to network $ref(s) that clients must not fetch: "
            + ", ".join(remote[:3]),
            rule="network-ref",
            where=label,
        )
    bad_index = sorted(_bad_index_refs(refs))
    if bad_index:
        yield spec_finding(
            f"{label} has a $ref whose JSON pointer indexes an array with a token that is not "
            "an array index, so validators cannot follow it",
            details=tuple(
                f"$ref {shorten(ref, 120)!r}: {shorten(token, 40)!r} is not an array index "
                "(ASCII digits, RFC 6901)"
                for ref, token in bad_index[:3]
            ),
            rule="ref-pointer",
            where=label,
        )
    loop = _ref_loop(doc)
    if loop:
        yield spec_finding(
            f"{label} has a $ref loop that never moves into a property or item "
            f"({' -> '.join(loop)}), so validating anything against it recurses forever",
            details=("break the loop: recursion must go through 'properties', 'items' or similar",),
            rule="ref-loop",
            where=label,
        )


def _network_refs(refs: RefIndex) -> Iterator[str]:
    """The refs that resolve, against their base URI, to another document on the network."""
    for at, ref in refs.refs():
        try:
            refs.lookup(ref, at)
        except Unresolvable as exc:
            if exc.is_network:
                yield ref


def _bad_index_refs(refs: RefIndex) -> Iterator[tuple[str, str]]:
    """Local ``$ref``s and the pointer token that indexes an array without being a number
    ("%C2%B2" decodes to "²"): each crashes a referencing-based validator."""
    for _, ref in refs.refs():
        if ref.startswith("#/"):
            token = bad_array_index(refs.root, unquote(ref))
            if token is not None:
                yield ref, token


def _ref_loop(doc: SchemaDocument) -> list[str] | None:
    """A chain of local ``$ref``s that comes back to its start without moving into a member
    of the instance (found without recursion), or None; as the pointers the refs lead to."""
    targets: dict[str, list[str]] = {}

    def next_refs(pointer: str) -> list[str]:
        if pointer not in targets:
            targets[pointer] = doc.in_place_refs(pointer)
        return targets[pointer]

    refs = doc.refs
    starts = [target.pointer for at, ref in refs.refs() if (target := refs.find(ref, at))]
    state: dict[str, str] = {}  # "open" while on the current path, then "done"
    for start in starts:
        if start in state:
            continue
        path, pending = [start], [iter(next_refs(start))]
        state[start] = "open"
        while pending:
            following = next(pending[-1], None)
            if following is None:
                state[path.pop()] = "done"
                pending.pop()
            elif state.get(following) == "open":
                return [*path[path.index(following) :], following]
            elif following not in state:
                state[following] = "open"
                path.append(following)
                pending.append(iter(next_refs(following)))
    return None


def check_listing(
    tool: Entry,
    *,
    protocol_version: str,
    clients: Collection[str] = DEFAULT_CLIENTS,
    lints: LintLevels | None = None,
    security: SecurityMode = SecurityMode.OFF,
) -> list[Finding]:
    """The static ``schema`` check: the listing entry, its schemas and its name under the
    spec, then what each of ``clients`` (profile names, ``judges/clients``) refuses in them;
    the orders against the user in its descriptions, failed or warned as ``security``
    (``--mcp-security``) says; with ``lints``, the tool's lints (judges/lints) at their
    chosen levels (with those orders among them when ``security`` is off)."""
    findings = [spec_finding(p, rule="listing-entry") for p in tool.problems]
    if tool.cut or (tool.problems and not isinstance(tool.input_schema, dict)):
        return findings
    findings += _schema_findings(
        "inputSchema", tool.input_schema, root_object=True, root_reason="the spec requires it"
    )
    if tool.output_schema is not None:
        legacy = protocol_version != MODERN_VERSION
        findings += _schema_findings(
            "outputSchema",
            tool.output_schema,
            root_object=legacy,
            root_reason=f"protocol {protocol_version} requires it",
        )
    findings += _name_findings(tool.name)
    # A schema the spec check already refuses is reported once, by it: what a client makes
    # of an invalid schema is beside the point.
    if not any(f.level is Level.ERROR for f in findings):
        findings += check_clients(tool, clients)
    findings += poisoning_findings(tool, security)
    if lints is not None:
        findings += tool_lints(tool, lints, security)
    return findings


# The spec's rule (2025-11-25, "Tool names"; SEP-986): 1-128 characters of A-Z a-z 0-9 _ - .
# The checks and their wording follow the SDK's validate_tool_name
# (mcp/shared/tool_name_validation.py), without importing the SDK for one regular expression.
_TOOL_NAME = re.compile(r"[A-Za-z0-9._-]{1,128}")


def tool_name_warnings(name: str) -> list[str]:
    """What is wrong with a tool name under the spec's naming rules, in the SDK's words."""
    if not name:
        return ["Tool name cannot be empty"]
    if len(name) > 128:
        return [f"Tool name exceeds maximum length of 128 characters (current: {len(name)})"]
    warnings = []
    if " " in name:
        warnings.append("Tool name contains spaces, which may cause parsing issues")
    if "," in name:
        warnings.append("Tool name contains commas, which may cause parsing issues")
    for char, label in (("-", "dash"), (".", "dot")):
        if name.startswith(char) or name.endswith(char):
            warnings.append(
                f"Tool name starts or ends with a {label}, which may cause parsing issues in "
                "some contexts"
            )
    if not _TOOL_NAME.fullmatch(name):
        invalid = dict.fromkeys(c for c in name if not _TOOL_NAME.fullmatch(c))
        warnings.append(
            f"Tool name contains invalid characters: {', '.join(repr(c) for c in invalid)}"
        )
        warnings.append(
            "Allowed characters are: A-Z, a-z, 0-9, underscore (_), dash (-), and dot (.)"
        )
    return warnings


def _name_findings(name: str) -> list[Finding]:
    warnings = tool_name_warnings(name)
    if not warnings:
        return []
    return [
        spec_finding(
            f"tool name {name!r} does not follow the spec's naming rules: "
            + "; ".join(w.rstrip(".") for w in warnings),
            level=Level.WARNING,
            rule="tool-name",
            where="name",
        )
    ]
