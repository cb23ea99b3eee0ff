"""Shrinking a failing sequence, against an in-memory notes store (no subprocess).

The store makes ids from a counter, so a fresh store names its notes differently from the
run that found the bug: the replays must follow each id to the call that made it.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from pytest_mcp_contracts.runs.engine import Budget
from pytest_mcp_contracts.runs.sequences.calls import SequenceFound, Sequencer, generate_sequences
from pytest_mcp_contracts.runs.sequences.feeding import Pool, Slot
from pytest_mcp_contracts.runs.sequences.shrink import shrink
from pytest_mcp_contracts.transport.discover import Entry
from pytest_mcp_contracts.transport.errors import RpcError
from pytest_mcp_contracts.transport.managed import CallOutcome
from pytest_mcp_contracts.vocabulary import EntryKind
from tests.conforming import conforming

ID = {"type": "object", "properties": {"note_id": {"type": "string"}}, "required": ["note_id"]}
TOOLS = [
    Entry(
        EntryKind.TOOL,
        "create_note",
        "create_note",
        {
            "name": "create_note",
            "inputSchema": {"type": "object", "properties": {"title": {"type": "string"}}},
        },
    ),
    Entry(EntryKind.TOOL, "update_note", "update_note", {"name": "update_note", "inputSchema": ID}),
    Entry(
        EntryKind.TOOL,
        "read_note",
        "read_note",
        {"name": "read_note", "inputSchema": ID, "annotations": {"readOnlyHint": True}},
    ),
    Entry(
        EntryKind.TOOL,
        "list_notes",
        "list_notes",
        {
            "name": "list_notes",
            "inputSchema": {"type": "object", "properties": {}},
            "annotations": {"readOnlyHint": True},
        },
    ),
]


def _text(value: Any, *, error: bool = False) -> dict[str, Any]:
    result: dict[str, Any] = {
        "content": [
            {"type": "text", "text": json.dumps(value) if not isinstance(value, str) else value}
        ]
    }
    if error:
        result["isError"] = True
    else:
        result["structuredContent"] = value
    return conforming(result)


class FakeStore:
    """The notes store's bug: a read of an updated note fails with JSON-RPC -32603 (an
    internal error whatever the judge's reading of error texts: what is tested here is the
    sequences' mechanics)."""

    protocol_version = "2026-07-28"

    def __init__(self) -> None:
        self.restarts = 0
        self.fresh()

    def fresh(self) -> None:
        self.notes: dict[str, dict[str, Any]] = {}
        self.counter = 0
        self.restarts += 1

    def call(self, tool: str, arguments: dict[str, Any]) -> CallOutcome:
        request = {
            "jsonrpc": "2.0",
            "method": "tools/call",
            "params": {"name": tool, "arguments": arguments},
        }
        outcome = CallOutcome(arguments, request)
        note = self.notes.get(str(arguments.get("note_id")))
        if tool == "create_note":
            self.counter += 1
            note_id = f"n-{self.counter * 7919 % 1000:03d}"
            self.notes[note_id] = {"updated": False}
            outcome.result = _text({"note_id": note_id})
        elif tool == "list_notes":
            outcome.result = _text({"notes": [{"note_id": k} for k in self.notes]})
        elif note is None:
            outcome.result = _text("note not found", error=True)
        elif tool == "update_note":
            note["updated"] = True
            outcome.result = _text({"ok": True})
        elif note["updated"]:
            outcome.rpc_error = RpcError(
                -32603, f"Internal error: 'NoneType' object has no attribute 'words' ({tool})"
            )
        else:
            outcome.result = _text({"note_id": arguments["note_id"]})
        return outcome


def _sequencer(store: FakeStore) -> Sequencer:
    return Sequencer(store, {t.name: t for t in TOOLS}, {})  # type: ignore[arg-type]


def _strategies() -> dict[str, Any]:
    from pytest_mcp_contracts.inputs.generate import input_strategy

    return {tool.name: input_strategy(tool.input_schema) for tool in TOOLS}


def test_generation_finds_the_bug_and_shrinking_leaves_create_update_read() -> None:
    store = FakeStore()
    sequencer = _sequencer(store)
    found = generate_sequences(
        sequencer,
        _strategies(),
        Budget(max_examples=25, max_restarts=None, shrink_time=30.0, seed=4),
        max_steps=20,
    )
    assert found is not None
    shrunk = shrink(sequencer, found, store.fresh, lambda _name: None, budget=30)
    assert [s.tool for s in shrunk.steps] == ["create_note", "update_note", "read_note"]
    assert shrunk.from_fresh and shrunk.notes == []
    first_id = "n-919"  # what a fresh store names its first note
    assert [s.arguments.get("note_id") for s in shrunk.steps] == [None, first_id, first_id]
    assert "JSON-RPC error -32603: Internal error: 'NoneType'" in shrunk.steps[-1].summary


def test_the_same_seed_makes_the_same_run() -> None:
    runs = []
    for _ in range(2):
        store = FakeStore()
        sequencer = _sequencer(store)
        found = generate_sequences(
            sequencer,
            _strategies(),
            Budget(max_examples=25, max_restarts=None, shrink_time=30.0, seed=7),
            max_steps=20,
        )
        runs.append((found is not None, [(p.tool, p.arguments) for p, _ in sequencer.history]))
    assert runs[0] == runs[1]


def test_a_failure_that_needs_earlier_sequences_gets_their_calls_in_front() -> None:
    store = FakeStore()
    sequencer = _sequencer(store)
    newest = lambda _slot: 0  # noqa: E731
    first, second = Pool(), Pool()
    for _ in range(3):  # sequence 1: three notes, the second one updated
        sequencer.generated_step(first, "create_note", {"title": ""}, lambda _slot: None)
    sequencer.generated_step(first, "list_notes", {}, newest)
    sequencer.generated_step(first, "update_note", {"note_id": "x"}, lambda _slot: 1)
    start = len(sequencer.history)
    # sequence 2: the listing shows the updated note, and reading it crashes
    list_step, _ = sequencer.generated_step(second, "list_notes", {}, newest)
    read_step, finding = sequencer.generated_step(
        second, "read_note", {"note_id": "x"}, lambda _slot: 1
    )
    assert finding is not None
    found = SequenceFound(start, [list_step, read_step], finding)
    shrunk = shrink(sequencer, found, store.fresh, lambda _name: None, budget=30)
    # the second note of the run is the first of a fresh store that made only it
    assert [(s.tool, s.arguments.get("note_id")) for s in shrunk.steps] == [
        ("create_note", None),
        ("update_note", "n-919"),
        ("read_note", "n-919"),
    ]
    assert shrunk.from_fresh


def test_feeding_is_asked_for_every_slot_even_with_an_empty_pool() -> None:
    store = FakeStore()
    sequencer = _sequencer(store)
    asked: list[Slot] = []
    sequencer.generated_step(Pool(), "read_note", {"note_id": "x"}, lambda slot: asked.append(slot))  # type: ignore[func-returns-value]
    assert [slot.name for slot in asked] == ["note_id"]


class FakeStoreServer(FakeStore):
    """The notes store as runs/sequences/check sees a server: with its listing and command."""

    def __init__(self) -> None:
        from pytest_mcp_contracts.transport.discover import ServerSurface
        from pytest_mcp_contracts.transport.stdio import ServerCommand

        super().__init__()
        self.surface = ServerSurface("notes", "notes", "1.0", self.protocol_version, tuple(TOOLS))
        self.command = ServerCommand(("python", "-m", "notes"))
        self.disguised: list[str] = []

    def stderr_tail(self) -> str:
        return ""

    def count_disguised(self, tool: str, kind: str) -> None:
        self.disguised.append(tool)

    def uncounted(self) -> Any:
        import contextlib

        return contextlib.nullcontext()


def test_check_sequences_raises_a_typed_failure_of_the_shortest_sequence() -> None:
    from pytest_mcp_contracts.judges.failures import ContractFailure, FailureKind, Severity
    from pytest_mcp_contracts.runs.sequences.check import check_sequences, plan_sequences
    from pytest_mcp_contracts.runs.stats import CheckStats

    server: Any = FakeStoreServer()
    plan = plan_sequences(server, lambda _tool: None, lambda _tool: frozenset(), None, CheckStats())
    assert not isinstance(plan, str)
    with pytest.raises(ContractFailure) as caught:
        check_sequences(
            plan,
            server.fresh,
            lambda _s: None,
            Budget(max_examples=50, max_restarts=None, shrink_time=30.0, tool_time=None, seed=4),
            resets=False,
        )
    error = caught.value
    assert (error.kind, error.severity) == (FailureKind.RPC_ERROR, Severity.HIGH)
    report = error.report
    assert report.check == "sequences" and report.tool == "read_note"
    assert report.problem.endswith("(call 3 of a sequence)")
    assert report.notes[-1].startswith("(a restart did not reset this server's state")
    assert plan.stats.calls > 3 and plan.summary_lines()[0].startswith(
        f"{plan.stats.sequences} sequences"
    )


def test_plan_sequences_says_why_no_tool_can_be_called() -> None:
    from pytest_mcp_contracts.runs.sequences.check import plan_sequences
    from pytest_mcp_contracts.runs.stats import CheckStats

    plan = plan_sequences(
        FakeStoreServer(),  # type: ignore[arg-type]
        lambda _tool: "read-only policy",
        lambda _t: frozenset(),
        None,
        CheckStats(),
    )
    assert isinstance(plan, str)
    assert plan.startswith("no tool can be called (create_note: read-only policy; ")
