"""What can go wrong talking to a server: the server failed (``ServerError`` and its kinds),
or it answered a request with a JSON-RPC error (``RpcError``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final


class ServerError(Exception):
    """The server could not be used: it did not start, died, broke the protocol or timed out."""

    def __init__(self, message: str, *, stderr_tail: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.stderr_tail = stderr_tail


class ServerStartError(ServerError):
    """The server never got through the handshake."""


class ServerDied(ServerError):
    """The server process exited (or closed stdout) while a request was pending."""


class MemoryCapExceeded(ServerDied):
    """The plugin killed the server: its processes went over the memory cap."""


class ServerUnreachable(ServerDied):
    """Nothing answers where the server should be (an HTTP connection refused): unlike a
    death, no request of ours can have caused it."""


class ProbeFailed(ServerStartError):
    """The server died on the 2026 ``server/discover`` probe (or fell silent on it and died
    at the next request): a server on an old SDK may still speak the ``initialize``
    handshake when it is started again without the probe. Its ``stderr_tail`` is all the
    stderr kept: a pydantic error's many lines push its first line out of a short tail."""


class CallTimeout(ServerError):
    """No answer within the allotted time."""


class ProtocolViolation(ServerError):
    """The server answered with something that is not a JSON-RPC response to our request."""


METHOD_NOT_FOUND: Final = -32601  # JSON-RPC: the server has no such method


@dataclass(frozen=True)
class RpcError(Exception):
    """A JSON-RPC error object the server answered with."""

    code: int
    message: str
    data: Any = None

    def __str__(self) -> str:
        return f"JSON-RPC error {self.code}: {self.message}"
