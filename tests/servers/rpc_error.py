"""`lookup` crashes on a key of more than 3 chars and answers the exception's message as a
JSON-RPC error (-32603), not a result (a server that wraps what it caught into MCPError)."""

import sys

from mcp.server import MCPServer
from mcp.shared.exceptions import MCPError
from mcp.types import INTERNAL_ERROR
from pydantic import BaseModel

app = MCPServer("rpc-error")
_SHARDS: dict[str, dict[str, int]] = {}  # the long keys' shard was never loaded


class Entry(BaseModel):
    key: str
    value: int


class Echo(BaseModel):
    text: str


@app.tool()
def lookup(key: str) -> Entry:
    """Look a key up; keys of more than 3 characters (code points) fail at the protocol level."""
    if len(key) > 3:
        print(f"lookup: raising JSON-RPC error for key of length {len(key)}", file=sys.stderr)
        try:
            value = _SHARDS.get("long").get(key)  # type: ignore[union-attr]  # the bug
        except AttributeError as exc:
            # MCPError passes through MCPServer unchanged: a JSON-RPC error, no isError result.
            raise MCPError(code=INTERNAL_ERROR, message=f"Internal error: {exc}") from None
        return Entry(key=key, value=value)
    return Entry(key=key, value=sum(map(ord, key)))


@app.tool()
def echo(text: str) -> Echo:
    """Correct tool: echoes its input."""
    return Echo(text=text)


if __name__ == "__main__":
    app.run()
