"""stdout hygiene: on stdio, stdout carries JSON-RPC messages and nothing else.

The spec's stdio transport says "the server MUST NOT write anything to its stdout that is
not a valid MCP message", and clients hold servers to it: both SDK clients hand every line
to their JSON parser (the TypeScript SDK's ``ReadBuffer`` to ``JSON.parse``, the Python
SDK's stdio client to pydantic) and report a line that fails it as an error, and Claude
Desktop then drops the server with ``Unexpected token ... is not valid JSON``: dotenv 17's
banner (brave/brave-search-mcp-server#32, verygoodplugins/mcp-automem#54), log lines
(run-llama/mcp-server-llamacloud#5, microsoft/azure-devops-mcp#147).

Where the verdict lands, so that ``pytest`` and ``pytest -n 2`` say the same: under xdist
every worker starts its own process of the server, and a server-level item runs on one
worker only. What a server prints before its tool list is answered (a banner) every process
prints alike, so it fails the server's own ``stdout`` item, once. What it prints between
the previous answer and a call's answer fails the item that made the call (``contract``,
``rejects_invalid`` or ``sequences``), naming the tool and the input: that call prints it
again wherever it runs. The line's place in the stream decides, not when our reader got to
it: a line printed just after an answer would otherwise be a race between two calls. What
no call's answer follows (after the last call, a restarted server's banner) is counted in
the summary and the run report (``between_calls_stdout``); a restarted server's banner is
its start-up's, which the ``stdout`` item judges already.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from pytest_mcp_contracts.judges.failures import FailureKind, Finding
from pytest_mcp_contracts.text import shorten

LINES_SHOWN: Final = 3  # lines quoted; the rest are counted
LINE_CHARS: Final = 120  # of each quoted line

WHAT_CLIENTS_DO: Final = (
    "stdout is the protocol channel of a stdio server: every line on it must be one "
    "JSON-RPC message. Clients parse each line as one: the MCP SDK clients report an error "
    "for every line that is not, and Claude Desktop drops the server with "
    '"Unexpected token ... is not valid JSON"'
)
FIX: Final = (
    "fix: write logs and banners to stderr (Python: print(..., file=sys.stderr) or logging "
    "to stderr; Node: console.error; dotenv 17: dotenv.config({ quiet: true }))"
)


def quoted_lines(count: int, lines: Sequence[str]) -> list[str]:
    """A few of the lines, each shortened, and how many more there were."""
    shown = [
        repr(shorten(line, LINE_CHARS)) if line.strip() else f"{line!r} (a blank line)"
        for line in lines[:LINES_SHOWN]
    ]
    rest = count - len(shown)
    return shown + ([f"... and {rest} more line(s)"] if rest > 0 else [])


def noise_finding(
    check: str, count: int, lines: Sequence[str], when: str, before_call: int = 0
) -> Finding:
    """``count`` lines that are no JSON-RPC message, written on stdout ``when``
    (``before_call`` of them read before the call was sent). The message holds no line
    itself: a replay that prints a new timestamp still fails the same way."""
    late = (
        [
            f"({before_call} of them came after the previous answer, before this call was "
            "sent: a line is counted in the call whose answer follows it on stdout, so one "
            "printed after an earlier call's answer, or by a timer, lands here)"
        ]
        if before_call
        else []
    )
    return Finding(
        check,
        f"the server wrote {count} line(s) on stdout {when} that are not JSON-RPC messages",
        details=(*quoted_lines(count, lines), *late, WHAT_CLIENTS_DO, FIX),
        kind=FailureKind.STDOUT_NOISE,
    )


def check_startup_stdout(check: str, startup: tuple[int, Sequence[str]]) -> Finding | None:
    """The server's stdout until its tool list was answered (``ManagedServer.startup_stdout``)."""
    count, lines = startup
    if not count:
        return None
    return noise_finding(check, count, lines, "while it started (before its tool list)")
