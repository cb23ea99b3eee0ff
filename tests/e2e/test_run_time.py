"""Where a run's time goes (phase_seconds) and the run's time budget (--mcp-run-time): what
is left divided among the checks to come, a call never cut short by it, and what it cut said
in the summary and the run report."""

from __future__ import annotations

import json
from typing import Any

import pytest

from ..conftest import NO_SEQUENCES, RunMcp


def _tools(pytester: pytest.Pytester) -> dict[str, dict[str, Any]]:
    report = json.loads((pytester.path / "report.json").read_text(encoding="utf-8"))
    return {tool["name"]: tool for tool in report["servers"][0]["tools"]}


def test_the_report_and_summary_say_where_each_tools_time_went(
    run_inprocess_checks: RunMcp, pytester: pytest.Pytester
) -> None:
    result = run_inprocess_checks(
        "typed_ok.py", args=("--mcp-max-examples=5", "--mcp-report=report.json")
    )
    assert result.ret == 0, result.stdout.str()
    for name, tool in _tools(pytester).items():
        phases = tool["phase_seconds"]
        # Every tool drew random inputs; its contract and rejects_invalid checks took some
        # time of their own (the suite's runs probe nothing), and nothing failed: nothing
        # was shrunk or replayed.
        assert phases["random"] > 0, name
        assert {"contract", "rejects_invalid"} <= set(phases), name
        assert not {"shrink", "replay"} & set(phases), name
        assert tool["run_time_cut"] == tool["run_time_skipped"] == 0
    result.stdout.fnmatch_lines(
        ["  where the time went: * in the checks; by phase: *; slowest: * (most in *)*"]
    )


def test_the_run_time_stops_a_check_at_its_share_and_cuts_no_call_short(
    run_mcp_inprocess: RunMcp, pytester: pytest.Pytester
) -> None:
    """slow_total's calls take 1.5 s; its contract check, the one check selected, has a share
    of at most 1.4 s: its first call outlasts the share, is answered and judged (no restart),
    and no second input is sent."""
    args = (NO_SEQUENCES, "--mcp-run-time=1.4", "-k", "slow_total and contract")
    result = run_mcp_inprocess("slow.py", args=(*args, "--mcp-report=report.json"))
    assert result.parseoutcomes()["passed"] == 1, result.stdout.str()
    tool = _tools(pytester)["slow_total"]
    assert (tool["calls"], tool["out_of_time"], tool["run_time_cut"]) == (1, 1, 1)
    report = json.loads((pytester.path / "report.json").read_text(encoding="utf-8"))
    assert report["servers"][0]["restarts"] == 0
    result.stdout.fnmatch_lines(["  --mcp-run-time cut: 1 tool(s) given less than * slow_total"])


def test_a_check_left_no_time_is_skipped_saying_why(
    run_inprocess_checks: RunMcp, pytester: pytest.Pytester
) -> None:
    args = ("--mcp-run-time=0.001", "--mcp-report=report.json", "-rs")
    result = run_inprocess_checks("typed_ok.py", args=args)
    assert result.ret == 0, result.stdout.str()
    outcomes = result.parseoutcomes()
    assert outcomes["skipped"] == 6  # contract and rejects_invalid of 3 tools
    result.stdout.fnmatch_lines(
        ["*::contract: not run: the run's time budget of 0.001 s (--mcp-run-time) is spent*"]
    )
    assert {t["run_time_skipped"] for t in _tools(pytester).values()} == {2}
    result.stdout.fnmatch_lines(
        ["  --mcp-run-time cut: 3 tool(s) with checks not run: add, find_user, inventory"]
    )


@pytest.mark.parametrize("value", ["-1", "soon", "inf"])
def test_a_bad_run_time_is_a_usage_error(run_inprocess: RunMcp, value: str) -> None:
    result = run_inprocess("typed_ok.py", args=(f"--mcp-run-time={value}",))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--mcp-run-time (ini mcp_run_time) must be a number of seconds*"])
