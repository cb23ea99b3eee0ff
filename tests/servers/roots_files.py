"""A Python-SDK (`MCPServer`) file server that adopts the client's roots as its allowed
folders, as the reference server-filesystem does: every tool asks the client for its roots
(`roots/list`, through the SDK's `ListRoots` resolver, which works in both protocol eras) and
refuses a path outside them with "Access denied - path outside allowed directories". Paths
may be absolute, relative to the first root, or file:// URIs.

With MCP_FIXTURE_BUGS unset (or "1") it has one planted bug, reachable only through an
existing non-empty file inside a root; with MCP_FIXTURE_BUGS=0 it is the same server, correct:

- `file_info(path)`: a `FileInfo` (name, size, is_folder); the bug returns the size of a
  non-empty file as text ("12 bytes"), which the SDK's output conversion refuses ("Error
  executing tool file_info", traceback on stderr);
- `read_text(path)`: the text of a file (undecodable bytes replaced);
- `list_folder(path)`: a `Listing` of the names in a folder, sorted.
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
READ_ONLY = ToolAnnotations(readOnlyHint=True, destructiveHint=False)
PathArg = Annotated[str, Field(description="Path of the file or folder, inside a root")]

app = MCPServer("roots-files")


class Listing(BaseModel):
    names: list[str]


class FileInfo(BaseModel):
    name: str
    size: int
    is_folder: bool


def get_roots() -> ListRoots:
    return ListRoots()


Roots = Annotated[ListRootsResult, Resolve(get_roots)]


def _allowed(roots: ListRootsResult) -> list[Path]:
    folders = [Path(unquote(urlparse(str(r.uri)).path)).resolve() for r in roots.roots]
    if not folders:
        raise ToolError("Access denied - the client shares no roots")
    return folders


def _inside(path: str, roots: ListRootsResult) -> Path:
    """The real path ``path`` names, refused unless it lies inside a root."""
    allowed = _allowed(roots)
    if path.startswith("file://"):
        path = unquote(urlparse(path).path)
    if "\x00" in path:
        raise ToolError("Invalid path: it contains a NUL character")
    candidate = Path(path) if os.path.isabs(path) else allowed[0] / path
    try:
        real = candidate.resolve()
    except (OSError, RuntimeError, ValueError) as exc:
        raise ToolError(f"Invalid path: {exc}") from None
    if not any(real == root or root in real.parents for root in allowed):
        raise ToolError(f"Access denied - path outside allowed directories: {path}")
    if not _exists(real):
        raise ToolError(f"No such file or folder: {path}")
    return real


def _exists(real: Path) -> bool:
    try:
        return real.exists()
    except OSError as exc:  # a name too long for the file system, ...
        raise ToolError(f"Invalid path: {exc.strerror}") from None


@app.tool(annotations=READ_ONLY)
async def file_info(path: PathArg, roots: Roots) -> FileInfo:
    """Name, size in bytes and kind of a file or folder."""
    real = _inside(path, roots)
    size: object = real.stat().st_size if real.is_file() else 0
    if BUGS and real.is_file() and size:
        size = f"{size} bytes"  # the bug: text where the model wants an integer
    # A dict is validated against the return annotation by the SDK's output conversion.
    return {"name": real.name, "size": size, "is_folder": real.is_dir()}  # type: ignore[return-value]


@app.tool(annotations=READ_ONLY)
async def read_text(path: PathArg, roots: Roots) -> str:
    """The text of a file."""
    real = _inside(path, roots)
    if not real.is_file():
        raise ToolError(f"Not a file: {path}")
    return real.read_text(encoding="utf-8", errors="replace")


@app.tool(annotations=READ_ONLY)
async def list_folder(
    path: Annotated[str, Field(description="Path of the folder to list, inside a root")],
    roots: Roots,
) -> Listing:
    """The names in a folder, sorted."""
    real = _inside(path, roots)
    if not real.is_dir():
        raise ToolError(f"Not a folder: {path}")
    return Listing(names=sorted(child.name for child in real.iterdir()))


if __name__ == "__main__":
    app.run()
