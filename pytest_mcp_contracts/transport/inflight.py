"""Calls in flight: inputs of one tool known up front, sent several at a time, and handed
back in the order they were drawn.

The contract check's explicit inputs (examples, then the coverage phase) are known before
the first call; a tool that says its calls are independent (``readOnlyHint`` or
``idempotentHint``, or any tool of a server over Streamable HTTP that keeps no session) gets
the next few of them sent while the check judges the current one. The check still judges
every answer in input order, as if each had been sent alone; a ``CallWindow`` only makes
sure that the answer is already there when it is asked for, and says what it could not
tell apart. The checks decide which answers stand (runs/contract._answer_sent_ahead).

What a window cannot tell apart, it does not guess at:

* A line on stderr while calls are in flight may be any of theirs (another call's traceback
  is no evidence about this one): an answer that came after it is not ``silent``. The
  caller sends that input again alone; the window waits for its calls in flight first, and
  the lines they wrote are left out of the context later calls show
  (``ManagedServer.unsee_stderr``). Then it goes on.
* Anything else the server sends that no single call can be blamed for (noise on stdout, a
  message for nobody, a request of its own: an elicitation answered now changes the answer
  to the next one), or a call that died, timed out or broke the protocol (with several in
  flight, any of them may have killed the server): every answer from then on is not
  ``quiet``, and the window stops for good. The calls still in flight are waited for (each
  within its own timeout, and none past the deadline of a time budget), a server they broke
  is started again without spending the check's restart budget (``ManagedServer.revive``),
  what they wrote on stdout and stderr is left out of later calls' evidence, and what they
  were asked to elicit is forgotten (``Client.rewind``).

Either way the check goes on exactly as one call at a time would have: a call sent again
alone that writes the same noise, or the same traceback, shows it as its own.
"""

from __future__ import annotations

import concurrent.futures
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from pytest_mcp_contracts.transport.errors import ServerDied

if TYPE_CHECKING:
    from pytest_mcp_contracts.transport.jsonrpc import RpcConnection
    from pytest_mcp_contracts.transport.managed import CallOutcome, ManagedServer

_ELICIT: Final = "elicitation/create"


@dataclass(frozen=True)
class Flown:
    """One input's call, sent with others in flight."""

    index: int
    outcome: CallOutcome
    # The call was answered, and nothing the server sent from when the calls in flight were
    # sent up to this answer belongs to no call: no noise, no stray message, no request.
    quiet: bool
    # Nor did the server write a line on stderr meanwhile: the call's stderr is empty, and
    # no other call's line stands where one alone would show it.
    silent: bool
    # The stderr mark when it and the calls in flight with it were sent (which sends).
    since: int = 0


class CallWindow:
    """``inputs`` of ``tool`` sent ahead, at most ``width`` of them not yet taken, none after
    ``deadline`` (time.monotonic(); a time budget) and none running past it. ``take`` hands
    each back in order."""

    def __init__(
        self,
        server: ManagedServer,
        tool: str,
        inputs: Sequence[dict[str, Any]],
        width: int,
        deadline: float | None = None,
    ) -> None:
        self._server = server
        self._tool = tool
        self._inputs = list(inputs)
        self._width = width
        self._deadline = deadline
        self._taken = 0  # inputs handed back
        self._sent = 0  # inputs submitted
        self._pending: dict[int, concurrent.futures.Future[Flown]] = {}
        self._pool: concurrent.futures.ThreadPoolExecutor | None = None
        self._conn: RpcConnection | None = None
        # When the calls in flight were sent: the connection's count of unattributed
        # messages, and its stderr mark.
        self._reference = (0, 0)
        # Nothing of the window's is in flight, and the caller may be making its own calls:
        # what happens to the server now is theirs, not the window's.
        self._quiesced = True
        self.stopped = False
        # The sends (their stderr marks) that a line on stderr paused: a second one means
        # the server writes as it answers (a log line a request, as FastMCP 1.x does at
        # INFO), and every input would be sent twice.
        self._paused_at: set[int] = set()

    def take(self, arguments: dict[str, Any]) -> Flown | None:
        """The call of ``arguments`` when it is the next input, sent ahead; None when the
        caller is to send it itself (the window stopped, or it is no input of the window)."""
        if self.stopped or self._taken >= len(self._inputs):
            return None
        if self._inputs[self._taken] is not arguments:
            self.stop()  # the inputs come in another order than drawn: make no more guesses
            return None
        index = self._taken
        self._taken += 1
        self._fill(index + self._width)
        future = self._pending.pop(index, None)
        return future.result() if future is not None else None

    def set_aside(self, flown: Flown) -> None:
        """``flown``'s answer will not be used: its input is about to be sent again alone.
        The calls in flight are waited for first, and what they wrote on stderr is left out
        of later calls' context. If anything else disturbed the window (a call that failed,
        noise, a server request), it stops for good; so it does when stderr paused it
        before: a server that writes on stderr as it answers leaves nothing to send ahead."""
        self._forget_elicitations([flown])
        self._drain()
        conn = self._conn
        disturbed = (
            not flown.quiet
            or conn is None
            or not conn.alive
            or conn.unattributed != self._reference[0]
        )
        if not flown.silent:
            self._paused_at.add(flown.since)
        if disturbed or len(self._paused_at) > 1:
            self.stop()
            return
        assert conn is not None
        self._server.unsee_stderr(conn, self._reference[1], conn.stderr_mark())
        self._quiesced = True

    def stop(self) -> None:
        """Send nothing more; wait for the calls in flight and throw their answers away,
        leaving the server as one call at a time would have: started again when they broke
        it, their noise and stderr out of later calls' evidence, their elicitations
        forgotten."""
        if self.stopped:
            return
        self.stopped = True
        self._forget_elicitations(self._drain())
        self._pending.clear()
        conn = self._conn
        if conn is not None and not self._quiesced:
            # What happened since the calls were sent is the window's doing.
            if not conn.alive:
                self._server.revive(context_upto=self._reference[1])
            else:
                if conn.unattributed != self._reference[0]:
                    self._server.forget_stdout_noise(conn)
                self._server.unsee_stderr(conn, self._reference[1], conn.stderr_mark())
        self._quiesced = True
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None

    close = stop  # at the end of the inputs, or when a failure's shrinking begins

    # -- sending ---------------------------------------------------------------------------

    def _fill(self, upto: int) -> None:
        """Submit the inputs before ``upto`` that are not yet sent."""
        upto = min(upto, len(self._inputs))
        if self._sent >= upto or self._left() == 0:
            return
        conn = self._server.live_connection()
        if self._conn is None:
            self._conn = conn
        if conn is None or conn is not self._conn:
            if self._quiesced:
                # A call the caller made alone broke the server: its own next call restarts
                # it, counted, as one call at a time would.
                self.stop()
            # Else calls in flight broke it: the caller meets that in their answers.
            return
        if self._quiesced:  # nothing in flight: a fresh start
            if self._server.noise_pending(conn):
                # Noise no call was blamed for yet is the next call's, by its place on
                # stdout: only one call sent alone can be that call.
                self.stop()
                return
            self._reference = (conn.unattributed, conn.stderr_mark())
            self._quiesced = False
        if self._pool is None:
            self._pool = concurrent.futures.ThreadPoolExecutor(
                max_workers=self._width, thread_name_prefix="mcp-in-flight"
            )
        while self._sent < upto:
            self._pending[self._sent] = self._pool.submit(
                self._send, self._sent, conn, self._reference
            )
            self._sent += 1

    def _send(self, index: int, conn: RpcConnection, reference: tuple[int, int]) -> Flown:
        arguments = self._inputs[index]
        params = {"name": self._tool, "arguments": arguments}
        if not conn.alive:  # another call in flight killed it: this one is not sent
            from pytest_mcp_contracts.transport.managed import CallOutcome

            outcome = CallOutcome(arguments, conn.request_message("tools/call", params))
            outcome.failure = ServerDied(
                "the server had ended before this call was sent, while other calls were in flight"
            )
            return Flown(index, outcome, quiet=False, silent=False, since=reference[1])
        left = self._left()  # a call cut short by the deadline fails: the caller sees why
        limit = None if left is None else max(left, 0.001)
        outcome, _ = self._server.send_on(conn, "tools/call", params, arguments, self._tool, limit)
        quiet = outcome.failure is None and conn.unattributed == reference[0]
        silent = conn.stderr_mark() == reference[1]
        return Flown(index, outcome, quiet, silent, since=reference[1])

    def _left(self) -> float | None:
        """Seconds until the deadline (0 once it passed), or None without one."""
        if self._deadline is None:
            return None
        return max(self._deadline - time.monotonic(), 0.0)

    def _drain(self) -> list[Flown]:
        """Wait for every call in flight; the answers not yet taken, kept for ``take``."""
        return [future.result() for future in list(self._pending.values())]

    def _forget_elicitations(self, discarded: list[Flown]) -> None:
        asked = sum(flown.outcome.client.asked.get(_ELICIT, 0) for flown in discarded)
        if asked:
            self._server.client.rewind(self._tool, asked)
