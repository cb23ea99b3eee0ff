"""reporting/findings: a schema check's findings as records, counted and digested per rule."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

from pytest_mcp_contracts.judges.failures import FailureKind, Finding
from pytest_mcp_contracts.options import DEFAULT_CLIENTS
from pytest_mcp_contracts.reporting.facts import RunFacts
from pytest_mcp_contracts.reporting.findings import (
    DIGEST_RULES,
    FINDINGS_KEY,
    FindingRecord,
    counts,
    digest,
    finding_record,
    refusals_line,
    render,
    warnings_to_raise,
)
from pytest_mcp_contracts.reporting.runreport import for_the_wire
from pytest_mcp_contracts.reporting.worker import ServerFacts, ToolFacts, WorkerFacts
from pytest_mcp_contracts.vocabulary import Level

PROFILE = Finding(
    "schema",
    "an array schema without items",
    Level.ERROR,
    ("Gemini refuses it",),
    kind=FailureKind.CLIENT_SCHEMA,
    rule="gemini/array-items",
    client="gemini",
    where="inputSchema $.properties.tags",
    fix="add `items`",
)
SPEC = Finding(
    "schema", "tool name 'a b' breaks the rules", Level.WARNING, kind=FailureKind.INVALID_LISTING
)


def record(rule: str, severity: str = "warning", client: str | None = None) -> dict[str, Any]:
    return {
        "rule": rule,
        "client": client,
        "severity": severity,
        "kind": "lint",
        "where": None,
        "message": f"{rule} is broken",
        "details": [],
        "fix": None,
    }


def _tool(name: str, *records: dict[str, Any]) -> SimpleNamespace:
    """A tool as the digest reads it: its label and its findings."""
    findings = [FindingRecord.from_json(found) for found in records]
    return SimpleNamespace(label=name, is_tool=True, findings=findings)


def test_a_finding_becomes_plain_json_with_every_field() -> None:
    data = finding_record(PROFILE)
    assert data == {
        "rule": "gemini/array-items",
        "client": "gemini",
        "severity": "error",
        "kind": "client_schema",
        "where": "inputSchema $.properties.tags",
        "message": "an array schema without items",
        "details": ["Gemini refuses it"],
        "fix": "add `items`",
    }
    assert type(data["kind"]) is str  # execnet refuses StrEnums
    assert for_the_wire(data) == data
    assert json.loads(json.dumps(finding_record(SPEC)))["rule"] is None


def test_render_says_what_where_whose_and_the_fix() -> None:
    assert render(finding_record(PROFILE)) == [
        "error gemini/array-items (gemini): an array schema without items",
        "  at inputSchema $.properties.tags",
        "  Gemini refuses it",
        "  fix: add `items`",
    ]
    assert render(finding_record(SPEC)) == [
        "warning invalid_listing: tool name 'a b' breaks the rules"
    ]


def test_counts_by_severity_client_and_rule() -> None:
    found = [
        FindingRecord.of(PROFILE),
        FindingRecord.of(SPEC),
        FindingRecord.from_json(record("x", client="openai")),
    ]
    assert counts(found).to_json() == {
        "errors": 1,
        "warnings": 2,
        "by_client": {"gemini": 1, "openai": 1},
        "by_rule": {"gemini/array-items": 1, "invalid_listing": 1, "x": 1},
    }


def test_the_digest_is_one_line_per_rule_errors_first_then_the_most_tools() -> None:
    tools = [_tool(f"t{i}", record("lint/no-description"), record("lint/hints")) for i in range(30)]
    tools[3].findings.append(
        FindingRecord.from_json(record("openai/properties", "error", "openai"))
    )
    assert digest(tools) == [
        "error openai/properties (openai): 1 tool (t3): openai/properties is broken",
        "warning lint/hints: 30 tools (t0, t1, t10, t11 and 26 more): lint/hints is broken",
        "warning lint/no-description: 30 tools (t0, t1, t10, t11 and 26 more): "
        "lint/no-description is broken",
    ]


def test_the_digest_is_bounded_in_rules() -> None:
    tools = [_tool("t", *(record(f"r{i:02}") for i in range(DIGEST_RULES + 5)))]
    lines = digest(tools)
    assert len(lines) == DIGEST_RULES + 1
    assert lines[-1] == "… and 5 more rules (5 findings)"


def test_run_facts_fold_a_reports_findings_into_its_tool() -> None:
    run = RunFacts()
    report = SimpleNamespace(
        nodeid="mcp:shop::quote::schema",
        duration=0.1,
        when="call",
        outcome="failed",
        passed=False,
        failed=True,
        longrepr="an array schema without items",
    )
    report.__dict__[FINDINGS_KEY] = [finding_record(PROFILE)]
    run.pytest_runtest_logreport(report)
    server = ServerFacts(
        "python -m shop",
        "stdio",
        "shop",
        True,
        name="shop",
        version="1",
        protocol="2026-07-28",
        tools=[ToolFacts("quote", "quote"), ToolFacts("get", "get")],
    )
    run.add_worker("serial", WorkerFacts([server]))
    tools = run.fold().servers[0].tools
    assert [[f.to_json() for f in tool.findings] for tool in tools] == [
        [finding_record(PROFILE)],
        [],
    ]


def test_a_rules_warning_is_raised_once_per_server_a_findings_without_rule_each() -> None:
    lint = Finding("schema", "no description", Level.WARNING, kind=FailureKind.LINT, rule="lint/d")
    warned: set[tuple[str, str]] = set()
    assert warnings_to_raise([lint, SPEC, PROFILE], "shop", warned) == [
        "lint/d: no description (the server's other tools that break this rule are listed in "
        "the MCP contracts summary)",
        "tool name 'a b' breaks the rules",
    ]
    other = Finding(
        "schema", "tool name 'c d' breaks the rules", Level.WARNING, kind=FailureKind.LINT
    )
    assert warnings_to_raise([lint, other], "shop", warned) == [other.message]
    assert warnings_to_raise([lint], "other-server", warned) == [
        "lint/d: no description (the server's other tools that break this rule are listed in "
        "the MCP contracts summary)"
    ]


def test_one_line_names_the_client_rules_that_failed_and_the_opt_out() -> None:
    dialect = record("claude/output-dialect", "error", "claude")
    tools = [
        _tool("a", dialect, record("typescript-sdk/output-dialect", "error", "typescript-sdk")),
        _tool("b", dialect, record("lint/hints")),
        _tool("c", record("gemini/ref", "warning", "gemini")),  # a warning fails nothing
    ]
    assert refusals_line(tools, DEFAULT_CLIENTS) == (
        "client rules failing (on by default): claude/output-dialect (2 tools), "
        "typescript-sdk/output-dialect (1 tool): Claude Desktop and the TypeScript SDK 2.x "
        "client refuse these tools; to leave them out: --mcp-clients=openai,vscode "
        "(docs/clients.md)"
    )


def test_the_opt_out_keeps_the_chosen_profiles_and_drops_what_brings_a_failing_one_back() -> None:
    tools = [_tool("a", record("openai/array-items", "error", "openai"))]
    # openai-strict implies openai: leaving it in would keep the failure.
    line = refusals_line(tools, ("openai-strict", "gemini"))
    assert line is not None and line.startswith("client rules failing (chosen): ")
    assert line.endswith("to leave them out: --mcp-clients=gemini (docs/clients.md)")
    assert refusals_line(tools, ("openai",)) is not None
    assert "--mcp-clients=none " in str(refusals_line(tools, ("openai",)))


def test_no_line_without_a_failing_client_rule() -> None:
    spec = record("mcp/dialect", "error", "mcp")  # the spec's: no client to leave out
    tools = [_tool("a", spec, record("lint/hints"), record("gemini/ref", "warning", "gemini"))]
    assert refusals_line(tools, DEFAULT_CLIENTS) is None
