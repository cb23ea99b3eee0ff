"""The rejects_invalid check: send inputs the inputSchema refuses and expect them refused.

A refusal is a result with ``isError: true`` or the JSON-RPC error -32602 (invalid params).
A crash, a hang, a broken reply or any other JSON-RPC error (an internal error) fails the
check: a server must survive bad input. A success result means the tool accepted an input
its own schema forbids; the item warns or fails on those (``--mcp-rejects-invalid``).

One failing input does not end the check: the other cases are still sent (a server that
died or hung is started again, within the tool's restart budget), so that a hang on an
out-of-range value is found even when a wrongly typed value failed first. A failure of the
same kind (and exception type) as an earlier one is counted; each distinct failure keeps
its own input, up to ``MAX_DISTINCT_FAILURES`` of them, the first met as the item's headline.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from pytest_mcp_contracts.inputs.invalid import InvalidInput
from pytest_mcp_contracts.judges.call import INVALID_PARAMS, judge_invalid, refused_in_words
from pytest_mcp_contracts.judges.failures import (
    MAX_DISTINCT_FAILURES,
    ContractFailure,
    FailureReport,
    Finding,
    enough_failures_words,
    failure_identity,
    unavailable,
)
from pytest_mcp_contracts.runs.engine import Budget, Spending, budget_words
from pytest_mcp_contracts.runs.stats import ToolStats
from pytest_mcp_contracts.transport.discover import Entry
from pytest_mcp_contracts.transport.errors import ServerError
from pytest_mcp_contracts.transport.managed import CallOutcome, ManagedServer
from pytest_mcp_contracts.vocabulary import ISERROR_REFUSAL_SINCE, Check

CHECK: Final = Check.REJECTS_INVALID.value
HOW_TO_REFUSE: Final = (
    "refuse arguments the inputSchema does not allow with a result with isError: true and a "
    "message saying what is wrong (or the JSON-RPC error -32602 Invalid params)"
)


@dataclass
class Refusals:
    """How the tool answered the invalid inputs it was sent; ``failures``: each distinct way
    an answer failed the check (its first input), the first met first."""

    sent: int = 0
    accepted: list[tuple[InvalidInput, CallOutcome]] = field(default_factory=list)
    coerced: list[tuple[InvalidInput, CallOutcome]] = field(default_factory=list)  # lax cases
    protocol_refusals: int = 0  # -32602 where the negotiated protocol asks for isError
    in_words: int = 0  # success results that refused in words (judge.refused_in_words)
    failures: list[ContractFailure] = field(default_factory=list)
    # Inputs that failed, by failure (judges/failures.failure_identity): repeats are counted.
    failed: dict[tuple[str, str], int] = field(default_factory=dict)
    planned: int = 0  # the cases there were
    out_of_time: float | None = None  # the time budget, when it ran out before the cases
    stopped: str = ""  # why the cases stopped before the last, when not the time budget

    @property
    def failure(self) -> ContractFailure | None:
        """The first failure met: the item's headline."""
        return self.failures[0] if self.failures else None

    @property
    def refused(self) -> int:
        failed = sum(self.failed.values())
        return self.sent - len(self.accepted) - len(self.coerced) - failed

    def summary(self) -> str:
        text = f"{self.sent} invalid inputs sent, {self.refused} refused"
        if self.failed:
            text += f", {sum(self.failed.values())} failed ({len(self.failures)} distinct ways)"
        if self.in_words:
            text += f" ({self.in_words} of them in words, without isError)"
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
        if self.stopped:
            text += f"; {self.stopped}"
        return text


def run_rejects_invalid(
    server: ManagedServer,
    tool: Entry,
    cases: list[InvalidInput],
    budget: Budget,
    tally: ToolStats | None = None,
) -> Refusals:
    """Send every case, past failing ones; stop when the tool's time (``budget.tool_time``)
    is spent (``out_of_time``), when ``MAX_DISTINCT_FAILURES`` distinct failures are found,
    when the server that died or hung would need more than ``budget.max_restarts`` restarts,
    or when it does not start again (``stopped``). The calls, look-alikes accepted and
    -32602 refusals are counted in ``tally``."""
    refusals = Refusals(planned=len(cases))
    tally = ToolStats() if tally is None else tally
    _send(server, tool, cases, refusals, tally, Spending(budget, server))
    tally.out_of_time += refusals.out_of_time is not None
    tally.coercions_accepted += len(refusals.coerced)
    tally.protocol_refusals += refusals.protocol_refusals
    return refusals


def _send(
    server: ManagedServer,
    tool: Entry,
    cases: list[InvalidInput],
    refusals: Refusals,
    tally: ToolStats,
    spending: Spending,
) -> None:
    time_budget, max_restarts = spending.budget.stop_time, spending.budget.max_restarts
    for case in cases:
        if spending.spent():
            refusals.out_of_time = time_budget
            return
        if spending.restarts_spent() and server.live_connection() is None:
            # The last input killed or hung the server, and starting it again would spend
            # a restart past the tool's budget.
            refusals.stopped = (
                f"stopped after {refusals.sent} of {refusals.planned}: the last one killed or "
                f"hung the server, and the budget of {max_restarts} restarts per tool, "
                "--mcp-max-restarts, is spent"
            )
            return
        limit = spending.left()
        try:
            outcome = server.call(tool.name, case.arguments, invalid=True, limit=limit)
        except ServerError as exc:  # it died and did not start again: nothing more to send
            refusals.failures.append(unavailable(server, tool, exc, CHECK))
            refusals.stopped = (
                f"stopped after {refusals.sent} of {refusals.planned}: the server did not start "
                "again"
            )
            return
        if spending.cut_short(outcome, limit):  # not judged: it might have answered in time
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
            # Recorded, not a stop: the next cases may fail another way (a hang on an
            # out-of-range value behind a -32603 on a wrongly typed one).
            key = failure_identity(problem)
            if key in refusals.failed:
                refusals.failed[key] += 1
                continue
            refusals.failed[key] = 1
            refusals.failures.append(_broken(server, tool, case, outcome, problem))
            if len(refusals.failures) >= MAX_DISTINCT_FAILURES:
                refusals.stopped = enough_failures_words(f"{refusals.sent} of {refusals.planned}")
                return
            continue
        if succeeded and refused_in_words(outcome, tool, case.path, case.why) is not None:
            refusals.in_words += 1  # refused without isError: counted, not held against it
        elif succeeded:
            refusals.accepted.append((case, outcome))
        elif (
            outcome.rpc_error is not None
            and outcome.rpc_error.code == INVALID_PARAMS
            and server.protocol_version >= ISERROR_REFUSAL_SINCE
        ):
            refusals.protocol_refusals += 1


def _broken(
    server: ManagedServer,
    tool: Entry,
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
