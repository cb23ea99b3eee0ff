"""Speaks only the pre-2026 `initialize` handshake: `server/discover` is "Method not found".

Hand-written JSON-RPC over stdio, standard library only (starts in milliseconds).
Until `notifications/initialized` has arrived, every request except `initialize` and
`ping` is refused with -32600 "Server not initialized" (a strict reading of the
lifecycle rules: a client must finish the handshake before using the server).
"""

import json
import sys

SUPPORTED = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
DEFAULT_VERSION = "2025-06-18"

TOOLS = [
    {
        "name": "word_count",
        "description": "Count the words and characters of a text.",
        "inputSchema": {  # declares draft-07 explicitly
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"],
            "additionalProperties": False,
        },
        "outputSchema": {
            "type": "object",
            "properties": {
                "words": {"type": "integer", "minimum": 0},
                "characters": {"type": "integer", "minimum": 0},
            },
            "required": ["words", "characters"],
        },
    },
    {
        "name": "repeat",
        "description": "Repeat a text 1 to 5 times.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "text": {"type": "string"},
                "times": {"type": "integer", "minimum": 1, "maximum": 5},
            },
            "required": ["text", "times"],
        },
        "outputSchema": {
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"],
        },
    },
]


def call_tool(name, args):
    """Return (structuredContent, None) on success or (None, error text) for bad arguments."""
    text = args.get("text")
    if not isinstance(text, str):
        return None, f"{name}: `text` must be a string"
    if name == "word_count":
        if set(args) - {"text"}:
            return None, "word_count: unexpected arguments"
        return {"words": len(text.split()), "characters": len(text)}, None
    times = args.get("times")
    if type(times) is not int or not 1 <= times <= 5:
        return None, "repeat: `times` must be an integer from 1 to 5"
    return {"text": text * times}, None


def handle(method, params, state):
    """Return a result dict, or raise RpcError."""
    if method == "initialize":
        requested = params.get("protocolVersion")
        state["initialize_seen"] = True
        return {
            "protocolVersion": requested if requested in SUPPORTED else DEFAULT_VERSION,
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "legacy-only", "version": "1.0"},
        }
    if method == "ping":
        return {}
    if method not in ("tools/list", "tools/call"):
        raise RpcError(-32601, "Method not found")  # includes server/discover
    if not state["initialized"]:
        raise RpcError(-32600, "Server not initialized")
    if method == "tools/list":
        return {"tools": TOOLS}
    name, args = params.get("name"), params.get("arguments") or {}
    if name not in ("word_count", "repeat"):
        raise RpcError(-32602, f"Unknown tool: {name}")
    if not isinstance(args, dict):
        raise RpcError(-32602, "arguments must be an object")
    structured, error = call_tool(name, args)
    if error is not None:
        return {"content": [{"type": "text", "text": error}], "isError": True}
    # structuredContent mirrored into a text block as JSON, as the spec recommends
    return {
        "content": [{"type": "text", "text": json.dumps(structured)}],
        "structuredContent": structured,
    }


class RpcError(Exception):
    def __init__(self, code, message):
        super().__init__(message)
        self.code, self.message = code, message


def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def main():
    state = {"initialize_seen": False, "initialized": False}
    for raw in iter(sys.stdin.buffer.readline, b""):  # bytes: no locale-dependent decoding
        if not raw.strip():
            continue
        try:
            msg = json.loads(raw.decode("utf-8"))
        except ValueError:  # includes UnicodeDecodeError
            send(
                {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}}
            )
            continue
        if not isinstance(msg, dict) or "method" not in msg:
            if isinstance(msg, dict) and ("result" in msg or "error" in msg):
                continue  # a response to nothing we asked: ignore
            send(
                {
                    "jsonrpc": "2.0",
                    "id": None,
                    "error": {"code": -32600, "message": "Invalid Request"},
                }
            )
            continue
        method, params = msg["method"], msg.get("params") or {}
        if "id" not in msg:  # notification
            if method == "notifications/initialized" and state["initialize_seen"]:
                state["initialized"] = True
            continue
        try:
            send({"jsonrpc": "2.0", "id": msg["id"], "result": handle(method, params, state)})
        except RpcError as exc:
            send(
                {
                    "jsonrpc": "2.0",
                    "id": msg["id"],
                    "error": {"code": exc.code, "message": exc.message},
                }
            )
        except Exception as exc:  # never die on a bad request
            print(f"legacy-only: internal error: {exc!r}", file=sys.stderr)
            send(
                {
                    "jsonrpc": "2.0",
                    "id": msg["id"],
                    "error": {"code": -32603, "message": "Internal error"},
                }
            )


if __name__ == "__main__":
    main()
