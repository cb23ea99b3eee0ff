"""An SDK-free MCP server over stdio, raw JSON-RPC, for the protocol check's rules
(judges/protocol_rules): `--version V` speaks one protocol version (the four handshake
versions through `initialize`, 2026-07-28 through `server/discover` and per-request `_meta`),
and answers every request as that version's specification asks. `--break NAME` breaks one
rule (BREAKS) and nothing else, so that each break fails the protocol item alone.

Standard library only: it starts in milliseconds.
"""

import argparse
import json
import sys

MODERN = "2026-07-28"
VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", MODERN)
BREAKS = (
    "none",
    "arguments-null",  # tools/call with arguments: null answered -32603
    "arguments-array",  # arguments: [] kills the server (an unhandled exception)
    "missing-name",  # a call without a name answered with a result
    "unknown-tool",  # an unknown tool answered with -32603
    "unknown-method",  # an unknown method answered with -32603
    "pagination",  # resources/list's second page points back to the first (a loop)
    "repeated-entry",  # prompts/list lists a prompt on both of its pages
    "list-changed",  # tools/list grows after any tools/call, without list_changed
    "per-connection",  # 2026: tools/list differs by process (a different tool per start)
    "unsupported-version",  # 2026: a wrong version answered as if it were right
    "resource-not-found",  # a missing resource: -32002 on 2026, -32603 before
    "discover",  # 2026: server/discover answered only as a process's first request
    "error-codes",  # 2026: a call without a name answered -32050, a code the spec does not define
    # What the version's schema.json refuses (schema/spec), each in one message:
    "block-priority",  # echo's text block: annotations.priority 2 (Annotations: 0 to 1)
    "block-audience",  # echo's text block: annotations.audience ["robot"] (Role)
    "log-level",  # during a call of echo, a notifications/message without level
    "progress-value",  # during a call of echo, progress "half" for the call's token
    "read-uri",  # a read's contents entry without uri
    "result-type",  # 2026: echo's result without resultType
    "list-meta",  # tools/list's _meta a string (ListToolsResult)
    "server-info",  # initialize's serverInfo without version; 2026: discover without ttlMs
    "tool-annotation",  # echo listed with annotations.readOnlyHint "yes" (Tool)
)

parser = argparse.ArgumentParser()
parser.add_argument("--version", choices=VERSIONS, default="2025-06-18")
parser.add_argument("--break", dest="broken", choices=BREAKS, default="none")
options = parser.parse_args()
VERSION, BROKEN = options.version, options.broken
IS_MODERN = VERSION == MODERN

OBJ = {"type": "object", "properties": {"text": {"type": "string"}}, "additionalProperties": False}
TOOLS = [
    {
        "name": "echo",
        "description": "Echo the text.",
        "inputSchema": OBJ,
        **({"annotations": {"readOnlyHint": "yes"}} if BROKEN == "tool-annotation" else {}),
    },
    {"name": "shout", "description": "Echo the text in capitals.", "inputSchema": OBJ},
]
PROMPTS = [
    {"name": "greet", "description": "A greeting."},
    {"name": "part", "description": "A part."},
]
RESOURCES = [
    {"uri": "memo://one", "name": "one", "mimeType": "text/plain"},
    {"uri": "memo://two", "name": "two", "mimeType": "text/plain"},
]
CAPABILITIES = {
    "tools": {"listChanged": True},
    "prompts": {"listChanged": True},
    "resources": {"listChanged": True},
}
calls = 0  # tools/call requests so far
answered = 0  # requests answered so far


class Error(Exception):
    def __init__(self, code, message, data=None):
        super().__init__(message)
        self.code, self.message, self.data = code, message, data


def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def result(body, *, listing=False):
    """A result as this version shapes it: 2026-07-28 adds resultType, and on lists and
    reads ttlMs and cacheScope."""
    if not IS_MODERN:
        return body
    extra = {"ttlMs": 0, "cacheScope": "public"} if listing else {}
    return {"resultType": "complete", **body, **extra}


def pages(items, field, cursor, *, loop=False, repeat=False):
    """Two pages: the first item, then the rest. ``loop``: the second page points back to
    the first; ``repeat``: the second page lists the first item again."""
    if cursor is None:
        return result({field: items[:1], "nextCursor": "page-2"}, listing=True)
    if cursor != "page-2":
        raise Error(-32602, f"invalid cursor {cursor!r}")
    rest = items[:1] + items[1:] if repeat else items[1:]
    body = {field: rest}
    if loop:
        body["nextCursor"] = "page-2"
    return result(body, listing=True)


def tools_now():
    if BROKEN == "list-changed" and calls:
        return [*TOOLS, {"name": "late", "inputSchema": OBJ}]
    if BROKEN == "per-connection":
        # A tool named after this process: every connection (a process) lists its own.
        import os

        return [*TOOLS, {"name": f"mine_{os.getpid()}", "inputSchema": OBJ}]
    return TOOLS


def call_tool(params):
    global calls
    calls += 1
    name, arguments = params.get("name"), params.get("arguments", {})
    if not isinstance(name, str):
        if BROKEN == "missing-name":
            return result({"content": [{"type": "text", "text": "ran"}]})
        if BROKEN == "error-codes" and IS_MODERN:
            raise Error(-32050, "no tool name")
        raise Error(-32602, "tools/call needs a name")
    if name not in {tool["name"] for tool in tools_now()}:
        if BROKEN == "unknown-tool":
            raise Error(-32603, f"internal error: KeyError {name!r}")
        raise Error(-32602, f"Unknown tool: {name}")
    if arguments is None and BROKEN == "arguments-null":
        raise Error(-32603, "internal error: 'NoneType' object has no attribute 'get'")
    if isinstance(arguments, list) and BROKEN == "arguments-array":
        sys.exit("AttributeError: 'list' object has no attribute 'get'")
    if not isinstance(arguments, dict):
        raise Error(-32602, "arguments must be an object")
    wrong = [key for key, value in arguments.items() if key != "text" or not isinstance(value, str)]
    if wrong:
        # Input validation: a tool execution error, which the model can correct.
        return result({"content": [{"type": "text", "text": f"bad: {wrong}"}], "isError": True})
    text = str(arguments.get("text", ""))
    said = text.upper() if name == "shout" else text
    block = {"type": "text", "text": said}
    if name == "echo":
        return echo(block, params)
    return result({"content": [block]})


def echo(block, params):
    """echo's answer, with the schema break asked for."""
    token = (params.get("_meta") or {}).get("progressToken")
    if BROKEN == "log-level":
        send({"jsonrpc": "2.0", "method": "notifications/message", "params": {"data": "echo"}})
    if BROKEN == "progress-value" and token is not None:
        progress = {"progressToken": token, "progress": "half"}
        send({"jsonrpc": "2.0", "method": "notifications/progress", "params": progress})
    if BROKEN == "block-priority":
        block["annotations"] = {"priority": 2}
    if BROKEN == "block-audience":
        block["annotations"] = {"audience": ["robot"]}
    if BROKEN == "result-type":
        return {"content": [block]}
    return result({"content": [block]})


def read_resource(params):
    uri = params.get("uri")
    for resource in RESOURCES:
        if resource["uri"] == uri:
            entry = {"uri": uri, "mimeType": "text/plain", "text": uri}
            if BROKEN == "read-uri":
                del entry["uri"]
            return result({"contents": [entry]}, listing=True)
    if BROKEN == "resource-not-found":
        raise Error(-32002 if IS_MODERN else -32603, "Resource not found", {"uri": uri})
    raise Error(-32602 if IS_MODERN else -32002, "Resource not found", {"uri": uri})


def discover(params):
    if BROKEN == "discover" and answered:
        raise Error(-32601, "Method not found: server/discover")
    found = result(
        {
            "supportedVersions": [MODERN],
            "capabilities": CAPABILITIES,
            "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "raw-stdio", "version": "1"}},
        },
        listing=True,
    )
    if BROKEN == "server-info":
        del found["ttlMs"]
    return found


def initialize(params):
    if IS_MODERN:
        raise Error(-32601, "initialize is not a 2026-07-28 method")
    return {
        "protocolVersion": VERSION,
        "capabilities": CAPABILITIES,
        "serverInfo": {
            "name": "raw-stdio",
            **({} if BROKEN == "server-info" else {"version": "1"}),
        },
    }


HANDLERS = {
    "initialize": initialize,
    "ping": lambda params: result({}),
    "tools/list": lambda params: {
        **pages(tools_now(), "tools", params.get("cursor")),
        **({"_meta": "page"} if BROKEN == "list-meta" else {}),
    },
    "tools/call": call_tool,
    "prompts/list": lambda params: pages(
        PROMPTS, "prompts", params.get("cursor"), repeat=BROKEN == "repeated-entry"
    ),
    "resources/list": lambda params: pages(
        RESOURCES, "resources", params.get("cursor"), loop=BROKEN == "pagination"
    ),
    "resources/templates/list": lambda params: result({"resourceTemplates": []}, listing=True),
    "resources/read": read_resource,
    "prompts/get": lambda params: result(
        {"messages": [{"role": "user", "content": {"type": "text", "text": "hello"}}]}
    ),
}


def check_version(params):
    """2026-07-28: each request names its version in _meta; one this server does not speak
    is refused with -32022 (UnsupportedProtocolVersionError)."""
    meta = params.get("_meta") if isinstance(params.get("_meta"), dict) else {}
    asked = meta.get("io.modelcontextprotocol/protocolVersion")
    if asked != MODERN and BROKEN != "unsupported-version":
        raise Error(
            -32022,
            "Unsupported protocol version",
            {"supported": [MODERN], "requested": asked},
        )


def answer(method, params):
    if IS_MODERN and method == "server/discover":
        return discover(params)
    if IS_MODERN:
        check_version(params)
    handler = HANDLERS.get(method)
    if handler is None:
        if BROKEN == "unknown-method":
            raise Error(-32603, f"internal error: no handler for {method}")
        raise Error(-32601, f"Method not found: {method}")
    return handler(params)


for line in sys.stdin:
    try:
        message = json.loads(line)
    except ValueError:
        send({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}})
        continue
    if not isinstance(message, dict) or "id" not in message:
        continue  # a notification, or a response to nothing we asked
    params = message.get("params")
    params = params if isinstance(params, dict) else {}
    reply = {"jsonrpc": "2.0", "id": message["id"]}
    try:
        reply["result"] = answer(message.get("method"), params)
    except Error as exc:
        reply["error"] = {"code": exc.code, "message": exc.message}
        if exc.data is not None:
            reply["error"]["data"] = exc.data
    send(reply)
    answered += 1
