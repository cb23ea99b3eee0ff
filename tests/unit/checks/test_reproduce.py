"""Replaying a failure on a fresh server (runs/reproduce), against an in-memory counter
server; the command that replays it; how a barely exercised tool could be reached; when the
sequences stop early."""

from __future__ import annotations

import shlex
from collections import deque
from dataclasses import dataclass, field
from typing import Any

import pytest

from pytest_mcp_contracts.cli.call import parse_calls
from pytest_mcp_contracts.cli.command import CommandError
from pytest_mcp_contracts.judges.failures import FailureKind, Finding, call_command_line
from pytest_mcp_contracts.runs.engine import Budget
from pytest_mcp_contracts.runs.reproduce import reproduce
from pytest_mcp_contracts.runs.sequences.calls import Sequencer, generate_sequences
from pytest_mcp_contracts.runs.sequences.feeding import ways_to_reach
from pytest_mcp_contracts.transport.discover import Entry
from pytest_mcp_contracts.transport.managed import CallOutcome, PastCall
from pytest_mcp_contracts.transport.stdio import ServerCommand
from pytest_mcp_contracts.vocabulary import EntryKind
from tests.conforming import conforming

BY = {"type": "object", "properties": {"by": {"type": "integer", "minimum": 1, "maximum": 3}}}
TOOLS = [
    Entry(EntryKind.TOOL, "bump", "bump", {"name": "bump", "inputSchema": BY}),
    Entry(EntryKind.TOOL, "level", "level", {"name": "level", "inputSchema": {"type": "object"}}),
]


@dataclass
class _Surface:
    tools: list[Entry]


@dataclass
class FakeCounter:
    """level fails once bump has pushed the count past ``limit`` (or, ``flaky``, on the
    first call ever and never again)."""

    limit: int = 5
    flaky: bool = False
    protocol_version: str = "2026-07-28"
    command: ServerCommand = field(default_factory=lambda: ServerCommand(("counter",)))
    surface: _Surface = field(default_factory=lambda: _Surface(TOOLS))
    recent_calls: deque[PastCall] = field(default_factory=deque)
    count: int = 0
    starts: int = 0
    failed_once: bool = False

    def fresh(self) -> None:
        self.count, self.starts = 0, self.starts + 1
        self.recent_calls.clear()

    def carried_state(self) -> None:
        return None  # a new process starts from nothing: no state outlives it

    def call(self, tool: str, arguments: dict[str, Any], *, invalid: bool = False) -> CallOutcome:
        outcome = CallOutcome(arguments, {"method": "tools/call", "params": {"name": tool}})
        if tool == "bump":
            self.count += int(arguments.get("by", 1))
            result = {"content": [], "structuredContent": {"count": self.count}}
        elif (self.flaky and not self.failed_once) or (not self.flaky and self.count > self.limit):
            self.failed_once = True
            result = {"content": [{"type": "text", "text": "boom"}], "isError": True}
        else:
            result = {"content": [], "structuredContent": {"count": self.count}}
        outcome.result = conforming(result, version=self.protocol_version)
        self.recent_calls.append(PastCall(tool, arguments, invalid, not outcome.is_error_result))
        return outcome


def _problem(outcome: CallOutcome) -> Finding | None:
    boom = Finding("contract", "boom", kind=FailureKind.UNEXPECTED_EXCEPTION)
    return boom if outcome.is_error_result else None


def _run(server: FakeCounter, calls: list[tuple[str, dict[str, Any]]]) -> CallOutcome:
    outcome = None
    for tool, arguments in calls:
        outcome = server.call(tool, arguments)
    assert outcome is not None
    return outcome


def test_a_failure_that_needs_earlier_calls_gets_the_fewest_of_them() -> None:
    server = FakeCounter()
    history = [("bump", {"by": b}) for b in (1, 1, 3, 1, 3, 1)] + [("level", {})]
    failing = _run(server, history)
    assert server.count == 10 and failing.is_error_result
    found = reproduce(server, TOOLS[1], failing, _problem, server.fresh)  # type: ignore[arg-type]
    assert found is not None and found.steps is not None
    tools = [(s.tool, s.arguments) for s in found.steps]
    assert tools[-1] == ("level", {})
    added = [a["by"] for _, a in tools[:-1]]
    assert sum(added) > 5  # the prefix still breaks it
    # and no call of it can go: the shrinker keeps a prefix no single drop shortens
    assert all(sum(added) - by <= 5 for by in added), added
    assert len(added) < 6
    assert found.earlier == 6
    assert f"it fails there after the {len(added)} calls before it above" in found.notes[0]


def test_a_failure_that_fails_alone_says_so() -> None:
    server = FakeCounter(limit=-1)  # level always fails
    failing = _run(server, [("bump", {"by": 2}), ("level", {})])
    found = reproduce(server, TOOLS[1], failing, _problem, server.fresh)  # type: ignore[arg-type]
    assert found is not None and found.steps is not None and len(found.steps) == 1
    assert found.notes == ["(it fails alone on a freshly started server too)"]
    assert server.starts == 1  # one replay was enough


def test_a_failure_nothing_reproduces_says_so_within_the_bound() -> None:
    server = FakeCounter(flaky=True)
    failing = _run(server, [("bump", {"by": 1}), ("bump", {"by": 2}), ("level", {})])
    found = reproduce(server, TOOLS[1], failing, _problem, server.fresh)  # type: ignore[arg-type]
    assert found is not None and found.steps is None
    assert found.notes == [
        "(did not fail again on a freshly started server, alone or after the 2 earlier calls "
        "of its server process: it may depend on timing or outside state)"
    ]
    assert server.starts == 2  # alone, then after the earlier calls


def test_without_a_fresh_server_nothing_is_replayed() -> None:
    server = FakeCounter()
    failing = _run(server, [("bump", {"by": 3}), ("bump", {"by": 3}), ("level", {})])
    found = reproduce(  # type: ignore[arg-type]
        server, TOOLS[1], failing, _problem, server.fresh, fresh_possible=False
    )
    assert found is not None and not found.replayed and server.starts == 0
    assert "no fresh server can be started" in found.notes[0]


def test_a_failure_no_single_answer_shows_is_not_replayed() -> None:
    server = FakeCounter()
    failing = _run(server, [("level", {})])  # passes: the failure was of another kind
    found = reproduce(server, TOOLS[1], failing, _problem, server.fresh)  # type: ignore[arg-type]
    assert found is None and server.starts == 0


def test_the_replay_command_quotes_each_call() -> None:
    target = ServerCommand(("python", "-m", "my server"))
    command = call_command_line(target, [("bump", {"by": 3}), ("level", {})])
    assert shlex.split(command) == [
        "mcp-contracts",
        "call",
        "--server=python -m 'my server'",
        "bump",
        '{"by": 3}',
        "level",
        "{}",
    ]
    long = call_command_line(target, [("bump", {"by": 1})] * 11)
    assert "--file=calls.txt" in long and long.count('bump {"by": 1}') == 11


def test_calls_are_parsed_from_pairs_and_a_file() -> None:
    lines = ["# a comment", "", 'bump {"by": 2}', "level"]
    assert parse_calls(["bump", "{}"], lines) == [
        ("bump", {}),
        ("bump", {"by": 2}),
        ("level", {}),
    ]
    for words, said in [
        (["bump"], "has no arguments"),
        (["bump", "{"], "call 1: the arguments of bump are not JSON"),
        (["bump", "3"], "must be a JSON object"),
        ([], "no calls given"),
    ]:
        with pytest.raises(CommandError, match=said):
            parse_calls(words, [])


def _tool(name: str, inputs: dict[str, Any], output: dict[str, Any] | None = None) -> Entry:
    raw: dict[str, Any] = {"name": name, "inputSchema": {"type": "object", "properties": inputs}}
    if output is not None:
        raw["outputSchema"] = {"type": "object", "properties": output}
    return Entry(EntryKind.TOOL, name, name, raw)


def test_ways_to_reach_a_refused_tool() -> None:
    read = _tool("read_note", {"note_id": {"type": "string"}})
    create = _tool("create_note", {"title": {"type": "string"}}, {"note_id": {"type": "string"}})
    other = _tool("ping", {}, {"ok": {"type": "boolean"}})
    on = ways_to_reach(read, [read, create, other], sequences=True)
    assert on[0].startswith("sequences: create_note return(s) what its note_id can take")
    assert on[-1].startswith("examples: ")
    off = ways_to_reach(read, [read, other], sequences=False)
    assert off[0] == "sequences: --mcp-sequences=on feeds its note_id"
    # On, with no tool whose output holds a note id, sequences are no way to reach it.
    assert not any(w.startswith("sequences") for w in ways_to_reach(read, [read], sequences=True))
    files = _tool("read_file", {"file_path": {"type": "string"}})
    assert any(
        w.startswith("roots: its file_path") for w in ways_to_reach(files, [files], sequences=True)
    )


class _Quiet(FakeCounter):
    """Every call answers the same: nothing new after the first sequence."""

    def call(self, tool: str, arguments: dict[str, Any], *, invalid: bool = False) -> CallOutcome:
        outcome = CallOutcome(arguments, {"method": "tools/call", "params": {"name": tool}})
        outcome.result = conforming(
            {"content": [], "structuredContent": {"ok": True}}, version=self.protocol_version
        )
        return outcome


def _strategies() -> dict[str, Any]:
    from pytest_mcp_contracts.inputs.generate import input_strategy

    return {tool.name: input_strategy(tool.input_schema) for tool in TOOLS}


@pytest.mark.parametrize("derandomize", [False, True])
def test_sequences_stop_once_nothing_new_is_reached(derandomize: bool) -> None:
    sequencer = Sequencer(_Quiet(), {t.name: t for t in TOOLS}, {})  # type: ignore[arg-type]
    found = generate_sequences(
        sequencer,
        _strategies(),
        Budget(
            max_examples=25, max_restarts=None, shrink_time=30.0, seed=None if derandomize else 3
        ),
        max_steps=5,
        patience=3,
    )
    assert found is None
    stats = sequencer.stats
    assert stats.sequences == stats.gained_at + 3 < 25
    assert stats.stopped.startswith(f"stopped after {stats.sequences} sequences: the last 3")


def test_sequences_stop_when_their_time_is_spent() -> None:
    sequencer = Sequencer(_Quiet(), {t.name: t for t in TOOLS}, {})  # type: ignore[arg-type]
    generate_sequences(
        sequencer,
        _strategies(),
        Budget(max_examples=25, max_restarts=None, shrink_time=30.0, tool_time=0.0, seed=1),
        max_steps=5,
    )
    assert sequencer.stats.sequences == 0
    assert "--mcp-sequences-time" in sequencer.stats.stopped


@dataclass
class FakeNearALimit:
    """`sleepy(n)` does not answer in time once n reaches ``limit``; a restarted server is a
    little faster (the limit moves up), as a machine's load moves a time limit."""

    limit: int = 100
    protocol_version: str = "2026-07-28"
    command: ServerCommand = field(default_factory=lambda: ServerCommand(("sleepy",)))
    surface: _Surface = field(default_factory=lambda: _Surface([SLEEPY]))
    recent_calls: deque[PastCall] = field(default_factory=deque)

    def fresh(self) -> None:
        self.limit = 150
        self.recent_calls.clear()

    def carried_state(self) -> None:
        return None

    def uncounted(self) -> Any:
        import contextlib

        return contextlib.nullcontext()

    def call(self, tool: str, arguments: dict[str, Any], *, invalid: bool = False) -> CallOutcome:
        from pytest_mcp_contracts.transport.errors import CallTimeout

        outcome = CallOutcome(arguments, {"method": "tools/call", "params": {"name": tool}})
        if arguments["n"] >= self.limit:
            outcome.failure = CallTimeout("no answer to tools/call within 2 s")
        else:
            outcome.result = conforming(
                {"content": [{"type": "text", "text": "slept"}]}, version=self.protocol_version
            )
        self.recent_calls.append(PastCall(tool, arguments, invalid, outcome.failure is None))
        return outcome


SLEEPY = Entry(
    EntryKind.TOOL,
    "sleepy",
    "sleepy",
    {"name": "sleepy", "inputSchema": {"type": "object", "properties": {"n": {"type": "integer"}}}},
)


def test_a_shrunk_input_at_a_limit_falls_back_to_the_first_that_failed() -> None:
    """Shrinking walks a timeout down to the input that only just crossed the limit; on a
    fresh server it may not fail again, where the first failing input does: that one is
    reported, and says why, so that the reproduction reproduces."""
    from pytest_mcp_contracts.judges.failures import ContractFailure, FailureReport
    from pytest_mcp_contracts.runs.reproduce import replay_failure

    server = FakeNearALimit()
    first = server.call("sleepy", {"n": 2147483647})
    smallest = server.call("sleepy", {"n": 100})
    problem = "the call did not return: no answer to tools/call within 2 s"
    error = ContractFailure(
        FailureReport(
            "s",
            server.command,
            "sleepy",
            "contract",
            problem,
            FailureKind.TIMEOUT,
            arguments={"n": 100},
        )
    )
    error.outcome, error.first_outcome = smallest, first
    shown = replay_failure(  # type: ignore[arg-type]
        server, SLEEPY, error, server.fresh, warn_only=frozenset(), fresh_possible=True
    )
    report = shown.report
    assert report.arguments == {"n": 2147483647}
    assert report.input_label == "input (the first that failed; the smallest did not again):"
    assert report.notes[-1].startswith(
        '(the smallest input found, {"n": 100}, did not fail again on a freshly started server'
    )
    assert "sleepy '{\"n\": 2147483647}'" in report.replay_command
