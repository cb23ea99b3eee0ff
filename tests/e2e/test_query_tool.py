"""A generic query tool (tests/servers/sql_query.py: SQL on sqlite3, on the real SDK): random
text is no SQL, so only the user's examples reach real results, and the keys of its rows are
whatever columns a query selects."""

from __future__ import annotations

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
