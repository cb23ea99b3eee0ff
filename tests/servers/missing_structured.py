"""`summarize` declares an outputSchema but only ever returns text content (no structuredContent).

Uses the low-level `Server`, which does not enforce outputSchema, so the omission reaches the wire.
The text block does hold the JSON that structuredContent should have carried (a common bug).
"""

import json
from typing import Any

import anyio
import mcp.types as types
from mcp.server import Server
from mcp.server.stdio import stdio_server

TOOLS = [
    types.Tool(
        name="summarize",
        description="Word and character counts for a text.",
        input_schema={
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"],
        },
        output_schema={
            "type": "object",
            "properties": {"words": {"type": "integer"}, "characters": {"type": "integer"}},
            "required": ["words", "characters"],
        },
    ),
    types.Tool(
        name="healthy",
        description="Correct tool: echoes its input in structuredContent.",
        input_schema={
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"],
        },
        output_schema={
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"],
        },
    ),
]


def _text(text: str, is_error: bool = False) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)], is_error=is_error
    )


async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
    return types.ListToolsResult(tools=TOOLS)


async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    args = params.arguments or {}
    text = args.get("text")
    if params.name not in ("summarize", "healthy"):
        return _text(f"Unknown tool: {params.name}", is_error=True)
    if not isinstance(text, str):
        return _text(f"{params.name} needs a string `text`", is_error=True)
    if params.name == "summarize":
        # THE BUG: the structured value goes out as text only; structuredContent is never set.
        return _text(json.dumps({"words": len(text.split()), "characters": len(text)}))
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=json.dumps({"text": text}))],
        structured_content={"text": text},
    )


server = Server("missing-structured", on_list_tools=list_tools, on_call_tool=call_tool)


async def main() -> None:
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
