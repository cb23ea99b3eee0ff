"""Errors returned as successful results, and text that contradicts structuredContent, on a
server built with the real Python SDK (tests/servers/disguised.py; MCP_FIXTURE_BUGS=0 is the
same server, correct)."""

from __future__ import annotations

import json
import re

import pytest

from tests.conftest import RunMcp


@pytest.fixture
def run_mcp(run_checks: RunMcp) -> RunMcp:
    """About errors returned as results: outcome counts without the sequences item."""
    return run_checks


# disguised.py keeps no state and what is judged is what its tools answer, not how the
# answer travels: the tests run in-process (run_inprocess_checks), a fraction of a
# subprocess run's cost, but for -n 2, which needs real worker processes and a server each.


def _failure_section(output: str, tool: str) -> str:
    match = re.search(rf"_+ \S+ {tool} \[contract\] _+\n(.*?)(?=\n_{{5,}} |\n=+ )", output, re.S)
    assert match is not None, output
    return match.group(1)


def test_errors_as_results_fail_and_disguised_refusals_are_counted_apart(
    run_inprocess_checks: RunMcp, pytester: pytest.Pytester
) -> None:
    result = run_inprocess_checks("disguised.py", args=("-v", "--mcp-report=report.json"))
    out = result.stdout.str()
    result.assert_outcomes(failed=2, passed=14)
    assert "FAILED mcp:disguised::initials::contract" in out
    assert "FAILED mcp:disguised::quote::contract" in out

    initials = _failure_section(out, "initials")
    assert "the tool returned an error as a successful result (isError is not set)" in initials
    assert "text: Error: 'NoneType' object has no attribute 'strip'" in initials
    assert '    {"name": ""}' in initials  # shrunk: a blank name is what breaks it

    quote = _failure_section(out, "quote")
    assert "the text content contradicts structuredContent" in quote
    assert '$.total: the text has "102.50" (string), structuredContent 102.5 (number)' in quote
    assert "$.total: '102.50' is not of type 'number'" in quote  # the text breaks the schema
    assert '    {"quantity": 41}' in quote  # the bug starts above 40: shrunk to the edge

    # A lookup that answers "does not exist" as ordinary text: warned about, never failed.
    result.stdout.fnmatch_lines(
        [
            "*document_text: * of 50 calls returned a disguised refusal (an error or a refusal "
            "without isError), so the output contract was barely exercised*"
            '(the last said: "Document*does not exist*',
        ]
    )
    result.stdout.fnmatch_lines(
        ["*document_text: unknown;*without isError: * disguised-refusal; real results: * of 50*"]
    )
    result.stdout.fnmatch_lines(
        [
            "disguised (protocol *): 4 tools, * calls, 0 returned isError, * returned an error "
            "without isError"
        ]
    )
    tools = {
        tool["name"]: tool
        for tool in json.loads((pytester.path / "report.json").read_text())["servers"][0]["tools"]
    }
    # (A generated file name that is itself "... does not exist" would make one answer
    # a quote of the input, judged by its other words: hence not exactly 50.)
    refused = tools["document_text"]["disguised_errors"]["disguised-refusal"]
    assert refused >= 45
    assert tools["document_text"]["real_results"] == 50 - refused
    assert tools["initials"]["disguised_errors"] == {"error-as-result": 1}
    # Correct prose that quotes errors and a traceback in its body is content.
    assert tools["troubleshoot"]["disguised_errors"] == {}
    assert tools["troubleshoot"]["real_results"] == tools["troubleshoot"]["calls"] == 50
    assert "mcp:disguised::troubleshoot::contract PASSED" in out


def test_an_error_as_a_result_can_be_a_warning(
    run_inprocess_checks: RunMcp, pytester: pytest.Pytester
) -> None:
    pytester.makepyprojecttoml(
        """
        [tool.mcp-contracts.tools.initials]
        warn_only = ["error-as-result"]
        """
    )
    result = run_inprocess_checks("disguised.py", args=("-k", "initials"))
    result.assert_outcomes(passed=4)
    result.stdout.fnmatch_lines(
        [
            "*initials: * of 50 calls returned an error as a successful result (error-as-result, "
            "warn_only for this tool)*'NoneType' object has no attribute*"
        ]
    )


def test_the_correct_server_passes_on_several_seeds_in_ci_and_under_xdist(
    run_mcp: RunMcp, run_inprocess_checks: RunMcp, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MCP_FIXTURE_BUGS", "0")
    # The seeds run in-process (they are about inputs, not the transport); -n 2 needs real
    # worker processes and a server each.
    # A local run records the contracts that CI mode requires, as a user's does.
    runs = [run_inprocess_checks("disguised.py", args=("--hypothesis-seed=1",))]
    monkeypatch.setenv("CI", "true")
    runs.append(run_inprocess_checks("disguised.py"))
    runs.append(run_inprocess_checks("disguised.py", args=("--hypothesis-seed=7",)))
    runs.append(run_mcp("disguised.py", args=("-n", "2", "--hypothesis-seed=3")))
    # The xdist controller sums the workers' counts into the same line a serial run prints
    # (it once added "(all workers)": serial and -n 2 now print the same summary).
    runs[-1].stdout.fnmatch_lines(
        ["disguised (protocol *): 4 tools, * returned an error without isError"]
    )
    for result in runs:
        result.assert_outcomes(passed=16)
        # The lookup still refuses every file it is sent: a warning, not a failure.
        result.stdout.fnmatch_lines(["*document_text: * of 50 calls returned a disguised refusal*"])
        # quote's text leaves out the defaults the SDK filled in: still a mirror.
        assert "did not mirror" not in result.stdout.str()


def test_sequences_judge_results_without_iserror_as_the_contract_check_does(
    run_inprocess_checks: RunMcp, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_mcp = run_inprocess_checks
    # quote's bug would be found first in some sequences: leave it out.
    pytester.makepyprojecttoml(
        """
        [tool.mcp-contracts.tools.quote]
        skip = true
        """
    )
    args = ("--mcp-sequences=on", "-k", "sequences", "-rA")
    # Each attempt to shorten a sequence restarts the server: a few seconds are enough here.
    result = run_mcp("disguised.py", args=(*args, "--mcp-shrink-time=3"))
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "the tool returned an error as a successful result (isError is not set) "
            "(call * of a sequence)",
            "*text: Error: 'NoneType' object has no attribute 'strip'",
        ]
    )
    monkeypatch.setenv("MCP_FIXTURE_BUGS", "0")
    monkeypatch.setenv("CI", "true")
    result = run_mcp("disguised.py", args=args)
    result.assert_outcomes(passed=1)
    # A lookup that only says "does not exist" has no real results in a sequence either.
    (line,) = [line for line in result.outlines if "real results by tool:" in line]
    assert "document_text" not in line and "initials" in line, line
