"""The protocol's rules that no schema can say, each a small function from what the server
answered to findings (the ``protocol`` item's conversation: ``runs/protocol``).

Every finding names its rule (``RULES``: an id and the section of the specification it comes
from, per protocol version), what was sent and what came back. What fails the item: what
a MUST rules out (JSON-RPC 2.0's "the Server MUST reply with a Response" included), a
result where nothing can have run, and a JSON-RPC code that names the opposite of what
happened (-32603, an internal error, for the client's malformed request, to which
JSON-RPC 2.0 gives -32602). What the specification asks with SHOULD, or shows only by
example, warns; where it is silent nothing is said.
docs/reference/protocol-rules.md lists them.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from pytest_mcp_contracts.judges.failures import FailureKind, Finding
from pytest_mcp_contracts.text import short_json
from pytest_mcp_contracts.vocabulary import MODERN_VERSION, Check, Level

INVALID_PARAMS: Final = -32602
METHOD_NOT_FOUND: Final = -32601
INTERNAL_ERROR: Final = -32603
UNSUPPORTED_VERSION: Final = -32022
LEGACY_NOT_FOUND: Final = -32002
# 2026-07-28 basic/index §Error Codes: the sub-range the specification alone defines, the
# codes it defines there, and the earlier versions' codes it forbids.
MCP_RANGE: Final = range(-32099, -32019)
MCP_CODES: Final = frozenset({-32020, -32021, -32022})
RETIRED_CODES: Final = frozenset({-32002, -32042})

JSON_RPC_REPLY: Final = "JSON-RPC 2.0 §5 Response object (the Server MUST reply with a Response)"
JSON_RPC_CODES: Final = (
    "JSON-RPC 2.0 §5.1 Error object (-32601 Method not found, -32602 Invalid params)"
)


@dataclass(frozen=True)
class Rule:
    """One rule: its name, what it holds the server to, and where the specification says it
    (``{version}`` stands for the protocol version the server speaks)."""

    name: str
    title: str
    section: str
    versions: tuple[str, ...] = ()  # the versions it applies to; () for all

    @property
    def id(self) -> str:
        """As findings and the docs name it: ``protocol/<name>``."""
        return f"protocol/{self.name}"

    def where(self, version: str) -> str:
        return self.section.format(version=version)


def _rule(name: str, title: str, section: str, *versions: str) -> Rule:
    return Rule(name, title, section, versions)


_TOOLS_ERRORS = "{version} server/tools §Error Handling; " + JSON_RPC_CODES
RULES: Final = {
    rule.name: rule
    for rule in (
        _rule(
            "arguments-null",
            "tools/call with `arguments: null` is answered with -32602 (a malformed request)",
            _TOOLS_ERRORS,
        ),
        _rule(
            "arguments-array",
            "tools/call with `arguments: []` is answered with -32602 (a malformed request)",
            _TOOLS_ERRORS,
        ),
        _rule(
            "missing-name",
            "tools/call without `name` is answered with -32602, never with a result",
            _TOOLS_ERRORS,
        ),
        _rule(
            "unknown-tool",
            "tools/call of a tool the server does not have is answered with -32602",
            _TOOLS_ERRORS,
        ),
        _rule(
            "unknown-method",
            "a method the server does not have is answered with -32601",
            JSON_RPC_CODES + "; {version} basic/index §Responses",
        ),
        _rule(
            "pagination",
            "a listing followed through nextCursor ends, and no cursor comes back",
            "{version} server/utilities/pagination §Pagination Model; {version} "
            "server/tools §Listing Tools",
        ),
        _rule(
            "repeated-entry",
            "no entry of a listing comes back on a later page",
            "{version} server/utilities/pagination §Pagination Model; 2026-07-28 "
            "server/tools §Capabilities (the set of tools)",
        ),
        _rule(
            "list-changed",
            "a listing that changes within a connection is announced by "
            "notifications/*/list_changed when the server declared listChanged",
            "{version} server/tools §List Changed Notification",
        ),
        _rule(
            "per-connection",
            "a listing does not vary per connection or as a side effect of other requests",
            "2026-07-28 server/tools §Capabilities",
            MODERN_VERSION,
        ),
        _rule(
            "unsupported-version",
            "a request with a protocol version the server does not speak is answered -32022",
            "2026-07-28 basic/versioning §Protocol Version Negotiation",
            MODERN_VERSION,
        ),
        _rule(
            "resource-not-found",
            "a read of a resource that does not exist is answered -32602 (2026-07-28; "
            "-32002 before)",
            "{version} server/resources §Error Handling",
        ),
        _rule(
            "discover",
            "server/discover is answered, naming 2026-07-28 among the supported versions",
            "2026-07-28 server/discover",
            MODERN_VERSION,
        ),
        _rule(
            "headers",
            "over Streamable HTTP, a request whose Mcp-Method or Mcp-Name header is missing "
            "or disagrees with its body is refused: 400 Bad Request and -32020",
            "2026-07-28 basic/transports/streamable-http §Server Validation",
            MODERN_VERSION,
        ),
        _rule(
            "error-codes",
            "no error code of the specification's own range that it does not define, and "
            "not -32002 or -32042",
            "2026-07-28 basic/index §Error Codes",
            MODERN_VERSION,
        ),
    )
}


@dataclass(frozen=True)
class Answer:
    """What one request of the protocol check got: a result, a JSON-RPC error, or no answer
    (``failure``: a hang, the server's death, a garbled response)."""

    method: str
    sent: dict[str, Any]
    result: dict[str, Any] | None = None
    code: int | None = None
    error: str = ""
    failure: str | None = None
    status: int | None = None  # over HTTP, an error status without a JSON-RPC error

    @property
    def is_error_result(self) -> bool:
        return self.result is not None and self.result.get("isError") is True

    def got(self, otherwise: str) -> str:
        """What came back, in a finding's words: no answer, an error code, else ``otherwise``
        (what a result says to the rule)."""
        if self.failure is not None:
            return f"got no answer ({self.failure})"
        if self.code is not None:
            return f"was answered with {self.code}"
        return otherwise

    def lines(self) -> tuple[str, ...]:
        received = (
            f"no answer: {self.failure}"
            if self.failure is not None
            else f"error {self.code}: {self.error}"
            if self.code is not None
            else f"result {short_json(self.result)}"
        )
        return (f"sent: {self.method} {short_json(self.sent)}", f"received: {received}")


def finding(
    name: str,
    version: str,
    message: str,
    level: Level,
    details: Sequence[str] = (),
    *,
    unanswered: bool = False,
) -> Finding:
    """A finding of rule ``name``; ``unanswered``: the server did not answer, which
    JSON-RPC forbids whatever the rule asks the answer to be."""
    rule = RULES[name]
    where = rule.where(version) + (f"; {JSON_RPC_REPLY}" if unanswered else "")
    return Finding(
        Check.PROTOCOL.value,
        message,
        level,
        tuple(details),
        kind=FailureKind.PROTOCOL_VIOLATION,
        rule=rule.id,
        where=where,
    )


# -- requests a client may get wrong ---------------------------------------------------------

# What each malformed tools/call is, in the words of a finding.
MALFORMED: Final = {
    "arguments-null": "tools/call with arguments: null",
    "arguments-array": "tools/call with arguments: []",
    "missing-name": "tools/call without a name",
    "unknown-tool": "tools/call of an unknown tool",
}


def judge_malformed_call(case: str, version: str, answer: Answer) -> Finding | None:
    """A tools/call the client got wrong (``MALFORMED``). Every version lists unknown tools
    and malformed or invalid arguments among the protocol errors, whose code is -32602;
    -32603 says the server failed where the client erred, no answer breaks JSON-RPC's
    MUST, and a plain result for a call without a name or of a tool that does not exist
    says something ran. An isError result, another code, or (for arguments the server may
    read as none) a result are the categories the spec names but does not require: warned."""
    what = MALFORMED[case]
    say = _sayer(case, version, answer)
    if answer.failure is not None:
        return say(f"{what} got no answer ({answer.failure})", Level.ERROR)
    if answer.code == INVALID_PARAMS:
        return None
    if answer.code == INTERNAL_ERROR:
        return say(
            f"{what} was answered with -32603 (internal error): the client's mistake is "
            "-32602 (invalid params), not the server's failure",
            Level.ERROR,
        )
    if answer.code is not None:
        return say(f"{what} was answered with {answer.code}, not -32602", Level.WARNING)
    if answer.is_error_result:
        return say(
            f"{what} was answered with an isError result: the spec lists it among the "
            "protocol errors (JSON-RPC -32602)",
            Level.WARNING,
        )
    runs = case in ("missing-name", "unknown-tool")
    return say(
        f"{what} was answered with a result, as if a tool had run",
        Level.ERROR if runs else Level.WARNING,
    )


def judge_unknown_method(version: str, answer: Answer) -> Finding | None:
    """A method no server has: -32601; -32602 (which SDKs send) is warned; -32603, another
    code, a result or no answer fail."""
    say = _sayer("unknown-method", version, answer)
    what = f"the unknown method {answer.method}"
    if answer.failure is not None:
        return say(f"{what} got no answer ({answer.failure})", Level.ERROR)
    if answer.code == METHOD_NOT_FOUND:
        return None
    if answer.code == INVALID_PARAMS:
        return say(f"{what} was answered with -32602, not -32601", Level.WARNING)
    if answer.code is not None:
        return say(f"{what} was answered with {answer.code}, not -32601", Level.ERROR)
    return say(f"{what} was answered with a result, not -32601", Level.ERROR)


# -- listings --------------------------------------------------------------------------------


def judge_pages(
    version: str,
    method: str,
    key_field: str,
    pages: Sequence[Sequence[dict[str, Any]]],
    problem: str | None,
) -> list[Finding]:
    """A listing read page by page: one that loops or does not end (``problem``, as
    ``transport/discover.read_pages`` found it) fails; an entry that comes back on a later
    page fails on 2026-07-28 (a listing is a set there) and warns before (no version
    allows it, none forbids it in words)."""
    found = []
    details = [f"sent: {method}, following nextCursor", f"read {len(pages)} page(s)"]
    if problem is not None:
        found.append(finding("pagination", version, problem, Level.ERROR, details))
    first_page: dict[str, int] = {}
    repeated: dict[str, str] = {}  # by key: where it was listed twice, the first time
    for number, page in enumerate(pages, 1):
        for entry in page:
            key = entry.get(key_field)
            if not isinstance(key, str):
                continue
            first = first_page.setdefault(key, number)
            if first != number and key not in repeated:
                repeated[key] = f"{key!r} on pages {first} and {number}"
    if repeated:
        level = Level.ERROR if version == MODERN_VERSION else Level.WARNING
        said = list(repeated.values())
        shown = ", ".join(said[:5]) + (f" and {len(said) - 5} more" if len(said) > 5 else "")
        message = f"{method} lists an entry again on a later page: {shown}"
        found.append(finding("repeated-entry", version, message, level, details))
    return found


Listed = Sequence[dict[str, Any]]


def same_listing(one: Listed, other: Listed) -> bool:
    """Whether two readings list the same entries (in any order: the spec asks for a
    deterministic order with SHOULD only)."""
    return _canonical(one) == _canonical(other)


def _canonical(listed: Listed) -> Counter[str]:
    return Counter(json.dumps(entry, sort_keys=True, default=repr) for entry in listed)


def listing_difference(one: Listed, other: Listed) -> str:
    """How ``other`` differs from ``one``, in a few words."""
    before, after = _canonical(one), _canonical(other)
    gone, new = sum((before - after).values()), sum((after - before).values())
    return f"{gone} entr(ies) not listed again, {new} listed anew"


def judge_list_changed(
    version: str,
    method: str,
    capability: str,
    before: Listed,
    after: Listed,
    *,
    declared: bool,
    announced: bool,
) -> Finding | None:
    """Before 2026-07-28: a listing that changed within the connection. A server that
    declared ``listChanged: true`` SHOULD have said so (a warning); one that declared
    nothing promised nothing, and the run's summary already says the tool list changed."""
    if version == MODERN_VERSION or same_listing(before, after) or not declared or announced:
        return None
    return finding(
        "list-changed",
        version,
        f"{method} changed within the connection ({listing_difference(before, after)}) "
        f"without notifications/{capability}/list_changed, though the server declares listChanged",
        Level.WARNING,
        (f"sent: {method} before and after the protocol check's other requests",),
    )


def judge_per_connection(
    method: str, first: Listed, other: Listed, first_again: Listed, other_again: Listed
) -> Finding | None:
    """2026-07-28: a listing read on the check's connection (``first``, then
    ``first_again`` after its other requests) and on a second one (``other``, then
    ``other_again``). It varies per connection when each connection keeps its own; it
    changed as a side effect of requests when only the connection that sent them sees a
    change. A change both see is a change over time, which the spec allows."""
    per_connection = (
        same_listing(first, first_again)
        and same_listing(other, other_again)
        and not same_listing(first, other)
    )
    side_effect = (
        not same_listing(first, first_again)
        and same_listing(other, other_again)
        and same_listing(first, other)
    )
    if not (per_connection or side_effect):
        return None
    if per_connection:
        message = (
            f"{method} differs between two connections ({listing_difference(first, other)}), "
            "each reading its own twice"
        )
    else:
        message = (
            f"{method} changed on the connection that sent other requests "
            f"({listing_difference(first, first_again)}) and not on another"
        )
    return finding(
        "per-connection",
        MODERN_VERSION,
        message,
        Level.ERROR,
        (f"sent: {method} on two connections, before and after the check's other requests",),
    )


# -- 2026-07-28 ------------------------------------------------------------------------------


def judge_unsupported_version(answer: Answer) -> Finding | None:
    """A request whose ``_meta`` names a version no server speaks: -32022 (MUST)."""
    if answer.code == UNSUPPORTED_VERSION:
        return None
    got = answer.got("was answered with a result")
    return finding(
        "unsupported-version",
        MODERN_VERSION,
        f"a request for protocol version {_requested(answer)} {got}, not -32022 "
        "(UnsupportedProtocolVersionError)",
        Level.ERROR,
        answer.lines(),
        unanswered=answer.failure is not None,
    )


def _requested(answer: Answer) -> str:
    meta = answer.sent.get("_meta")
    return (
        repr(meta.get("io.modelcontextprotocol/protocolVersion")) if isinstance(meta, dict) else "?"
    )


def judge_resource_not_found(version: str, answer: Answer) -> Finding | None:
    """A read of a URI no server has. 2026-07-28: -32602 MUST, and an empty ``contents``
    MUST NOT; before: -32002 SHOULD. A result with contents says the server has it after all
    (one that serves any URI): nothing to judge."""
    say = _sayer("resource-not-found", version, answer)
    modern = version == MODERN_VERSION
    expected = INVALID_PARAMS if modern else LEGACY_NOT_FOUND
    what = "a read of a resource that does not exist"
    if answer.failure is not None:
        return say(f"{what} got no answer ({answer.failure})", Level.ERROR)
    if answer.code is not None:
        if answer.code == expected:
            return None
        return say(
            f"{what} was answered with {answer.code}, not {expected}",
            Level.ERROR if modern else Level.WARNING,
        )
    contents = (answer.result or {}).get("contents")
    if modern and contents == []:
        return say(f"{what} was answered with an empty contents array", Level.ERROR)
    return None


def judge_discover(answer: Answer) -> Finding | None:
    """server/discover, which a 2026-07-28 server MUST implement, names that version."""
    versions = (answer.result or {}).get("supportedVersions")
    if isinstance(versions, list) and MODERN_VERSION in versions:
        return None
    got = answer.got(f"did not name {MODERN_VERSION} in supportedVersions")
    return finding(
        "discover",
        MODERN_VERSION,
        f"server/discover {got}",
        Level.ERROR,
        answer.lines(),
        unanswered=answer.failure is not None,
    )


HEADER_MISMATCH: Final = -32020

# What each header case changes of a request, in the words of a finding.
HEADER_CASES: Final = {
    "no-method": "without its Mcp-Method header",
    "wrong-method": "with an Mcp-Method header that names another method",
    "wrong-name": "with an Mcp-Name header that names another tool",
}


def judge_headers(case: str, answer: Answer) -> Finding | None:
    """2026-07-28 over Streamable HTTP: a server that reads the body MUST refuse a request
    whose standard headers are missing or disagree with it, with 400 and -32020. A 400
    without a JSON-RPC error is what an intermediary may send (warned: the answer may not
    be the server's); anything else fails."""
    what = f"{answer.method} {HEADER_CASES[case]}"
    say = _sayer("headers", MODERN_VERSION, answer)
    if answer.code == HEADER_MISMATCH:
        return None
    if answer.status == 400 and answer.code is None:
        return say(
            f"{what} was refused with HTTP 400 but no JSON-RPC -32020 (HeaderMismatch)",
            Level.WARNING,
        )
    if answer.code is not None:
        return say(f"{what} was answered with {answer.code}, not -32020", Level.ERROR)
    if answer.failure is not None and answer.status is None:
        return say(f"{what} got no answer ({answer.failure})", Level.ERROR)
    if answer.failure is not None:
        return say(f"{what} was refused with HTTP {answer.status}, not 400 and -32020", Level.ERROR)
    return say(f"{what} was answered with a result, not refused with -32020", Level.ERROR)


def judge_error_codes(version: str, answers: Sequence[Answer]) -> list[Finding]:
    """2026-07-28: no code of -32020..-32099 the specification does not define, and neither
    of the codes it retired (-32002, -32042), in any error the check was answered with."""
    if version != MODERN_VERSION:
        return []
    found = []
    for answer in answers:
        code = answer.code
        if code is None or not (
            code in RETIRED_CODES or (code in MCP_RANGE and code not in MCP_CODES)
        ):
            continue
        retired = code in RETIRED_CODES
        why = "retired by 2026-07-28" if retired else "the specification does not define"
        found.append(
            finding(
                "error-codes",
                version,
                f"{answer.method} was answered with {code}, a code {why}",
                Level.ERROR,
                answer.lines(),
            )
        )
    return found


def _sayer(name: str, version: str, answer: Answer) -> Callable[[str, Level], Finding]:
    def say(message: str, level: Level) -> Finding:
        unanswered = answer.failure is not None
        return finding(name, version, message, level, answer.lines(), unanswered=unanswered)

    return say
