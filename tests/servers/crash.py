"""`divide` with b == 0 kills the whole server process (exit status 3) mid-call.

In-process (--mcp-app, imported by pytest itself) the same crash is `SystemExit(3)`, which
ends the server's run: `os._exit` would end pytest along with it.
"""

import os
import sys

from mcp.server import MCPServer
from pydantic import BaseModel

app = MCPServer("crash")


class Quotient(BaseModel):
    quotient: int
    remainder: int


class Pong(BaseModel):
    ok: bool


@app.tool()
def divide(a: int, b: int) -> Quotient:
    """Integer division; b == 0 crashes the process instead of reporting an error."""
    if b == 0:
        sys.stderr.write("fatal: division by zero\n")
        sys.stderr.flush()
        if "pytest" in sys.modules:  # in-process: end the server's run, not the process
            sys.exit(3)
        os._exit(3)
    q, r = divmod(a, b)  # integer maths: no float overflow for huge inputs
    return Quotient(quotient=q, remainder=r)


@app.tool()
def ping_tool() -> Pong:
    """Correct tool with no arguments."""
    return Pong(ok=True)


if __name__ == "__main__":
    app.run()
