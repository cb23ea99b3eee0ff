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

import argparse
import os
import subprocess
from typing import Annotated

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field

FIXED = os.environ.get("MCP_FIXTURE_FIXED") == "1"
READ_ONLY = ToolAnnotations(
    readOnlyHint=True, destructiveHint=False, idempotentHint=True, openWorldHint=False
)
CREATES = ToolAnnotations(
    readOnlyHint=False, destructiveHint=False, idempotentHint=True, openWorldHint=False
)
RepoPath = Annotated[str, Field(description="Path of the git repository")]

_parser = argparse.ArgumentParser()
_parser.add_argument("--repository", required=True, help="the repository this server serves")
REPOSITORY = os.path.realpath(_parser.parse_args().repository)

app = MCPServer("git-repo")


def _repo(repo_path: str) -> str:
    """The folder git runs in; confined to --repository only in the fixed twin."""
    path = os.path.join(REPOSITORY, os.path.expanduser(repo_path))
    if FIXED:
        real = os.path.realpath(path)
        if os.path.commonpath([real, REPOSITORY]) != REPOSITORY:
            raise ToolError(f"Repository path {repo_path} is outside the allowed repository")
        return real
    return path  # the bug: whatever the client names


def _git(cwd: str, *args: str) -> str:
    try:
        done = subprocess.run(
            ["git", *args], cwd=cwd, capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ToolError(f"git failed: {exc}") from None
    if done.returncode != 0:
        raise ToolError(f"git {args[0]} failed: {done.stderr.strip()}")
    return done.stdout


@app.tool(annotations=READ_ONLY)
def git_status(repo_path: RepoPath) -> str:
    """The working tree's status."""
    return "Repository status:\n" + _git(_repo(repo_path), "status")


@app.tool(annotations=READ_ONLY)
def git_log(
    repo_path: RepoPath,
    max_count: Annotated[int, Field(ge=1, le=1000, description="How many commits")] = 10,
) -> str:
    """The last commits, newest first: hash, author and subject."""
    return _git(_repo(repo_path), "log", f"--max-count={max_count}", "--format=%h %an %s")


@app.tool(annotations=CREATES)
def git_init(repo_path: RepoPath) -> str:
    """Create an empty git repository at repo_path (the folder is created if missing)."""
    folder = _repo(repo_path)
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as exc:
        raise ToolError(f"Cannot create {repo_path}: {exc.strerror}") from None
    _git(folder, "init", "--quiet")
    return f"Initialized empty Git repository in {folder}"


if __name__ == "__main__":
    app.run()
