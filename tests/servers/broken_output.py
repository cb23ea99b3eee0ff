"""`price_quote` breaks its own outputSchema (price sent as a string) only when quantity > 100.

Uses the low-level `Server`, which does not check results against outputSchema, so the
wrong value really goes on the wire (MCPServer would validate it away).
"""

import json
from typing import Any

import anyio
import mcp.types as types
from mcp.server import Server
from mcp.server.stdio import stdio_server

TOOLS = [
    types.Tool(
        name="price_quote",
        description="Price for `quantity` units of `sku`.",
        input_schema={
            "type": "object",
            "properties": {"quantity": {"type": "integer"}, "sku": {"type": "string"}},
            "required": ["quantity", "sku"],
        },
        output_schema={
            "type": "object",
            "properties": {"price": {"type": "number"}, "currency": {"type": "string"}},
            "required": ["price", "currency"],
        },
    ),
    types.Tool(
        name="healthy",
        description="Correct tool: returns x squared.",
        input_schema={
            "type": "object",
            "properties": {"x": {"type": "integer"}},
            "required": ["x"],
        },
        output_schema={
            "type": "object",
            "properties": {"square": {"type": "integer"}},
            "required": ["square"],
        },
    ),
]


def _result(structured: dict[str, Any]) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=json.dumps(structured))],
        structured_content=structured,
    )


def _error(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)


async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
    return types.ListToolsResult(tools=TOOLS)


async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    args = params.arguments or {}
    if params.name == "price_quote":
        quantity, sku = args.get("quantity"), args.get("sku")
        if type(quantity) is not int or not isinstance(sku, str):
            return _error("price_quote needs integer quantity and string sku")
        unit = 1.25 + (len(sku) % 7) * 0.5  # bounded, deterministic
        price = round(unit * (quantity % 10_000), 2)  # modulo: no float overflow for huge ints
        if quantity > 100:
            return _result({"price": f"{price:.2f}", "currency": "EUR"})  # THE BUG: string
        return _result({"price": price, "currency": "EUR"})
    if params.name == "healthy":
        x = args.get("x")
        if type(x) is not int:
            return _error("healthy needs integer x")
        return _result({"square": x * x})
    return _error(f"Unknown tool: {params.name}")


server = Server("broken-output", on_list_tools=list_tools, on_call_tool=call_tool)


async def main() -> None:
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
