"""The schema check's findings reach the run report, the terminal summary and the CI step
summary, the same under -n 2 as serially; a rule's warning is raised once per server.

The findings on main today (the spec's listing rules and tool names, tests/servers/
bad_schemas.py) and, through the conftest below, one ruled warning on every tool: the
channel carries whatever check_listing returns, so the client profiles and lints other
parts add ride on it unchanged.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from .. import warm_servers
from ..conftest import server_command, summary_section

# Every tool gets one more finding, as a client profile would give it: a rule, a client,
# a where, a fix (lints warn on their own, once per lint per server).
CONFTEST = """
from pytest_mcp_contracts.judges import content_listing
from pytest_mcp_contracts.judges.failures import FailureKind, Finding
from pytest_mcp_contracts.vocabulary import Level

# The schema item's entry_findings asks check_listing for a tool: replaced where it looks.
_check_listing = content_listing.check_listing


def _with_a_lint(tool, **kwargs):
    return [
        *_check_listing(tool, **kwargs),
        Finding(
            "schema",
            "the tool has no description",
            Level.WARNING,
            kind=FailureKind.CLIENT_SCHEMA,
            rule="test/description",
            client="test",
            where="description",
            fix="describe what the tool does",
        ),
    ]


content_listing.check_listing = _with_a_lint
"""


# "-k schema" would select every item: the server is named bad-schemas.
ONLY_SCHEMA = "not drift and not contract and not rejects_invalid"


def test_findings_are_reported_per_tool_and_summed_up_by_rule_serial_and_parallel(
    pytester: pytest.Pytester,
) -> None:
    base = [*warm_servers.pytest_command(), "-p", "no:randomly", "-p", "no:cacheprovider"]
    argv = [*base, f"--mcp-server={server_command('bad_schemas.py')}", "-k", ONLY_SCHEMA]
    argv += ["--mcp-sequences=off", "--mcp-report=report.json", "-W", "default"]
    runs = {}
    for name, extra in (("serial", ()), ("parallel", ("-n", "2"))):
        cwd = pytester.path / name
        cwd.mkdir()
        (cwd / "conftest.py").write_text(CONFTEST, encoding="utf-8")
        env = {**os.environ, "GITHUB_STEP_SUMMARY": str(cwd / "summary.md")}
        runs[name] = subprocess.run(
            [*argv, *extra], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
        )
    serial, parallel = runs["serial"], runs["parallel"]
    assert serial.returncode == parallel.returncode == 1, serial.stdout
    documents = {
        name: json.loads((pytester.path / name / "report.json").read_text(encoding="utf-8"))
        for name in runs
    }
    [server] = documents["serial"]["servers"]
    tools = {tool["name"]: tool["findings"] for tool in server["tools"]}
    # Errors and warnings alike, each with every field, in the order the check found them.
    assert [f["kind"] for f in tools["string_root"]] == ["invalid_listing", "client_schema"]
    assert tools["string_root"][0]["severity"] == "error"
    assert tools["string_root"][0]["message"].startswith("inputSchema root must be an object")
    assert tools["bad name!"][0] == {
        "rule": "mcp/tool-name",
        "client": "mcp",
        "severity": "warning",
        "kind": "invalid_listing",
        "where": "name",
        "message": "tool name 'bad name!' does not follow the spec's naming rules: Tool name "
        "contains spaces, which may cause parsing issues; Tool name contains invalid "
        "characters: ' ', '!'; Allowed characters are: A-Z, a-z, 0-9, underscore (_), dash "
        "(-), and dot (.)",
        "details": [],
        "fix": None,
    }
    assert tools["draft07_ok"] == [
        {
            "rule": "test/description",
            "client": "test",
            "severity": "warning",
            "kind": "client_schema",
            "where": "description",
            "message": "the tool has no description",
            "details": [],
            "fix": "describe what the tool does",
        }
    ]
    assert server["findings"] == {
        "errors": 4,
        "warnings": 8,
        "by_client": {"mcp": 5, "test": 7},
        "by_rule": {
            "mcp/dialect": 1,
            "mcp/root-object": 2,
            "mcp/tool-name": 1,
            "mcp/valid-schema": 1,
            "test/description": 7,
        },
    }
    for document in documents.values():
        for tool in document["servers"][0]["tools"]:
            for check in tool["checks"].values():
                check.pop("duration", None)
    assert documents["parallel"] == documents["serial"]
    # The terminal: one line per rule; the lint warned once for the server, not per tool.
    summary = summary_section(serial.stdout)
    assert (
        "  listing findings: 4 error(s), 8 warning(s), by rule (each one in full: the schema "
        "check, the run report, mcp-contracts inspect):" in summary
    )
    assert (
        "    warning test/description (test): 7 tools (array_output, bad name!, bad_output, "
        "draft07_ok and 3 more): the tool has no description; fix: describe what the tool does"
    ) in summary
    assert summary_section(parallel.stdout) == summary
    assert serial.stdout.count("test/description: the tool has no description (the") == 1
    # -n 2: each worker process warns once at most.
    assert 1 <= parallel.stdout.count("test/description: the tool has no description (the") <= 2
    steps = {
        name: (pytester.path / name / "summary.md").read_text(encoding="utf-8") for name in runs
    }
    assert steps["serial"] == steps["parallel"]
    assert "**Listing findings** of bad-schemas: 4 error(s), 8 warning(s)" in steps["serial"]
    assert (
        "- warning test/description (test): 7 tools (array_output, bad name!, bad_output, "
        "draft07_ok and 3 more): the tool has no description; fix: describe what the tool does"
    ) in steps["serial"]


def test_inspect_shows_a_live_servers_findings() -> None:
    script = Path(sys.executable).parent / "mcp-contracts"
    command = [str(script)] if script.exists() else [sys.executable, "-m", "pytest_mcp_contracts"]
    done = subprocess.run(
        [*command, "inspect", "--server", server_command("bad_schemas.py"), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    listed = json.loads(done.stdout)["tools"]
    tools = {tool["name"]: tool["findings"] for tool in listed}
    assert {tool["findingsProtocol"] for tool in listed} == {None}  # the server said its own
    # The default client profiles and lints, as the schema check applies them by default.
    rules = {name: [(f["rule"], f["severity"]) for f in found] for name, found in tools.items()}
    assert rules["draft07_ok"][0] == ("claude/output-dialect", "error")
    assert rules["bad name!"][:2] == [
        ("mcp/tool-name", "warning"),
        ("openai/root-properties", "error"),
    ]
    assert {rule for found in rules.values() for rule, _ in found} >= {"no-description"}
    # Judged by the server's own protocol (2025-11-25): an array outputSchema root is refused.
    assert tools["array_output"][0]["message"].startswith("outputSchema root must be an object")
