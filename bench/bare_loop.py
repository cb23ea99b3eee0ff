"""The ceiling of figure 4: the many-tools server's calls made by the barest client there is.

    python bench/bare_loop.py --calls 1000 [--at EPOCH]

starts `servers/many_tools.py` over stdio (BENCH_TOOLS and BENCH_CALL_MS from the
environment, as the plugin's runs get them), completes the handshake by hand-written JSON-RPC
(no SDK, no checks, no generation), waits until `--at` (a `time.time()`, so that loops in
several processes start their calls together), then makes `--calls` calls cycling over the
tools with fixed valid arguments, each answer read before the next call. Prints one JSON
object: calls, start and end (`time.time()` of the first call and of the last answer).

One loop against two processes side by side, with the same calls in all, says how much
faster two streams of this server's calls can go on this machine at all: the server's own
CPU per call and the machine's cores bound that, whatever the client. The plugin's `-n 2`
run cannot beat it, and pays its fixed costs on top.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

SERVER = Path(__file__).parent / "servers" / "many_tools.py"
# Valid arguments of each shape of tool (servers/many_tools.py names them by prefix).
ARGUMENTS: dict[str, dict[str, Any]] = {
    "text": {"text": "bench"},
    "sum": {"a": 2, "b": 3},
    "tags": {"name": "bench", "tags": ["a", "b"]},
    "point": {"x": 1.5, "y": -2.0, "label": "p"},
}


class Loop:
    """One server process and the calls made to it."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, str(SERVER)], stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )
        self.next_id = 0
        self.answer(
            "initialize",
            {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "bare-loop", "version": "1"},
            },
        )
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        self.tools = [tool["name"] for tool in self.answer("tools/list", {})["tools"]]

    def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()

    def answer(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        assert self.process.stdout is not None
        while True:
            message = json.loads(self.process.stdout.readline())
            if message.get("id") == self.next_id:
                break  # a notification or a request of the server's is not the answer
        if "result" not in message or message["result"].get("isError"):
            raise SystemExit(f"{method} failed: {message}")
        result: dict[str, Any] = message["result"]
        return result

    def calls(self, count: int) -> None:
        for index in range(count):
            name = self.tools[index % len(self.tools)]
            self.answer("tools/call", {"name": name, "arguments": ARGUMENTS[name.split("_")[0]]})

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, required=True)
    parser.add_argument("--at", type=float, default=0.0, help="time.time() to start calling at")
    args = parser.parse_args()
    loop = Loop()
    time.sleep(max(0.0, args.at - time.time()))
    start = time.time()
    loop.calls(args.calls)
    end = time.time()
    loop.close()
    print(json.dumps({"calls": args.calls, "start": start, "end": end}))


if __name__ == "__main__":
    main()
