"""Tools that declare no outputSchema, in versions chosen by MCP_FIXTURE_VARIANT, to show
inferred contracts: recorded on a first run, then checked against later versions.

- v1 (default): `get_item` returns an item as JSON in one text block (`note` only for even
  ids); `list_items` returns one JSON block per item; `describe` returns prose;
  `raw_structured` returns structuredContent, undeclared and not mirrored in text.
- breaking: `get_item`'s `price` is a string.
- additive: `get_item` gains a `currency` field.
- prose: `get_item` answers in prose instead of JSON.
"""

import json
import os

from _legacy import serve, text_result

VARIANT = os.environ.get("MCP_FIXTURE_VARIANT", "v1")
ID = {"type": "object", "properties": {"id": {"type": "integer", "minimum": 1}}, "required": ["id"]}
TOOLS = [
    {"name": "get_item", "description": "One catalogue item as JSON text.", "inputSchema": ID},
    {
        "name": "list_items",
        "description": "Items, one JSON text block each.",
        "inputSchema": {
            "type": "object",
            "properties": {"limit": {"type": "integer", "minimum": 0, "maximum": 5}},
            "required": ["limit"],
        },
    },
    {"name": "describe", "description": "A sentence about an item.", "inputSchema": ID},
    {
        "name": "raw_structured",
        "description": "structuredContent with no outputSchema.",
        "inputSchema": ID,
    },
]


def item(item_id):
    value = {
        "id": item_id,
        "name": f"item {item_id}",
        "price": round(item_id * 1.25, 2),
        "tags": ["a", "b"][: item_id % 3],
        "updated": "2026-11-21T10:00:00Z",
    }
    if item_id % 2 == 0:
        value["note"] = "even"
    if VARIANT == "breaking":
        value["price"] = f"{value['price']:.2f}"
    if VARIANT == "additive":
        value["currency"] = "EUR"
    return value


def call(name, args):
    if name == "get_item":
        if VARIANT == "prose":
            return text_result(f"Item {args['id']} costs {args['id'] * 1.25:.2f}.")
        return text_result(json.dumps(item(args["id"])))
    if name == "list_items":
        return {
            "content": [
                {"type": "text", "text": json.dumps(item(i + 1))} for i in range(args["limit"])
            ]
        }
    if name == "describe":
        return text_result(f"Item {args['id']} is a fine item.")
    return text_result("done", structured={"id": args["id"], "ok": True})


serve("inferred", TOOLS, call)
