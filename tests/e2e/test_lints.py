"""Lints (judges/lints) on a real Python-SDK server: warnings by default, one per lint for the
server; a lint made an error fails the item that owns it; a lint turned off says nothing."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from ..conftest import NO_SEQUENCES, RunMcp

SERVER = "lint_targets.py"
# Only the static schema items and the contract items: the lints live there.
ITEMS = ("-k", "schema or contract", "--mcp-max-examples=3", NO_SEQUENCES)
ON = "--mcp-lints=all:warning"  # the suite turns them off (conftest._spec_rules_only)


def test_lints_warn_once_per_lint_for_the_server(run_inprocess: RunMcp) -> None:
    result = run_inprocess(SERVER, args=(*ITEMS, ON))
    # Five listing lints for the server, empty-content once for `report` (not per call), and
    # the contract check's own two notes on `report` (no outputSchema, no text mirror).
    result.assert_outcomes(passed=8, deselected=8, warnings=8)
    text = result.stdout.str()
    result.stdout.fnmatch_lines(
        [
            "*McpLintWarning: lint-targets: [[]model-instructions[]] 1 tool: add (*an instruction "
            "tag; *an order to keep something from the user; *an order to read or send a "
            "credential file*",
            "*McpLintWarning: lint-targets: [[]hidden-text[]] 1 tool: add (*U+200B ZERO WIDTH*",
            "*[[]no-description[]] 1 tool: undocumented (the tool has an empty description)*",
            "*[[]no-property-description[]] 1 tool: undocumented (*: x)*",
            "*[[]no-annotations[]] 1 tool: undocumented (annotation hints unset: readOnlyHint, "
            "destructiveHint, idempotentHint, openWorldHint)*",
            "*McpLintWarning: lint-targets report: [[]empty-content[]] a result has "
            "structuredContent and an empty content array*",
        ]
    )
    assert "clean" not in text.split("warnings summary")[1].split("-- Docs")[0]


def test_a_lint_made_an_error_fails_its_item_and_off_silences_it(run_inprocess: RunMcp) -> None:
    lints = "--mcp-lints=no-description:off,model-instructions:error,empty-content:error"
    result = run_inprocess(SERVER, args=(*ITEMS, lints))
    result.assert_outcomes(passed=6, failed=2, deselected=8)
    result.stdout.fnmatch_lines(
        [
            "FAILED mcp:lint-targets::add::schema - [[]model-instructions[]]*",
            "FAILED mcp:lint-targets::report::contract - [[]empty-content[]]*",
        ]
    )
    # Lints left at warning still warn; the one turned off does not.
    result.stdout.fnmatch_lines(["*McpLintWarning: lint-targets: [[]no-annotations[]]*"])
    assert "[no-description]" not in result.stdout.str()


def test_under_xdist_each_lint_warns_once_and_fails_the_same_item(run_mcp: RunMcp) -> None:
    # Every worker collects the server; the first alone says the server's lint warnings.
    args = ("-k", "schema", "-n", "2", "--mcp-lints=model-instructions:error")
    result = run_mcp(SERVER, args=(*args, NO_SEQUENCES))
    result.assert_outcomes(passed=3, failed=1, warnings=4)
    result.stdout.fnmatch_lines(
        ["FAILED mcp:lint-targets::add::schema - [[]model-instructions[]]*"]
    )
    assert result.stdout.str().count("[no-annotations] 1 tool: undocumented") == 1


def test_a_server_level_lint_warns_at_the_server_or_fails_the_first_tools_schema_item(
    run_inprocess: RunMcp,
) -> None:
    args = ("-k", "echo_000 and schema", NO_SEQUENCES)
    warned = run_inprocess("lint_many.py", args=(*args, ON))
    warned.assert_outcomes(passed=1, deselected=515, warnings=1)
    warned.stdout.fnmatch_lines(
        [
            "*McpLintWarning: lint-many: [[]too-many-tools[]] the server lists 129 tools; "
            "OpenAI's API refuses more than 128 tools in a request*",
        ]
    )
    failed = run_inprocess("lint_many.py", args=(*args, "--mcp-lints=too-many-tools:error"))
    failed.assert_outcomes(failed=1, deselected=515)
    failed.stdout.fnmatch_lines(["FAILED mcp:lint-many::echo_000::schema - [[]too-many-tools[]]*"])


def test_a_typescript_server_fails_the_lints_made_errors(
    run_mcp_inprocess: RunMcp, ts_servers: Callable[[str], str]
) -> None:
    server = f"--mcp-server={ts_servers('lints.mjs')}"
    lints = "--mcp-lints=all:error"
    result = run_mcp_inprocess(args=(server, *ITEMS, lints))  # pytest here, node a process
    result.assert_outcomes(passed=4, failed=2, deselected=6)
    result.stdout.fnmatch_lines(
        [
            "*[[]model-instructions[]] the description gives the model orders unrelated to the "
            "tool: an instruction tag; an order to keep something from the user; an order to "
            "read or send a credential file",
            "*[[]hidden-text[]] the description holds 15 invisible character(s)*",
            "*the tag characters spell: 'ignore the user'*",
            # The replay judges as the run did: the lint made an error fails it again.
            "(it fails alone on a freshly started server too)",
            "FAILED mcp:ts-lints::lookup::schema - [[]model-instructions[]]*",
            "FAILED mcp:ts-lints::stats::contract - [[]empty-content[]]*",
        ]
    )


def test_a_poisoned_description_fails_its_schema_item_as_a_security_finding(
    run_inprocess: RunMcp, pytester: pytest.Pytester
) -> None:
    # `add` orders the model to read ~/.ssh/id_rsa and keep it from the user: under
    # --mcp-security=on (the default; the suite's runs have it off) the schema item fails
    # with the security kind, under warn it passes with a warning.
    args = ("-k", "add and schema", NO_SEQUENCES)
    failed = run_inprocess(SERVER, args=(*args, "--mcp-security=on", "--mcp-sarif=run.sarif"))
    failed.assert_outcomes(failed=1)
    failed.stdout.fnmatch_lines(
        [
            "[[]tool-poisoning[]] the description orders the model against the user "
            "(CWE-1427): an order to keep something from the user; an order to read or send a "
            "credential file",
            "  an order to read or send a credential file: ', read ~/.ssh/id_rsa'",
            "FAILED mcp:lint-targets::add::schema - [[]tool-poisoning[]]*",
        ]
    )
    log = json.loads((pytester.path / "run.sarif").read_text(encoding="utf-8"))
    [result] = log["runs"][0]["results"]
    rule = log["runs"][0]["tool"]["driver"]["rules"][result["ruleIndex"]]
    assert (result["ruleId"], rule["properties"]["security-severity"]) == ("tool_poisoning", "7.4")
    assert "external/cwe/cwe-1427" in rule["properties"]["tags"]

    warned = run_inprocess(SERVER, args=(*args, "--mcp-security=warn"))
    warned.assert_outcomes(passed=1, warnings=1)
    warned.stdout.fnmatch_lines(
        ["*tool-poisoning: the description orders the model against the user*security=warn)*"]
    )
