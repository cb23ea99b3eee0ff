"""FastMCP on the old Python SDK (`mcp` 1.6, pinned in requirements.txt; run from the
virtualenv tests/conftest.py builds for it: old_sdk_command), as many published servers
still are (chroma-mcp pins `mcp==1.6.0`). A first request of `server/discover` breaks it:
pydantic refuses the unknown method in the SDK's reader, which dies without an answer; the
process hangs until the next message arrives, then exits with status 1. Started again, it
answers `initialize` (offering 2024-11-05) and `tools/list` normally.

- `fragile(loud=true)` kills the process (exit status 3) mid-call: the plugin must restart
  this server, with the handshake alone. With MCP_FIXTURE_BUGS=0 it never does.
- MCP_FIXTURE_DIE_ON_INITIALIZE=1: the process exits (status 4) on `initialize` too, so it
  never starts whatever it is sent.
- MCP_FIXTURE_START_LOG=path: each process appends a line to that file when it starts, so
  a test can count the starts.
"""

import os
import sys

from mcp.server.fastmcp import FastMCP
from mcp.server.session import ServerSession

BUGS = os.environ.get("MCP_FIXTURE_BUGS", "1") != "0"

if os.environ.get("MCP_FIXTURE_START_LOG"):
    with open(os.environ["MCP_FIXTURE_START_LOG"], "a") as log:
        log.write(f"{os.getpid()}\n")

if os.environ.get("MCP_FIXTURE_DIE_ON_INITIALIZE") == "1":
    received = ServerSession._received_request

    async def die_on_initialize(self, responder):  # type: ignore[no-untyped-def]
        if getattr(responder.request.root, "method", "") == "initialize":
            sys.stderr.write("fatal: no configuration found\n")
            sys.stderr.flush()
            os._exit(4)
        return await received(self, responder)

    ServerSession._received_request = die_on_initialize

app = FastMCP("old-sdk")


@app.tool()
def fragile(word: str, loud: bool = False) -> str:
    """Echoes a word, in capitals when loud."""
    if BUGS and loud:
        sys.stderr.write("fatal: loud output is not supported\n")
        sys.stderr.flush()
        os._exit(3)
    return word.upper() if loud else word


@app.tool()
def add(a: int, b: int) -> int:
    """Adds two integers."""
    return a + b


@app.tool()
def shout(text: str) -> str:
    """The text in capitals."""
    return text.upper()


if __name__ == "__main__":
    app.run()
