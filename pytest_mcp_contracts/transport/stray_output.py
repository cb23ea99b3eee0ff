"""What a server sent during a request that was not for it (noise on stdout, messages for no
request of ours), judged as that request's failure."""

from __future__ import annotations

from pytest_mcp_contracts.transport.errors import (
    CallTimeout,
    ProtocolViolation,
    ServerDied,
    ServerError,
)
from pytest_mcp_contracts.transport.jsonrpc import RpcConnection
from pytest_mcp_contracts.transport.stdio import StdoutNoise


def stray_failure(
    failure: ServerError | None,
    conn: RpcConnection,
    garbage_before: int,
    noise: tuple[int, int, int],
) -> ServerError | None:
    """The failure a request's ``failure`` (None: it was answered) becomes for what the
    server wrote meanwhile that was not for it, or None when it stays as it is. Output
    during a call that was not a message for us breaks the protocol: the call fails, and a
    call that also timed out or died says what the server wrote instead, in the
    transport's own words. Lines on stdout that are no JSON-RPC message at all (noise:
    logs printed to stdout) since the previous answer fail it as StdoutNoise, quoting them;
    messages that are not for us (a response to an id we never used) as a protocol
    violation. ``noise`` is the noise count at the previous answer, when the request was
    sent, and at this call's answer (or now)."""
    before, sent, upto = noise
    # Garbage counts noise too (up to now): what is left are messages.
    messages = conn.garbage_count - garbage_before - (conn.noise_count - sent)
    if (upto <= before and messages <= 0) or isinstance(failure, ProtocolViolation):
        return None  # a protocol violation already names its own stray message
    if failure is None and messages <= 0:
        lines = conn.noise_lines(before, upto)
        return StdoutNoise(
            f"the server {conn.stray_note(upto - before, lines)}",
            count=upto - before,
            lines=lines,
            before_call=sent - before,
            stderr_tail=conn.stderr_tail(),
        )
    # With what came before the request was sent (noise only: it was read by then).
    count = conn.garbage_count - garbage_before
    lines = list(conn.garbage)[-min(count, len(conn.garbage)) :] if count > 0 else []
    lines = conn.noise_lines(before, sent) + lines
    note = f"the server {conn.stray_note(count + sent - before, lines)}"
    if failure is None:
        return ProtocolViolation(note, stderr_tail=conn.stderr_tail())
    if isinstance(failure, (CallTimeout, ServerDied)):
        message = f"{failure.message}; meanwhile {note}"
        return type(failure)(message, stderr_tail=failure.stderr_tail)
    return None
