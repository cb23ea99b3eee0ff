"""Latency as a contract, flaky tools and hangs found fast, against tests/servers/latency.py
(standard library only: a call costs the sleep it is given and the transport's own few
milliseconds).

- Each tool's answered contract calls are timed (p50, p95, p99, max in the run report and
  the summary); a limit (--mcp-max-p95-ms, max_p95_ms) makes a ``latency`` item that fails
  above it with the slowest inputs, and says so when too few calls were answered to judge.
- A tool annotated readOnlyHint is sent each coverage input twice: ``dice`` answers with a
  random number and is flagged, ``lookup`` answers with a fresh uuid and time beside the
  same value and never is (several seeds, CI mode, -n 2).
- ``stuck`` hangs on n from 10 to 19: found, confirmed once at the full timeout, and shrunk
  with the early one.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ..conftest import NO_SEQUENCES, RunMcp

NAP_MS = 60
# What a loaded machine may add to a call on top of the server's own sleep: the transport's
# few milliseconds, and a scheduler that has two cores for many processes.
SLACK_MS = 40
# nap made slower for the drift gate's warning (test_the_drift_gate_records_...).
SLOW_NAP_MS = 200


def _tools(path: Path) -> dict[str, dict[str, Any]]:
    report = json.loads(path.read_text(encoding="utf-8"))
    return {tool["name"]: tool for tool in report["servers"][0]["tools"]}


def test_latency_figures_agree_with_the_sleeps_of_the_server(
    run_mcp: RunMcp, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NAP_MS", str(NAP_MS))
    result = run_mcp(
        "latency.py", args=(NO_SEQUENCES, "-k", "nap or quick", "--mcp-report=r.json", "-v")
    )
    assert result.ret == 0, result.stdout.str()
    tools = _tools(pytester.path / "r.json")
    nap, quick = tools["nap"]["latency_ms"], tools["quick"]["latency_ms"]
    assert nap["calls"] == tools["nap"]["calls"] > 20
    assert NAP_MS <= nap["p50"] <= nap["p95"] <= nap["p99"] <= nap["max"]
    assert nap["p50"] < NAP_MS + SLACK_MS
    assert quick["p50"] < SLACK_MS
    assert tools["lookup"]["latency_ms"] is None  # not called: no figures, not zeros
    result.stdout.fnmatch_lines(
        ["*nap: *; latency p50 * ms, p95 * ms, p99 * ms, max * ms (* calls)"]
    )
    # No limit: no latency item.
    assert "::latency" not in result.stdout.str()


@pytest.mark.parametrize("parallel", [(), ("-n", "2")], ids=["serial", "xdist"])
def test_a_p95_above_the_limit_fails_the_latency_item_with_the_slowest_inputs(
    run_mcp: RunMcp,
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    parallel: tuple[str, ...],
) -> None:
    if parallel:
        pytest.importorskip("xdist")
    monkeypatch.setenv("NAP_MS", str(NAP_MS))
    pytester.makepyprojecttoml(
        "[tool.mcp-contracts.tools.nap]\nmax_p95_ms = 20\n"
        "[tool.mcp-contracts.tools.quick]\nmax_p95_ms = 5000\n"
    )
    result = run_mcp(
        "latency.py",
        args=(NO_SEQUENCES, "-k", "nap or quick", "--mcp-report=r.json", "-rA", *parallel),
    )
    outcomes = result.parseoutcomes()
    assert outcomes["failed"] == 1, result.stdout.str()
    result.stdout.fnmatch_lines(
        [
            "p95 latency * ms is above the limit of 20 ms, over * answered calls",
            "  the slowest inputs:",
        ]
    )
    text = result.stdout.str()
    assert "FAILED mcp:latency::nap::latency" in text
    assert "PASSED mcp:latency::quick::latency" in text
    slowest = [
        line for line in text.splitlines() if line.strip().endswith("}") and " ms: {" in line
    ]
    assert len(slowest) == 5
    assert all(float(line.split(" ms:")[0]) >= NAP_MS for line in slowest)
    report = json.loads((pytester.path / "r.json").read_text(encoding="utf-8"))
    nap = next(t for t in report["servers"][0]["tools"] if t["name"] == "nap")
    assert nap["checks"]["latency"]["outcome"] == "failed"
    assert nap["checks"]["latency"]["failure"]["kind"] == "slow"


def test_too_few_answered_calls_skip_the_latency_item_saying_so(
    run_mcp: RunMcp, pytester: pytest.Pytester
) -> None:
    result = run_mcp(
        "latency.py",
        args=(
            NO_SEQUENCES,
            "-k",
            "quick",
            "--mcp-max-p95-ms=1000",
            "--mcp-latency-calls=500",
            "-rs",
        ),
    )
    assert result.parseoutcomes()["skipped"] == 1
    result.stdout.fnmatch_lines(
        [
            "SKIPPED * mcp:latency::quick::latency: * answered calls, fewer than the 500 a p95 "
            "is judged over (--mcp-latency-calls)"
        ]
    )


@pytest.mark.parametrize("bad", ["max_p95ms = 3", "max_p95_ms = -3", 'max_p95_ms = "fast"'])
def test_a_bad_latency_setting_is_a_usage_error(
    run_mcp: RunMcp, pytester: pytest.Pytester, bad: str
) -> None:
    pytester.makepyprojecttoml(f"[tool.mcp-contracts.tools.nap]\n{bad}\n")
    result = run_mcp("latency.py", args=(NO_SEQUENCES,))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert '[tool.mcp-contracts.tools."nap"]' in result.stderr.str()


FLAKY = "answered the same input differently"


@pytest.mark.parametrize(
    ("extra", "ci"),
    [
        (("--hypothesis-seed=1",), False),
        (("--hypothesis-seed=2",), False),
        (("--hypothesis-seed=3", "-n", "2"), False),
        ((), True),
    ],
    ids=["seed-1", "seed-2", "seed-3-xdist", "ci"],
)
def test_a_tool_that_answers_an_input_two_ways_is_flagged_and_a_deterministic_one_never(
    run_mcp: RunMcp,
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    extra: tuple[str, ...],
    ci: bool,
) -> None:
    if "-n" in extra:
        pytest.importorskip("xdist")
    args = (NO_SEQUENCES, "-k", "lookup or dice", "--mcp-report=r.json", *extra)
    if ci:  # contracts are recorded first: CI mode fails a tool without one
        assert run_mcp("latency.py", args=args).ret == 0
        monkeypatch.setenv("CI", "true")
    result = run_mcp("latency.py", args=args)
    assert result.ret == 0, result.stdout.str()
    text = result.stdout.str()
    assert f"latency dice: {FLAKY}" in text
    assert f"latency lookup: {FLAKY}" not in text
    result.stdout.fnmatch_lines(["*differs at $.content[[]0[]].text, $.structuredContent.value*"])
    tools = _tools(pytester.path / "r.json")
    assert tools["dice"]["unstable_inputs"] == tools["dice"]["repeated_inputs"] > 0
    assert tools["lookup"]["repeated_inputs"] > 0
    assert tools["lookup"]["unstable_inputs"] == 0
    assert tools["nap"]["repeated_inputs"] == 0  # not annotated: sent once


def test_a_hang_is_confirmed_at_the_full_timeout_and_shrunk_with_an_early_one(
    run_mcp: RunMcp, pytester: pytest.Pytester
) -> None:
    result = run_mcp(
        "latency.py",
        args=(
            NO_SEQUENCES,
            "-k",
            "stuck and contract",
            # Above the early timeout (2 s, HANG_FLOOR in runs/engine.py), which only a
            # longer call timeout brings in; every full-timeout wait costs this much.
            "--mcp-call-timeout=3",
            "--hypothesis-seed=1",
            # One shrinking attempt shows the early timeout; each more waits it again.
            "--mcp-max-restarts=1",
        ),
    )
    assert result.parseoutcomes()["failed"] == 1
    text = result.stdout.str()
    assert "the call did not return: no answer to tools/call within" in text
    shrunk = json.loads(text.split("smallest input found:\n", 1)[1].splitlines()[0])
    assert 10 <= shrunk["n"] <= 19
    assert "(shrinking's attempts waited 2 s for an answer, 10x the p99" in text
    # The replay, on a fresh server with the full timeout, shows it is a hang.
    assert "(it fails alone on a freshly started server too)" in text


def test_a_latency_item_whose_contract_item_did_not_run_here_times_the_calls_itself(
    run_mcp: RunMcp, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NAP_MS", str(NAP_MS))
    result = run_mcp(
        "latency.py",
        args=(
            NO_SEQUENCES,
            "-k",
            "nap",
            "--deselect=mcp:latency::nap::contract",
            "--mcp-max-p95-ms=20",
            "-rA",
        ),
    )
    assert result.parseoutcomes()["failed"] == 1
    result.stdout.fnmatch_lines(
        [
            "p95 latency * ms is above the limit of 20 ms, over * answered calls (timed by "
            "this item: the contract item did not run in this process)",
        ]
    )


def test_the_drift_gate_records_latency_warns_when_it_grows_and_update_replaces_it(
    run_mcp: RunMcp, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A first run records nap's p50 and p95; a run on a server made slower past the factor
    (and the floor) warns naming both figures and the command, and passes; a plain run never
    rewrites the figures; --mcp-snapshot-update replaces them."""
    # 25 inputs a run, not the default: past the 20 answered calls a figure needs
    # (--mcp-latency-calls), and the two slow runs' sleeps are most of this test's time.
    args = (NO_SEQUENCES, "-k", "nap and contract", "--mcp-max-examples=25")
    path = pytester.path / "mcp-contracts" / "latency" / "nap.json"

    def recorded() -> dict[str, Any]:
        figures: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))["latency"]
        return figures

    monkeypatch.setenv("NAP_MS", "5")
    first = run_mcp("latency.py", args=args)
    assert first.ret == 0, first.stdout.str()
    fast = recorded()
    assert fast["calls"] >= 20
    assert 5 <= fast["p50_ms"] <= fast["p95_ms"] < 5 + SLACK_MS
    before = path.read_bytes()

    # Past 3x the recorded p95 however loaded the machine was when it recorded (under
    # 45 ms: 135 ms), and past the floor (50 ms more).
    monkeypatch.setenv("NAP_MS", str(SLOW_NAP_MS))
    slow = run_mcp("latency.py", args=(*args, "-W", "always"))
    assert slow.ret == 0, slow.stdout.str()
    slow.stdout.fnmatch_lines(
        [
            f"*p95 latency grew to * ms from the recorded {fast['p95_ms']:g} ms (*x, over "
            f"* answered calls; recorded over {fast['calls']} in {path})*",
        ]
    )
    text = slow.stdout.str()
    assert "If the tool is meant to answer this slowly now, accept it: " in text
    assert "--mcp-snapshot-update" in text
    assert path.read_bytes() == before  # a plain run never rewrites a figure

    updated = run_mcp("latency.py", args=(*args, "--mcp-snapshot-update"))
    assert updated.ret == 0, updated.stdout.str()
    assert "p95 latency grew" not in updated.stdout.str()  # accepting is no news
    assert SLOW_NAP_MS <= recorded()["p50_ms"] <= recorded()["p95_ms"]
