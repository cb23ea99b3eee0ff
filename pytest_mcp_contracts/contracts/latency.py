"""A tool's recorded latency: the p50 and p95 of its contract check's answered calls, kept in
the ``latency`` section of its snapshot file, and the rule that tells two of them apart.

The drift gate (``judges/drift_gate.gate_latency``) warns when a p95 grew past the rule; the
recorder (``contracts/record``) keeps the recorded figures under --mcp-snapshot-update unless
the rule tells this run's apart from them, as an output contract that states the same thing
keeps its file: an update with no change writes nothing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Final

#: The section of a tool's snapshot file that holds its figures.
LATENCY_SECTION: Final = "latency"


#: How many times its recorded p95 a tool's p95 may grow to before the run warns: latency
#: moves with the machine and its load (a laptop records, a shared CI runner checks), so only
#: growth well past that is news. A constant, not a setting: the warning never fails a run,
#: and ``-W`` filters it like any other.
LATENCY_GROWTH: Final = 3.0
#: And by at least this much (ms): a sub-millisecond tool that grew past the factor grew by
#: the transport's own jitter, and a p95 is one of a tool's slowest calls, which a loaded
#: machine stretches most; only growth a user would feel is news.
LATENCY_FLOOR_MS: Final = 50.0


def _two_figures(ms: float) -> float:
    # Two significant figures: what a reader compares, and what keeps a replaced figure from
    # changing in its last digits alone.
    return float(f"{ms:.2g}")


@dataclass(frozen=True)
class LatencyRecord:
    """A tool's recorded latency: p50 and p95 (ms) of its contract check's answered calls,
    and how many calls they are over."""

    calls: int
    p50_ms: float
    p95_ms: float

    @classmethod
    def measured(cls, calls: int, p50_ms: float, p95_ms: float) -> LatencyRecord:
        """This run's figures (``runs/stats.latency_figures``), as they are recorded."""
        return cls(calls, _two_figures(p50_ms), _two_figures(p95_ms))

    def to_data(self) -> dict[str, Any]:
        return {"calls": self.calls, "p50_ms": self.p50_ms, "p95_ms": self.p95_ms}

    @classmethod
    def from_data(cls, data: Any) -> LatencyRecord:
        """The recorded section; ValueError saying what is wrong with a hand-edited one."""
        keys = ("calls", "p50_ms", "p95_ms")
        if not isinstance(data, dict) or sorted(data) != sorted(keys):
            raise ValueError(f"it must be an object with exactly {', '.join(keys)}")
        calls, p50, p95 = (data[key] for key in keys)
        if isinstance(calls, bool) or not isinstance(calls, int) or calls < 1:
            raise ValueError(f"calls must be a positive integer, not {calls!r:.40}")
        for key in keys[1:]:
            value = data[key]
            number = isinstance(value, int | float) and not isinstance(value, bool)
            if not number or not math.isfinite(value) or value < 0:
                raise ValueError(f"{key} must be a number of milliseconds, not {value!r:.40}")
        if p50 > p95:
            raise ValueError(f"p50_ms {p50:g} is above p95_ms {p95:g}")
        return cls(calls, float(p50), float(p95))


def latency_grew(recorded: LatencyRecord, current: LatencyRecord) -> bool:
    """Whether the p95 grew past ``LATENCY_GROWTH`` times the recorded one, and by at least
    ``LATENCY_FLOOR_MS``."""
    grown = current.p95_ms - recorded.p95_ms
    return current.p95_ms > LATENCY_GROWTH * recorded.p95_ms and grown >= LATENCY_FLOOR_MS


def latency_moved(recorded: LatencyRecord, current: LatencyRecord) -> bool:
    """Whether the rule tells the two apart either way: grown, or shrunk as far (a tool made
    3x faster gets its new baseline, or its next slowdown would hide under the old one)."""
    return latency_grew(recorded, current) or latency_grew(current, recorded)


def latency_to_keep(on_disk: Any, current: dict[str, Any]) -> Any:
    """What an update writes in a file whose section is ``on_disk``: the recorded figures
    while they are usable and not ``latency_moved`` from this run's, else this run's."""
    try:
        recorded = LatencyRecord.from_data(on_disk)
    except ValueError:
        return current  # missing or unusable: accepting replaces it
    moved = latency_moved(recorded, LatencyRecord.from_data(current))
    return current if moved else on_disk
