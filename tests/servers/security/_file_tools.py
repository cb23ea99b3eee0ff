"""The file tools that files_prefix.py and files_symlink.py serve, each with its own check of
the allowed folders (``Check``): read_text_file, list_directory and write_file, named and
annotated as the reference @modelcontextprotocol/server-filesystem has them. The allowed
folders are the command line's arguments; when the client offers roots, they replace them
(as the reference server does: "Updated allowed directories from MCP roots"). Relative paths
resolve against the first allowed folder; a refused path is a tool error "Access denied -
path outside allowed directories: <path>"."""

import os
import sys
from collections.abc import Callable
from typing import Annotated
from urllib.parse import unquote, urlparse

from _hints import READ_ONLY, WRITES
from mcp.server import MCPServer
from mcp.server.mcpserver import Context, ListRoots, Resolve
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ListRootsResult
from pydantic import Field

FIXED = os.environ.get("MCP_FIXTURE_FIXED") == "1"
ALLOWED = [os.path.abspath(folder) for folder in sys.argv[1:]] or [os.getcwd()]
PathArg = Annotated[str, Field(description="Path of the file or folder, inside an allowed folder")]
# Whether an absolute path lies inside one of the allowed folders, and the path to open.
Check = Callable[[str, list[str]], tuple[bool, str]]


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


def serve(name: str, inside: Check) -> None:
    """Serve the three tools as ``name``, every path checked by ``inside``."""
    app = MCPServer(name)

    def checked(path: str, roots: ListRootsResult) -> str:
        if "\x00" in path:
            raise ToolError("Invalid path: it contains a NUL character")
        allowed = _allowed(roots)
        absolute = os.path.abspath(os.path.join(allowed[0], os.path.expanduser(path)))
        ok, real = inside(absolute, allowed)
        if not ok:
            raise ToolError(f"Access denied - path outside allowed directories: {path}")
        return real

    @app.tool(annotations=READ_ONLY)
    def read_text_file(path: PathArg, roots: Roots) -> str:
        """The text of a file."""
        real = checked(path, roots)
        try:
            with open(real, encoding="utf-8", errors="replace") as handle:
                return handle.read()
        except OSError as exc:
            raise ToolError(f"Cannot read {path}: {exc.strerror}") from None

    @app.tool(annotations=READ_ONLY)
    def list_directory(path: PathArg, roots: Roots) -> list[str]:
        """The names in a folder, sorted."""
        real = checked(path, roots)
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
        real = checked(path, roots)
        try:
            with open(real, "w", encoding="utf-8") as handle:
                handle.write(content)
        except OSError as exc:
            raise ToolError(f"Cannot write {path}: {exc.strerror}") from None
        return f"Successfully wrote to {path}"

    app.run()
