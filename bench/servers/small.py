"""Bench fixture: a small server without an SDK, two tools over stdio (the start-up figure).

- `echo(text: string, n: integer)` returns `text` as one text block (the same shape as
  `servers/echo.py`'s tool, so the bare client loop of the per-call figure can call it);
- `add(a: integer, b: integer)` returns the sum as text and as `structuredContent`
  (`{"sum": ...}`, declared in its `outputSchema`).

Standard library only, handshake-era protocol (`initialize`; anything else it does not
know, `server/discover` included, is refused with -32601), so it starts in milliseconds and
the figure is the client's time. Arguments the inputSchema refuses get an isError result
that says why, as SDK servers answer.
"""

from __future__ import annotations

import json
import sys
from typing import Any

TOOLS = [
    {
        "name": "echo",
        "description": "Return the text unchanged.",
        "inputSchema": {
            "type": "object",
            "properties": {"text": {"type": "string"}, "n": {"type": "integer"}},
            "required": ["text", "n"],
            "additionalProperties": False,
        },
        "annotations": {"readOnlyHint": True},
    },
    {
        "name": "add",
        "description": "Add two integers.",
        "inputSchema": {
            "type": "object",
            "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
            "required": ["a", "b"],
            "additionalProperties": False,
        },
        "outputSchema": {
            "type": "object",
            "properties": {"sum": {"type": "integer"}},
            "required": ["sum"],
        },
        "annotations": {"readOnlyHint": True},
    },
]


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def call(name: Any, arguments: Any) -> dict[str, Any]:
    if not isinstance(arguments, dict):
        return refused("arguments must be an object")
    if name == "echo":
        if set(arguments) != {"text", "n"}:
            return refused("echo takes text and n")
        if not isinstance(arguments["text"], str) or not is_int(arguments["n"]):
            return refused("text must be a string and n an integer")
        return {"content": [{"type": "text", "text": arguments["text"]}]}
    if name == "add":
        if set(arguments) != {"a", "b"} or not all(is_int(v) for v in arguments.values()):
            return refused("add takes two integers, a and b")
        total = arguments["a"] + arguments["b"]
        return {
            "content": [{"type": "text", "text": json.dumps({"sum": total})}],
            "structuredContent": {"sum": total},
        }
    return refused(f"unknown tool {name!r}")


def refused(why: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": f"Invalid arguments: {why}"}], "isError": True}


def answer(message: dict[str, Any]) -> dict[str, Any]:
    method, params = message.get("method"), message.get("params") or {}
    if method == "initialize":
        result: dict[str, Any] = {
            "protocolVersion": "2025-06-18",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "bench-small", "version": "1.0"},
        }
    elif method == "tools/list":
        result = {"tools": TOOLS}
    elif method == "ping":
        result = {}
    elif method == "tools/call":
        result = call(params.get("name"), params.get("arguments"))
    else:
        error = {"code": -32601, "message": f"Method not found: {method}"}
        return {"jsonrpc": "2.0", "id": message["id"], "error": error}
    return {"jsonrpc": "2.0", "id": message["id"], "result": result}


def main() -> None:
    out = sys.stdout
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if isinstance(message, dict) and "method" in message and "id" in message:
            out.write(json.dumps(answer(message)) + "\n")
            out.flush()


if __name__ == "__main__":
    main()
