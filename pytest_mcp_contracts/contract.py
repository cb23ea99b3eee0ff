"""The contract check: generate inputs, call the tool, check every result, shrink failures.

Hypothesis drives the loop so that a failure is shrunk to the smallest input that shows it.
Shrinking a crash or a hang costs a server restart per attempt, so that part is bounded by
the restart budget: when it is spent we stop and report the smallest failing input so far.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .call import CallOutcome, ManagedServer
from .check import Finding, check_result
from .connect import CallTimeout, ServerDied, ServerError
from .discover import ToolSpec
from .infer import Drift
from .observe import ToolObservations
from .report import FailureReport, shown

# Warn when at least this share of calls came back isError: the contract was barely exercised.
MOSTLY_ERRORS = 0.9


class ContractFailure(Exception):
    """A check failed; ``report`` says what, for whom, and with which input."""

    def __init__(self, report: FailureReport) -> None:
        super().__init__(report.problem)
        self.report = report


class _Violation(Exception):
    """Raised inside the hypothesis test so it shrinks; carries the failing call."""

    def __init__(self, outcome: CallOutcome, finding: Finding) -> None:
        super().__init__(finding.message)
        self.outcome = outcome
        self.finding = finding


class _ServerGone(BaseException):
    # The server could not be restarted: nothing more can be learned from this tool.
    def __init__(self, error: ServerError) -> None:
        super().__init__(error.message)
        self.error = error


class _StopShrinking(BaseException):
    # A BaseException so hypothesis lets it through at once instead of shrinking on.
    def __init__(self, violation: _Violation) -> None:
        super().__init__(str(violation))
        self.violation = violation


@dataclass
class ContractStats:
    calls: int = 0
    error_results: int = 0
    distinct_inputs: set[str] = field(default_factory=set)

    @property
    def mostly_errors(self) -> bool:
        return self.calls >= 5 and self.error_results >= MOSTLY_ERRORS * self.calls

    def summary(self) -> str:
        return f"{self.calls} calls, {self.error_results} returned isError"


def judge(tool: ToolSpec, outcome: CallOutcome, protocol_version: str) -> Finding | None:
    """The first thing wrong with one call, or None."""
    if outcome.failure is not None:
        failure = outcome.failure
        if isinstance(failure, CallTimeout):
            return Finding(
                "contract",
                f"the call did not return: {failure.message}",
                details=("raise --mcp-call-timeout if the tool is just slow",),
            )
        if isinstance(failure, ServerDied):
            return Finding("contract", f"the call killed the server: {failure.message}")
        return Finding("contract", f"the server broke the protocol: {failure.message}")
    if outcome.rpc_error is not None:
        err = outcome.rpc_error
        return Finding(
            "contract",
            f"a schema-valid input was answered with JSON-RPC error {err.code}: {err.message}",
            details=(
                "tool failures belong in a result with isError: true; JSON-RPC errors are for "
                "protocol problems",
            ),
        )
    assert outcome.result is not None
    findings = check_result(tool, outcome.result, protocol_version=protocol_version)
    return findings[0] if findings else None


def _drift_finding(drift: list[Drift], hint: str) -> Finding | None:
    if not drift:
        return None
    return Finding(
        "contract",
        "drift from the recorded output contract",
        details=(*(str(d) for d in drift), hint),
    )


def failure(
    server: ManagedServer, tool: ToolSpec, check: str, problem: str, **extra: Any
) -> ContractFailure:
    """A ContractFailure whose report names the server, its command, the tool and the check."""
    surface = server.surface
    if server.command.noun == "url":
        extra["stderr_tail"] = None  # a server reached over HTTP has no stderr we can read
    return ContractFailure(
        FailureReport(
            server=surface.name if surface else server.command.display,
            command=server.command.display,
            tool=tool.name,
            check=check,
            problem=problem,
            command_noun=server.command.noun,
            **extra,
        )
    )


def _violation_failure(
    server: ManagedServer, tool: ToolSpec, violation: _Violation, *, note: str | None = None
) -> ContractFailure:
    outcome = violation.outcome
    tail = outcome.failure.stderr_tail if outcome.failure and outcome.failure.stderr_tail else None
    legacy = server.protocol_version != "2026-07-28"
    return failure(
        server,
        tool,
        "contract",
        violation.finding.message,
        details=violation.finding.details,
        arguments=outcome.arguments,
        request_json=outcome.request_json(),
        request_after_handshake=legacy,
        stderr_tail=tail if tail is not None else server.stderr_tail(),
        notes=[note] if note else [],
    )


def run_contract(
    server: ManagedServer,
    tool: ToolSpec,
    *,
    strategy: Any,
    max_examples: int,
    examples: list[dict[str, Any]] | None = None,
    max_restarts: int,
    observations: ToolObservations | None = None,
    drift_hint: str = "",
    seed: Any = None,
) -> ContractStats:
    """Run the tool on generated inputs; raise ContractFailure with the shrunk failing input.
    An explicit ``seed`` (--hypothesis-seed) wins over a derandomized profile (CI's)."""
    from hypothesis import HealthCheck, example, given, settings
    from hypothesis import seed as use_seed
    from hypothesis.errors import FailedHealthCheck, FlakyFailure, Unsatisfiable

    from .generate import GenerationError, UserStrategyError, explain_unsatisfiable

    stats = ContractStats()
    protocol = server.protocol_version
    restarts_at_start = server.restarts
    broke_server: list[_Violation] = []  # the last input that killed or hung the server

    def call_tool(arguments: dict[str, Any]) -> None:
        try:
            outcome = server.call(tool.name, arguments)
        except ServerError as exc:
            raise _ServerGone(exc) from None
        stats.calls += 1
        stats.distinct_inputs.add(repr(arguments))
        if outcome.is_error_result:
            stats.error_results += 1
        finding = judge(tool, outcome, protocol)
        if finding is None and observations is not None and outcome.result is not None:
            finding = _drift_finding(observations.observe(arguments, outcome.result), drift_hint)
        if finding is None:
            return
        violation = _Violation(outcome, finding)
        if outcome.failure is not None:
            broke_server[:] = [violation]
        if outcome.failure is not None and server.restarts - restarts_at_start >= max_restarts:
            raise _StopShrinking(violation)
        raise violation

    call_tool._hypothesis_internal_add_digest = (  # type: ignore[attr-defined]
        f"{server.command.display}::{tool.name}".encode()
    )
    for explicit in reversed(examples or []):
        # Explicit examples run first, in order, and are reported as they are (no shrinking).
        call_tool = example(explicit)(call_tool)
    test = settings(
        max_examples=max_examples,
        deadline=None,
        database=None,
        report_multiple_bugs=False,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )(given(strategy)(call_tool))  # type: ignore[no-untyped-call]
    if seed is not None:
        test = use_seed(seed)(test)
    try:
        test()
    except _Violation as exc:
        raise _violation_failure(server, tool, exc) from None
    except _StopShrinking as exc:
        note = (
            f"(not shrunk further: each attempt needs a server restart and the budget of "
            f"{max_restarts} restarts per tool, --mcp-max-restarts, is spent)"
        )
        raise _violation_failure(server, tool, exc.violation, note=note) from None
    except _ServerGone as exc:
        if broke_server:  # the input that took the server down is the finding
            note = f"(not shrunk further: the server did not come back: {exc.error.message})"
            raise _violation_failure(server, tool, broke_server[0], note=note) from None
        raise server_unavailable(server, tool, exc.error) from None
    except FlakyFailure as exc:
        violation = next((e for e in exc.exceptions if isinstance(e, _Violation)), None)
        if violation is None:
            raise
        note = "(flaky: the same input did not fail again when it was sent a second time)"
        raise _violation_failure(server, tool, violation, note=note) from None
    except UserStrategyError as exc:
        problem = "a strategy from pytest_mcp_tool_strategy made an input the schema refuses"
        raise failure(server, tool, "contract", problem, details=(str(exc),)) from None
    except GenerationError as exc:
        raise _generation_failure(server, tool, str(exc), exc.pointer) from None
    except (Unsatisfiable, FailedHealthCheck) as exc:
        why = explain_unsatisfiable(tool.input_schema) or str(exc).splitlines()[0]
        raise _generation_failure(server, tool, why, "#") from None
    return stats


def _generation_failure(
    server: ManagedServer, tool: ToolSpec, why: str, pointer: str
) -> ContractFailure:
    problem = f"no inputs can be generated from the inputSchema at {shown(pointer, 120)}"
    return failure(server, tool, "contract", problem, details=(why,))


def server_unavailable(
    server: ManagedServer, tool: ToolSpec, exc: ServerError, check: str = "contract"
) -> ContractFailure:
    problem = f"the server could not be restarted for this tool: {exc.message}"
    return failure(server, tool, check, problem, stderr_tail=exc.stderr_tail)
