"""Warm starts for the fixture servers built on the Python SDK: one process (the zygote)
imports the SDK once and forks a server for each start, so a start costs a fork instead of
0.7 s of CPU spent importing `mcp` (pydantic building the protocol's models).

Measured on the suite (issue 27): a run started 558 fixture servers, 0.73 s of CPU each on
the SDK (0.12 s for the standard-library ones of tests/servers/_legacy.py, which import
jsonschema), about half of the suite's CPU; a fork and a small launcher cost about 0.03 s.

One file, three roles (only the standard library at the top: the launcher runs under
`python -S`, which skips site-packages and starts in about 10 ms):

- the launcher, ``python -S warm_servers.py SCRIPT [ARGS]`` (what ``command`` gives): the
  process the plugin starts, in a session of its own. It hands its stdin, stdout and stderr
  to the zygote, which forks the server onto them, then forwards the signals it gets to the
  server and exits as the server did (its exit status, or the same signal). When no zygote
  answers it becomes the server itself (``exec python SCRIPT``): a cold start.
- the zygote, ``python warm_servers.py --serve SOCKET``: imports what the fixture servers
  import and forks one server per launcher.
- ``start``/``command``: for tests/conftest.py, which starts one zygote per test session.

What a warm server is, against a cold one: the same script run as ``__main__`` from its top,
in a process of its own, on the very pipes the plugin made, with the launcher's arguments,
environment and working directory. What differs: it is not in the launcher's process group
(a SIGKILL of the group reaches it through its death pipe: SIGIO when the launcher's end
closes, whatever the server is doing), so the plugin's memory cap, which sums the group's
memory from /proc, does not see it (tests about the cap use ``cold_servers``); and it is not
the process whose pid the plugin holds.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import socket
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    import subprocess
    from typing import Any

SOCKET_ENV = "MCP_TEST_WARM_SERVERS"  # where the zygote listens; unset: cold starts
# Signals a launcher passes on to its server (the rest are the launcher's own, or SIGKILL).
FORWARDED = (
    signal.SIGTERM,
    signal.SIGINT,
    signal.SIGHUP,
    signal.SIGQUIT,
    signal.SIGUSR1,
    signal.SIGUSR2,
)


# -- the test session's side -----------------------------------------------------------------


def command(script: str, *args: str) -> list[str]:
    """The argv that starts fixture server ``script``: warm where a zygote runs, else the
    cold ``python SCRIPT``."""
    if not os.environ.get(SOCKET_ENV):
        return [sys.executable, script, *args]
    return [sys.executable, "-S", os.path.abspath(__file__), script, *args]


def start() -> subprocess.Popen[bytes] | None:
    """Start a zygote and point this process's environment (so every process started from
    here on) at it; None if it is not ready within 60 s: cold starts, then. It ends when its
    stdin, a pipe from this process, closes (``stop``, or this process's end)."""
    import subprocess
    import tempfile

    folder = tempfile.mkdtemp(prefix="mcp-warm-servers-")  # a Unix socket path is short
    path = os.path.join(folder, "zygote.sock")
    with open(os.path.join(folder, "zygote.log"), "wb") as log:
        zygote = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), "--serve", path],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=log,
        )
    assert zygote.stdout is not None
    ready, _, _ = select.select([zygote.stdout], [], [], 60)
    if ready and zygote.stdout.readline() == b"ready\n":
        os.environ[SOCKET_ENV] = path
        return zygote
    stop(zygote)
    return None


def stop(zygote: subprocess.Popen[bytes]) -> None:
    import shutil

    path = os.environ.pop(SOCKET_ENV, None)
    assert zygote.stdin is not None and zygote.stdout is not None
    zygote.stdin.close()
    zygote.stdout.close()
    try:
        zygote.wait(timeout=10)
    except Exception:
        zygote.kill()
        zygote.wait()
    if path is not None:
        shutil.rmtree(os.path.dirname(path), ignore_errors=True)


# -- the launcher ----------------------------------------------------------------------------


def launch(argv: list[str]) -> None:
    """Have the zygote fork the server ``argv`` (SCRIPT, ARGS) onto this process's stdio, and
    end as it ends; without a zygote, exec it cold."""
    path = os.environ.get(SOCKET_ENV)
    zygote = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        if not path:
            raise OSError("no zygote")
        zygote.connect(path)
        # The server's end of the death pipe; this process holds the other end (never written,
        # never closed) until it ends.
        death, _held = os.pipe()
        request = {"argv": argv, "cwd": os.getcwd(), "env": dict(os.environ)}
        _send(zygote, json.dumps(request).encode(), [0, 1, 2, death])
        os.close(death)
        answers = zygote.makefile("rb")
        pid = int(answers.readline().split()[1])
    except (OSError, ValueError, IndexError):
        zygote.close()
        os.execv(sys.executable, [sys.executable, *argv])
    for sig in FORWARDED:
        signal.signal(sig, lambda sig, _frame: _signal(pid, sig))
    # The server holds the plugin's pipes now: this process must not keep them open after
    # the server ends (the plugin reads end of output as the server gone).
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    kind, _, number = answers.readline().decode().partition(" ")
    if kind != "signal":
        # "exit N"; nothing at all: the zygote ended first (only at the session's end).
        if not kind:
            _signal(pid, signal.SIGKILL)
        os._exit(int(number) if kind == "exit" else 1)
    sig = int(number)
    if sig != signal.SIGKILL:
        signal.signal(sig, signal.SIG_DFL)
    os.kill(os.getpid(), sig)
    os._exit(128 + sig)  # a signal whose default is not to end the process


def _signal(pid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, sig)


def _send(sock: socket.socket, message: bytes, fds: list[int]) -> None:
    import array

    rights = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))]
    sock.sendmsg([len(message).to_bytes(4, "big") + message], rights)


# -- the zygote ------------------------------------------------------------------------------


def serve(path: str) -> tuple[dict[str, Any], list[int]]:
    """Fork a server per launcher until stdin closes. Returns only in a forked server: its
    request and the four descriptors it was handed."""
    import threading

    # What the SDK servers import, imported once: a server re-imports nothing of it. One
    # MCPServer built, as each server builds one (its key derivation loads cryptography).
    import anyio  # noqa: F401
    import jsonschema  # noqa: F401  (tests/servers/_legacy.py)
    import mcp.server.stdio
    import mcp.types  # noqa: F401
    import pydantic  # noqa: F401
    import uvicorn  # noqa: F401  (tests/servers/http_serve.py)
    from mcp.server import MCPServer, Server  # noqa: F401
    from mcp.server.mcpserver import ListRoots  # noqa: F401
    from mcp.server.mcpserver.exceptions import ToolError  # noqa: F401

    MCPServer("warm-up").streamable_http_app()
    # A fork copies only the thread that forks: nothing above may have left one running.
    assert threading.active_count() == 1, threading.enumerate()

    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    os.write(1, b"ready\n")
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)  # nobody reads the pipe to the session any more
    os.close(null)
    running: dict[int, tuple[int, socket.socket]] = {}  # pidfd: (pid, its launcher)
    while True:
        ready, _, _ = select.select([0, listener, *running], [], [])
        if 0 in ready and not os.read(0, 4096):
            sys.exit(0)  # the session ended; running servers end with their launchers
        if listener in ready:
            launcher, _ = listener.accept()
            try:
                launcher.settimeout(10)
                request, fds = _receive(launcher)
            except (OSError, ValueError):
                launcher.close()
                continue
            pid = os.fork()
            if pid == 0:  # the server: none of the zygote's descriptors stay open in it
                os.close(0)
                for pidfd, (_, other) in running.items():
                    os.close(pidfd)
                    other.close()
                listener.close()
                launcher.close()
                return request, fds
            for fd in fds:
                os.close(fd)
            with contextlib.suppress(OSError):  # gone: the server ends by its death pipe
                launcher.sendall(f"pid {pid}\n".encode())
            running[os.pidfd_open(pid)] = (pid, launcher)
        for pidfd in [fd for fd in ready if fd in running]:
            pid, launcher = running.pop(pidfd)
            os.close(pidfd)
            _, status = os.waitpid(pid, 0)
            end = (
                f"signal {os.WTERMSIG(status)}"
                if os.WIFSIGNALED(status)
                else f"exit {os.waitstatus_to_exitcode(status)}"
            )
            with contextlib.suppress(OSError):
                launcher.sendall(f"{end}\n".encode())
            launcher.close()


def _receive(sock: socket.socket) -> tuple[dict[str, Any], list[int]]:
    import array

    fds = array.array("i")
    data, ancillary, _, _ = sock.recvmsg(65536, socket.CMSG_SPACE(4 * fds.itemsize))
    for level, kind, payload in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(payload[: len(payload) - len(payload) % fds.itemsize])
    if len(fds) != 4:
        for fd in fds:
            os.close(fd)
        raise ValueError("a launcher sends four descriptors")
    size = int.from_bytes(data[:4], "big")
    body = data[4:]
    while len(body) < size:
        more = sock.recv(size - len(body))
        if not more:
            raise ValueError("a launcher hung up mid-request")
        body += more
    return json.loads(body), list(fds)


def become_server(request: dict[str, Any], fds: list[int]) -> None:
    """In a forked server: take the launcher's stdio, arguments, environment and working
    directory, then run its script as ``python SCRIPT`` would."""
    import io
    import types

    os.setsid()  # what the server itself spawns is its own group, not the zygote's
    stdin, stdout, stderr, death = fds
    for fd, target in ((stdin, 0), (stdout, 1), (stderr, 2)):
        os.dup2(fd, target)
    for fd in {stdin, stdout, stderr} - {0, 1, 2}:
        os.close(fd)
    _die_with_launcher(death)
    env = request["env"]
    os.environ.clear()
    os.environ.update(env)
    os.chdir(request["cwd"])
    sys.dont_write_bytecode = bool(env.get("PYTHONDONTWRITEBYTECODE"))
    script = request["argv"][0]
    sys.argv = list(request["argv"])
    if os.path.isdir(script):  # python FOLDER runs FOLDER/__main__.py, FOLDER first on the path
        sys.path[0] = script
        script = os.path.join(script, "__main__.py")
    else:
        sys.path[0] = os.path.dirname(os.path.abspath(script))
    # Standard streams as the interpreter makes them from this environment.
    unbuffered = bool(env.get("PYTHONUNBUFFERED"))
    encoding, _, errors = env.get("PYTHONIOENCODING", "").partition(":")
    encoding = encoding or sys.__stdout__.encoding

    def stream(fd: int, mode: str, errors: str, line_buffering: bool) -> io.TextIOWrapper:
        raw = unbuffered and mode == "w"
        binary = open(fd, mode + "b", buffering=0 if raw else -1, closefd=False)  # noqa: SIM115
        text = io.TextIOWrapper(
            binary,  # type: ignore[arg-type]
            encoding=encoding,
            errors=errors,
            line_buffering=line_buffering,
            write_through=raw,
        )
        text.mode = mode  # type: ignore[misc]
        return text

    sys.stdin = sys.__stdin__ = stream(0, "r", errors or sys.__stdin__.errors, False)
    sys.stdout = sys.__stdout__ = stream(1, "w", errors or sys.__stdout__.errors, os.isatty(1))
    sys.stderr = sys.__stderr__ = stream(2, "w", "backslashreplace", True)
    main = types.ModuleType("__main__")
    main.__file__ = script
    sys.modules["__main__"] = main
    with open(script, "rb") as source:
        code = compile(source.read(), script, "exec")
    try:
        exec(code, main.__dict__)
    except SystemExit as exc:
        _exit(exc.code)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:
        # As the interpreter shows it: from the script's own frame down, exit status 1.
        assert exc.__traceback__ is not None
        exc = exc.with_traceback(exc.__traceback__.tb_next)
        sys.excepthook(type(exc), exc, exc.__traceback__)
        _exit(1)
    _exit(0)


def _exit(code: object) -> None:
    """End as the interpreter ends a script (``sys.exit(code)``): wait for the threads that
    are not daemons, run the atexit functions, flush stdout and stderr; but without tearing
    down the modules, most of them the zygote's: that took 0.2 s of CPU a server."""
    import atexit
    import threading

    if code is None:
        status = 0
    elif isinstance(code, int):
        status = code & 0xFF
    else:
        print(code, file=sys.stderr)
        status = 1
    threading._shutdown()  # type: ignore[attr-defined]
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            status = status or 120  # as the interpreter exits when it cannot flush stdout
    os._exit(status)


def _die_with_launcher(death: int) -> None:
    """SIGIO (whose default is to end the process) when the launcher's end of the death pipe
    closes: the launcher was killed or ended, so this server ends too, whatever it is doing."""
    import fcntl

    signal.signal(signal.SIGIO, signal.SIG_DFL)
    fcntl.fcntl(death, fcntl.F_SETOWN, os.getpid())
    fcntl.fcntl(death, fcntl.F_SETFL, fcntl.fcntl(death, fcntl.F_GETFL) | os.O_ASYNC)
    # The launcher may have ended before O_ASYNC was set: then no signal comes.
    if select.select([death], [], [], 0)[0]:
        os.kill(os.getpid(), signal.SIGKILL)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--serve"]:
        become_server(*serve(sys.argv[2]))
    else:
        launch(sys.argv[1:])
