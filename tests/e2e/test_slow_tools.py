"""Slow tools bounded (--mcp-tool-time, tool_time): once a check has spent the tool's time
budget it draws no more inputs, says how many it sent, and passes; a failure found before
still shrinks (within --mcp-shrink-time). No assertion here is about time: slow.py's calls
sleep so that the counts follow from the budget alone."""

from __future__ import annotations

import json
from typing import Any

import pytest

from ..conftest import NO_SEQUENCES, RunMcp

# Each call of slow_total takes 1.5 s and the budget is 2.5 s: a check's first call ends
# within it (with a second to spare for the machine's load), its second cannot (it would end
# at 3 s at the earliest), so it is cut short at the budget and not judged.
BUDGET = "--mcp-tool-time=2.5"


def _tool(pytester: pytest.Pytester, name: str) -> dict[str, Any]:
    report = json.loads((pytester.path / "report.json").read_text(encoding="utf-8"))
    return next(t for t in report["servers"][0]["tools"] if t["name"] == name)


@pytest.mark.parametrize(
    ("parallel", "where"),
    [((), "option"), ((), "pyproject"), (("-n", "2"), "option")],
    ids=["serial-option", "serial-pyproject", "xdist-option"],
)
def test_a_slow_tool_stops_at_its_budget_says_how_many_it_sent_and_passes(
    run_mcp: RunMcp,
    run_mcp_inprocess: RunMcp,
    pytester: pytest.Pytester,
    parallel: tuple[str, ...],
    where: str,
) -> None:
    if parallel:
        pytest.importorskip("xdist")
    if where == "pyproject":  # the tool's own setting, with no budget for the run
        pytester.makepyprojecttoml("[tool.mcp-contracts.tools.slow_total]\ntool_time = 2.5\n")
        budget = "--mcp-tool-time=off"
    else:
        budget = BUDGET
    runner = run_mcp if parallel else run_mcp_inprocess
    args = (NO_SEQUENCES, budget, "-k", "slow_total", "--mcp-report=report.json", "-rA", "-v")
    result = runner("slow.py", args=(*args, *parallel))
    assert result.parseoutcomes()["passed"] == 4
    assert "failed" not in result.parseoutcomes()
    said = (
        "the tool's time budget of 2.5 s (--mcp-tool-time) ran out after 1 of up to {} {} "
        "(judged; none is sent or runs past it). Not a failure: give this tool more time "
        "with tool_time under [tool.mcp-contracts.tools.<name>]"
    )
    if not parallel:  # the items' own sections: -rA shows them from this process
        result.stdout.fnmatch_lines(
            [
                "*slow slow_total [[]contract[]]*",
                "1 calls, 0 returned isError; " + said.format(50, "inputs"),
                "input coverage: 1/6 corners, *(not reached: the phase stopped at the tool's "
                "time budget)*",
            ],
            consecutive=False,
        )
        result.stdout.fnmatch_lines(
            ["1 invalid inputs sent, 1 refused; " + said.format(3, "invalid inputs")]
        )
    # A warning each, and the run's numbers count both checks (the summary's tool line, -v).
    assert result.stdout.str().count("McpContractWarning: slow slow_total: the tool's time") == 2
    result.stdout.fnmatch_lines(["*time budget ran out in 2 check(s), fewer inputs sent*"])
    tool = _tool(pytester, "slow_total")
    assert (tool["calls"], tool["invalid_calls"], tool["out_of_time"]) == (1, 1, 2)


def test_a_failure_found_before_the_budget_ran_out_still_shrinks(
    run_mcp_inprocess: RunMcp, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """slow_check fails from 10 up; the coverage phase finds it at once at 1000 (its first
    two calls answer at once), and shrinking it to 10 takes calls of 0.5 s each: more than
    five of them (the budget's 2.5 s) are made, and the smallest input is reported."""
    monkeypatch.setenv("SLOW_SECONDS", "1.5")
    result = run_mcp_inprocess(
        "slow.py",
        args=(NO_SEQUENCES, BUDGET, "-k", "slow_check and contract", "--mcp-report=report.json"),
    )
    assert result.parseoutcomes()["failed"] == 1
    result.stdout.fnmatch_lines(
        [
            "structuredContent does not match the outputSchema (2020-12)",
            "  $.n: 10 is greater than the maximum of 9",
            "*",
            "smallest input found:",
            '    {"n": 10}',
        ],
        consecutive=False,
    )
    assert "time budget" not in result.stdout.str()  # it was spent, but said nothing
    tool = _tool(pytester, "slow_check")
    assert tool["calls"] > 2 + 5 and tool["out_of_time"] == 0
