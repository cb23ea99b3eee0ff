"""runs/stats.py: what a check counts of its calls, and how the counts travel."""

from __future__ import annotations

import json

from pytest_mcp_contracts.reporting.summary import _answers
from pytest_mcp_contracts.runs.stats import CheckStats, ToolStats
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
    assert "no answer to 2 calls (hung, died or broke the protocol)" in _answers(back)


def test_percentiles_are_by_nearest_rank_and_latencies_fold_and_cross_the_wire() -> None:
    from pytest_mcp_contracts.runs.stats import percentile, percentiles

    values = [float(n) for n in range(1, 101)]  # 1..100 ms
    assert percentiles(values) == {"p50": 50.0, "p95": 95.0, "p99": 99.0, "max": 100.0}
    assert percentile([7.0], 99) == 7.0 and percentile([5.0, 1.0], 50) == 1.0
    assert percentiles([]) == {}
    one, other = ToolStats(latencies_ms=[1.5, 2.5]), ToolStats(latencies_ms=[9.0])
    one.add(other)
    assert one.latencies_ms == [1.5, 2.5, 9.0]
    assert ToolStats.from_json(one.to_json()).latencies_ms == [1.5, 2.5, 9.0]
