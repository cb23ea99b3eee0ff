"""The contract check: a tool called on generated inputs, every result judged.

A driver of the one loop (``runs/engine``, which draws, calls, shrinks and keeps the
budget): this module says how one call of a tool is judged (the one judge, then the
recorded output contract) and counted (``ContractStats``), sends explicit inputs ahead in
flight when the tool says its calls are independent, and turns what the search came to into
the check's verdict and warnings.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from pytest_mcp_contracts.contracts.change import Change
from pytest_mcp_contracts.contracts.observe import EntryObservations
from pytest_mcp_contracts.judges.call import error_verdict, judge, kept_reporting_progress
from pytest_mcp_contracts.judges.error_results import ErrorVerdict, result_text
from pytest_mcp_contracts.judges.failures import (
    USER_STRATEGY_REFUSED,
    ContractFailure,
    FailureKind,
    FailureReport,
    Finding,
    call_failure,
    unavailable,
)
from pytest_mcp_contracts.judges.tool_result import empty_content_finding
from pytest_mcp_contracts.runs.engine import (
    Budget,
    Engine,
    Given,
    Judgement,
    Sent,
    StopCalling,
    Violation,
    budget_words,
    failure_kind,
)
from pytest_mcp_contracts.runs.repeat import differing_paths, repeatable
from pytest_mcp_contracts.runs.stats import ToolStats
from pytest_mcp_contracts.text import short_json, shown
from pytest_mcp_contracts.transport.client import URL_ELICITATION_REQUIRED
from pytest_mcp_contracts.transport.discover import Entry
from pytest_mcp_contracts.transport.errors import CallTimeout
from pytest_mcp_contracts.transport.inflight import CallWindow
from pytest_mcp_contracts.transport.managed import CallOutcome, ManagedServer
from pytest_mcp_contracts.vocabulary import ErrorClass, Level

if TYPE_CHECKING:
    from pytest_mcp_contracts.inputs.coverage import CoveragePlan
    from pytest_mcp_contracts.judges.lints import LintLevels
    from pytest_mcp_contracts.runs.watch import Watch

# The heading of an example's failing input: hypothesis never shrinks examples, and a user's
# example is the realistic input to show.
EXAMPLE_LABEL: Final = "input (an example you gave, or the inputSchema's; examples are not shrunk):"
# Warn when at least this share of calls came back isError or a disguised refusal: the
# contract was barely exercised.
MOSTLY_ERRORS = 0.9
# Calls that ran to --mcp-max-call-time while still reporting progress, after which a tool's
# contract run ends (more calls would make the run as long as the inputs ask:
# server-everything's long-running operation sleeps for up to 2^31 s, and say little new).
STILL_WORKING_CALLS = 2


@dataclass
class ContractStats:
    """What the contract check learns from a tool's calls beyond the counts every check
    keeps: those (calls, isError results by class, errors without isError) are the tool's
    ``ToolStats``, counted once, here read through."""

    tally: ToolStats = field(default_factory=ToolStats)
    distinct_inputs: set[str] = field(default_factory=set)
    # For each isError class that does not fail the item, the first evidence, and the last
    # error's text, for the warning.
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
    # Each answered call's latency (ms, ToolStats.latencies_ms) and its input.
    timed: list[tuple[float, dict[str, Any]]] = field(default_factory=list)
    # Inputs sent twice (a tool that says calls repeat: runs/repeat) whose answers differed,
    # with the paths that did.
    unstable: list[tuple[dict[str, Any], list[str]]] = field(default_factory=list)

    @property
    def calls(self) -> int:
        return self.tally.calls

    @property
    def error_results(self) -> int:
        return self.tally.error_results

    @property
    def error_classes(self) -> Counter[str]:
        """isError results by class (vocabulary.ErrorClass values)."""
        return self.tally.error_classes

    @property
    def disguised(self) -> Counter[str]:
        """Results without isError that were errors all the same, by class (error-as-result,
        disguised-refusal): not real results."""
        return self.tally.disguised_errors

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
        """An error result's class (the call itself is counted already)."""
        if is_error:
            self.error_classes[str(verdict.kind)] += 1
        else:
            self.tally.count_disguised(verdict.kind)
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
    tool: Entry,
    outcome: CallOutcome,
    protocol_version: str,
    verdict: ErrorVerdict | None,
    *,
    warn_only: frozenset[str] = frozenset(),
    lints: LintLevels | None = None,
    observations: EntryObservations | None = None,
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
    outcome: CallOutcome, observations: EntryObservations | None, drift_hint: str
) -> Finding | None:
    """Fold a result the judge passed into the observations: the recorded output contract's
    drift, if any. A disguised refusal is still observed: a recorded contract learned from
    real results alone would fail on the next refusal misjudged as real."""
    if observations is None or outcome.result is None:
        return None
    return _drift_finding(observations.observe(outcome.arguments, outcome.result), drift_hint)


def _violation_failure(server: ManagedServer, tool: Entry, violation: Violation) -> ContractFailure:
    return call_failure(
        server,
        tool,
        violation.outcome,
        violation.finding,
        label=violation.label,
        notes=violation.notes,
    )


def run_contract(
    server: ManagedServer,
    tool: Entry,
    *,
    strategy: Any,
    budget: Budget,
    examples: list[dict[str, Any]] | None = None,
    configured: int = 0,
    coverage: CoveragePlan | None = None,
    observations: EntryObservations | None = None,
    drift_hint: str = "",
    warn_only: frozenset[str] = frozenset(),
    tally: ToolStats | None = None,
    lints: LintLevels | None = None,
    in_flight: int = 1,
    watch: Watch | None = None,
    repeat: int = 1,
) -> ContractRun:
    """Run the tool on generated inputs through the engine (``runs/engine``); a failing
    run carries the shrunk failing input.

    The ``examples`` run first (the first ``configured`` of them the user's own, reported as
    sent when they fail), then the ``coverage`` phase's inputs (shrunk by our own search),
    then ``budget.max_examples`` random ones from ``strategy``. Every call is counted in
    ``tally`` (the tool's stats for the run report), shrinking attempts too, whatever the
    run comes to.

    Up to ``in_flight`` explicit inputs are in flight at once when the tool says its calls
    are independent (``in_flight_width``); their answers are judged one by one, in input
    order, as if each had been sent alone; a ``watch`` (``runs/watch``) looks at the disk
    around each call, or around the window while they fly."""
    tally = ToolStats() if tally is None else tally
    calls = _ToolCalls(
        server, tool, ContractStats(tally), configured, warn_only, lints, observations, drift_hint
    )
    corners = [item.arguments for item in coverage.inputs] if coverage is not None else []
    # Each explicit input is sent ``repeat`` times in a row (--mcp-repeat), each corner of a
    # tool that says a call repeated answers alike at least twice, and the answers to one
    # input are compared (runs/repeat): in a row, so that no other call comes between.
    times = max(repeat, 2 if repeatable(tool) else 1)
    given = [
        Given(arguments, as_sent=EXAMPLE_LABEL)
        for arguments in examples or []
        for _ in range(repeat)
    ]
    given += [Given(arguments) for arguments in corners for _ in range(times)]
    if times > 1:
        calls.first_answers = {}
    calls.stats.planned = len(given) + budget.max_examples
    engine = Engine(server, calls, budget, watch=watch)
    width = in_flight_width(server, tool, in_flight) if len(given) > 1 else 1
    if width > 1:
        explicit = [item.arguments for item in given]
        window = CallWindow(server, tool.name, explicit, width, engine.spending.deadline)
        engine.window = _ToolWindow(window, calls)
    try:
        search = engine.search(given, strategy, coverage)
    except Exception as exc:
        found = _generation_failure_of(server, tool, exc)
        if found is None:
            raise
        return ContractRun(calls.stats, found)
    tally.phase_seconds.update(search.phase_seconds)
    stats = calls.stats
    if search.out_of_time:
        stats.out_of_time = budget.stop_time
        tally.out_of_time += 1
    failure = None
    if search.found is not None:
        failure = _violation_failure(server, tool, search.found)
    elif search.gone is not None:
        failure = unavailable(server, tool, search.gone)
    if failure is not None:
        if search.first is not None and failure.outcome is not search.first:
            failure.first_outcome = search.first
        return ContractRun(stats, failure)
    if search.stopped:
        return ContractRun(stats)
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
        return ContractRun(stats, call_failure(server, tool, stats.last_outcome, finding))
    return ContractRun(stats)


@dataclass(frozen=True)
class _Stood:
    """An answer that came back from flight standing: judged there, without a finding;
    ``verdict`` is its error verdict (None: a real result)."""

    verdict: ErrorVerdict | None


@dataclass
class _ToolCalls:
    """The contract check as the engine's subject: a tool's calls, each judged by the one
    judge and the recorded output contract, and counted in the contract's own numbers."""

    server: ManagedServer
    tool: Entry
    stats: ContractStats
    configured: int
    warn_only: frozenset[str]
    lints: LintLevels | None
    observations: EntryObservations | None
    drift_hint: str
    # Each input's first result, when inputs are sent again to be compared (runs/repeat),
    # and the inputs whose answers differed already.
    first_answers: dict[str, tuple[dict[str, Any], int]] | None = None
    unstable_keys: set[str] = field(default_factory=set)

    @property
    def key(self) -> str:
        return f"{self.server.command.display}::{self.tool.name}"

    def send(self, arguments: dict[str, Any], limit: float | None) -> Sent:
        return Sent(self.server.call(self.tool.name, arguments, limit=limit))

    def count(self, outcome: CallOutcome) -> None:
        self.stats.tally.count_call(outcome)

    def judge(self, sent: Sent, *, shrinking: bool) -> Judgement:
        outcome, stats, tool = sent.outcome, self.stats, self.tool
        arguments = outcome.arguments
        stats.last_outcome = outcome
        if not shrinking and stats.tally.time_call(outcome):
            # The latencies of the explicit and random inputs, not shrinking's, with their
            # inputs: a latency limit shows the slowest.
            stats.timed.append((stats.tally.latencies_ms[-1], arguments))
        if not shrinking and self.first_answers is not None and outcome.result is not None:
            self._compare_repeated(arguments, outcome.result)
        if isinstance(outcome.failure, CallTimeout) and kept_reporting_progress(outcome.failure):
            stats.still_working.append((arguments, outcome.failure.message))
            if len(stats.still_working) >= STILL_WORKING_CALLS and not shrinking:
                raise StopCalling
        stats.distinct_inputs.add(repr(arguments))
        if outcome.rpc_error is not None and outcome.rpc_error.code == URL_ELICITATION_REQUIRED:
            stats.url_required += 1
        elif outcome.rpc_error is not None:
            stats.rpc_refusals += 1
            stats.first_rpc_refusal = stats.first_rpc_refusal or (
                outcome.rpc_error.code,
                outcome.rpc_error.message[:300],
            )
        stood = sent.prejudged if isinstance(sent.prejudged, _Stood) else None
        verdict = stood.verdict if stood is not None else error_verdict(tool, outcome)
        if verdict is not None and outcome.result is not None:
            text = result_text(outcome.result)
            stats.count(verdict, text, is_error=outcome.is_error_result)
        if stats.calls <= self.configured and outcome.result is not None and verdict is None:
            stats.configured_real += 1  # explicit inputs run first, in order: one of theirs
        protocol = self.server.protocol_version
        finding = (
            _observed(outcome, self.observations, self.drift_hint)
            if stood is not None
            else judge_contract_call(
                tool,
                outcome,
                protocol,
                verdict,
                warn_only=self.warn_only,
                lints=self.lints,
                observations=self.observations,
                drift_hint=self.drift_hint,
            )
        )
        if finding is None and self.lints is not None and outcome.result is not None:
            # A result lint at warning level: said once for the tool, after the run.
            lint = empty_content_finding(outcome.result, self.lints)
            if lint is not None and lint.level is Level.WARNING:
                stats.lint_warnings.setdefault(str(lint.rule), (lint, arguments))
        if finding is None:
            return Judgement()
        return Judgement(finding, _failure_kind(outcome, finding, verdict))

    def _compare_repeated(self, arguments: dict[str, Any], result: dict[str, Any]) -> None:
        """A later answer to an input is compared with its first (runs/repeat)."""
        assert self.first_answers is not None
        key = json.dumps(arguments, sort_keys=True, default=repr)
        seen = self.first_answers.get(key)
        if seen is None:
            self.first_answers[key] = (result, 1)
            return
        first, times = seen
        self.first_answers[key] = (first, times + 1)
        tally = self.stats.tally
        tally.repeated_inputs += times == 1  # counted once, at its second answer
        if key in self.unstable_keys:
            return
        paths = differing_paths(first, result)
        if paths:
            tally.unstable_inputs += 1
            self.unstable_keys.add(key)
            self.stats.unstable.append((arguments, paths))


@dataclass
class _ToolWindow:
    """A tool's explicit inputs in flight (``transport/inflight.CallWindow``), each answer
    handed to the engine only when it stands as if sent alone (``_answer_sent_ahead``)."""

    window: CallWindow
    calls: _ToolCalls

    def take(self, arguments: dict[str, Any]) -> Sent | None:
        calls = self.calls
        outcome, note, stood, verdict = _answer_sent_ahead(
            self.window,
            calls.server,
            calls.tool,
            arguments,
            calls.server.protocol_version,
            calls.warn_only,
            calls.lints,
            calls.observations,
        )
        if outcome is None:
            return None
        return Sent(outcome, note, _Stood(verdict) if stood else None)

    def close(self) -> None:
        self.window.close()


def _failure_kind(outcome: CallOutcome, finding: Finding, verdict: ErrorVerdict | None) -> str:
    """What sort of failure a call had (``engine.failure_kind``), an isError crash told
    apart by its class and exception: one exception does not stand in for another."""
    unanswered = outcome.failure is not None or outcome.rpc_error is not None
    if not unanswered and verdict is not None and verdict.certain:
        exception = (verdict.exception or "").split(":", 1)[0]
        return f"isError {verdict.kind} {exception}".rstrip()
    return failure_kind(outcome, finding)


def in_flight_width(server: ManagedServer, tool: Entry, window: int) -> int:
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
    tool: Entry,
    arguments: dict[str, Any],
    protocol: str,
    warn_only: frozenset[str],
    lints: LintLevels | None,
    observations: EntryObservations | None,
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


def _generation_failure_of(
    server: ManagedServer, tool: Entry, exc: Exception
) -> ContractFailure | None:
    """The failure that an input strategy's error stands for (it ends the search before a
    verdict on any call), or None for an exception that is no verdict on the tool."""
    from hypothesis.errors import FailedHealthCheck, Unsatisfiable

    from pytest_mcp_contracts.inputs.input_schema import GenerationError
    from pytest_mcp_contracts.inputs.unsatisfiable import explain_unsatisfiable
    from pytest_mcp_contracts.inputs.user_strategies import UserStrategyError

    match exc:
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


def error_result_notes(tool: Entry, stats: ContractStats, ways: Sequence[str] = ()) -> list[str]:
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


def takes_no_arguments(tool: Entry) -> bool:
    properties = (
        tool.input_schema.get("properties") if isinstance(tool.input_schema, dict) else None
    )
    return not properties


def always_fails(tool: Entry, stats: ContractStats) -> bool:
    """A tool without input properties whose every call returned isError."""
    return takes_no_arguments(tool) and stats.calls > 0 and stats.error_results == stats.calls


def _generation_failure(
    server: ManagedServer, tool: Entry, why: str, pointer: str
) -> ContractFailure:
    problem = f"no inputs can be generated from the inputSchema at {shown(pointer, 120)}"
    return ContractFailure(
        FailureReport.for_tool(
            server, tool.name, "contract", problem, FailureKind.SETUP, details=(why,)
        )
    )
