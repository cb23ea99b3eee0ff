"""The run's time budget (--mcp-run-time): what is left, divided fairly among the checks not
yet run.

Each check that calls the server (contract, rejects_invalid, security, read, get, sequences)
spends a budget of its own (``runs/engine.Budget.tool_time``: --mcp-tool-time, a tool's
``tool_time``, the sequences' time). Under a run budget, a check is given, as it starts, the
smaller of its own budget and its share: the seconds left of the run divided by the checks
not yet run, itself included. A check that ends early leaves its seconds to those after it;
one given nothing (the run's time is spent) is not run, and says so.

Under pytest-xdist each worker divides its own time: every worker has the whole budget of
wall time, and runs about its share of the checks. A worker cannot see how far the others
are, so it counts the checks not yet run anywhere as if every worker had started as many
as it has: ``(planned - started x workers) / workers`` of them are its own to come.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

from pytest_mcp_contracts.vocabulary import Check

# The checks that spend a time budget: those that call the server.
TIMED_CHECKS: Final = frozenset(
    check.value
    for check in (
        Check.CONTRACT,
        Check.REJECTS_INVALID,
        Check.SECURITY,
        Check.READ,
        Check.GET,
        Check.SEQUENCES,
    )
)
# Less than this left for a check: it is not run (a call takes longer than that to say
# anything, and a budget spent before the first call sends nothing).
_TOO_LITTLE: Final = 0.05


@dataclass(frozen=True)
class Share:
    """What a check was given: ``seconds`` (None: no bound), and whether the run's budget cut
    it below its own (``own``: that budget, None for none)."""

    seconds: float | None
    own: float | None
    cut: bool


@dataclass
class RunTime:
    """One process's clock of --mcp-run-time: ``seconds`` from its start, divided among the
    ``planned()`` timed checks (counted when the first asks: collection is over by then) by
    ``workers`` processes."""

    seconds: float
    planned: Callable[[], int]
    workers: int = 1
    started_at: float = field(default_factory=time.monotonic)
    started: int = 0  # timed checks begun in this process
    _planned: int | None = None
    _fair: float | None = None  # the share of the check that began last, before its own
    _current: Share | None = None

    def begin(self, check: str) -> bool:
        """A check begins: its fair share is fixed now, before it does any work; whether
        it may run (False: nothing is left for it, and it does nothing)."""
        self._current = self._fair = None
        if check not in TIMED_CHECKS:
            return True
        self.started += 1
        if self._planned is None:
            self._planned = self.planned()
        left = max(self.seconds - (time.monotonic() - self.started_at), 0.0)
        # This check and the others to come in this process, as the docstring counts them.
        to_come = (self._planned - (self.started - 1) * self.workers) / self.workers
        self._fair = left / max(to_come, 1.0)
        if self._fair < _TOO_LITTLE:
            self._current = Share(0.0, None, cut=True)
            return False
        return True

    def share(self, own: float | None) -> Share:
        """The budget of the check that began last; ``own`` is its own (None: none)."""
        fair = self._fair
        if fair is None:  # asked by no timed check (a hand-written test): its own
            return Share(own, own, cut=False)
        given = fair if own is None else min(own, fair)
        self._current = Share(given, own, cut=own is None or given < own)
        return self._current

    def end(self) -> Share | None:
        """What the check that began last was given (None: it asked for no budget)."""
        current, self._current = self._current, None
        return current


def spent_words(run_time: float) -> str:
    """Why a check was not run under --mcp-run-time."""
    return (
        f"not run: the run's time budget of {run_time:g} s (--mcp-run-time) is spent; "
        "give the run more time, or select fewer tools (-k)"
    )
