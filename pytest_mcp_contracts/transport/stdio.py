"""Stdio: start an MCP server as a subprocess and speak JSON-RPC over its stdin and stdout."""

from __future__ import annotations

import codecs
import contextlib
import json
import os
import select
import shlex
import signal
import subprocess
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Final

from pytest_mcp_contracts.text import stderr_block
from pytest_mcp_contracts.transport.client import Client
from pytest_mcp_contracts.transport.errors import (
    MemoryCapExceeded,
    ProtocolViolation,
    ServerDied,
    ServerStartError,
)
from pytest_mcp_contracts.transport.memory import MemoryWatch, can_watch, format_size
from pytest_mcp_contracts.transport.message_stream import MessageConnection

# Wide enough that a traceback line is not wrapped (see StdioConnection.start).
SERVER_COLUMNS: Final = "400"
# stdout is read in chunks of this size, so an oversized message is held at most up to the
# cap (--mcp-max-result-bytes) and never twice.
_READ_CHUNK: Final = 1 << 20


# Seconds a server is given to exit once its stdin is closed, before SIGTERM (the spec's
# "reasonable time"; SDK servers take a few tenths of a second to shut their interpreter down).
EXIT_GRACE: Final = 2.0
# ... for a command whose server has already outlived EXIT_GRACE once in this process: it
# does not exit at the end of its input (the Python SDK 1.6 does not), and waiting the whole
# grace again would add it to every restart, fresh server and run's end. Still more than an
# SDK server that does exit needs.
DEAF_GRACE: Final = 0.5
# The commands (ServerCommand.identity) whose server outlived EXIT_GRACE.
_DEAF_TO_EOF: set[tuple[object, ...]] = set()


@dataclass(frozen=True)
class ServerCommand:
    """A stdio server as the user named it."""

    argv: tuple[str, ...]
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None  # the folder it starts in; None: the run's own

    @classmethod
    def parse(cls, command: str) -> ServerCommand:
        argv = tuple(shlex.split(command))
        if not argv:
            raise ValueError("an empty server command")
        return cls(argv=argv)

    @property
    def display(self) -> str:
        return shlex.join(self.argv)

    @property
    def identity(self) -> tuple[object, ...]:
        """What tells one command from another: its argv, environment and folder."""
        return (self.argv, tuple(sorted(self.env.items())), self.cwd)

    @property
    def label(self) -> str:
        """A short name for the server when it names itself nothing."""
        return command_label(self.argv)

    @property
    def call_flags(self) -> tuple[str, ...]:
        """What names this server to ``mcp-contracts call``."""
        return (f"--server={self.display}",)

    noun: ClassVar[str] = "command"
    # What connecting anew is to this target: "on its first start".
    opening: ClassVar[str] = "start"
    transport: ClassVar[str] = "stdio"
    output_source: ClassVar[str | None] = "stderr"
    calls_in_flight: ClassVar[bool] = True  # transport/inflight may send several at once
    fresh_start: ClassVar[str] = "a freshly started server"
    restart_caveat: ClassVar[str] = "this server"

    def reproduce_where(self, *, after_handshake: bool) -> str:
        return (
            "after the initialize handshake"
            if after_handshake
            else "one line on the server's stdin"
        )

    def output_block(self, tail: str | None, *, call_output_shown: bool) -> str:
        # The call's own stderr, when shown, already holds the lines that matter.
        return "" if tail is None or call_output_shown else stderr_block(tail)

    def unusable(self) -> str:
        return "the server did not start"

    def start_failure(self, problem: str, stderr_tail: str) -> str:
        return "\n".join(
            [
                f"MCP server did not start: {self.display}",
                f"  {problem}",
                "",
                stderr_block(stderr_tail),
                "",
                "Run the command by hand to see it fail; for a slow start raise "
                "--mcp-startup-timeout.",
            ]
        )


class StdoutNoise(ProtocolViolation):
    """Between the previous answer and a call's own, the server wrote lines on stdout that
    are no JSON-RPC message at all: ``count`` of them, the first and last few in ``lines``;
    ``before_call`` of them were read before the call was sent."""

    def __init__(
        self,
        message: str,
        *,
        count: int,
        lines: list[str],
        before_call: int = 0,
        stderr_tail: str = "",
    ) -> None:
        super().__init__(message, stderr_tail=stderr_tail)
        self.count = count
        self.lines = lines
        self.before_call = before_call


def command_label(argv: tuple[str, ...]) -> str:
    """A short name for a server command: the module of ``-m``, else its last argument."""
    if "-m" in argv[:-1]:
        return argv[argv.index("-m") + 1]
    words = [a for a in argv[1:] if not a.startswith("-")] or [argv[0]]
    return words[-1].rstrip("/").rsplit("/", 1)[-1] or "server"


class StdioConnection(MessageConnection):
    """One running server process and the JSON-RPC session over its stdin/stdout."""

    stray_output: ClassVar[str] = (
        "line(s) to stdout that are not JSON-RPC messages for this client (stdout is "
        "reserved for protocol messages; logs belong on stderr)"
    )

    def __init__(
        self,
        command: ServerCommand,
        *,
        max_message_bytes: int,
        client: Client | None = None,
        max_memory: int | None = None,
    ) -> None:
        super().__init__(command, max_message_bytes=max_message_bytes, client=client)
        self._proc: subprocess.Popen[bytes] | None = None
        self.max_memory = max_memory
        self._watch: MemoryWatch | None = None
        self._memory_used: int | None = None  # set when the cap killed the server
        self._stderr_lock = threading.Lock()
        self._stderr_decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._stderr_done = False
        self._stdout_reader: threading.Thread | None = None

    def start(self) -> None:
        # The server's stderr is a pipe to us, so its width is ours to say: logging that
        # renders for a terminal (rich, which Python MCP SDK servers log through) wraps a
        # traceback's exception line at COLUMNS (80 by default, or the caller's terminal),
        # and a wrapped line is evidence cut in half. The server's own env may still set it.
        env = {**os.environ, "COLUMNS": SERVER_COLUMNS, **self.command.env}
        try:
            self._proc = subprocess.Popen(
                self.command.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=env,
                cwd=self.command.cwd,
                # Its own process group, so shutdown also reaches what it spawned (npx, uv run).
                start_new_session=True,
            )
        except FileNotFoundError:
            raise ServerStartError(
                f"command not found: {self.command.argv[0]!r}. "
                "Check the --mcp-server value and PATH."
            ) from None
        except PermissionError:
            raise ServerStartError(
                f"permission denied running {self.command.argv[0]!r}: is it executable?"
            ) from None
        except OSError as exc:
            raise ServerStartError(f"could not start the server: {exc}") from None
        if self.max_memory is not None and can_watch():
            # The server leads its own process group (start_new_session): the cap covers
            # everything it spawns.
            self._watch = MemoryWatch(self._proc.pid, self.max_memory, self._over_cap).start()
        self._stdout_reader = threading.Thread(
            target=self._read_stdout, name="mcp-stdout", daemon=True
        )
        self._stdout_reader.start()
        threading.Thread(target=self._read_stderr, name="mcp-stderr", daemon=True).start()

    def _over_cap(self, used: int) -> None:
        self._memory_used = used

    def over_memory_cap(self) -> ServerDied | None:
        if self._watch is None or not self._watch.check():
            return None
        self.kill()
        return self._died("the server went over the memory cap")

    def _died(self, what: str) -> ServerDied:
        if self._memory_used is None or self.max_memory is None:
            return super()._died(what)
        self._await_exit()
        used, cap = self._memory_used, format_size(self.max_memory)
        return MemoryCapExceeded(
            f"the server went over the memory cap: its processes used {format_size(used)} of "
            f"memory, more than the {cap} allowed (--mcp-max-server-memory), and were killed. "
            "If the server needs that much, raise the cap, e.g. "
            f"--mcp-max-server-memory={format_size(2 * used)} (0 or off: no cap)",
            stderr_tail=self.stderr_tail(),
        )

    @property
    def alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None and not self._closed.is_set()

    @property
    def returncode(self) -> int | None:
        return None if self._proc is None else self._proc.poll()

    def stderr_tail(self) -> str:
        # The reader thread may still be draining the pipe of a process that just died.
        if self._proc is not None and self._proc.poll() is not None:
            time.sleep(0.05)
        return super().stderr_tail()

    def close(self) -> None:
        """Close stdin, give the server time to exit (``EXIT_GRACE``), then SIGTERM and
        SIGKILL its process group."""
        proc = self._proc
        if proc is None:
            return
        if proc.poll() is None:
            try:
                assert proc.stdin is not None
                proc.stdin.close()
            except OSError:
                pass
            deaf = self.command.identity in _DEAF_TO_EOF
            if not wait_exit(proc, DEAF_GRACE if deaf else EXIT_GRACE):
                _DEAF_TO_EOF.add(self.command.identity)
                self._signal_group(proc, signal.SIGTERM)
                if not wait_exit(proc, EXIT_GRACE):
                    self._signal_group(proc, signal.SIGKILL)
                    proc.wait()
        if self._stdout_reader is not None:
            # What it wrote after its last answer is counted once it is all read (a child
            # that keeps the pipe open must not hold the run up).
            self._stdout_reader.join(timeout=1)
        self._closed.set()
        self._fail_pending()
        self._stop_watch()

    def _stop_watch(self) -> None:
        if self._watch is not None:
            self._watch.stop()

    def kill(self) -> None:
        """Stop a server that is stuck: no polite shutdown."""
        proc = self._proc
        if proc is not None and proc.poll() is None:
            self._signal_group(proc, signal.SIGKILL)
            proc.wait()
        self._closed.set()
        self._fail_pending()
        self._stop_watch()

    @staticmethod
    def _signal_group(proc: subprocess.Popen[bytes], sig: signal.Signals) -> None:
        try:
            os.killpg(proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            with contextlib.suppress(ProcessLookupError):
                proc.send_signal(sig)

    # -- reading ---------------------------------------------------------------------------

    def _read_stderr(self) -> None:
        # Non-blocking reads under a lock, so that a caller can drain the pipe itself
        # (_sync_log) the moment an answer arrives: a server writes its traceback to stderr
        # before it writes the answer to stdout, so after that drain the call's stderr is
        # complete, whichever of the two reader threads ran first.
        assert self._proc is not None and self._proc.stderr is not None
        fd = self._proc.stderr.fileno()
        os.set_blocking(fd, False)
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        while not self._stderr_done:
            try:
                poller.poll()
            except (OSError, ValueError):
                return
            self._drain_stderr()

    def _sync_log(self) -> None:
        if self._proc is not None and not self._stderr_done:
            self._drain_stderr()

    def _drain_stderr(self) -> None:
        assert self._proc is not None and self._proc.stderr is not None
        with self._stderr_lock:
            while not self._stderr_done:
                try:
                    chunk = os.read(self._proc.stderr.fileno(), 1 << 16)
                except BlockingIOError:
                    return
                except (OSError, ValueError):
                    chunk = b""
                if not chunk:
                    self.log.add(self._stderr_decoder.decode(b"", final=True))
                    self.log.end()
                    self._stderr_done = True
                    return
                self.log.add(self._stderr_decoder.decode(chunk))

    def _read_stdout(self) -> None:
        assert self._proc is not None and self._proc.stdout is not None
        stream = self._proc.stdout
        try:
            while True:
                line = self._read_line(stream)
                if line is None:
                    return
                if line:
                    self._handle_line(line)
        finally:
            self._closed.set()
            self._fail_pending()

    def _read_line(self, stream: Any) -> bytes | None:
        """The next line (None at the end of stdout); b"" when it was over the cap, which
        is then drained and reported without being held."""
        chunks: list[bytes] = []
        size = 0
        while True:
            chunk = stream.readline(_READ_CHUNK)
            if not chunk:
                return b"".join(chunks) if chunks else None
            chunks.append(chunk)
            size += len(chunk)
            complete = chunk.endswith(b"\n")
            if size - complete > self.max_message_bytes:
                chunks.clear()
                self._skip_oversized(stream, size, complete)
                return b""
            if complete:
                return chunks[0] if len(chunks) == 1 else b"".join(chunks)

    def _skip_oversized(self, stream: Any, seen: int, complete: bool) -> None:
        # Drain the rest of the line without holding it: a hostile server must not exhaust memory.
        total = seen
        while not complete:
            chunk = stream.readline(_READ_CHUNK)
            total += len(chunk)
            complete = not chunk or chunk.endswith(b"\n")
        self._unreadable(
            f"a message of {total} bytes, over the {self.max_message_bytes}-byte limit "
            "(--mcp-max-result-bytes)"
        )

    def _write(self, message: Mapping[str, Any]) -> None:
        proc = self._proc
        if proc is None or proc.stdin is None:
            raise ServerDied("the server is not running")
        data = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
        try:
            with self._write_lock:
                proc.stdin.write(data)
                proc.stdin.flush()
        except (BrokenPipeError, ValueError, OSError):
            raise self._died("the server closed its stdin") from None

    def _await_exit(self) -> None:
        if self._proc is not None:
            wait_exit(self._proc, 1)

    def _exit_note(self) -> str:
        code = self.returncode
        if code is None:
            return ""
        if code < 0:
            try:
                return f" (killed by {signal.Signals(-code).name})"
            except ValueError:
                return f" (killed by signal {-code})"
        return f" (exit status {code})"


def open_stdio(
    command: ServerCommand,
    *,
    startup_timeout: float,
    max_message_bytes: int,
    legacy: bool = False,
    client: Client | None = None,
    max_memory: int | None = None,
) -> StdioConnection:
    """Start the server (under a memory cap of ``max_memory`` bytes, when given) and
    complete the handshake, or raise ServerStartError."""
    conn = StdioConnection(
        command, max_message_bytes=max_message_bytes, client=client, max_memory=max_memory
    )
    return conn.opened(startup_timeout=startup_timeout, legacy=legacy)


def wait_exit(proc: subprocess.Popen[bytes], timeout: float) -> bool:
    """Wait up to ``timeout`` seconds for ``proc`` to exit and reap it; whether it did.

    Woken by the exit itself where Linux offers a pidfd: ``Popen.wait(timeout)`` polls with
    growing sleeps between its looks, so a server that exits soon after its stdin closes
    would be seen gone late, once per server stopped."""
    if proc.poll() is not None:
        return True
    try:
        # Not reaped yet (poll above), so the pid is still this process's.
        fd = os.pidfd_open(proc.pid)
    except (AttributeError, OSError):
        fd = None
    if fd is not None:
        try:
            # poll, not select: select refuses a descriptor numbered 1024 or more.
            watch = select.poll()
            watch.register(fd, select.POLLIN)
            watch.poll(timeout * 1000)
        finally:
            os.close(fd)
    try:
        proc.wait(timeout=0 if fd is not None else timeout)
    except subprocess.TimeoutExpired:
        return False
    return True
