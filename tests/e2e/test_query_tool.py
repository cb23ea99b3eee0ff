"""A generic query tool (tests/servers/sql_query.py: SQL on sqlite3, on the real SDK): random
text is no SQL, so only the user's examples reach real results, and the keys of its rows are
whatever columns a query selects."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ..conftest import NO_SEQUENCES, RunMcp

EXAMPLES = """
[tool.mcp-contracts.tools.query]
examples = [
    {sql = "SELECT a, b FROM t"},
    {sql = "SELECT c FROM u"},
    {sql = "SELECT a FROM t WHERE a > 1"},
]
"""
FILE = Path("mcp-contracts") / "sql-query" / "query.json"


@pytest.fixture
def run_mcp(run_inprocess: RunMcp) -> RunMcp:
    """In-process (--mcp-app): what this file checks is the plugin's, not the transport's."""
    return run_inprocess


def test_examples_that_answer_for_real_clear_the_barely_exercised_warning(
    run_mcp: RunMcp, pytester: pytest.Pytester
) -> None:
    args = (NO_SEQUENCES, "--mcp-max-examples=30", "-k", "contract", "-rw")
    # Without examples every call is refused: the contract was barely exercised.
    alone = run_mcp("sql_query.py", args=args)
    alone.assert_outcomes(passed=1, warnings=1)
    alone.stdout.fnmatch_lines(["*sql-query query: 3? of 3? calls returned isError, so the *"])
    # With them, 30 random inputs are still refused, and the examples answered for real.
    pytester.makepyprojecttoml(EXAMPLES)
    given = run_mcp("sql_query.py", args=args)
    given.assert_outcomes(passed=1)
    given.stdout.fnmatch_lines(["sql-query (protocol *): 1 tools, 3? calls, 3? returned isError"])
    assert "barely exercised" not in given.stdout.str()


@pytest.mark.parametrize("workers", [(), ("-n", "2")], ids=["serial", "xdist"])
def test_rows_whose_keys_are_the_columns_asked_for_are_left_open(
    run_mcp: RunMcp,
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    workers: tuple[str, ...],
) -> None:
    """`SELECT a, b` answers rows {a, b} and `SELECT c` rows {c}: the contract is the stable
    envelope, its rows open, never rows with optional a, b and c."""
    pytester.makepyprojecttoml(EXAMPLES)
    args = (NO_SEQUENCES, "--mcp-max-examples=30", "-k", "contract", *workers)
    run_mcp("sql_query.py", args=args).assert_outcomes(passed=1)
    recorded = json.loads((pytester.path / FILE).read_text(encoding="utf-8"))["output"]
    assert recorded["quality"] == "validated"
    assert recorded["schema"] == {
        "type": "object",
        "properties": {
            "columns": {"type": "array", "items": {"type": "string"}},
            "row_count": {"type": "integer"},
            "rows": {"type": "array", "items": {"type": "object", "additionalProperties": True}},
        },
        "required": ["columns", "row_count", "rows"],
    }
    # CI asks for other columns: no drift, the rows' keys are the query's.
    pytester.makepyprojecttoml(EXAMPLES.replace("SELECT c FROM u", "SELECT b, c FROM t, u"))
    monkeypatch.setenv("CI", "true")
    ci = run_mcp("sql_query.py", args=(*args, "--mcp-strict"))
    ci.assert_outcomes(passed=1)
    assert "drift" not in ci.stdout.str()
    # mcp-contracts inspect says which part is open.
    from pytest_mcp_contracts.cli import main

    snapshots = str(pytester.path / "mcp-contracts")
    capsys.readouterr()  # what the runs printed
    assert main(["inspect", "query", "--snapshots", snapshots]) == 0
    assert "keys that depend on the input, left open: $.rows[]" in capsys.readouterr().out
    assert main(["inspect", "query", "--snapshots", snapshots, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["openPaths"] == ["$.rows[]"]
