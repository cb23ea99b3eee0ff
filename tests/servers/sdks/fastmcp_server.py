"""A server of the `fastmcp` package (2.x, 3.x, 4.x: the same code on each), serving the
tools of sdk_tools.py. Not named fastmcp.py: the script's folder comes first on sys.path."""

import sdk_tools
from fastmcp import FastMCP
from fastmcp.exceptions import ToolError

app = FastMCP(sdk_tools.server_name("fastmcp"))
for tool in sdk_tools.tools(ToolError):
    app.tool()(tool)

if __name__ == "__main__":
    app.run(show_banner=False)
