"""One finding does not end the search (issue 43, rule 3), against in-memory servers.

The sequences check records a failure it met before and goes on, so that a shallow failure
(a "not found" answered with JSON-RPC -32603) does not hide a deeper one that only a later
state reaches; rejects_invalid sends its other cases after a failing one, so that a hang on
an out-of-range value is found behind a -32603 on a wrongly typed one.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Callable
from typing import Any

import pytest

from pytest_mcp_contracts.judges.failures import (
    ContractFailure,
    FailureKind,
    Finding,
    failure_identity,
)
from pytest_mcp_contracts.runs.engine import Budget
from pytest_mcp_contracts.runs.sequences.calls import Sequencer, generate_sequences
from pytest_mcp_contracts.runs.sequences.feeding import Pool
from pytest_mcp_contracts.runs.sequences.shrink import shrink
from pytest_mcp_contracts.transport.discover import Entry, ServerSurface
from pytest_mcp_contracts.transport.errors import CallTimeout, RpcError, ServerDied
from pytest_mcp_contracts.transport.managed import CallOutcome
from pytest_mcp_contracts.transport.stdio import ServerCommand
from pytest_mcp_contracts.vocabulary import EntryKind
from tests.conforming import conforming

MODERN = "2026-07-28"
TOOLS = (
    Entry(
        EntryKind.TOOL,
        "store_memory",
        "store_memory",
        {
            "name": "store_memory",
            "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}},
        },
    ),
    Entry(
        EntryKind.TOOL,
        "get_memory",
        "get_memory",
        {
            "name": "get_memory",
            "inputSchema": {
                "type": "object",
                "properties": {"memory_id": {"type": "string"}},
                "required": ["memory_id"],
            },
        },
    ),
)


def _result(value: dict[str, Any]) -> dict[str, Any]:
    return conforming(
        {"content": [{"type": "text", "text": str(value)}], "structuredContent": value}
    )


class FakeServer:
    """What runs/sequences/check and runs/rejects_invalid use of a ManagedServer."""

    protocol_version = MODERN

    def __init__(self, tools: tuple[Entry, ...]) -> None:
        self.surface = ServerSurface("fake", "fake", "1.0", MODERN, tools)
        self.command = ServerCommand(("python", "-m", "fake"))
        self.restarts = 0
        self.alive = True

    def stderr_tail(self) -> str:
        return ""

    def uncounted(self) -> Any:
        return contextlib.nullcontext()

    def live_connection(self) -> object | None:
        return object() if self.alive else None

    def call(
        self, tool: str, arguments: dict[str, Any], *, invalid: bool = False, limit: Any = None
    ) -> CallOutcome:
        if not self.alive:  # the next call starts it again, as ManagedServer.connection does
            self.restarts += 1
            self.alive = True
            self.restarted()
        request = {"jsonrpc": "2.0", "method": "tools/call"}
        request["params"] = {"name": tool, "arguments": arguments}  # type: ignore[assignment]
        outcome = CallOutcome(arguments, request)
        self.answer(tool, arguments, outcome)
        if isinstance(outcome.failure, (ServerDied, CallTimeout)):
            self.alive = False  # died, or killed after the hang
        return outcome

    def restarted(self) -> None:
        pass

    def answer(self, tool: str, arguments: dict[str, Any], outcome: CallOutcome) -> None:
        raise NotImplementedError


class MemoryStore(FakeServer):
    """tests/servers/shallow_deep.py in memory: an unknown id is answered -32603 (shallow),
    and once two memories are stored a lookup of one kills the process (deep)."""

    def __init__(self) -> None:
        super().__init__(TOOLS)
        self.fresh()

    def fresh(self) -> None:
        self.memories: dict[str, str] = {}
        self.counter = 0

    def restarted(self) -> None:
        self.fresh()  # a new process starts empty

    def answer(self, tool: str, arguments: dict[str, Any], outcome: CallOutcome) -> None:
        if tool == "store_memory":
            self.counter += 1
            memory_id = "m-" + hashlib.sha256(str(self.counter).encode()).hexdigest()[:10]
            self.memories[memory_id] = str(arguments.get("text", ""))
            outcome.result = _result({"memory_id": memory_id})
            return
        memory_id = str(arguments.get("memory_id"))
        if memory_id not in self.memories:
            outcome.rpc_error = RpcError(
                -32603, "Cannot read properties of undefined (reading 'a')"
            )
        elif len(self.memories) >= 2:
            outcome.failure = ServerDied("the server exited while answering (exit status 5)")
        else:
            outcome.result = _result({"memory_id": memory_id, "text": self.memories[memory_id]})


def _strategies(tools: tuple[Entry, ...] = TOOLS) -> dict[str, Any]:
    from pytest_mcp_contracts.inputs.generate import input_strategy

    return {tool.name: input_strategy(tool.input_schema) for tool in tools}


def _sequencer(server: FakeServer, tools: tuple[Entry, ...] = TOOLS) -> Sequencer:
    return Sequencer(server, {t.name: t for t in tools}, {})  # type: ignore[arg-type]


@pytest.mark.parametrize("seed", [1, 4])
def test_a_shallow_failure_does_not_hide_the_deeper_one_behind_it(seed: int) -> None:
    store = MemoryStore()
    sequencer = _sequencer(store)
    first = generate_sequences(
        sequencer,
        _strategies(),
        Budget(max_examples=10, max_restarts=None, shrink_time=30.0, seed=seed),
        max_steps=20,
    )
    assert first is not None
    assert list(sequencer.failures) == [
        ("get_memory", "rpc_error", ""),
        ("get_memory", "crash", ""),
    ]
    shallow, deep = sequencer.failures.values()
    assert first is shallow.found
    assert shallow.count > 1  # met again, counted, and the search went on
    # Each is shrunk to its own shortest sequence; the deep one's replay goes past the
    # shallow failure when its sequence met that on the way.
    shrunk = shrink(sequencer, deep.found, store.fresh, lambda _name: None, budget=30)
    assert [s.tool for s in shrunk.steps] == ["store_memory", "store_memory", "get_memory"]
    assert shrunk.from_fresh and shrunk.finding.kind is FailureKind.CRASH
    assert shrunk.steps[-1].arguments["memory_id"] in {"m-6b86b273ff", "m-d4735e3a26"}
    alone = shrink(sequencer, shallow.found, store.fresh, lambda _name: None, budget=30)
    assert [s.tool for s in alone.steps] == ["get_memory"]
    assert alone.finding.kind is FailureKind.RPC_ERROR


def test_a_call_that_killed_the_server_ends_its_sequence_and_the_restarts_are_bounded() -> None:
    store = MemoryStore()

    class Watched(Sequencer):
        """Which sequence (its number) each call was made in, and whether it crashed."""

        def __post_init__(self) -> None:
            super().__post_init__()
            self.calls: list[tuple[int, bool]] = []

        def generated_step(self, pool: Pool, *args: Any) -> Any:
            step, finding = super().generated_step(pool, *args)
            crashed = finding is not None and finding.kind is FailureKind.CRASH
            self.calls.append((self.stats.sequences, crashed))
            return step, finding

    sequencer = Watched(store, {t.name: t for t in TOOLS}, {})  # type: ignore[arg-type]
    generate_sequences(
        sequencer,
        _strategies(),
        Budget(max_examples=50, max_restarts=2, shrink_time=30.0, seed=1),
        max_steps=20,
    )
    stats = sequencer.stats
    assert stats.breaks == 2 and store.restarts == 1  # the second crash needs no restart yet
    assert "killed or hung the server 2 times" in stats.stopped
    crashes = [n for n, (_, crashed) in enumerate(sequencer.calls) if crashed]
    assert len(crashes) == 2
    # No call of a sequence after the one that killed the server: the next call is the
    # first of another sequence, on a server the call started again.
    after = crashes[0] + 1
    assert sequencer.calls[after][0] != sequencer.calls[crashes[0]][0]


def test_the_search_stops_at_the_most_distinct_failures_it_looks_for() -> None:
    from pytest_mcp_contracts.judges.failures import MAX_DISTINCT_FAILURES

    tools = tuple(
        Entry(EntryKind.TOOL, name, name, {"name": name, "inputSchema": {"type": "object"}})
        for name in ("a", "b", "c", "d")
    )

    class Broken(FakeServer):  # every tool fails, each its own failure (another tool)
        def answer(self, tool: str, arguments: dict[str, Any], outcome: CallOutcome) -> None:
            outcome.rpc_error = RpcError(-32603, f"{tool}.map is not a function")

    sequencer = _sequencer(Broken(tools), tools)
    generate_sequences(
        sequencer,
        _strategies(tools),
        Budget(max_examples=10, max_restarts=None, shrink_time=30.0, seed=1),
        max_steps=20,
    )
    assert len(sequencer.failures) == MAX_DISTINCT_FAILURES == 3
    assert sequencer.stats.calls == 3  # the first sequence goes round the tools: a, b, c
    assert "3 distinct failures found" in sequencer.stats.stopped


def test_a_failing_call_feeds_nothing_to_the_calls_after_it() -> None:
    # A result that fails its check (here: it breaks the declared outputSchema) is a
    # refusal for chaining: the id in it is not offered to a later input.
    made = Entry(
        EntryKind.TOOL,
        "make_item",
        "make_item",
        {
            "name": "make_item",
            "inputSchema": {"type": "object"},
            "outputSchema": {
                "type": "object",
                "properties": {"item_id": {"type": "integer"}},
                "required": ["item_id"],
            },
        },
    )
    used = Entry(
        EntryKind.TOOL,
        "use_item",
        "use_item",
        {
            "name": "use_item",
            "inputSchema": {
                "type": "object",
                "properties": {"item_id": {"type": "string"}},
                "required": ["item_id"],
            },
        },
    )

    class Items(FakeServer):
        def answer(self, tool: str, arguments: dict[str, Any], outcome: CallOutcome) -> None:
            outcome.result = _result({"item_id": "i-1"} if tool == "make_item" else {"ok": True})

    sequencer = _sequencer(Items((made, used)), (made, used))
    pool = Pool()
    _step, finding = sequencer.generated_step(pool, "make_item", {}, lambda _slot: 0)
    assert finding is not None and finding.kind is FailureKind.OUTPUT_SCHEMA
    assert sequencer.history[-1][1] is None  # not a real result
    step, _ = sequencer.generated_step(pool, "use_item", {"item_id": "x"}, lambda _slot: 0)
    assert step.fed == () and step.arguments == {"item_id": "x"}


@pytest.mark.parametrize(
    ("finding", "identity"),
    [
        (
            Finding(
                "contract",
                "the tool raised an unexpected exception (the server answered isError)",
                details=("exception: KeyError: 'words'", "isError text: Error executing tool t"),
                kind=FailureKind.UNEXPECTED_EXCEPTION,
            ),
            ("unexpected_exception", "KeyError"),
        ),
        (
            Finding(
                "contract",
                "the tool raised an unexpected exception (the server answered isError)",
                details=("isError text: TypeError: Cannot read properties of undefined",),
                kind=FailureKind.UNEXPECTED_EXCEPTION,
            ),
            ("unexpected_exception", "TypeError"),
        ),
        (
            Finding(
                "rejects_invalid",
                "an invalid input made the tool raise an unexpected exception (ValueError: bad) "
                "instead of a refusal; evidence: a traceback",
                kind=FailureKind.UNEXPECTED_EXCEPTION,
            ),
            ("unexpected_exception", "ValueError"),
        ),
        (
            Finding(
                "contract",
                "a schema-valid input was answered with JSON-RPC error -32603: memory 'm-1' "
                "not found",
                kind=FailureKind.RPC_ERROR,
            ),
            ("rpc_error", ""),
        ),
    ],
)
def test_failure_identity_is_the_kind_and_the_exception_type(
    finding: Finding, identity: tuple[str, str]
) -> None:
    assert failure_identity(finding) == identity


def test_the_same_failure_with_other_words_is_the_same_failure() -> None:
    def rpc(message: str) -> Finding:
        return Finding("contract", message, kind=FailureKind.RPC_ERROR)

    assert failure_identity(rpc("memory 'a' not found")) == failure_identity(rpc("'b' missing"))
    crash = Finding("contract", "the call killed the server", kind=FailureKind.CRASH)
    assert failure_identity(crash) != failure_identity(rpc("memory 'a' not found"))


def test_check_sequences_reports_every_distinct_failure_with_its_own_sequence() -> None:
    from pytest_mcp_contracts.runs.sequences.check import check_sequences, plan_sequences
    from pytest_mcp_contracts.runs.stats import CheckStats

    server: Any = MemoryStore()
    plan = plan_sequences(server, lambda _tool: None, lambda _tool: frozenset(), None, CheckStats())
    assert not isinstance(plan, str)
    with pytest.raises(ContractFailure) as caught:
        check_sequences(
            plan,
            server.fresh,
            lambda _s: None,
            Budget(max_examples=20, max_restarts=None, shrink_time=30.0, tool_time=None, seed=1),
            resets=True,
        )
    report = caught.value.report
    # The gravest is the headline (its kind the item's): the crash, met after the rpc_error.
    assert caught.value.kind is FailureKind.CRASH
    assert report.problem.startswith("the call killed the server")
    assert report.problem.endswith(
        "(call 3 of a sequence) (and 1 more failure of this check below)"
    )
    assert [line.split(" ")[1] for line in report.sequence[::2]] == [
        "store_memory",
        "store_memory",
        "get_memory",
    ]
    assert [other.kind for other in report.also] == [FailureKind.RPC_ERROR]
    shallow = report.also[0]
    assert shallow.problem.startswith("a schema-valid input was answered with JSON-RPC error")
    assert shallow.problem.endswith("(call 1 of a sequence)")
    text = report.render()
    assert text.splitlines()[0] == report.problem
    assert "\nfailure 2 of 2 of this check:\n    a schema-valid input was answered" in text
    assert text.count("reproduce on a freshly started server") == 2
    assert any(
        line.startswith("failures met: get_memory: rpc_error, ") for line in plan.summary_lines()
    )


# -- rejects_invalid ------------------------------------------------------------------------

PAUSE = Entry(
    EntryKind.TOOL,
    "pause",
    "pause",
    {
        "name": "pause",
        "inputSchema": {
            "type": "object",
            "properties": {"seconds": {"type": "integer", "minimum": 0, "maximum": 5}},
            "required": ["seconds"],
            "additionalProperties": False,
        },
    },
)


class Pause(FakeServer):
    """tests/servers/deep_invalid.py in memory, with the answer to each kind of invalid
    input chosen by the test."""

    def __init__(self, answer: Callable[[dict[str, Any], CallOutcome], None]) -> None:
        super().__init__((PAUSE,))
        self.answers = answer
        self.sent: list[dict[str, Any]] = []

    def answer(self, tool: str, arguments: dict[str, Any], outcome: CallOutcome) -> None:
        self.sent.append(arguments)
        self.answers(arguments, outcome)


def _refusing(arguments: dict[str, Any], outcome: CallOutcome) -> None:
    outcome.result = conforming({"content": [{"type": "text", "text": "no"}], "isError": True})


def _deep_invalid(arguments: dict[str, Any], outcome: CallOutcome) -> None:
    seconds = arguments.get("seconds")
    if set(arguments) != {"seconds"} or (type(seconds) is int and seconds < 0):
        _refusing(arguments, outcome)
    elif type(seconds) is not int:
        outcome.rpc_error = RpcError(
            -32603, "Internal error: unsupported operand type(s) for +: 'NoneType' and 'int'"
        )
    elif seconds > 5:
        outcome.failure = CallTimeout("no answer to tools/call within 1 s")
    else:
        outcome.result = _result({"paused": seconds})


def _budget(max_restarts: int) -> Any:
    from pytest_mcp_contracts.runs.engine import Budget

    return Budget(max_examples=0, max_restarts=max_restarts, shrink_time=0)


def _cases() -> list[Any]:
    from pytest_mcp_contracts.inputs.invalid import invalid_inputs

    return invalid_inputs(PAUSE.input_schema, {"seconds": 1})


def test_rejects_invalid_goes_on_after_its_first_failing_input() -> None:
    from pytest_mcp_contracts.runs.rejects_invalid import run_rejects_invalid

    server = Pause(_deep_invalid)
    cases = _cases()
    refusals = run_rejects_invalid(server, PAUSE, cases, _budget(3))  # type: ignore[arg-type]
    assert len(server.sent) == len(cases)  # every case was sent
    assert [f.kind for f in refusals.failures] == [FailureKind.RPC_ERROR, FailureKind.TIMEOUT]
    first, hang = (f.report.arguments for f in refusals.failures)
    assert not isinstance(first["seconds"], int)  # the wrongly typed value failed first
    assert hang == {"seconds": 6}
    assert refusals.failure is refusals.failures[0]
    assert refusals.stopped == ""
    assert server.restarts == 1  # started again after the hang, for the cases after it
    assert "failed (2 distinct ways)" in refusals.summary()


def test_rejects_invalid_counts_a_known_failure_and_stops_within_the_restart_budget() -> None:
    from pytest_mcp_contracts.runs.rejects_invalid import run_rejects_invalid

    def hangs(arguments: dict[str, Any], outcome: CallOutcome) -> None:
        outcome.failure = CallTimeout("no answer to tools/call within 1 s")

    server = Pause(hangs)
    refusals = run_rejects_invalid(server, PAUSE, _cases(), _budget(1))  # type: ignore[arg-type]
    assert len(server.sent) == 2  # the first hang, and one restart's worth
    assert [f.kind for f in refusals.failures] == [FailureKind.TIMEOUT]
    assert sum(refusals.failed.values()) == 2
    assert "the budget of 1 restarts per tool, --mcp-max-restarts, is spent" in refusals.stopped


def test_rejects_invalid_stops_at_the_most_distinct_failures_it_looks_for() -> None:
    from pytest_mcp_contracts.judges.failures import MAX_DISTINCT_FAILURES
    from pytest_mcp_contracts.runs.rejects_invalid import run_rejects_invalid

    ways = iter(
        [
            {
                "rpc_error": RpcError(
                    -32603,
                    "Internal error: unsupported operand type(s) for +: 'NoneType' and 'int'",
                )
            },
            {"failure": ServerDied("exited (exit status 4)")},
            {"failure": CallTimeout("no answer to tools/call within 1 s")},
        ]
    )

    def each_another_way(arguments: dict[str, Any], outcome: CallOutcome) -> None:
        for name, value in next(ways, {"rpc_error": RpcError(-32000, "other")}).items():
            setattr(outcome, name, value)

    server = Pause(each_another_way)
    refusals = run_rejects_invalid(server, PAUSE, _cases(), _budget(5))  # type: ignore[arg-type]
    assert len(refusals.failures) == MAX_DISTINCT_FAILURES == 3
    assert len(server.sent) == 3
    assert "3 distinct failures found" in refusals.stopped


def test_a_refusing_tool_still_passes() -> None:
    from pytest_mcp_contracts.runs.rejects_invalid import run_rejects_invalid

    server = Pause(_refusing)
    refusals = run_rejects_invalid(server, PAUSE, _cases(), _budget(3))  # type: ignore[arg-type]
    assert refusals.failures == [] and refusals.refused == refusals.sent == len(_cases())
