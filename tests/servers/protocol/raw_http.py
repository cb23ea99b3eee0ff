"""An SDK-free MCP server over Streamable HTTP, written as raw JSON-RPC, that can break the
protocol on purpose: ``http_serve.py raw_http.py`` serves its ``asgi`` app.

No SDK stands between the fixture and the wire, so a violation reaches the client exactly as
planted (an SDK server would validate or fill in what it sends). Its tools, resource and
prompt listing carry the fixed names the official conformance suite's server scenarios call
(``test_simple_text``, ``test_tool_with_logging``, ``test_tool_with_progress``,
``test://static-text``: the suite's "everything" server), so that both the suite and this
plugin reach every message (tests/e2e/test_conformance_agreement.py).

``MCP_FIXTURE_VIOLATIONS`` names the violations to plant, comma-separated (``VIOLATIONS``);
none by default: the clean server. ``MCP_FIXTURE_VERSION`` is the one protocol version it
speaks (``VERSIONS``; default 2025-11-25): the answer to ``initialize`` whatever was asked,
as a server that knows one version does.

Answers are JSON bodies, except a ``tools/call`` that notifies while it runs (logging,
progress): an event stream whose events are the notifications, then the response. GET (the
server-to-client stream) is 405, which the transport allows. ``initialize`` opens a session
(``Mcp-Session-Id``); DELETE ends it, and a request that carries an unknown or ended session's
id gets 404. A request without a session id is served: the session is the client's to keep.
"""

from __future__ import annotations

import json
import os
import urllib.parse
import uuid
from typing import Any

# What each violation breaks, and where: the schema definition (or rule) it violates.
VIOLATIONS = {
    "priority": "test_simple_text's text block has annotations.priority 2 (Annotations: 0..1)",
    "log_level": "test_tool_with_logging's notifications/message have no level "
    "(LoggingMessageNotification: level is required)",
    "progress": "test_tool_with_progress's notifications/progress say progress 'half' "
    "(ProgressNotification: progress is a number)",
    "unknown_method": "an unknown method is answered with -32603, not -32601 (JSON-RPC 2.0: "
    "method not found)",
    "read_uri": "the contents of test://static-text have no uri "
    "(ReadResourceResult: TextResourceContents.uri is required)",
    "input_schema": "test_simple_text is listed without inputSchema (Tool: required)",
    "jsonrpc": 'the response to resources/list says "jsonrpc": "1.0" (JSONRPCResponse)',
    "result_array": "the result of prompts/list is an array, not an object (Result)",
    "any_host": "a request from another Host or Origin than localhost is served "
    "(Streamable HTTP, security warning: servers MUST validate the Origin header)",
    "session_kept": "a session DELETE ended still answers (Streamable HTTP, session "
    "management: a request with an ended session's id MUST get 404)",
}
VERSIONS = ("2025-06-18", "2025-11-25")

PLANTED = {name for name in os.environ.get("MCP_FIXTURE_VIOLATIONS", "").split(",") if name}
unknown = PLANTED - VIOLATIONS.keys()
if unknown:
    raise SystemExit(f"unknown MCP_FIXTURE_VIOLATIONS {sorted(unknown)}; known: {list(VIOLATIONS)}")
VERSION = os.environ.get("MCP_FIXTURE_VERSION", "2025-11-25")
if VERSION not in VERSIONS:
    raise SystemExit(f"MCP_FIXTURE_VERSION {VERSION!r}: this server speaks {VERSIONS}")

NO_ARGUMENTS = {"type": "object", "properties": {}, "additionalProperties": False}
TOOLS = [
    {
        "name": "test_simple_text",
        "description": "Returns a simple text response.",
        "inputSchema": NO_ARGUMENTS,
    },
    {
        "name": "test_tool_with_logging",
        "description": "Sends three log messages while it runs.",
        "inputSchema": NO_ARGUMENTS,
    },
    {
        "name": "test_tool_with_progress",
        "description": "Reports progress for the request's progress token.",
        "inputSchema": NO_ARGUMENTS,
    },
]
STATIC_TEXT = "test://static-text"
RESOURCES = [
    {
        "uri": STATIC_TEXT,
        "name": "static-text",
        "description": "A static text resource.",
        "mimeType": "text/plain",
    }
]
SESSIONS: set[bytes] = set()
LOCAL = {"127.0.0.1", "localhost", "::1"}
CAPABILITIES = {
    "tools": {},
    "resources": {},
    "prompts": {},
    "logging": {},
}


class RpcError(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code, self.message = code, message


def text_result(text: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}]}


def notification(method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": method, "params": params}


def call_tool(params: dict[str, Any]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The notifications a call sends while it runs, and its result."""
    name = params.get("name")
    arguments = params.get("arguments")
    if name not in {tool["name"] for tool in TOOLS}:
        raise RpcError(-32602, f"Unknown tool: {name!r}")
    if arguments not in (None, {}):
        raise RpcError(-32602, f"{name} takes no arguments, got {json.dumps(arguments)}")
    if name == "test_simple_text":
        result = text_result("This is a simple text response for testing.")
        if "priority" in PLANTED:
            result["content"][0]["annotations"] = {"priority": 2}
        return [], result
    if name == "test_tool_with_logging":
        notes = []
        for words in ("Tool execution started", "Tool processing data", "Tool execution completed"):
            params = {"level": "info", "logger": "raw_http", "data": words}
            if "log_level" in PLANTED:
                del params["level"]
            notes.append(notification("notifications/message", params))
        return notes, text_result("Tool with logging executed successfully")
    token = (params.get("_meta") or {}).get("progressToken")
    notes = []
    if token is not None:
        for progress in (0, 50, 100):
            value: Any = "half" if "progress" in PLANTED else progress
            notes.append(
                notification(
                    "notifications/progress",
                    {"progressToken": token, "progress": value, "total": 100},
                )
            )
    return notes, text_result("Tool with progress executed successfully")


def tool_listing() -> list[dict[str, Any]]:
    tools = [dict(tool) for tool in TOOLS]
    if "input_schema" in PLANTED:
        del tools[0]["inputSchema"]
    return tools


def read_resource(params: dict[str, Any]) -> dict[str, Any]:
    if params.get("uri") != STATIC_TEXT:
        raise RpcError(-32002, f"Resource not found: {params.get('uri')!r}")
    contents = {
        "uri": STATIC_TEXT,
        "mimeType": "text/plain",
        "text": "This is the content of the static text resource.",
    }
    if "read_uri" in PLANTED:
        del contents["uri"]
    return {"contents": [contents]}


def initialize(params: dict[str, Any]) -> dict[str, Any]:
    return {
        "protocolVersion": VERSION,
        "capabilities": CAPABILITIES,
        "serverInfo": {"name": "raw-http", "version": "1.0.0"},
    }


METHODS = {
    "initialize": initialize,
    "ping": lambda params: {},
    "logging/setLevel": lambda params: {},
    "tools/list": lambda params: {"tools": tool_listing()},
    "resources/list": lambda params: {"resources": RESOURCES},
    "resources/templates/list": lambda params: {"resourceTemplates": []},
    "resources/read": read_resource,
    "prompts/list": lambda params: [] if "result_array" in PLANTED else {"prompts": []},
}


def answer(message: Any) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """The notifications to send, then the response (None for a notification)."""
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        error = {"code": -32600, "message": "Invalid Request"}
        return [], {"jsonrpc": "2.0", "id": None, "error": error}
    if "id" not in message:
        return [], None
    method, params = message.get("method"), message.get("params") or {}
    response: dict[str, Any] = {"jsonrpc": "2.0", "id": message["id"]}
    notes: list[dict[str, Any]] = []
    try:
        if method == "tools/call":
            notes, response["result"] = call_tool(params)
        elif method in METHODS:
            response["result"] = METHODS[method](params)
        elif "unknown_method" in PLANTED:
            raise RpcError(-32603, f"Internal error: no handler for {method}")
        else:
            raise RpcError(-32601, f"Method not found: {method}")
    except RpcError as exc:
        response.pop("result", None)
        response["error"] = {"code": exc.code, "message": exc.message}
    if method == "resources/list" and "jsonrpc" in PLANTED:
        response["jsonrpc"] = "1.0"
    return notes, response


def local(address: bytes) -> bool:
    """Whether a Host header (``host[:port]``) or an Origin (``scheme://host[:port]``) names
    this machine: what a server on localhost accepts, against DNS rebinding."""
    text = address.decode(errors="replace")
    return urllib.parse.urlsplit(text if "//" in text else f"//{text}").hostname in LOCAL


async def asgi(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] == "lifespan":
        while (await receive())["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        await send({"type": "lifespan.shutdown.complete"})
        return
    method, headers = scope["method"], dict(scope["headers"])
    origin = headers.get(b"origin", b"http://localhost")  # a client that is no browser: none
    if not (local(headers.get(b"host", b"")) and local(origin)) and "any_host" not in PLANTED:
        await respond(send, 403, b"text/plain", b"Forbidden: not a local Host or Origin")
        return
    session = headers.get(b"mcp-session-id")
    if session is not None and session not in SESSIONS:
        await respond(send, 404, b"text/plain", b"Session not found")
        return
    if method == "DELETE" and session is not None:
        if "session_kept" not in PLANTED:
            SESSIONS.discard(session)
        await respond(send, 200, b"application/json", b"")
        return
    if method != "POST":
        await respond(send, 405, b"text/plain", b"Method Not Allowed")
        return
    body, more = b"", True
    while more:
        event = await receive()
        body += event.get("body", b"")
        more = event.get("more_body", False)
    try:
        message = json.loads(body)
    except ValueError:
        error = {"code": -32700, "message": "Parse error"}
        reply = {"jsonrpc": "2.0", "id": None, "error": error}
        await respond(send, 400, b"application/json", json.dumps(reply).encode())
        return
    notes, response = answer(message)
    opened = []
    if isinstance(message, dict) and message.get("method") == "initialize":
        session = uuid.uuid4().hex.encode()
        SESSIONS.add(session)
        opened.append((b"mcp-session-id", session))
    if response is None:
        await respond(send, 202, b"application/json", b"", opened)
    elif notes:
        events = b"".join(
            b"event: message\ndata: " + json.dumps(m).encode() + b"\n\n" for m in [*notes, response]
        )
        await respond(send, 200, b"text/event-stream", events, opened)
    else:
        await respond(send, 200, b"application/json", json.dumps(response).encode(), opened)


async def respond(
    send: Any, status: int, content_type: bytes, body: bytes, headers: list[Any] | None = None
) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", content_type), *(headers or [])],
        }
    )
    await send({"type": "http.response.body", "body": body})
