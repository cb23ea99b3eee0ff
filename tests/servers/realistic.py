"""Undeclared JSON outputs that vary the way real servers' do (issue 15), on the real SDK.

Every tool returns JSON text and declares no outputSchema (``structured_output=False``), so
its contract is inferred. A correct server recorded once must pass later runs with other
seeds and fewer inputs, however its outputs happen to vary:

- `get_order`: optional fields behind flags (`notes`, `customer`), a value that is almost
  always null (`reason`), an array that is usually empty (`items`) of objects whose keys
  differ (`discount`, `gift_note`), a total that is usually a whole number.
- `get_env`: the environment as an object, keyed by variable names (a map).
- `search`: results that are often empty, of two kinds with different keys.
- `list_tables`: no arguments, always `[]` (an empty database).
- `quote`: a bug present from the start: `total` is a number for small quantities and a
  string for large ones.
- `price`: MCP_FIXTURE_VARIANT=v1 returns `unit_price`; `renamed` returns `unit` instead;
  `removed` returns neither.
"""

import json
import os
import zlib

from mcp.server import MCPServer

app = MCPServer("realistic")
VARIANT = os.environ.get("MCP_FIXTURE_VARIANT", "v1")
STATUSES = ["pending", "paid", "shipped", "delivered"]


def _hash(text: str) -> int:
    return zlib.crc32(text.encode("utf-8", "surrogatepass"))


@app.tool(structured_output=False)
def get_order(order_id: int, include_notes: bool = False, expand: bool = False) -> str:
    """One order as JSON text."""
    # Rare enough that a recording may see `reason` only as null, and CI then a string.
    cancelled = order_id % 97 == 50
    order: dict[str, object] = {
        "id": order_id,
        "status": "cancelled" if cancelled else STATUSES[order_id % 4],
        "reason": "out of stock" if cancelled else None,
        # Whole euros, except now and then: 2.0 is written as 2 by json.dumps.
        "total": order_id % 50 * 2 + (0.5 if order_id % 23 == 11 else 0),
        "items": [],
    }
    if order_id % 5 == 0:
        items: list[dict[str, object]] = []
        for n in range(order_id % 3 + 1):
            item: dict[str, object] = {"sku": f"SKU-{order_id}-{n}", "qty": n + 1}
            if (order_id + n) % 2:
                item["discount"] = 0.1
            else:
                item["gift_note"] = "for you"
            items.append(item)
        order["items"] = items
    if include_notes:
        order["notes"] = [f"note {order_id}"]
    if expand:
        order["customer"] = {"id": order_id % 7, "name": f"customer {order_id % 7}"}
    return json.dumps(order)


@app.tool(structured_output=False)
def get_env(verbose: bool = False) -> str:
    """The server's environment as JSON text."""
    env = {k: v for k, v in sorted(os.environ.items()) if k.isupper() or k == "_"}
    answer: dict[str, object] = {"env": env}
    if verbose:
        answer["count"] = len(env)
    return json.dumps(answer)


BOOK = {"kind": "book", "title": "Dune", "author": "Herbert", "pages": 412}
GADGET = {"kind": "gadget", "title": "Lamp", "brand": "Lumo", "watts": 9.5}


@app.tool(structured_output=False)
def search(query: str, limit: int = 5) -> str:
    """Catalogue search as JSON text."""
    if limit < 1 or _hash(query) % 3 == 0:
        return json.dumps({"results": [], "next": None})
    results = [BOOK if (_hash(query) + n) % 2 else GADGET for n in range(min(limit, 3))]
    more = len(results) < limit
    return json.dumps({"results": results, "next": f"cursor-{limit}" if more else None})


@app.tool(structured_output=False)
def list_tables() -> str:
    """The database's tables as JSON text (there are none yet)."""
    return json.dumps([])


@app.tool(structured_output=False)
def quote(quantity: int) -> str:
    """A price quote as JSON text."""
    total = quantity * 3
    # The bug: large totals are pre-formatted with a thousands separator.
    return json.dumps({"quantity": quantity, "total": total if total < 100 else f"{total:,}"})


@app.tool(structured_output=False)
def price(sku: str) -> str:
    """A SKU's price as JSON text."""
    answer: dict[str, object] = {"sku": sku, "currency": "EUR"}
    if VARIANT == "v1":
        answer["unit_price"] = len(sku) + 1
    elif VARIANT == "renamed":
        answer["unit"] = len(sku) + 1
    return json.dumps(answer)


if __name__ == "__main__":
    app.run()
