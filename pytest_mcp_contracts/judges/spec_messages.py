"""Check: the server's messages against the specification's schema of the negotiated version.

``schema/spec`` says how a message breaks its definition; here that becomes a finding of
the check the message belongs to: a call's result and the notifications and requests the
server sent while the call ran, of the calling check (contract, rejects_invalid, read,
get); everything else (listings, the handshake's answer, notifications between calls), of
the server's ``protocol`` item. The hand-written checks of results run first and say more
(what a client does with the value, how to fix it); the schema's verdict is added where
they found nothing, so one defect fails its item once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pytest_mcp_contracts.judges.failures import FailureKind, Finding
from pytest_mcp_contracts.schema.spec import Spec, Violation

if TYPE_CHECKING:
    from pytest_mcp_contracts.transport.managed import CallOutcome

RULE = "mcp/schema"


def result_violations(
    method: str, result: Mapping[str, Any] | None, protocol_version: str | None
) -> list[Violation]:
    """How a call's result breaks its definition in the version's schema."""
    spec = Spec.of(protocol_version)
    if spec is None or result is None:
        return []
    return spec.result(method, result)


def call_violations(outcome: CallOutcome, protocol_version: str | None) -> list[Violation]:
    """A call's result's violations, then those of what the server sent during it."""
    return [
        *result_violations(outcome.method, outcome.result, protocol_version),
        *outcome.client.violations,
    ]


def violations_finding(
    check: str, violations: Sequence[Violation], *, count: int | None = None
) -> Finding | None:
    """One finding for the violations (None for none): the first in the message, each in a
    line, and the definition and version the reader looks up."""
    if not violations:
        return None
    first = violations[0]
    lines = [str(v) for v in violations[1:]]
    total = count if count is not None else len(violations)
    if total > len(violations):
        lines.append(f"… and {total - len(violations)} more")
    return Finding(
        check,
        f"the server's message breaks the protocol's schema: {first}",
        details=(
            *lines,
            f"the definitions are those of schema/{first.version}/schema.json in "
            "modelcontextprotocol/modelcontextprotocol",
        ),
        kind=FailureKind.PROTOCOL_VIOLATION,
        rule=RULE,
        where=f"{first.definition} {first.path}",
    )


def call_finding(check: str, outcome: CallOutcome, protocol_version: str | None) -> Finding | None:
    """The schema's verdict on one call, or None."""
    return violations_finding(check, call_violations(outcome, protocol_version))
