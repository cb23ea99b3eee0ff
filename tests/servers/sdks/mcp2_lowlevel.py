"""The low-level `Server` of the Python SDK 2.x, serving the tools of sdk_tools.py with
their hand-written input schemas. A handler builds every `CallToolResult` itself; it has no
refusal type, so `refuse_sdk` answers `isError` on its own."""

import json
from typing import Any

import anyio
import mcp.types as types
import sdk_tools
from mcp.server import Server
from mcp.server.stdio import stdio_server

TOOLS = {tool.__name__: tool for tool in sdk_tools.tools(sdk_tools.Refusal)}


def _text(text: str) -> list[types.TextContent]:
    return [types.TextContent(type="text", text=text)]


async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
    return types.ListToolsResult(
        tools=[
            types.Tool(
                name=name, description=tool.__doc__, input_schema=sdk_tools.INPUT_SCHEMAS[name]
            )
            for name, tool in TOOLS.items()
        ]
    )


async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    try:
        answer = TOOLS[params.name](**(params.arguments or {}))
    except sdk_tools.Refusal as refusal:
        return types.CallToolResult(content=_text(str(refusal)), is_error=True)
    if isinstance(answer, dict):
        return types.CallToolResult(content=_text(json.dumps(answer)), structured_content=answer)
    return types.CallToolResult(content=_text(answer))


server = Server(
    sdk_tools.server_name("mcp", "lowlevel"), on_list_tools=list_tools, on_call_tool=call_tool
)


async def main() -> None:
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
