"""MCPServer of the Python SDK 2.x (`mcp.server.MCPServer`), serving the tools of
sdk_tools.py."""

import sdk_tools
from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

app = MCPServer(sdk_tools.server_name("mcp", "mcpserver"))
for tool in sdk_tools.tools(ToolError):
    app.tool()(tool)

if __name__ == "__main__":
    app.run()
