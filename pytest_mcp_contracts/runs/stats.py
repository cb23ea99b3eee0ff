"""The numbers of one tool's calls, counted by the check that made them.

Each check (contract, rejects_invalid, sequences) fills a ``ToolStats`` per tool it called
from each ``CallOutcome``; its item attaches them to its test report as builtins
(``to_json``), and the run's facts (``reporting/facts``) fold the reports, serially and on
an xdist controller alike. A failure's replays (``runs/reproduce``) tally nothing: their
calls were counted when first made.

Adding a counter is one field of ``ToolStats`` (an ``int`` or a ``Counter``: it is then
summed, sent and put in the run report's tool entry) and its rendering: a line of the
terminal summary (``reporting/summary``) and its property in ``docs/run-report.schema.json``.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from pytest_mcp_contracts.transport.managed import CallOutcome

UsesSandbox = Callable[[dict[str, Any]], bool]


def _counts(counter: Mapping[str, float]) -> dict[str, float]:
    """A counter as sorted JSON with plain ``str`` keys (a ``StrEnum`` key, an isError class,
    is not something execnet carries) and without the zero counts ``Counter.update`` leaves;
    a count stays an ``int``, seconds a ``float``."""
    return {
        str(key): float(n) if isinstance(n, float) else int(n)
        for key, n in sorted(counter.items())
        if n
    }


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
