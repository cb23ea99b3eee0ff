"""A minimal handshake-era (pre-2026) MCP server over stdio, standard library only.

Fixture servers built on it start in milliseconds and show exactly the bytes they are given:
`serve(name, tools, call)` lists `tools` as they are and answers `tools/call` with whatever
`call(name, arguments)` returns (a result dict), or with the JSON-RPC error it raises.
`server/discover` is refused with -32601, as every handshake-era server does.
"""

import json
import sys

SUPPORTED = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")


class RpcError(Exception):
    def __init__(self, code, message):
        super().__init__(message)
        self.code, self.message = code, message


def text_result(value, *, structured=None, is_error=False):
    result = {"content": [{"type": "text", "text": value}]}
    if structured is not None:
        result["structuredContent"] = structured
    if is_error:
        result["isError"] = True
    return result


def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def serve(name, tools, call, *, pages=None):
    """Run until stdin closes. `pages`, if given, splits the listing: a list of (tools, cursor)."""
    for raw in iter(sys.stdin.buffer.readline, b""):
        if not raw.strip():
            continue
        msg = json.loads(raw)
        method, params = msg.get("method"), msg.get("params") or {}
        if "id" not in msg:
            continue
        try:
            if method == "initialize":
                requested = params.get("protocolVersion")
                result = {
                    "protocolVersion": requested if requested in SUPPORTED else SUPPORTED[-1],
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": name, "version": "1.0"},
                }
            elif method == "ping":
                result = {}
            elif method == "tools/list":
                result = {"tools": tools}
            elif method == "tools/call":
                result = call(params.get("name"), params.get("arguments") or {})
            else:
                raise RpcError(-32601, "Method not found")
            send({"jsonrpc": "2.0", "id": msg["id"], "result": result})
        except RpcError as exc:
            send(
                {
                    "jsonrpc": "2.0",
                    "id": msg["id"],
                    "error": {"code": exc.code, "message": exc.message},
                }
            )
