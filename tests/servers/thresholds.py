"""Bugs that start at a threshold, which the coverage phase reaches at a corner far beyond it
(a maximum, or a large value where nothing bounds the input): the report must show the
input shrunk to the threshold. With MCP_FIXTURE_BUGS unset (or "1") the bugs are in; with
MCP_FIXTURE_BUGS=0 it is the same server, correct.

- `resize(width)`: width 0..1000; raises for width > 100 (the maximum, 1000, finds it);
- `tile(step)`: a multiple of 5 above 10, at most 1000; raises for step > 100;
- `render(name, options)`: an optional nested `options` object; raises for options.depth
  > 10 (its maximum is 50);
- `convert(amount)`: amount 0..1000; for amount > 500 its output breaks its own output
  model, for 100 < amount <= 500 it raises: two kinds of failure, and shrinking the first
  must not slide into the second;
- `caption(text)`: `text` has no maxLength; a text longer than 40 characters makes a
  caption the output model refuses (the 64 KiB corner finds it);
- `allocate(size)`: `size` has no maximum; for size >= 2**31 - 1 the call never returns
  (a count that overflows an int32 and waits for ever: the large corner finds it);
- `store(text)`: the server process exits for a text longer than 1000 characters.
"""

import os
import sys
from typing import Annotated

import anyio
from mcp.server import MCPServer
from pydantic import BaseModel, Field

BUGS = os.environ.get("MCP_FIXTURE_BUGS", "1") != "0"

app = MCPServer("thresholds")


class Done(BaseModel):
    value: int


class Caption(BaseModel):
    caption: Annotated[str, Field(max_length=40)]


class Options(BaseModel):
    depth: Annotated[int, Field(ge=0, le=50)] = 0
    verbose: bool = False


# The bugs are the runtime's (an index or a key past what a table holds), not a deliberate
# raise: a tool refusing on purpose is a refusal (docs/explanation/iserror.md).
_BUFFERS = [0] * 101
_LEVELS = list(range(11))
_RATES = dict.fromkeys(range(101), 1)


@app.tool()
def resize(width: Annotated[int, Field(ge=0, le=1000)], label: str = "") -> Done:
    if BUGS:
        _BUFFERS[width]  # the bug: an IndexError past 100
    return Done(value=width)


@app.tool()
def tile(step: Annotated[int, Field(multiple_of=5, gt=10, le=1000)], name: str = "") -> Done:
    if BUGS:
        _BUFFERS[step]  # the bug: an IndexError past 100
    return Done(value=step)


@app.tool()
def render(name: str, options: Options | None = None) -> Done:
    depth = options.depth if options is not None else 0
    if BUGS:
        _LEVELS[depth]  # the bug: an IndexError past 10
    return Done(value=depth)


@app.tool()
def convert(amount: Annotated[int, Field(ge=0, le=1000)]) -> Done:
    if BUGS and amount > 500:
        return {"value": f"{amount} units"}  # type: ignore[return-value]  # breaks Done
    if BUGS:
        _RATES[amount]  # the bug: a KeyError past 100
    return Done(value=amount)


@app.tool()
def caption(text: str) -> Caption:
    shown = text if BUGS else text[:40]
    return Caption(caption=shown)


@app.tool()
async def allocate(size: int) -> Done:
    if BUGS and size >= 2**31 - 1:
        print(f"allocate: size={size} overflows, waiting for ever", file=sys.stderr)
        await anyio.sleep_forever()  # async: bounded, nothing is allocated
    return Done(value=min(size, 2**31 - 2))


@app.tool()
def store(text: str) -> Done:
    if BUGS and len(text) > 1000:
        print(f"store: {len(text)} characters overflow the buffer", file=sys.stderr)
        sys.stderr.flush()
        os._exit(3)
    return Done(value=len(text))


if __name__ == "__main__":
    app.run()
