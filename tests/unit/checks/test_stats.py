"""runs/stats.py: what a check counts of its calls, and how the counts travel."""

from __future__ import annotations

import json
from collections import Counter

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
