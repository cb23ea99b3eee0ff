"""A file server that checks the normalized path but opens it through symlinks: the class of
CVE-2025-53109 (@modelcontextprotocol/server-filesystem before 2025.7.1). The allowed folders
are the command line's arguments; when the client offers roots, they replace them (as the
reference server does: "Updated allowed directories from MCP roots").

Vulnerable (MCP_FIXTURE_FIXED unset): the path is made absolute and normalized
(`os.path.normpath`, so `..` cannot climb) and compared component by component
(`os.path.commonpath`, so the sibling-prefix path is refused), but symlinks are not resolved:
a link inside an allowed folder pointing at a file or folder outside is read, listed and
written through. Fixed (MCP_FIXTURE_FIXED=1): the same server, but the path is resolved
(`os.path.realpath`) before the same comparison.

- `read_text_file(path)` (readOnlyHint): the text of a file;
- `list_directory(path)` (readOnlyHint): the names in a folder, sorted;
- `write_file(path, content)` (destructiveHint false, as the reference annotates it):
  creates or replaces a file.

Relative paths resolve against the first allowed folder. A refused path is a tool error
"Access denied - path outside allowed directories: <path>".
"""

import os
import sys
from typing import Annotated
from urllib.parse import unquote, urlparse

from mcp.server import MCPServer
from mcp.server.mcpserver import Context, ListRoots, Resolve
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ListRootsResult, ToolAnnotations
from pydantic import Field

FIXED = os.environ.get("MCP_FIXTURE_FIXED") == "1"
ALLOWED = [os.path.abspath(folder) for folder in sys.argv[1:]] or [os.getcwd()]
READ_ONLY = ToolAnnotations(
    readOnlyHint=True, destructiveHint=False, idempotentHint=True, openWorldHint=False
)
WRITES = ToolAnnotations(
    readOnlyHint=False, destructiveHint=False, idempotentHint=True, openWorldHint=False
)
PathArg = Annotated[str, Field(description="Path of the file or folder, inside an allowed folder")]

app = MCPServer("files-symlink")


def client_roots(ctx: Context) -> ListRoots | ListRootsResult:
    """The client's roots, asked for only when it offers them (else none: argv stands)."""
    capabilities = ctx.client_capabilities
    if capabilities is None or capabilities.roots is None:
        return ListRootsResult(roots=[])
    return ListRoots()


Roots = Annotated[ListRootsResult, Resolve(client_roots)]


def _allowed(roots: ListRootsResult) -> list[str]:
    offered = [os.path.abspath(unquote(urlparse(str(r.uri)).path)) for r in roots.roots]
    return offered or ALLOWED


def _checked(path: str, roots: ListRootsResult) -> str:
    """The path the tool opens, refused unless it lies inside an allowed folder."""
    if "\x00" in path:
        raise ToolError("Invalid path: it contains a NUL character")
    allowed = _allowed(roots)
    absolute = os.path.abspath(os.path.join(allowed[0], os.path.expanduser(path)))
    # Normalized either way: `..` never climbs out, and components are compared, not strings.
    real = os.path.realpath(absolute) if FIXED else os.path.normpath(absolute)
    roots = [os.path.realpath(a) if FIXED else a for a in allowed]
    inside = any(os.path.commonpath([real, root]) == root for root in roots)
    if not inside:
        raise ToolError(f"Access denied - path outside allowed directories: {path}")
    return real


@app.tool(annotations=READ_ONLY)
def read_text_file(path: PathArg, roots: Roots) -> str:
    """The text of a file."""
    real = _checked(path, roots)
    try:
        with open(real, encoding="utf-8", errors="replace") as handle:
            return handle.read()
    except OSError as exc:
        raise ToolError(f"Cannot read {path}: {exc.strerror}") from None


@app.tool(annotations=READ_ONLY)
def list_directory(path: PathArg, roots: Roots) -> list[str]:
    """The names in a folder, sorted."""
    real = _checked(path, roots)
    try:
        return sorted(os.listdir(real))
    except OSError as exc:
        raise ToolError(f"Cannot list {path}: {exc.strerror}") from None


@app.tool(annotations=WRITES)
def write_file(
    path: PathArg,
    content: Annotated[str, Field(description="The file's new text")],
    roots: Roots,
) -> str:
    """Create a file or replace its text."""
    real = _checked(path, roots)
    try:
        with open(real, "w", encoding="utf-8") as handle:
            handle.write(content)
    except OSError as exc:
        raise ToolError(f"Cannot write {path}: {exc.strerror}") from None
    return f"Successfully wrote to {path}"


if __name__ == "__main__":
    app.run()
