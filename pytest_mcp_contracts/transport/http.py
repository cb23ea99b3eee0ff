"""Connect over Streamable HTTP: the same synchronous JSON-RPC client as ``connect.py``, with
each message POSTed to one endpoint.

The wire, as the installed MCP SDK speaks it (``mcp/client/streamable_http.py``,
``mcp/server/streamable_http_manager.py``, ``mcp/server/_streamable_http_modern.py``):

* every JSON-RPC message is a POST with ``Accept: application/json, text/event-stream`` and
  ``Content-Type: application/json``; the answer to a request is either a JSON body or an
  SSE stream whose ``data:`` events carry JSON-RPC messages (notifications, and server
  requests, may come before the response); a notification is acknowledged with 202;
* 2026-07-28: every POST is self-contained (no session): the body carries the ``_meta``
  protocol keys and the headers mirror them: ``MCP-Protocol-Version``, ``Mcp-Method`` and,
  for ``tools/call``, ``Mcp-Name``. A POST without a handshake-era ``MCP-Protocol-Version``
  header is routed to the handshake-era transport, so the probe must carry the header;
* handshake era: ``initialize`` answers with an ``Mcp-Session-Id`` header that every later
  request carries, with ``MCP-Protocol-Version`` set to the negotiated version; a 404 on a
  request with a session id means the session is gone;
* a JSON-RPC error may come with a 4xx status and a JSON body: it is still a JSON-RPC error.

We do not start or stop a server reached over HTTP: a "restart" opens a new session, and a
server that went down stays down.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import threading
import urllib.parse
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Final, cast

from pytest_mcp_contracts.transport.client import CallClock, Client
from pytest_mcp_contracts.transport.decode import UnreadableMessage, decode
from pytest_mcp_contracts.transport.errors import (
    CallTimeout,
    ProtocolViolation,
    ServerDied,
    ServerError,
    ServerStartError,
    ServerUnreachable,
)
from pytest_mcp_contracts.transport.jsonrpc import PROTOCOL_VERSION_KEY, RpcConnection, short
from pytest_mcp_contracts.transport.param_headers import (
    HeaderMap,
    encode_value,
    header_map,
    headers_for,
)
from pytest_mcp_contracts.vocabulary import MODERN_VERSION

if TYPE_CHECKING:
    import httpx2

# Where servers serve Streamable HTTP unless told otherwise: the Python SDK's
# streamable_http_path, the TypeScript SDK's examples, FastMCP's (with a slash after it).
USUAL_PATH: Final = "/mcp"
_NAME_BEARING: Final = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}
_BODY_EXCERPT: Final = 200
_CHUNK: Final = 1 << 16
_VARIABLE = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")
_HEADER_NAME = re.compile(r"^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$")


class HeaderError(ValueError):
    """An --mcp-header that cannot be used: malformed, or naming a missing variable."""


class HttpStatusError(ServerError):
    """The server answered with an HTTP error status and no JSON-RPC message."""

    def __init__(self, message: str, *, status: int) -> None:
        super().__init__(message)
        self.status = status


def parse_header(spec: str) -> tuple[str, str]:
    """``"Name: value"`` -> (name, unexpanded value)."""
    name, sep, value = spec.partition(":")
    name = name.strip()
    if not sep or not _HEADER_NAME.match(name):
        raise HeaderError(f"--mcp-header {name or spec[:40]!r}: expected 'Name: value'")
    return name, value.strip()


def variables(value: str) -> list[str]:
    """The environment variables a header value refers to (``$VAR`` or ``${VAR}``)."""
    return [m.group(1) or m.group(2) for m in _VARIABLE.finditer(value)]


def expand(name: str, value: str, environ: Mapping[str, str]) -> str:
    """The value with every ``$VAR`` / ``${VAR}`` taken from the environment."""

    def one(match: re.Match[str]) -> str:
        variable = match.group(1) or match.group(2)
        if variable not in environ:
            raise HeaderError(
                f"--mcp-header {name}: the environment variable {variable} is not set"
            )
        return environ[variable]

    return _VARIABLE.sub(one, value)


def display_url(url: str) -> str:
    """The URL without credentials, query or fragment: safe to print."""
    parts = urllib.parse.urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    netloc = host if parts.port is None else f"{host}:{parts.port}"
    return urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, "", ""))


@dataclass(frozen=True)
class ServerUrl:
    """A server reached over Streamable HTTP, with the headers every request carries
    (values unexpanded: ``${TOKEN}`` is read from the environment at connection time)."""

    url: str
    headers: tuple[tuple[str, str], ...] = ()

    @property
    def call_flags(self) -> tuple[str, ...]:
        """What names this server to ``mcp-contracts call``."""
        return (f"--url={self.display}",)

    noun: ClassVar[str] = "url"
    # What connecting anew is to this target: "on its first session".
    opening: ClassVar[str] = "session"
    transport: ClassVar[str] = "http"
    output_source: ClassVar[str | None] = None  # a remote server's stderr is not ours to read
    calls_in_flight: ClassVar[bool] = True  # transport/inflight may send several at once
    fresh_start: ClassVar[str] = (
        "a new session (a server behind a URL keeps its state: reset it first)"
    )
    restart_caveat: ClassVar[str] = (
        "a server reached with --mcp-url (it is not started by pytest-mcp-contracts)"
    )

    def reproduce_where(self, *, after_handshake: bool) -> str:
        session = " in a session, after the initialize handshake" if after_handshake else ""
        return f"POST it to the URL{session}"

    def output_block(self, tail: str | None, *, call_output_shown: bool) -> str:
        return ""

    def start_failure(self, problem: str, stderr_tail: str) -> str:
        return "\n".join(
            [
                f"MCP server at {self.display} could not be used",
                f"  {problem}",
                "",
                "pytest-mcp-contracts does not start a server reached with --mcp-url: it must "
                "be running and serve MCP at that URL; for a slow answer raise "
                "--mcp-startup-timeout.",
            ]
        )

    def unusable(self) -> str:
        return f"the server at {self.display} could not be used"

    def no_endpoint_here(self) -> str:
        """What a 404 before any session means: something runs at the host and port, but
        not an MCP endpoint at the URL's path; and the URL that is usually right."""
        parts = urllib.parse.urlsplit(self.url)
        path = parts.path or "/"
        said = (
            f"the server answered, so it is running, but serves no MCP endpoint at the path {path}"
        )
        if path.rstrip("/") == USUAL_PATH:
            return f"{said}; look for the path in its start-up log or its documentation"
        usual = display_url(urllib.parse.urlunsplit(parts._replace(path=USUAL_PATH)))
        return f"{said}; MCP servers usually serve it at {USUAL_PATH}: try {usual}"

    @classmethod
    def parse(cls, url: str, headers: Sequence[str] = ()) -> ServerUrl:
        parts = urllib.parse.urlsplit(url.strip())
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("expected an http:// or https:// URL with a host")
        return cls(url.strip(), tuple(parse_header(h) for h in headers))

    @property
    def display(self) -> str:
        return display_url(self.url)

    @property
    def label(self) -> str:
        parts = urllib.parse.urlsplit(self.url)
        return parts.hostname or "server"

    @property
    def header_names(self) -> list[str]:
        return [name for name, _ in self.headers]

    def resolved_headers(self, environ: Mapping[str, str]) -> dict[str, str]:
        return {name: expand(name, value, environ) for name, value in self.headers}


class HttpConnection(RpcConnection):
    """One MCP session with a server over Streamable HTTP."""

    _probe_refusals = (*RpcConnection._probe_refusals, HttpStatusError)
    stray_output: ClassVar[str] = (
        "message(s) in its HTTP answers that are not JSON-RPC messages for this client"
    )
    command: ServerUrl

    def __init__(
        self, target: ServerUrl, *, max_message_bytes: int, client: Client | None = None
    ) -> None:
        super().__init__(target, max_message_bytes=max_message_bytes, client=client)
        self.session_id: str | None = None
        self._headers: dict[str, str] = {}
        self._client: httpx2.Client | None = None
        self._closed = False
        self._next_id = 0
        self._id_lock = threading.Lock()  # calls may be in flight from several threads
        self._param_headers: dict[str, HeaderMap] = {}  # by tool name
        # Headers changed for the next request alone (request_with_headers).
        self._header_changes: dict[str, str | None] = {}

    def start(self) -> None:
        import httpx2

        try:
            self._headers = self.command.resolved_headers(os.environ)
        except HeaderError as exc:
            raise ServerStartError(str(exc)) from None
        self._client = httpx2.Client(follow_redirects=False)

    @property
    def alive(self) -> bool:
        return self._client is not None and not self._closed

    @property
    def stateless(self) -> bool:
        # 2026-07-28 has no sessions: every POST carries all it needs, and any instance
        # behind a load balancer may answer it. A handshake-era server that answers
        # initialize without an Mcp-Session-Id keeps none either (the Python SDK's
        # stateless_http=True, the TypeScript SDK's sessionIdGenerator: undefined).
        return self.protocol_version == MODERN_VERSION or (
            self.protocol_version is not None and self.session_id is None
        )

    def stderr_tail(self) -> str:
        return ""  # a remote server's stderr is not ours to read

    def kill(self) -> None:
        self._closed = True
        if self._client is not None:
            self._client.close()

    def close(self) -> None:
        """End the session (DELETE, as the SDK does) and close the HTTP client."""
        if self._client is not None and not self._closed and self.session_id is not None:
            with contextlib.suppress(Exception):  # closing is best effort
                self._client.delete(self.command.url, headers=self._base_headers(), timeout=2)
        self.kill()

    # -- HTTP ------------------------------------------------------------------------------

    def _base_headers(self) -> dict[str, str]:
        headers = {
            **self._headers,
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
        }
        if self.session_id is not None:
            headers["Mcp-Session-Id"] = self.session_id
        if self.protocol_version not in (None, MODERN_VERSION):
            headers["MCP-Protocol-Version"] = str(self.protocol_version)
        return headers

    carries_headers: ClassVar[bool] = True

    def request_with_headers(
        self,
        method: str,
        params: Mapping[str, Any] | None,
        headers: Mapping[str, str | None],
        *,
        timeout: float,
    ) -> dict[str, Any]:
        self._header_changes = dict(headers)
        try:
            return self.request(method, params, timeout=timeout)
        finally:
            self._header_changes = {}

    def _headers_for(self, message: Mapping[str, Any]) -> dict[str, str]:
        headers = self._mirrored_headers(message)
        for name, value in self._header_changes.items():
            headers = {k: v for k, v in headers.items() if k.lower() != name.lower()}
            if value is not None:
                headers[name] = value
        return headers

    def _mirrored_headers(self, message: Mapping[str, Any]) -> dict[str, str]:
        headers = self._base_headers()
        params = message.get("params")
        meta = params.get("_meta") if isinstance(params, dict) else None
        version = meta.get(PROTOCOL_VERSION_KEY) if isinstance(meta, dict) else None
        method = str(message.get("method", ""))
        if isinstance(version, str):  # a 2026-07-28 request: headers mirror the envelope
            headers["MCP-Protocol-Version"] = version
            headers["Mcp-Method"] = method
            key = _NAME_BEARING.get(method)
            value = params.get(key) if key and isinstance(params, dict) else None
            if isinstance(value, str):
                headers["Mcp-Name"] = encode_value(value)
            arguments = params.get("arguments") if isinstance(params, dict) else None
            if (
                method == "tools/call"
                and value in self._param_headers
                and isinstance(arguments, dict)
            ):
                headers.update(headers_for(self._param_headers[value], arguments))
        elif method == "initialize":
            headers.pop("MCP-Protocol-Version", None)
        return headers

    def _where(self) -> str:
        return self.command.display

    def notify(self, method: str, params: Mapping[str, Any] | None = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = dict(params)
        with self._post(message, timeout=10.0, what=method) as response:
            if response.status_code >= 400:
                raise self._status_error(response, method)

    def _post(self, message: Mapping[str, Any], *, timeout: float, what: str) -> Any:
        import httpx2

        if self._client is None or self._closed:
            raise ServerDied("the HTTP session is closed")
        body = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode()
        try:
            return self._client.stream(
                "POST",
                self.command.url,
                content=body,
                headers=self._headers_for(message),
                timeout=httpx2.Timeout(timeout),
            )
        except httpx2.HTTPError as exc:  # pragma: no cover: stream() is lazy
            raise self._transport_error(exc, what) from None

    def _transport_error(self, exc: Exception, what: str) -> ServerError:
        import httpx2

        if isinstance(exc, httpx2.ConnectError):
            return ServerUnreachable(f"could not connect to {self._where()}: {_reason(exc)}")
        if isinstance(exc, httpx2.TimeoutException):
            return CallTimeout(f"no answer to {what} within the timeout")
        return ServerDied(f"the connection to {self._where()} broke during {what}: {_reason(exc)}")

    def _status_error(self, response: Any, what: str) -> ServerError:
        status = int(response.status_code)
        excerpt = _excerpt(response)
        text = f"HTTP {status} {response.reason_phrase} from {self._where()} for {what}"
        if excerpt:
            text += f": {excerpt}"
        if status in (401, 403):
            names = ", ".join(self.command.header_names)
            sent = f" (sent headers: {names})" if names else ""
            text += (
                f"; the server refused the request{sent}: pass credentials with "
                "--mcp-header 'Authorization: Bearer ${TOKEN}' (values are read from the "
                "environment, never printed)"
            )
        if status == 404:
            if self.session_id is not None:
                return ServerDied(f"the server ended the session: {text}")
            text += f"; {self.command.no_endpoint_here()}"
        return HttpStatusError(text, status=status)

    # -- requests --------------------------------------------------------------------------

    def _request(
        self,
        method: str,
        params: dict[str, Any],
        *,
        timeout: float,
        clock: CallClock | None = None,
    ) -> dict[str, Any]:
        import httpx2

        clock = clock or CallClock(timeout)
        with self._id_lock:
            self._next_id += 1
            msg_id = self._next_id
        message = {"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params}
        try:
            with self._post(message, timeout=timeout, what=method) as response:
                response_message = self._read_answer(response, method, msg_id, clock)
        except httpx2.TimeoutException:
            # httpx's read timeout is the idle timeout: silence since the last bytes.
            late = clock.expired(method) or f"no answer to {method} within {timeout:g} s"
            raise CallTimeout(late) from None
        except httpx2.HTTPError as exc:
            raise self._transport_error(exc, method) from None
        result = self._result_of(response_message, method)
        if method == "tools/list":
            self._learn_param_headers(result.get("tools"))
        return result

    def _learn_param_headers(self, tools: Any) -> None:
        """Which arguments of each tool a 2026-07-28 ``tools/call`` mirrors into
        ``Mcp-Param-*`` headers (the ``x-mcp-header`` annotations of its inputSchema). A
        server checks them against the body, so a call without them would be refused."""
        for tool in tools if isinstance(tools, list) else ():
            if not isinstance(tool, dict) or not isinstance(tool.get("name"), str):
                continue
            schema = tool.get("inputSchema")
            mirrored = header_map(schema) if isinstance(schema, dict) else {}
            if mirrored:
                self._param_headers[tool["name"]] = mirrored

    def _read_answer(
        self, response: Any, method: str, msg_id: int, clock: CallClock
    ) -> dict[str, Any]:
        status = int(response.status_code)
        content_type = response.headers.get("content-type", "").lower()
        if method == "initialize" and status < 300:
            self.session_id = response.headers.get("mcp-session-id") or None
        if status >= 400:
            if content_type.startswith("application/json"):
                try:
                    body = self._read_capped(response, method, clock)
                    message = decode(body)
                except (ValueError, ServerError):
                    message = None
                if isinstance(message, dict) and isinstance(message.get("error"), dict):
                    return message  # a JSON-RPC error carried by an HTTP error status
            raise self._status_error(response, method)
        if status == 202:
            raise ProtocolViolation(f"the server answered the {method} request with 202 Accepted")
        if 300 <= status < 400:
            raise HttpStatusError(
                f"HTTP {status} from {self._where()} (redirects are not followed: pass the "
                f"final URL to --mcp-url; Location: {response.headers.get('location', '?')})",
                status=status,
            )
        if content_type.startswith("text/event-stream"):
            return self._read_sse(response, method, msg_id, clock)
        if content_type.startswith("application/json"):
            body = self._read_capped(response, method, clock)
            message = self._parse(body, method)
            if not isinstance(message, dict):
                raise ProtocolViolation(
                    f"the answer to {method} is not a JSON-RPC message: {short(message)}"
                )
            return message
        raise ProtocolViolation(
            f"the answer to {method} has Content-Type {content_type or 'none'!r}; "
            "expected application/json or text/event-stream"
        )

    def _too_large(self, method: str, size: int) -> ProtocolViolation:
        return ProtocolViolation(
            f"the answer to {method} could not be read: it was a message of at least "
            f"{size} bytes, over the {self.max_message_bytes}-byte limit "
            "(--mcp-max-result-bytes); raise --mcp-max-result-bytes if a large answer is expected"
        )

    def _chunks(self, response: Any, method: str, clock: CallClock) -> Iterator[bytes]:
        for chunk in response.iter_bytes(_CHUNK):
            self._check_deadline(method, clock)
            yield chunk

    def _read_capped(self, response: Any, method: str, clock: CallClock) -> bytes:
        data = bytearray()
        for chunk in self._chunks(response, method, clock):
            data += chunk
            if len(data) > self.max_message_bytes:
                raise self._too_large(method, len(data))
        return bytes(data)

    def _parse(self, data: bytes, method: str) -> Any:
        try:
            return decode(data)
        except UnreadableMessage as exc:
            raise ProtocolViolation(
                f"the answer to {method} could not be read: it was {exc}"
            ) from None
        except ValueError:
            start = data[:_BODY_EXCERPT].decode("utf-8", "replace")
            raise ProtocolViolation(f"the answer to {method} is not JSON: {start!r}") from None

    def _read_sse(
        self, response: Any, method: str, msg_id: int, clock: CallClock
    ) -> dict[str, Any]:
        """Events until the one that answers ``msg_id``. The events are parsed by the SDK's
        own parser (httpx2's ``EventSource``: bare-CR line endings, a CRLF split across
        chunks, comments, multi-line data), with each event capped at --mcp-max-result-bytes
        and the deadline checked on every chunk, so a server trickling bytes cannot hold a
        call past its timeout."""
        import httpx2

        stream = _Deadlined(response, lambda: self._check_deadline(method, clock))
        events = httpx2.EventSource(cast("httpx2.Response", stream), self.max_message_bytes)
        try:
            for event in events:
                if event.event != "message" or not event.data:
                    continue  # a priming event (an id only) or an event type we do not know
                answer = self._sse_message(event.data.encode(), method, msg_id)
                if answer is not None:
                    return answer
        except httpx2.SSEError as exc:
            if "byte limit" not in str(exc):
                raise ProtocolViolation(f"the event stream of {method} is broken: {exc}") from None
            raise self._too_large(method, self.max_message_bytes + 1) from None
        raise ServerDied(f"the server closed the event stream without answering {method}")

    def _check_deadline(self, method: str, clock: CallClock) -> None:
        late = clock.expired(method)
        if late is not None:
            raise CallTimeout(late)

    def _sse_message(self, payload: bytes, method: str, msg_id: int) -> dict[str, Any] | None:
        response = self._route(self._parse(payload, method))
        if response is None or response.get("id") == msg_id:
            return response
        self._note_garbage(f"a response to an unknown request id {short(response.get('id'), 60)}")
        return None

    def _send_reply(self, reply: Mapping[str, Any]) -> None:
        with self._post(reply, timeout=5.0, what="a reply") as response:
            response.read()


class _Deadlined:
    """The response as ``EventSource`` reads it (headers, request, text chunks), with a
    check before each chunk: the SDK's parser has no deadline of its own."""

    def __init__(self, response: Any, check: Callable[[], None]) -> None:
        self._response = response
        self._check = check
        self.headers = response.headers
        self.request = response.request

    def iter_text(self) -> Iterator[str]:
        # No chunk size: httpx would hold text back until a chunk is full, and an event
        # (progress, a server request) must be seen when it arrives.
        for chunk in self._response.iter_text():
            self._check()
            yield chunk


def _reason(exc: Exception) -> str:
    text = str(exc) or type(exc).__name__
    return text.splitlines()[0][:200]


def _excerpt(response: Any) -> str:
    try:
        body = b""
        for chunk in response.iter_bytes(_BODY_EXCERPT):
            body += chunk
            if len(body) >= _BODY_EXCERPT:
                break
    except Exception:  # the excerpt is a courtesy
        return ""
    text = " ".join(body[:_BODY_EXCERPT].decode("utf-8", "replace").split())
    return text + ("…" if len(body) >= _BODY_EXCERPT else "")


def open_http(
    target: ServerUrl,
    *,
    startup_timeout: float,
    max_message_bytes: int,
    legacy: bool = False,
    client: Client | None = None,
) -> HttpConnection:
    """Open a session (the handshake), or raise ServerStartError."""
    conn = HttpConnection(target, max_message_bytes=max_message_bytes, client=client)
    return conn.opened(startup_timeout=startup_timeout, legacy=legacy)
