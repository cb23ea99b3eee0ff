"""Bench fixture: a small, fast key-value store whose lookups take ids only its create makes.

`put(title, body) -> Item` stores an item under a new id, `get(item_id) -> Item` and
`rename(item_id, title) -> Item` need an existing id, `count() -> int` counts. An
`mcp.server.MCPServer` over stdio; no bugs: it measures what the sequences check costs on a
fast server whose tools it can really reach.
"""

import itertools

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel

app = MCPServer("bench-store")
items: dict[str, dict[str, str]] = {}
ids = itertools.count(1)


class Item(BaseModel):
    item_id: str
    title: str
    body: str


def _found(item_id: str) -> dict[str, str]:
    if item_id not in items:
        raise ToolError(f"no item {item_id!r}")
    return items[item_id]


@app.tool()
def put(title: str, body: str) -> Item:
    """Store an item; returns it with its new id."""
    item_id = f"i-{next(ids)}"
    items[item_id] = {"item_id": item_id, "title": title, "body": body}
    return Item.model_validate(items[item_id])


@app.tool()
def get(item_id: str) -> Item:
    """The item with this id."""
    return Item.model_validate(_found(item_id))


@app.tool()
def rename(item_id: str, title: str) -> Item:
    """Give an item a new title."""
    _found(item_id)["title"] = title
    return Item.model_validate(items[item_id])


@app.tool()
def count() -> int:
    """How many items are stored."""
    return len(items)


if __name__ == "__main__":
    app.run()
