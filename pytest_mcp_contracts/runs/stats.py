"""The numbers of one tool's calls, counted by the check that made them.

Each check (contract, rejects_invalid, sequences) fills a ``ToolStats`` per tool it called
from each ``CallOutcome``; its item attaches them to its test report as builtins
(``to_json``), and the run's facts (``reporting/facts``) fold the reports, serially and on
an xdist controller alike. A failure's replays (``runs/reproduce``) tally nothing: their
calls were counted when first made.

Adding a counter is one field of ``ToolStats`` (an ``int`` or a ``Counter``: it is then
summed, sent and put in the run report's tool entry) and its rendering: a line of the
terminal summary (``reporting/summary``) and its property in ``docs/run-report.schema.json``.

``phase_seconds`` is the one count of seconds, not calls: where the tool's time went, by
phase (the engine's, ``runs/engine``: coverage, random, shrink, watch; a failure's replay;
each other check's own time under its name), each second in one phase only, so that the
phases of a tool add up to the time its items took.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, Final

from pytest_mcp_contracts.vocabulary import EntryKind

if TYPE_CHECKING:
    from pytest_mcp_contracts.runs.run_time import Share
    from pytest_mcp_contracts.transport.discover import Entry
    from pytest_mcp_contracts.transport.managed import CallOutcome

UsesSandbox = Callable[[dict[str, Any]], bool]


def _counts(counter: Mapping[str, float]) -> dict[str, float]:
    """A counter as sorted JSON with plain ``str`` keys (a ``StrEnum`` key, an isError class,
    is not something execnet carries) and without the zero counts ``Counter.update`` leaves;
    a count stays an ``int``, seconds a ``float`` to the millisecond (what a clock between two
    calls can tell: a phase under half of one is left out)."""
    figures = {
        str(key): round(float(n), 3) if isinstance(n, float) else int(n)
        for key, n in sorted(counter.items())
    }
    return {key: n for key, n in figures.items() if n}


@dataclass
class ToolStats:
    """One tool's calls in one check (or, folded, in the whole run)."""

    calls: int = 0  # calls with valid inputs (contract, sequences)
    error_results: int = 0  # of them, answered with isError
    real_results: int = 0  # of them, a success result that was no error in disguise
    unanswered: int = 0  # of them, no answer: the server hung, died or broke the protocol
    sandbox_calls: int = 0  # of them, with a path of the roots sandbox in their arguments
    invalid_calls: int = 0  # sent by rejects_invalid, to be refused
    coercions_accepted: int = 0  # look-alikes of valid values a lenient server accepted
    protocol_refusals: int = 0  # -32602 where the protocol asks for an isError result
    # Reads and gets (runs/content_calls) answered with a JSON-RPC error that refuses the request.
    refused: int = 0
    # Checks of the tool (contract, rejects_invalid) that stopped drawing inputs because the
    # tool's time budget ran out (--mcp-tool-time): not a failure, but fewer inputs sent.
    out_of_time: int = 0
    # Inputs the contract check sent again (each coverage input of a tool annotated
    # readOnlyHint or idempotentHint; every explicit input under --mcp-repeat: runs/repeat),
    # and of them, those answered differently past ids, uuids and times.
    repeated_inputs: int = 0
    unstable_inputs: int = 0
    # Checks of the tool the run's time budget (--mcp-run-time, runs/run_time) gave less than
    # their own, and checks it left no time to run at all.
    run_time_cut: int = 0
    run_time_skipped: int = 0
    # Server requests answered (by method) and notifications received, during valid calls.
    client_requests: Counter[str] = field(default_factory=Counter)
    error_classes: Counter[str] = field(default_factory=Counter)  # isError results by class
    # Results without isError that the checks judged errors all the same, by class.
    disguised_errors: Counter[str] = field(default_factory=Counter)
    # Each answered call's latency in ms (coverage and random phases), in the order made:
    # from the request sent to its answer read (CallOutcome.elapsed: judging is not in it);
    # not shrinking's attempts nor replays (``time_call``, from runs/contract).
    latencies_ms: list[float] = field(default_factory=list)
    # Seconds the checks of the tool spent, by phase (coverage, random, shrink, replay...).
    phase_seconds: Counter[str] = field(default_factory=Counter)
    # The coverage phase's report (inputs/coverage), from the contract item; None: no plan.
    input_coverage: dict[str, Any] | None = None
    # Whether a call's arguments hold a path of the roots sandbox (from the pytest layer:
    # inputs/sandbox.uses_sandbox); not a number, so neither compared nor sent.
    uses_sandbox: UsesSandbox | None = field(default=None, compare=False, repr=False)

    def count_call(self, outcome: CallOutcome) -> None:
        """A call with a valid input, as the server answered it."""
        self.calls += 1
        self.client_requests.update(outcome.client.asked)
        self.client_requests.update(progress=outcome.client.progress, logs=outcome.client.logs)
        self.error_results += outcome.is_error_result
        self.real_results += outcome.result is not None and not outcome.is_error_result
        self.unanswered += outcome.failure is not None
        if self.uses_sandbox is not None:
            self.sandbox_calls += self.uses_sandbox(outcome.arguments)

    def time_call(self, outcome: CallOutcome) -> bool:
        """An answered call's latency (a result or a JSON-RPC error; a hang or a death is
        no latency: its time is the timeout's); whether it was one."""
        answered = outcome.result is not None or outcome.rpc_error is not None
        if answered:
            self.latencies_ms.append(round(outcome.elapsed * 1000, 3))
        return answered

    def count_disguised(self, kind: str) -> None:
        """A result ``count_call`` counted as real that the checks found to be an error
        without isError (a refusal's or a caught exception's text): it is no real result."""
        self.real_results -= 1
        self.disguised_errors[str(kind)] += 1

    def add(self, other: ToolStats) -> None:
        """Fold ``other`` (the same tool's stats from another check or worker) into these:
        counts are summed, and the coverage report comes from the one contract item."""
        for name in _NUMBERS:
            value = getattr(self, name)
            if isinstance(value, Counter):
                value.update(getattr(other, name))
            elif isinstance(value, list):
                value.extend(getattr(other, name))
            else:
                setattr(self, name, value + getattr(other, name))
        if self.input_coverage is None:
            self.input_coverage = other.input_coverage

    def spend(self, phase: str, seconds: float) -> None:
        """``seconds`` more in ``phase``."""
        # A Counter counts any number (collections.Counter's docs); typeshed types its
        # values as int, and the seconds are floats.
        self.phase_seconds[phase] += seconds  # type: ignore[assignment]

    @contextmanager
    def timed(self, phase: str) -> Iterator[None]:
        """The time the block takes, spent in ``phase``, whatever it raises."""
        started = time.monotonic()
        try:
            yield
        finally:
            self.spend(phase, time.monotonic() - started)

    @property
    def seconds(self) -> float:
        """The tool's time, every phase's together."""
        return float(sum(self.phase_seconds.values()))

    def to_json(self) -> dict[str, Any]:
        """Builtins only: what an xdist worker can send, and the run report's tool numbers."""
        data: dict[str, Any] = {}
        for name in _NUMBERS:
            value = getattr(self, name)
            if isinstance(value, Counter):
                data[name] = _counts(value)
            elif isinstance(value, list):
                data[name] = [float(v) for v in value]
            else:
                data[name] = int(value)
        data["input_coverage"] = self.input_coverage
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ToolStats:
        stats = cls()
        for name in _NUMBERS:
            value = data.get(name)
            if isinstance(getattr(stats, name), Counter):
                setattr(stats, name, Counter(dict(value or {})))
            elif isinstance(getattr(stats, name), list):
                setattr(stats, name, [float(v) for v in value or ()])
            else:
                setattr(stats, name, int(value or 0))
        coverage = data.get("input_coverage")
        stats.input_coverage = dict(coverage) if isinstance(coverage, Mapping) else None
        return stats


# Every count of ToolStats (an int, a Counter or a list of figures): a new field is summed,
# sent and reported.
_NUMBERS: Final = tuple(
    f.name for f in fields(ToolStats) if f.name not in ("input_coverage", "uses_sandbox")
)


def stats_key(entry: Entry) -> str:
    """An entry's key in ``CheckStats``: a tool's name; ``<kind>:<key>`` for the others (no
    tool name has a colon: the spec's name rules)."""
    if entry.kind is EntryKind.TOOL:
        return entry.name
    return f"{entry.kind}:{entry.key}"


@dataclass
class CheckStats:
    """What one item's check counted, by the name of the tool called (a sequences item calls
    many tools; the others one)."""

    tools: dict[str, ToolStats] = field(default_factory=dict)
    uses_sandbox: UsesSandbox | None = field(default=None, compare=False, repr=False)

    def tool(self, name: str) -> ToolStats:
        return self.tools.setdefault(name, ToolStats(uses_sandbox=self.uses_sandbox))

    def to_json(self) -> dict[str, Any]:
        return {name: stats.to_json() for name, stats in sorted(self.tools.items())}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CheckStats:
        return cls({str(name): ToolStats.from_json(value) for name, value in data.items()})

    def settle_share(self, key: str, share: Share, *, skipped: bool) -> None:
        """What the run's time budget gave the check of entry ``key`` (runs/run_time)."""
        if share.cut:
            stats = self.tool(key)
            stats.run_time_skipped += skipped
            stats.run_time_cut += not skipped

    def clock_out(self, check: str, seconds: float) -> None:
        """An item of one entry took ``seconds``: what its phases (the engine's, a replay)
        did not count is its check's own time (listing its inputs, building a strategy,
        the calls of a check without phases). An item that calls many tools (sequences)
        counts each call's time where it makes it; its own time belongs to no one tool."""
        if len(self.tools) != 1:
            return
        (stats,) = self.tools.values()
        stats.spend(check, max(seconds - stats.seconds, 0.0))


#: The figures of a tool's latencies the reports show, each a nearest-rank percentile.
LATENCY_FIGURES: Final = (("p50", 50), ("p95", 95), ("p99", 99), ("max", 100))


def percentile(values: Sequence[float], rank: float) -> float:
    """The nearest-rank percentile of ``values`` (not empty): the smallest value at least
    ``rank`` per cent of them are not above, one value that was measured."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(rank / 100 * len(ordered)) - 1)]


def latency_figures(latencies_ms: Sequence[float]) -> dict[str, float] | None:
    """p50, p95, p99 and max of a tool's call latencies (nearest rank: each figure is one
    latency that was measured); None without any."""
    if not latencies_ms:
        return None
    return {name: round(percentile(latencies_ms, rank), 3) for name, rank in LATENCY_FIGURES}
