"""transport/managed.py: which restarts ``ManagedServer.restarts`` counts. A restart that a
death or a hang caused is the server's failure, and a check spends its restart budget on it;
one the run decides on (a fresh start, a revive, a replay's) is not counted at all."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_mcp_contracts.transport.errors import CallTimeout, ServerDied, ServerStartError
from pytest_mcp_contracts.transport.managed import ManagedServer
from pytest_mcp_contracts.transport.stdio import ServerCommand

# A handshake-era server: "ok" answers, "die" ends the process, "hang" never answers. It
# refuses to start while the file named by its first argument exists.
SERVER = """
import json, os, sys, time
if os.path.exists(sys.argv[1]):
    sys.exit("told not to start")
def send(obj):
    sys.stdout.write(json.dumps(obj) + "\\n"); sys.stdout.flush()
TOOLS = [{"name": n, "inputSchema": {"type": "object"}} for n in ("ok", "die", "hang")]
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
        send({"jsonrpc": "2.0", "id": msg["id"], "result": {"tools": TOOLS}})
    else:
        name = msg["params"]["name"]
        if name == "die":
            os._exit(3)
        if name == "hang":
            time.sleep(60)
        send({"jsonrpc": "2.0", "id": msg["id"],
              "result": {"content": [{"type": "text", "text": "ok"}]}})
"""


@pytest.fixture
def refuse(tmp_path: Path) -> Path:
    return tmp_path / "refuse-to-start"


def _server(tmp_path: Path, refuse: Path, ask: str | None = None) -> ManagedServer:
    script = tmp_path / "server.py"
    script.write_text(textwrap.dedent(SERVER))
    return ManagedServer(
        ServerCommand((sys.executable, str(script), str(refuse))),
        startup_timeout=10,
        call_timeout=1,
        max_message_bytes=1 << 20,
        state_tools=None if ask is None else lambda s: [t for t in s.tools if t.name == ask],
    )


@pytest.fixture
def server(tmp_path: Path, refuse: Path) -> Iterator[ManagedServer]:
    managed = _server(tmp_path, refuse)
    managed.start()
    yield managed
    managed.close()


def test_a_death_is_a_restart(server: ManagedServer) -> None:
    assert isinstance(server.call("die", {}).failure, ServerDied)
    assert server.call("ok", {}).failure is None
    assert server.restarts == 1


def test_a_hang_is_a_restart(server: ManagedServer) -> None:
    assert isinstance(server.call("hang", {}).failure, CallTimeout)
    assert server.call("ok", {}).failure is None
    assert server.restarts == 1


def test_a_fresh_start_is_not(server: ManagedServer) -> None:
    first = server.live_connection()
    server.call("ok", {})
    server.start_fresh()
    assert server.live_connection() not in (None, first)
    assert server.untouched  # a new process: no earlier call stands for its state
    assert server.restarts == 0


def test_a_fresh_start_that_fails_leaves_the_next_calls_restart_counted(
    server: ManagedServer, refuse: Path
) -> None:
    refuse.touch()
    with pytest.raises(ServerStartError):
        server.start_fresh()
    assert server.restarts == 0
    refuse.unlink()
    assert server.call("ok", {}).failure is None  # the server failed to start: its restart
    assert server.restarts == 1


def test_a_revive_is_not_and_keeps_the_recent_calls(server: ManagedServer) -> None:
    server.call("ok", {})
    server.call("die", {})
    server.revive()
    assert server.live_connection() is not None
    assert [c.tool for c in server.recent_calls] == ["ok", "die"]
    assert server.restarts == 0


def test_restarts_while_a_failure_is_replayed_are_not(server: ManagedServer) -> None:
    with server.uncounted():
        server.start_fresh()
        server.call("die", {})
        assert server.call("ok", {}).failure is None  # restarted after the death
        with server.uncounted():
            server.call("die", {})
        assert server.live_connection() is not None  # brought back as the replay ended
        server.call("hang", {})
    assert server.live_connection() is not None
    assert server.restarts == 0
    # Counted again once the replays are over.
    server.call("die", {})
    server.call("ok", {})
    assert server.restarts == 1


@pytest.mark.parametrize("ask", ["hang", "die"])
def test_the_state_probe_that_breaks_the_server_restarts_it_uncounted(
    tmp_path: Path, refuse: Path, ask: str
) -> None:
    server = _server(tmp_path, refuse, ask)
    server.start()
    try:
        assert server.call("ok", {}).failure is None  # asked first: broke it, started again
        assert server.freshness.watch is not None
        assert server.freshness.watch.answers_at_start == {}
        assert server.restarts == 0
        assert [c.tool for c in server.recent_calls] == ["ok"]  # asking is no call
    finally:
        server.close()
