"""isError results from servers built with the real SDKs: wrapped failures fail, refusals pass.

One fixture per SDK, each with three planted bugs (an output that breaks the tool's own
output model, an exception on some inputs, a no-argument tool that always throws) and a tool
that refuses unknown ids cleanly; MCP_FIXTURE_BUGS=0 is the same server, correct.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from tests.conftest import NO_SEQUENCES, RunMcp, RunPytest

FAILED = {
    "price_quote": "the tool's output breaks its own output schema*",
    "initial": "the tool raised an unexpected exception*",
    "health": "the tool raised an unexpected exception*",
}


def _failure_section(output: str, tool: str) -> str:
    match = re.search(rf"_+ \S+ {tool} \[contract\] _+\n(.*?)(?=\n_{{5,}} |\n=+ )", output, re.S)
    assert match is not None, output
    return match.group(1)


def test_python_sdk_failures_fail_with_evidence_and_the_smallest_input(
    run_mcp_inprocess: RunMcp,
) -> None:
    result = run_mcp_inprocess(
        "sdk_failures.py",
        args=(NO_SEQUENCES, "-W", "error::pytest.PytestUnraisableExceptionWarning"),
    )
    out = result.stdout.str()
    for tool in FAILED:
        assert f"FAILED mcp:sdk-failures::{tool}::contract" in out
    assert "FAILED mcp:sdk-failures::whoami::contract" in out
    # health and whoami take nothing invalid: their rejects_invalid items are skipped
    result.assert_outcomes(failed=4, passed=18, skipped=2)
    result.stdout.fnmatch_lines(
        ["the tool takes no arguments and every call (*) returned isError", "*not signed in*"]
    )

    quote = _failure_section(out, "price_quote")
    assert "$.total: Input should be a valid number" in quote
    assert '    {"quantity": 41}' in quote  # the bug starts above 40: shrunk to the edge

    initial = _failure_section(out, "initial")
    assert "exception: IndexError: string index out of range" in initial
    assert '    {"word": ""}' in initial
    # stderr belongs to its call: this call's own traceback, and no other tool's.
    during = initial.split("server stderr while this call ran:")[1]
    during = during.split("server stderr before this call")[0]
    assert "Tool 'initial' raised an unexpected exception" in during
    assert "price_quote" not in during and "health" not in during

    health = _failure_section(out, "health")
    assert "RuntimeError: database connection pool is not initialised" in health
    assert "    {}" in health

    # lookup refuses every sku it is sent (ToolError): a refusal is never a failure.
    assert "FAILED mcp:sdk-failures::lookup" not in out
    # "true" for a boolean is a lax coercion pydantic accepts: no warning by default.
    assert "toggle: accepts invalid input" not in out


def test_python_sdk_server_without_the_bugs_passes_in_ci_mode(
    run_inprocess: RunMcp, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_mcp = run_inprocess  # in-process: the classes are the plugin's, not the transport's
    monkeypatch.setenv("MCP_FIXTURE_BUGS", "0")
    result = run_mcp(
        "sdk_failures.py",
        args=(
            NO_SEQUENCES,
            "--hypothesis-seed=3",
        ),
    )
    result.assert_outcomes(passed=22, skipped=2)
    monkeypatch.setenv("CI", "true")
    result = run_mcp("sdk_failures.py", args=(NO_SEQUENCES,))
    result.assert_outcomes(passed=22, skipped=2)


def test_typescript_sdk_failures_fail_and_the_clean_variant_passes(
    inprocess_pytest: RunPytest,
    ts_servers: Callable[[str], str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # pytest in this process, the TypeScript server a real process.
    server = f"--mcp-server={ts_servers('failures.mjs')}"
    result = inprocess_pytest(NO_SEQUENCES, server)
    out = result.stdout.str()
    for tool, message in FAILED.items():
        assert f"FAILED mcp:ts-failures::{tool}::contract" in out
        result.stdout.fnmatch_lines([message])
    assert "$.total: Invalid input: expected number, received string" in out
    assert "Cannot read properties of undefined (reading 'toUpperCase')" in out
    assert '    {"word": ""}' in _failure_section(out, "initial")
    assert "FAILED mcp:ts-failures::lookup" not in out
    result.assert_outcomes(failed=3, passed=12, skipped=1)

    monkeypatch.setenv("MCP_FIXTURE_BUGS", "0")
    clean = inprocess_pytest(NO_SEQUENCES, server, "--mcp-snapshot-update")
    clean.assert_outcomes(passed=15, skipped=1)
    monkeypatch.setenv("CI", "true")  # and again as CI runs it, against what was recorded
    clean = inprocess_pytest(NO_SEQUENCES, server, "--hypothesis-seed=5")
    clean.assert_outcomes(passed=15, skipped=1)


def test_warn_only_turns_a_class_into_a_warning(
    run_inprocess: RunMcp, pytester: pytest.Pytester
) -> None:
    run_mcp = run_inprocess  # in-process: the classes are the plugin's, not the transport's
    pytester.makepyprojecttoml(
        """
        [tool.mcp-contracts.tools.initial]
        warn_only = ["unexpected-exception"]
        [tool.mcp-contracts.tools.health]
        warn_only = ["always-error", "unexpected-exception"]
        """
    )
    result = run_mcp("sdk_failures.py", args=(NO_SEQUENCES, "-k", "initial or health"))
    result.assert_outcomes(passed=7, skipped=1)
    result.stdout.fnmatch_lines(
        ["*initial: * of * calls ended in unexpected-exception (warn_only for this tool)*"]
    )
    # health raises RuntimeError("...") on purpose in its own code: a refusal, but on every
    # call of a tool without arguments (always-error).
    result.stdout.fnmatch_lines(
        ["*health: the tool takes no arguments and every call (*) returned isError (warn_only*"]
    )


def test_a_no_argument_tool_that_always_refuses_can_be_a_warning(
    run_inprocess: RunMcp, pytester: pytest.Pytester
) -> None:
    run_mcp = run_inprocess  # in-process: the classes are the plugin's, not the transport's
    pytester.makepyprojecttoml(
        """
        [tool.mcp-contracts.tools.whoami]
        warn_only = ["always-error"]
        """
    )
    result = run_mcp("sdk_failures.py", args=(NO_SEQUENCES, "-k", "whoami"))
    result.assert_outcomes(passed=3, skipped=1)
    result.stdout.fnmatch_lines(
        ["*whoami: the tool takes no arguments and every call (*) returned isError (warn_only*"]
    )


def test_warn_only_names_what_it_allows(run_inprocess: RunMcp, pytester: pytest.Pytester) -> None:
    run_mcp = run_inprocess  # in-process: the classes are the plugin's, not the transport's
    pytester.makepyprojecttoml(
        """
        [tool.mcp-contracts.tools.initial]
        warn_only = ["crash"]
        """
    )
    result = run_mcp("sdk_failures.py", args=(NO_SEQUENCES,))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*warn_only must be a list of: output-invalid, unexpected-exception, always-error*"]
    )
