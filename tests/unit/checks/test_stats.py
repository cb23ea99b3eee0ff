"""runs/stats.py: what a check counts of its calls, and how the counts travel."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from pytest_mcp_contracts.reporting.summary import answers
from pytest_mcp_contracts.runs.stats import CheckStats, ToolStats, latency_figures
from pytest_mcp_contracts.transport.errors import CallTimeout, ServerDied
from pytest_mcp_contracts.transport.managed import CallOutcome


def _outcome(**answer: object) -> CallOutcome:
    return CallOutcome({"q": "x"}, {"method": "tools/call"}, **answer)  # type: ignore[arg-type]


def test_each_answer_is_counted_once_as_what_it_was() -> None:
    stats = ToolStats()
    stats.count_call(_outcome(result={"content": []}))
    stats.count_call(_outcome(result={"content": [], "isError": True}))
    stats.count_call(_outcome(failure=CallTimeout("no answer within 10 s")))
    stats.count_call(_outcome(failure=ServerDied("the server exited")))
    assert (stats.calls, stats.real_results, stats.error_results, stats.unanswered) == (4, 1, 1, 2)


def test_a_counter_is_summed_sent_and_rendered_without_code_of_its_own() -> None:
    first, second = ToolStats(), ToolStats()
    first.count_call(_outcome(failure=CallTimeout("no answer")))
    second.count_call(_outcome(failure=ServerDied("gone")))
    first.add(second)
    wired = json.loads(json.dumps(CheckStats({"t": first}).to_json()))  # an xdist worker's
    back = CheckStats.from_json(wired).tools["t"]
    assert back == first and back.unanswered == 2
    assert "no answer to 2 calls (hung, died or broke the protocol)" in answers(back)


def test_latencies_are_joined_and_phase_seconds_summed_across_checks_and_the_wire() -> None:
    first = ToolStats(latencies_ms=[3.0, 1.5], phase_seconds=Counter(coverage=0.25))
    second = ToolStats(latencies_ms=[2.0], phase_seconds=Counter(coverage=0.5, shrink=1.0))
    first.add(ToolStats.from_json(second.to_json()))
    assert first.latencies_ms == [3.0, 1.5, 2.0]
    assert first.phase_seconds == Counter(coverage=0.75, shrink=1.0)
    assert first.to_json()["phase_seconds"] == {"coverage": 0.75, "shrink": 1.0}


def test_latency_figures_are_measured_latencies_by_nearest_rank() -> None:
    assert latency_figures([]) is None
    figures = latency_figures([float(n) for n in range(100, 0, -1)])
    assert figures == {"p50": 50.0, "p95": 95.0, "p99": 99.0, "max": 100.0}
    assert latency_figures([7.0]) == {"p50": 7.0, "p95": 7.0, "p99": 7.0, "max": 7.0}


def test_percentile_is_the_nearest_rank_and_a_call_is_timed_only_when_answered() -> None:
    from pytest_mcp_contracts.runs.stats import percentile

    assert percentile([5.0, 1.0], 50) == 1.0 and percentile([1.0, 2.0, 3.0], 95) == 3.0
    stats = ToolStats()
    assert stats.time_call(_outcome(result={"content": []}, elapsed=0.0125))
    assert not stats.time_call(_outcome(failure=CallTimeout("no answer"), elapsed=10.0))
    assert stats.latencies_ms == [12.5]


def test_seconds_by_phase_are_summed_and_sent_to_the_millisecond() -> None:
    first, second = ToolStats(), ToolStats()
    first.spend("coverage", 0.5)
    first.spend("random", 1.25)
    second.spend("random", 0.25)
    second.spend("replay", 0.0001)  # under half a millisecond: left out of the document
    first.add(second)
    assert first.seconds == pytest.approx(2.0001)
    sent = json.loads(json.dumps(first.to_json()))  # builtins, as xdist carries them
    assert sent["phase_seconds"] == {"coverage": 0.5, "random": 1.5}
    assert ToolStats.from_json(sent).phase_seconds == {"coverage": 0.5, "random": 1.5}


def test_an_items_time_beyond_its_phases_is_its_checks_own() -> None:
    stats = CheckStats()
    stats.tool("search").spend("random", 2.0)
    stats.clock_out("contract", 2.5)
    assert stats.tools["search"].phase_seconds == {"random": 2.0, "contract": 0.5}
    # An item of many tools (sequences) counts its calls where it makes them; its own time
    # belongs to none of them.
    many = CheckStats()
    many.tool("a").spend("sequences", 1.0)
    many.tool("b").spend("sequences", 1.0)
    many.clock_out("sequences", 5.0)
    assert many.tools["a"].seconds == many.tools["b"].seconds == 1.0


def test_what_the_run_time_gave_a_check_is_counted() -> None:
    from pytest_mcp_contracts.runs.run_time import Share

    stats = CheckStats()
    stats.settle_share("search", Share(3.0, 60.0, cut=True), skipped=False)
    stats.settle_share("search", Share(0.0, None, cut=True), skipped=True)
    stats.settle_share("search", Share(5.0, 5.0, cut=False), skipped=False)
    search = stats.tools["search"]
    assert (search.run_time_cut, search.run_time_skipped) == (1, 1)


def test_a_block_timed_spends_its_time_even_when_it_raises() -> None:
    import time

    stats = ToolStats()
    with pytest.raises(RuntimeError), stats.timed("replay"):
        time.sleep(0.01)
        raise RuntimeError("the replay's failure, raised on")
    assert stats.phase_seconds["replay"] >= 0.01
