"""The contract check: generate inputs, call the tool, check every result, shrink failures.

Hypothesis drives the loop so that a failure is shrunk to the smallest input that shows it.
Shrinking is bounded twice: by time (--mcp-shrink-time; an attempt still running then is
cut short and not judged), and, since shrinking a crash or a hang costs a server restart per
attempt, by the restart budget. Either way we stop and report the smallest failing input so
far.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from pytest_mcp_contracts.checks.error_results import ErrorVerdict, result_text
from pytest_mcp_contracts.checks.failures import (
    USER_STRATEGY_REFUSED,
    ContractFailure,
    FailureKind,
    FailureReport,
    Finding,
    earlier_state_lines,
)
from pytest_mcp_contracts.checks.judge import error_verdict, judge, kept_reporting_progress
from pytest_mcp_contracts.checks.result import empty_content_finding
from pytest_mcp_contracts.checks.stats import ToolStats
from pytest_mcp_contracts.contracts.change import Change
from pytest_mcp_contracts.contracts.observe import ToolObservations
from pytest_mcp_contracts.inputs.ahead import call_drawn, worth_drawing_ahead
from pytest_mcp_contracts.text import short_json, shown
from pytest_mcp_contracts.transport.client import URL_ELICITATION_REQUIRED
from pytest_mcp_contracts.transport.discover import ToolSpec
from pytest_mcp_contracts.transport.errors import CallTimeout, ServerError
from pytest_mcp_contracts.transport.inflight import CallWindow
from pytest_mcp_contracts.transport.managed import CallOutcome, ManagedServer
from pytest_mcp_contracts.vocabulary import ErrorClass

if TYPE_CHECKING:
    from collections.abc import Callable

    from pytest_mcp_contracts.checks.lints import LintLevels
    from pytest_mcp_contracts.inputs.coverage import CoveragePlan

_SHRINK = "--mcp-shrink-time"
# Headings of an input reported as it was sent: "smallest input found" only for a shrunk one.
# hypothesis never shrinks explicit examples; and when the first failure spends the restart
# budget, no smaller input can be tried.
_EXAMPLE_LABEL = "input (an example you gave, or the inputSchema's; examples are not shrunk):"
_NOT_SHRUNK_LABEL = "input (not shrunk):"
# Warn when at least this share of calls came back isError or a disguised refusal: the
# contract was barely exercised.
MOSTLY_ERRORS = 0.9
# Calls that ran to --mcp-max-call-time while still reporting progress, after which a tool's
# contract run ends (see _StopCalling).
STILL_WORKING_CALLS = 2


class _Violation(Exception):
    """Raised inside the hypothesis test so it shrinks; carries the failing call."""

    def __init__(self, outcome: CallOutcome, finding: Finding, kind: str = "") -> None:
        super().__init__(finding.message)
        self.outcome = outcome
        self.finding = finding
        self.kind = kind  # what sort of failure (_failure_kind): shrinking keeps to one sort
        self.label: str | None = None  # the input's heading, when not "smallest input found"
        self.notes: list[str] = []  # for the report, beside the input


class _ServerGone(BaseException):
    # The server could not be restarted: nothing more can be learned from this tool.
    # ``cause`` is the last input that killed or hung it, when there was one: that input is
    # the finding, not the failed restart.
    def __init__(self, error: ServerError, cause: _Violation | None) -> None:
        super().__init__(error.message)
        self.error = error
        self.cause = cause


class _StopCalling(BaseException):
    # Enough calls ran to --mcp-max-call-time while the tool kept working, or the tool's
    # time budget (--mcp-tool-time) is spent: more calls would make the run as long as the
    # inputs ask (server-everything's long-running operation sleeps for up to 2^31 s), and
    # say little new. The tool's run ends there, not failed.
    pass


class _StopShrinking(BaseException):
    # A BaseException so hypothesis lets it through at once instead of shrinking on.
    def __init__(self, violation: _Violation, why: str) -> None:
        super().__init__(str(violation))
        self.violation = violation
        self.why = why  # for the report: "(not shrunk further: <why>)"


@dataclass
class ContractStats:
    calls: int = 0
    error_results: int = 0
    distinct_inputs: set[str] = field(default_factory=set)
    # isError results by class (vocabulary.ErrorClass values), and for each class that
    # does not fail the item the first evidence and result text, for the warning.
    error_classes: Counter[str] = field(default_factory=Counter)
    # Results without isError that were errors all the same, by class (error-as-result,
    # disguised-refusal): not real results.
    disguised: Counter[str] = field(default_factory=Counter)
    first_evidence: dict[str, str] = field(default_factory=dict)
    last_error_text: str = ""
    last_outcome: CallOutcome | None = None
    # Calls answered with -32042: the user had to open a URL first (no result to check).
    url_required: int = 0
    # JSON-RPC errors without a crash's evidence (a refusal on the wrong channel, or no
    # telling), and the first one's code and message, for the warning.
    rpc_refusals: int = 0
    first_rpc_refusal: tuple[int, str] | None = None
    # Calls still reporting progress when --mcp-max-call-time ran out: input and message.
    still_working: list[tuple[dict[str, Any], str]] = field(default_factory=list)
    # Lints at warning level that results showed: the first finding of each, with its
    # input, so that a tool warns once, not once per call.
    lint_warnings: dict[str, tuple[Finding, dict[str, Any]]] = field(default_factory=dict)
    # Real results (no isError, no disguised error) of the examples the user configured:
    # realistic inputs that reached the tool's output, however many random ones it refused.
    configured_real: int = 0
    # The time budget (seconds) when it ran out before the inputs did; None: it did not.
    out_of_time: float | None = None
    planned: int = 0  # inputs the run meant to send: explicit ones, then up to max_examples

    @property
    def mostly_errors(self) -> bool:
        """Whether the output contract was barely exercised: nearly every call came back an
        error, and none of the user's examples came back a real result (the examples are
        the advice the warning gives; random inputs a data store refuses are no news)."""
        unchecked = (
            self.error_results + self.url_required + self.disguised.total() + self.rpc_refusals
        )
        return (
            self.calls >= 5 and unchecked >= MOSTLY_ERRORS * self.calls and not self.configured_real
        )

    def count(self, verdict: ErrorVerdict, text: str, *, is_error: bool = True) -> None:
        if is_error:
            self.error_results += 1
            self.error_classes[verdict.kind] += 1
        else:
            self.disguised[verdict.kind] += 1
        self.last_error_text = text
        if verdict.evidence:
            self.first_evidence.setdefault(verdict.kind, verdict.evidence)

    def summary(self) -> str:
        text = f"{self.calls} calls, {self.error_results} returned isError"
        if self.url_required:
            text += f", {self.url_required} needed a URL elicitation (-32042)"
        if self.rpc_refusals:
            text += f", {self.rpc_refusals} answered with a JSON-RPC error"
        if self.error_results:
            text += (
                " (" + ", ".join(f"{n} {k}" for k, n in sorted(self.error_classes.items())) + ")"
            )
        if self.disguised:
            text += ", without isError: " + ", ".join(
                f"{n} {k}" for k, n in sorted(self.disguised.items())
            )
        if self.out_of_time is not None:
            text += f"; {budget_words(self.out_of_time, self.calls, self.planned)}"
        return text


@dataclass(frozen=True)
class ContractRun:
    """What one contract run came to: the calls it made and, when it failed, the failure.

    Every way a run can end that is a verdict on the tool is a ``failure`` here, not an
    exception: the caller reports the calls either way, and records an output contract
    only from a run that ``passed``."""

    stats: ContractStats
    failure: ContractFailure | None = None

    @property
    def passed(self) -> bool:
        return self.failure is None


def _drift_finding(drift: list[Change], hint: str) -> Finding | None:
    if not drift:
        return None
    more = f", and {len(drift) - 1} more" if len(drift) > 1 else ""
    return Finding(
        "contract",
        f"drift from the recorded output contract: {drift[0]}{more}",
        details=(*(str(d) for d in drift), hint),
        kind=FailureKind.OUTPUT_DRIFT,
    )


def judge_contract_call(
    tool: ToolSpec,
    outcome: CallOutcome,
    protocol_version: str,
    verdict: ErrorVerdict | None,
    *,
    warn_only: frozenset[str] = frozenset(),
    lints: LintLevels | None = None,
    observations: ToolObservations | None = None,
    drift_hint: str = "",
) -> Finding | None:
    """The contract check's verdict on one call of a valid input, or None: the one judge
    (``judge.judge``, with ``verdict`` from ``judge.error_verdict``), then the recorded
    output contract in ``observations``, which the result is folded into."""
    finding = judge(tool, outcome, protocol_version, verdict, warn_only, lints)
    if finding is None:
        finding = _observed(outcome, observations, drift_hint)
    return finding


def _observed(
    outcome: CallOutcome, observations: ToolObservations | None, drift_hint: str
) -> Finding | None:
    """Fold a result the judge passed into the observations: the recorded output contract's
    drift, if any. A disguised refusal is still observed: a recorded contract learned from
    real results alone would fail on the next refusal misjudged as real."""
    if observations is None or outcome.result is None:
        return None
    return _drift_finding(observations.observe(outcome.arguments, outcome.result), drift_hint)


def contract_call_failure(
    server: ManagedServer,
    tool: ToolSpec,
    outcome: CallOutcome,
    finding: Finding,
    *,
    label: str | None = None,
    note: str | None = None,
    notes: Sequence[str] = (),
) -> ContractFailure:
    """The contract check's failure for one call: ``label`` heads its input when that is
    not the smallest found (hypothesis's or the shrinker's); ``notes``, then ``note``, go
    under it."""
    report = FailureReport.for_call(
        server,
        tool.name,
        "contract",
        finding.headline,
        finding.kind,
        outcome,
        details=finding.all_details,
        notes=[*notes, *([note] if note else [])],
        earlier_calls=earlier_state_lines(server),
    )
    if label is not None:
        report.input_label = label
    found = ContractFailure(report)
    found.outcome = outcome
    return found


def _violation_failure(
    server: ManagedServer, tool: ToolSpec, violation: _Violation, *, note: str | None = None
) -> ContractFailure:
    return contract_call_failure(
        server,
        tool,
        violation.outcome,
        violation.finding,
        label=violation.label,
        note=note,
        notes=violation.notes,
    )


def run_contract(
    server: ManagedServer,
    tool: ToolSpec,
    *,
    strategy: Any,
    max_examples: int,
    examples: list[dict[str, Any]] | None = None,
    configured: int = 0,
    coverage: CoveragePlan | None = None,
    max_restarts: int,
    shrink_time: float,
    observations: ToolObservations | None = None,
    drift_hint: str = "",
    warn_only: frozenset[str] = frozenset(),
    seed: Any = None,
    tally: ToolStats | None = None,
    lints: LintLevels | None = None,
    in_flight: int = 1,
    time_budget: float | None = None,
) -> ContractRun:
    """Run the tool on generated inputs; a failing run carries the shrunk failing input.

    Shrinking stops when it has taken ``shrink_time`` seconds, or when it has used up
    ``max_restarts`` server restarts: the smallest failing input so far is reported. The
    ``examples`` run first (the first ``configured`` of them the user's own), then the
    ``coverage`` phase's inputs; a failing coverage input is
    shrunk by our own search (``_shrink_corner``) under the same two bounds, an example is
    reported as it is. An explicit ``seed`` (--hypothesis-seed) wins over a derandomized
    profile (CI's). Every call is counted in ``tally`` (the tool's stats for the run
    report), shrinking attempts too, whatever the run comes to.

    Up to ``in_flight`` explicit inputs are in flight at once when the tool says its calls
    are independent (``in_flight_width``); their answers are judged here one by one, in
    input order, as if each had been sent alone. No new input is drawn once ``time_budget``
    seconds have passed (the run passes, saying how many it sent), except to shrink a
    failure found before.

    Explicit inputs are sent without hypothesis; random ones are drawn one ahead of the
    calls when the explicit calls took long enough for that to pay (``inputs/ahead``:
    hypothesis draws the next input while a call is out)."""
    stats = ContractStats()
    tally = ToolStats() if tally is None else tally
    protocol = server.protocol_version
    restarts_at_start = server.restarts
    broke_server: _Violation | None = None  # the last input that killed or hung the server
    # Once an input has failed, hypothesis only tries smaller ones: the last to fail is the
    # smallest so far, and the clock says how long shrinking has taken.
    smallest: _Violation | None = None
    shrinking_since = 0.0
    # Explicit inputs run first, in order, one call each, and the first failure ends them:
    # the number of the call that failed first says which one failed.
    corners = [item.arguments for item in coverage.inputs] if coverage is not None else []
    explicit = [*(examples or []), *corners]
    stats.planned = len(explicit) + max_examples
    first_failure_call = 0
    budget = TimeBudget(time_budget)

    def out_of_time() -> BaseException:
        assert budget.seconds is not None
        stats.out_of_time = budget.seconds
        tally.out_of_time += 1
        return _StopCalling()

    width = in_flight_width(server, tool, in_flight) if len(explicit) > 1 else 1
    window = None
    if width > 1:
        window = CallWindow(server, tool.name, explicit, width, budget.deadline)

    first_found: list[CallOutcome] = []  # the first failing call, before shrinking
    call_seconds: list[float] = []  # how long each call took, to tell a slow server

    def call_tool(arguments: dict[str, Any]) -> None:
        nonlocal broke_server, smallest, shrinking_since, first_failure_call
        limit = None
        if smallest is not None:
            # Shrinking: no attempt may outlast the time left for it. One cut short by
            # that is not judged (it might have answered in time); the smallest input
            # that failed is reported.
            limit = shrink_time - (time.monotonic() - shrinking_since)
            if limit <= 0:
                raise _StopShrinking(smallest, f"shrinking took {shrink_time:g} s, {_SHRINK}")
        elif budget.spent():
            raise out_of_time()
        outcome, flown_note, stood, flown_verdict = None, None, False, None
        if window is not None and smallest is None:
            outcome, flown_note, stood, flown_verdict = _answer_sent_ahead(
                window, server, tool, arguments, protocol, warn_only, lints, observations
            )
            if outcome is None and budget.spent():
                raise out_of_time()  # set aside as the budget ran out: not sent again
        if smallest is None:
            limit = budget.left()
        try:
            if outcome is None:
                outcome = server.call(tool.name, arguments, limit=limit)
        except ServerError as exc:
            raise _ServerGone(exc, broke_server) from None
        if smallest is None and budget.cut_short(outcome, limit):
            server.revive()  # stopped by the budget: a restart the tool is not to blame for
            raise out_of_time()
        tally.count_call(outcome)
        call_seconds.append(outcome.elapsed)
        if smallest is not None and TimeBudget.cut_short(outcome, limit):
            why = f"shrinking took {shrink_time:g} s, {_SHRINK}; the last attempt was cut short"
            raise _StopShrinking(smallest, why)
        stats.calls += 1
        stats.last_outcome = outcome
        if isinstance(outcome.failure, CallTimeout) and kept_reporting_progress(outcome.failure):
            stats.still_working.append((arguments, outcome.failure.message))
            if len(stats.still_working) >= STILL_WORKING_CALLS and smallest is None:
                raise _StopCalling
        stats.distinct_inputs.add(repr(arguments))
        if outcome.rpc_error is not None and outcome.rpc_error.code == URL_ELICITATION_REQUIRED:
            stats.url_required += 1
        elif outcome.rpc_error is not None:
            stats.rpc_refusals += 1
            stats.first_rpc_refusal = stats.first_rpc_refusal or (
                outcome.rpc_error.code,
                outcome.rpc_error.message[:300],
            )
        # An answer that stood in flight was judged there: its verdict, and no finding.
        verdict = flown_verdict if stood else error_verdict(tool, outcome)
        if verdict is not None and outcome.result is not None:
            text = result_text(outcome.result)
            if outcome.is_error_result:
                stats.count(verdict, text)
                tally.error_classes[str(verdict.kind)] += 1
            else:
                stats.count(verdict, text, is_error=False)
                tally.count_disguised(verdict.kind)
        if stats.calls <= configured and outcome.result is not None and verdict is None:
            stats.configured_real += 1  # explicit inputs run first, in order: one of theirs
        finding = (
            _observed(outcome, observations, drift_hint)
            if stood
            else judge_contract_call(
                tool,
                outcome,
                protocol,
                verdict,
                warn_only=warn_only,
                lints=lints,
                observations=observations,
                drift_hint=drift_hint,
            )
        )
        if finding is None and lints is not None and outcome.result is not None:
            # A result lint at warning level: said once for the tool, after the run.
            lint = empty_content_finding(outcome.result, lints)
            if lint is not None and lint.severity == "warning":
                stats.lint_warnings.setdefault(str(lint.rule), (lint, arguments))
        if finding is None:
            return
        violation = _Violation(outcome, finding, _failure_kind(outcome, finding, verdict))
        if flown_note is not None:
            violation.notes.append(flown_note)
        first = smallest is None
        if first:
            if window is not None:
                window.close()  # shrinking's calls are made one at a time
            shrinking_since = time.monotonic()
            first_failure_call = stats.calls
            first_found.append(outcome)
        smallest = violation
        if outcome.failure is not None:
            broke_server = violation
            if server.restarts - restarts_at_start >= max_restarts:
                why = (
                    "each attempt needs a server restart and the budget of "
                    f"{max_restarts} restarts per tool, --mcp-max-restarts, is spent"
                )
                if first:
                    violation.label = _NOT_SHRUNK_LABEL
                raise _StopShrinking(violation, why)
        raise violation

    def random_settings(**overrides: Any) -> Any:
        from hypothesis import HealthCheck, settings

        chosen: dict[str, Any] = {
            "max_examples": max_examples,
            "deadline": None,
            "database": None,
            "report_multiple_bugs": False,
            "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large],
        }
        return settings(**{**chosen, **overrides})

    try:
        try:
            for given_input in explicit:
                # Explicit inputs run first, in order, one call each; they are not shrunk by
                # hypothesis (a coverage input is, by our own search: _shrink_corner).
                call_tool(given_input)
        finally:
            if window is not None:
                window.close()  # only explicit inputs fly: the random ones go one at a time
                window = None  # and go straight to the server, not through the window
        if max_examples > 0:
            call_drawn(
                strategy,
                call_tool,
                test_settings=random_settings,
                seed=seed,
                # A derandomized run (CI's profile) draws by this: each tool its own inputs.
                digest=f"{server.command.display}::{tool.name}".encode(),
                ahead=worth_drawing_ahead(call_seconds),
            )
    except _StopCalling:
        return ContractRun(stats)
    except BaseException as exc:
        if isinstance(exc, _Violation) and 0 < first_failure_call <= len(explicit):
            if first_failure_call > len(explicit) - len(corners) and coverage is not None:
                exc = _shrink_corner(call_tool, exc, coverage)
            else:
                exc.label = _EXAMPLE_LABEL
        found = _run_failure(server, tool, exc)
        if found is None:
            raise
        if first_found and found.outcome is not first_found[0]:
            found.first_outcome = first_found[0]
        return ContractRun(stats, found)
    if always_fails(tool, stats) and ErrorClass.ALWAYS_ERROR not in warn_only:
        assert stats.last_outcome is not None
        finding = Finding(
            "contract",
            f"the tool takes no arguments and every call ({stats.calls}) returned isError",
            details=(
                f"isError text: {stats.last_error_text.strip()[:300] or '(no text)'}",
                "a tool without input properties cannot be given other inputs: this is what "
                "every client gets",
            ),
            kind=FailureKind.ALWAYS_ERRORS,
        )
        return ContractRun(
            stats, _violation_failure(server, tool, _Violation(stats.last_outcome, finding))
        )
    return ContractRun(stats)


def _failure_kind(outcome: CallOutcome, finding: Finding, verdict: ErrorVerdict | None) -> str:
    """What sort of failure a call had: a shrinking attempt counts only if it fails the same
    way (a crash does not stand in for a timeout, nor one exception for another)."""
    if outcome.failure is not None:
        return type(outcome.failure).__name__
    if outcome.rpc_error is not None:
        return f"JSON-RPC error {outcome.rpc_error.code}"
    if verdict is not None and verdict.certain:
        exception = (verdict.exception or "").split(":", 1)[0]
        return f"isError {verdict.kind} {exception}".rstrip()
    # A result check or drift: each has its own words before any colon; after it come values.
    return finding.message.split(":", 1)[0]


@dataclass
class TimeBudget:
    """How long a check may spend calling one tool (--mcp-tool-time): no input is drawn once
    it is spent, and no call outlasts it. A call it cuts short is not judged (it might have
    answered in time), as an attempt cut short by --mcp-shrink-time is not."""

    seconds: float | None  # None: no budget
    started: float = field(default_factory=time.monotonic)

    @property
    def deadline(self) -> float | None:
        return None if self.seconds is None else self.started + self.seconds

    def left(self) -> float | None:
        """Seconds left (at least a little), or None: the call's own timeouts alone."""
        deadline = self.deadline
        return None if deadline is None else max(deadline - time.monotonic(), 0.001)

    def spent(self) -> bool:
        deadline = self.deadline
        return deadline is not None and time.monotonic() >= deadline

    @staticmethod
    def cut_short(outcome: CallOutcome, limit: float | None) -> bool:
        """Whether a call given ``limit`` seconds ran into it: a timeout at the limit."""
        return (
            limit is not None
            and isinstance(outcome.failure, CallTimeout)
            and outcome.elapsed >= limit - 0.05
        )


def in_flight_width(server: ManagedServer, tool: ToolSpec, window: int) -> int:
    """How many of a tool's explicit inputs may be in flight at once (--mcp-in-flight):
    ``window`` when its calls say they are independent of each other, else 1.

    A tool annotated ``readOnlyHint`` changes nothing (the spec ignores its destructive and
    idempotent hints then), one annotated ``idempotentHint`` promises that a call repeated
    has no further effect, and a server over Streamable HTTP that keeps no session
    (``ManagedServer.stateless``) answers each request on its own. Hints are untrusted: the
    window hands back only answers that are certainly the call's own, and the check sends
    any other input again alone (``_answer_sent_ahead``). A tool without input properties has
    no inputs to send ahead; a server that wrote on stdout as it started will write there
    again, and no line could be told apart; an in-process app's output is pytest's own
    (``ServerApp.calls_in_flight``)."""
    if window <= 1 or takes_no_arguments(tool) or server.startup_stdout[0]:
        return 1
    if not server.command.calls_in_flight:
        return 1
    hints = tool.annotations
    independent = hints.get("readOnlyHint") is True or hints.get("idempotentHint") is True
    return window if independent or server.stateless else 1


def _answer_sent_ahead(
    window: CallWindow,
    server: ManagedServer,
    tool: ToolSpec,
    arguments: dict[str, Any],
    protocol: str,
    warn_only: frozenset[str],
    lints: LintLevels | None,
    observations: ToolObservations | None,
) -> tuple[CallOutcome | None, str | None, bool, ErrorVerdict | None]:
    """The answer to ``arguments``, sent ahead with others in flight, when it stands as if
    it had been sent alone; else None, and the caller sends it alone. With it, a note for
    its report when it is reported as it came back from flight, whether it stood, and, if
    it did, its error verdict (the judge found nothing: only the observations are left).

    It stands when the window says it is quiet and silent (nothing the server sent or wrote
    on stderr while it was in flight could belong to another call: no noise, no death, no
    server request, no stderr line, whose evidence may be another call's traceback), and
    when judging it finds nothing to report. Any other is sent again alone, so that every
    failure, its report and its replay come from a call made alone, as without calls in
    flight."""
    flown = window.take(arguments)
    if flown is None:
        return None, None, False, None
    outcome = flown.outcome
    verdict = error_verdict(tool, outcome) if flown.quiet and flown.silent else None
    stands = (
        flown.quiet
        and flown.silent
        # The contract's one judge, without folding the result into the observations yet:
        # whether the recorded contract fails it is asked apart, and nothing is kept.
        and judge(tool, outcome, protocol, verdict, warn_only, lints) is None
        and not (
            observations is not None
            and outcome.result is not None
            and observations.would_fail_on(outcome.result)
        )
    )
    if not stands:
        window.set_aside(flown)
        if outcome.failure is None or server.live_connection() is not None:
            return None, None, False, None
        # The server died in flight and did not come back: nothing can be sent alone. The
        # first call to fail is reported (as one at a time would have reported the call that
        # killed it), saying that another call in flight may have been the one.
        server.remember(tool.name, outcome)
        return outcome, _GONE_IN_FLIGHT, False, None
    server.remember(tool.name, outcome)
    return outcome, None, True, verdict


_GONE_IN_FLIGHT: Final = (
    "(this input was sent with other calls of the tool in flight (--mcp-in-flight) when the "
    "server ended, and the server did not come back to be sent it again alone: another call "
    "in flight may have been the one that ended it; --mcp-in-flight=1 sends one at a time)"
)


def budget_words(budget: float, sent: int, planned: int, inputs: str = "inputs") -> str:
    """What a check stopped by the tool's time budget says: how far it got, that this is
    no failure, and how to give the tool more time."""
    return (
        f"the tool's time budget of {budget:g} s (--mcp-tool-time) ran out after {sent} of "
        f"up to {planned} {inputs} (judged; none is sent or runs past it). Not a failure: "
        "give this tool more time with tool_time under [tool.mcp-contracts.tools.<name>]"
    )


def _shrink_corner(
    attempt: Callable[[dict[str, Any]], None], found: _Violation, coverage: CoveragePlan
) -> BaseException:
    """A failing coverage input shrunk by ``inputs/shrink``, each attempt a call through
    ``attempt`` (the run's own call_tool: the shrink clock and the restart budget apply);
    the smallest input that failed the same way as ``found``, or, when the search stopped
    early, a _StopShrinking that says why."""
    from pytest_mcp_contracts.inputs.shrink import SearchStopped, shrink_input

    if coverage.is_valid is None:  # no schema to keep attempts valid: none is made
        found.label = _NOT_SHRUNK_LABEL
        return found
    failed: list[tuple[dict[str, Any], _Violation]] = []

    def fails(arguments: dict[str, Any]) -> bool:
        try:
            attempt(arguments)
        except _Violation as violation:
            if violation.kind != found.kind:
                return False
            failed.append((arguments, violation))
            return True
        except _StopShrinking as stop:
            # Stopped by this attempt's own failure (the last restart) or before its call.
            same = (
                stop.violation.outcome.arguments is arguments and stop.violation.kind == found.kind
            )
            if same:
                failed.append((arguments, stop.violation))
            raise SearchStopped(stop.why, failed=same) from None
        except _ServerGone as gone:
            raise SearchStopped(f"the server did not come back: {gone.error.message}") from None
        return False

    shrunk = shrink_input(found.outcome.arguments, coverage.schema, coverage.is_valid, fails)
    smallest = next((v for a, v in reversed(failed) if a == shrunk.value), found)
    if shrunk.stopped is not None:
        if smallest is found:
            smallest.label = _NOT_SHRUNK_LABEL
        return _StopShrinking(smallest, shrunk.stopped)
    return smallest


def _run_failure(
    server: ManagedServer, tool: ToolSpec, exc: BaseException
) -> ContractFailure | None:
    """The failure that an exception ending the hypothesis run stands for, or None for one
    that is no verdict on the tool (an interrupt, a bug of ours): that one propagates."""
    from hypothesis.errors import FailedHealthCheck, FlakyFailure, Unsatisfiable

    from pytest_mcp_contracts.inputs.generate import (
        GenerationError,
        UserStrategyError,
        explain_unsatisfiable,
    )

    match exc:
        case _Violation():
            return _violation_failure(server, tool, exc)
        case _StopShrinking():
            note = f"(not shrunk further: {exc.why})"
            return _violation_failure(server, tool, exc.violation, note=note)
        case _ServerGone(cause=None):
            return server_unavailable(server, tool, exc.error)
        case _ServerGone(cause=_Violation() as cause):
            note = f"(not shrunk further: the server did not come back: {exc.error.message})"
            return _violation_failure(server, tool, cause, note=note)
        case FlakyFailure():
            violation = next((e for e in exc.exceptions if isinstance(e, _Violation)), None)
            if violation is None:
                return None
            note = "(flaky: the same input did not fail again when it was sent a second time)"
            return _violation_failure(server, tool, violation, note=note)
        case UserStrategyError():  # before GenerationError: it is one
            return ContractFailure(
                FailureReport.for_tool(
                    server,
                    tool.name,
                    "contract",
                    USER_STRATEGY_REFUSED,
                    FailureKind.SETUP,
                    details=(str(exc),),
                )
            )
        case GenerationError():
            return _generation_failure(server, tool, str(exc), exc.pointer)
        case Unsatisfiable() | FailedHealthCheck():
            why = explain_unsatisfiable(tool.input_schema) or str(exc).splitlines()[0]
            return _generation_failure(server, tool, why, "#")
        case _:
            return None


def error_result_notes(tool: ToolSpec, stats: ContractStats, ways: Sequence[str] = ()) -> list[str]:
    """Warnings about a tool's isError results that did not fail it: wrapped failures the
    user chose to be warned about (``warn_only``), suggestive evidence, and a tool that
    refused nearly everything it was sent (with ``ways`` that would reach it)."""
    notes = []
    if always_fails(tool, stats):  # not failed: the user made always-error a warning
        notes.append(
            f"the tool takes no arguments and every call ({stats.calls}) returned isError "
            f"(warn_only for this tool): {stats.last_error_text.strip()[:200]}"
        )
    for kind in (ErrorClass.OUTPUT_INVALID, ErrorClass.UNEXPECTED_EXCEPTION):
        if stats.error_classes[kind]:
            notes.append(
                f"{stats.error_classes[kind]} of {stats.calls} calls ended in {kind} "
                f"(warn_only for this tool): {stats.first_evidence.get(kind, '')}"
            )
    if stats.disguised[ErrorClass.ERROR_AS_RESULT]:
        notes.append(
            f"{stats.disguised[ErrorClass.ERROR_AS_RESULT]} of {stats.calls} calls returned an "
            "error as a successful result (error-as-result, warn_only for this tool): "
            f"{stats.first_evidence.get(ErrorClass.ERROR_AS_RESULT, '')}"
        )
    if stats.still_working:
        arguments, message = stats.still_working[0]
        notes.append(
            f"{len(stats.still_working)} of {stats.calls} calls were still working when "
            f"--mcp-max-call-time ran out, sending progress all along ({message}; the first "
            f"input: {short_json(arguments)}). Not a failure: the tool did what the input "
            "asked, but a client gives up on such calls. If inputs like this are not meant "
            "to run this long, bound them in the inputSchema (a maximum); else raise "
            "--mcp-max-call-time"
            + (
                f". Its calls stopped after {STILL_WORKING_CALLS} such calls"
                if len(stats.still_working) >= STILL_WORKING_CALLS
                else ""
            )
        )
    if stats.first_rpc_refusal is not None:
        code, message = stats.first_rpc_refusal
        notes.append(
            f"{stats.rpc_refusals} of {stats.calls} calls were answered with a JSON-RPC "
            f"error (the first: {code} {' '.join(message.split())[:150]!r}) instead of a "
            "result with isError: true, which clients show the model. Nothing shows a crash "
            "(a trace, a runtime's error message), so it is no failure; an SDK older than "
            "isError for thrown errors answers every one so (upgrade it)"
        )
    suspects = stats.error_classes[ErrorClass.SUSPECT]
    if suspects:
        notes.append(
            f"{suspects} of {stats.calls} isError results may be server failures rather than "
            f"refusals ({stats.first_evidence.get(ErrorClass.SUSPECT, '')}); the evidence is "
            "not certain, so they do not fail the item"
        )
    if stats.mostly_errors and not always_fails(tool, stats):
        url = (
            f" and {stats.url_required} needed the user to open a URL (-32042)"
            if stats.url_required
            else ""
        )
        said = " ".join(stats.last_error_text.split())
        said = f' (the last said: "{said[:150]}{"…" if len(said) > 150 else ""}")' if said else ""
        disguised = stats.disguised.total()
        how = "returned isError"
        if disguised and stats.error_results:
            how = f"returned isError or a disguised refusal ({disguised} without isError)"
        elif disguised:
            how = "returned a disguised refusal (an error or a refusal without isError)"
        notes.append(
            f"{stats.error_results + disguised} of {stats.calls} calls {how}{url}, so the "
            "output contract was barely exercised; give it realistic inputs (examples or "
            f"pytest_mcp_tool_strategy) or check why it refuses them{said}"
            + (f"; ways to reach it: {'; '.join(ways)}" if ways else "")
        )
    return notes


def takes_no_arguments(tool: ToolSpec) -> bool:
    properties = (
        tool.input_schema.get("properties") if isinstance(tool.input_schema, dict) else None
    )
    return not properties


def always_fails(tool: ToolSpec, stats: ContractStats) -> bool:
    """A tool without input properties whose every call returned isError."""
    return takes_no_arguments(tool) and stats.calls > 0 and stats.error_results == stats.calls


def _generation_failure(
    server: ManagedServer, tool: ToolSpec, why: str, pointer: str
) -> ContractFailure:
    problem = f"no inputs can be generated from the inputSchema at {shown(pointer, 120)}"
    return ContractFailure(
        FailureReport.for_tool(
            server, tool.name, "contract", problem, FailureKind.SETUP, details=(why,)
        )
    )


def server_unavailable(
    server: ManagedServer, tool: ToolSpec, exc: ServerError, check: str = "contract"
) -> ContractFailure:
    problem = f"the server could not be restarted for this tool: {exc.message}"
    return ContractFailure(
        FailureReport.for_tool(
            server,
            tool.name,
            check,
            problem,
            FailureKind.SERVER_UNAVAILABLE,
            stderr_tail=exc.stderr_tail,
        )
    )
