"""Lists 7 tools over 3 pages of `tools/list`; page 1 nextCursor is "" (only absence ends it).

Hand-written JSON-RPC over stdio, standard library only, legacy handshake only
(`server/discover` is "Method not found"). Requests are served whether or not
`notifications/initialized` has arrived. Cursors are opaque: "" leads to page 2,
"cGFnZS0z" to page 3, and anything else is -32602 "Invalid cursor".
"""

import json
import sys

SUPPORTED = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")


def echo_tool(n):
    return {
        "name": f"echo_{n}",
        "description": f"Echo #{n}: returns its text unchanged.",
        "inputSchema": {
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"],
        },
        "outputSchema": {
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"],
        },
    }


# cursor received (None = no cursor) -> (tools on that page, nextCursor or None)
PAGES = {
    None: ([echo_tool(n) for n in (1, 2, 3)], ""),  # empty-string cursor: NOT the end
    "": ([echo_tool(n) for n in (4, 5)], "cGFnZS0z"),
    "cGFnZS0z": ([echo_tool(n) for n in (6, 7)], None),  # no nextCursor: the end
}
NAMES = {f"echo_{n}" for n in range(1, 8)}


class RpcError(Exception):
    def __init__(self, code, message):
        super().__init__(message)
        self.code, self.message = code, message


def handle(method, params):
    if method == "initialize":
        requested = params.get("protocolVersion")
        return {
            "protocolVersion": requested if requested in SUPPORTED else "2025-06-18",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "paginated", "version": "1.0"},
        }
    if method == "ping":
        return {}
    if method == "tools/list":
        cursor = params.get("cursor")
        if cursor not in PAGES:
            raise RpcError(-32602, "Invalid cursor")
        tools, next_cursor = PAGES[cursor]
        result = {"tools": tools}
        if next_cursor is not None:
            result["nextCursor"] = next_cursor
        return result
    if method == "tools/call":
        name, args = params.get("name"), params.get("arguments") or {}
        if name not in NAMES:
            raise RpcError(-32602, f"Unknown tool: {name}")
        text = args.get("text") if isinstance(args, dict) else None
        if not isinstance(text, str):
            return {
                "content": [{"type": "text", "text": "`text` must be a string"}],
                "isError": True,
            }
        return {
            "content": [{"type": "text", "text": json.dumps({"text": text})}],
            "structuredContent": {"text": text},
        }
    raise RpcError(-32601, "Method not found")  # includes server/discover


def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def main():
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
        if not isinstance(msg, dict) or "method" not in msg or "id" not in msg:
            continue  # notifications and stray responses need no answer
        try:
            send(
                {
                    "jsonrpc": "2.0",
                    "id": msg["id"],
                    "result": handle(msg["method"], msg.get("params") or {}),
                }
            )
        except RpcError as exc:
            send(
                {
                    "jsonrpc": "2.0",
                    "id": msg["id"],
                    "error": {"code": exc.code, "message": exc.message},
                }
            )
        except Exception as exc:  # never die on a bad request
            print(f"paginated: internal error: {exc!r}", file=sys.stderr)
            send(
                {
                    "jsonrpc": "2.0",
                    "id": msg["id"],
                    "error": {"code": -32603, "message": "Internal error"},
                }
            )


if __name__ == "__main__":
    main()
