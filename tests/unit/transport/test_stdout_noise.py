"""Stdout noise on stdio: which lines are no JSON-RPC message, and whose they are (the
start-up's, a call's, or nobody's: between calls)."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_mcp_contracts.transport.managed import ManagedServer
from pytest_mcp_contracts.transport.stdio import ServerCommand, StdioConnection, StdoutNoise


def _connection() -> StdioConnection:
    return StdioConnection(ServerCommand(("unused",)), max_message_bytes=1 << 20)


@pytest.mark.parametrize(
    "line",
    [
        b"Starting server v1.0\n",
        b"\n",  # both SDK clients hand an empty line to their JSON parser, which refuses it
        b"  \t\r\n",
        b"42\n",
        b"[1, 2]\n",
        b'{"status": 200, "message": "Success"}\n',  # JSON, but no JSON-RPC member
        b"\xff\xfe not utf-8\n",
    ],
)
def test_a_line_that_is_no_json_rpc_message_is_noise(line: bytes) -> None:
    conn = _connection()
    conn._handle_line(line)
    assert (conn.noise_count, conn.garbage_count) == (1, 1)
    assert conn.noise_lines(0, 1) == [line.decode("utf-8", "replace").rstrip("\r\n")]


@pytest.mark.parametrize(
    "line",
    [
        b'{"jsonrpc": "2.0", "method": "notifications/message", "params": {}}\n',
        # Messages, if wrong ones: their faults keep their protocol-violation verdicts.
        b'{"jsonrpc": "2.0", "id": 99, "result": {}}\n',
        b'{"id": 99}\n',
    ],
)
def test_a_json_rpc_message_is_not_noise(line: bytes) -> None:
    conn = _connection()
    conn._handle_line(line)
    assert conn.noise_count == 0


def test_the_first_and_the_last_noise_lines_are_kept_with_their_numbers() -> None:
    conn = _connection()
    for number in range(1, 13):
        conn._handle_line(f"line {number}\n".encode())
    assert conn.noise_lines(0, 12) == [f"line {n}" for n in (1, 2, 3, 4, 5, 8, 9, 10, 11, 12)]
    assert conn.noise_lines(0, 2) == ["line 1", "line 2"]
    assert conn.noise_lines(10, 12) == ["line 11", "line 12"]


# A handshake-era server: a banner at start, then per tool: "quiet" answers, "loud" prints two
# lines and answers, "after" answers and then prints a line, "chatter" prints an unknown id's
# response (a message, not noise) and answers.
SERVER = """
import json, sys
def send(obj):
    sys.stdout.write(json.dumps(obj) + "\\n"); sys.stdout.flush()
def say(text):
    sys.stdout.write(text + "\\n"); sys.stdout.flush()
say("[dotenv@17.2.3] injecting env (0) from .env")
say("")
TOOL = {"name": "t", "inputSchema": {"type": "object"}}
RESULT = {"content": [{"type": "text", "text": "ok"}]}
for line in sys.stdin:
    msg = json.loads(line)
    if "id" not in msg:
        continue
    method = msg["method"]
    if method == "server/discover":
        send({"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32601, "message": "no"}})
    elif method == "initialize":
        result = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                  "serverInfo": {"name": "s"}}
        send({"jsonrpc": "2.0", "id": msg["id"], "result": result})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": msg["id"], "result": {"tools": [TOOL]}})
    else:
        name = msg["params"]["name"]
        if name == "loud":
            say("DEBUG handling"); say("DEBUG done")
        if name == "chatter":
            send({"jsonrpc": "2.0", "id": 999999, "result": {}})
        send({"jsonrpc": "2.0", "id": msg["id"], "result": RESULT})
        if name == "after":
            say("INFO answered")
"""


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ManagedServer]:
    script = tmp_path / "noisy.py"
    script.write_text(textwrap.dedent(SERVER))
    managed = ManagedServer(
        ServerCommand((sys.executable, str(script))),
        startup_timeout=10,
        call_timeout=10,
        max_message_bytes=1 << 20,
    )
    managed.start()
    yield managed
    managed.close()


def test_noise_is_the_start_ups_a_calls_or_nobodys(server: ManagedServer) -> None:
    assert server.startup_stdout == (2, ["[dotenv@17.2.3] injecting env (0) from .env", ""])
    assert server.call("quiet", {}).failure is None
    loud = server.call("loud", {})
    assert isinstance(loud.failure, StdoutNoise)
    assert (loud.failure.count, loud.failure.lines) == (2, ["DEBUG handling", "DEBUG done"])
    assert loud.result is None  # the verdict is the noise, not the answer beside it
    # Written after its answer: the next answer follows it on stdout, so it is the next
    # call's, however soon the reader thread got to it.
    assert server.call("after", {}).failure is None
    late = server.call("quiet", {}).failure
    assert isinstance(late, StdoutNoise)
    assert (late.count, late.lines) == (1, ["INFO answered"])
    assert late.before_call in (0, 1)  # read before the call was sent, or not yet
    # A response to an id we never used is a message: still a protocol violation.
    chatter = server.call("chatter", {}).failure
    assert chatter is not None and not isinstance(chatter, StdoutNoise)
    assert "unknown request id 999999" in chatter.message
    assert server.call("after", {}).failure is None
    assert server.between_calls_stdout == (0, [])
    # What no answer follows is counted between calls: here, the last "after" call's line.
    server.close()
    assert server.between_calls_stdout == (1, ["INFO answered"])


def test_a_restarted_servers_banner_is_no_calls(server: ManagedServer) -> None:
    server.close()
    server.connection()  # restarted: its banner comes before the handshake's answer
    assert server.call("quiet", {}).failure is None
    assert server.between_calls_stdout == (2, ["[dotenv@17.2.3] injecting env (0) from .env", ""])
