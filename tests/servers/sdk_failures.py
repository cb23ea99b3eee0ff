"""A Python-SDK (`MCPServer`) server whose failures the SDK wraps into isError results.

With MCP_FIXTURE_BUGS unset (or "1") it has three planted bugs; with MCP_FIXTURE_BUGS=0 it is
the same server, correct:

- `price_quote(quantity)`: returns a `Quote` model; for quantity > 40 the bug returns a
  string `total`, which the SDK's output conversion refuses ("Error executing tool
  price_quote", traceback on stderr);
- `initial(word)`: `word[0]`, an IndexError on the empty string;
- `health()`: no arguments, always raises (correct variant: answers "ok");
- `whoami()`: no arguments, refuses every call cleanly ("not signed in"): as it cannot be
  given other inputs, that is what every client gets (correct variant: "guest");
- `lookup(sku)`: refuses every sku but "A-1" with ToolError: a clean refusal, never a bug;
- `toggle(enabled)`: a boolean; pydantic also accepts "yes" for it (lax coercion).

Every call logs a harmless INFO line to stderr first, so a failure report must pick the
failing call's own traceback out of a stderr full of other calls' lines.
"""

import logging
import os
import sys

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel

BUGS = os.environ.get("MCP_FIXTURE_BUGS", "1") != "0"
logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
log = logging.getLogger("sdk-failures")

app = MCPServer("sdk-failures")


class Quote(BaseModel):
    quantity: int
    total: float


@app.tool()
def price_quote(quantity: int) -> Quote:
    """Price of `quantity` units at 2.50 each."""
    log.warning("quoting %d units", quantity)
    total: object = quantity * 2.5
    if BUGS and quantity > 40:
        total = f"{quantity * 2.5:.2f} EUR"  # the bug: a string where the model wants a number
    # A dict is validated against the return annotation by the SDK's output conversion.
    return {"quantity": quantity, "total": total}  # type: ignore[return-value]


@app.tool()
def initial(word: str) -> str:
    """The first letter of a word."""
    log.warning("initial of %r", word)
    if not BUGS and not word:
        return ""
    return word[0]


@app.tool()
def health() -> str:
    """Whether the service is up."""
    if BUGS:
        raise RuntimeError("database connection pool is not initialised")
    return "ok"


@app.tool()
def whoami() -> str:
    """The signed-in user."""
    if BUGS:
        raise ToolError("not signed in")  # a clean refusal, but on every call of a no-arg tool
    return "guest"


@app.tool()
def lookup(sku: str) -> str:
    """Look up a product by sku; unknown skus are refused."""
    log.warning("lookup %r", sku)
    if sku != "A-1":
        raise ToolError(f"unknown sku: {sku!r}")
    return "A-1: blue widget"


@app.tool()
def toggle(enabled: bool) -> str:
    """Switch the feature on or off."""
    return "on" if enabled else "off"


if __name__ == "__main__":
    app.run()
