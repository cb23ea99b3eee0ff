"""Bench fixture: 40 tools generated programmatically on one `MCPServer`.

Four shapes of tool, ten of each, so the run exercises scalar, structured and list
outputs: `text_NN(text) -> str`, `sum_NN(a, b) -> int`, `tags_NN(name, tags) -> dict`,
`point_NN(x, y, label) -> Point` (a pydantic model). BENCH_TOOLS overrides the count.
"""

import os
from collections.abc import Callable
from typing import Any

from mcp.server import MCPServer
from pydantic import BaseModel

app = MCPServer("bench-many")
COUNT = int(os.environ.get("BENCH_TOOLS", "40"))


class Point(BaseModel):
    x: float
    y: float
    label: str | None


def text_tool(text: str) -> str:
    """Upper-case the text."""
    return text.upper()


def sum_tool(a: int, b: int) -> int:
    """Sum of two integers."""
    return a + b


def tags_tool(name: str, tags: list[str]) -> dict[str, Any]:
    """Count the tags of a name."""
    return {"name": name, "count": len(tags), "first": tags[0] if tags else None}


def point_tool(x: float, y: float, label: str | None = None) -> Point:
    """A labelled point."""
    return Point(x=x, y=y, label=label)


SHAPES: list[tuple[str, Callable[..., Any]]] = [
    ("text", text_tool),
    ("sum", sum_tool),
    ("tags", tags_tool),
    ("point", point_tool),
]

for index in range(COUNT):
    prefix, function = SHAPES[index % len(SHAPES)]
    app.add_tool(function, name=f"{prefix}_{index:02d}")


if __name__ == "__main__":
    app.run()
