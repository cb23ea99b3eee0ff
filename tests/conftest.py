"""Shared helpers: run pytest (as users do) against the fixture servers in tests/servers/."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Callable, Iterator
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
def ts_server_command(ts_servers: Callable[[str], str]) -> str:
    """The TypeScript-SDK fixture server with the legacy handshake (ts_legacy/server.mjs)."""
    return ts_servers("server.mjs")


@pytest.fixture(scope="session")
def ts_servers() -> Callable[[str], str]:
    """The command for a TypeScript-SDK fixture server in tests/servers/ts_legacy/, its
    node_modules installed from the folder's lock file once."""
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
    return lambda name: shlex.join([node, str(folder / name)])


HttpServer = Callable[..., str]


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def http_server() -> Iterator[HttpServer]:
    """Start fixture servers over Streamable HTTP (tests/servers/http_serve.py): call it with a
    fixture file name (and extra environment); it waits until the port accepts and returns the
    URL. Every server started is killed at teardown."""
    import os
    import socket
    import subprocess
    import time

    started: list[subprocess.Popen[bytes]] = []

    def start(name: str, env: dict[str, str] | None = None) -> str:
        port = _free_port()
        proc = subprocess.Popen(
            [sys.executable, str(SERVERS / "http_serve.py"), str(SERVERS / name), str(port)],
            env={**os.environ, **(env or {})},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        started.append(proc)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                assert proc.stderr is not None
                pytest.fail(f"{name} over HTTP exited at start: {proc.stderr.read().decode()}")
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                    return f"http://127.0.0.1:{port}/mcp"
            except OSError:
                time.sleep(0.1)
        pytest.fail(f"{name} over HTTP did not listen on port {port} within 30 s")

    yield start
    for proc in started:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        if proc.stderr is not None:
            proc.stderr.close()
