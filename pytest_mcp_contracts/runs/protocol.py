"""The ``protocol`` item of a server: a conversation of its own that holds the server to the
protocol's rules no schema can say (``judges/protocol_rules``).

It talks on connections it opens itself (``ManagedServer.open_another``: a new process, or a
new HTTP session), so that no malformed request reaches the connection the other items use,
and a server that dies or hangs on one is started again for the next request without a
restart counted against the run. Every finding is gathered and returned; the item fails on
the errors among them and warns about the rest.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from pytest_mcp_contracts.judges import protocol_rules as rules
from pytest_mcp_contracts.judges.failures import ContractFailure, FailureKind, FailureReport
from pytest_mcp_contracts.judges.protocol_rules import Answer
from pytest_mcp_contracts.judges.spec_messages import violations_finding
from pytest_mcp_contracts.transport.connect import close_together
from pytest_mcp_contracts.transport.discover import (
    LISTINGS,
    Listing,
    PaginationError,
    list_pages,
    read_pages,
)
from pytest_mcp_contracts.transport.errors import (
    CallTimeout,
    RpcError,
    ServerDied,
    ServerError,
    ServerStartError,
)
from pytest_mcp_contracts.transport.jsonrpc import modern_meta
from pytest_mcp_contracts.vocabulary import MODERN_VERSION, Check

if TYPE_CHECKING:
    from pytest_mcp_contracts.judges.failures import Finding
    from pytest_mcp_contracts.runs.context import ItemFacts, RunContext
    from pytest_mcp_contracts.schema.spec import Violation
    from pytest_mcp_contracts.transport.discover import Entry
    from pytest_mcp_contracts.transport.jsonrpc import RpcConnection
    from pytest_mcp_contracts.transport.managed import ManagedServer

UNKNOWN_TOOL: Final = "mcp-contracts-no-such-tool"
UNKNOWN_METHOD: Final = "mcp-contracts/no-such-method"
MISSING_URI: Final = "mcp-contracts-missing:///no-such-resource"
# A protocol version no server speaks, as the spec's own example of -32022 asks for.
NO_SUCH_VERSION: Final = "1900-01-01"


@dataclass
class _Talk:
    """The check's connection to the server, opened again after a death or a hang."""

    server: ManagedServer
    conn: RpcConnection | None = None
    opened: list[RpcConnection] = field(default_factory=list)
    sent: int = 0

    def live(self) -> RpcConnection:
        if self.conn is None or not self.conn.alive:
            if self.conn is not None:
                self.conn.kill()
            self.conn = self.server.open_another()
            self.opened.append(self.conn)
        return self.conn

    def ask(
        self,
        method: str,
        params: dict[str, Any],
        *,
        as_is: bool = False,
        headers: dict[str, str | None] | None = None,
    ) -> Answer:
        """One request and what came of it. ``as_is``: ``params`` go on the wire exactly as
        given, without the connection's ``_meta``; ``headers``: the HTTP headers it would
        carry, changed (RpcConnection.request_with_headers)."""
        conn, timeout = self.live(), self.server.call_timeout
        self.sent += 1

        def send() -> dict[str, Any]:
            if headers is not None:
                return conn.request_with_headers(method, params, headers, timeout=timeout)
            if as_is:
                return conn.request_as_is(method, params, timeout=timeout)
            return conn.request(method, params, timeout=timeout)

        try:
            return Answer(method, params, result=send())
        except RpcError as exc:
            return Answer(method, params, code=exc.code, error=exc.message)
        except CallTimeout:
            conn.kill()  # a later answer must not reach the next request
            return Answer(method, params, failure=f"no answer within {timeout:g} s")
        except ServerDied as exc:
            conn.kill()
            return Answer(method, params, failure=f"the server died: {exc.message}")
        except ServerError as exc:
            # An HTTP error status without a JSON-RPC error (transport/http.HttpStatusError)
            # says its status: what the header rule reads.
            status = getattr(exc, "status", None)
            return Answer(method, params, failure=exc.message, status=status)

    def pages(self, listing: Listing) -> tuple[list[list[dict[str, Any]]], str | None] | None:
        """A listing's pages and what stopped its pagination, or None when it could not be
        read for another reason (its listing item judges that)."""
        conn, pages = self.live(), []
        self.sent += 1
        try:
            for page in read_pages(
                conn, listing.method, listing.array, timeout=self.server.call_timeout
            ):
                pages.append(page)
                self.sent += 1
        except PaginationError as exc:
            return pages, exc.message
        except (CallTimeout, ServerError):
            conn.kill()
            return None
        return pages, None


def declared(context: RunContext) -> list[Listing]:
    """The listings the server declares, tools first."""
    capabilities = context.surface.capabilities
    return [
        listing
        for listing in LISTINGS.values()
        if isinstance(capabilities.get(listing.capability), dict)
    ]


def check_server_protocol(context: RunContext, facts: ItemFacts) -> list[Finding]:
    """The protocol's rules, on connections of the check's own: every finding, the
    warnings and the errors, in the order found."""
    server, version = context.server, context.surface.protocol_version
    modern = version == MODERN_VERSION
    talk, other = _Talk(server), _Talk(server)
    findings: list[Finding] = []
    checked: list[str] = []

    def judged(rule_id: str, *found: Finding | None) -> None:
        checked.append(rule_id)
        findings.extend(f for f in found if f is not None)

    # The second connection starts while the first starts and reads its listings: starting
    # a server is most of what this check waits for, and the two starts need not queue.
    beside = ThreadPoolExecutor(max_workers=1) if modern else None
    opening = beside.submit(other.live) if beside is not None else None
    try:
        listings = declared(context)
        first = _read_listings(talk, listings, version, judged)
        announced_before = _announced(talk)
        conn_before = talk.conn
        if opening is not None:
            opening.result()  # its ServerStartError is this check's, as on the first
        elsewhere = {listing.method: _listed(other, listing) for listing in listings if modern}
        answers = _malformed_requests(context, talk, version, judged)
        if modern:
            answers += _modern_requests(context, talk, judged)
            judged("error-codes", *rules.judge_error_codes(version, answers))
        elif any(listing.capability == "resources" for listing in listings):
            answers.append(_missing_resource(talk, version, judged))
        _compare_listings(
            talk,
            other,
            listings,
            version,
            first,
            elsewhere,
            same_connection=talk.conn is conn_before,
            announced_before=announced_before,
            judged=judged,
        )
        schema = _schema_finding(server, [*talk.opened, *other.opened])
        findings += [schema] if schema is not None else []
    except ServerStartError as exc:
        raise _unavailable(server, exc) from None
    finally:
        if beside is not None:
            beside.shutdown()  # a start still under way ends before its connection is closed
        close_together([*talk.opened, *other.opened])
        opened = len(talk.opened) + len(other.opened)
        facts.section(
            "mcp protocol",
            "\n".join(
                [
                    f"protocol {version}: {talk.sent + other.sent} request(s) on {opened} "
                    "connection(s) of the check's own",
                    *(
                        f"{rule} ({rules.RULES[rule].where(version)})"
                        for rule in dict.fromkeys(checked)
                    ),
                    f"every message outside a call's result against schema/{version}/schema.json",
                ]
            ),
        )
    return findings


def _schema_finding(server: ManagedServer, opened: list[RpcConnection]) -> Finding | None:
    """What the server sent outside any call's result that breaks the version's schema
    (schema/spec): the handshake's answer, the listings' envelopes, notifications between
    calls, on this check's connections and on the run's own, each violation once."""
    live = server.live_connection()
    connections = [*opened, *([live] if live is not None else [])]
    seen: dict[str, Violation] = {}
    for conn in connections:
        for violation in conn.violations:
            seen.setdefault(str(violation), violation)
    lost = sum(conn.violation_count - len(conn.violations) for conn in connections)
    return violations_finding(Check.PROTOCOL.value, list(seen.values()), count=len(seen) + lost)


def _unavailable(server: ManagedServer, exc: ServerStartError) -> ContractFailure:
    return ContractFailure(
        FailureReport.for_tool(
            server,
            "(all)",
            Check.PROTOCOL.value,
            f"the server could not be started for the protocol check's own connection: "
            f"{exc.message}",
            FailureKind.SERVER_UNAVAILABLE,
        )
    )


Judged = Callable[..., None]


def _read_listings(
    talk: _Talk, listings: list[Listing], version: str, judged: Judged
) -> dict[str, list[dict[str, Any]] | None]:
    """Each declared listing followed page by page, judged; its entries for the later
    comparison (None where it could not be read whole)."""
    read: dict[str, list[dict[str, Any]] | None] = {}
    for listing in listings:
        got = talk.pages(listing)
        if got is None:
            read[listing.method] = None
            continue
        pages, problem = got
        judged(
            "pagination",
            *rules.judge_pages(version, listing.method, listing.key_field, pages, problem),
        )
        judged("repeated-entry")  # judge_pages said it, if broken
        read[listing.method] = None if problem else [e for page in pages for e in page]
    return read


def _listed(talk: _Talk, listing: Listing) -> list[dict[str, Any]] | None:
    try:
        return list_pages(
            talk.live(), listing.method, listing.array, timeout=talk.server.call_timeout
        )
    except ServerError:
        return None


def _announced(talk: _Talk) -> dict[str, int]:
    conn = talk.conn
    return dict(conn.notifications) if conn is not None else {}


def callable_tool(context: RunContext) -> Entry | None:
    """The tool the malformed arguments are sent to: one the run may call (its table and
    the call policy allow it: a malformed request must not run a tool the user kept out of
    the run), one that requires no argument first (read as "no arguments", null or [] then
    make a valid call, so an error says the server refused them)."""
    allowed = [
        tool
        for tool in context.surface.tools
        if not tool.malformed and context.refusal(tool) is None
    ]
    bare = [tool for tool in allowed if not tool.input_schema.get("required")]
    return next(iter(bare or allowed), None)


def _malformed_requests(
    context: RunContext, talk: _Talk, version: str, judged: Judged
) -> list[Answer]:
    """Requests a client may send by mistake: tools/call with arguments null or an array,
    without a name, of an unknown tool; an unknown method."""
    answers = []
    if "tools" in context.surface.capabilities:
        cases: list[tuple[str, dict[str, Any]]] = [
            ("missing-name", {"arguments": {}}),
            ("unknown-tool", {"name": _unknown_tool(context), "arguments": {}}),
        ]
        tool = callable_tool(context)
        if tool is not None:
            cases += [
                ("arguments-null", {"name": tool.name, "arguments": None}),
                ("arguments-array", {"name": tool.name, "arguments": []}),
            ]
        control: Answer | None = None
        for case, params in cases:
            answer = talk.ask("tools/call", params)
            answers.append(answer)
            if case.startswith("arguments-") and _failed(answer):
                # A server may read null or [] as no arguments at all; a tool that then
                # fails for want of the ones it requires fails the same on {}: the rejects
                # check judges that, not this rule.
                control = control or talk.ask("tools/call", {**params, "arguments": {}})
                if _failed(control):
                    judged(case)
                    continue
            judged(case, rules.judge_malformed_call(case, version, answer))
    answer = talk.ask(UNKNOWN_METHOD, {})
    answers.append(answer)
    judged("unknown-method", rules.judge_unknown_method(version, answer))
    return answers


def _failed(answer: Answer) -> bool:
    """No answer, or an internal error: what the arguments cases' control is sent for."""
    return answer.failure is not None or answer.code == rules.INTERNAL_ERROR


def _missing_resource(talk: _Talk, version: str, judged: Judged) -> Answer:
    answer = talk.ask("resources/read", {"uri": MISSING_URI})
    judged("resource-not-found", rules.judge_resource_not_found(version, answer))
    return answer


def _modern_requests(context: RunContext, talk: _Talk, judged: Judged) -> list[Answer]:
    """2026-07-28's own: server/discover answered; a request for a version no server
    speaks refused with -32022; a missing resource answered -32602."""
    discover = talk.ask("server/discover", {"_meta": modern_meta(MODERN_VERSION)}, as_is=True)
    judged("discover", rules.judge_discover(discover))
    answers = [discover]
    listings = declared(context)
    if listings:
        method = listings[0].method
        wrong = talk.ask(method, {"_meta": modern_meta(NO_SUCH_VERSION)}, as_is=True)
        judged("unsupported-version", rules.judge_unsupported_version(wrong))
        answers.append(wrong)
    if any(listing.capability == "resources" for listing in listings):
        # Judged by its own rule, not again among the error codes.
        _missing_resource(talk, MODERN_VERSION, judged)
    if talk.live().carries_headers:
        answers += _header_requests(context, talk, judged)
    return answers


def _header_requests(context: RunContext, talk: _Talk, judged: Judged) -> list[Answer]:
    """Over Streamable HTTP: requests whose Mcp-Method or Mcp-Name header is missing or
    disagrees with the body. The tools/call names a tool the server does not have, so a
    server that fails to refuse it runs nothing."""
    answers = []
    cases: list[tuple[str, str, dict[str, Any], dict[str, str | None]]] = [
        ("no-method", "tools/list", {}, {"Mcp-Method": None}),
        ("wrong-method", "tools/list", {}, {"Mcp-Method": "prompts/list"}),
    ]
    if "tools" in context.surface.capabilities:
        params = {"name": _unknown_tool(context), "arguments": {}}
        cases.append(("wrong-name", "tools/call", params, {"Mcp-Name": "mcp-contracts-other"}))
    for case, method, params, headers in cases:
        answer = talk.ask(method, params, headers=headers)
        answers.append(answer)
        judged("headers", rules.judge_headers(case, answer))
    return answers


def _unknown_tool(context: RunContext) -> str:
    """A tool name the server does not list."""
    names = {tool.name for tool in context.surface.tools}
    unknown = UNKNOWN_TOOL
    while unknown in names:
        unknown += "-"
    return unknown


def _compare_listings(
    talk: _Talk,
    other: _Talk,
    listings: list[Listing],
    version: str,
    first: dict[str, list[dict[str, Any]] | None],
    elsewhere: dict[str, list[dict[str, Any]] | None],
    *,
    same_connection: bool,
    announced_before: dict[str, int],
    judged: Judged,
) -> None:
    """Each listing read again after the check's other requests. 2026-07-28: on both
    connections (judge_per_connection); before: on the same connection, whose
    list_changed notifications say whether a change was announced."""
    for listing in listings:
        before = first.get(listing.method)
        if before is None:
            continue
        if version == MODERN_VERSION:
            then_other = elsewhere.get(listing.method)
            again, other_again = _listed(talk, listing), _listed(other, listing)
            if then_other is None or again is None or other_again is None:
                continue
            judged(
                "per-connection",
                rules.judge_per_connection(listing.method, before, then_other, again, other_again),
            )
            continue
        if not same_connection or talk.conn is None or not talk.conn.alive:
            continue  # a restarted server is a new connection: nothing to compare within one
        again = _listed(talk, listing)
        if again is None:
            continue
        notice = f"notifications/{listing.capability}/list_changed"
        announced = talk.conn.notifications[notice] > announced_before.get(notice, 0)
        capability = context_capability(talk, listing)
        judged(
            "list-changed",
            rules.judge_list_changed(
                version,
                listing.method,
                listing.capability,
                before,
                again,
                declared=capability.get("listChanged") is True,
                announced=announced,
            ),
        )


def context_capability(talk: _Talk, listing: Listing) -> dict[str, Any]:
    """What the server declared of the listing's capability, on the check's connection."""
    conn = talk.conn
    found = conn.capabilities.get(listing.capability) if conn is not None else None
    return found if isinstance(found, dict) else {}
