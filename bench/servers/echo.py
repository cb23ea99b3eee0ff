"""Bench fixture: one trivial tool with a flat schema, `echo(text: str, n: int) -> str`.

An `mcp.server.MCPServer` over stdio, as a real Python server is written; used to compare
the plugin's per-call cost with a hand-written SDK client loop against the same server.
"""

from mcp.server import MCPServer

app = MCPServer("bench-echo")


@app.tool()
def echo(text: str, n: int) -> str:
    """Return `text` unchanged (`n` is only there to make the schema two-field)."""
    return text


if __name__ == "__main__":
    app.run()
