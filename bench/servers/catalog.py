"""Bench fixture: one read-only tool with many schema corners, `search(...)`, whose calls the
contract check sends several at a time (--mcp-in-flight).

An `mcp.server.MCPServer` over stdio. `argv[1]` is how long each call waits, in
milliseconds (0: it answers at once; 20: as a tool that asks a database or a web service
would). With BENCH_CALL_LOG set, each call appends `<start> <end>` (time.monotonic(),
seconds) to that file, so the bench can time the coverage phase alone: its inputs are the
first calls the server answers.
"""

import os
import sys
import time
from typing import Literal

import anyio
from mcp.server import MCPServer
from mcp.types import ToolAnnotations
from pydantic import BaseModel

app = MCPServer("bench-catalog")
WAIT = float(sys.argv[1]) / 1000 if len(sys.argv) > 1 else 0.0
LOG = os.environ.get("BENCH_CALL_LOG")


class Page(BaseModel):
    category: str
    sort: str
    count: int
    titles: list[str]


@app.tool(annotations=ToolAnnotations(readOnlyHint=True))
async def search(
    category: Literal["books", "music", "films", "games", "toys", "tools", "food", "garden"],
    sort: Literal["new", "price", "rating"] = "new",
    limit: int = 10,
    in_stock: bool = False,
    query: str = "",
) -> Page:
    """Search the catalog."""
    started = time.monotonic()
    if WAIT:
        await anyio.sleep(WAIT)
    count = max(0, min(limit, 5))
    page = Page(
        category=category,
        sort=sort,
        count=count,
        titles=[f"{category}-{query[:10]}-{i}" for i in range(count)],
    )
    if LOG:
        with open(LOG, "a", encoding="utf-8") as handle:
            handle.write(f"{started} {time.monotonic()}\n")
    return page


if __name__ == "__main__":
    app.run()
