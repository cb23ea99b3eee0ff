"""Tools that the contract check sends several calls of at once (--mcp-in-flight), each
showing one thing that can happen to calls in flight.

* ``lookup(shelf)`` records, in the file IN_FLIGHT_LOG names (when it is set), a line as
  each call starts (``start lookup <shelf> <its calls running>``) and one as it ends. With
  IN_FLIGHT_WAIT set, the server's first call waits (up to 5 s) for a second call of its
  tool to start, so that a run sending calls in flight records two running at once
  whatever the machine's load.
* ``tally(word)`` records its calls the same way, and declares no annotations: over stdio
  its calls are sent one at a time, over Streamable HTTP (a 2026-07-28 server keeps no
  session) several at once.
* ``fetch(item)``: item "g" kills the server (exit status 3; in-process, ``SystemExit(3)``
  ends the server's run) after writing why on stderr.
  Every other item takes 50 ms, so that calls are in flight when "g" arrives.
* ``grade(level)``: level "hard" raises, which MCPServer answers with isError and a
  traceback on stderr (an unexpected exception); "refuse" is a refusal (ToolError), which
  MCPServer also logs on stderr.
* ``confirm(choice)``: choice "ask" asks the client to confirm (an elicitation), and the
  tool breaks (raises) when the client accepted: what the client answers depends on how
  many it answered before (--mcp-elicitation=vary: accept, decline, ...), so calls in
  flight must neither reorder nor add to them, or the failure comes at another call.

(An MCPServer cannot write noise on stdout: the SDK diverts ``print``. in_flight_noise.py
does, for the same run.)
"""

import os
import sys
import time
from typing import Annotated, Literal

import anyio
from mcp.server import MCPServer
from mcp.server.mcpserver import AcceptedElicitation, Elicit, ElicitationResult, Resolve
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import BaseModel

app = MCPServer("in-flight")
READ_ONLY = ToolAnnotations(readOnlyHint=True)
LOG = os.environ.get("IN_FLIGHT_LOG")
WAIT = bool(os.environ.get("IN_FLIGHT_WAIT"))
running: dict[str, int] = {}  # calls running, by tool
calls = 0


class Shelf(BaseModel):
    shelf: str
    books: int


class Item(BaseModel):
    item: str
    size: int


class Grade(BaseModel):
    level: str
    score: int


class Confirmed(BaseModel):
    choice: str
    action: str


class Sure(BaseModel):
    sure: bool


def _log(line: str) -> None:
    if LOG:
        with open(LOG, "a", encoding="utf-8") as handle:
            handle.write(line + "\n")


async def _recorded(tool: str, value: str) -> None:
    """Log the call's start (with the calls of ``tool`` running) and end, around a short
    wait; with WAIT, the first call waits for a second one to start."""
    global calls
    running[tool] = running.get(tool, 0) + 1
    calls += 1
    _log(f"start {tool} {value} {running[tool]}")
    if WAIT and calls == 1:
        deadline = time.monotonic() + 5
        while running[tool] < 2 and time.monotonic() < deadline:
            await anyio.sleep(0.01)
    await anyio.sleep(0.01)
    running[tool] -= 1
    _log(f"end {tool} {value}")


@app.tool(annotations=READ_ONLY)
async def lookup(
    shelf: Literal["a", "b", "c", "d", "e", "f", "g", "h"], wide: bool = False
) -> Shelf:
    """How many books a shelf holds."""
    await _recorded("lookup", shelf)
    return Shelf(shelf=shelf, books=ord(shelf) - ord("a") + (10 if wide else 1))


@app.tool()
async def tally(word: Literal["one", "two", "three", "four", "five", "six"]) -> Item:
    """How long a word is."""
    await _recorded("tally", word)
    return Item(item=word, size=len(word))


@app.tool(annotations=READ_ONLY)
async def fetch(item: Literal["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k"]) -> Item:
    """An item's size; "g" kills the server instead."""
    if item == "g":
        sys.stderr.write("fatal: item g\n")
        sys.stderr.flush()
        if "pytest" in sys.modules:  # in-process: end the server's run, not the process
            sys.exit(3)
        os._exit(3)
    await anyio.sleep(0.05)
    return Item(item=item, size=len(item) * 3)


@app.tool(annotations=READ_ONLY)
async def grade(level: Literal["easy", "fair", "good", "hard", "refuse", "top"]) -> Grade:
    """A level's score; "hard" breaks the output model, "refuse" is refused."""
    await anyio.sleep(0.02)
    if level == "refuse":
        raise ToolError("that level is not graded")
    scores = {"easy": 4, "fair": 4, "good": 4, "top": 3}
    return Grade(level=level, score=scores[level])  # "hard": a KeyError, the bug


def ask_if_asked(choice: str) -> Elicit[Sure] | AcceptedElicitation[Sure]:
    if choice == "ask":
        return Elicit("Are you sure?", Sure)
    return AcceptedElicitation(data=Sure(sure=False))  # nothing to ask


@app.tool(annotations=READ_ONLY)
async def confirm(
    choice: Literal["ask", "keep", "left", "right"],
    answer: Annotated[ElicitationResult[Sure], Resolve(ask_if_asked)],
) -> Confirmed:
    """Confirms a choice; "ask" asks the client first."""
    await anyio.sleep(0.02)
    if answer.action == "accept":  # the bug: an AttributeError
        return Confirmed(choice=choice, action=answer.data.missing)  # type: ignore[union-attr]
    return Confirmed(choice=choice, action=answer.action)


if __name__ == "__main__":
    app.run()
