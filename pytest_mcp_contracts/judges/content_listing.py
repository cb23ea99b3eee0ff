"""Check: a resource's, resource template's or prompt's listing entry (the static ``schema``
check of ``mcp:<server>::<kind>:<key>``), as plain data.

The rules and their sources (docs/prompts-resources.md): the members each protocol version's
schema defines for ``Resource``, ``ResourceTemplate``, ``Prompt`` and ``PromptArgument``
(required ones and types, ``_MEMBERS``), a resource URI valid under RFC 3986 (the schema's
``format: uri``), a URI template valid under RFC 6570 (``format: uri-template``), keys that
address one entry each, and a ``mimeType`` of RFC 6838's ``type/subtype`` form.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator, Mapping
from typing import Any, Final

from pytest_mcp_contracts.judges.failures import Finding
from pytest_mcp_contracts.judges.lints import LintLevels
from pytest_mcp_contracts.judges.spec_messages import violations_finding
from pytest_mcp_contracts.judges.tool_listing import check_listing, spec_finding
from pytest_mcp_contracts.options import DEFAULT_CLIENTS
from pytest_mcp_contracts.schema.spec import Spec
from pytest_mcp_contracts.text import shorten
from pytest_mcp_contracts.transport.discover import (
    MAX_ENTRY_DEPTH,
    Entry,
    ListingFailure,
)
from pytest_mcp_contracts.transport.errors import METHOD_NOT_FOUND
from pytest_mcp_contracts.vocabulary import (
    HANDSHAKE_VERSIONS,
    MODERN_VERSION,
    ClientProfile,
    EntryKind,
    Level,
    SecurityMode,
)

_VERSIONS: Final = (*HANDSHAKE_VERSIONS, MODERN_VERSION)
_JSON_TYPES: Final[dict[str, type | tuple[type, ...]]] = {
    "string": str,
    "object": dict,
    "array": list,
    "boolean": bool,
    "integer": int,
}

# Each definition's members: (JSON type, the first protocol version whose schema has it),
# read from schema/<version>/schema.json of modelcontextprotocol/modelcontextprotocol. A
# member a version does not define is any value there (the schema allows unknown members).
_COMMON: Final = {
    "name": ("string", "2024-11-05"),
    "description": ("string", "2024-11-05"),
    "title": ("string", "2025-06-18"),
    "_meta": ("object", "2025-06-18"),
    "icons": ("array", "2025-11-25"),
}
_MEMBERS: Final[dict[str, dict[str, tuple[str, str]]]] = {
    EntryKind.RESOURCE: {
        **_COMMON,
        "uri": ("string", "2024-11-05"),
        "mimeType": ("string", "2024-11-05"),
        "size": ("integer", "2024-11-05"),
        "annotations": ("object", "2024-11-05"),
    },
    EntryKind.TEMPLATE: {
        **_COMMON,
        "uriTemplate": ("string", "2024-11-05"),
        "mimeType": ("string", "2024-11-05"),
        "annotations": ("object", "2024-11-05"),
    },
    EntryKind.PROMPT: {**_COMMON, "arguments": ("array", "2024-11-05")},
    "argument": {
        "name": ("string", "2024-11-05"),
        "description": ("string", "2024-11-05"),
        "title": ("string", "2025-06-18"),
        "required": ("boolean", "2024-11-05"),
    },
}
_REQUIRED: Final = {
    EntryKind.RESOURCE: ("uri", "name"),
    EntryKind.TEMPLATE: ("uriTemplate", "name"),
    EntryKind.PROMPT: ("name",),
    "argument": ("name",),
}
# RFC 6838 section 4.2: type "/" subtype, each a restricted-name, then RFC 2045 parameters.
_NAME: Final = r"[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}"
_MIME: Final = re.compile(rf"{_NAME}/{_NAME}(\s*;\s*[^;=\s]+=(\"[^\"]*\"|[^;\s]*))*\s*;?")
_SCHEME: Final = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")


def _finding(
    message: str,
    *,
    rule: str,
    where: str,
    fix: str,
    level: Level = Level.ERROR,
    details: tuple[str, ...] = (),
) -> Finding:
    """A finding of the schema check: a listing entry that breaks the spec (``mcp/<rule>``,
    the rules of docs/prompts-resources.md)."""
    return spec_finding(message, details, level, rule=rule, where=where, fix=fix)


def _defined(since: str, protocol_version: str) -> bool:
    """Whether a member introduced in ``since`` is defined on a connection at
    ``protocol_version`` (an unknown version is taken as the newest)."""
    if protocol_version not in _VERSIONS:
        return True
    return _VERSIONS.index(since) <= _VERSIONS.index(protocol_version)


def _member_findings(
    definition: str, raw: Mapping[str, Any], protocol_version: str, at: str
) -> Iterator[Finding]:
    """Required members present, and every member the version defines of its type."""
    label = "argument" if definition == "argument" else definition
    for member in _REQUIRED[definition]:
        if member not in raw:
            yield _finding(
                f"the {label} has no {member!r}, which the spec requires",
                rule="required-member",
                where=f"{at}.{member}",
                fix=f"give every {label} a string {member!r}",
            )
    for member, (json_type, since) in _MEMBERS[definition].items():
        if member not in raw or not _defined(since, protocol_version):
            continue
        value = raw[member]
        python = _JSON_TYPES[json_type]
        wrong = not isinstance(value, python) or (
            json_type == "integer" and isinstance(value, bool)
        )
        if wrong:
            yield _finding(
                f"the {label}'s {member!r} must be of type {json_type}: it is "
                f"{shorten(repr(value), 60)}",
                rule="member-type",
                where=f"{at}.{member}",
                fix=f"send {member!r} as a JSON {json_type}, or leave it out",
            )


def _uri_findings(uri: str, where: str = "uri") -> Iterator[Finding]:
    from rfc3986_validator import validate_rfc3986

    if validate_rfc3986(uri, rule="URI"):
        return
    relative = not _SCHEME.match(uri)
    yield _finding(
        f"the resource URI {shorten(repr(uri), 120)} is "
        + ("relative: it has no scheme" if relative else "not a valid URI under RFC 3986"),
        rule="resource-uri",
        where=where,
        fix="list an absolute URI with a scheme (file:///..., https://..., or a custom "
        "scheme such as myapp://...), with spaces and other reserved characters "
        "percent-encoded",
    )


def _template_findings(template: str) -> Iterator[Finding]:
    import uri_template

    shown = shorten(repr(template), 120)
    if not uri_template.validate(template):
        yield _finding(
            f"the URI template {shown} is not a valid RFC 6570 template",
            rule="uri-template",
            where="uriTemplate",
            fix="close every '{' with '}', name each variable with letters, digits, '_' or "
            "'.' (percent-encoded otherwise), and use only the operators + # . / ; ? &",
        )
        return
    # Its expansions are resource URIs, which are absolute: a template that opens with
    # literal text must open with a scheme (one that opens with an expression may expand
    # one, as {+base}/x does).
    if not template.startswith("{") and not _SCHEME.match(template):
        yield _finding(
            f"the URI template {shown} expands to relative URIs: it has no scheme",
            rule="uri-template",
            where="uriTemplate",
            fix="start the template with a scheme, e.g. myapp://items/{id}",
        )


def _mime_findings(raw: Mapping[str, Any], where: str = "mimeType") -> Iterator[Finding]:
    mime = raw.get("mimeType")
    if isinstance(mime, str) and not _MIME.fullmatch(mime):
        yield _finding(
            f"the mimeType {shorten(repr(mime), 60)} is not a MIME type of the form "
            "type/subtype (RFC 6838)",
            rule="mime-type",
            where=where,
            fix="use a registered type such as text/plain or application/json, or leave "
            "mimeType out when it is not known",
            level=Level.WARNING,
        )


def _argument_findings(arguments: list[Any], protocol_version: str) -> Iterator[Finding]:
    seen: dict[str, int] = {}
    for index, argument in enumerate(arguments):
        at = f"arguments[{index}]"
        if not isinstance(argument, dict):
            yield _finding(
                f"prompt argument {index} is not an object: {shorten(repr(argument), 60)}",
                rule="prompt-argument",
                where=at,
                fix="list each argument as an object with a string 'name'",
            )
            continue
        yield from _member_findings("argument", argument, protocol_version, at)
        name = argument.get("name")
        if isinstance(name, str):
            seen[name] = seen.get(name, 0) + 1
    for name, count in seen.items():
        if count > 1:
            yield _finding(
                f"the prompt argument {shorten(repr(name), 60)} is listed {count} times: "
                "prompts/get takes its arguments as an object by name, so only one can be sent",
                rule="duplicate",
                where="arguments",
                fix="give each argument of a prompt its own name",
            )


def resource_findings(
    raw: Mapping[str, Any], *, protocol_version: str, at: str
) -> Iterator[Finding]:
    """A ``Resource``'s members, URI and mimeType, checked as its listing entry is: also a
    ``resource_link`` content block's (``ResourceLink`` extends ``Resource``), whose place
    in a result is ``at``."""
    yield from _member_findings(EntryKind.RESOURCE, raw, protocol_version, at)
    if isinstance(raw.get("uri"), str):
        yield from _uri_findings(raw["uri"], f"{at}.uri")
    yield from _mime_findings(raw, f"{at}.mimeType")


def is_mime_type(value: str) -> bool:
    """Whether ``value`` has RFC 6838's ``type/subtype`` form (with parameters)."""
    return _MIME.fullmatch(value) is not None


def entry_findings(
    entry: Entry,
    *,
    protocol_version: str,
    clients: Collection[str] = DEFAULT_CLIENTS,
    lints: LintLevels | None = None,
    security: SecurityMode = SecurityMode.OFF,
) -> list[Finding]:
    """The static ``schema`` check of any listing entry: a tool's (``listing.check_listing``,
    under ``clients``' rules, the ``lints`` and ``security``), a resource's, template's or
    prompt's."""
    if entry.kind is EntryKind.TOOL:
        findings = check_listing(
            entry,
            protocol_version=protocol_version,
            clients=clients,
            lints=lints,
            security=security,
        )
    else:
        findings = check_entry(entry, protocol_version=protocol_version)
    if entry.cut or any(f.level is Level.ERROR and f.client == ClientProfile.MCP for f in findings):
        return findings  # one defect fails the item once, in the words that say most
    return [*findings, *_schema_verdict(entry, protocol_version)]


def _schema_verdict(entry: Entry, protocol_version: str) -> list[Finding]:
    """The entry against its definition in the version's schema (schema/spec)."""
    spec = Spec.of(protocol_version)
    if spec is None or "__not_an_object__" in entry.raw:
        return []
    what = f"the {entry.kind} {shorten(repr(entry.key), 80)} of {entry.listing.method}"
    found = violations_finding("schema", spec.check(entry.listing.definition, entry.raw, what))
    return [found] if found is not None else []


def check_entry(entry: Entry, *, protocol_version: str) -> list[Finding]:
    """The static ``schema`` check of one resource, template or prompt."""
    raw = entry.raw
    if "__not_an_object__" in raw:
        return [
            _finding(
                f"the {entry.listing.method} entry is not an object: "
                f"{shorten(repr(raw['__not_an_object__']), 60)}",
                rule="listing-entry",
                where=entry.listing.array,
                fix=f"list each {entry.kind} as a JSON object",
            )
        ]
    if entry.cut:
        return [
            _finding(
                f"the listing entry nests deeper than {MAX_ENTRY_DEPTH} levels, so it was not "
                "checked",
                rule="listing-entry",
                where=entry.listing.array,
                fix="flatten the entry's annotations and _meta",
            )
        ]
    findings = list(_member_findings(entry.kind, raw, protocol_version, "$"))
    listing = entry.listing
    if entry.listed > 1:
        findings.append(
            _finding(
                f"{listing.key_field} {shorten(repr(entry.key), 120)} is listed {entry.listed} "
                f"times in {listing.method}: {_ADDRESSED[entry.kind]}, so only its first entry "
                "is checked",
                rule="duplicate",
                where=listing.key_field,
                fix=f"list each {entry.kind} once, or give each its own {listing.key_field}",
            )
        )
    if entry.kind is EntryKind.RESOURCE and isinstance(raw.get("uri"), str):
        findings += _uri_findings(raw["uri"])
    if entry.kind is EntryKind.TEMPLATE and isinstance(raw.get("uriTemplate"), str):
        findings += _template_findings(raw["uriTemplate"])
    if entry.kind is EntryKind.PROMPT and isinstance(raw.get("arguments"), list):
        findings += _argument_findings(raw["arguments"], protocol_version)
    findings += _mime_findings(raw)
    return findings


# Why a key listed twice is an error: the spec's words for what the key addresses.
_ADDRESSED: Final = {
    EntryKind.RESOURCE: "a resource is uniquely identified by its URI (spec: Resources)",
    EntryKind.TEMPLATE: "the templates would construct the same resource URIs, and a "
    "resource is uniquely identified by its URI (spec: Resources)",
    EntryKind.PROMPT: "prompts/get names the prompt it gets",
}


def listing_failure_finding(failure: ListingFailure) -> Finding:
    """A listing the server declared (its capability) and then did not answer as the spec
    says: every entry of it is out of reach of a client. One exception is a warning: the
    Python SDK 1.x low-level ``Server`` declares ``resources`` and answers
    ``resources/templates/list`` with -32601 unless the author registered templates, so a
    server with no templates says "none" in the wrong words (clients treat it as no
    templates)."""
    if failure.method == "resources/templates/list" and failure.code == METHOD_NOT_FOUND:
        return _finding(
            f"{failure.message}: the server declares resources but does not answer "
            "resources/templates/list",
            rule="listing",
            where=failure.method,
            fix='answer resources/templates/list with {"resourceTemplates": []} when there '
            "are none (Python SDK 1.x: register a list_resource_templates handler)",
            level=Level.WARNING,
        )
    return _finding(
        failure.message,
        rule="listing",
        where=failure.method,
        fix=f"answer {failure.method} with a result holding its array (the server declares "
        f"the {'prompts' if failure.kind == 'prompt' else 'resources'} capability), or "
        "stop declaring the capability",
    )
