"""Tools that a large input drives to gigabytes, as file-backed servers were seen to:

- `render(pages)` builds a document in memory, one megabyte a page (up to 1500 pages), and
  works on it for a second before it answers (the memory is held during the call);
- `append(pages)` adds pages to the open document and answers at once: the memory stays
  with the server after the call (the growth is only seen once the call has ended);
- `status` is a cheap tool that comes after them, to show that the run goes on once the
  server is restarted.

With MCP_FIXTURE_BUGS=0 the bug-free twin works ten pages at a time and keeps only the
last ten appended pages in memory (the rest would be on disk): never more than ten
megabytes for a document, whatever the input.
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


class Appended(BaseModel):
    pages: int
    held_megabytes: int


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


document: list[bytes] = []


@app.tool()
def append(pages: Annotated[int, Field(ge=0, le=1500)]) -> Appended:
    """Appends `pages` pages to the open document."""
    document.append(b"x" * ((pages if BUGS else min(pages, 10)) << 20))
    if not BUGS:
        del document[:-1]
    return Appended(pages=pages, held_megabytes=sum(len(page) for page in document) >> 20)


@app.tool()
def status() -> Status:
    """Whether the server is up."""
    return Status(ok=True)


if __name__ == "__main__":
    app.run()
