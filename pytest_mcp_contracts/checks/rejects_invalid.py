"""The rejects_invalid check: send inputs the inputSchema refuses and expect them refused.

A refusal is a result with ``isError: true`` or the JSON-RPC error -32602 (invalid params).
A crash, a hang, a broken reply or any other JSON-RPC error (an internal error) fails the
check at once: a server must survive bad input. A success result means the tool accepted an
input its own schema forbids; the item warns or fails on those (``--mcp-rejects-invalid``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from pytest_mcp_contracts.checks.contract import TimeBudget, budget_words, server_unavailable
from pytest_mcp_contracts.checks.failures import ContractFailure, FailureReport, Finding
from pytest_mcp_contracts.checks.judge import INVALID_PARAMS, judge_invalid
from pytest_mcp_contracts.checks.stats import ToolStats
from pytest_mcp_contracts.inputs.invalid import InvalidInput
from pytest_mcp_contracts.transport.discover import ToolSpec
from pytest_mcp_contracts.transport.jsonrpc import ServerError
from pytest_mcp_contracts.transport.managed import CallOutcome, ManagedServer
from pytest_mcp_contracts.vocabulary import ISERROR_REFUSAL_SINCE, Check

CHECK: Final = Check.REJECTS_INVALID.value
HOW_TO_REFUSE: Final = (
    "refuse arguments the inputSchema does not allow with a result with isError: true and a "
    "message saying what is wrong (or the JSON-RPC error -32602 Invalid params)"
)


@dataclass
class Refusals:
    """How the tool answered the invalid inputs it was sent; ``failure`` when an answer broke
    the check at once (the run stops there)."""

    sent: int = 0
    accepted: list[tuple[InvalidInput, CallOutcome]] = field(default_factory=list)
    coerced: list[tuple[InvalidInput, CallOutcome]] = field(default_factory=list)  # lax cases
    protocol_refusals: int = 0  # -32602 where the negotiated protocol asks for isError
    failure: ContractFailure | None = None
    planned: int = 0  # the cases there were
    out_of_time: float | None = None  # the time budget, when it ran out before the cases

    @property
    def refused(self) -> int:
        return self.sent - len(self.accepted) - len(self.coerced)

    def summary(self) -> str:
        text = f"{self.sent} invalid inputs sent, {self.refused} refused"
        if self.coerced:
            text += f", {len(self.coerced)} look-alikes accepted (lenient coercion, not a failure)"
            text += "".join(f"\n  coerced: {line}" for line in accepted_lines(self.coerced))
        if self.protocol_refusals:
            text += (
                f", {self.protocol_refusals} refused with JSON-RPC -32602 where protocol "
                f"{ISERROR_REFUSAL_SINCE} and later ask for an isError result"
            )
        if self.out_of_time is not None:
            text += f"; {budget_words(self.out_of_time, self.sent, self.planned, 'invalid inputs')}"
        return text


def run_rejects_invalid(
    server: ManagedServer,
    tool: ToolSpec,
    cases: list[InvalidInput],
    tally: ToolStats | None = None,
    time_budget: float | None = None,
) -> Refusals:
    """Send every case; stop with a ``failure`` at the first that breaks the server, or
    without one when ``time_budget`` seconds have passed (``out_of_time``). The calls,
    look-alikes accepted and -32602 refusals are counted in ``tally``."""
    refusals = Refusals(planned=len(cases))
    tally = ToolStats() if tally is None else tally
    _send(server, tool, cases, refusals, tally, time_budget)
    tally.out_of_time += refusals.out_of_time is not None
    if refusals.failure is None:  # a broken server's item reports its failure, not these
        tally.coercions_accepted += len(refusals.coerced)
        tally.protocol_refusals += refusals.protocol_refusals
    return refusals


def _send(
    server: ManagedServer,
    tool: ToolSpec,
    cases: list[InvalidInput],
    refusals: Refusals,
    tally: ToolStats,
    time_budget: float | None,
) -> None:
    budget = TimeBudget(time_budget)
    for case in cases:
        if budget.spent():
            refusals.out_of_time = time_budget
            return
        limit = budget.left()
        try:
            outcome = server.call(tool.name, case.arguments, invalid=True, limit=limit)
        except ServerError as exc:
            refusals.failure = server_unavailable(server, tool, exc, CHECK)
            return
        if budget.cut_short(outcome, limit):  # not judged: it might have answered in time
            server.revive()
            refusals.out_of_time = time_budget
            return
        tally.invalid_calls += 1
        refusals.sent += 1
        problem = judge_invalid(outcome, tool.name, server.protocol_version)
        succeeded = outcome.result is not None and not outcome.is_error_result
        if case.lax and (problem is not None or succeeded):
            # A lenient server turns the look-alike into the valid value and runs the tool:
            # what happens then (even a crash) is the contract check's business, on that
            # valid input, not a failure to refuse.
            refusals.coerced.append((case, outcome))
            continue
        if problem is not None:
            refusals.failure = _broken(server, tool, case, outcome, problem)
            return
        if succeeded:
            refusals.accepted.append((case, outcome))
        elif (
            outcome.rpc_error is not None
            and outcome.rpc_error.code == INVALID_PARAMS
            and server.protocol_version >= ISERROR_REFUSAL_SINCE
        ):
            refusals.protocol_refusals += 1


def _broken(
    server: ManagedServer,
    tool: ToolSpec,
    case: InvalidInput,
    outcome: CallOutcome,
    problem: Finding,
) -> ContractFailure:
    error = ContractFailure(
        FailureReport.for_call(
            server,
            tool.name,
            CHECK,
            problem.message,
            problem.kind,
            outcome,
            details=(f"the input is invalid because {case.why}", HOW_TO_REFUSE),
            input_label="invalid input sent:",
        )
    )
    error.outcome = outcome
    return error


def accepted_lines(accepted: list[tuple[InvalidInput, CallOutcome]], limit: int = 10) -> list[str]:
    """One line per accepted invalid input: why it is invalid, and the input."""
    from pytest_mcp_contracts.text import short_json

    lines = [f"{case.why}: {short_json(case.arguments, limit=300)}" for case, _ in accepted[:limit]]
    if len(accepted) > limit:
        lines.append(f"… and {len(accepted) - limit} more")
    return lines
