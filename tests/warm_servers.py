"""Warm starts for the processes the suite starts most: the fixture servers built on the
Python SDK, the pytest runs under test and their xdist workers. A process (a zygote) imports
once what they import and forks one for each start, so a start costs a fork instead of the
imports: 0.7 s of CPU for a server (`mcp`: pydantic building the protocol's models), 0.5 s
for a pytest run (pytest, hypothesis, jsonschema, this plugin).

Measured on the suite (issue 27): a run started 558 fixture servers, 0.73 s of CPU each on
the SDK (0.12 s for the standard-library ones of tests/servers/_legacy.py, which import
jsonschema), about half of the suite's CPU; a fork and a small launcher cost about 0.03 s.
With the servers warm, the 250 or so pytest processes were the largest share left.

One file, three roles (only the standard library at the top: the launcher runs under
`python -S`, which skips site-packages and starts in about 10 ms):

- the launcher, ``python -S warm_servers.py SCRIPT [ARGS]`` or ``... -m pytest [ARGS]``
  (what ``command`` and ``pytest_command`` give), or ``... --zygote KIND -u -c CODE`` (an
  xdist worker as execnet starts one, ``warm_xdist_workers``): the process the plugin,
  pytester or xdist starts, in a session of its own. It hands its stdin, stdout and stderr
  to the zygote of its kind, which forks the server or the pytest run onto them, then
  forwards the signals it gets and exits as the forked process did (its exit status, or the
  same signal). When no zygote answers it becomes the process itself (``exec python
  SCRIPT``): a cold start.
- a zygote, ``python warm_servers.py --serve SOCKET KIND``: imports what its kind imports
  and forks one process per launcher.
- ``start``/``command``/``pytest_command``/``warm_xdist_workers``: for tests/conftest.py,
  which starts one zygote of each kind per test session.

What a warm process is, against a cold one: the same script (or module, for ``-m``) run as
``__main__`` from its top, in a process of its own, on the very pipes its parent made, with
the launcher's arguments, environment (``PYTHONPATH`` included) and working directory. An
environment that sets what the interpreter reads only as it starts (``AT_START``)
differently from the zygote's gets a cold start. What differs: it is not in the launcher's
process group (a SIGKILL of the group reaches it through its death pipe: SIGIO when the
launcher's end closes, whatever it is doing), so the plugin's memory cap, which sums the
group's memory from /proc, does not see a warm server (tests about the cap use
``cold_servers``); it is not the process whose pid its parent holds; and what the zygote
imported is already imported, so a warm pytest run does not show which modules a run
imports, nor rewrite the assertions of the plugins' own modules (tests about its imports
use ``cold_pytest``).
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
    from collections.abc import Callable
    from typing import Any

SOCKET_ENV = "MCP_TEST_WARM_SERVERS"  # where the servers' zygote listens; unset: cold starts
PYTEST_SOCKET_ENV = "MCP_TEST_WARM_PYTEST"  # where the pytest runs' zygote listens
# A second zygote like the pytest runs' one, for the second xdist worker of a run (see
# ``warm_xdist_workers``): each zygote has a hash seed of its own, as each cold process has.
WORKERS_SOCKET_ENV = "MCP_TEST_WARM_WORKERS"
# The servers of tests/servers/old_sdk/, whose zygote runs that folder's virtualenv's Python.
OLD_SDK_SOCKET_ENV = "MCP_TEST_WARM_OLD_SDK"
SOCKETS = {
    "servers": SOCKET_ENV,
    "pytest": PYTEST_SOCKET_ENV,
    "workers": WORKERS_SOCKET_ENV,
    "old_sdk": OLD_SDK_SOCKET_ENV,
}
# The servers of tests/servers/sdks/<stack>/ (tests/e2e/test_sdk_generations.py): a zygote
# per stack, on that stack's virtualenv's Python, of kind "stack:<stack>" (``socket_env``).
STACK = "stack:"


def socket_env(kind: str) -> str:
    """The variable that holds where the zygote of ``kind`` listens."""
    if kind.startswith(STACK):
        stack = "".join(c if c.isalnum() else "_" for c in kind.removeprefix(STACK))
        return f"MCP_TEST_WARM_STACK_{stack.upper()}"
    return SOCKETS[kind]


# The zygote each xdist worker of a warm pytest run forks from, by its id; the others start cold.
WORKER_ZYGOTES = {"gw0": "pytest", "gw1": "workers"}
# What the interpreter reads from the environment only as it starts (``python --help-env``):
# a forked process cannot take it from its launcher, so a launcher whose environment sets
# one of these otherwise than the zygote's gets a cold start.
AT_START = (
    "PYTHONHASHSEED",
    "PYTHONWARNINGS",
    "PYTHONDEVMODE",
    "PYTHONOPTIMIZE",
    "PYTHONMALLOC",
    "PYTHONFAULTHANDLER",
    "PYTHONTRACEMALLOC",
    "PYTHONSAFEPATH",
    "PYTHONNOUSERSITE",
    "PYTHONUSERBASE",
    "PYTHONUTF8",
    "PYTHONHOME",
    "PYTHONPLATLIBDIR",
    "PYTHONINTMAXSTRDIGITS",
    "PYTHONNODEBUGRANGES",
    "PYTHONPYCACHEPREFIX",
    "PYTHONVERBOSE",
    "PYTHONINSPECT",
    "PYTHONDEBUG",
)
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


def command(
    script: str, *args: str, python: str = sys.executable, kind: str = "servers"
) -> list[str]:
    """The argv that starts fixture server ``script``: warm where a zygote of ``kind`` runs,
    else the cold ``python SCRIPT`` (``python``: the interpreter a cold start runs; the
    launcher runs on it too, and falls back to it)."""
    if not os.environ.get(socket_env(kind)):
        return [python, script, *args]
    chosen = [] if kind == "servers" else ["--zygote", kind]
    return [python, "-S", os.path.abspath(__file__), *chosen, script, *args]


def pytest_command() -> tuple[str, ...]:
    """What runs ``python -m pytest``: warm where a zygote of pytest runs listens, else that."""
    return module_command("pytest")


def module_command(module: str) -> tuple[str, ...]:
    """What runs ``python -m MODULE`` (pytest, or this plugin's command line), forked from
    the zygote of pytest runs where it listens, which has imported what both import."""
    if not os.environ.get(PYTEST_SOCKET_ENV):
        return (sys.executable, "-m", module)
    return (sys.executable, "-S", os.path.abspath(__file__), "-m", module)


def start(*kinds: str, python: str = sys.executable) -> dict[str, subprocess.Popen[bytes]]:
    """Start a zygote of each kind (``SOCKETS``) on ``python``, side by side, and point this
    process's environment (so every process started from here on) at those ready within 60 s
    (the others are stopped: cold starts, then). Each ends when its stdin, a pipe from this
    process, closes (``stop``, or this process's end)."""
    import subprocess
    import tempfile

    started = {}
    for kind in kinds:
        folder = tempfile.mkdtemp(prefix=f"mcp-warm-{kind}-")  # a Unix socket path is short
        path = os.path.join(folder, "zygote.sock")
        with open(os.path.join(folder, "zygote.log"), "wb") as log:
            started[kind] = (
                path,
                subprocess.Popen(
                    [python, os.path.abspath(__file__), "--serve", path, kind],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=log,
                    cwd=folder,  # what its imports take from the working folder is not the suite's
                ),
            )
    ready = {}
    for kind, (path, zygote) in started.items():
        assert zygote.stdout is not None
        if select.select([zygote.stdout], [], [], 60)[0] and zygote.stdout.readline() == b"ready\n":
            os.environ[socket_env(kind)] = path
            ready[kind] = zygote
        else:
            stop(zygote, kind)
    return ready


def stop(zygote: subprocess.Popen[bytes], kind: str) -> None:
    import shutil

    path = os.environ.pop(socket_env(kind), None)
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
    """Have the zygote of its kind fork ``argv`` (SCRIPT, ARGS for a server; -m pytest, ARGS
    for a pytest run; ``--zygote KIND -u -c CODE`` for an xdist worker, ``--zygote old_sdk
    SCRIPT, ARGS`` for a server of the old SDK) onto this process's
    stdio, and end as it ends; without a zygote, or when it answers that it cannot, exec it
    cold."""
    if argv[:1] == ["--zygote"]:
        kind, argv = argv[1], argv[2:]
    else:
        kind = "pytest" if argv[:1] == ["-m"] else "servers"
    path = os.environ.get(socket_env(kind))
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
        pid = int(answers.readline().split()[1])  # "cold" (AT_START) has no second word
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


def _import_the_sdk() -> None:
    """The Python SDK, as its servers (and the apps of ``--mcp-app``) import it: pydantic
    building the protocol's models, about 0.4 s of CPU in each process that imports it."""
    import anyio  # noqa: F401
    import mcp.server.stdio
    import mcp.shared.memory
    import mcp.shared.message
    import mcp.types  # noqa: F401
    import pydantic  # noqa: F401
    from mcp.server import MCPServer, Server  # noqa: F401
    from mcp.server.mcpserver import ListRoots  # noqa: F401
    from mcp.server.mcpserver.exceptions import ToolError  # noqa: F401


def _preload_servers() -> None:
    """What the SDK servers import, imported once: a server re-imports nothing of it. One
    MCPServer built, as each server builds one (its key derivation loads cryptography)."""
    import jsonschema  # noqa: F401  (tests/servers/_legacy.py)
    import uvicorn  # noqa: F401  (tests/servers/http_serve.py)
    from mcp.server import MCPServer

    _import_the_sdk()
    MCPServer("warm-up").streamable_http_app()


def _preload_old_sdk() -> None:
    """FastMCP of the old SDK (tests/servers/old_sdk/), in that folder's virtualenv: 0.7 s
    of CPU a server started cold."""
    import mcp.server.stdio  # noqa: F401
    from mcp.server.fastmcp import FastMCP  # noqa: F401
    from mcp.server.session import ServerSession  # noqa: F401


def _preload_pytest() -> None:
    """What a pytest run under test imports: pytest with its own plugins and every installed
    one (pytest-xdist, syrupy, anyio's...), every module of this plugin, which brings
    hypothesis (its Unicode table given first, as in a run), hypothesis-jsonschema and
    jsonschema, and the SDK, which the plugin's client needs not but the apps of the
    in-process runs import (``--mcp-app``). What a run imported after the fork before (one
    run on a fixture server; the in-process runs): 0.1 s of CPU and 0.4 s more.

    Not hypothesis's pytest plugin: its import counts how deep hypothesis is in a pytest
    run's start-up (``_hypothesis_globals.in_initialization``), which each run does itself."""
    import importlib
    from importlib.metadata import entry_points

    import execnet  # noqa: F401
    import pytest  # noqa: F401
    import xdist.dsession  # noqa: F401
    from _pytest.config import default_plugins

    import_the_plugin()  # first: it hands hypothesis its Unicode table before hypothesis loads
    import hypothesis.stateful  # noqa: F401  (the sequences)

    for name in default_plugins:
        importlib.import_module(f"_pytest.{name}")
    for plugin in entry_points(group="pytest11"):
        if plugin.module != "_hypothesis_pytestplugin":
            importlib.import_module(plugin.module)
    _import_the_sdk()
    remember_installed()


# What remember_installed() parsed, by property, metadata folder and its modification time.
_INSTALLED: dict[tuple[str, str, int], Any] = {}


def remember_installed() -> None:
    """Each installed distribution's metadata parsed once per process, not twice per run.

    A pytest run, as it starts, goes through every installed distribution twice
    (``importlib.metadata.distributions()``): pluggy parses their entry points to load the
    ``pytest11`` plugins, and pytest the file list (RECORD) of each plugin's distribution,
    to mark its modules for assertion rewriting. The suite makes hundreds of runs in a few
    processes (the in-process runs of each xdist worker; the runs forked from a zygote,
    which parses them before it forks), and parsing it all again was a third of each run's
    configuration: 15 ms of a bare run's 125.

    What ``Distribution.entry_points`` and ``Distribution.files`` give is kept by the
    distribution's metadata folder and that folder's modification time, so a distribution
    installed, rewritten or removed meanwhile is read afresh; which distributions there are
    is still looked up on ``sys.path`` at each call (importlib.metadata caches each folder's
    listing by its modification time itself). Called again, in this process or in one forked
    from a zygote that called it (where this module is ``__main__``, not ``tests.warm_servers``),
    it wraps nothing twice: it only reads the plugins' metadata through what is kept."""
    import importlib.metadata

    distribution = importlib.metadata.Distribution
    for name in ("entry_points", "files"):
        parse = distribution.__dict__[name].fget
        if getattr(parse, "remembers", False):
            continue

        def get(dist: Any, name: str = name, parse: Callable[[Any], Any] = parse) -> Any:
            folder = getattr(dist, "_path", None)  # a PathDistribution's metadata folder
            try:
                key = (name, str(folder), os.stat(folder).st_mtime_ns)
            except (OSError, TypeError):
                return parse(dist)
            if key not in _INSTALLED:
                _INSTALLED[key] = parse(dist)
            return _INSTALLED[key]

        get.remembers = True  # type: ignore[attr-defined]
        setattr(distribution, name, property(get))
    for dist in importlib.metadata.distributions():
        if any(entry.group == "pytest11" for entry in dist.entry_points):
            dist.files  # noqa: B018  (parsed now: kept for every fork)


def import_the_plugin() -> None:
    """Every module of this plugin but ``__main__`` (also what tests/conftest.py keeps
    imported for the in-process runs)."""
    import importlib
    import pkgutil

    import pytest_mcp_contracts

    for module in pkgutil.walk_packages(pytest_mcp_contracts.__path__, "pytest_mcp_contracts."):
        if module.name != "pytest_mcp_contracts.__main__":
            importlib.import_module(module.name)


def _preload_stack() -> None:
    """What the servers of an SDK stack (tests/servers/sdks/) import, of the SDKs that stack
    holds: 0.9 to 1.6 s of CPU a server started cold, and a stack's run starts some 15 (a
    crash costs a restart and a replay on a fresh server)."""
    import importlib

    for name in (
        "anyio",
        "pydantic",
        "mcp.types",
        "mcp.server.stdio",
        "mcp.server.lowlevel",
        "mcp.server.fastmcp",  # mcp 1.x
        "mcp.server.mcpserver",  # mcp 2.x
        "fastmcp",
        # What logs a traceback in the SDKs that use rich: their first one imports it.
        "rich.logging",
        "rich.traceback",
    ):
        with contextlib.suppress(ImportError):
            importlib.import_module(name)
    # One server built, as each builds one: what construction imports on first use.
    for module, server in (
        ("mcp.server", "MCPServer"),
        ("mcp.server.fastmcp", "FastMCP"),
        ("fastmcp", "FastMCP"),
    ):
        with contextlib.suppress(ImportError, AttributeError):
            getattr(importlib.import_module(module), server)("warm-up")
    # And a traceback rendered as the SDKs that log through rich render each exception of a
    # tool: the first loads pygments' lexer and style, 0.8 s of CPU in each server that logs.
    with contextlib.suppress(ImportError):
        import io

        from rich.console import Console
        from rich.traceback import Traceback

        try:
            raise ValueError("warm-up")
        except ValueError:
            Console(file=io.StringIO(), width=400).print(Traceback())


PRELOAD = {
    "servers": _preload_servers,
    "pytest": _preload_pytest,
    "workers": _preload_pytest,
    "old_sdk": _preload_old_sdk,
}
# sys.path as the interpreter builds it, without what comes from the zygote's own script
# folder and PYTHONPATH: each forked process puts its own in front (set by ``serve``).
_BASE_PATH: list[str] = []


def serve(path: str, kind: str) -> tuple[dict[str, Any], list[int]]:
    """Fork a process of ``kind`` per launcher until stdin closes. Returns only in a forked
    process: its request and the four descriptors it was handed."""
    import gc
    import threading

    (_preload_stack if kind.startswith(STACK) else PRELOAD[kind])()
    # A fork copies only the thread that forks: nothing above may have left one running.
    assert threading.active_count() == 1, threading.enumerate()
    # What was imported stays out of the collector's work in every forked process (as a
    # process's own imports would after its first collections, and as the plugin freezes
    # its own at configure): each full collection would walk it otherwise.
    gc.freeze()
    at_start = {name: os.environ.get(name) for name in AT_START}
    own = {os.path.abspath(entry) for entry in os.environ.get("PYTHONPATH", "").split(os.pathsep)}
    _BASE_PATH[:] = [entry for entry in sys.path[1:] if entry not in own]

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
            if {name: request["env"].get(name) for name in AT_START} != at_start:
                for fd in fds:
                    os.close(fd)
                with contextlib.suppress(OSError):
                    launcher.sendall(b"cold\n")
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


def become(request: dict[str, Any], fds: list[int]) -> None:
    """In a forked process: take the launcher's stdio, arguments, environment and working
    directory, then run its script as ``python SCRIPT`` would (its module as ``python -m
    MODULE``)."""
    import io
    import runpy
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
    argv = list(request["argv"])
    unbuffered = bool(env.get("PYTHONUNBUFFERED"))
    while argv[0] in ("-u", "-B"):  # what execnet gives an xdist worker's interpreter
        unbuffered = unbuffered or argv[0] == "-u"
        sys.dont_write_bytecode = sys.dont_write_bytecode or argv[0] == "-B"
        argv.pop(0)
    module = argv[1] if argv[0] == "-m" else None
    command = argv[1] if argv[0] == "-c" else None
    script = argv[0]
    if module is not None:  # python -m MODULE: the working folder first on the path
        first = os.getcwd()
    elif command is not None:  # python -c COMMAND: the working folder, by an empty entry
        first = ""
    elif os.path.isdir(script):  # python FOLDER runs FOLDER/__main__.py, FOLDER first
        first = script
        script = os.path.join(script, "__main__.py")
    else:
        first = os.path.dirname(os.path.abspath(script))
    python_path = env.get("PYTHONPATH", "")
    extra = (
        [os.path.abspath(entry) for entry in python_path.split(os.pathsep)] if python_path else []
    )
    sys.path[:] = [first, *extra, *_BASE_PATH]
    # Standard streams as the interpreter makes them from this environment.
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
    if module is not None:
        _as_a_new_pytest_process()
        sys.argv = [module, *argv[2:]]  # runpy puts the module's file first, as -m does
        run = lambda: runpy.run_module(module, run_name="__main__", alter_sys=True)  # noqa: E731
    else:
        main = types.ModuleType("__main__")
        if command is not None:  # an xdist worker: execnet's bootstrap, as ``python -c``
            _as_a_new_pytest_process()
            sys.argv = ["-c", *argv[2:]]
            code = compile(command, "<string>", "exec")
        else:
            sys.argv = argv
            main.__file__ = script
            with open(script, "rb") as source:
                code = compile(source.read(), script, "exec")
        sys.modules["__main__"] = main
        run = lambda: exec(code, main.__dict__)  # noqa: E731
    try:
        run()
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


def _as_a_new_pytest_process() -> None:
    """(For every ``-m MODULE`` process, pytest runs and this plugin's command line, and
    every xdist worker.) What a pytest process takes from its environment and working
    folder as it imports
    hypothesis (the zygote imported it elsewhere, without this environment): the profile
    ("ci" when it sees a CI variable) and the folder of its storage (``.hypothesis/`` in the
    working folder). What the zygote did is not the run's to be warned of: that it read
    hypothesis's storage (for the Unicode table) before hypothesis's pytest plugin loaded,
    and that it imported the plugins' modules before pytest could rewrite their assertions."""
    from pathlib import Path

    from _pytest.assertion.rewrite import AssertionRewritingHook
    from hypothesis import configuration, settings
    from hypothesis._settings import is_in_ci

    settings.load_profile("ci" if is_in_ci() else "default")
    setattr(configuration, "__hypothesis_home_directory_default", Path.cwd() / ".hypothesis")
    configuration.set_hypothesis_home_dir(None)  # taken from the default at first use
    configuration.notice_initialization_restarted(warn=False)
    AssertionRewritingHook._warn_already_imported = lambda self, name: None  # type: ignore[method-assign]
    # xdist hands its workers the path the controller had as it imported xdist, at start-up:
    # this run's, not the zygote's (which imported it). Before, the workers of a warm run
    # had the zygote's path, without the run's folder first.
    import xdist.plugin
    import xdist.workermanage

    xdist.plugin._sys_path = xdist.workermanage._sys_path = list(sys.path)
    warm_xdist_workers()


def warm_xdist_workers() -> Callable[[], None]:
    """Have the xdist workers of the pytest runs this process starts fork from zygotes too
    (a warm run's, and tests/conftest.py's in-process runs): the first from the pytest runs'
    zygote, the second from the workers' one, any more cold. Returns what undoes it. A cold
    worker costs 0.6-0.9 s of CPU (pytest, hypothesis and the plugin imported again), and
    the suite's 40 or so ``-n 2`` runs start two each.

    Never two workers from one zygote: forked processes share its hash seed, so a collection
    whose order followed a set's would look the same on both, and xdist's "Different tests
    were collected" (which a user's ``-n 2`` run shows) could not fail here. Each zygote, as
    each cold worker, has a seed of its own. A worker given its own interpreter
    (``--tx popen//python=...``) starts as it asks."""
    from execnet import gateway_io

    cold = gateway_io.popen_args

    def popen_args(spec: Any) -> list[str]:
        args = cold(spec)
        kind = WORKER_ZYGOTES.get(spec.id or "")
        if spec.python or kind is None or not os.environ.get(socket_env(kind)):
            return args
        return [sys.executable, "-S", os.path.abspath(__file__), "--zygote", kind, *args[1:]]

    gateway_io.popen_args = popen_args
    return lambda: setattr(gateway_io, "popen_args", cold)


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
        become(*serve(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else "servers"))
    else:
        launch(sys.argv[1:])
