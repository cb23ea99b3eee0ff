"""Connect: open the transport a target names (stdio, Streamable HTTP or in-process) and
complete the handshake, starting a server the 2026 probe broke again without it."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Protocol

from pytest_mcp_contracts.transport.client import Client
from pytest_mcp_contracts.transport.errors import ProbeFailed, ServerStartError
from pytest_mcp_contracts.transport.http import ServerUrl, open_http
from pytest_mcp_contracts.transport.inprocess import ServerApp, open_app
from pytest_mcp_contracts.transport.jsonrpc import RpcConnection
from pytest_mcp_contracts.transport.stderr import last_words
from pytest_mcp_contracts.transport.stdio import ServerCommand, open_stdio


def open_server(
    target: ServerCommand | ServerUrl | ServerApp,
    *,
    startup_timeout: float,
    max_message_bytes: int,
    legacy: bool = False,
    client: Client | None = None,
    max_memory: int | None = None,
) -> RpcConnection:
    """Open the transport the target names (stdio, Streamable HTTP or in-process) and complete
    the handshake, or raise ServerStartError.

    A server that died on the 2026 ``server/discover`` probe is started again (over HTTP: a
    new session) for the ``initialize`` handshake alone: servers on old SDKs do that, and
    still speak the handshake. The returned connection's ``probe_failure`` then says what
    the probe did to it. ``max_memory`` caps a started process (stdio only: the plugin
    starts no other process)."""
    opener: Callable[..., RpcConnection] = (
        open_app
        if isinstance(target, ServerApp)
        else open_http
        if isinstance(target, ServerUrl)
        else functools.partial(open_stdio, max_memory=max_memory)
    )

    def attempt(legacy: bool) -> RpcConnection:
        return opener(
            target,
            startup_timeout=startup_timeout,
            max_message_bytes=max_message_bytes,
            legacy=legacy,
            client=client,
        )

    try:
        return attempt(legacy)
    except ProbeFailed as probe:
        note = probe_note(probe)
        try:
            conn = attempt(True)
        except ServerStartError as exc:
            # Not "the probe broke it": a server that dies at start-up dies on both.
            raise ServerStartError(
                f"{exc.message}; on its first {target.opening}, with the 2026 probe, {note}",
                stderr_tail=exc.stderr_tail,
            ) from None
        conn.probe_failure = note
        return conn


class Closable(Protocol):
    def close(self) -> None: ...


def close_together(closables: Sequence[Closable]) -> None:
    """Close each, side by side: a close waits for its server to exit (a Python server on an
    SDK takes a few tenths of a second to shut its interpreter down), so the caller waits
    for the slowest, not for the sum."""
    if len(closables) > 1:
        with ThreadPoolExecutor(max_workers=len(closables)) as pool:
            list(pool.map(lambda closable: closable.close(), closables))
    elif closables:
        closables[0].close()


def probe_warning(failure: str, protocol_version: str) -> str:
    """What a server the 2026 probe broke means for its author: a client that opens with
    ``server/discover`` cannot use it."""
    return (
        "clients that open with server/discover (protocol 2026-07-28) cannot use this "
        f"server: {failure}. It was started again and reached over the initialize handshake "
        f"(protocol {protocol_version}). A server should answer a method it does not know "
        "with JSON-RPC error -32601 (method not found) and keep running"
    )


def probe_note(probe: ProbeFailed) -> str:
    """What the probe did to the server, with the line of its stderr that says why."""
    words = last_words(probe.stderr_tail)
    return f"{probe.message}; its stderr ended with {words!r}" if words else probe.message
