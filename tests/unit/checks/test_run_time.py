"""The run's time budget (runs/run_time.py): what is left, divided among the checks to come."""

from __future__ import annotations

import pytest

from pytest_mcp_contracts.runs import run_time
from pytest_mcp_contracts.runs.run_time import RunTime, Share


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The module's clock, set by hand: ``clock[0]`` is now."""
    now = [100.0]
    monkeypatch.setattr(run_time.time, "monotonic", lambda: now[0])
    return now


def test_each_check_gets_what_is_left_divided_by_the_checks_to_come(clock: list[float]) -> None:
    budget = RunTime(60.0, lambda: 6, started_at=100.0)
    assert budget.begin("contract")
    assert budget.share(30.0) == Share(10.0, 30.0, cut=True)  # 60 s among 6
    clock[0] += 2.0  # the first check left 8 of its 10 s: the others get them
    assert budget.begin("rejects_invalid")
    assert budget.share(30.0).seconds == pytest.approx(58.0 / 5)
    # A check whose own budget is smaller keeps it, and is not cut.
    assert budget.begin("security")
    assert budget.share(5.0) == Share(5.0, 5.0, cut=False)
    # Without a budget of its own (0 or off), any share is a cut.
    assert budget.begin("read")
    assert budget.share(None).cut


def test_a_check_left_nothing_does_not_run(clock: list[float]) -> None:
    budget = RunTime(10.0, lambda: 3, started_at=100.0)
    assert budget.begin("contract")
    budget.share(60.0)
    clock[0] += 11.0
    assert not budget.begin("contract")
    ended = budget.end()
    assert ended is not None and ended.cut and ended.seconds == 0.0
    assert "--mcp-run-time" in run_time.spent_words(10.0)


def test_checks_that_spend_no_time_are_not_counted(clock: list[float]) -> None:
    budget = RunTime(60.0, lambda: 2, started_at=100.0)
    assert budget.begin("schema") and budget.begin("drift")
    assert budget.end() is None
    assert budget.begin("contract")
    assert budget.share(None).seconds == 30.0


def test_under_xdist_a_worker_divides_among_its_share_of_the_checks(clock: list[float]) -> None:
    # 8 checks, 2 workers: this worker counts on 4 of them; after it has begun 2, the other
    # worker is taken to have begun 2 too, so 2 are left to it (60 s, 20 spent: 40 / 2).
    budget = RunTime(60.0, lambda: 8, workers=2, started_at=100.0)
    assert budget.begin("contract")
    assert budget.share(None).seconds == 15.0
    clock[0] += 20.0
    assert budget.begin("contract")
    assert budget.share(None).seconds == pytest.approx(40.0 / 3)
    assert budget.begin("contract")
    assert budget.share(None).seconds == pytest.approx(40.0 / 2)


def test_a_budget_asked_outside_a_timed_check_is_its_own(clock: list[float]) -> None:
    budget = RunTime(60.0, lambda: 1, started_at=100.0)
    assert budget.share(7.0) == Share(7.0, 7.0, cut=False)
