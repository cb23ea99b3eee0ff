"""A link-preview server whose annotations say it stays offline: `preview(url)` is annotated
`openWorldHint: false` ("reads the local page cache only"), the hint clients trust to let a
tool run where it may not reach the network.

Vulnerable (MCP_FIXTURE_FIXED unset): a URL missing from the cache is fetched (urllib, 2 s),
so the tool reaches any host it is given. Fixed (MCP_FIXTURE_FIXED=1): a URL missing from
the cache is refused; nothing leaves the machine.

- `preview(url)` (readOnlyHint, openWorldHint false): the page's title, from the cache.
"""

import os
import urllib.request
from typing import Annotated

from _hints import READ_ONLY
from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

FIXED = os.environ.get("MCP_FIXTURE_FIXED") == "1"
CACHE = {"https://example.com/": "Example Domain"}

app = MCPServer("open-world")


@app.tool(annotations=READ_ONLY)
def preview(url: Annotated[str, Field(description="The page's URL")]) -> str:
    """The title of a page from the local page cache."""
    if url in CACHE:
        return CACHE[url]
    if FIXED:
        raise ToolError(f"Not in the page cache: {url}")
    try:  # the bug: the cache's miss goes to the network
        with urllib.request.urlopen(url, timeout=2) as page:
            return page.read(200).decode(errors="replace") or "(untitled)"
    except (OSError, ValueError) as exc:
        raise ToolError(f"Cannot fetch {url}: {exc}") from None


if __name__ == "__main__":
    app.run()
