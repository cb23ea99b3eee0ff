"""One tool per corner of an input space that random inputs tend to miss; each has a bug
behind that corner only. Set MCP_FIXTURE_NO_BUGS=1 for the bug-free variant.

The bug: the tool's result claims a `ratio` that is NaN, which the SDK sends as `null`
where the declared outputSchema says `number` (a contract failure, not an isError result).

- `pick_mode`: an optional `mode`, one of four values; the bug is behind "c";
- `scale`: an optional integer `n`, 1..100 or null; the bug is behind the maximum, 100;
- `shape`: `value` is an integer, a string or a boolean (anyOf), `kind` one of four values;
  the bug is behind a string value of kind "tri" only;
- `fetch`: an optional boolean `verbose` (default false); the bug is behind true;
- `region`: `code` is one of 30 values; the bug is behind "r17".

Each tool has other properties beside its corner, as real tools do.
"""

import os
from typing import Annotated, Literal

from mcp.server import MCPServer
from pydantic import BaseModel, Field

app = MCPServer("corners")
BUGS = os.environ.get("MCP_FIXTURE_NO_BUGS") != "1"

Region = Literal[tuple(f"r{i:02d}" for i in range(30))]  # type: ignore[valid-type]


class Answer(BaseModel):
    ratio: float


def answer(buggy: bool) -> Answer:
    return Answer(ratio=float("nan") if buggy and BUGS else 1.0)


@app.tool()
def pick_mode(query: str, mode: Literal["a", "b", "c", "d"] = "a", limit: int = 10) -> Answer:
    return answer(mode == "c")


@app.tool()
def scale(name: str, n: Annotated[int, Field(ge=1, le=100)] | None = None) -> Answer:
    return answer(n == 100)


@app.tool()
def shape(value: int | str | bool, kind: Literal["sq", "tri", "hex", "oct"]) -> Answer:
    return answer(isinstance(value, str) and kind == "tri")


@app.tool()
def fetch(url: str, verbose: bool = False, retries: int = 0) -> Answer:
    return answer(verbose)


@app.tool()
def region(code: Region, name: str = "") -> Answer:
    return answer(code == "r17")


if __name__ == "__main__":
    app.run()
