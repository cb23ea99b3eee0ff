"""A coverage-phase failure is shrunk to the boundary of its bug, and large corners find bugs
behind values nothing in the schema bounds (issue 22, points 7 and 8): tests/servers/
thresholds.py, whose bugs start at a threshold far below the corner that reaches them."""

from __future__ import annotations

import json

import pytest

from ..conftest import RunMcp


@pytest.fixture
def run_mcp(run_checks: RunMcp) -> RunMcp:
    """About the coverage phase and its shrinking: outcome counts without the sequences item.
    For -n 2; the other runs are pytest in this process against thresholds.py as a real
    process (run_here): a hang, an exit and a restart are the server's."""
    return run_checks


@pytest.fixture
def run_here(run_mcp_inprocess_checks: RunMcp) -> RunMcp:
    return run_mcp_inprocess_checks


# Each tool's failure and the input it must be shrunk to, exactly.
SHRUNK = {
    "resize": ("the tool raised an unexpected exception", '{"width": 101}'),
    "tile": ("the tool raised an unexpected exception", '{"step": 105}'),  # multipleOf 5
    "render": ("the tool raised an unexpected exception", '{"name": "", "options": {"depth": 11}}'),
    # Above 500 the output breaks its model; 101..500 raise: the search keeps to the first.
    "convert": ("the tool's output breaks its own output schema", '{"amount": 501}'),
    # Found by the 64 KiB corner, shrunk to the first length the output model refuses.
    "caption": ("the tool's output breaks its own output schema", '{"text": "' + "a" * 41 + '"}'),
    # Found by the 2**31-1 corner (size has no maximum): every smaller size answers.
    "allocate": ("the call did not return", '{"size": 2147483647}'),
}
# `store` exits on a text over 1000 characters, so each such attempt costs a restart:
# shrinking stops when the 3 are spent, at 1003 characters (exits at 65536, 1023, 1007 and
# 1003; restarts before the attempts 0, 767 and 999).
STORE = '{"text": "' + "a" * 199 + '… (1003 characters)"}'


def _section(out: str, tool: str) -> str:
    return out.split(f"thresholds {tool} [contract]", 1)[1].split(" [contract] ___", 1)[0]


def _input(section: str, label: str = "smallest input found:") -> str:
    return section.split(f"\n{label}\n", 1)[1].splitlines()[0].strip()


@pytest.mark.parametrize("mode", ["ci", "seed 3"])
def test_coverage_failures_are_shrunk_to_the_boundary_of_their_bug(
    run_here: RunMcp, monkeypatch: pytest.MonkeyPatch, pytester: pytest.Pytester, mode: str
) -> None:
    # 2 s: a hang is found at once, and no ordinary call comes near it on a loaded machine.
    args = ["-k", "contract", "--mcp-call-timeout=2", "--mcp-report=report.json"]
    if mode == "ci":
        monkeypatch.setenv("CI", "true")
    else:
        args.append("--hypothesis-seed=3")
    result = run_here("thresholds.py", args=tuple(args))
    out = result.stdout.str()
    result.assert_outcomes(failed=7, deselected=21)
    for tool, (problem, small) in SHRUNK.items():
        section = _section(out, tool)
        assert section.split("\n", 1)[1].startswith(problem), section
        assert _input(section) == small, section
        assert "not shrunk" not in section
    store = _section(out, "store")
    assert "the call killed the server" in store
    assert _input(store) == STORE  # a long input is quoted shortened
    assert (
        "(not shrunk further: each attempt needs a server restart and the budget of 3 "
        "restarts per tool, --mcp-max-restarts, is spent)"
    ) in store
    assert "store: 1003 characters overflow the buffer" in store  # that very call's stderr
    # The large corner that found the hang is listed as visited, the next one as not reached.
    report = json.loads((pytester.path / "report.json").read_text(encoding="utf-8"))
    tools = {t["name"]: t for t in report["servers"][0]["tools"]}
    coverage = tools["allocate"]["input_coverage"]
    assert "size: large 2147483647" in coverage["visited"]
    why = "not reached: the phase stopped at a failure"
    assert {"corner": "size: large 9007199254740992", "why": why} in coverage["not_visited"]


def test_an_input_shrinking_could_not_start_on_is_not_called_smallest(
    run_here: RunMcp, cold_servers: None
) -> None:
    # The hang kills the server; restarting it takes longer than the whole shrink time (a
    # cold start: a warm one may not), so the one attempt made (size 0, after the restart)
    # passes and the next is never sent.
    result = run_here(
        "thresholds.py",
        args=("-k", "allocate and contract", "--mcp-call-timeout=1", "--mcp-shrink-time=0.1"),
    )
    result.assert_outcomes(failed=1, deselected=27)
    section = _section(result.stdout.str(), "allocate")
    assert "smallest input found" not in section
    assert _input(section, "input (not shrunk):") == '{"size": 2147483647}'
    assert "(not shrunk further: shrinking took 0.1 s, --mcp-shrink-time)" in section


def test_the_bug_free_twin_passes_in_ci_on_several_seeds_and_under_xdist(
    run_mcp: RunMcp, run_inprocess_checks: RunMcp, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MCP_FIXTURE_BUGS", "0")
    # The seeds are about inputs, not the transport: they run in-process (a fraction of a
    # subprocess run's cost); -n 2 needs real worker processes and a server each.
    run_app = run_inprocess_checks
    # Recorded locally once, as a user would, then checked as CI runs it.
    run_app("thresholds.py", args=("--mcp-snapshot-update",)).assert_outcomes(passed=28)
    monkeypatch.setenv("CI", "true")
    result = run_app("thresholds.py", args=("-v",))  # the CI profile: derandomized
    result.assert_outcomes(passed=28)
    result.stdout.fnmatch_lines(["*allocate: declared; input coverage: 4/4 corners*"])
    for seed in (1, 7, 11):  # the default profile lets each seed count
        args = ("--hypothesis-profile=default", f"--hypothesis-seed={seed}")
        result = run_app("thresholds.py", args=args)
        assert result.ret == 0, f"seed {seed}:\n{result.stdout.str()}"
    run_mcp("thresholds.py", args=("-n", "2")).assert_outcomes(passed=28)


def test_a_failing_example_you_gave_is_reported_as_given(
    run_inprocess_checks: RunMcp, pytester: pytest.Pytester
) -> None:
    # In-process: how an example is reported is the plugin's, not the transport's.
    run_mcp = run_inprocess_checks
    pytester.makepyprojecttoml(
        """
        [tool.mcp-contracts.tools.resize]
        examples = [{width = 500}]
        """
    )
    result = run_mcp("thresholds.py", args=("-k", "resize and contract"))
    result.assert_outcomes(failed=1, deselected=27)
    section = _section(result.stdout.str(), "resize")
    label = "input (an example you gave, or the inputSchema's; examples are not shrunk):"
    assert _input(section, label) == '{"width": 500}'
    assert "smallest input found" not in section
