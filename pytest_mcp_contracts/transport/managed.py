"""Call: run tools on a server that is kept alive (restarted within a budget) for the whole run."""

from __future__ import annotations

import contextlib
import json
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import InitVar, dataclass, field
from typing import Any

from pytest_mcp_contracts.text import plain_traceback
from pytest_mcp_contracts.transport.client import (
    URL_ELICITATION_REQUIRED,
    URL_REQUIRED_KEY,
    CallTranscript,
    Client,
    url_elicitation_urls,
)
from pytest_mcp_contracts.transport.connect import open_server, probe_warning
from pytest_mcp_contracts.transport.discover import (
    Entry,
    ServerSurface,
    build_surface,
    discover,
    list_tools,
    tool_list_changes,
)
from pytest_mcp_contracts.transport.errors import (
    CallTimeout,
    RpcError,
    ServerDied,
    ServerError,
    ServerStartError,
)
from pytest_mcp_contracts.transport.freshness import Freshness
from pytest_mcp_contracts.transport.http import ServerUrl
from pytest_mcp_contracts.transport.inprocess import ServerApp
from pytest_mcp_contracts.transport.jsonrpc import RpcConnection
from pytest_mcp_contracts.transport.state import Carried, WorkerPlace
from pytest_mcp_contracts.transport.stderr import STDERR_TAIL_LINES
from pytest_mcp_contracts.transport.stdio import ServerCommand
from pytest_mcp_contracts.transport.stray_output import stray_failure
from pytest_mcp_contracts.vocabulary import MODERN_VERSION


@dataclass
class CallOutcome:
    """What one request (a ``tools/call``, a ``resources/read``, ...) produced: a result, a
    JSON-RPC error, or a server failure."""

    arguments: dict[str, Any]
    request: dict[str, Any]
    result: dict[str, Any] | None = None
    rpc_error: RpcError | None = None
    failure: ServerError | None = None
    elapsed: float = 0.0
    # What the server wrote to stderr between this request and its answer (None: a transport
    # with no stderr to read), and a few lines from before it, for context.
    stderr: str | None = None
    stderr_before: str = ""
    # What the server asked of the client during the call, and its notifications.
    client: CallTranscript = field(default_factory=CallTranscript)

    @property
    def method(self) -> str:
        return str(self.request.get("method", ""))

    @property
    def is_error_result(self) -> bool:
        return self.result is not None and self.result.get("isError") is True

    def request_json(self) -> str:
        return json.dumps({"id": 1, **self.request}, ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True)
class PastCall:
    """A call made on the live server process, for what state it may have left behind."""

    tool: str
    arguments: dict[str, Any]
    invalid: bool  # sent by rejects_invalid, to be refused
    succeeded: bool  # answered with a result without isError


@dataclass
class ManagedServer:
    """A server command, its live connection, and how often it had to be restarted.

    ``restarts`` counts the server's failures: a live connection found gone (the process
    died, or was killed after a hang or over its memory cap) and started again. A restart
    the run decides on is not one: ``start_fresh`` (a fresh server for a replay or between
    items), ``revive`` (calls the tool is not to blame for broke it), the state probe's
    (transport/freshness), and every restart while a failure is replayed (``uncounted``).
    A check spends its restart budget from the difference of two readings."""

    command: ServerCommand | ServerUrl | ServerApp  # stdio, Streamable HTTP, or in-process
    startup_timeout: float
    call_timeout: float
    max_message_bytes: int
    # Progress notifications restart the call timeout, up to this many seconds in all
    # (None: no restart, the call timeout is the whole budget).
    max_call_time: float | None = None
    max_memory: int | None = None  # bytes a started server's processes may use (None: no cap)
    client: Client = field(default_factory=Client)  # the answers to the server's requests
    surface: ServerSurface | None = None
    node_name: str = ""  # the server's name in node ids and in the snapshot folder
    restarts: int = 0  # restarts a death or a hang caused: see the class's docstring
    listing_changes: list[str] = field(default_factory=list)  # see relist()
    # What the 2026 probe did to a server that had to be started again without it (open_server).
    probe_failure: str | None = None
    # Lines on stdout that are no JSON-RPC message (stdio only), and a few of them: written
    # until the tool list was answered (a banner), and what no call's answer followed.
    startup_stdout: tuple[int, list[str]] = (0, [])
    between_calls_stdout: tuple[int, list[str]] = (0, [])
    # The calls made since the process (or session) started, the newest last: a failure on a
    # stateful server may come from what an earlier call stored.
    recent_calls: deque[PastCall] = field(default_factory=lambda: deque(maxlen=1000))
    _noise_seen: int = field(default=0, repr=False)  # the connection's noise accounted for
    # Stretches of the connection's stderr (pairs of marks) written by calls sent ahead and
    # then sent again alone (transport/inflight): no later call shows them as its context.
    _unseen_stderr: list[tuple[int, int]] = field(default_factory=list, repr=False)
    _conn: RpcConnection | None = field(default=None, repr=False)
    # time.monotonic() when the live connection was opened (the process started), and that
    # connection while nothing but its handshake and listings has been sent on it (untouched).
    opened_at: float = field(default=0.0, repr=False)
    _untouched: RpcConnection | None = field(default=None, repr=False)
    # The command as this worker starts it (``{worker}`` expanded, its own copies of shared
    # state files: transport/state); ``command`` stays as the user named it, for reports.
    place: WorkerPlace | None = None
    worker: str = ""
    # Which tools may be asked for the state (transport/freshness.Freshness.tools).
    state_tools: InitVar[Callable[[ServerSurface], list[Entry]] | None] = None
    # What a started process could leave for the next one: "fresh" is checked, not assumed.
    freshness: Freshness = field(init=False, repr=False)
    # While above zero, restarts are the run's own doing (``uncounted``).
    _replaying: int = field(default=0, repr=False)

    def __post_init__(self, state_tools: Callable[[ServerSurface], list[Entry]] | None) -> None:
        self.freshness = Freshness(state_tools)

    def _open(self, *, legacy: bool = False) -> RpcConnection:
        return open_server(
            self.started_command,
            startup_timeout=self.startup_timeout,
            max_message_bytes=self.max_message_bytes,
            legacy=legacy,
            client=self.client,
            max_memory=self.max_memory,
        )

    def start(self) -> ServerSurface:
        """Start the server (or open an HTTP session), complete the handshake and read its
        tool list."""
        self.opened_at = time.monotonic()
        self._conn = self._untouched = self._open()
        self.probe_failure = self._conn.probe_failure
        try:
            self.surface = discover(self._conn, timeout=self.startup_timeout)
        except ServerError:
            self._conn.kill()
            raise
        self.freshness.first_started(self._conn, self.started_command)
        # Blamed on no call: what the server printed on stdout before its tool list was
        # answered (a banner). Counted up to that answer, not up to now: a line written just
        # after it may or may not have been read yet.
        seen = self._conn.noise_answered
        self.startup_stdout = (seen, self._conn.noise_lines(0, seen))
        self._noise_seen = seen
        return self.surface

    def _account_stray_stdout(self, upto: int | None = None) -> None:
        """Noise on stdout, up to ``upto`` (default: all read so far), that no call's answer
        followed: after the last call (before a restart, the end of the run), or a restarted
        server's banner. No call to fail, so it is counted."""
        conn = self._conn
        if conn is None:
            return
        upto = conn.noise_count if upto is None else upto
        new = upto - self._noise_seen
        if new > 0:
            count, sample = self.between_calls_stdout
            recent = conn.noise_lines(self._noise_seen, upto)
            self.between_calls_stdout = (count + new, (sample + recent)[-5:])
        self._noise_seen = max(upto, self._noise_seen)

    def probe_warning(self) -> str | None:
        """For the server's author, when the 2026 probe broke the server."""
        if self.probe_failure is None:
            return None
        return probe_warning(self.probe_failure, self.protocol_version)

    @property
    def protocol_version(self) -> str:
        return self.surface.protocol_version if self.surface else ""

    def connection(self) -> RpcConnection:
        """The live connection, restarting a server that died or was killed after a hang
        (over HTTP: a new session with a server we did not start and cannot restart): a
        restart counted, unless a failure is being replayed. After ``close`` it is opened
        again uncounted: closing was the run's decision."""
        if self._conn is not None and self._conn.alive:
            return self._conn
        if self._conn is not None and not self._replaying:
            self.restarts += 1
        return self._reopen()

    def open_another(self) -> RpcConnection:
        """A connection of its own beside the live one (a new process, an HTTP session),
        in the protocol version the server was found to speak; the caller closes it. Not a
        restart: the live connection and its counts are left as they are."""
        return self._open(legacy=self.protocol_version not in ("", MODERN_VERSION))

    def start_fresh(self) -> None:
        """A freshly started server (over HTTP: a new session), on purpose: for a replay,
        or so that an item starts from the server's initial state. Not counted among the
        restarts. A server that does not start raises ServerStartError, and the next
        call's attempt to start it is counted: that one is the server's failure."""
        if self._conn is not None:
            self._conn.close()
        self._reopen()

    def restart_as_unasked(self) -> None:
        """Start again a server that asking for its state broke (transport/freshness), as
        if nothing had been asked: not counted, its recent calls kept. A server that does
        not come back is left to the next call to meet."""
        if self._conn is not None:
            self._conn.kill()  # a pending answer must not reach a later call
        with contextlib.suppress(ServerError):
            self._reopen(keep_calls=True)

    def _reopen(self, *, keep_calls: bool = False) -> RpcConnection:
        """Open a new connection in place of the live one, whatever made it go. A new
        process starts empty, so the recent calls go, unless ``keep_calls``."""
        self._account_stray_stdout()
        self._noise_seen = 0  # a new connection counts from zero
        self._unseen_stderr = []
        try:
            self.opened_at = time.monotonic()
            self._conn = self._open(legacy=self.protocol_version not in ("", MODERN_VERSION))
            self._untouched = self._conn
            # Its banner, up to the handshake's answer, is no part of the next call.
            self._account_stray_stdout(self._conn.noise_answered)
            if isinstance(self.command, ServerCommand) and not keep_calls:
                # A new process starts empty; a URL's server (and an in-process app's module)
                # keeps what earlier calls stored.
                self.recent_calls.clear()
        except ServerStartError as exc:
            if isinstance(self.command, ServerUrl):
                raise ServerStartError(
                    f"{exc.message} (a server reached with --mcp-url is not started by "
                    "pytest-mcp-contracts, so it cannot be restarted: bring it back up)"
                ) from None
            raise
        return self._conn

    @property
    def started_command(self) -> ServerCommand | ServerUrl | ServerApp:
        return self.place.command if self.place is not None else self.command

    def carried_state(self) -> Carried | None:
        """What a restarted process may read back of what the run stored (Freshness.carried),
        the files as the user named them; None when nothing, or for a target that is no
        process the plugin started."""
        carried = self.freshness.carried(self)
        if carried is None or self.place is None:
            return carried
        return self.place.as_named(carried)

    def state_warning(self) -> str | None:
        """For the user, once: the state files this xdist worker's server was given a copy of."""
        return self.place.warning() if self.place is not None else None

    def for_this_worker(self, text: str) -> str:
        """``text`` (the reset command) with the places this worker's command has:
        ``{worker}`` expanded, shared state files replaced by this worker's copies."""
        return self.place.text(text, self.worker) if self.place is not None else text

    @property
    def untouched(self) -> bool:
        """Whether the live connection has carried nothing since it opened but its handshake
        and listings, and no earlier call stands for state it carries (``revive`` keeps
        them; a URL's server or an in-process app keeps what they stored across a restart):
        the server is as its start left it, so a restart would only repeat that
        (``runs/context.RunContext.fresh``)."""
        conn = self._conn
        return conn is not None and conn is self._untouched and conn.alive and not self.recent_calls

    def live_connection(self) -> RpcConnection | None:
        """The connection when it is alive; None, never a restart, when it is not."""
        return self._conn if self._conn is not None and self._conn.alive else None

    @property
    def stateless(self) -> bool:
        """Whether the server said each request stands alone (RpcConnection.stateless)."""
        return self._conn is not None and self._conn.stateless

    def revive(self, context_upto: int | None = None) -> None:
        """Start again a server that calls broke without its being the tool's doing: calls
        sent ahead died or hung in flight, none of them to blame yet (transport/inflight),
        or the tool's time budget cut a call short (runs/engine.Spending). Not
        counted among the restarts: the run decided it, and a call sent again alone that
        kills the server is counted as it would have been. What the server was before
        carries over, as if those calls had never been made: the calls before stay the
        recent calls, its stderr up to ``context_upto`` (a mark; all of it by default) is
        the new process's context, whose own start-up lines are not, and noise on stdout is
        forgotten. A server that does not come back is left to the next call to meet."""
        old = self._conn
        if old is not None and old.alive:
            return  # nothing broke it
        context = ""
        if old is not None:
            upto = old.stderr_mark() if context_upto is None else context_upto
            context = old.stderr_before(upto, STDERR_TAIL_LINES, self._unseen_stderr)
            self.forget_stdout_noise(old)
        with contextlib.suppress(ServerError):
            new = self._reopen(keep_calls=True)
            new.carry_stderr(context)
            self.unsee_stderr(new, 0, new.stderr_mark())

    def unsee_stderr(self, conn: RpcConnection, start: int, end: int) -> None:
        """Leave the stderr lines between two marks of ``conn`` out of the context later
        calls show ("server stderr before this call"): calls sent ahead wrote them, and
        each is sent again alone, as one call at a time would have sent it once."""
        if conn is self._conn and end > start:
            self._unseen_stderr.append((start, end))

    def noise_pending(self, conn: RpcConnection) -> bool:
        """Whether ``conn`` read noise on stdout that no call was blamed for yet: the next
        call's, by its place in the stream (judges/stdout)."""
        return conn is self._conn and conn.noise_count > self._noise_seen

    def forget_stdout_noise(self, conn: RpcConnection) -> None:
        """Noise on stdout ``conn`` read so far is blamed on no call and counted nowhere:
        calls sent ahead wrote it, and each is sent again alone (transport/inflight), where
        noise it writes again is its own, as one call at a time would have seen it once."""
        if conn is self._conn:
            self._noise_seen = max(self._noise_seen, conn.noise_count)

    @contextmanager
    def uncounted(self) -> Iterator[None]:
        """Restarts inside are the run's own doing, not the server's failures: a failure's
        replays start fresh servers on purpose, and a replay that kills or hangs the server
        repeats a failure already reported. Their calls tally nothing anyway: only a check
        counts its calls."""
        self._replaying += 1
        try:
            yield
        finally:
            try:
                # A replay that ended in a crash or a hang leaves the server down: bring it
                # back here, so the next tool's first call does not spend a restart of its
                # budget.
                if self._conn is not None and not self._conn.alive:
                    with contextlib.suppress(ServerError):
                        self.connection()
            finally:
                self._replaying -= 1

    def stderr_tail(self) -> str:
        return self._conn.stderr_tail() if self._conn is not None else ""

    def call(
        self,
        tool_name: str,
        arguments: dict[str, Any],
        *,
        invalid: bool = False,
        limit: float | None = None,
    ) -> CallOutcome:
        """Call a tool. ``invalid`` inputs (sent to be refused) are remembered as such among
        the recent calls. ``limit`` caps the call's
        time below the usual timeouts (a call that runs into it ends in ``CallTimeout``)."""
        params = {"name": tool_name, "arguments": arguments}
        outcome = self._exchange("tools/call", params, arguments, tool_name, limit)
        self.remember(tool_name, outcome, invalid=invalid)
        return outcome

    def remember(self, tool_name: str, outcome: CallOutcome, *, invalid: bool = False) -> None:
        """Count a call among the recent calls of the server process: ``call`` does for its
        own, a check for a call it sent ahead with others in flight once it takes its answer
        (transport/inflight), so that they stand in the order the inputs were drawn."""
        succeeded = outcome.result is not None and not outcome.is_error_result
        self.recent_calls.append(PastCall(tool_name, outcome.arguments, invalid, succeeded))

    def request(
        self,
        method: str,
        params: dict[str, Any],
        *,
        subject: str,
        arguments: dict[str, Any] | None = None,
        limit: float | None = None,
    ) -> CallOutcome:
        """Any other request (``resources/read``, ``prompts/get``, ``completion/complete``),
        with the evidence of a tool call: timeouts, death and restart, the stderr and stdout
        of the call, the memory cap. ``subject`` names what is asked (a URI, a prompt's
        name), ``arguments`` the generated values that made ``params`` (for the report and
        the shrinker). Not remembered among the recent calls: by the spec these requests
        change no state, so none of them set up a later call's failure."""
        args = dict(params) if arguments is None else arguments
        return self._exchange(method, params, args, subject, limit)

    def _exchange(
        self,
        method: str,
        params: dict[str, Any],
        arguments: dict[str, Any],
        subject: str,
        limit: float | None,
    ) -> CallOutcome:
        """One request and its answer, with everything that happened on the way."""
        self.freshness.ask_at_start(self, self._conn if self._conn is self._untouched else None)
        conn = self.connection()
        garbage_before, noise_sent = conn.garbage_count, conn.noise_count
        outcome, noise_upto = self.send_on(conn, method, params, arguments, subject, limit)
        noise = (self._noise_seen, noise_sent, max(noise_upto, noise_sent))
        blamed = stray_failure(outcome.failure, conn, garbage_before, noise)
        if blamed is not None:  # the stray output is the verdict, not an answer beside it
            outcome.failure, outcome.result, outcome.rpc_error = blamed, None, None
        self._noise_seen = noise_upto
        return outcome

    def send_on(
        self,
        conn: RpcConnection,
        method: str,
        params: dict[str, Any],
        arguments: dict[str, Any],
        subject: str,
        limit: float | None = None,
    ) -> tuple[CallOutcome, int]:
        """Send one request on ``conn`` and take its answer with the evidence of the call
        (timeouts, death, stderr, the memory cap), and the count of noise on stdout that
        belongs up to it. Nothing here is about the order of calls: several may be in flight
        at once (transport/inflight), so stray output is judged by the caller, and a
        connection that died is not restarted."""
        if conn is self._untouched:
            self._untouched = None
        outcome = CallOutcome(arguments, conn.request_message(method, params))
        outcome.client = CallTranscript(
            server=self.surface.name if self.surface else "", tool=subject
        )
        stderr_mark = conn.stderr_mark()
        started = time.perf_counter()
        try:
            timeout, max_total = self.call_timeout, self.max_call_time
            if limit is not None:
                timeout, max_total = min(timeout, limit), min(max_total or timeout, limit)
            if method == "tools/call":
                outcome.result = conn.call_tool(
                    params, outcome.client, timeout=timeout, max_total=max_total
                )
            else:
                outcome.result = conn.request(method, params, timeout=timeout)
        except RpcError as exc:
            outcome.rpc_error = exc
            if exc.code == URL_ELICITATION_REQUIRED:
                # A request to the client, in an error: the user must open these URLs
                # first. A tester has no user; the checks judge whether the answer is
                # the spec's (judges/call.judge_call).
                outcome.client.asked[URL_REQUIRED_KEY] += 1
                for url in url_elicitation_urls(exc.data)[:3] or ["(no url)"]:
                    outcome.client.note(f"-32042 URL elicitation required: {url}: not opened")
        except CallTimeout as exc:
            # A stuck server may never answer again: replace it before the next call.
            conn.kill()
            outcome.failure = exc
        except ServerDied as exc:
            conn.kill()
            outcome.failure = exc
        except ServerError as exc:
            outcome.failure = exc
        outcome.elapsed = time.perf_counter() - started
        # The call's noise is what stdout carried up to its answer: by position in the
        # stream, not by when the reader thread got to it, which a line printed just after
        # an answer would make a race between two calls.
        answered = outcome.result is not None or outcome.rpc_error is not None
        noise_upto = conn.noise_answered if answered else conn.noise_count
        over_cap = conn.over_memory_cap() if outcome.failure is None else None
        if over_cap is not None:  # this call left the server over its cap: its failure
            outcome.failure, outcome.result, outcome.rpc_error = over_cap, None, None
        if conn.has_stderr:
            # A rich-rendered traceback as Python prints one: the evidence in it, and
            # what a report quotes, read the same whichever way the server logs.
            outcome.stderr = plain_traceback(conn.stderr_since(stderr_mark))
            unseen = self._unseen_stderr if conn is self._conn else ()
            outcome.stderr_before = plain_traceback(conn.stderr_before(stderr_mark, hidden=unseen))
        return outcome, noise_upto

    def relist(self, timeout: float) -> None:
        """Read the tool list again (at the end of the run) and note how it differs from the
        one the run was built from: the spec says a server's tool set must not vary."""
        conn, surface = self._conn, self.surface
        if conn is None or not conn.alive or surface is None:
            return
        try:
            now = build_surface(conn, list_tools(conn, timeout=timeout)).tools
        except ServerError as exc:
            self.listing_changes.append(f"the tool list could not be read again: {exc.message}")
            return
        self.listing_changes.extend(tool_list_changes(surface.tools, now))

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._account_stray_stdout()
            self._conn = self._untouched = None
