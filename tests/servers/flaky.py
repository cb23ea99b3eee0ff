"""A Python-SDK (`MCPServer`) server whose tool fails once, at a random call, and never
again: what a timing glitch or a hiccup of an outside service looks like to a tester.

- `roll(sides)`: a number from 1 to `sides`.

The failure (MCP_FIXTURE_BUGS unset or "1"): one of the first 5 calls of the process,
chosen at random, raises RuntimeError (the SDK wraps it into isError), unless the file
named by MCP_FIXTURE_FLAKY_MARK exists; the failure creates it, so no later call and no
later process fails (the outside state). Without MCP_FIXTURE_FLAKY_MARK, or with
MCP_FIXTURE_BUGS=0, it never fails.
"""

import os
import random
from pathlib import Path
from typing import Annotated

from mcp.server import MCPServer
from pydantic import BaseModel, Field

BUGS = os.environ.get("MCP_FIXTURE_BUGS", "1") != "0"
MARK = os.environ.get("MCP_FIXTURE_FLAKY_MARK")

app = MCPServer("flaky")
calls = 0
FAILING_CALL = random.SystemRandom().randint(1, 5)


class Roll(BaseModel):
    value: int


@app.tool()
def roll(sides: Annotated[int, Field(ge=1, le=100)]) -> Roll:
    """Roll a die."""
    global calls
    calls += 1
    if BUGS and MARK and calls == FAILING_CALL and not Path(MARK).exists():
        Path(MARK).touch()
        {}["dice"]  # the bug: a KeyError, once
    return Roll(value=random.randint(1, sides))


if __name__ == "__main__":
    app.run()
