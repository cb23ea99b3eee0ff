"""Bookshop/orders MCP server: every tool answers every valid input with schema-valid output.

Everything is computed deterministically from the arguments (no network, no files);
the only state is the in-memory set of cancelled orders touched by `cancel_order`.
"""

import json
import logging
import zlib
from datetime import UTC, datetime, timedelta
from typing import Annotated, Literal

from mcp.server import MCPServer
from mcp.types import ToolAnnotations
from pydantic import AnyUrl, BaseModel, Field

logger = logging.getLogger("example_server")

app = MCPServer("example-server", version="0.1.0")

# Read-only lookups vs. the one state-changing tool.
READ_ONLY = ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)
DESTRUCTIVE = ToolAnnotations(
    read_only_hint=False, destructive_hint=True, idempotent_hint=False, open_world_hint=False
)

OrderId = Annotated[int, Field(ge=1, description="Order number (1 or more).")]
BookId = Annotated[int, Field(ge=1, description="Catalogue id of a book (1 or more).")]


# --- data model -------------------------------------------------------------------------------


class Customer(BaseModel):
    name: str
    # Plain str: EmailStr needs the optional email-validator package, which we don't depend on.
    email: str


class LineItem(BaseModel):
    sku: str
    quantity: int
    price: float


class Order(BaseModel):
    id: int
    status: Literal["pending", "shipped", "delivered"]
    created: datetime
    customer: Customer
    items: list[LineItem]
    total: float


class Book(BaseModel):
    id: int
    title: str
    authors: list[str]
    year: int | None
    url: AnyUrl


class SearchResults(BaseModel):
    results: list[Book]
    count: int = Field(description="Number of books in `results`.")


class Cancellation(BaseModel):
    order_id: int
    cancelled: bool
    already_cancelled: bool


# --- fixed catalogue --------------------------------------------------------------------------

# (title, authors, year or None, sku, unit price)
_CATALOGUE: list[tuple[str, list[str], int | None, str, float]] = [
    ("Pride and Prejudice", ["Jane Austen"], 1813, "BK-0001", 7.99),
    ("Moby-Dick", ["Herman Melville"], 1851, "BK-0002", 11.50),
    (
        "The Federalist Papers",
        ["Alexander Hamilton", "James Madison", "John Jay"],
        1788,
        "BK-0003",
        9.25,
    ),
    ("Beowulf", [], None, "BK-0004", 6.00),
    ("Middlemarch", ["George Eliot"], 1871, "BK-0005", 12.75),
    ("Les Misérables", ["Victor Hugo"], 1862, "BK-0006", 14.20),
    ("Good Omens", ["Terry Pratchett", "Neil Gaiman"], 1990, "BK-0007", 10.99),
    ("The Tale of Genji", ["Murasaki Shikibu"], None, "BK-0008", 18.40),
]
_CUSTOMERS = [("Ada", "Lovelace"), ("Alan", "Turing"), ("Grace", "Hopper"), ("Edsger", "Dijkstra")]
_STATUSES: list[Literal["pending", "shipped", "delivered"]] = ["pending", "shipped", "delivered"]
_EPOCH = datetime(2024, 1, 1, tzinfo=UTC)  # timezone-aware, so it serialises as RFC 3339

_cancelled: set[int] = set()  # the only mutable state


def _book(book_id: int) -> Book | None:
    if not 1 <= book_id <= len(_CATALOGUE):
        return None
    title, authors, year, _sku, _price = _CATALOGUE[book_id - 1]
    url = AnyUrl(f"https://bookshop.example/books/{book_id}")
    return Book(id=book_id, title=title, authors=authors, year=year, url=url)


def _order(order_id: int) -> Order:
    # Any id >= 1 (however large) maps onto bounded values, so floats never overflow.
    first, last = _CUSTOMERS[order_id % len(_CUSTOMERS)]
    items = []
    for i in range(1 + order_id % 3):
        _title, _authors, _year, sku, price = _CATALOGUE[(order_id + i) % len(_CATALOGUE)]
        items.append(LineItem(sku=sku, quantity=1 + (order_id + i) % 4, price=price))
    return Order(
        id=order_id,
        status=_STATUSES[order_id % 3],
        created=_EPOCH + timedelta(minutes=(order_id * 7919) % (365 * 24 * 60)),
        customer=Customer(name=f"{first} {last}", email=f"{first}.{last}@example.com".lower()),
        items=items,
        total=round(sum(item.quantity * item.price for item in items), 2),
    )


# --- tools ------------------------------------------------------------------------------------


@app.tool(annotations=READ_ONLY)
def get_order(order_id: OrderId) -> Order:
    """Fetch an order with its customer and line items."""
    return _order(order_id)


@app.tool(annotations=READ_ONLY)
def search_books(
    query: Annotated[str, Field(description="Text to find in titles and author names.")],
    limit: Annotated[int, Field(ge=1, le=50, description="Maximum number of results.")] = 10,
) -> SearchResults:
    """Search the catalogue by (case-insensitive) title or author substring; "" matches all."""
    needle = query.casefold()
    hits = []
    for book_id in range(1, len(_CATALOGUE) + 1):
        book = _book(book_id)
        assert book is not None
        haystack = " ".join([book.title, *book.authors]).casefold()
        if needle in haystack:
            hits.append(book)
    hits = hits[:limit]
    return SearchResults(results=hits, count=len(hits))


@app.tool(annotations=READ_ONLY)
def stock_level(
    sku: Annotated[str, Field(description="The stock-keeping unit of a book.")],
) -> int:
    """Units in stock for a SKU (unknown SKUs simply report a deterministic level)."""
    return zlib.crc32(sku.encode("utf-8", "surrogatepass")) % 250


@app.tool(annotations=READ_ONLY, structured_output=False)
def order_summary_json(order_id: OrderId) -> str:
    """Order summary as a JSON document in a text block (no outputSchema)."""
    order = _order(order_id)
    summary = {
        "id": order.id,
        "status": order.status,
        "items": len(order.items),
        "total": order.total,
    }
    return json.dumps(summary)


@app.tool(annotations=READ_ONLY, structured_output=False)
def describe_book(book_id: BookId) -> str:
    """One-sentence description of a book, as prose."""
    book = _book(book_id)
    if book is None:
        return f"There is no book with id {book_id} in the catalogue."
    names = book.authors or ["an unknown author"]
    by = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    when = f"first published in {book.year}" if book.year is not None else "of uncertain date"
    return f"{book.title} is a book by {by}, {when}."


@app.tool(annotations=DESTRUCTIVE)
def cancel_order(order_id: OrderId) -> Cancellation:
    """Cancel an order (harmless: only marks it in an in-memory set)."""
    already = order_id in _cancelled
    _cancelled.add(order_id)
    logger.info("order %d cancelled (already=%s)", order_id, already)
    return Cancellation(order_id=order_id, cancelled=True, already_cancelled=already)


def main() -> None:
    app.run()  # stdio


if __name__ == "__main__":
    main()
