"""runs/contract.py: which tools get calls in flight, and what a run stopped by its time
budget says."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_mcp_contracts.runs.contract import in_flight_width
from pytest_mcp_contracts.runs.engine import budget_words
from pytest_mcp_contracts.transport.discover import Entry
from pytest_mcp_contracts.transport.managed import ManagedServer
from pytest_mcp_contracts.transport.stdio import ServerCommand
from pytest_mcp_contracts.vocabulary import EntryKind

TAKES_A_WORD = {"type": "object", "properties": {"word": {"type": "string"}}}


class _Connection:
    def __init__(self, stateless: bool) -> None:
        self.stateless = stateless


def _server(*, stateless: bool = False, banner: int = 0) -> ManagedServer:
    server = ManagedServer(
        ServerCommand.parse("server"), startup_timeout=1, call_timeout=1, max_message_bytes=1
    )
    server._conn = _Connection(stateless)  # type: ignore[assignment]
    server.startup_stdout = (banner, ["banner"] * banner)
    return server


def _tool(annotations: dict[str, Any] | None, schema: dict[str, Any] = TAKES_A_WORD) -> Entry:
    raw: dict[str, Any] = {"name": "t", "inputSchema": schema}
    if annotations is not None:
        raw["annotations"] = annotations
    return Entry(EntryKind.TOOL, "t", "t", raw)


@pytest.mark.parametrize(
    ("annotations", "stateless", "width"),
    [
        ({"readOnlyHint": True}, False, 4),
        # readOnlyHint wins: the spec ignores the other hints of a read-only tool.
        ({"readOnlyHint": True, "idempotentHint": False, "destructiveHint": True}, False, 4),
        ({"readOnlyHint": False, "idempotentHint": True}, False, 4),
        ({"idempotentHint": True, "destructiveHint": True}, False, 4),
        ({"readOnlyHint": False}, False, 1),
        ({"readOnlyHint": "true"}, False, 1),  # a hint is true or it is not given
        (None, False, 1),
        # A server that keeps no session answers every request on its own.
        (None, True, 4),
        ({"readOnlyHint": False, "destructiveHint": True}, True, 4),
    ],
)
def test_which_tools_get_calls_in_flight(
    annotations: dict[str, Any] | None, stateless: bool, width: int
) -> None:
    assert in_flight_width(_server(stateless=stateless), _tool(annotations), 4) == width


def test_one_in_flight_is_one_at_a_time_whatever_the_hints() -> None:
    assert in_flight_width(_server(), _tool({"readOnlyHint": True}), 1) == 1


def test_no_calls_in_flight_without_arguments_or_after_a_banner_on_stdout() -> None:
    read_only = {"readOnlyHint": True}
    assert in_flight_width(_server(), _tool(read_only, {"type": "object"}), 4) == 1
    assert in_flight_width(_server(banner=2), _tool(read_only), 4) == 1


def test_a_run_out_of_time_says_how_far_it_got_and_that_it_is_no_failure() -> None:
    words = budget_words(60, 6, 50)
    assert "time budget of 60 s (--mcp-tool-time) ran out after 6 of up to 50 inputs" in words
    assert "Not a failure" in words and "tool_time" in words
    assert "after 2 of up to 9 invalid inputs" in budget_words(1.5, 2, 9, "invalid inputs")


def test_no_calls_in_flight_for_an_in_process_app(tmp_path: Any) -> None:
    from pytest_mcp_contracts.transport.inprocess import ServerApp

    server = _server()
    server.command = ServerApp.parse("server.py:app", tmp_path)
    assert in_flight_width(server, _tool({"readOnlyHint": True}), 4) == 1
