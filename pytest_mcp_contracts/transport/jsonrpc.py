"""JSON-RPC: the client every transport shares, in either protocol era.

We keep our own small client instead of the SDK's ``mcp.Client`` because a contract tester
must see the bytes the server really sent: the SDK validates ``structuredContent`` and whole
responses on the client side and throws the result away on a violation, and on pre-2026
connections one malformed tool makes the whole ``tools/list`` page fail to parse. Our client
returns raw JSON objects; the checks decide what is wrong with them.

The client is synchronous (a reader thread per pipe), so pytest items can call it without an
event loop and without anyio's "exit cancel scope in a different task" trap.
"""

from __future__ import annotations

import collections
import contextlib
import json
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar, Final, Self

from pytest_mcp_contracts.schema.spec import Spec, Violation
from pytest_mcp_contracts.transport.client import (
    CAPABILITIES,
    CallClock,
    CallTranscript,
    Client,
    Refusal,
)
from pytest_mcp_contracts.transport.errors import (
    CallTimeout,
    MemoryCapExceeded,
    ProbeFailed,
    ProtocolViolation,
    RpcError,
    ServerDied,
    ServerError,
    ServerStartError,
    ServerUnreachable,
)
from pytest_mcp_contracts.vocabulary import HANDSHAKE_VERSIONS, MODERN_VERSION

CLIENT_INFO: Final = {"name": "pytest-mcp-contracts", "version": "0.1.0"}
PROTOCOL_VERSION_KEY: Final = "io.modelcontextprotocol/protocolVersion"
_CLIENT_INFO_KEY: Final = "io.modelcontextprotocol/clientInfo"
_CLIENT_CAPABILITIES_KEY: Final = "io.modelcontextprotocol/clientCapabilities"
_SERVER_INFO_KEY: Final = "io.modelcontextprotocol/serverInfo"
_LOG_LEVEL_KEY: Final = "io.modelcontextprotocol/logLevel"

# Like the SDK's fixed probe: a handshake-era server that ignores unknown methods instead of
# refusing them gets the initialize handshake after this long.
PROBE_TIMEOUT: Final = 10.0
# 2026-07-28: how often a call answered with input_required is sent again (as the SDK's
# input_required_max_rounds), so a server that keeps asking cannot loop for ever.
MAX_INPUT_ROUNDS: Final = 10
_GARBAGE_KEPT: Final = 5
_VIOLATIONS_KEPT: Final = 20
_UNJUDGED_KEPT: Final = 64  # messages outside calls kept to be judged when asked
_TOKEN_PREFIX: Final = "pytest-mcp-"  # and the call's number: each tools/call's progress token
# Results judged by the check that asked for them (judges/): each belongs to one call.
CALL_METHODS: Final = frozenset({"tools/call", "resources/read", "prompts/get"})
_NOISE_CHARS: Final = 200  # of each noise line kept

_SILENT: Final = object()  # the probe's answer when the server said nothing


class RpcConnection:
    """What every transport shares: the per-request envelope, the protocol negotiation, the
    bookkeeping of messages that are not for us, answering the server's own requests, the
    JSON-RPC error mapping and the interface ``discover`` and ``call`` use. A transport
    supplies ``_request``, ``notify``, ``_send_reply``, ``alive``, ``stderr_tail``, ``kill``
    and ``close``."""

    # How this transport's stray output is worded: "the server wrote 2 {stray_output}".
    stray_output: ClassVar[str] = "message(s) that are not JSON-RPC messages for this client"

    def __init__(
        self, command: Any, *, max_message_bytes: int, client: Client | None = None
    ) -> None:
        self.command = command
        self.max_message_bytes = max_message_bytes
        self.client = client or Client()
        self.protocol_version: str | None = None
        # Set by open_server on a server started again after the probe broke it: what the
        # probe did, a finding for the server's author.
        self.probe_failure: str | None = None
        self.server_info: dict[str, Any] = {}
        self.capabilities: dict[str, Any] = {}
        self.garbage: collections.deque[str] = collections.deque(maxlen=_GARBAGE_KEPT)
        self.garbage_count = 0
        # Lines on a message stream that are no JSON-RPC message at all (a banner, a log
        # line, a blank line: see _dispatch), numbered from 1; also counted as garbage. The
        # first few and the last few are kept, each with its number.
        self.noise_count = 0
        self.noise_first: list[str] = []
        self.noise_last: collections.deque[tuple[int, str]] = collections.deque(
            maxlen=_GARBAGE_KEPT
        )
        # noise_count when the latest answer to a request was read: a line after it came
        # while the caller was already taking the answer, not while it waited for it, and the
        # reader thread may or may not have read it yet (so it is no part of that request).
        self.noise_answered = 0
        # Tool calls in flight, by progress token: their clocks and what they were asked.
        self._calls: dict[str, CallClock] = {}
        self._calls_lock = threading.Lock()
        self._next_token = 0
        # Requests the server made of the client (roots, sampling, elicitation; input
        # requests of 2026-07-28 results): answers that may change what the client answers
        # next (the elicitation cycle), so calls in flight meanwhile are not independent.
        self.server_requests = 0
        # What the server sent that breaks the negotiated version's schema (schema/spec),
        # outside any call's result: listings, the handshake's answer, notifications and
        # requests while no tool call ran. The first few are kept, all are counted.
        self._violations: list[Violation] = []
        self._violation_count = 0
        # What came outside a call, judged when the violations are read: a run that only
        # collects or checks drift never imports jsonschema for it. Bounded: past it the
        # oldest are judged at once.
        self._unjudged: collections.deque[Callable[[Spec], list[Violation]]] = collections.deque()
        # Notifications the server sent, by method: the protocol check reads whether a
        # listing that changed was announced (notifications/tools/list_changed...).
        self.notifications: collections.Counter[str] = collections.Counter()

    @property
    def spec(self) -> Spec | None:
        """The negotiated version's schema; None before the handshake or for a version the
        plugin has no schema of."""
        return Spec.of(self.protocol_version)

    @property
    def violations(self) -> list[Violation]:
        """What the server sent outside any call's result that breaks the negotiated
        version's schema (schema/spec): the handshake's answer, listing pages, errors,
        notifications and requests while no tool call ran. The first few are kept."""
        self._judge_pending()
        return self._violations

    @property
    def violation_count(self) -> int:
        """How many ``violations`` there were, kept or not."""
        self._judge_pending()
        return self._violation_count

    def _judge(
        self, judged: Callable[[Spec], list[Violation]], transcript: CallTranscript | None = None
    ) -> None:
        """``judged`` (a message's verdict under a spec) now, on the call in flight's
        ``transcript``, or later, on the connection."""
        if transcript is not None:
            spec = self.spec
            found = judged(spec) if spec is not None else []
            transcript.violations.extend(found[: _VIOLATIONS_KEPT - len(transcript.violations)])
            return
        with self._calls_lock:
            self._unjudged.append(judged)
            full = len(self._unjudged) > _UNJUDGED_KEPT
        if full:
            self._judge_pending()

    def _judge_pending(self) -> None:
        with self._calls_lock:
            pending = list(self._unjudged)
            self._unjudged.clear()
        spec = self.spec if pending else None
        if spec is None:
            return
        found = [violation for judged in pending for violation in judged(spec)]
        with self._calls_lock:
            self._violation_count += len(found)
            self._violations.extend(found[: _VIOLATIONS_KEPT - len(self._violations)])

    @property
    def alive(self) -> bool:
        raise NotImplementedError

    @property
    def stateless(self) -> bool:
        """Whether the server said that each request stands alone: no session ties one
        request to the next (Streamable HTTP without a session; see HttpConnection)."""
        return False

    @property
    def unattributed(self) -> int:
        """How many things the server sent so far that no single call in flight can be
        blamed for: lines and messages that are not for us (noise included), and requests
        of its own. Calls sent together stay independent while this does not move."""
        return self.garbage_count + self.server_requests

    def stderr_tail(self) -> str:
        raise NotImplementedError

    has_stderr: ClassVar[bool] = False  # a remote server's stderr is not ours to read

    def stderr_mark(self) -> int:
        """A point in the server's stderr; ``stderr_since`` returns what came after it."""
        return 0

    def stderr_since(self, mark: int) -> str:
        return ""  # a transport with no stderr of its own (a remote server)

    def stderr_before(
        self, mark: int, lines: int = 5, hidden: Sequence[tuple[int, int]] = ()
    ) -> str:
        """A few lines before ``mark``, without those between the marks of ``hidden`` pairs."""
        return ""

    def carry_stderr(self, text: str) -> None:
        """Take ``text``, what an earlier process of the server wrote, as the lines before
        this one's own (a transport with no stderr of its own keeps none)."""

    def start(self) -> None:
        raise NotImplementedError

    def over_memory_cap(self) -> ServerDied | None:
        """Checked as each call ends: the error when the server is over its memory cap now
        (it has been killed then), else None. Only a process the plugin started has a cap."""
        return None

    def kill(self) -> None:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    def opened(self, *, startup_timeout: float, legacy: bool = False) -> Self:
        """Start the transport and complete the handshake; on failure leave nothing running."""
        self.start()
        try:
            self.handshake(timeout=startup_timeout, legacy=legacy)
        except BaseException:
            self.kill()
            raise
        return self

    def notify(self, method: str, params: Mapping[str, Any] | None = None) -> None:
        raise NotImplementedError

    def _request(
        self,
        method: str,
        params: dict[str, Any],
        *,
        timeout: float,
        clock: CallClock | None = None,
    ) -> dict[str, Any]:
        """Send one request and return its result. ``clock`` (a tool call's) may stretch the
        timeout while progress notifications for the call arrive."""
        raise NotImplementedError

    def _envelope(self, params: Mapping[str, Any] | None) -> dict[str, Any]:
        out = dict(params or {})
        if self.protocol_version == MODERN_VERSION:
            out["_meta"] = {**(out.get("_meta") or {}), **self._modern_meta(MODERN_VERSION)}
        return out

    @staticmethod
    def _modern_meta(version: str) -> dict[str, Any]:
        return modern_meta(version)

    def request_message(self, method: str, params: Mapping[str, Any] | None) -> dict[str, Any]:
        """The JSON-RPC request exactly as it goes on the wire (minus the id)."""
        return {"jsonrpc": "2.0", "method": method, "params": self._envelope(params)}

    def request(
        self, method: str, params: Mapping[str, Any] | None, *, timeout: float
    ) -> dict[str, Any]:
        """Send a request and return its ``result`` object; raise RpcError or a ServerError."""
        return self._request(method, self._envelope(params), timeout=timeout)

    def request_as_is(
        self, method: str, params: dict[str, Any], *, timeout: float
    ) -> dict[str, Any]:
        """Send ``params`` exactly as given, without this connection's ``_meta`` (the
        protocol check's request with a protocol version the server does not speak)."""
        return self._request(method, params, timeout=timeout)

    # Whether requests travel with HTTP headers that mirror the body (Streamable HTTP).
    carries_headers: ClassVar[bool] = False

    def request_with_headers(
        self,
        method: str,
        params: Mapping[str, Any] | None,
        headers: Mapping[str, str | None],
        *,
        timeout: float,
    ) -> dict[str, Any]:
        """``request`` with the headers it would carry changed: a value replaces one, None
        leaves it out (the protocol check's header rules; only where ``carries_headers``)."""
        raise NotImplementedError

    def call_tool(
        self,
        params: Mapping[str, Any],
        transcript: CallTranscript,
        *,
        timeout: float,
        max_total: float | None = None,
    ) -> dict[str, Any]:
        """``tools/call`` as a full client makes it: with a progress token whose notifications
        restart the timeout (up to ``max_total``), the server's requests answered and noted
        on ``transcript``, and on 2026-07-28 an ``input_required`` result answered by sending
        the call again with ``inputResponses`` and the echoed ``requestState``."""
        clock = CallClock(timeout, max_total)
        clock.transcript = transcript
        with self._calls_lock:
            self._next_token += 1
            token = f"{_TOKEN_PREFIX}{self._next_token}"
            self._calls[token] = clock
        first = dict(params)
        meta = {**(first.get("_meta") or {}), "progressToken": token}
        if self.protocol_version == MODERN_VERSION:
            # 2026-07-28 servers log to a request only when it asks: ask for every level,
            # so that the call's log messages are counted as on a handshake-era connection.
            meta[_LOG_LEVEL_KEY] = "debug"
        first["_meta"] = meta
        try:
            sent = first
            for _ in range(MAX_INPUT_ROUNDS + 1):
                result = self._request(
                    "tools/call", self._envelope(sent), timeout=timeout, clock=clock
                )
                if result.get("resultType") != "input_required":
                    return result
                transcript.rounds += 1
                sent = {**first, "inputResponses": self._input_responses(result, transcript)}
                if "requestState" in result:
                    sent["requestState"] = result["requestState"]
            raise ProtocolViolation(
                f"the server still answered input_required after {MAX_INPUT_ROUNDS} rounds of "
                "inputResponses",
                stderr_tail=self.stderr_tail(),
            )
        finally:
            with self._calls_lock:
                self._calls.pop(token, None)

    def _input_responses(
        self, result: Mapping[str, Any], transcript: CallTranscript
    ) -> dict[str, Any]:
        requests = result.get("inputRequests")
        responses: dict[str, Any] = {}
        for key, request in (requests if isinstance(requests, dict) else {}).items():
            if not isinstance(request, dict) or not isinstance(request.get("method"), str):
                transcript.note(f"input request {key!r}: not a request, left unanswered")
                continue
            params = request.get("params")
            with self._calls_lock:
                self.server_requests += 1
            # A refusal is noted by the client; the server decides what a missing answer means.
            with contextlib.suppress(Refusal):
                responses[key] = self.client.answer(
                    request["method"], params if isinstance(params, dict) else {}, transcript
                )
        return responses

    def _current_call(self) -> CallTranscript | None:
        """The transcript of the tool call in flight (the newest, if several): a server's
        request does not say which of our requests it belongs to."""
        with self._calls_lock:
            clocks = list(self._calls.values())
        return clocks[-1].transcript if clocks else None

    # -- handshake -------------------------------------------------------------------------

    def handshake(self, *, timeout: float, legacy: bool = False) -> None:
        """Negotiate the protocol: ``server/discover`` (2026-07-28), else ``initialize``.

        ``legacy`` skips the probe, for a restart of a server known to be handshake-era.
        ProbeFailed says that the probe, not the handshake, broke the server.
        """
        deadline = time.monotonic() + timeout
        silent = False
        try:
            result = None if legacy else self._probe(min(timeout, PROBE_TIMEOUT))
            if self._adopt_discovery(result):
                return
            silent = result is _SILENT
            try:
                init = self._initialize(max(deadline - time.monotonic(), 1.0))
            except RpcError:
                # Silent to the probe, yet answering now: not a handshake-era server that
                # ignores unknown methods, but a slow one (a 2026-07-28 server still
                # starting, under load, answers the probe late and refuses initialize).
                # Ask it again, for no longer than the first time.
                if silent and self._adopt_discovery(self._probe_again(deadline)):
                    return
                raise
        except ProbeFailed:
            raise
        except ServerDied as exc:
            if silent and not isinstance(exc, (ServerUnreachable, MemoryCapExceeded)):
                # An old SDK whose reader died on the probe hangs until the next message,
                # then exits: the probe broke it, not the handshake.
                raise ProbeFailed(
                    f"no answer to server/discover within {PROBE_TIMEOUT:g} s, then {exc.message}",
                    stderr_tail=self.stderr_since(0),
                ) from None
            raise ServerStartError(
                f"{exc.message}{self._garbage_note()}", stderr_tail=self.stderr_tail()
            ) from None
        except RpcError as exc:
            raise ServerStartError(
                f"the initialize handshake failed: {exc}", stderr_tail=self.stderr_tail()
            ) from None
        except CallTimeout:
            raise ServerStartError(
                f"no answer to the handshake within {timeout:g} s{self._garbage_note()} "
                "(--mcp-startup-timeout)",
                stderr_tail=self.stderr_tail(),
            ) from None
        except ServerError as exc:
            raise ServerStartError(
                f"{exc.message}{self._garbage_note()}", stderr_tail=self.stderr_tail()
            ) from None
        version = init.get("protocolVersion")
        if version not in HANDSHAKE_VERSIONS:
            raise ServerStartError(
                f"the server answered initialize with protocol version {version!r}, which this "
                f"client does not speak (it speaks {', '.join(HANDSHAKE_VERSIONS)} and "
                f"{MODERN_VERSION})",
                stderr_tail=self.stderr_tail(),
            )
        self.protocol_version = str(version)
        self._judge_result("initialize", init)
        self.server_info = _as_dict(init.get("serverInfo"))
        self.capabilities = _as_dict(init.get("capabilities"))
        self.notify("notifications/initialized")

    def _probe_again(self, deadline: float) -> object:
        left = max(deadline - time.monotonic(), 1.0)
        try:
            return self._probe(min(left, PROBE_TIMEOUT))
        except CallTimeout:
            return _SILENT

    def _adopt_discovery(self, result: object) -> bool:
        """Speak 2026-07-28 when ``result`` (the probe's answer) says the server does."""
        if not isinstance(result, dict) or MODERN_VERSION not in (
            result.get("supportedVersions") or ()
        ):
            return False
        self.protocol_version = MODERN_VERSION
        self._judge_result("server/discover", result)
        meta = result.get("_meta") or {}
        self.server_info = _as_dict(meta.get(_SERVER_INFO_KEY))
        self.capabilities = _as_dict(result.get("capabilities"))
        return True

    def _initialize(self, timeout: float) -> dict[str, Any]:
        """The ``initialize`` result. The newest handshake version is offered first; a server
        answers with an older one it speaks, or (some do) refuses: then each older version is
        offered in turn, and the first refusal is the one reported."""
        deadline = time.monotonic() + timeout
        refusal: RpcError | None = None
        for version in sorted(HANDSHAKE_VERSIONS, reverse=True):
            params = {"protocolVersion": version, "capabilities": CAPABILITIES}
            try:
                return self._request(
                    "initialize",
                    {**params, "clientInfo": CLIENT_INFO},
                    timeout=max(deadline - time.monotonic(), 1.0),
                )
            except RpcError as exc:
                refusal = refusal or exc
        assert refusal is not None
        raise refusal

    # What a handshake-era server answers the probe with, besides a JSON-RPC error: an
    # answer that is not one (garbage) is no evidence of the 2026 protocol either.
    _probe_refusals: tuple[type[Exception], ...] = (RpcError, ProtocolViolation)

    def _probe(self, timeout: float) -> dict[str, Any] | object | None:
        """The ``server/discover`` result; None when the server refused it, ``_SILENT`` when
        it said nothing for the whole probe time; ProbeFailed when it died on it."""
        try:
            return self._request(
                "server/discover", {"_meta": self._modern_meta(MODERN_VERSION)}, timeout=timeout
            )
        except self._probe_refusals:
            return None  # every handshake-era server refuses the probe in its own way
        except (ServerUnreachable, MemoryCapExceeded):
            raise  # not the probe's doing
        except ServerDied as exc:
            raise ProbeFailed(exc.message, stderr_tail=self.stderr_since(0)) from None
        except CallTimeout:
            if timeout >= PROBE_TIMEOUT:
                return _SILENT  # silence on an unknown method: try the handshake it may know
            raise

    def _garbage_note(self) -> str:
        if not self.garbage_count:
            return ""
        return f"; it {self.stray_note(self.garbage_count, list(self.garbage))}"

    def stray_note(self, count: int, samples: list[str]) -> str:
        """What the server wrote that was not for us, in this transport's words (lines on
        stdout, messages in an HTTP answer): "wrote N ...: 'a'; 'b'"."""
        shown = "; ".join(repr(sample) for sample in samples)
        return f"wrote {count} {self.stray_output}: {shown}"

    # -- what the server sent that was not an answer ----------------------------------------

    def _note_garbage(self, text: str) -> None:
        self.garbage_count += 1
        self.garbage.append(text)

    def _note_noise(self, line: bytes) -> None:
        text = line[:_NOISE_CHARS].decode("utf-8", "replace").rstrip("\r\n")
        self.noise_count += 1
        if len(self.noise_first) < _GARBAGE_KEPT:
            self.noise_first.append(text)
        self.noise_last.append((self.noise_count, text))
        self._note_garbage(text.strip())

    def noise_lines(self, after: int, upto: int) -> list[str]:
        """The kept noise lines numbered ``after + 1`` to ``upto`` (the first and the last
        few of them: ``upto - after`` says how many there were)."""
        kept = dict(enumerate(self.noise_first, 1)) | dict(self.noise_last)
        return [kept[number] for number in sorted(kept) if after < number <= upto]

    def _route(self, message: Any) -> dict[str, Any] | None:
        """A decoded message: a response (returned, for the transport to match by id), or
        something handled here (a server request answered, a notification, garbage)."""
        if not isinstance(message, dict):
            self._note_garbage(short(message, 200))
            return None
        if "method" in message:
            if "id" in message:
                self._answer_server_request(message)
            else:
                self._notified(message)
            return None
        return message

    def _notified(self, message: Mapping[str, Any]) -> None:
        """Progress for a call restarts its clock; log messages are counted on the call in
        flight; other notifications (list_changed, elicitation/complete) need nothing. Each
        is judged by its definition, on the call in flight if there is one."""
        self._judge(lambda spec: spec.message(message), self._current_call())
        method = message.get("method")
        params = message.get("params")
        params = params if isinstance(params, dict) else {}
        with self._calls_lock:
            self.notifications[str(method)] += 1
        if method == "notifications/progress":
            token = params.get("progressToken")
            with self._calls_lock:
                clock = self._calls.get(token) if isinstance(token, str) else None
                issued = self._issued(token)
            if not issued:
                self._judge(lambda spec: [spec.unsent_token(token)])
            if clock is not None:
                clock.progressed()
                if clock.transcript is not None:
                    clock.transcript.progress += 1
        elif method == "notifications/message":
            transcript = self._current_call()
            if transcript is not None:
                transcript.logs += 1

    def _issued(self, token: object) -> bool:
        """Whether the client ever sent ``token`` (each call's is ``pytest-mcp-N``)."""
        if not isinstance(token, str) or not token.startswith(_TOKEN_PREFIX):
            return False
        number = token.removeprefix(_TOKEN_PREFIX)
        return number.isdigit() and 0 < int(number) <= self._next_token

    def _answer_server_request(self, message: dict[str, Any]) -> None:
        self._judge(lambda spec: spec.message(message), self._current_call())
        reply: dict[str, Any] = {"jsonrpc": "2.0", "id": message["id"]}
        method = str(message.get("method"))
        params = message.get("params")
        try:
            if method == "ping":
                reply["result"] = {}
            else:
                with self._calls_lock:
                    self.server_requests += 1
                reply["result"] = self.client.answer(
                    method, params if isinstance(params, dict) else {}, self._current_call()
                )
        except Refusal as exc:
            reply["error"] = {"code": exc.code, "message": exc.message}
        except Exception as exc:  # a hook that raised: the server gets an error, we go on
            reply["error"] = {"code": -32603, "message": f"the client failed to answer: {exc!r}"}
        # A reply the server does not take changes nothing: its request is its own problem.
        with contextlib.suppress(Exception):
            self._send_reply(reply)

    def _send_reply(self, reply: Mapping[str, Any]) -> None:
        raise NotImplementedError

    def _result_of(self, response: Mapping[str, Any], method: str) -> dict[str, Any]:
        """The ``result`` of a response to our request; RpcError for a JSON-RPC error,
        ProtocolViolation for anything that is not a valid response."""
        problem = _envelope_problem(response)
        if problem is not None:
            raise ProtocolViolation(
                f"the response to {method} is not valid JSON-RPC 2.0: {problem}: {short(response)}",
                stderr_tail=self.stderr_tail(),
            )
        if "error" in response:
            error = response["error"]
            # A call's error breaks the call (its check fails); another's is kept.
            spec = self.spec if method in CALL_METHODS else None
            broken = spec.error(error, method) if spec is not None else []
            if broken:
                raise ProtocolViolation(
                    "; ".join(map(str, broken)) + f": {short(error)}",
                    stderr_tail=self.stderr_tail(),
                )
            if method not in CALL_METHODS:
                self._judge(lambda spec: spec.error(error, method))
            code = error.get("code")
            raise RpcError(
                code if isinstance(code, int) else 0,
                str(error.get("message", "")),
                error.get("data"),
            )
        result = response["result"]
        if not isinstance(result, dict):
            raise ProtocolViolation(
                f"the result of {method} is not an object: {short(result)}",
                stderr_tail=self.stderr_tail(),
            )
        if method not in CALL_METHODS:
            self._judge_result(method, result)
        return result

    def _judge_result(self, method: str, result: Mapping[str, Any]) -> None:
        self._judge(lambda spec: spec.envelope(method, result))


def modern_meta(version: str) -> dict[str, Any]:
    """The ``_meta`` a 2026-07-28 request carries, naming ``version`` as its protocol."""
    return {
        PROTOCOL_VERSION_KEY: version,
        _CLIENT_INFO_KEY: CLIENT_INFO,
        _CLIENT_CAPABILITIES_KEY: CAPABILITIES,
    }


def _as_dict(value: Any) -> dict[str, Any]:
    return dict(value) if isinstance(value, dict) else {}


def short(value: Any, limit: int = 300) -> str:
    """A value as JSON for a message about it, cut at ``limit`` characters."""
    try:
        text = json.dumps(value, ensure_ascii=False, default=repr)
    except (RecursionError, ValueError):
        text = f"<a {type(value).__name__} nested too deeply to show>"
    return text if len(text) <= limit else text[:limit] + "…"


def _envelope_problem(response: Mapping[str, Any]) -> str | None:
    """What makes a response to our request invalid JSON-RPC 2.0, or None."""
    if response.get("jsonrpc") != "2.0":
        return f'"jsonrpc" must be "2.0", got {short(response.get("jsonrpc"), 40)}'
    has_result, has_error = "result" in response, "error" in response
    if has_result and has_error:
        return 'it has both "result" and "error"'
    if not has_result and not has_error:
        return 'it has neither "result" nor "error"'
    if has_error and not isinstance(response["error"], dict):
        return '"error" is not an object'
    return None
