"""Well-known values, as users run them: a clock whose tool takes an IANA timezone and refuses
any other string (tests/servers/world_clock.py, the Python SDK, like mcp-server-time) is
reached with real zones, so a bug behind one of them (Asia/Kolkata's half-hour offset) is
found; its bug-free twin passes in CI on several seeds and under -n 2, with real results."""

from __future__ import annotations

import json
import re

import pytest

from tests.conftest import RunMcp


@pytest.fixture
def run_mcp(run_checks: RunMcp) -> RunMcp:
    """About the contract check's inputs: outcome counts without the sequences item."""
    return run_checks


def _real_results(pytester: pytest.Pytester) -> int:
    document = json.loads((pytester.path / "run.json").read_text(encoding="utf-8"))
    (tool,) = document["servers"][0]["tools"]
    return int(tool["real_results"])


def test_a_bug_behind_a_real_timezone_is_found(
    run_inprocess_checks: RunMcp, pytester: pytest.Pytester
) -> None:
    # In-process: the zones are the plugin's inputs, not the transport's (world_clock keeps
    # no state, so shrinking on the same app finds what a fresh server would).
    result = run_inprocess_checks(
        "world_clock.py", args=("--hypothesis-seed=1", "--mcp-report=run.json")
    )
    result.assert_outcomes(failed=1, passed=3)
    out = result.stdout.str()
    assert "$.offset_hours: Input should be a valid number" in out
    assert re.search(r'smallest input found:\n    \{"timezone": "Asia/Kolkata"\}', out), out
    assert _real_results(pytester) > 0


def test_the_twin_passes_with_real_results_in_ci_and_under_xdist(
    run_mcp: RunMcp,
    run_inprocess_checks: RunMcp,
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MCP_FIXTURE_BUGS", "0")
    # The seeds run in-process (they are about inputs, not the transport); -n 2 needs real
    # worker processes and a server each.
    run_inprocess_checks("world_clock.py", args=("--hypothesis-seed=1",)).assert_outcomes(passed=4)
    monkeypatch.setenv("CI", "true")
    for run, extra in (
        (run_inprocess_checks, ("--hypothesis-seed=2",)),
        (run_mcp, ("--hypothesis-seed=3", "-n", "2")),
    ):
        result = run("world_clock.py", args=(*extra, "--mcp-report=run.json"))
        result.assert_outcomes(passed=4)
        # Before well-known values every one of its 50 calls was refused.
        assert _real_results(pytester) >= 10
