"""A Python-SDK (`MCPServer`) server that writes into the client's roots, to show that one
tool's writes never become another tool's inputs (the plugin lays its roots sandbox anew
before each tool's calls):

- `note(path, text)`: writes "note: <text>" into a file inside a root (annotated as not
  destructive, as server-filesystem's `create_directory` is);
- `tally(path)`: how many files a folder holds. With MCP_FIXTURE_BUGS unset (or "1") it has a
  planted bug reachable only through a file `note` wrote: for a folder that holds one, it
  returns the count as text, which the SDK's output conversion refuses. With the sandbox
  laid anew for it, `tally` never sees a note, so it passes; a run that let `note`'s files
  stay would fail it.

Paths are absolute, relative to the first root, or file:// URIs; a path outside the roots is
refused ("Access denied - path outside allowed directories").
"""

import os
from pathlib import Path
from typing import Annotated
from urllib.parse import unquote, urlparse

from mcp.server import MCPServer
from mcp.server.mcpserver import ListRoots, Resolve
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ListRootsResult, ToolAnnotations
from pydantic import BaseModel, Field

BUGS = os.environ.get("MCP_FIXTURE_BUGS", "1") != "0"

app = MCPServer("roots-writes")


class Tally(BaseModel):
    files: int


def get_roots() -> ListRoots:
    return ListRoots()


Roots = Annotated[ListRootsResult, Resolve(get_roots)]


def _inside(path: str, roots: ListRootsResult) -> Path:
    allowed = [Path(unquote(urlparse(str(r.uri)).path)).resolve() for r in roots.roots]
    if not allowed:
        raise ToolError("Access denied - the client shares no roots")
    if path.startswith("file://"):
        path = unquote(urlparse(path).path)
    if "\x00" in path:
        raise ToolError("Invalid path: it contains a NUL character")
    try:
        real = (Path(path) if os.path.isabs(path) else allowed[0] / path).resolve()
    except (OSError, RuntimeError, ValueError) as exc:
        raise ToolError(f"Invalid path: {exc}") from None
    if not any(real == root or root in real.parents for root in allowed):
        raise ToolError(f"Access denied - path outside allowed directories: {path}")
    return real


@app.tool(annotations=ToolAnnotations(destructiveHint=False))
async def note(
    path: Annotated[str, Field(description="Path of the note file to write, inside a root")],
    text: str,
    roots: Roots,
) -> str:
    """Write a note into a file."""
    real = _inside(path, roots)
    try:
        if real.is_dir() or not real.parent.is_dir():
            raise ToolError(f"Cannot write a file there: {path}")
        real.write_text(f"note: {text}", encoding="utf-8", errors="replace")
    except OSError as exc:  # a name too long for the file system, ...
        raise ToolError(f"Cannot write {path}: {exc.strerror}") from None
    return f"wrote {real.name}"


@app.tool(annotations=ToolAnnotations(readOnlyHint=True, destructiveHint=False))
async def tally(
    path: Annotated[str, Field(description="Path of the folder to count, inside a root")],
    roots: Roots,
) -> Tally:
    """How many files a folder holds."""
    real = _inside(path, roots)
    try:
        if not real.is_dir():
            raise ToolError(f"Not a folder: {path}")
        files = [child for child in real.iterdir() if child.is_file()]
        noted = any(child.read_bytes().startswith(b"note: ") for child in files)
    except OSError as exc:  # a name too long for the file system, ...
        raise ToolError(f"Cannot read {path}: {exc.strerror}") from None
    count: object = len(files)
    if BUGS and noted:
        count = f"{count} files"  # the bug: text where the model wants an integer
    return {"files": count}  # type: ignore[return-value]


if __name__ == "__main__":
    app.run()
