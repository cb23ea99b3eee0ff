"""Reach, on a server built with the TypeScript SDK (tests/servers/ts_legacy/reach.mjs): three
bugs that a run with defaults passed green before the roots sandbox, sequences by default and
the judging of successful results (16 passed), each found now; and the bug-free twin passes
as CI runs it, on several seeds and under -n 2, with real results for every tool."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest

from ..conftest import RunPytest

# pytest runs in this process (inprocess_pytest) but for -n 2; reach.mjs is a real node
# process either way.


def _tools(pytester: pytest.Pytester) -> dict[str, Any]:
    document = json.loads((pytester.path / "run.json").read_text(encoding="utf-8"))
    return {tool["name"]: tool for tool in document["servers"][0]["tools"]}


def test_the_three_hidden_bugs_are_found_with_defaults(
    inprocess_pytest: RunPytest, ts_servers: Callable[[str], str]
) -> None:
    server = f"--mcp-server={ts_servers('reach.mjs')}"
    result = inprocess_pytest(server, "--hypothesis-seed=1", "--mcp-report=run.json")
    out = result.stdout.str()
    # 1. Behind an existing CSV file inside the client's roots (the sandbox's table.csv).
    assert "FAILED mcp:ts-reach::file_info::contract" in out
    assert "Invalid input: expected number, received string" in out
    assert re.search(r'"path": "[^"]*pytest-mcp-roots-[^"]*\.csv"', out), out
    # 2. An error returned as an ordinary result.
    assert "FAILED mcp:ts-reach::word_count::contract" in out
    assert "the tool returned an error as a successful result" in out
    # 3. The sequences item reports word_count's failure, met again in a sequence.
    assert "FAILED mcp:ts-reach::sequences" in out
    result.assert_outcomes(failed=3, passed=14)


def test_a_bug_behind_an_id_only_a_create_makes_is_found_by_the_default_sequences(
    inprocess_pytest: RunPytest,
    pytester: pytest.Pytester,
    ts_servers: Callable[[str], str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MCP_FIXTURE_BUGS", "read_item")  # its bug alone
    server = f"--mcp-server={ts_servers('reach.mjs')}"
    result = inprocess_pytest(server, "--hypothesis-seed=1", "--mcp-report=run.json")
    out = result.stdout.str()
    # Alone, read_item never gets an id that exists: its contract item passes, barely
    # exercised; the sequences feed it create_item's ids (the bug-free twin below: its
    # real results), and the first sequence's calls go round the tools, so the bug comes
    # with the first id fed.
    assert "FAILED mcp:ts-reach::read_item::contract" not in out
    assert "ways to reach it: sequences: create_item return(s) what its item_id can take" in out
    assert "FAILED mcp:ts-reach::sequences" in out
    assert "Cannot read properties of undefined (reading 'toUpperCase')" in out
    assert re.search(r"create_item .*\n.*\n.*read_item .*\(item_id from call \d+\)", out), out
    result.assert_outcomes(failed=1, passed=16)


def test_the_bug_free_twin_passes_in_ci_on_several_seeds_and_under_xdist(
    inprocess_pytest: RunPytest,
    pytester: pytest.Pytester,
    ts_servers: Callable[[str], str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MCP_FIXTURE_BUGS", "0")
    server = f"--mcp-server={ts_servers('reach.mjs')}"
    base = (server, "--mcp-report=run.json")
    recorded = inprocess_pytest(*base, "--mcp-snapshot-update")
    recorded.assert_outcomes(passed=17)
    tools = _tools(pytester)
    for name in ("file_info", "create_item", "read_item", "word_count"):
        assert tools[name]["real_results"] >= 5, (name, tools[name])
    monkeypatch.setenv("CI", "true")
    # Seeds 2 and 3, the second under -n 2: every run a set of inputs of its own.
    inprocess_pytest(*base, "--hypothesis-seed=2").assert_outcomes(passed=17)
    clean = pytester.runpytest_subprocess(
        *base, "-p", "no:randomly", "--hypothesis-seed=3", "-n", "2"
    )
    clean.assert_outcomes(passed=17)
