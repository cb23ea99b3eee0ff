"""`render(pages)` builds its document in memory, one megabyte a page (up to 1500 pages),
and works on it for a second before it answers: a server that a large input drives to
gigabytes, as file-backed servers were seen to. `status` is a cheap tool that comes after
it, to show that the run goes on once the server is restarted.

With MCP_FIXTURE_BUGS=0 the bug-free twin renders ten pages at a time, whatever the input:
it never holds more than ten megabytes for the document.
"""

import os
import time
from typing import Annotated

from mcp.server import MCPServer
from pydantic import BaseModel, Field

BUGS = os.environ.get("MCP_FIXTURE_BUGS", "1") != "0"
app = MCPServer("memory-hog")


class Rendered(BaseModel):
    pages: int
    peak_megabytes: int


class Status(BaseModel):
    ok: bool


@app.tool()
def render(pages: Annotated[int, Field(ge=0, le=1500)]) -> Rendered:
    """Renders a document of `pages` pages."""
    held = pages if BUGS else min(pages, 10)
    document = b"x" * (held << 20)  # written, so every page is resident
    if held > 50:
        time.sleep(1.0)  # the work on a large document takes a while
    return Rendered(pages=pages, peak_megabytes=len(document) >> 20)


@app.tool()
def status() -> Status:
    """Whether the server is up."""
    return Status(ok=True)


if __name__ == "__main__":
    app.run()
