"""A Python-SDK (`MCPServer`) clock whose tool takes an IANA timezone, as mcp-server-time's do:
any other string is refused (ToolError), so a generated string never reaches the tool.

- `local_time(timezone)`: the local time in that zone at a fixed instant (2026-01-15 12:00
  UTC: no answer depends on when the test runs), with its UTC offset in hours.

The bug (MCP_FIXTURE_BUGS unset or "1"): a zone whose offset is not a whole number of hours
(Asia/Kolkata, +5:30) gets its offset as text, "+05:30", which breaks the output model
(the SDK answers isError). With MCP_FIXTURE_BUGS=0 the offset is always a number.
"""

import os
from datetime import UTC, datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import BaseModel

BUGS = os.environ.get("MCP_FIXTURE_BUGS", "1") != "0"
INSTANT = datetime(2026, 1, 15, 12, 0, tzinfo=UTC)

app = MCPServer("world-clock")


class Clock(BaseModel):
    timezone: str
    local_time: str
    offset_hours: float


@app.tool(annotations=ToolAnnotations(readOnlyHint=True))
def local_time(timezone: str) -> Clock:
    """The local time in an IANA timezone (e.g. 'Europe/Paris')."""
    try:
        zone = ZoneInfo(timezone)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        raise ToolError(f"Invalid timezone: {timezone!r}") from None
    local = INSTANT.astimezone(zone)
    offset = local.utcoffset()
    hours = offset.total_seconds() / 3600 if offset is not None else 0.0
    text = f"{'+' if hours >= 0 else '-'}{int(abs(hours)):02d}:{int(abs(hours) % 1 * 60):02d}"
    shown: object = text if BUGS and not hours.is_integer() else hours
    return Clock.model_validate(
        {"timezone": timezone, "local_time": local.isoformat(), "offset_hours": shown}
    )


if __name__ == "__main__":
    app.run()
