"""Shared helpers: run pytest (as users do) against the fixture servers in tests/servers/."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

SERVERS = Path(__file__).parent / "servers"


def server_command(name: str) -> str:
    """The shell command that starts fixture server `name` (a file in tests/servers/)."""
    return shlex.join([sys.executable, str(SERVERS / name)])


RunMcp = Callable[..., pytest.RunResult]


@pytest.fixture(autouse=True)
def _local_mode(monkeypatch: pytest.MonkeyPatch) -> None:
    """Runs under test are local runs unless a test sets CI itself: CI mode never writes
    contracts and fails on missing ones, which only the tests about it should meet."""
    monkeypatch.delenv("CI", raising=False)


@pytest.fixture
def run_mcp(pytester: pytest.Pytester) -> RunMcp:
    """Run pytest in a subprocess against fixture servers; extra args pass through."""

    def run(
        *servers: str, args: tuple[str, ...] = (), timeout: float | None = None
    ) -> pytest.RunResult:
        argv = [f"--mcp-server={server_command(s)}" for s in servers]
        # randomly would reorder items; the order is part of what some tests read.
        return pytester.runpytest_subprocess(*argv, "-p", "no:randomly", *args, timeout=timeout)

    return run


@pytest.fixture(scope="session")
def ts_server_command() -> str:
    """The TypeScript-SDK fixture server, its node_modules installed from its lock file once."""
    import shutil
    import subprocess

    folder = SERVERS / "ts_legacy"
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.skip("Node.js and npm are needed for the TypeScript-SDK fixture server")
    if not (folder / "node_modules" / "@modelcontextprotocol").is_dir():
        subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"],
            cwd=folder,
            check=True,
            capture_output=True,
            timeout=300,
        )
    return shlex.join([node, str(folder / "server.mjs")])
