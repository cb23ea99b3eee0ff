"""The one loop (runs/engine.py) against in-memory subjects: no subprocess, no pytest run.

A subject here is a tool made of a Python function: it answers a result, or fails the way a
server fails (a death that costs a restart, a timeout), and a finding says which answers fail.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from pytest_mcp_contracts.judges.failures import FailureKind, Finding
from pytest_mcp_contracts.runs.engine import (
    NOT_SHRUNK_LABEL,
    Budget,
    Engine,
    Given,
    Judgement,
    Search,
    Sent,
    StopCalling,
)
from pytest_mcp_contracts.transport.errors import CallTimeout, ServerDied, ServerError
from pytest_mcp_contracts.transport.managed import CallOutcome

NUMBER = {
    "type": "object",
    "properties": {"n": {"type": "integer", "minimum": 0, "maximum": 1000}},
    "required": ["n"],
}
TEXT = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}


@dataclass
class MemoryTool:
    """A tool and its server in memory. ``answer`` gives a result (a dict), or raises
    ``ServerDied`` / ``CallTimeout`` (the server then restarts, counted), or ``ServerError``
    (the server cannot start again). A result with ``"bad": True`` fails its check."""

    answer: Callable[[dict[str, Any]], dict[str, Any]]
    restarts: int = 0
    revived: int = 0
    sent: list[dict[str, Any]] = field(default_factory=list)
    counted: int = 0
    stop_after: int | None = None  # the judge ends the run after this many calls

    key = "memory::tool"

    def revive(self) -> None:
        self.revived += 1

    def send(self, arguments: dict[str, Any], limit: float | None) -> Sent:
        self.sent.append(arguments)
        outcome = CallOutcome(
            arguments, {"method": "tools/call", "params": {"arguments": arguments}}
        )
        try:
            outcome.result = self.answer(arguments)
        except (ServerDied, CallTimeout) as exc:
            outcome.failure = exc
            self.restarts += 1
        return Sent(outcome)

    def count(self, outcome: CallOutcome) -> None:
        self.counted += 1

    def judge(self, sent: Sent, *, shrinking: bool) -> Judgement:
        if self.stop_after is not None and len(self.sent) >= self.stop_after:
            raise StopCalling
        outcome = sent.outcome
        if outcome.failure is not None:
            kind = FailureKind.CRASH if isinstance(outcome.failure, ServerDied) else None
            return Judgement(
                Finding("contract", "the server died", kind=kind or FailureKind.TIMEOUT)
            )
        if outcome.result and outcome.result.get("bad"):
            why = outcome.result["why"]
            return Judgement(
                Finding("contract", f"bad result: {why}", kind=FailureKind.OUTPUT_SCHEMA)
            )
        return Judgement()


def _search(
    tool: MemoryTool,
    *,
    given: list[Given] = (),  # type: ignore[assignment]
    schema: dict[str, Any] = NUMBER,
    coverage: Any = None,
    **budget: Any,
) -> Search:
    from pytest_mcp_contracts.inputs.generate import input_strategy

    chosen = {"max_examples": 50, "max_restarts": 10, "shrink_time": 30.0, "seed": 1, **budget}
    engine = Engine(tool, tool, Budget(**chosen))
    return engine.search(given, input_strategy(schema), coverage)


def _bad_from(limit: int) -> Callable[[dict[str, Any]], dict[str, Any]]:
    return lambda a: {"bad": a["n"] >= limit, "why": "too big"}


def test_explicit_inputs_go_first_in_order_then_random_ones() -> None:
    tool = MemoryTool(lambda a: {"n": a["n"]})
    given = [Given({"n": 7}), Given({"n": 3})]
    search = _search(tool, given=given, max_examples=10)
    assert tool.sent[:2] == [{"n": 7}, {"n": 3}]
    assert len(tool.sent) > 2 and search.calls == len(tool.sent) == tool.counted
    assert not search.failed and not search.stopped


def test_a_random_failure_is_shrunk_to_the_smallest_input() -> None:
    tool = MemoryTool(_bad_from(10))
    search = _search(tool, max_examples=200)
    assert search.found is not None
    assert search.found.outcome.arguments == {"n": 10}
    assert search.found.label is None  # "smallest input found"
    assert search.first is not None and search.first.arguments["n"] >= 10


def test_a_failing_explicit_input_is_shrunk_by_our_own_search() -> None:
    from pytest_mcp_contracts.inputs.coverage import coverage_budget
    from pytest_mcp_contracts.inputs.generate import coverage_plan

    plan = coverage_plan(TEXT, coverage_budget(10))
    tool = MemoryTool(lambda a: {"bad": len(a["text"]) >= 5, "why": "long"})
    search = _search(tool, given=[Given({"text": "x" * 200})], schema=TEXT, coverage=plan)
    assert search.found is not None
    assert len(search.found.outcome.arguments["text"]) == 5
    assert search.found.label is None


def test_an_input_reported_as_sent_is_not_shrunk() -> None:
    tool = MemoryTool(_bad_from(10))
    search = _search(tool, given=[Given({"n": 500}, as_sent="example:")])
    assert search.found is not None
    assert search.found.outcome.arguments == {"n": 500}
    assert search.found.label == "example:"
    assert tool.sent == [{"n": 500}]  # nothing else was sent


def test_shrinking_keeps_to_the_first_failures_kind() -> None:
    from pytest_mcp_contracts.inputs.coverage import coverage_budget
    from pytest_mcp_contracts.inputs.generate import coverage_plan

    def answer(a: dict[str, Any]) -> dict[str, Any]:
        if len(a["text"]) >= 50:
            raise ServerDied("the server exited")
        return {"bad": len(a["text"]) >= 5, "why": "long"}

    tool = MemoryTool(answer)
    plan = coverage_plan(TEXT, coverage_budget(10))
    search = _search(tool, given=[Given({"text": "x" * 200})], schema=TEXT, coverage=plan)
    assert search.found is not None
    # Shorter inputs fail too, with a bad result; the death is what is shrunk and shown.
    assert search.found.finding.message == "the server died"
    assert len(search.found.outcome.arguments["text"]) == 50
    assert any(len(sent["text"]) < 50 for sent in tool.sent)


def test_without_a_schema_to_shrink_by_an_explicit_failure_is_shown_as_sent() -> None:
    tool = MemoryTool(_bad_from(10))
    search = _search(tool, given=[Given({"n": 900})], coverage=None)
    assert search.found is not None
    assert search.found.outcome.arguments == {"n": 900}
    assert search.found.label == NOT_SHRUNK_LABEL


def test_a_spent_restart_budget_stops_shrinking_with_the_smallest_so_far() -> None:
    def answer(a: dict[str, Any]) -> dict[str, Any]:
        if a["n"] >= 10:
            raise ServerDied("the server exited")
        return {}

    tool = MemoryTool(answer)
    search = _search(tool, max_examples=200, max_restarts=1)
    assert search.found is not None
    assert search.found.label == NOT_SHRUNK_LABEL  # the first failure spent the budget
    assert any("--mcp-max-restarts, is spent" in note for note in search.found.notes)
    assert tool.restarts == 1


def test_shrinking_stops_when_its_time_is_spent() -> None:
    tool = MemoryTool(_bad_from(10))
    search = _search(tool, max_examples=200, shrink_time=0.0)
    assert search.found is not None
    assert any("shrinking took 0 s, --mcp-shrink-time" in note for note in search.found.notes)


def test_a_spent_tool_time_ends_the_run_without_a_failure() -> None:
    tool = MemoryTool(lambda a: {})
    search = _search(tool, given=[Given({"n": 1})], tool_time=0.0)
    assert search.out_of_time and search.stopped and not search.failed
    assert tool.sent == []


def test_a_call_the_tool_time_cuts_short_is_not_judged_and_the_server_is_revived() -> None:
    def answer(a: dict[str, Any]) -> dict[str, Any]:
        raise CallTimeout("no answer within the tool's time")

    tool = MemoryTool(answer)
    tool_time = 0.5
    engine = Engine(tool, tool, Budget(10, 10, 30.0, tool_time=tool_time, seed=1))

    def slow_send(arguments: dict[str, Any], limit: float | None) -> Sent:
        sent = MemoryTool.send(tool, arguments, limit)
        sent.outcome.elapsed = limit or 0.0  # it ran to the limit it was given
        return sent

    tool.send = slow_send  # type: ignore[method-assign]
    search = engine.search([Given({"n": 1})], None)
    assert search.out_of_time and not search.failed
    assert tool.revived == 1 and tool.counted == 0


def test_a_server_that_cannot_start_again_ends_the_run() -> None:
    def answer(a: dict[str, Any]) -> dict[str, Any]:
        raise ServerError("could not start")

    tool = MemoryTool(answer)
    search = _search(tool, given=[Given({"n": 1})])
    assert search.gone is not None and search.gone.message == "could not start"
    assert search.found is None


def test_the_judge_may_end_the_run_without_a_failure() -> None:
    tool = MemoryTool(lambda a: {}, stop_after=3)
    search = _search(tool, max_examples=20)
    assert search.stopped and not search.out_of_time and not search.failed
    assert len(tool.sent) == 3


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_same_seed_sends_the_same_inputs(seed: int) -> None:
    first, second = MemoryTool(lambda a: {}), MemoryTool(lambda a: {})
    _search(first, seed=seed, max_examples=15)
    _search(second, seed=seed, max_examples=15)
    assert first.sent == second.sent and len(first.sent) == 15


@dataclass
class TimedTool(MemoryTool):
    """A tool whose calls take ``seconds(arguments)`` (None: it never answers): a call given
    a shorter ``limit`` (or no limit: the call timeout, 10 s) ends in a timeout at it."""

    seconds: Callable[[dict[str, Any]], float | None] = lambda a: 0.01
    limits: list[float | None] = field(default_factory=list)

    def send(self, arguments: dict[str, Any], limit: float | None) -> Sent:
        self.sent.append(arguments)
        self.limits.append(limit)
        outcome = CallOutcome(arguments, {"method": "tools/call", "params": {}})
        wait, took = 10.0 if limit is None else min(limit, 10.0), self.seconds(arguments)
        if took is None or took >= wait:
            outcome.failure, outcome.elapsed = CallTimeout(f"no answer within {wait:g} s"), wait
            self.restarts += 1
        else:
            outcome.result, outcome.elapsed = {"n": arguments["n"]}, took
        return Sent(outcome)


def test_a_hang_is_suspected_early_confirmed_at_the_full_timeout_and_shrunk_early() -> None:
    from pytest_mcp_contracts.inputs.coverage import coverage_budget
    from pytest_mcp_contracts.inputs.generate import coverage_plan

    plan = coverage_plan(NUMBER, coverage_budget(10))
    tool = TimedTool(lambda a: {}, seconds=lambda a: None if a["n"] >= 10 else 0.01)
    given = [Given({"n": n}) for n in range(6)] + [Given({"n": 500})]
    search = _search(tool, given=given, coverage=plan, call_timeout=10.0, max_examples=0)
    assert tool.limits[:5] == [None] * 5 and tool.limits[5] == 2.0  # after 5 answers
    # 10x a p99 of 10 ms is under the 2 s floor: the first hang waits 2 s, then 10 s.
    assert tool.limits[6:8] == [2.0, None] and tool.sent[6] == tool.sent[7] == {"n": 500}
    # The suspect is sent again on a server brought back, and so is the shrunk hang, to
    # confirm it at the full timeout.
    assert tool.revived == 2 and tool.limits[-1] is None
    assert search.found is not None and search.found.outcome.arguments["n"] == 10
    shrinking = [limit for limit in tool.limits[8:-1] if limit is not None]
    assert shrinking and all(limit == 2.0 for limit in shrinking)
    assert any("shrinking's attempts waited 2 s" in note for note in search.found.notes)


def test_a_slow_answer_suspected_of_hanging_is_judged_by_its_full_timeout_answer() -> None:
    tool = TimedTool(lambda a: {}, seconds=lambda a: 3.0 if a["n"] == 500 else 0.01)
    given = [Given({"n": n}) for n in range(6)] + [Given({"n": 500})]
    search = _search(tool, given=given, call_timeout=10.0, max_examples=0)
    assert not search.failed
    assert tool.limits[6:8] == [2.0, None] and tool.revived == 1
    assert tool.counted == 7  # the call cut short early is not counted: its resend is


def test_a_shrunk_hang_that_was_only_slow_gives_way_to_the_first_hang() -> None:
    # 500 hangs; 10..499 take 3 s: past the early timeout (2 s), within the full one (10 s).
    # Shrinking with the early timeout reaches 10, which the full timeout shows is slow.
    from pytest_mcp_contracts.inputs.coverage import coverage_budget
    from pytest_mcp_contracts.inputs.generate import coverage_plan

    def seconds(arguments: dict[str, Any]) -> float | None:
        n = arguments["n"]
        return None if n == 500 else 3.0 if n >= 10 else 0.01

    plan = coverage_plan(NUMBER, coverage_budget(10))
    tool = TimedTool(lambda a: {}, seconds=seconds)
    given = [Given({"n": n}) for n in range(6)] + [Given({"n": 500})]
    search = _search(tool, given=given, coverage=plan, call_timeout=10.0, max_examples=0)
    assert search.found is not None and search.found.outcome.arguments == {"n": 500}
    assert any("slow, not hung" in note for note in search.found.notes)
    assert tool.limits[-1] is None  # the shrunk input was sent again with the full timeout


def test_no_early_timeout_without_a_call_timeout_to_measure_against() -> None:
    tool = TimedTool(lambda a: {}, seconds=lambda a: None if a["n"] >= 10 else 0.01)
    given = [Given({"n": n}) for n in range(6)] + [Given({"n": 500})]
    _search(tool, given=given, max_examples=0)
    assert tool.revived == 0 and 2.0 not in tool.limits


def _sleeping(seconds: float, bad_from: int | None = None) -> Callable[[dict[str, Any]], Any]:
    """A tool whose every call takes ``seconds``; failing from ``bad_from`` on."""
    import time

    def answer(arguments: dict[str, Any]) -> dict[str, Any]:
        time.sleep(seconds)
        return {"bad": bad_from is not None and arguments["n"] >= bad_from, "why": "too big"}

    return answer


def test_the_search_says_where_its_time_went_by_phase() -> None:
    # Two explicit calls of 20 ms, then ten random ones: each phase holds its own calls'
    # time, and the phases add up to the search's time.
    import time

    from pytest_mcp_contracts.inputs.generate import input_strategy

    tool = MemoryTool(_sleeping(0.02))
    strategy = input_strategy(NUMBER)
    budget = Budget(max_examples=10, max_restarts=10, shrink_time=30.0, seed=1)
    started = time.monotonic()
    search = Engine(tool, tool, budget).search([Given({"n": 1}), Given({"n": 2})], strategy)
    took = time.monotonic() - started
    phases = search.phase_seconds
    assert set(phases) == {"coverage", "random"}
    assert 0.04 <= phases["coverage"] < 0.04 + 0.5
    assert phases["random"] >= 0.02 * (len(tool.sent) - 2)
    assert sum(phases.values()) == pytest.approx(took, abs=0.05)


def test_shrinking_has_its_own_phase_from_the_first_failure_on() -> None:
    tool = MemoryTool(_sleeping(0.005, bad_from=10))
    search = _search(tool, max_examples=200)
    assert search.found is not None and search.found.outcome.arguments == {"n": 10}
    phases = search.phase_seconds
    # No call is made in the coverage phase (nothing given): it holds less than one call's
    # time, whatever the load (a phase switch costs microseconds, not 5 ms).
    assert set(phases) <= {"coverage", "random", "shrink"}
    assert phases.get("coverage", 0.0) < 0.005
    # Every call took 5 ms and each fell in one phase: those after the first failure in
    # shrink's (the first failure found is not 10: hypothesis draws larger numbers first).
    assert phases["random"] + phases["shrink"] >= 0.005 * len(tool.sent)
    assert phases["shrink"] >= 0.005


def test_a_share_of_the_run_time_stops_sending_but_cuts_no_call_short() -> None:
    # The run's share (--mcp-run-time) ends the drawing like the tool's time, but a call in
    # flight runs to the tool's own limit: the engine is given that limit, not the share.
    limits: list[float | None] = []
    tool = MemoryTool(_sleeping(0.03))
    original = tool.send

    def send(arguments: dict[str, Any], limit: float | None) -> Sent:
        limits.append(limit)
        return original(arguments, limit)

    tool.send = send  # type: ignore[method-assign]
    search = _search(tool, max_examples=50, tool_time=60.0, share=0.05)
    assert search.stopped and search.out_of_time
    assert 1 <= len(tool.sent) <= 3
    assert all(limit is not None and limit > 59 for limit in limits)
    assert tool.revived == 0
