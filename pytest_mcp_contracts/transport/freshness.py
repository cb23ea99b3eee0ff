"""Whether a restarted server is fresh: what a started process could leave for the next one.

Two kinds of evidence, both taken at the server's first start: the files it may keep
(``transport/state.StateWatch``), and what its read-only tools without arguments answer
while it is as it started. A replay asks again before it claims "a freshly started server"
(``runs/reproduce``). Asking is no call of any check: it is not counted, not among the
recent calls, and a server the asking broke is started again as if nothing had been asked.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, Protocol

from pytest_mcp_contracts.transport.client import CallTranscript
from pytest_mcp_contracts.transport.discover import Entry, ServerSurface
from pytest_mcp_contracts.transport.errors import RpcError, ServerError
from pytest_mcp_contracts.transport.http import ServerUrl
from pytest_mcp_contracts.transport.inprocess import ServerApp
from pytest_mcp_contracts.transport.jsonrpc import RpcConnection
from pytest_mcp_contracts.transport.state import Carried, StateWatch
from pytest_mcp_contracts.transport.stdio import ServerCommand

# Read-only tools without arguments asked what they answer before the first call of a run
# (each twice: an answer that changes by itself says nothing about state), and again after a
# restart a replay makes: at most this many, each within this many seconds.
STATE_TOOLS: Final = 3
STATE_TOOL_TIMEOUT: Final = 5.0


class AskedServer(Protocol):
    """What asking needs of the server kept alive (``transport/managed.ManagedServer``)."""

    @property
    def surface(self) -> ServerSurface | None: ...

    @property
    def call_timeout(self) -> float: ...

    def live_connection(self) -> RpcConnection | None: ...

    def forget_stdout_noise(self, conn: RpcConnection) -> None: ...

    def restart_as_unasked(self) -> None: ...


@dataclass
class Freshness:
    """The evidence of one server's state since its first start. ``tools`` picks which
    tools may be asked (read-only, taking no arguments, allowed by the call policy and the
    tool tables: pytest/session hands it in); None asks none."""

    tools: Callable[[ServerSurface], list[Entry]] | None = None
    # The files a started process could leave for the next one, as they were at the first
    # start: "fresh" is checked, not assumed. None for a target that is no process we start.
    watch: StateWatch | None = None
    _first_conn: RpcConnection | None = None

    def first_started(
        self, conn: RpcConnection, started: ServerCommand | ServerUrl | ServerApp
    ) -> None:
        """Watch a started process's files from its first start (after the handshake: what
        the server writes as it starts, an empty state file, it writes again at every start,
        and is no state a restart carries over)."""
        if isinstance(started, ServerCommand) and self.watch is None:
            self.watch = StateWatch.take(started)
            self._first_conn = conn

    def ask_at_start(self, server: AskedServer, untouched: RpcConnection | None) -> None:
        """Before the first request of a run, while the server is as it started
        (``untouched``: the live connection when nothing but its handshake and listings was
        sent on it): what its tools answer (``StateWatch.answers_at_start``), the same twice."""
        watch = self.watch
        if watch is None or watch.answers_at_start is not None:
            return
        watch.answers_at_start = {}
        if untouched is None or untouched is not self._first_conn:
            return  # something was sent already (calls in flight): too late to ask
        if self.tools is None or server.surface is None:
            return
        tools = self.tools(server.surface)[:STATE_TOOLS]
        first = answers(server, tools)
        second = answers(server, [t for t in tools if t.name in first])
        watch.answers_at_start = {n: a for n, a in first.items() if second.get(n) == a}

    def carried(self, server: AskedServer) -> Carried | None:
        """What of the state watched since the first start changed since: what a restarted
        process may read back. None when nothing did, or for a target that is no process
        the plugin started."""
        if self.watch is None:
            return None
        asked = self.watch.answers_at_start
        now = None
        if asked and server.surface is not None:
            now = answers(server, [t for t in server.surface.tools if t.name in asked])
        return self.watch.carried(now)


def answers(server: AskedServer, tools: list[Entry]) -> dict[str, str]:
    """What ``tools`` answer now to a call without arguments, by name, on the live
    connection (each answer as sorted JSON; a tool that does not answer is left out). A
    server the asking broke is started again, as if nothing had been asked."""
    conn = server.live_connection()
    found: dict[str, str] = {}
    if conn is None:
        return found
    noise, broke = conn.noise_count, False
    timeout = min(server.call_timeout, STATE_TOOL_TIMEOUT)
    for tool in tools:
        name = server.surface.name if server.surface else ""
        transcript = CallTranscript(server=name, tool=tool.name)
        try:
            result = conn.call_tool(
                {"name": tool.name, "arguments": {}},
                transcript,
                timeout=timeout,
                max_total=timeout,
            )
        except ServerError:
            broke = True  # a hang or a death: the tool's own items will meet it
            break
        except RpcError:
            continue
        answer = {k: v for k, v in result.items() if k != "_meta"}
        found[tool.name] = json.dumps(answer, sort_keys=True, default=str)
    if broke or not conn.alive:
        server.restart_as_unasked()
        return {}
    if conn.noise_count > noise:  # its stdout lines belong to no check's call
        server.forget_stdout_noise(conn)
    return found
