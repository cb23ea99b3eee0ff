"""The rejects_invalid check: inputs the schema refuses must be refused, and must never
crash, hang or break the server."""

from __future__ import annotations

import json

import pytest

from ..conftest import NO_SEQUENCES, RunMcp

ARGS = ("-k", "rejects_invalid", "-rA", "--mcp-call-timeout=2", "-p", "no:cacheprovider")


@pytest.fixture
def run_mcp(run_mcp_inprocess: RunMcp) -> RunMcp:
    """pytest in this process, fragile_validation.py a real process: what it does to the
    server (a crash, a hang) is the server process's, the verdict the plugin's."""
    return run_mcp_inprocess


def outcome_of(result: pytest.RunResult, tool: str) -> str:
    node = f"mcp:fragile-validation::{tool}::rejects_invalid"
    for line in result.stdout.lines:
        for outcome in ("PASSED", "FAILED", "SKIPPED"):
            if line.startswith(outcome) and node in line:
                return outcome
    raise AssertionError(f"no outcome for {node}")


def test_refusals_pass_and_a_broken_server_fails_with_the_input(run_mcp: RunMcp) -> None:
    # One restart per tool: enough to show the tools after a crash or a hang run against
    # a restarted server; each more makes `hangs` wait out another timeout.
    args = (NO_SEQUENCES, *ARGS, "--mcp-max-restarts=1")
    result = run_mcp("fragile_validation.py", args=args)
    outcomes = {
        tool: outcome_of(result, tool)
        for tool in ("refuses", "error_result", "internal", "dies", "hangs", "accepts")
    }
    assert outcomes == {
        "refuses": "PASSED",
        "error_result": "PASSED",
        "internal": "FAILED",
        "dies": "FAILED",
        "hangs": "FAILED",
        "accepts": "PASSED",  # a warning by default
    }
    result.stdout.fnmatch_lines(
        [
            "an invalid input was answered with JSON-RPC error -32603 (Internal error), an "
            "internal error, instead of a refusal",
            "  the input is invalid because required property 'n' is missing",
            "*refuse arguments the inputSchema does not allow with a result with isError: true*",
            "invalid input sent:",
            "    {}",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "an invalid input killed the server: *",
            "*fatal: cannot handle that input",
        ]
    )
    result.stdout.fnmatch_lines(["an invalid input hung the tool: *"])
    # Each was replayed alone on a fresh server before it was shown, and failed there too.
    result.stdout.fnmatch_lines(
        [
            "tool: internal    check: rejects_invalid",
            "or with one command:",
            "    mcp-contracts call *--server=* internal '{}'",
            "(it fails alone on a freshly started server too)",
        ]
    )
    # The tools after the crash and the hang ran against a restarted server.
    result.stdout.fnmatch_lines(
        [
            "*McpContractWarning: fragile-validation accepts: accepts invalid input: * of * "
            "inputs the inputSchema refuses returned a success result (first: required "
            "property 'n' is missing: {})*"
        ]
    )
    # No traceback of the plugin's own (the servers' tracebacks are evidence, shown).
    assert "pytest_mcp_contracts/" not in result.stdout.str()


def test_a_warning_names_the_tool_and_w_error_makes_it_a_clean_failure(run_mcp: RunMcp) -> None:
    args = (*ARGS, "-k", "accepts")
    warned = run_mcp("fragile_validation.py", args=(NO_SEQUENCES, *args))
    # The warnings summary points at the tool, not at a line of the plugin's source.
    warned.stdout.fnmatch_lines(
        ["  mcp:fragile-validation::accepts:0: McpContractWarning: fragile-validation accepts: *"]
    )
    assert "items.py" not in warned.stdout.str()
    failed = run_mcp(
        "fragile_validation.py",
        args=(NO_SEQUENCES, *args, "-W", "error::pytest_mcp_contracts.McpContractWarning"),
    )
    assert outcome_of(failed, "accepts") == "FAILED"
    failed.stdout.fnmatch_lines(
        [
            "fragile-validation accepts: accepts invalid input: * of * inputs the inputSchema "
            "refuses returned a success result*",
            "(a warning, made an error by -W or filterwarnings)",
        ]
    )
    assert "pytest_mcp_contracts/" not in failed.stdout.str()


def test_accepting_invalid_input_can_be_made_a_failure(run_mcp: RunMcp) -> None:
    result = run_mcp(
        "fragile_validation.py",
        args=(NO_SEQUENCES, *ARGS, "-k", "accepts", "--mcp-rejects-invalid=fail"),
    )
    assert outcome_of(result, "accepts") == "FAILED"
    result.stdout.fnmatch_lines(
        [
            "accepts invalid input: * of * inputs the inputSchema refuses returned a success "
            "result",
            "  required property 'n' is missing: {}",
            "  'n' has the wrong type *",
            "  'n' is -1, below minimum 0*",
            "  extra property '__unexpected_property'*",
        ]
    )


def test_per_tool_setting_and_off(pytester: pytest.Pytester, run_mcp: RunMcp) -> None:
    pytester.makepyprojecttoml(
        """
        [tool.mcp-contracts.tools.accepts]
        rejects_invalid = "fail"

        [tool.mcp-contracts.tools.dies]
        rejects_invalid = "off"
        """
    )
    result = run_mcp("fragile_validation.py", args=(NO_SEQUENCES, *ARGS, "-k", "accepts or dies"))
    assert outcome_of(result, "accepts") == "FAILED"
    assert outcome_of(result, "dies") == "SKIPPED"
    result.stdout.fnmatch_lines(["*dies::rejects_invalid: --mcp-rejects-invalid=off*"])


def test_invalid_calls_are_not_counted_as_error_results(run_inprocess: RunMcp) -> None:
    # In-process: the counting is the plugin's, and typed_ok.py a stateless Python-SDK app.
    result = run_inprocess("typed_ok.py", args=(NO_SEQUENCES, "-v", "--mcp-max-examples=5"))
    result.stdout.fnmatch_lines(
        [
            "*mcp:typed-ok::add::rejects_invalid PASSED*",
            "typed-ok (protocol 2026-07-28): 3 tools, 15 calls, 0 returned isError",
        ]
    )


def test_the_valid_input_invalid_ones_start_from_is_remembered_across_runs(
    run_mcp_inprocess: RunMcp, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Hypothesis finds it afresh (derandomized, shrunk) only on a first run; later runs take
    # it from pytest's cache, while the inputSchema still accepts it.
    log = pytester.path / "calls.log"
    monkeypatch.setenv("MCP_FIXTURE_CALL_LOG", str(log))
    args = (NO_SEQUENCES, "-k", "get_order and rejects_invalid")
    run_mcp_inprocess("lookup.py", args=args).assert_outcomes(passed=1, deselected=7)
    kept = list((pytester.path / ".pytest_cache/v/mcp-contracts/simplest-input").iterdir())
    assert len(kept) == 1
    assert json.loads(kept[0].read_text()) == {"order_id": "A-0", "verbose": False}

    def sent() -> str:
        text = log.read_text()
        log.unlink()
        return text

    sent()
    kept[0].write_text(json.dumps({"order_id": "A-77", "verbose": True}))
    run_mcp_inprocess("lookup.py", args=args).assert_outcomes(passed=1, deselected=7)
    assert '"A-77"' in sent()  # the invalid inputs are the remembered one's mutations
    kept[0].write_text(json.dumps({"order_id": "B-77", "verbose": True}))  # the schema refuses
    run_mcp_inprocess("lookup.py", args=args).assert_outcomes(passed=1, deselected=7)
    assert '"B-77"' not in sent()
    assert json.loads(kept[0].read_text()) == {"order_id": "A-0", "verbose": False}


def test_a_hang_behind_a_first_failing_input_is_reported_too(run_mcp: RunMcp) -> None:
    """tests/servers/deep_invalid.py crashes on a wrongly typed value (JSON-RPC -32603, its
    traceback on stderr) and hangs on a value above its maximum, which comes later among the
    cases: the item goes on after the first failure and reports both, each with its own input
    and replay, the gravest first."""
    result = run_mcp("deep_invalid.py", args=(NO_SEQUENCES, *ARGS))
    result.assert_outcomes(failed=1, deselected=3)
    result.stdout.fnmatch_lines(
        [
            # The gravest first: the hang (critical) heads the item, the -32603 follows.
            "an invalid input hung the tool: no answer to tools/call within 2 s (and 1 more "
            "failure of this check below)",
            "  the input is invalid because 'seconds' is 6, above maximum 5",
            "invalid input sent:",
            '    {"seconds": 6}',
            "or with one command:",
            "    mcp-contracts call *--server=* pause '{\"seconds\": 6}'",
            "(it fails alone on a freshly started server too)",
            "failure 2 of 2 of this check:",
            "    an invalid input was answered with JSON-RPC error -32603 (Internal error), an "
            "internal error, instead of a refusal",
            "      the input is invalid because 'seconds' has the wrong type *",
            "    invalid input sent:",
            '        {"seconds": "not a number"}',
            "    or with one command:",
            '        mcp-contracts call *--server=* pause \'{"seconds": "not a number"}\'',
            "    (it fails alone on a freshly started server too)",
        ]
    )
    # Every case was sent: the hang's restart let the cases after it through.
    result.stdout.fnmatch_lines(["* invalid inputs sent, * refused, 2 failed (2 distinct ways)*"])


def test_a_refusal_in_words_no_list_holds_is_no_acceptance(run_mcp: RunMcp) -> None:
    """tests/servers/wordy_refusals.py answers invalid input, without isError, with a
    sentence that explains the argument back: a refusal (issue 43, class 4), not the
    "accepts invalid input" warning. A tool that runs on the invalid input is still warned
    about."""
    result = run_mcp("wordy_refusals.py", args=(NO_SEQUENCES, *ARGS))
    result.assert_outcomes(passed=2, deselected=6)
    out = result.stdout.str()
    assert "wordy-refusals list_items: accepts invalid input" not in out
    assert "wordy-refusals echo_limit: accepts invalid input" in out
    result.stdout.fnmatch_lines(["*invalid inputs sent, * refused (* of them in words, without*"])
