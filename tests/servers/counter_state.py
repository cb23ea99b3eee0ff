"""A Python-SDK (`MCPServer`) server whose one bug needs state that another tool left: a
counter that `bump` raises and `level` reads, with no annotations at all.

- `bump(by)`: adds `by` (1 to 3) to the counter, returns the new count;
- `level()`: the count and its level, "low" up to 3, "high" up to 5.

The bug (MCP_FIXTURE_BUGS unset or "1"): past 5 there is no level, and `level` raises
KeyError, which the SDK wraps into isError. So `level` passes on a fresh server and fails
only after earlier `bump` calls pushed the count past 5; its `contract` item runs after
`bump`'s, on the count they left. With MCP_FIXTURE_BUGS=0 a count past 5 is "over".
"""

import os
from typing import Annotated

from mcp.server import MCPServer
from pydantic import BaseModel, Field

BUGS = os.environ.get("MCP_FIXTURE_BUGS", "1") != "0"

app = MCPServer("counter-state")
count = 0
LEVELS = {n: "low" if n <= 3 else "high" for n in range(6)}


class Count(BaseModel):
    count: int


class Level(BaseModel):
    count: int
    level: str


@app.tool()
def bump(by: Annotated[int, Field(ge=1, le=3)]) -> Count:
    """Add to the counter."""
    global count
    count += by
    return Count(count=count)


@app.tool()
def level() -> Level:
    """The counter and its level."""
    name = LEVELS[count] if BUGS or count in LEVELS else "over"
    return Level(count=count, level=name)


if __name__ == "__main__":
    app.run()
