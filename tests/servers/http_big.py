"""Over HTTP: `big` answers with about 2 MB of text (HTTP_BIG_KB overrides, in KB); `small`
is right, for contrast. Served by http_serve.py."""

import os

from mcp.server import MCPServer

app = MCPServer("http-big")
KILOBYTES = int(os.environ.get("HTTP_BIG_KB", "2048"))


@app.tool()
def big() -> str:
    """About KILOBYTES KB of text."""
    return "x" * (KILOBYTES * 1024)


@app.tool()
def small() -> str:
    """A short text."""
    return "small"
