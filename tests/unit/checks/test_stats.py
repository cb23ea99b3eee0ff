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
