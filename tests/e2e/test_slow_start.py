"""A server slow to start is reached in the era it speaks: the probe's nudge (a ping after a
second of silence) must not choose the era for it."""

from __future__ import annotations

from ..conftest import RunPytest, server_command


def test_a_slow_handshake_era_server_is_reached_through_initialize(
    inprocess_pytest: RunPytest,
) -> None:
    # pytest in this process, the server a real stdio process that reads nothing for 1.5 s.
    server = f"--mcp-server={server_command('slow_handshake_era.py')}"
    result = inprocess_pytest(server, "-k", "contract", "--mcp-sequences=off")
    result.assert_outcomes(passed=1, deselected=3)
    result.stdout.fnmatch_lines(["handshake-era (protocol 2025-11-25): 1 tools*"])
