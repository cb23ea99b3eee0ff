"""stdout hygiene against servers built with the real SDKs: what a stdio server writes on
stdout that is no JSON-RPC message fails, at start-up the server's own ``stdout`` item and
during a call that call's check, the same under ``pytest`` and ``pytest -n 2``; in-process
there is no such channel."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

import pytest

from ..conftest import NO_SEQUENCES, RunMcp, RunPytest, server_command, without_durations

# What each item of the two servers comes to. dotenv-banner (Python MCPServer) prints dotenv
# 17's banner before the handshake; its `chatty` tool prints too, but mcp 2.x points the
# process's stdout at stderr while it serves, so no client sees that line. ts-noisy
# (TypeScript McpServer) console.logs in three tools: a text line, JSON that is no JSON-RPC
# message, a blank line; `greet` is clean, and so is its start-up (no stdout item).
EXPECTED = {
    "mcp:dotenv-banner::stdout": "FAILED",
    **{
        f"mcp:dotenv-banner::{tool}::{check}": "PASSED"
        for tool in ("chatty", "echo")
        for check in ("schema", "drift", "contract", "rejects_invalid")
    },
    **{
        f"mcp:ts-noisy::{tool}::{check}": "PASSED"
        for tool in ("lookup", "status", "spacer", "greet")
        for check in ("schema", "drift")
    },
    "mcp:ts-noisy::lookup::contract": "FAILED",
    "mcp:ts-noisy::status::contract": "FAILED",
    "mcp:ts-noisy::spacer::contract": "FAILED",
    "mcp:ts-noisy::greet::contract": "PASSED",
    # zod refuses lookup's invalid inputs before its handler (and its console.log) runs.
    "mcp:ts-noisy::lookup::rejects_invalid": "PASSED",
    "mcp:ts-noisy::greet::rejects_invalid": "PASSED",
    "mcp:ts-noisy::status::rejects_invalid": "SKIPPED",
    "mcp:ts-noisy::spacer::rejects_invalid": "SKIPPED",
}

QUOTED = {
    "mcp:dotenv-banner::stdout": "'[dotenv@17.2.3] injecting env (0) from .env -- tip: ⚙️  load "
    "multiple .env files'",
    "mcp:ts-noisy::lookup::contract": "'looking up",
    "mcp:ts-noisy::status::contract": '\'{"status":200,"message":"Success"}\'',
    "mcp:ts-noisy::spacer::contract": "'' (a blank line)",
}

_OUTCOME = re.compile(r"^(PASSED|FAILED|SKIPPED|ERROR) (?:\[\d+\] )?(\S+)")


def _outcomes(output: str) -> dict[str, str]:
    """Node id -> outcome, from -rA's short summary (skips name their node in the reason)."""
    found = {}
    for line in output.splitlines():
        match = _OUTCOME.match(line)
        if match is None:
            continue
        word, node = match.groups()
        if word == "SKIPPED":
            node = line.split(": ", 1)[1].split(": ", 1)[0] if ": " in line else node
        found[node] = word
    return found


def test_stdout_noise_fails_the_start_up_or_the_call_the_same_serially_and_under_xdist(
    pytester: pytest.Pytester, inprocess_pytest: RunPytest, ts_servers: Callable[[str], str]
) -> None:
    pytest.importorskip("xdist")
    servers = (
        f"--mcp-server={server_command('dotenv_banner.py')}",
        f"--mcp-server={ts_servers('noisy.mjs')}",
    )
    args = (NO_SEQUENCES, "--mcp-max-examples=5", "--mcp-report=report.json", "-rA")
    runs = {}
    # Serially pytest runs in this process (the servers are real processes either way); -n 2
    # needs a controller and workers of its own.
    for name, extra in (("serial", ()), ("parallel", ("-n", "2"))):
        folder = pytester.mkdir(name)
        with pytest.MonkeyPatch.context() as patch:
            patch.chdir(folder)
            if extra:
                result = pytester.runpytest_subprocess(*servers, "-p", "no:randomly", *args, *extra)
            else:
                result = inprocess_pytest(*servers, *args)
        assert result.ret == 1, result.stdout.str()
        text = result.stdout.str()
        report = json.loads((folder / "report.json").read_text(encoding="utf-8"))
        runs[name] = (text, _outcomes(text), without_durations(report))
    (serial, outcomes, report), (parallel, parallel_outcomes, parallel_report) = (
        runs["serial"],
        runs["parallel"],
    )
    assert outcomes == EXPECTED, serial
    assert parallel_outcomes == EXPECTED, parallel
    assert parallel_report["servers"] == report["servers"]
    for node, quoted in QUOTED.items():
        assert quoted in serial, node
    banner, noisy = report["servers"]
    assert banner["stdout"]["failure"] == {"kind": "stdout_noise", "severity": "high"}
    assert banner["startup_stdout"]["lines"] == 1
    assert noisy["stdout"] is None and noisy["startup_stdout"]["lines"] == 0
    kinds = {
        tool["name"]: tool["checks"]["contract"].get("failure", {}).get("kind")
        for tool in noisy["tools"]
    }
    assert kinds == {
        "lookup": "stdout_noise",
        "status": "stdout_noise",
        "spacer": "stdout_noise",
        "greet": None,
    }
    # What a client does and the fix, said once per failure.
    assert serial.count("Claude Desktop drops the server") == 4
    assert serial.count("dotenv.config({ quiet: true })") == 4


def test_an_in_process_server_has_no_stdout_channel(run_inprocess: RunMcp) -> None:
    """The banner goes to the test process's own stdout: no client reads it as protocol."""
    result = run_inprocess("dotenv_banner.py", args=(NO_SEQUENCES,))
    result.assert_outcomes(passed=8)
    assert "::stdout" not in result.stdout.str()
