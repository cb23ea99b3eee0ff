"""The baseline for the per-call figure: a hand-written MCP SDK client loop (run by bench/run.py).

    python bench/raw_client.py --server bench/servers/echo.py --calls 250

starts the server over stdio with the installed SDK's `mcp.Client` (protocol negotiated as
the SDK does by default: `server/discover`, falling back to `initialize`), calls `echo`
`--calls` times with varied arguments, checks each result, and prints one JSON object:
calls, connect_seconds (start + handshake), loop_seconds (the calls), close_seconds.
The server's stderr goes to this process's stderr.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

import anyio
from mcp import Client, StdioServerParameters


async def run(server: str, calls: int, tool: str) -> dict[str, Any]:
    params = StdioServerParameters(command=sys.executable, args=[server])
    start = time.perf_counter()
    client = Client(params)
    async with client:
        connected = time.perf_counter()
        for index in range(calls):
            result = await client.call_tool(tool, {"text": f"call {index} é", "n": index})
            if result.is_error:
                raise SystemExit(f"{tool} returned isError on call {index}: {result.content}")
        looped = time.perf_counter()
    closed = time.perf_counter()
    return {
        "calls": calls,
        "connect_seconds": connected - start,
        "loop_seconds": looped - connected,
        "close_seconds": closed - looped,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", required=True, help="path of the Python server script")
    parser.add_argument("--calls", type=int, required=True)
    parser.add_argument("--tool", default="echo")
    args = parser.parse_args()
    print(json.dumps(anyio.run(run, args.server, args.calls, args.tool)))


if __name__ == "__main__":
    main()
