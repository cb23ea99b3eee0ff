"""The one loop: draw an input, call, judge, count, and shrink the first failure, all under
one budget.

Every check that sends generated inputs is a driver of this loop: the contract check (a
tool's calls), the reads of resource templates and the gets of prompts. A driver hands the
engine a ``Subject``: how one input is sent and how its answer is judged (and counted in the
driver's own stats). The engine owns what the checks share:

- the order of the inputs: the explicit ones first, in order, one call each (the user's
  examples, values the server offered, the coverage phase's corners), then random ones that
  hypothesis draws (``inputs/ahead.call_drawn``: drawn ahead of the calls when they are slow
  enough for that to pay);
- the ``Budget``: random inputs, the tool's time (no input is drawn once it is spent, no
  call outlasts it, a call it cuts short is not judged), the time for shrinking (an attempt
  still running then is cut short and not judged) and the restarts shrinking may cost;
- shrinking: hypothesis shrinks a random input; a failing explicit input that may be shrunk
  is shrunk by our own search (``inputs/shrink``), under the same two bounds. An attempt
  counts only if it fails the same way as the first failure (``failure_kind``);
- the watch (``runs/watch``), where a check has one: the disk before and after each call,
  a change the tool's annotations or the server's boundary rule out failing the call;
- what the search came to (``Search``): the failing call to report, smallest first, with a
  label and notes that say how far it was shrunk, or that the server did not come back;
  and where its time went (``Search.phase_seconds``: the explicit inputs, the random ones,
  shrinking, the watch's looks at the disk; each second in one phase).

Drivers that do not shrink (the invalid inputs, sequences) share the ``Budget`` and its
``Spending``, not the search.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, Protocol

from pytest_mcp_contracts.inputs.ahead import call_drawn, worth_drawing_ahead
from pytest_mcp_contracts.transport.errors import CallTimeout, ServerError

if TYPE_CHECKING:
    from pytest_mcp_contracts.inputs.coverage import CoveragePlan
    from pytest_mcp_contracts.judges.failures import Finding
    from pytest_mcp_contracts.runs.watch import Watch
    from pytest_mcp_contracts.transport.managed import CallOutcome

_SHRINK: Final = "--mcp-shrink-time"
#: The heading of an input that could not be shrunk: the first failure spent the restarts.
NOT_SHRUNK_LABEL: Final = "input (not shrunk):"
FLAKY_NOTE: Final = "(flaky: the same input did not fail again when it was sent a second time)"
# Hangs found fast: once a tool has answered HANG_AFTER calls, a call is suspected of
# hanging after HANG_FACTOR times the p99 of its answers so far (never under HANG_FLOOR
# seconds), well before --mcp-call-timeout. A suspect is sent again once with the full
# timeout before it counts as a hang; shrinking a hang waits only the short time.
HANG_AFTER: Final = 5
HANG_FACTOR: Final = 10.0
HANG_FLOOR: Final = 2.0


@dataclass(frozen=True)
class Budget:
    """What one check may spend on one entry: random inputs (after the explicit ones), the
    server restarts its failing calls may cost, seconds for shrinking, seconds in all
    (``tool_time``, --mcp-tool-time; None: no bound), hypothesis's seed, and the call
    timeout that early timeouts are measured against. ``share``: the check's share of the
    run's time (--mcp-run-time, runs/run_time), after which no input is sent; unlike
    ``tool_time`` it cuts no call short (that would cost a restart)."""

    max_examples: int
    max_restarts: int | None
    shrink_time: float
    tool_time: float | None = None
    seed: Any = None
    # --mcp-call-timeout: a call suspected of hanging is cut short well before it
    # (``Engine.early_timeout``); None: every call waits for its full timeout.
    call_timeout: float | None = None
    share: float | None = None

    @property
    def stop_time(self) -> float | None:
        """Seconds after which no input is sent: the smaller of the two bounds."""
        bounds = [s for s in (self.tool_time, self.share) if s is not None]
        return min(bounds) if bounds else None


class Restarting(Protocol):
    """What the engine asks of a server: how often it was restarted, and to bring it back
    after the budget cut a call short (a restart the entry is not to blame for)."""

    @property
    def restarts(self) -> int: ...

    def revive(self) -> None: ...


@dataclass
class Spending:
    """A ``Budget`` as one run spends it: the clock, and the restarts of ``server`` since
    the run began (a driver that counts the failures that broke the server itself, as the
    sequences do, gives none)."""

    budget: Budget
    server: Restarting | None = None
    started: float = field(default_factory=time.monotonic)
    restarts_at_start: int = 0

    def __post_init__(self) -> None:
        if self.server is not None:
            self.restarts_at_start = self.server.restarts

    @property
    def deadline(self) -> float | None:
        seconds = self.budget.tool_time
        return None if seconds is None else self.started + seconds

    def left(self) -> float | None:
        """Seconds left (at least a little), or None: the call's own timeouts alone."""
        deadline = self.deadline
        return None if deadline is None else max(deadline - time.monotonic(), 0.001)

    def spent(self) -> bool:
        stop = self.budget.stop_time
        return stop is not None and time.monotonic() >= self.started + stop

    def restarts_spent(self) -> bool:
        limit, server = self.budget.max_restarts, self.server
        return (
            limit is not None
            and server is not None
            and server.restarts - self.restarts_at_start >= limit
        )

    @staticmethod
    def cut_short(outcome: CallOutcome, limit: float | None) -> bool:
        """Whether a call given ``limit`` seconds ran into it: a timeout at the limit."""
        return (
            limit is not None
            and isinstance(outcome.failure, CallTimeout)
            and outcome.elapsed >= limit - 0.05
        )


@dataclass(frozen=True)
class Given:
    """An explicit input: sent before the random ones, in order, once. A failure on it is
    shrunk by our own search (a coverage corner, a value the server offered), unless it is
    reported as it was sent, under the heading ``as_sent`` (a user's example)."""

    arguments: dict[str, Any]
    as_sent: str | None = None


@dataclass(frozen=True)
class Judgement:
    """A driver's verdict on one answer: what fails it (None: nothing), and, when the
    finding's own words do not tell one failure from another, what sort it is."""

    finding: Finding | None = None
    kind: str = ""


@dataclass(frozen=True)
class Sent:
    """An answer as the subject got it: ``note`` goes into its report if it fails;
    ``prejudged`` is the subject's own word on an answer it judged as it took it (one sent
    ahead, in flight), handed back to its ``judge``."""

    outcome: CallOutcome
    note: str | None = None
    prejudged: Any = None


class Subject(Protocol):
    """What a driver gives the engine: its name (hypothesis's derandomized draws are keyed
    by it), how one input is sent and its answer judged (and counted in the driver's own
    numbers), and, optionally, answers sent ahead in flight."""

    @property
    def key(self) -> str: ...

    def send(self, arguments: dict[str, Any], limit: float | None) -> Sent: ...

    def judge(self, sent: Sent, *, shrinking: bool) -> Judgement: ...

    def count(self, outcome: CallOutcome) -> None: ...


class InFlight(Protocol):
    """Explicit inputs sent ahead, several at once; the engine takes each answer when its
    turn comes, and closes the window when shrinking starts or the explicit inputs end."""

    def take(self, arguments: dict[str, Any]) -> Sent | None: ...

    def close(self) -> None: ...


class Violation(Exception):
    """A failing call, raised inside the search so that hypothesis shrinks it."""

    def __init__(self, outcome: CallOutcome, finding: Finding, kind: str) -> None:
        super().__init__(finding.message)
        self.outcome = outcome
        self.finding = finding
        self.kind = kind  # shrinking keeps to one sort of failure
        self.label: str | None = None  # the input's heading, when not "smallest input found"
        self.notes: list[str] = []  # for the report, beside the input
        self.watched = False  # found by the watch (runs/watch): a change on disk, not an answer


class StopCalling(BaseException):
    """Ends a run without a failure: the tool's time budget is spent, or the driver has seen
    enough (calls that ran to --mcp-max-call-time while still reporting progress). A
    BaseException so that hypothesis lets it through."""


class _StopShrinking(BaseException):
    def __init__(self, violation: Violation, why: str) -> None:
        super().__init__(why)
        self.violation = violation
        self.why = why  # for the report: "(not shrunk further: <why>)"


class _ServerGone(BaseException):
    # The server could not be restarted: nothing more can be learned. ``cause`` is the last
    # input that killed or hung it, when there was one: that input is the finding.
    def __init__(self, error: ServerError, cause: Violation | None) -> None:
        super().__init__(error.message)
        self.error = error
        self.cause = cause


@dataclass
class Search:
    """What a run of the engine came to. ``found``: the failing call to report (the smallest
    that failed the same way as the first), its ``label`` and ``notes`` set; ``gone``: the
    server could not be restarted before anything failed; ``first``: the first failing call,
    before shrinking; ``stopped``: a ``StopCalling`` ended the run, ``out_of_time`` when the
    tool's time budget did."""

    calls: int = 0
    found: Violation | None = None
    gone: ServerError | None = None
    first: CallOutcome | None = None
    stopped: bool = False
    out_of_time: bool = False
    phase_seconds: Counter[str] = field(default_factory=Counter)

    @property
    def failed(self) -> bool:
        return self.found is not None or self.gone is not None


def failure_kind(outcome: CallOutcome, finding: Finding) -> str:
    """What sort of failure a call had, for "fails the same way": a crash does not stand in
    for a timeout, nor one JSON-RPC error code for another; a result check or drift has its
    own words before any colon (after it come values)."""
    if outcome.failure is not None:
        return type(outcome.failure).__name__
    if outcome.rpc_error is not None:
        return f"JSON-RPC error {outcome.rpc_error.code}"
    return finding.message.split(":", 1)[0]


class Engine:
    """One run of the loop for one subject: ``search`` sends the explicit inputs, then
    random ones, and shrinks the first failure."""

    def __init__(
        self,
        server: Restarting,
        subject: Subject,
        budget: Budget,
        *,
        window: InFlight | None = None,
        watch: Watch | None = None,
        explicit_phase: str = "coverage",
    ) -> None:
        self.server = server
        self.subject = subject
        self.budget = budget
        # The disk around each call (runs/watch); around the whole window while explicit
        # inputs fly, sent again one at a time on a fresh server when it changed something.
        self.watch = watch
        self.spending = Spending(budget, server)
        self.window = window
        self.search_result = Search()
        # Once an input has failed, only smaller ones are tried: the last to fail is the
        # smallest so far, and the clock says how long shrinking has taken.
        self.smallest: Violation | None = None
        self.shrinking_since = 0.0
        self.broke_server: Violation | None = None  # the last input that killed or hung it
        self.first_failure_call = 0
        self.first_violation: Violation | None = None  # the first failure, before shrinking
        self.hang_cut_short = False  # a shrinking attempt counted as a hang at the early timeout
        self.call_seconds: list[float] = []  # how long each call took, to tell a slow server
        self.answered_seconds: list[float] = []  # of the calls answered, for early timeouts
        self.suspected_hangs = 0  # calls cut short early and sent again with the full timeout
        self.as_sent: str | None = None  # the heading of the explicit input being sent
        # The phase the clock runs for (Search.phase_seconds) and since when; what the
        # explicit inputs' phase is called (a driver's own word: a security check's probes).
        self.explicit_phase = explicit_phase
        self.phase = explicit_phase
        self.phase_since = time.monotonic()

    def _switch(self, phase: str) -> str:
        """Count the time since the last switch to the phase that ran; ``phase`` runs now.
        Returns the phase that ran."""
        now = time.monotonic()
        ran = self.phase
        # Seconds in a Counter, as ToolStats.phase_seconds holds them (runs/stats.spend).
        self.search_result.phase_seconds[ran] += now - self.phase_since  # type: ignore[assignment]
        self.phase, self.phase_since = phase, now
        return ran

    @contextmanager
    def _watching(self) -> Iterator[None]:
        """The watch's look at the disk: its own phase, then back to the one it interrupted."""
        ran = self._switch("watch")
        try:
            yield
        finally:
            if self.phase == "watch":  # else a failure inside began shrinking: it runs on
                self._switch(ran)

    @property
    def shrinking(self) -> bool:
        return self.smallest is not None

    def _out_of_time(self) -> StopCalling:
        self.search_result.out_of_time = True
        return StopCalling()

    def attempt(self, arguments: dict[str, Any]) -> None:
        """Send one input and judge its answer: returns when it passes, raises a
        ``Violation`` when it fails (and the run's stop exceptions when a bound is hit)."""
        limit = None
        if self.smallest is not None:
            # Shrinking: no attempt may outlast the time left for it. One cut short by that
            # is not judged (it might have answered in time).
            limit = self.budget.shrink_time - (time.monotonic() - self.shrinking_since)
            if limit <= 0:
                why = f"shrinking took {self.budget.shrink_time:g} s, {_SHRINK}"
                raise _StopShrinking(self.smallest, why)
        elif self.spending.spent():
            raise self._out_of_time()
        sent = None
        if self.window is not None and self.smallest is None:
            sent = self.window.take(arguments)
            if sent is None and self.spending.spent():
                raise self._out_of_time()  # set aside as the budget ran out: not sent again
        if self.smallest is None:
            limit = self.spending.left()
        before = None
        if sent is None:
            if self.watch is not None and self.window is None:
                with self._watching():
                    before = self.watch.look()
            try:
                sent = self._send(arguments, limit)
            except ServerError as exc:
                raise _ServerGone(exc, self.broke_server) from None
        outcome = sent.outcome
        if self.smallest is None and self.spending.cut_short(outcome, limit):
            self.server.revive()  # stopped by the budget: a restart not to blame on the entry
            raise self._out_of_time()
        self.subject.count(outcome)
        self.call_seconds.append(outcome.elapsed)
        if outcome.result is not None or outcome.rpc_error is not None:
            self.answered_seconds.append(outcome.elapsed)
        if self.smallest is not None and Spending.cut_short(outcome, limit):
            why = (
                f"shrinking took {self.budget.shrink_time:g} s, {_SHRINK}; the last attempt "
                "was cut short"
            )
            raise _StopShrinking(self.smallest, why)
        self.search_result.calls += 1
        judged = self.subject.judge(sent, shrinking=self.shrinking)
        if judged.finding is None and before is not None and self.watch is not None:
            with self._watching():
                wrote = self.watch.judge(before)
            if wrote is not None and self.smallest is None:
                # Not shrunk: every smaller input would be another write, and a path cut
                # short names a place outside the run's own (/tmp/pytest-mcp-roots-ab: /tmp/py).
                found = Violation(outcome, wrote, wrote.message)
                found.label, found.watched = self.as_sent or NOT_SHRUNK_LABEL, True
                why = "" if self.as_sent else "a write is not shrunk: each attempt writes again"
                raise _StopShrinking(found, why)
        if judged.finding is None:
            return
        violation = Violation(
            outcome, judged.finding, judged.kind or failure_kind(outcome, judged.finding)
        )
        if sent.note is not None:
            violation.notes.append(sent.note)
        first = self.smallest is None
        if first:
            if self.window is not None:
                self.window.close()  # shrinking's calls are made one at a time
            self._switch("shrink")
            self.shrinking_since = time.monotonic()
            self.first_failure_call = self.search_result.calls
            self.first_violation = violation
            self.search_result.first = outcome
        elif violation.kind != self.smallest.kind:  # type: ignore[union-attr]
            return  # another failure than the one shrunk: not smaller, passed over
        self.smallest = violation
        if outcome.failure is not None:
            self.broke_server = violation
            if self.spending.restarts_spent():
                why = (
                    "each attempt needs a server restart and the budget of "
                    f"{self.budget.max_restarts} restarts per tool, --mcp-max-restarts, is spent"
                )
                if first:
                    violation.label = NOT_SHRUNK_LABEL
                raise _StopShrinking(violation, why)
        raise violation

    def early_timeout(self) -> float | None:
        """Seconds after which a call of this tool is suspected of hanging: HANG_FACTOR times
        the p99 of its answers so far, at least HANG_FLOOR; None before HANG_AFTER answers,
        or when that is no shorter than the call timeout."""
        from pytest_mcp_contracts.runs.stats import percentile

        timeout = self.budget.call_timeout
        if timeout is None or len(self.answered_seconds) < HANG_AFTER:
            return None
        early = max(HANG_FACTOR * percentile(self.answered_seconds, 99), HANG_FLOOR)
        return early if early < timeout else None

    def _send(self, arguments: dict[str, Any], limit: float | None) -> Sent:
        """One input sent with an early timeout when the tool has answered enough calls to
        have one. Before shrinking, a call cut short by it is sent again once, with the full
        timeout, on a server brought back (a restart not to blame on the tool): only that
        answer, or that hang, counts. Shrinking a hang waits only the early timeout."""
        early = self.early_timeout()
        hang_shrinking = self.smallest is not None and self.smallest.kind == CallTimeout.__name__
        if early is None or (limit is not None and limit <= early):
            return self.subject.send(arguments, limit)
        if self.smallest is not None and not hang_shrinking:
            return self.subject.send(arguments, limit)
        sent = self.subject.send(arguments, early)
        if not Spending.cut_short(sent.outcome, early):
            return sent
        if hang_shrinking:
            self.hang_cut_short = True
            note = (
                f"(shrinking's attempts waited {early:g} s for an answer, {HANG_FACTOR:g}x the "
                f"p99 of the tool's answers (at least {HANG_FLOOR:g} s), not the full "
                "--mcp-call-timeout, after the first hang had waited that long)"
            )
            return Sent(sent.outcome, note)
        self.suspected_hangs += 1
        self.server.revive()
        return self.subject.send(arguments, self.spending.left())

    def search(
        self,
        given: Sequence[Given],
        strategy: Any,
        coverage: CoveragePlan | None = None,
        *,
        hypothesis_settings: Callable[..., Any] | None = None,
    ) -> Search:
        """Send ``given`` in order, then ``budget.max_examples`` random inputs drawn from
        ``strategy``; the first failure ends the run, shrunk (an explicit one by our own
        search over ``coverage``'s schema, when it is ``shrinkable``). Exceptions that are no
        verdict on the entry (an interrupt, a bug of ours, a schema hypothesis cannot
        draw from) propagate."""
        from hypothesis.errors import FlakyFailure

        result = self.search_result
        self._switch(self.explicit_phase)
        flying = None
        if self.watch is not None and self.window is not None:
            with self._watching():
                flying = self.watch.look()
        try:
            try:
                for item in given:
                    self.as_sent = item.as_sent
                    self.attempt(item.arguments)
                self.as_sent = None
            finally:
                if self.window is not None:
                    self.window.close()  # only explicit inputs fly
                    self.window = None
            if flying is not None:
                with self._watching():
                    self._attribute(flying, given)
            if self.budget.max_examples > 0 and strategy is not None:
                self._switch("random")
                call_drawn(
                    strategy,
                    self.attempt,
                    test_settings=hypothesis_settings or self._settings,
                    seed=self.budget.seed,
                    # A derandomized run (CI's profile) draws by this: each entry its own.
                    digest=self.subject.key.encode(),
                    ahead=worth_drawing_ahead(self.call_seconds),
                )
        except StopCalling:
            result.stopped = True
        except Violation as violation:
            result.found = self._explicit_shrunk(violation, given, coverage)
        except _StopShrinking as stop:
            result.found = stop.violation
            if stop.why:
                stop.violation.notes.append(f"(not shrunk further: {stop.why})")
        except _ServerGone as gone:
            if gone.cause is None:
                result.gone = gone.error
            else:
                result.found = gone.cause
                gone.cause.notes.append(
                    f"(not shrunk further: the server did not come back: {gone.error.message})"
                )
        except FlakyFailure as flaky:
            found = next((e for e in flaky.exceptions if isinstance(e, Violation)), None)
            if found is None:
                raise
            found.notes.append(FLAKY_NOTE)
            result.found = found
        finally:
            self._switch(self.phase)  # the last phase's time counted
        result.found = self._hang_confirmed(result.found)
        return result

    def _hang_confirmed(self, found: Violation | None) -> Violation | None:
        """A hang shrunk with the early timeout, confirmed at the full one: an input that
        only took longer than the early timeout is slow, not hung, and the first input that
        hung for the full timeout is the failure shown instead."""
        first = self.first_violation
        if found is None or first is None or found is first or not self.hang_cut_short:
            return found
        if found.kind != CallTimeout.__name__:
            return found
        self.server.revive()
        again = self.subject.send(found.outcome.arguments, None).outcome
        if isinstance(again.failure, CallTimeout):
            return found
        first.notes.append(
            "(a smaller input that outlasted the early timeout answered within the full "
            "--mcp-call-timeout when sent again: it is slow, not hung, so the input shown is "
            "the first that hung for the full timeout)"
        )
        return first

    def _attribute(self, flying: Any, given: Sequence[Given]) -> None:
        """The explicit inputs flew together and the watch saw a change since ``flying``
        (its look before them) that belongs to no one call: on a fresh server, the watched
        folders laid anew, they are sent again one at a time, watched, and the first to
        make a change fails as it would have alone. When none does (the change was made in
        a folder the run cannot lay anew, or by calls together), the watch says so."""
        watch = self.watch
        assert watch is not None
        if not watch.changed(flying):
            return
        warned = len(watch.warned)
        if watch.fresh is not None:
            watch.fresh()
            for item in given:
                self.as_sent = item.as_sent
                self.attempt(item.arguments)
            self.as_sent = None
        watch.unattributed = len(watch.warned) == warned  # under warn, a call found it

    def _explicit_shrunk(
        self, violation: Violation, given: Sequence[Given], coverage: CoveragePlan | None
    ) -> Violation:
        """A failure met among the explicit inputs, shrunk by our own search when it may be;
        one met among the random ones is hypothesis's, shrunk already."""
        number = self.first_failure_call
        if not 0 < number <= len(given):
            return violation
        as_sent = given[number - 1].as_sent
        if as_sent is not None:
            violation.label = as_sent
            return violation
        if coverage is None or coverage.is_valid is None:
            # No schema to keep attempts valid: none is made.
            violation.label = NOT_SHRUNK_LABEL
            return violation
        return self._shrunk(violation, coverage)

    def _shrunk(self, found: Violation, coverage: CoveragePlan) -> Violation:
        from pytest_mcp_contracts.inputs.shrink import SearchStopped, shrink_input

        assert coverage.is_valid is not None
        failed: list[tuple[dict[str, Any], Violation]] = []

        def fails(arguments: dict[str, Any]) -> bool:
            try:
                self.attempt(arguments)
            except Violation as violation:
                if violation.kind != found.kind:
                    return False
                failed.append((arguments, violation))
                return True
            except _StopShrinking as stop:
                # Stopped by this attempt's own failure (the last restart) or before its call.
                same = stop.violation.outcome.arguments is arguments
                if same and stop.violation.kind == found.kind:
                    failed.append((arguments, stop.violation))
                raise SearchStopped(stop.why, failed=same) from None
            except _ServerGone as gone:
                raise SearchStopped(f"the server did not come back: {gone.error.message}") from None
            return False

        shrunk = shrink_input(found.outcome.arguments, coverage.schema, coverage.is_valid, fails)
        smallest = next((v for a, v in reversed(failed) if a == shrunk.value), found)
        if shrunk.stopped is not None:
            if smallest is found:
                smallest.label = NOT_SHRUNK_LABEL
            smallest.notes.append(f"(not shrunk further: {shrunk.stopped})")
        return smallest

    def _settings(self, **overrides: Any) -> Any:
        from hypothesis import HealthCheck, settings

        chosen: dict[str, Any] = {
            "max_examples": self.budget.max_examples,
            "deadline": None,
            "database": None,
            "report_multiple_bugs": False,
            "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large],
        }
        return settings(**{**chosen, **overrides})


def budget_words(budget: float, sent: int, planned: int, inputs: str = "inputs") -> str:
    """What a check stopped by the tool's time budget says: how far it got, that this is
    no failure, and how to give the tool more time."""
    return (
        f"the tool's time budget of {budget:g} s (--mcp-tool-time) ran out after {sent} of "
        f"up to {planned} {inputs} (judged; none is sent or runs past it). Not a failure: "
        "give this tool more time with tool_time under [tool.mcp-contracts.tools.<name>]"
    )
