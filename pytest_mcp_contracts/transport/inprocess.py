"""Connect in-process: a Python server object run on an event loop in a thread of this pytest
process, spoken to over the memory streams of the SDK installed beside it (``_SERVER_KINDS``:
FastMCP and the low-level ``Server`` of ``mcp`` 1.x, ``MCPServer`` and ``Server`` of ``mcp``
2.x, the ``FastMCP`` of the ``fastmcp`` package 2.x to 4.x).

No subprocess and no pipe: the fastest loop for a Python server's own repository. Every
message the server sends is serialized exactly as the SDK's stdio transport would write it
and goes through the same reading as stdio (byte cap, JSON-RPC envelope checks), so a check
behaves the same on every transport.

What in-process cannot do: a tool that calls ``os._exit`` ends pytest with it, and a tool
that blocks the event loop with synchronous code cannot be stopped after a timeout (its
thread is abandoned and a fresh loop is started). Use ``--mcp-server`` to test those.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import functools
import importlib
import importlib.util
import json
import logging
import sys
import threading
import traceback
from collections.abc import Callable, Mapping
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Final

from pytest_mcp_contracts.text import indent, last_lines
from pytest_mcp_contracts.transport.client import Client
from pytest_mcp_contracts.transport.errors import ServerDied, ServerStartError
from pytest_mcp_contracts.transport.message_stream import MessageConnection
from pytest_mcp_contracts.transport.stderr import STDERR_TAIL_LINES, ServerLog

# How long close() lets the server finish after end-of-input, then after cancelling.
_SHUTDOWN_GRACE: Final = 2.0
_START_TIMEOUT: Final = 30.0
# Apps are started side by side, each from its own thread: two threads importing one SDK at
# once can meet in its circular imports (importlib's _DeadlockError), so imports take turns.
_IMPORTS: Final = threading.Lock()


@dataclass(frozen=True)
class ServerApp:
    """A server object named ``module:attribute`` (or ``path/to/file.py:attribute``); without
    an attribute, the module's one ``MCPServer``/``Server`` object."""

    module: str
    attribute: str | None
    base: Path  # relative file paths and the import path start here (the rootdir)

    @property
    def call_flags(self) -> tuple[str, ...]:
        """What names this server to ``mcp-contracts call``."""
        return (f"--app={self.display}",)

    noun: ClassVar[str] = "app"
    # What connecting anew is to this target: "on its first start".
    opening: ClassVar[str] = "start"
    transport: ClassVar[str] = "in-process"
    # In-process the server's "stderr" is its log records.
    output_source: ClassVar[str | None] = "log records"
    # No calls in flight (transport/inflight): what the server prints and logs also lands in
    # pytest's own captured output of the item, where no line can be left out, and the
    # server shares pytest's interpreter (its GIL) anyway.
    calls_in_flight: ClassVar[bool] = False
    fresh_start: ClassVar[str] = "a restarted app (its module's state is kept: reset it first)"
    restart_caveat: ClassVar[str] = "an in-process app (a restart keeps its module's state)"

    def reproduce_where(self, *, after_handshake: bool) -> str:
        handshake = ", after the initialize handshake" if after_handshake else ""
        return f"the server ran in-process; over stdio this is one line on its stdin{handshake}"

    def output_block(self, tail: str | None, *, call_output_shown: bool) -> str:
        # There is no stderr in-process: the tail is how the server's run ended, if it did.
        if not tail:
            return ""
        return "the server's run ended with:\n" + indent(last_lines(tail))

    def unusable(self) -> str:
        return "the server could not be run in-process"

    def start_failure(self, problem: str, stderr_tail: str) -> str:
        lines = [f"MCP server could not be run in-process: {self.display}", f"  {problem}"]
        if stderr_tail:
            lines += ["", indent(last_lines(stderr_tail))]
        module = self.module
        check = f"python {module}" if module.endswith(".py") else f"python -c 'import {module}'"
        return "\n".join(
            [*lines, "", f"Check that `{check}` works from the rootdir (--mcp-app imports it)."]
        )

    @classmethod
    def parse(cls, spec: str, base: Path) -> ServerApp:
        spec = spec.strip()
        module, _, attribute = spec.rpartition(":") if ":" in spec else (spec, "", "")
        if not module:
            raise ValueError("expected module:attribute, e.g. my_server.server:app")
        if not _is_path(module) and not all(p.isidentifier() for p in module.split(".")):
            raise ValueError(f"{module!r} is neither a module name nor a path to a .py file")
        if attribute and not all(p.isidentifier() for p in attribute.split(".")):
            raise ValueError(f"{attribute!r} is not an attribute name")
        return cls(module, attribute or None, base)

    @property
    def display(self) -> str:
        return f"{self.module}:{self.attribute}" if self.attribute else self.module

    @property
    def label(self) -> str:
        """A short name for the server when it names itself nothing."""
        name = Path(self.module).stem if _is_path(self.module) else self.module
        return name.rsplit(".", 1)[-1] or "server"

    def load(self) -> _Runnable:
        """Import the module and return how to run its server, or raise ServerStartError."""
        _require_sdk()
        module = self._import()
        if self.attribute is None:
            return _the_only_server(module, self.display)
        target: Any = module
        for part in self.attribute.split("."):
            if not hasattr(target, part):
                found = _servers_in(module)
                hint = f"; it has {', '.join(found)}" if found else ""
                raise ServerStartError(f"{self.module} has no attribute {self.attribute!r}{hint}")
            target = getattr(target, part)
        server = _as_server(target)
        if server is None and callable(target) and not isinstance(target, type):
            try:
                server = _as_server(target())  # a factory: create_app()
            except Exception as exc:
                raise ServerStartError(
                    f"{self.display}() raised {_exception_line(exc)}", stderr_tail=_tb(exc)
                ) from None
        if server is None:
            raise ServerStartError(
                f"{self.display} is a {type(target).__name__}, not an MCP server: expected "
                f"{_EXPECTED} (or a function without arguments that returns one)"
            )
        return server

    def _import(self) -> Any:
        base = str(self.base)
        if base not in sys.path:
            sys.path.insert(0, base)  # like `python -m`: the project's own modules import
        try:
            if not _is_path(self.module):
                return importlib.import_module(self.module)
            path = (self.base / self.module).resolve()
            if not path.is_file():
                raise ServerStartError(f"no such file: {path}")
            parent = str(path.parent)
            if parent not in sys.path:
                sys.path.insert(0, parent)  # its sibling modules import, as under `python file`
            name = f"mcp_app_{path.stem}"
            if name in sys.modules:
                return sys.modules[name]
            spec = importlib.util.spec_from_file_location(name, path)
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            try:
                spec.loader.exec_module(module)
            except BaseException:
                del sys.modules[name]
                raise
            return module
        except ServerStartError:
            raise
        except ModuleNotFoundError as exc:
            raise ServerStartError(
                f"could not import {self.module!r}: {exc}. Run pytest from the project root, "
                "install the project (pip install -e .), or give a path: --mcp-app=src/x.py:app",
                stderr_tail=_tb(exc),
            ) from None
        except (Exception, SystemExit) as exc:
            raise ServerStartError(
                f"importing {self.module!r} raised {_exception_line(exc)}", stderr_tail=_tb(exc)
            ) from None


def _require_sdk() -> None:
    """--mcp-app is the one part of the plugin that needs the MCP SDK: the core install has
    none, so that it never changes the SDK a server's project pins. Checked before the
    server's module is imported, which would fail on its own ``import mcp`` with a message
    about import paths."""
    if importlib.util.find_spec("mcp") is None:
        raise ServerStartError(
            "--mcp-app runs the server with the MCP SDK installed beside pytest, and this "
            "environment has none: install the server's project here (its own SDK is the one "
            "used), or pip install 'pytest-mcp-contracts[app]'"
        )


def _is_path(module: str) -> bool:
    return module.endswith(".py") or "/" in module or "\\" in module


@dataclass(frozen=True)
class _ServerKind:
    """A server class of one SDK generation, and what its own in-memory transport runs."""

    module: str
    name: str
    # The attribute that holds its low-level Server, whose run() serves the memory streams;
    # None for the low-level Server itself.
    lowlevel: str | None
    # fastmcp 3 and later enter the server's lifespan around that run (their
    # FastMCPTransport does): its startup hooks and lifespan result live there.
    lifespan: str | None = None


# The most derived first: fastmcp's low-level server subclasses the SDK's Server.
_SERVER_KINDS: Final = (
    _ServerKind("fastmcp.server.server", "FastMCP", "_mcp_server", "_lifespan_manager"),
    _ServerKind("mcp.server.mcpserver.server", "MCPServer", "_lowlevel_server"),
    _ServerKind("mcp.server.fastmcp.server", "FastMCP", "_mcp_server"),
    _ServerKind("mcp.server.lowlevel.server", "Server", None),
)
_EXPECTED: Final = (
    "an MCP server object: mcp.server.fastmcp.FastMCP or the low-level mcp.server.Server "
    "(mcp 1.x), mcp.server.MCPServer or mcp.server.Server (mcp 2.x), or fastmcp.FastMCP"
)


@dataclass(frozen=True)
class _Runnable:
    """A server object as its SDK's in-memory transport runs it."""

    lowlevel: Any  # awaited as lowlevel.run(read, write, options, raise_exceptions=False)
    lifespan: Callable[[], AbstractAsyncContextManager[Any]]


def _as_server(value: Any) -> _Runnable | None:
    """How to run ``value`` if it is a server object of an SDK generation, or None.

    By type, among the classes already imported: an object of a class exists only once its
    module is, so nothing is imported here (scanning a module's attributes stays cheap, and
    an SDK that is not installed is never asked for)."""
    for kind in _SERVER_KINDS:
        cls = getattr(sys.modules.get(kind.module), kind.name, None)
        if not isinstance(cls, type) or not isinstance(value, cls):
            continue
        lowlevel = value if kind.lowlevel is None else getattr(value, kind.lowlevel, None)
        if lowlevel is None:
            return None
        enter = getattr(value, kind.lifespan, None) if kind.lifespan else None
        return _Runnable(lowlevel, enter if callable(enter) else contextlib.nullcontext)
    return None


def _servers_in(module: Any) -> list[str]:
    return [name for name, value in vars(module).items() if _as_server(value) is not None]


def _the_only_server(module: Any, where: str) -> _Runnable:
    found = _servers_in(module)
    server = _as_server(getattr(module, found[0])) if len(found) == 1 else None
    if server is not None:
        return server
    if not found:
        raise ServerStartError(
            f"{where} defines no MCPServer or Server object (nor a FastMCP) at module level: "
            f"name one with --mcp-app={where}:attribute"
        )
    raise ServerStartError(
        f"{where} defines several servers ({', '.join(found)}): name one with "
        f"--mcp-app={where}:{found[0]}"
    )


def _exception_line(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


def _leaf(exc: BaseException) -> BaseException:
    """The first exception that is not a group: what anyio's task groups wrap."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def _is_importlib(filename: str) -> bool:
    return filename.startswith("<frozen") or Path(filename).parent.name == "importlib"


def _tb(exc: BaseException) -> str:
    """The traceback without the frames of our import machinery and importlib's."""
    tb = traceback.TracebackException.from_exception(exc)
    tb.stack = traceback.StackSummary.from_list(
        [f for f in tb.stack if f.filename != __file__ and not _is_importlib(f.filename)]
    )
    return "".join(tb.format())


@dataclass(frozen=True)
class _Wire:
    """What the installed ``mcp`` carries on its memory streams, parsed and serialized as its
    own stdio transport does, so that in-process a server meets the bytes it would on stdio."""

    memory_streams: Callable[[], AbstractAsyncContextManager[Any]]
    parse: Callable[[str], Any]  # a JSON-RPC line -> an item of the server's read stream
    dump: Callable[[Any], bytes]  # an item of the server's write stream -> its line


def _wire() -> _Wire:
    """The installed ``mcp``'s memory streams and message types: the one place this module
    imports ``mcp``."""
    from mcp import types
    from mcp.shared.memory import create_client_server_memory_streams

    adapter = getattr(types, "jsonrpc_message_adapter", None)
    if adapter is not None:  # mcp 2.x
        read: Callable[[str], Any] = functools.partial(adapter.validate_json, by_name=False)
        dump_options = {"by_alias": True, "exclude_unset": True}
    else:
        # mcp 1.x: a pydantic RootModel there (a plain union in the mcp this is typed with).
        message_model: Any = types.JSONRPCMessage
        read = message_model.model_validate_json
        dump_options = {"by_alias": True, "exclude_none": True}
    try:
        from mcp.shared.message import SessionMessage
    except ImportError:  # early mcp 1.x (1.6) carries the bare messages
        return _Wire(
            create_client_server_memory_streams,
            read,
            lambda message: message.model_dump_json(**dump_options).encode(),
        )
    return _Wire(
        create_client_server_memory_streams,
        lambda line: SessionMessage(read(line)),
        lambda item: item.message.model_dump_json(**dump_options).encode(),
    )


class AppConnection(MessageConnection):
    """One run of a server object on its own event loop thread, over memory streams."""

    command: ServerApp

    def __init__(
        self, app: ServerApp, *, max_message_bytes: int, client: Client | None = None
    ) -> None:
        super().__init__(app, max_message_bytes=max_message_bytes, client=client)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._send: Any = None  # the client's write stream, used on the loop only
        self._stop: asyncio.Event | None = None
        self._ready = threading.Event()
        self._thread: threading.Thread | None = None
        self._death = ""  # how the server's run ended (a traceback), when it ended on its own
        self._death_line = ""
        self._loop_errors: collections.deque[str] = collections.deque(maxlen=STDERR_TAIL_LINES)
        self._log_handler: _LogCapture | None = None
        self._wire: _Wire | None = None

    def start(self) -> None:
        with _IMPORTS:
            server = self.command.load()
            self._wire = _wire()
        # In-process the server's "stderr" is its log records: what MCPServer logs when a
        # tool raises (the traceback included) is the evidence a failure report needs.
        self._log_handler = _LogCapture(self.log, ignore_thread=threading.get_ident())
        logging.getLogger().addHandler(self._log_handler)
        self._thread = threading.Thread(
            target=self._run, args=(server,), name="mcp-in-process", daemon=True
        )
        self._thread.start()
        if not self._ready.wait(_START_TIMEOUT) or self._closed.is_set():
            raise ServerStartError(
                f"the server did not start{self._exit_note()}", stderr_tail=self.stderr_tail()
            )

    @property
    def alive(self) -> bool:
        return self._thread is not None and self._thread.is_alive() and not self._closed.is_set()

    def stderr_tail(self) -> str:
        return "".join(self._loop_errors) + self._death

    def _exit_note(self) -> str:
        return f" (its run ended with {self._death_line})" if self._death_line else ""

    def _await_exit(self) -> None:
        if self._thread is not None:
            self._thread.join(timeout=1)

    # -- the loop thread -----------------------------------------------------------------

    def _run(self, server: _Runnable) -> None:
        try:
            asyncio.run(self._serve(server))
        except BaseException as exc:  # the server's run raised: what a crash is in-process
            self._death, self._death_line = _tb(exc), _exception_line(_leaf(exc))
        finally:
            self._closed.set()
            self._ready.set()
            self._fail_pending()

    async def _serve(self, server: _Runnable) -> None:
        import anyio

        assert self._wire is not None
        lowlevel = server.lowlevel
        self._loop = asyncio.get_running_loop()
        # Errors asyncio would log (a task's exception never retrieved, after a crash) are the
        # server's: they join its failure text instead of pytest's output.
        self._loop.set_exception_handler(self._loop_error)
        self._stop = stop = asyncio.Event()
        # The lifespan outside the streams and the run, as the SDKs' own in-memory
        # transports enter it: the run is over before the lifespan tears down what it uses.
        async with server.lifespan(), self._wire.memory_streams() as (client, server_streams):
            read, self._send = client
            done = anyio.Event()

            async def run_server() -> None:
                try:
                    await lowlevel.run(
                        *server_streams,
                        lowlevel.create_initialization_options(),
                        raise_exceptions=False,
                    )
                    if not self._stop_requested():
                        self._death = self._death_line = "the server's run() returning on its own"
                finally:
                    done.set()
                    self._closed.set()
                    self._fail_pending()
                    stop.set()  # a run that ended by itself also ends this thread

            async with anyio.create_task_group() as group:
                group.start_soon(run_server)
                group.start_soon(self._read, read)
                self._ready.set()
                await stop.wait()
                await self._send.aclose()  # end of input: the server's run returns
                with anyio.move_on_after(_SHUTDOWN_GRACE):
                    await done.wait()
                group.cancel_scope.cancel()

    def _loop_error(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        exc = context.get("exception")
        what = _exception_line(_leaf(exc)) if isinstance(exc, BaseException) else ""
        self._loop_errors.append(f"{context.get('message', 'error')}: {what}".rstrip(": ") + "\n")

    def _stop_requested(self) -> bool:
        return self._stop is not None and self._stop.is_set()

    async def _read(self, stream: Any) -> None:
        wire = self._wire
        assert wire is not None
        async for item in stream:
            if isinstance(item, Exception):
                self._note_garbage(f"<the server's transport reported {item!r}>")
                continue
            # The bytes the SDK's stdio transport would write for this message.
            data = wire.dump(item)
            if len(data) > self.max_message_bytes:
                self._unreadable(
                    f"a message of {len(data)} bytes, over the {self.max_message_bytes}-byte "
                    "limit (--mcp-max-result-bytes)"
                )
                continue
            self._handle_line(data)

    # -- from pytest's thread ------------------------------------------------------------

    def _write(self, message: Mapping[str, Any]) -> None:
        loop, wire = self._loop, self._wire
        if loop is None or wire is None or self._closed.is_set():
            raise ServerDied(
                f"the server is not running{self._exit_note()}", stderr_tail=self._death
            )
        # Parsed from bytes exactly as the SDK's stdio server reads a line.
        parsed = wire.parse(json.dumps(message, ensure_ascii=False, separators=(",", ":")))
        # Not awaited here: a server whose loop is blocked then fails by the call timeout,
        # like a silent subprocess, and a send to a closed server fails the pending call.
        future = asyncio.run_coroutine_threadsafe(self._send.send(parsed), loop)
        future.add_done_callback(self._after_send)

    def _after_send(self, future: Any) -> None:
        if future.cancelled() or future.exception() is not None:
            self._closed.set()
            self._fail_pending()

    def _shutdown(self) -> None:
        loop, stop = self._loop, self._stop
        if loop is not None and stop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                loop.call_soon_threadsafe(stop.set)

    def close(self) -> None:
        """End the server's input and let its run finish (cancelled after a grace period)."""
        self._shutdown()
        if self._thread is not None:
            self._thread.join(timeout=2 * _SHUTDOWN_GRACE + 1)
        self._closed.set()
        self._fail_pending()
        self._stop_capture()

    def kill(self) -> None:
        """Stop a server that is stuck. A loop blocked by synchronous code cannot be
        interrupted from outside: its thread is left behind (a daemon) and never reused."""
        self._shutdown()
        self._closed.set()
        self._fail_pending()
        self._stop_capture()

    def _stop_capture(self) -> None:
        if self._log_handler is not None:
            logging.getLogger().removeHandler(self._log_handler)
            self._log_handler = None


class _LogCapture(logging.Handler):
    """Log records of the server's threads (not pytest's), as lines of its output."""

    def __init__(self, log: ServerLog, *, ignore_thread: int) -> None:
        super().__init__(logging.DEBUG)
        self._log = log
        self._ignore = ignore_thread
        self.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        if record.thread == self._ignore:
            return
        try:
            self._log.add(self.format(record) + "\n")
        except Exception:  # a record that cannot be formatted is the server's problem
            self.handleError(record)


def open_app(
    app: ServerApp,
    *,
    startup_timeout: float,
    max_message_bytes: int,
    legacy: bool = False,
    client: Client | None = None,
) -> AppConnection:
    """Import the server, run it in-process and complete the handshake, or raise
    ServerStartError."""
    conn = AppConnection(app, max_message_bytes=max_message_bytes, client=client)
    return conn.opened(startup_timeout=startup_timeout, legacy=legacy)
