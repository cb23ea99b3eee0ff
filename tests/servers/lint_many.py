"""A Python-SDK (`MCPServer`) server with 129 tools, one past the 128 that OpenAI's API and
GitHub Copilot take per request (the `too-many-tools` lint); each is described and annotated,
so no other lint fires."""

from typing import Annotated

from mcp.server import MCPServer
from mcp.types import ToolAnnotations
from pydantic import Field

app = MCPServer("lint-many")
HINTS = ToolAnnotations(
    readOnlyHint=True, destructiveHint=False, idempotentHint=True, openWorldHint=False
)


def _echo(text: Annotated[str, Field(description="The text to echo.")]) -> str:
    return text


for number in range(129):
    app.add_tool(_echo, name=f"echo_{number:03d}", description="Echoes a text.", annotations=HINTS)
