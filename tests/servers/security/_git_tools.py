"""What git_refs.py and git_repo.py share: the repository on the command line
(``--repository DIR``, as mcp-server-git takes it), the check that confines a ``repo_path`` to
it, and a real ``git`` run with list arguments (no shell)."""

import argparse
import os
import subprocess
from typing import Annotated

from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

FIXED = os.environ.get("MCP_FIXTURE_FIXED") == "1"
RepoPath = Annotated[str, Field(description="Path of the git repository")]

_parser = argparse.ArgumentParser()
_parser.add_argument("--repository", required=True, help="the repository this server serves")
REPOSITORY = os.path.realpath(_parser.parse_args().repository)


def named(repo_path: str) -> str:
    """The folder ``repo_path`` names, relative ones from --repository."""
    return os.path.join(REPOSITORY, os.path.expanduser(repo_path))


def confined(repo_path: str) -> str:
    """The folder ``repo_path`` names, refused unless it lies inside --repository."""
    real = os.path.realpath(named(repo_path))
    if os.path.commonpath([real, REPOSITORY]) != REPOSITORY:
        raise ToolError(f"Repository path {repo_path} is outside the allowed repository")
    return real


def git(cwd: str, *args: str) -> str:
    """``git ARGS`` run in ``cwd``: its output, or a tool error with git's own words."""
    try:
        done = subprocess.run(
            ["git", *args], cwd=cwd, capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ToolError(f"git failed: {exc}") from None
    if done.returncode != 0:
        raise ToolError(f"git {args[0]} failed: {done.stderr.strip()}")
    return done.stdout
