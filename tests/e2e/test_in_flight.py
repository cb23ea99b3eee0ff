"""Calls in flight (--mcp-in-flight): a tool annotated readOnlyHint or idempotentHint gets
its examples and coverage inputs sent several at a time, and the run says exactly what one
call at a time says: the same verdicts, the same failure reports, the same run report,
serially and under -n 2. The fixture servers (in_flight.py, in_flight_noise.py) make each
thing that can happen to calls in flight happen: a crash among them, a traceback on stderr,
a refusal logged on stderr, an elicitation whose answer depends on the ones before, noise
on stdout; and lookup records how many of its calls ran at once."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from ..conftest import NO_SEQUENCES, HttpServer, RunMcp, RunPytest, untimed, without_durations

SERVERS = ("in_flight.py", "in_flight_noise.py")
ARGS = (NO_SEQUENCES, "--hypothesis-seed=1", "--mcp-max-examples=20", "--mcp-report=report.json")


def _run(
    runner: RunMcp,
    root: Path,
    monkeypatch: pytest.MonkeyPatch,
    window: int,
    *extra: str,
) -> tuple[pytest.RunResult, dict[str, Any], list[list[str]]]:
    """One run from a clean folder: its result, run report and the calls lookup and tally
    logged (each a line split in words: start|end, tool, value, calls of it running)."""
    shutil.rmtree(root / "mcp-contracts", ignore_errors=True)
    log = root / f"calls-{window}{''.join(extra)}.log"
    monkeypatch.setenv("IN_FLIGHT_LOG", str(log))
    if window > 1:  # the first call waits for a second: two run at once whatever the load
        monkeypatch.setenv("IN_FLIGHT_WAIT", "1")
    else:
        monkeypatch.delenv("IN_FLIGHT_WAIT", raising=False)
    result = runner(*SERVERS, args=(*ARGS, f"--mcp-in-flight={window}", *extra))
    report = json.loads((root / "report.json").read_text(encoding="utf-8"))
    calls = [line.split() for line in log.read_text(encoding="utf-8").splitlines()]
    return result, report, calls


def _tools(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {tool["name"]: tool for server in report["servers"] for tool in server["tools"]}


def _reports_of_failures(result: pytest.RunResult) -> list[str]:
    """Everything from the failures to the short summary: each report, warnings, the
    run's summary, the files written (the last line, with the run's time, left out)."""
    lines = result.outlines
    start = next(i for i, line in enumerate(lines) if "FAILURES" in line)
    return untimed(lines[start:-1])


def _reports_of_warnings(result: pytest.RunResult) -> list[str]:
    """The warnings summary and the run's summary (the last line, with its time, left out)."""
    lines = result.outlines
    start = next(i for i, line in enumerate(lines) if "warnings summary" in line)
    return untimed(lines[start:-1])


def _most_at_once(calls: list[list[str]], tool: str) -> int:
    return max(int(words[3]) for words in calls if words[0] == "start" and words[1] == tool)


def test_calls_in_flight_say_what_one_call_at_a_time_says(
    run_mcp_inprocess: RunMcp, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    alone, alone_report, alone_calls = _run(run_mcp_inprocess, pytester.path, monkeypatch, 1)
    flying, flying_report, flying_calls = _run(run_mcp_inprocess, pytester.path, monkeypatch, 4)

    # The calls really were in flight: lookup (read-only) had several running at once,
    # tally (no annotations) never, and nothing in flight at all with --mcp-in-flight=1.
    assert _most_at_once(flying_calls, "lookup") >= 2
    assert _most_at_once(flying_calls, "tally") == 1
    assert _most_at_once(alone_calls, "lookup") == _most_at_once(alone_calls, "tally") == 1
    # No input of a tool that answers cleanly was sent twice: lookup ran as often in flight
    # as one call at a time (its contract calls, and the invalid inputs pydantic coerced).
    started = [
        sum(words[:2] == ["start", "lookup"] for words in calls)
        for calls in (alone_calls, flying_calls)
    ]
    assert started[0] == started[1] >= _tools(flying_report)["lookup"]["calls"]

    # The same verdicts: a crash among calls in flight, a traceback, noise on stdout.
    outcomes = {"failed": 4, "passed": 20}
    assert alone.parseoutcomes() == flying.parseoutcomes() == outcomes
    for result in (alone, flying):
        result.stdout.fnmatch_lines(
            [
                "FAILED mcp:in-flight::fetch::contract - the call killed the server*",
                "FAILED mcp:in-flight::grade::contract - the tool raised an unexpected*",
                "FAILED mcp:in-flight::confirm::contract - the tool raised an unexpected*",
                "FAILED mcp:in-flight-noise::say::contract - the server wrote 1 line(s) on std*",
            ],
            consecutive=False,
        )
    # The same reports, line for line: the input, the server's stderr during the call and
    # before it, the restart the crash cost, the warnings, the summary.
    assert _reports_of_failures(flying) == _reports_of_failures(alone)
    assert "restarted 1x" in flying.stdout.str()
    # The same run report. confirm breaks on the first elicitation the client accepts: its
    # failure on the first "ask", with the answer "accept", shows that the answers came in
    # the order they would one at a time, although that call was first sent in flight.
    assert without_durations(flying_report) == without_durations(alone_report)
    flying.stdout.fnmatch_lines(["  elicitation/create form ('Are you sure?'): accept*"])
    assert _tools(flying_report)["confirm"]["calls"] == 1


def test_calls_in_flight_under_xdist_give_the_serial_verdicts_and_run_report(
    run_mcp: RunMcp,
    run_mcp_inprocess: RunMcp,
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pytest.importorskip("xdist")
    # confirm's failure never replays (each replay's elicitation gets the next answer of the
    # cycle), which costs some twenty server starts a run: the serial test has it.
    cheaper = ("-k", "not confirm")
    serial, serial_report, _ = _run(run_mcp_inprocess, pytester.path, monkeypatch, 1, *cheaper)
    parallel, parallel_report, _ = _run(run_mcp, pytester.path, monkeypatch, 4, *cheaper, "-n", "2")
    assert parallel.parseoutcomes()["failed"] == serial.parseoutcomes()["failed"] == 3
    assert parallel.parseoutcomes()["passed"] == serial.parseoutcomes()["passed"]
    assert without_durations(parallel_report) == without_durations(serial_report)


def test_over_http_a_server_without_sessions_gets_every_tool_in_flight(
    inprocess_pytest: RunPytest,
    http_server: HttpServer,
    pytester: pytest.Pytester,
    tmp_path: Path,
) -> None:
    """A 2026-07-28 server over Streamable HTTP keeps no session: each request stands on its
    own, so tally, which declares no annotations, gets its calls in flight too."""
    log = tmp_path / "calls.log"
    url = http_server("in_flight.py", env={"IN_FLIGHT_LOG": str(log), "IN_FLIGHT_WAIT": "1"})
    args = (*ARGS[:-1], "-k", "tally or lookup or grade or confirm")
    runs = {}
    for window in (4, 1):
        shutil.rmtree(pytester.path / "mcp-contracts", ignore_errors=True)
        log.write_text("")
        runs[window] = inprocess_pytest(f"--mcp-url={url}", *args, f"--mcp-in-flight={window}")
        calls = [line.split() for line in log.read_text(encoding="utf-8").splitlines()]
        most = _most_at_once(calls, "tally")
        assert most >= 2 if window > 1 else most == 1
    assert runs[4].parseoutcomes() == runs[1].parseoutcomes()
    # Over HTTP there is no stderr, and MCPServer answers grade's and confirm's crashes
    # with its wrapper alone ("Error executing tool grade"): suspect, warned about, alone
    # or in flight alike (docs/explanation/iserror.md, rule c).
    assert "failed" not in runs[4].parseoutcomes()
    assert _reports_of_warnings(runs[4]) == _reports_of_warnings(runs[1])
    assert any("grade" in line and "may be server failures" in line for line in runs[4].outlines)
