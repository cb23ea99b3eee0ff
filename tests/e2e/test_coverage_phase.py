"""The coverage phase finds bugs behind corners of the input space on every run (issue 14):
one enum value among several, the maximum of a range, one anyOf branch with one enum value,
an optional boolean, one value of a 30-value enum (tests/servers/corners.py)."""

from __future__ import annotations

import json

import pytest

from ..conftest import NO_SEQUENCES, RunMcp


@pytest.fixture
def run_mcp(run_inprocess: RunMcp) -> RunMcp:
    """In-process (--mcp-app): what this file checks is the plugin's, not the transport's
    (tests/e2e/test_transports.py runs the checks over every transport)."""
    return run_inprocess


# Each tool's bug and the small input that must be reported for it.
FOUND = {
    "pick_mode": '{"mode": "c", "query": ""}',
    "scale": '{"n": 100, "name": ""}',
    "shape": '{"kind": "tri", "value": ""}',
    "fetch": '{"url": "", "verbose": true}',
    "region": '{"code": "r17"}',
}


@pytest.mark.parametrize("mode", ["ci", "seed 7"])
def test_every_corner_bug_is_found_with_its_small_input(
    run_mcp: RunMcp, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    args = ["-k", "contract"]
    if mode == "ci":
        monkeypatch.setenv("CI", "true")  # hypothesis derandomized: the same inputs every run
    else:
        args.append("--hypothesis-seed=7")
    result = run_mcp("corners.py", args=(NO_SEQUENCES, *tuple(args)))
    result.assert_outcomes(failed=5, deselected=15)
    text = result.stdout.str()
    for tool, small in FOUND.items():
        assert f"FAILED mcp:corners::{tool}::contract" in text
        section = text.split(f"corners {tool} [contract]", 1)[1]
        assert section.split("smallest input found:\n", 1)[1].splitlines()[0].strip() == small
        request = json.loads(section.split("stdin):\n", 1)[1].splitlines()[0])
        assert request["params"]["name"] == tool
        assert request["params"]["arguments"] == json.loads(small)  # replayable as shown


def test_the_bug_free_variant_passes_and_reports_its_input_coverage(
    run_mcp: RunMcp, monkeypatch: pytest.MonkeyPatch, pytester: pytest.Pytester
) -> None:
    monkeypatch.setenv("MCP_FIXTURE_NO_BUGS", "1")
    result = run_mcp(
        "corners.py", args=(NO_SEQUENCES, "-k", "contract", "-v", "--mcp-report=report.json")
    )
    result.assert_outcomes(passed=5, deselected=15)
    result.stdout.fnmatch_lines(
        [
            # pick_mode's limit and query, shape's value have no upper bound: large corners
            # Each line ends with the tool's latencies.
            "*pick_mode: declared; input coverage: 14/14 corners, 4/4 pairs, 14 inputs; latency*",
            # Rarely the random phase sends value 1e20, an integer by JSON Schema that the
            # SDK's pydantic refuses ("exceeded maximum size"): then the line goes on with
            # "; isError: 1 suspect", a warning and no failure, so the coverage is matched alone.
            "*shape: declared; input coverage: 15/15 corners, 9/9 pairs, 20 inputs*",
            "*region: declared; input coverage: 34/34 corners, 8/29 pairs, 40 inputs; not "
            "visited: 21 pairs (beyond the coverage budget (raise --mcp-max-examples)); latency*",
        ]
    )
    report = json.loads((pytester.path / "report.json").read_text(encoding="utf-8"))
    tools = {t["name"]: t for t in report["servers"][0]["tools"]}
    shape = tools["shape"]["input_coverage"]
    assert shape["sent"] == shape["inputs"] <= shape["budget"] == 40
    assert shape["corners"]["visited"] == shape["corners"]["derived"]
    # 3 branches x 4 kinds, less the 3 pairs that are single corners (branch 0 is the base's)
    assert shape["pairs"]["visited"] == shape["pairs"]["possible"] == 9
    assert "value: branch anyOf[1]" in shape["visited"]
    assert "scale" in tools and "n: maximum 100" in tools["scale"]["input_coverage"]["visited"]
    assert "name: large 65536 characters" in tools["scale"]["input_coverage"]["visited"]
    assert "value: large 2147483647" in shape["visited"]
    # Coverage inputs count against --mcp-max-examples: 50 calls per tool in all.
    assert tools["shape"]["calls"] == 50
