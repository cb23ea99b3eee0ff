"""The low-level `Server` of the Python SDK 1.x, serving the tools of sdk_tools.py with
their hand-written input schemas. It has no refusal type: `refuse_sdk` returns an
`isError` result itself. A dict a handler returns is the SDK's structured content."""

import json
from typing import Any

import anyio
import mcp.types as types
import sdk_tools
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

TOOLS = {tool.__name__: tool for tool in sdk_tools.tools(sdk_tools.Refusal)}
server: Server[Any, Any] = Server(sdk_tools.server_name("mcp", "lowlevel"))


@server.list_tools()  # type: ignore[misc, no-untyped-call]
async def list_tools() -> list[types.Tool]:
    return [
        types.Tool(name=name, description=tool.__doc__, inputSchema=sdk_tools.INPUT_SCHEMAS[name])
        for name, tool in TOOLS.items()
    ]


@server.call_tool()  # type: ignore[misc]
async def call_tool(name: str, arguments: dict[str, Any]) -> Any:
    try:
        answer = TOOLS[name](**arguments)
    except sdk_tools.Refusal as refusal:
        text = types.TextContent(type="text", text=str(refusal))
        return types.CallToolResult(content=[text], isError=True)
    if isinstance(answer, dict):
        return answer
    return [
        types.TextContent(
            type="text", text=json.dumps(answer) if not isinstance(answer, str) else answer
        )
    ]


async def main() -> None:
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
