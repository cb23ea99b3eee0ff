"""Tools built with the Python SDK's MCPServer, each of whose inputSchema breaks one client's
rule (docs/clients.md); `follows_rules` breaks none, for contrast. pydantic's WithJsonSchema
writes the schema a hand-written or other-SDK server lists, while the SDK still validates
the arguments by the Python type.

- `tag_items`: an array without `items` (vscode/array-items, openai/array-items).
- `filters`: an object without `properties`, not closed (openai-strict/open-object).
- `nullable_rows`: array items of type ["object", "null"] (gemini/type-union).
- `follows_rules`: typed, one type each, arrays with items.
"""

from typing import Annotated, Any

from mcp.server import MCPServer
from pydantic import WithJsonSchema

app = MCPServer("client-rules")

ROW = {"type": ["object", "null"], "properties": {"id": {"type": "integer"}}}


@app.tool()
def tag_items(tags: Annotated[list[str], WithJsonSchema({"type": "array"})]) -> str:
    """Count tags."""
    return str(len(tags))


@app.tool()
def filters(where: Annotated[dict[str, Any], WithJsonSchema({"type": "object"})]) -> str:
    """Echo the filter keys."""
    return ",".join(sorted(where))


@app.tool()
def nullable_rows(
    rows: Annotated[list[dict[str, Any] | None], WithJsonSchema({"type": "array", "items": ROW})],
) -> str:
    """Count the rows that are not null."""
    return str(sum(row is not None for row in rows))


@app.tool()
def follows_rules(name: str, tags: list[str], count: int = 1) -> str:
    """Greet someone, count times."""
    return " ".join([f"hello {name}"] * count) + f" ({len(tags)} tags)"


if __name__ == "__main__":
    app.run()
