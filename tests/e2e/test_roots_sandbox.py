"""The roots sandbox, as users run it: a file server that adopts the client's roots as its
allowed folders (tests/servers/roots_files.py, the Python SDK) refuses every generated path,
so a bug behind an existing file is found only with the sandbox's paths; the bug-free twin
passes in CI on several seeds and under -n 2, with real results; one tool's writes never
reach another tool (tests/servers/roots_writes.py); a user's --mcp-roots folder is copied,
never written, and refused when it is too big to copy."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import RunMcp, replay_argv, run_call


@pytest.fixture
def run_mcp(run_checks: RunMcp) -> RunMcp:
    """About the roots sandbox: outcome counts without the sequences item."""
    return run_checks


TOOLS = ("file_info", "read_text", "list_folder")


def _tools(pytester: pytest.Pytester, report: str = "run.json") -> dict[str, Any]:
    document = json.loads((pytester.path / report).read_text())
    return {tool["name"]: tool for tool in document["servers"][0]["tools"]}


def _failure_section(output: str, tool: str) -> str:
    match = re.search(rf"_+ \S+ {tool} \[contract\] _+\n(.*?)(?=\n_{{5,}} |\n=+ )", output, re.S)
    assert match is not None, output
    return match.group(1)


def test_a_bug_behind_an_existing_file_is_found_with_a_sandbox_path(
    run_mcp_inprocess_checks: RunMcp, pytester: pytest.Pytester
) -> None:
    # pytest in this process, roots_files.py a real process: the replay below needs a
    # freshly started server, not a fresh pytest.
    result = run_mcp_inprocess_checks(
        "roots_files.py", args=("--mcp-report=run.json", "-v", "--hypothesis-seed=1")
    )
    out = result.stdout.str()
    result.assert_outcomes(failed=1, passed=11)
    assert "FAILED mcp:roots-files::file_info::contract" in out
    section = _failure_section(out, "file_info")
    assert "the tool's output breaks its own output schema" in section
    assert "$.size: Input should be a valid integer" in section
    shown = re.search(r"smallest input found:\n    (\{.*\})\n", section)
    assert shown is not None, section
    path = Path(json.loads(shown.group(1))["path"])
    # A real, non-empty file of the sandbox: the simplest one, since inputs shrink to it.
    assert path.name == "notes.txt" and path.parent.name.startswith("pytest-mcp-roots-"), path
    assert f"roots sandbox {path.parent}, which held the built-in sample files" in section
    # The reproduction reproduces: the folder is left for it, and the command offers it as
    # the root of a freshly started server, where the same file breaks the output again.
    argv = replay_argv(section)
    assert f"--roots={path.parent}" in argv, argv
    status, (answer,) = run_call(argv, pytester.path)
    assert status == 0 and answer["result"]["isError"] is True, answer
    assert answer["result"]["content"][0]["text"] == "Error executing tool file_info", answer
    tools = _tools(pytester)
    for name in ("read_text", "list_folder"):
        assert tools[name]["real_results"] >= 5, tools[name]
        assert tools[name]["sandbox_calls"] >= tools[name]["calls"] // 2, tools[name]
    assert re.search(r"  read_text: declared.*; sandbox paths in \d+ calls", out), out


def test_without_the_sandbox_every_call_is_refused_and_the_bug_goes_unseen(
    run_inprocess_checks: RunMcp, pytester: pytest.Pytester
) -> None:
    run_mcp = run_inprocess_checks  # in-process: the sandbox is the plugin's, not the transport's
    # What the plugin did before the sandbox: nearly every call refused, every item green.
    # (Only the empty root itself is a real result, as "" or "." : a folder of size 0.)
    result = run_mcp(
        "roots_files.py", args=("--mcp-report=run.json", "--mcp-roots=none", "--hypothesis-seed=1")
    )
    result.assert_outcomes(passed=12)
    for name, tool in _tools(pytester).items():
        assert tool["real_results"] <= 3 and tool["sandbox_calls"] == 0, (name, tool)
        assert tool["calls"] >= 40, (name, tool)
        warning = f"{name}: {tool['error_results']} of {tool['calls']} calls returned isError"
        assert f"{warning}, so the output contract was barely exercised" in result.stdout.str()


def test_the_bug_free_twin_passes_in_ci_on_several_seeds(
    run_inprocess_checks: RunMcp, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # In-process: the seeds are about inputs and the sandbox, not the transport.
    run_mcp = run_inprocess_checks
    monkeypatch.setenv("MCP_FIXTURE_BUGS", "0")
    # Records the contracts (a seed of its own: every run of this test is the same).
    run_mcp("roots_files.py", args=("--hypothesis-seed=9",)).assert_outcomes(passed=12)
    monkeypatch.setenv("CI", "true")
    for seed in ("1", "2", "3"):
        report = f"run-{seed}.json"
        result = run_mcp(
            "roots_files.py", args=(f"--hypothesis-seed={seed}", f"--mcp-report={report}")
        )
        result.assert_outcomes(passed=12)
        tools = _tools(pytester, report)
        assert tools["file_info"]["real_results"] >= 15, tools["file_info"]
        assert tools["read_text"]["real_results"] >= 15, tools["read_text"]
        assert tools["list_folder"]["real_results"] >= 4, tools["list_folder"]


def test_the_bug_free_twin_passes_under_xdist_with_real_results(
    run_mcp: RunMcp, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each worker lays its own sandbox; the report adds up the workers' calls.
    monkeypatch.setenv("MCP_FIXTURE_BUGS", "0")
    parallel = run_mcp(
        "roots_files.py", args=("-n", "2", "--mcp-report=parallel.json", "--hypothesis-seed=1")
    )
    parallel.assert_outcomes(passed=12)
    tools = _tools(pytester, "parallel.json")
    assert all(tool["real_results"] >= 4 for tool in tools.values()), tools
    assert all(tool["sandbox_calls"] >= 20 for tool in tools.values()), tools


def test_one_tools_writes_never_become_another_tools_inputs(
    run_inprocess_checks: RunMcp, pytester: pytest.Pytester
) -> None:
    run_mcp = run_inprocess_checks  # in-process: the sandbox is the plugin's, not the transport's
    # tally breaks on a folder holding a file note wrote; note runs first and writes dozens.
    result = run_mcp("roots_writes.py", args=("--mcp-report=run.json", "--hypothesis-seed=1"))
    result.assert_outcomes(passed=8)
    tools = _tools(pytester)
    assert tools["note"]["real_results"] >= 20, tools["note"]
    assert tools["tally"]["real_results"] >= 4, tools["tally"]


def test_a_users_folder_is_copied_into_the_sandbox_and_never_written(
    run_inprocess_checks: RunMcp, pytester: pytest.Pytester
) -> None:
    run_mcp = run_inprocess_checks  # in-process: the sandbox is the plugin's, not the transport's
    mine = pytester.path / "fixtures"
    (mine / "in").mkdir(parents=True)
    (mine / "in" / "prices.csv").write_text("sku,price\nA-1,2.50\n")
    before = sorted(p.relative_to(mine).as_posix() for p in mine.rglob("*"))
    result = run_mcp(
        "roots_writes.py",
        "roots_files.py",
        args=("--mcp-roots=fixtures", "-k", "not tally", "--hypothesis-seed=1"),
    )
    out = result.stdout.str()
    assert "FAILED mcp:roots-files::file_info::contract" in out  # the bug, through the copy
    section = _failure_section(out, "file_info")
    shown = re.search(r"smallest input found:\n    (\{.*\})\n", section)
    assert shown is not None, section
    path = json.loads(shown.group(1))["path"]
    assert path.endswith("/in/prices.csv") and "pytest-mcp-roots-" in path, path
    assert "which held a copy of --mcp-roots" in section
    # note wrote into the copy, dozens of times; the user's folder is as it was.
    assert sorted(p.relative_to(mine).as_posix() for p in mine.rglob("*")) == before
    assert (mine / "in" / "prices.csv").read_text() == "sku,price\nA-1,2.50\n"


def test_a_users_folder_too_big_to_copy_is_a_usage_error(
    run_inprocess_checks: RunMcp, pytester: pytest.Pytester
) -> None:
    run_mcp = run_inprocess_checks  # in-process: the sandbox is the plugin's, not the transport's
    big = pytester.path / "big"
    big.mkdir()
    for i in range(2_001):
        (big / f"{i}.txt").touch()
    result = run_mcp("roots_files.py", args=("--mcp-roots=big",))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--mcp-roots (ini mcp_roots): *big holds more than 2000 files*"])
