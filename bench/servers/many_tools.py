"""Bench fixture: 40 tools generated programmatically on one `MCPServer`.

Four shapes of tool, ten of each, so the run exercises scalar, structured and list
outputs: `text_NN(text) -> str`, `sum_NN(a, b) -> int`, `tags_NN(name, tags) -> dict`,
`point_NN(x, y, label) -> Point` (a pydantic model). BENCH_TOOLS overrides the count;
BENCH_CALL_MS makes every call take that long (a real server's tools do some work, and a
server that answers at once measures only the client's own CPU).
"""

import functools
import os
import time
from collections.abc import Callable
from typing import Any

from mcp.server import MCPServer
from pydantic import BaseModel

app = MCPServer("bench-many")
COUNT = int(os.environ.get("BENCH_TOOLS", "40"))
CALL_SECONDS = float(os.environ.get("BENCH_CALL_MS", "0")) / 1000


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


def taking_time(function: Callable[..., Any]) -> Callable[..., Any]:
    """``function`` that first waits CALL_SECONDS (a blocking wait, as a tool's work is)."""

    @functools.wraps(function)
    def slow(*args: Any, **kwargs: Any) -> Any:
        time.sleep(CALL_SECONDS)
        return function(*args, **kwargs)

    return slow


for index in range(COUNT):
    prefix, function = SHAPES[index % len(SHAPES)]
    app.add_tool(taking_time(function) if CALL_SECONDS else function, name=f"{prefix}_{index:02d}")


if __name__ == "__main__":
    app.run()
