"""Running sequences: the calls of a sequence made, fed and judged (``Sequencer``), and
hypothesis's rule-based state machine drawing them (``generate_sequences``).

One finding does not end the search: a failing call is recorded (``Sequencer.failures``,
one entry per tool, failure kind and exception type, the first sequence that met it kept)
and then treated as a refusal (its output feeds nothing), and the sequences go on, so that
a shallow failure (a lookup crashing on an unknown id) does not hide a deeper one
that only a later state reaches.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from pytest_mcp_contracts.judges.call import judged
from pytest_mcp_contracts.judges.failures import (
    MAX_DISTINCT_FAILURES,
    FailureKind,
    enough_failures_words,
    failure_identity,
)
from pytest_mcp_contracts.runs.engine import Budget, Spending
from pytest_mcp_contracts.runs.sequences.feeding import (
    POOL_LIMIT,
    Choice,
    Chooser,
    Fed,
    Names,
    Pool,
    Slot,
    feed,
    feed_slots,
    mine,
    refeed,
    renamed,
    shown_location,
)
from pytest_mcp_contracts.runs.stats import CheckStats, ToolStats
from pytest_mcp_contracts.vocabulary import MODERN_VERSION

if TYPE_CHECKING:
    from pytest_mcp_contracts.judges.failures import Finding
    from pytest_mcp_contracts.transport.discover import Entry
    from pytest_mcp_contracts.transport.managed import CallOutcome, ManagedServer


@dataclass(frozen=True)
class Step:
    """One call of a sequence: what it sent, what the pool gave it, what came back."""

    index: int  # the call's position in the run (what an Origin names)
    tool: str
    arguments: dict[str, Any]
    fed: tuple[Fed, ...]
    summary: str
    request: dict[str, Any]
    stderr: str | None = None  # what the server wrote while the call ran
    stderr_before: str = ""


def result_summary(outcome: CallOutcome, limit: int = 160) -> str:
    """A call's answer in one line: ok and its JSON, isError and its text, or the failure."""
    if outcome.failure is not None:
        return f"failed: {outcome.failure.message[:limit]}"
    if outcome.rpc_error is not None:
        return f"JSON-RPC error {outcome.rpc_error.code}: {outcome.rpc_error.message[:limit]}"
    result = outcome.result or {}
    texts = [
        str(block.get("text", ""))
        for block in (result.get("content") or [])
        if isinstance(block, Mapping) and block.get("type") == "text"
    ]
    if result.get("isError") is True:
        return "isError: " + (" ".join(texts).strip().replace("\n", " ")[:limit] or "(no text)")
    shown = result.get("structuredContent")
    text = json.dumps(shown, ensure_ascii=False, sort_keys=True) if shown is not None else ""
    text = text or " ".join(texts).strip().replace("\n", " ")
    return "ok: " + (text[:limit] + ("…" if len(text) > limit else "") if text else "(empty)")


def step_lines(steps: Sequence[Step]) -> list[str]:
    """The sequence as the failure report lists it, one call per line (and its answer)."""
    lines = []
    numbers = {step.index: number for number, step in enumerate(steps, 1)}
    for number, step in enumerate(steps, 1):
        args = json.dumps(step.arguments, ensure_ascii=False, sort_keys=True)
        if len(args) > 300:
            args = args[:300] + "…"
        sources = [
            f"{shown_location(f.location)} from call {numbers[f.origin.step]}"
            if f.origin.step in numbers
            else f"{shown_location(f.location)} from an earlier output"
            for f in step.fed
        ]
        fed = f"  ({', '.join(sources)})" if sources else ""
        lines += [f"{number}. {step.tool} {args}{fed}", f"   -> {step.summary}"]
    return lines


def replay_lines(steps: Sequence[Step], handshake: dict[str, Any] | None) -> list[str]:
    """The JSON-RPC lines that replay a sequence on a fresh server's stdin: the handshake
    (for a handshake-era server), then each tools/call, ids counting from 1."""
    lines = []
    number = 1
    if handshake is not None:
        lines.append(_line({"jsonrpc": "2.0", "id": number, **handshake}))
        lines.append(_line({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        number += 1
    for step in steps:
        lines.append(_line({"jsonrpc": "2.0", "id": number, **step.request}))
        number += 1
    return lines


def _line(message: Mapping[str, Any]) -> str:
    return json.dumps(message, ensure_ascii=False, separators=(",", ":"))


@dataclass
class SequenceStats:
    sequences: int = 0
    calls: int = 0
    fed_calls: int = 0  # calls that took at least one value from an earlier output
    real_results: dict[str, int] = field(default_factory=dict)  # by tool: success results
    # What the run has reached: (tool, answered for real, the tools that acted on its fed
    # values before it in the sequence). A sequence that adds none is no gain.
    reached: set[tuple[str, bool, frozenset[str]]] = field(default_factory=set)
    gained_at: int = 0  # the last sequence that reached something new
    stopped: str = ""  # why generation ended before its last sequence, if it did
    breaks: int = 0  # failing calls that killed or hung the server (each needs a restart)
    # The calls for the run report, each under the tool it called (shrinking's replays too).
    tally: CheckStats = field(default_factory=lambda: CheckStats())

    def summary(self) -> str:
        real = ", ".join(f"{t} {n}" for t, n in sorted(self.real_results.items()))
        stopped = f"; {self.stopped}" if self.stopped else ""
        return (
            f"{self.sequences} sequences, {self.calls} calls, {self.fed_calls} of them with "
            f"values from earlier outputs; real results by tool: {real or 'none'}{stopped}"
        )


# What makes two failing calls the same failure: the tool, the failure kind, and the
# exception type when the finding names one (judges/failures.failure_identity).
FailureKey = tuple[str, str, str]


def failure_key(tool: str, finding: Finding) -> FailureKey:
    return (tool, *failure_identity(finding))


# Failures after which the server must be started again: the sequence that met one ends
# (the state it built is gone), and each counts against the restart budget.
BREAKS_SERVER: Final = frozenset({FailureKind.CRASH, FailureKind.TIMEOUT})


@dataclass
class KnownFailure:
    """A distinct failure the sequences met: the first sequence that met it, and how many
    failing calls were this failure in all."""

    found: SequenceFound
    count: int = 1


def sequence_tools(
    tools: Sequence[Entry], refusal: Callable[[Entry], str | None]
) -> tuple[list[Entry], list[str]]:
    """The tools a sequence may call (the call policy and the tool settings allow it, the
    listing entry is usable) and why each other one is left out."""
    usable, left_out = [], []
    for tool in tools:
        why = refusal(tool)
        if why is None and tool.malformed:
            why = "its listing entry is malformed"
        if why is None:
            usable.append(tool)
        else:
            left_out.append(f"{tool.name}: {why}")
    return usable, left_out


def real_result(outcome: CallOutcome, disguised: bool = False) -> dict[str, Any] | None:
    """The result of a call that answered for real (no isError, no failure, no error
    without isError: ``disguised``), else None."""
    real = outcome.failure is None and not outcome.is_error_result and not disguised
    return outcome.result if real else None


def step_of(planned: Planned, index: int, outcome: CallOutcome) -> Step:
    return Step(
        index,
        planned.tool,
        planned.arguments,
        planned.feeds,
        result_summary(outcome),
        outcome.request,
        outcome.stderr,
        outcome.stderr_before,
    )


@dataclass(frozen=True)
class Planned:
    """A call as it can be made again: its place in the run, the tool, the input as it was
    sent, and where its fed values came from."""

    index: int
    tool: str
    arguments: dict[str, Any]
    feeds: tuple[Fed, ...] = ()


@dataclass
class Sequencer:
    """Makes the calls of sequences against a server: feeds each input from the pool of the
    sequence's own earlier outputs, calls, judges, and keeps the run's history."""

    server: ManagedServer
    tools: Mapping[str, Entry]
    warn_only: Mapping[str, frozenset[str]]
    stats: SequenceStats = field(default_factory=lambda: SequenceStats())
    history: list[tuple[Planned, dict[str, Any] | None]] = field(default_factory=list)
    # Every distinct failure met, in the order first met (dicts keep it).
    failures: dict[FailureKey, KnownFailure] = field(default_factory=dict)

    def __post_init__(self) -> None:
        from pytest_mcp_contracts.schema.dialects import make_validator

        self.slots = {name: feed_slots(tool.input_schema) for name, tool in self.tools.items()}
        self.validators = {
            name: make_validator(tool.input_schema) for name, tool in self.tools.items()
        }

    @property
    def feeds_any(self) -> bool:
        """Whether any tool has a slot an earlier output can feed."""
        return any(self.slots.values())

    def valid(self, tool: str) -> Callable[[dict[str, Any]], bool]:
        return self.validators[tool].is_valid

    def call(
        self, planned: Planned, index: int
    ) -> tuple[Step, Finding | None, dict[str, Any] | None]:
        """Call ``planned`` (its input already fed) as call ``index``; the step, the finding,
        and the result when it is a real one (no isError, no failure)."""
        tool = self.tools[planned.tool]
        outcome, finding, disguised = call_and_judge(
            self.server,
            tool,
            planned.arguments,
            self.warn_only.get(tool.name, frozenset()),
            self.stats.tally.tool(tool.name),
        )
        return step_of(planned, index, outcome), finding, real_result(outcome, disguised)

    def generated_step(
        self, pool: Pool, tool: str, generated: dict[str, Any], choose: Chooser
    ) -> tuple[Step, Finding | None]:
        """A call of the generation phase: fed from ``pool``, counted, kept in the history."""
        index = len(self.history)
        arguments, fed = feed(generated, self.slots[tool], pool, choose, self.valid(tool))
        planned = Planned(index, tool, arguments, tuple(fed))
        step, finding, real = self.call(planned, index)
        if finding is not None:
            real = None  # a failing call is a refusal for chaining: its output feeds nothing
        self.history.append((planned, real))
        self.stats.calls += 1
        self.stats.fed_calls += bool(fed)
        if real is not None:
            pool.add(index, tool, real)
            self.stats.real_results[tool] = self.stats.real_results.get(tool, 0) + 1
        touched = frozenset(t for f in fed for t in pool.acted_on.get(f.value, ()))
        if (tool, real is not None, touched) not in self.stats.reached:
            self.stats.reached.add((tool, real is not None, touched))
            self.stats.gained_at = self.stats.sequences
        if real is not None:
            for value in {f.value for f in fed} | {v for _, v in mine(real)}:
                pool.acted_on.setdefault(value, set()).add(tool)
        return step, finding

    def record(self, found: SequenceFound) -> bool:
        """Count a failing call (the last of ``found``); True when it is a failure not met
        before, which is then kept with its sequence (reaching it is a gain)."""
        key = failure_key(found.steps[-1].tool, found.finding)
        known = self.failures.get(key)
        if known is not None:
            known.count += 1
            return False
        self.failures[key] = KnownFailure(found)
        self.stats.gained_at = self.stats.sequences
        return True

    def replay(
        self,
        plan: Sequence[Planned],
        until: Callable[[Step, Finding], bool] | None = None,
    ) -> tuple[list[Step], Finding | None]:
        """Make the calls of ``plan`` again, in order, each fed from where its values came
        from in this replay; stop at the first failing call, or with ``until`` at the first
        failing call it accepts (another failure is passed as a refusal, its output feeding
        nothing, as the generation phase passed it)."""
        outputs: dict[int, dict[str, Any]] = {}
        names: Names = {}
        steps = []
        for planned in plan:
            arguments, fed = refeed(
                planned.arguments, planned.feeds, outputs, self.valid(planned.tool), names
            )
            step, finding, real = self.call(
                Planned(planned.index, planned.tool, arguments, tuple(fed)), planned.index
            )
            steps.append(step)
            if finding is not None and until is not None and not until(step, finding):
                continue  # another failure than the one replayed: a refusal here
            if real is not None and finding is None:
                outputs[planned.index] = real
                first_run = (
                    self.history[planned.index][1] if planned.index < len(self.history) else None
                )
                for old, new in renamed(first_run, real, planned.index).items():
                    names.setdefault(old, new)  # the first call that returned it made it
            if finding is not None:
                return steps, finding
        return steps, None


@dataclass
class SequenceFound:
    """A failing sequence as the generation phase met it: its calls, and where it started in
    the run's history."""

    start: int
    steps: list[Step]
    finding: Finding


class _Enough(BaseException):
    # Ends the generation phase between two sequences: its time is spent, or the last
    # sequences reached nothing new.
    pass


class BadUserStrategy(BaseException):
    """A ``pytest_mcp_tool_strategy`` strategy drew an input the tool's inputSchema refuses
    (``inputs/generate.UserStrategyError``): no call was made with it. A BaseException, so
    hypothesis does not take it for a failing sequence."""

    def __init__(self, tool: str, error: Exception) -> None:
        super().__init__(str(error))
        self.tool = tool
        self.error = error


def generate_sequences(
    sequencer: Sequencer,
    strategies: Mapping[str, Any],
    budget: Budget,
    *,
    max_steps: int,
    patience: int | None = None,
    max_failures: int = MAX_DISTINCT_FAILURES,
) -> SequenceFound | None:
    """hypothesis's rule-based state machine draws sequences of calls (a tool, its input,
    and for each slot whether to feed it and with which pool value); the first sequence with
    a failing call is returned, unshrunk, and every distinct failure is in
    ``sequencer.failures``.

    A failing call does not end the search: it is recorded (``Sequencer.record``: a failure
    met before is counted) and passed as a refusal, and the sequence goes on, unless the
    call killed or hung the server (its state is gone: the sequence ends, and the next call
    starts the server again). A new distinct failure is a gain, as a new tool or answer is.

    ``budget.max_examples`` sequences at most. No new sequence starts once
    ``budget.tool_time`` seconds have passed, once ``patience`` sequences in a row reached
    nothing new (``SequenceStats.reached``), once failing calls have killed or hung the
    server ``budget.max_restarts`` times, or once ``max_failures``
    distinct failures are found: on a server whose tools take no ids the sequences stop
    early, and a slow or broken server does not hold a run for long. ``stats.stopped`` says
    which ended it.

    The server's state is not reset between sequences (a restart per sequence costs about a
    second on a Python server), so hypothesis does not shrink here: its replays would meet
    another state. The draws never depend on the state, so the same seed from the same
    start makes the same run."""
    from hypothesis import HealthCheck, Phase, settings
    from hypothesis import strategies as st
    from hypothesis.errors import FlakyStrategyDefinition
    from hypothesis.stateful import RuleBasedStateMachine, get_state_machine_test, rule

    from pytest_mcp_contracts.inputs.user_strategies import UserStrategyError
    from pytest_mcp_contracts.transport.errors import ServerError

    names = sorted(strategies)
    # Call k of a sequence draws its tool from the names turned k places, so that the
    # simplest draw (hypothesis's first sequences are made of them) is the next tool in turn:
    # such a sequence goes round every tool, feeding each the newest value, instead of
    # calling the first name twenty times. The same draws still make the same calls.
    turns = [st.sampled_from(names[k:] + names[:k]) for k in range(len(names))]
    stats = sequencer.stats
    spending = Spending(budget)  # the breaks are counted here, as the sequences meet them
    time_budget, max_restarts, seed = budget.tool_time, budget.max_restarts, budget.seed

    class Sequences(RuleBasedStateMachine):
        def __init__(self) -> None:
            if spending.spent():
                stats.stopped = (
                    f"stopped after {stats.sequences} sequences: the time for them "
                    f"({time_budget or 0:g} s, --mcp-sequences-time) is spent"
                )
                raise _Enough
            if patience is not None and stats.sequences - stats.gained_at >= patience:
                stats.stopped = (
                    f"stopped after {stats.sequences} sequences: the last {patience} reached "
                    "no tool, answer, failure or chain of calls the earlier ones had not"
                )
                raise _Enough
            if max_restarts is not None and stats.breaks >= max_restarts:
                stats.stopped = (
                    f"stopped after {stats.sequences} sequences: failing calls killed or hung "
                    f"the server {stats.breaks} times, each a restart (--mcp-max-restarts)"
                )
                raise _Enough
            super().__init__()
            self.pool = Pool()
            self.start = len(sequencer.history)
            self.steps: list[Step] = []
            self.ended = False  # a call killed or hung the server: the state is gone
            sequencer.stats.sequences += 1

        @rule(data=st.data())
        def call(self, data: Any) -> None:
            if self.ended:
                return  # hypothesis cannot end a sequence early: its last steps do nothing
            name = data.draw(turns[len(self.steps) % len(turns)], label="tool")
            try:
                generated = data.draw(strategies[name], label="arguments")
            except UserStrategyError as exc:
                raise BadUserStrategy(name, exc) from None

            def choose(slot: Slot) -> Choice:
                # Fed 3 times in 4, with any of the pool's values (0 is the newest).
                keep = data.draw(st.integers(0, 3), label=f"{slot.name} generated") == 3
                index = data.draw(st.integers(0, POOL_LIMIT - 1), label=f"{slot.name} pool")
                return None if keep else index

            try:
                step, finding = sequencer.generated_step(self.pool, name, generated, choose)
            except ServerError as exc:  # a server that died did not start again
                stats.stopped = (
                    f"stopped after {stats.sequences} sequences: the server could not be "
                    f"started again: {exc.message}"
                )
                raise _Enough from None
            self.steps.append(step)
            if finding is None:
                return
            new = sequencer.record(SequenceFound(self.start, list(self.steps), finding))
            if finding.kind in BREAKS_SERVER:
                stats.breaks += 1
                self.ended = True
            if new and len(sequencer.failures) >= max_failures:
                stats.stopped = enough_failures_words(f"{stats.sequences} sequences")
                raise _Enough

    Sequences.__name__ = Sequences.__qualname__ = "Sequences"
    run_settings = settings(
        max_examples=budget.max_examples,
        stateful_step_count=max_steps,
        deadline=None,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    if seed is None and not run_settings.derandomize:
        # Our own random seed rather than hypothesis's: it would otherwise tell the user to
        # add @seed(...) to a test they did not write.
        import random

        seed = random.getrandbits(64)

    def sequences() -> Sequences:
        return Sequences()

    # hypothesis names a state machine by a digest of its factory's source: of a class,
    # inspect finds it by parsing the whole module; of this function, by reading its two
    # lines.
    if seed is not None:
        # hypothesis's @seed works this way on a state machine's factory
        sequences._hypothesis_internal_use_seed = seed  # type: ignore[attr-defined]
    # run_state_machine_as_test's own first step (HypoFuzz calls it so too). Its documentation
    # of the factory: "anything which returns an instance of RuleBasedStateMachine when
    # called with no arguments"; its annotation says a class.
    test = get_state_machine_test(sequences, settings=run_settings)  # type: ignore[arg-type]
    # hypothesis keys a test's examples in its database by a digest of the test's source,
    # here its own stateful runner's, which it tokenizes afresh in every process. There is
    # no database (run_settings), so the test carries a key instead, as hypothesis.find's do.
    test._hypothesis_internal_database_key = b"pytest-mcp-contracts:sequences"  # type: ignore[attr-defined]
    try:
        test()
    except _Enough:
        pass
    except FlakyStrategyDefinition:
        # hypothesis's memory of the earlier sequences says a new one draws; one that ends
        # before its first draw is, to it, data generation that changed. Nothing was called
        # after the stop, so the sequences already run stand.
        if not stats.stopped:
            raise
    first = next(iter(sequencer.failures.values()), None)
    return first.found if first is not None else None


def call_and_judge(
    server: ManagedServer,
    tool: Entry,
    arguments: dict[str, Any],
    warn_only: frozenset[str],
    tally: ToolStats | None = None,
) -> tuple[CallOutcome, Finding | None, bool]:
    """One call of a sequence, the first thing wrong with it (judged as the contract check
    judges its calls), and whether it was an error without isError (no real result); the
    call is counted in ``tally``, its time too (the sequences item calls many tools: its
    time is theirs, call by call)."""
    outcome = server.call(tool.name, arguments)
    if tally is not None:
        tally.count_call(outcome)
        tally.spend("sequences", outcome.elapsed)
    finding, disguised = judged(tool, outcome, server.protocol_version, warn_only)
    if disguised is not None and tally is not None:
        tally.count_disguised(disguised)
    return outcome, finding, disguised is not None


def handshake_of(server: ManagedServer) -> dict[str, Any] | None:
    """The request that opens a handshake-era session (None on 2026-07-28: no handshake)."""
    if server.protocol_version == MODERN_VERSION:
        return None
    from pytest_mcp_contracts.transport.jsonrpc import CLIENT_INFO

    return {
        "method": "initialize",
        "params": {
            "protocolVersion": server.protocol_version,
            "capabilities": {},
            "clientInfo": CLIENT_INFO,
        },
    }
