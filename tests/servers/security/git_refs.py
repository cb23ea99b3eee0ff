"""A git server that passes a ref to the real `git` as an argument without `--end-of-options`:
the class of CVE-2025-68144 (GHSA-9xwc-hfwc-8w59: argument injection in git_diff and
git_checkout, mcp-server-git before 2025.12.18). A target such as `--output=/some/file` is
read by git as an option, so a tool annotated read-only writes a file anywhere.

Both twins confine `repo_path` to `--repository` (resolved, compared component by component):
only the ref is at fault. Vulnerable (MCP_FIXTURE_FIXED unset): `git diff <target>` and
`git show <revision>`. Fixed (MCP_FIXTURE_FIXED=1): a ref starting with "-" is refused, and
git is told `--end-of-options` before it.

- `git_diff(repo_path, target)` (readOnlyHint): the diff between the working tree and target;
- `git_show(repo_path, revision)` (readOnlyHint): a commit's message and diff.

Usage: `python git_refs.py --repository DIR`.
"""

from typing import Annotated

from _git_tools import FIXED, RepoPath, confined, git
from _hints import READ_ONLY
from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

app = MCPServer("git-refs")


def _ref_args(ref: str) -> list[str]:
    """The arguments that name ``ref`` to git."""
    if not FIXED:
        return [ref]  # the bug: "--output=FILE" is an option to git, not a ref
    if ref.startswith("-"):
        raise ToolError(f"Invalid ref {ref!r}: a ref cannot start with '-'")
    return ["--end-of-options", ref]


@app.tool(annotations=READ_ONLY)
def git_diff(
    repo_path: RepoPath,
    target: Annotated[str, Field(description="Branch, tag or commit to compare with")],
) -> str:
    """The diff between the working tree and a branch, tag or commit."""
    return git(confined(repo_path), "diff", *_ref_args(target))


@app.tool(annotations=READ_ONLY)
def git_show(
    repo_path: RepoPath,
    revision: Annotated[str, Field(description="The commit, branch or tag to show")],
) -> str:
    """A commit's message and diff."""
    return git(confined(repo_path), "show", *_ref_args(revision))


if __name__ == "__main__":
    app.run()
