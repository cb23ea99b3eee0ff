"""Bench fixture: `fetch(seed: int)` answers with one text block of SIZE bytes (argv[1])
after a short prefix naming the seed.

    python bench/servers/big_results.py 10000000   # 10 MB results
    python bench/servers/big_results.py 100        # tiny results: the memory baseline

Standard library only, handshake-era protocol (`initialize`; `server/discover` is refused
with -32601), so it starts in milliseconds. The result is streamed in 1 MiB chunks: the
server never holds it, so the memory figure is about the client. Arguments the inputSchema
refuses get JSON-RPC -32602.
"""

from __future__ import annotations

import json
import sys
from typing import Any, BinaryIO

SIZE = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000_000
TOOL = {
    "name": "fetch",
    "description": "A document of a fixed size (prose).",
    "inputSchema": {
        "type": "object",
        "properties": {"seed": {"type": "integer"}},
        "required": ["seed"],
        "additionalProperties": False,
    },
}
# Plain prose, no characters that JSON escapes: SIZE bytes of text are SIZE bytes on the wire.
SENTENCE = b"The quick brown fox jumps over the lazy dog while the report keeps growing. "
CHUNK = SENTENCE * ((1 << 20) // len(SENTENCE))


def send(out: BinaryIO, message: dict[str, Any]) -> None:
    out.write(json.dumps(message).encode() + b"\n")
    out.flush()


def stream_result(out: BinaryIO, msg_id: Any, seed: int) -> None:
    head = {"jsonrpc": "2.0", "id": msg_id, "result": {"content": [{"type": "text", "text": ""}]}}
    prefix, suffix = json.dumps(head).split('""')
    out.write(prefix.encode() + b'"' + f"seed {seed}: ".encode())
    left = SIZE
    while left > 0:
        piece = CHUNK[:left]
        out.write(piece)
        left -= len(piece)
    out.write(b'"' + suffix.encode() + b"\n")
    out.flush()


def handle(out: BinaryIO, message: dict[str, Any]) -> None:
    method, msg_id = message.get("method"), message.get("id")
    params = message.get("params") or {}
    if method == "initialize":
        result = {
            "protocolVersion": "2025-06-18",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "bench-big", "version": "1.0"},
        }
        send(out, {"jsonrpc": "2.0", "id": msg_id, "result": result})
    elif method == "tools/list":
        send(out, {"jsonrpc": "2.0", "id": msg_id, "result": {"tools": [TOOL]}})
    elif method == "ping":
        send(out, {"jsonrpc": "2.0", "id": msg_id, "result": {}})
    elif method == "tools/call":
        arguments = params.get("arguments")
        seed = arguments.get("seed") if isinstance(arguments, dict) else None
        valid = (
            params.get("name") == "fetch"
            and isinstance(arguments, dict)
            and set(arguments) == {"seed"}
            and isinstance(seed, int)
            and not isinstance(seed, bool)
        )
        if not valid:
            error = {"code": -32602, "message": "Invalid params: fetch takes {seed: integer}"}
            send(out, {"jsonrpc": "2.0", "id": msg_id, "error": error})
        else:
            assert isinstance(seed, int)
            stream_result(out, msg_id, seed)
    else:
        error = {"code": -32601, "message": "Method not found"}
        send(out, {"jsonrpc": "2.0", "id": msg_id, "error": error})


def main() -> None:
    out = sys.stdout.buffer
    for raw in iter(sys.stdin.buffer.readline, b""):
        try:
            message = json.loads(raw)
        except ValueError:
            continue
        if isinstance(message, dict) and "method" in message and "id" in message:
            handle(out, message)


if __name__ == "__main__":
    main()
