"""Connect in-process: a Python server object (``MCPServer`` or low-level ``Server``) run on
an event loop in a thread of this pytest process, spoken to over the SDK's memory streams.

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
import importlib
import importlib.util
import json
import logging
import sys
import threading
import traceback
from collections.abc import Mapping
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


@dataclass(frozen=True)
class ServerApp:
    """A server object named ``module:attribute`` (or ``path/to/file.py:attribute``); without
    an attribute, the module's one ``MCPServer``/``Server`` object."""

    module: str
    attribute: str | None
    base: Path  # relative file paths and the import path start here (the rootdir)

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

    def load(self) -> Any:
        """Import the module and return the server object, or raise ServerStartError."""
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
                "an mcp.server.MCPServer or low-level mcp.server.Server (or a function "
                "without arguments that returns one)"
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


def _as_server(value: Any) -> Any:
    """The low-level Server behind an MCPServer or a Server, or None."""
    from mcp.server import MCPServer, Server

    if isinstance(value, MCPServer):
        return value._lowlevel_server  # what the SDK's own in-memory transport runs
    if isinstance(value, Server):
        return value
    return None


def _servers_in(module: Any) -> list[str]:
    return [name for name, value in vars(module).items() if _as_server(value) is not None]


def _the_only_server(module: Any, where: str) -> Any:
    found = _servers_in(module)
    if len(found) == 1:
        return _as_server(getattr(module, found[0]))
    if not found:
        raise ServerStartError(
            f"{where} defines no MCPServer or Server object at module level: name one with "
            f"--mcp-app={where}:attribute"
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

    def start(self) -> None:
        server = self.command.load()
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

    def _run(self, server: Any) -> None:
        try:
            asyncio.run(self._serve(server))
        except BaseException as exc:  # the server's run raised: what a crash is in-process
            self._death, self._death_line = _tb(exc), _exception_line(_leaf(exc))
        finally:
            self._closed.set()
            self._ready.set()
            self._fail_pending()

    async def _serve(self, server: Any) -> None:
        import anyio
        from mcp.shared.memory import create_client_server_memory_streams

        self._loop = asyncio.get_running_loop()
        # Errors asyncio would log (a task's exception never retrieved, after a crash) are the
        # server's: they join its failure text instead of pytest's output.
        self._loop.set_exception_handler(self._loop_error)
        self._stop = stop = asyncio.Event()
        async with create_client_server_memory_streams() as (client, server_streams):
            read, self._send = client
            done = anyio.Event()

            async def run_server() -> None:
                try:
                    await server.run(
                        *server_streams,
                        server.create_initialization_options(),
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
        async for item in stream:
            if isinstance(item, Exception):
                self._note_garbage(f"<the server's transport reported {item!r}>")
                continue
            # The bytes the SDK's stdio transport would write for this message.
            data = item.message.model_dump_json(by_alias=True, exclude_unset=True).encode()
            if len(data) > self.max_message_bytes:
                self._unreadable(
                    f"a message of {len(data)} bytes, over the {self.max_message_bytes}-byte "
                    "limit (--mcp-max-result-bytes)"
                )
                continue
            self._handle_line(data)

    # -- from pytest's thread ------------------------------------------------------------

    def _write(self, message: Mapping[str, Any]) -> None:
        loop = self._loop
        if loop is None or self._closed.is_set():
            raise ServerDied(
                f"the server is not running{self._exit_note()}", stderr_tail=self._death
            )
        from mcp.shared.message import SessionMessage
        from mcp.types import jsonrpc_message_adapter

        # Parsed from bytes exactly as the SDK's stdio server reads a line.
        data = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
        parsed = SessionMessage(jsonrpc_message_adapter.validate_json(data, by_name=False))
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
