"""A server that builds a shell command from an argument: OS command injection (CWE-78), the
class of the shell-built commands in many published MCP server advisories. The allowed
folder is the command line's first argument; commands run there.

Both twins refuse a filename that resolves outside the allowed folder: a check on the path
does not stop a shell, since `notes.txt; cat /etc/passwd` is, as a path, inside it.
Vulnerable (MCP_FIXTURE_FIXED unset): `count_lines` runs
`subprocess.run(f"wc -l {filename}", shell=True)`, so `;`, `|`, `&&`, `$(...)` and backticks
in the filename run commands. Fixed (MCP_FIXTURE_FIXED=1): list arguments, no shell.

- `count_lines(filename)` (readOnlyHint): the number of lines of a file;
- `run_command(command)`: "Runs a shell command", in both twins: it runs code by design, so
  a tester must leave it alone rather than call its purpose a bug. It is annotated
  destructive, so it is called only when the user opts in (--mcp-call=all).
"""

import os
import subprocess
import sys
from typing import Annotated

from _hints import READ_ONLY
from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field

FIXED = os.environ.get("MCP_FIXTURE_FIXED") == "1"
ALLOWED = os.path.realpath(sys.argv[1] if len(sys.argv) > 1 else os.getcwd())
RUNS_ANYTHING = ToolAnnotations(
    readOnlyHint=False, destructiveHint=True, idempotentHint=False, openWorldHint=True
)

app = MCPServer("shell-exec")


def _run(command: str | list[str]) -> str:
    try:
        done = subprocess.run(
            command,
            shell=isinstance(command, str),
            cwd=ALLOWED,
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ToolError(f"Command failed: {exc}") from None
    if done.returncode != 0:
        raise ToolError(f"Command failed ({done.returncode}): {done.stdout}{done.stderr}".strip())
    return done.stdout + done.stderr


@app.tool(annotations=READ_ONLY)
def count_lines(
    filename: Annotated[str, Field(description="Name of a file in the working folder")],
) -> str:
    """The number of lines of a file."""
    real = os.path.realpath(os.path.join(ALLOWED, filename))
    if os.path.commonpath([real, ALLOWED]) != ALLOWED:
        raise ToolError(f"Access denied - {filename} is outside the working folder")
    if FIXED:
        return _run(["wc", "-l", "--", filename])
    return _run(f"wc -l {filename}")  # the bug: the filename is shell syntax


# Declared destructive: the default call policy (nondestructive) calls an unannotated tool.
@app.tool(annotations=RUNS_ANYTHING)
def run_command(
    command: Annotated[str, Field(description="The shell command to run")],
) -> str:
    """Runs a shell command in the working folder and returns its output."""
    return _run(command)


if __name__ == "__main__":
    app.run()
