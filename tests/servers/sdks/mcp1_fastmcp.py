"""FastMCP of the Python SDK 1.x (`mcp.server.fastmcp`), serving the tools of sdk_tools.py.
Runs on every stack with an `mcp` 1.x (tests/servers/sdks/README.md)."""

import sdk_tools
from mcp.server.fastmcp import FastMCP
from mcp.server.fastmcp.exceptions import ToolError

app = FastMCP(sdk_tools.server_name("mcp", "fastmcp"))
for tool in sdk_tools.tools(ToolError):
    app.tool()(tool)

if __name__ == "__main__":
    app.run()
