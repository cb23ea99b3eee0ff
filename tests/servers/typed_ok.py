"""Well-behaved server: three tools with declared outputSchemas, correct for every valid input."""

import zlib
from typing import Literal

from mcp.server import MCPServer
from pydantic import BaseModel

app = MCPServer("typed-ok")


class Location(BaseModel):
    aisle: int
    shelf: str


class Item(BaseModel):
    sku: str
    state: Literal["in_stock", "low", "out_of_stock"]


class Inventory(BaseModel):
    """Nested object + array + enum."""

    warehouse: str
    location: Location
    items: list[Item]


class User(BaseModel):
    """Has an Optional field (nickname may be null)."""

    id: int
    nickname: str | None


@app.tool()
def inventory(warehouse: str, count: int = 2) -> Inventory:
    """Inventory report for a warehouse (nested object, array of enums)."""
    seed = zlib.crc32(warehouse.encode("utf-8", "surrogatepass"))
    states: list[Literal["in_stock", "low", "out_of_stock"]] = ["in_stock", "low", "out_of_stock"]
    n = count % 5  # any int (even negative or huge) gives 0..4 items
    items = [
        Item(sku=f"SKU-{(seed + i) % 1000:03d}", state=states[(seed + i) % 3]) for i in range(n)
    ]
    return Inventory(
        warehouse=warehouse, location=Location(aisle=seed % 40, shelf="ABCD"[seed % 4]), items=items
    )


@app.tool()
def add(a: int, b: int) -> int:
    """Sum of two integers (wrapped by the SDK as {"result": int})."""
    return a + b


@app.tool()
def find_user(user_id: int) -> User:
    """A user; odd ids have no nickname (null)."""
    return User(id=user_id, nickname=None if user_id % 2 else f"user{user_id}")


if __name__ == "__main__":
    app.run()
