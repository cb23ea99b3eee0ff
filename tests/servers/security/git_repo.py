"""A git server that never compares `repo_path` with its `--repository`: the class of
CVE-2025-68145 (GHSA-j22h-9j4x-23w5: repo_path not confined to --repository) and
CVE-2025-68143 (git_init creates a repository anywhere), mcp-server-git before 2025.12.18.
It runs the real `git` (a subprocess with list arguments: no shell).

Vulnerable (MCP_FIXTURE_FIXED unset): any repository on the machine can be read with
`git_status` and `git_log`, and `git_init` creates `.git` wherever it is told. Fixed
(MCP_FIXTURE_FIXED=1): the same server, but `repo_path` must resolve (`os.path.realpath`)
to `--repository` or a folder inside it, compared component by component; `git_init`
outside it is refused.

- `git_status(repo_path)` (readOnlyHint): `git status` of the working tree;
- `git_log(repo_path, max_count)` (readOnlyHint): the last commits, one line each;
- `git_init(repo_path)` (destructiveHint false): creates an empty repository.

Usage: `python git_repo.py --repository DIR`.
"""

import os
from typing import Annotated

from _git_tools import FIXED, RepoPath, confined, git, named
from _hints import READ_ONLY, WRITES
from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

app = MCPServer("git-repo")


def _repo(repo_path: str) -> str:
    """The folder git runs in; confined to --repository only in the fixed twin."""
    return confined(repo_path) if FIXED else named(repo_path)  # the bug: whatever is named


@app.tool(annotations=READ_ONLY)
def git_status(repo_path: RepoPath) -> str:
    """The working tree's status."""
    return "Repository status:\n" + git(_repo(repo_path), "status")


@app.tool(annotations=READ_ONLY)
def git_log(
    repo_path: RepoPath,
    max_count: Annotated[int, Field(ge=1, le=1000, description="How many commits")] = 10,
) -> str:
    """The last commits, newest first: hash, author and subject."""
    return git(_repo(repo_path), "log", f"--max-count={max_count}", "--format=%h %an %s")


@app.tool(annotations=WRITES)
def git_init(repo_path: RepoPath) -> str:
    """Create an empty git repository at repo_path (the folder is created if missing)."""
    folder = _repo(repo_path)
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as exc:
        raise ToolError(f"Cannot create {repo_path}: {exc.strerror}") from None
    git(folder, "init", "--quiet")
    return f"Initialized empty Git repository in {folder}"


if __name__ == "__main__":
    app.run()
