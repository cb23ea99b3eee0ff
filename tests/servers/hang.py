"""`slow` with n < 0 never answers (sleeps forever); the server stays responsive otherwise."""

import sys

import anyio
from mcp.server import MCPServer
from pydantic import BaseModel

app = MCPServer("hang")


class Done(BaseModel):
    n: int


@app.tool()
async def slow(n: int) -> Done:
    """Returns at once for n >= 0; for n < 0 the call never completes."""
    if n < 0:
        print(f"slow: n={n}, sleeping forever", file=sys.stderr)
        await anyio.sleep_forever()  # async: other requests are still served meanwhile
    return Done(n=n)


@app.tool()
def double(x: int) -> int:
    """Correct tool (wrapped scalar)."""
    return 2 * x


if __name__ == "__main__":
    app.run()
