"""The transports on which the server writes whole JSON-RPC messages, one at a time, that
answer our requests by id (stdio, and in-process memory streams): ids, the wait for an
answer within its time, telling messages from noise, and the server's stderr as a log."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Final

from pytest_mcp_contracts.transport.client import CallClock, Client
from pytest_mcp_contracts.transport.decode import UnreadableMessage, decode
from pytest_mcp_contracts.transport.errors import (
    CallTimeout,
    ProtocolViolation,
    ServerDied,
    ServerError,
)
from pytest_mcp_contracts.transport.jsonrpc import RpcConnection, short
from pytest_mcp_contracts.transport.stderr import ServerLog

# Seconds of silence on the probe after which a message-stream server is sent a ping (see
# MessageConnection._probe).
PROBE_NUDGE: Final = 1.0
# An object with none of these members is no JSON-RPC message at all (a log line a server
# printed as JSON: noise); one with any of them is a message, right or wrong, whose faults
# the protocol checks name as before.
JSONRPC_MEMBERS: Final = frozenset({"jsonrpc", "id", "method", "result", "error"})


class _AwaitedAnswer:
    __slots__ = ("event", "response")

    def __init__(self) -> None:
        self.event = threading.Event()
        self.response: dict[str, Any] | None = None


class MessageConnection(RpcConnection):
    """A transport on which the server writes whole JSON-RPC messages, one at a time, that
    answer our requests by id: stdio, and in-process memory streams. A transport supplies
    ``start``, ``alive``, ``kill``, ``close``, ``stderr_tail`` and ``_write``, and hands
    what the server wrote to ``_handle_line`` as the bytes of one message."""

    def __init__(
        self, command: Any, *, max_message_bytes: int, client: Client | None = None
    ) -> None:
        super().__init__(command, max_message_bytes=max_message_bytes, client=client)
        self.log = ServerLog()
        self._pending: dict[int, _AwaitedAnswer] = {}
        self._abandoned: set[int] = set()  # timed out: a late answer is not garbage
        self._lock = threading.Lock()
        self._write_lock = threading.Lock()
        self._next_id = 0
        self._closed = threading.Event()

    def _write(self, message: Mapping[str, Any]) -> None:
        raise NotImplementedError

    def _probe(self, timeout: float) -> dict[str, Any] | object | None:
        # FastMCP on an old `mcp` 1.x neither answers nor refuses server/discover: it waits,
        # and dies on the next message it reads. A ping, the one request the spec allows
        # before initialize, is that next message: such a server dies within a second and is
        # started again for the handshake, instead of after the whole probe time. Any other
        # server answers the ping (or refuses it) and the answer is dropped.
        nudge = threading.Timer(PROBE_NUDGE, self._nudge)
        nudge.daemon = True
        nudge.start()
        try:
            return super()._probe(timeout)
        finally:
            nudge.cancel()

    def _nudge(self) -> None:
        with self._lock:
            if not self._pending:
                return  # the probe was answered meanwhile
            self._next_id += 1
            ping = self._next_id
            self._abandoned.add(ping)
        # A bare ping, outside any era's envelope: a dual-era SDK takes the era from the first
        # request it reads, and when something in front of it refused the probe, that is the
        # ping; one in the 2026-07-28 envelope opened a modern connection that then refused
        # the initialize handshake (tests/servers/slow_handshake_era.py).
        with contextlib.suppress(ServerError):
            self._write({"jsonrpc": "2.0", "id": ping, "method": "ping"})

    has_stderr: ClassVar[bool] = True

    def stderr_tail(self) -> str:
        self._sync_log()
        return self.log.tail()

    def stderr_mark(self) -> int:
        self._sync_log()
        return self.log.mark()

    def stderr_since(self, mark: int) -> str:
        self._sync_log()
        return self.log.since(mark)

    def stderr_before(
        self, mark: int, lines: int = 5, hidden: Sequence[tuple[int, int]] = ()
    ) -> str:
        return self.log.before(mark, lines, hidden)

    def carry_stderr(self, text: str) -> None:
        self.log.carry(text)

    def _sync_log(self) -> None:
        """Take in what the server has written so far (a transport whose output arrives on
        another channel than its answers makes sure none of it is still in flight)."""

    def _exit_note(self) -> str:
        """How the server ended, for messages about it (" (exit status 3)")."""
        return ""

    def _died(self, what: str) -> ServerDied:
        """The error for a server found gone: ``what`` happened, and how it ended."""
        return ServerDied(f"{what}{self._exit_note()}", stderr_tail=self.stderr_tail())

    def _await_exit(self) -> None:
        """Give a server that just went away a moment to finish, so _exit_note can say how."""

    def _unreadable(self, what: str) -> None:
        self._note_garbage(f"<{what}>")
        # Whatever request it answered gets the reason: it cannot be matched by id.
        with self._lock:
            pending = list(self._pending.values())
        for slot in pending:
            slot.response = {"__unreadable__": what}
            slot.event.set()

    def _handle_line(self, line: bytes) -> None:
        # Whatever a hostile server sends, the reader thread must live on: a message we
        # cannot handle is recorded as garbage, and the call it was meant for times out.
        try:
            self._dispatch(line)
        except Exception as exc:
            self._note_garbage(f"<a message that could not be handled ({exc!r})>")

    def _dispatch(self, line: bytes) -> None:
        # A blank line is noise too: both SDK clients hand every line to their JSON parser
        # (the TypeScript SDK's ReadBuffer to JSON.parse, the Python SDK's stdio client to
        # pydantic's validate_json), and an empty one fails it like any other.
        try:
            message = decode(line) if not line.isspace() else None
        except UnreadableMessage as exc:
            self._unreadable(str(exc))
            return
        except ValueError:  # includes UnicodeDecodeError
            message = None
        if not isinstance(message, dict) or not JSONRPC_MEMBERS & message.keys():
            self._note_noise(line)
            return
        if self._route(message) is None:
            return
        msg_id = message.get("id")
        # Only ints are our ids; a list or object id must not reach a dict or set lookup.
        ours = msg_id if isinstance(msg_id, int) and not isinstance(msg_id, bool) else None
        with self._lock:
            slot = self._pending.get(ours) if ours is not None else None
        if slot is None and ours in self._abandoned:
            return
        if slot is None:
            self._note_garbage(f"a response to an unknown request id {short(msg_id, 60)}")
            return
        slot.response = message
        self.noise_answered = self.noise_count
        slot.event.set()

    def _send_reply(self, reply: Mapping[str, Any]) -> None:
        self._write(reply)

    def _fail_pending(self) -> None:
        with self._lock:
            pending = list(self._pending.values())
        for slot in pending:
            slot.event.set()

    def notify(self, method: str, params: Mapping[str, Any] | None = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = dict(params)
        self._write(message)

    def _request(
        self,
        method: str,
        params: dict[str, Any],
        *,
        timeout: float,
        clock: CallClock | None = None,
    ) -> dict[str, Any]:
        clock = clock or CallClock(timeout)
        if self._closed.is_set():
            raise self._died("the server has exited")
        with self._lock:
            self._next_id += 1
            msg_id = self._next_id
            slot = self._pending[msg_id] = _AwaitedAnswer()
        try:
            self._write({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
            while not slot.event.wait(clock.remaining()):
                late = clock.expired(method)
                if late is not None:
                    self._abandoned.add(msg_id)
                    raise CallTimeout(late, stderr_tail=self.stderr_tail())
        finally:
            with self._lock:
                self._pending.pop(msg_id, None)
        response = slot.response
        if response is None:
            self._await_exit()
            raise self._died(f"the server exited while answering {method}")
        if "__unreadable__" in response:
            raise ProtocolViolation(
                f"the answer to {method} could not be read: it was "
                f"{response['__unreadable__']}; raise --mcp-max-result-bytes if a large answer "
                "is expected",
                stderr_tail=self.stderr_tail(),
            )
        return self._result_of(response, method)
