"""Prompts, resources and resource templates under the schema check: their items, the
mcp/ rules their listing entries break (checks/surface_listing), and a correct server's
entries passing. The -n 2 parity of their items and outcomes is in test_xdist.py."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from ..conftest import NO_SEQUENCES, RunMcp, server_command

CORRECT = [
    "mcp:library::prompt:review_code::schema PASSED*",
    "mcp:library::prompt:greeting::schema PASSED*",
    "mcp:library::resource:file_docs_readme.md-*::schema PASSED*",
    "mcp:library::resource:config_app_settings-*::schema PASSED*",
    "mcp:library::template:users_user_id_profile-*::schema PASSED*",
]


def test_each_entry_has_a_schema_item_that_fails_on_exactly_its_rule(
    run_inprocess: RunMcp, pytester: pytest.Pytester, ts_servers: Callable[[str], str]
) -> None:
    """The Python and TypeScript SDK servers' entries pass; each buggy entry of the raw
    server fails its own item, naming its rule, and a correct entry beside them passes."""
    buggy = f"--mcp-server={server_command('listing_bugs.py')}"
    typescript = f"--mcp-server={ts_servers('prompts_resources.mjs')}"
    result = run_inprocess(
        "prompts_resources.py",
        args=(NO_SEQUENCES, buggy, typescript, "-k", "schema", "-v", "--mcp-report=report.json"),
    )
    result.stdout.fnmatch_lines_random(
        [
            *CORRECT,
            "mcp:listing-bugs::ok::schema PASSED*",
            "mcp:ts-library::prompt:review_code::schema PASSED*",
            "mcp:ts-library::resource:file_docs_readme.md-*::schema PASSED*",
            "mcp:ts-library::template:users_userId_profile-*::schema PASSED*",
            "mcp:listing-bugs::prompt:summarize::schema FAILED*",
            "mcp:listing-bugs::prompt:dup::schema FAILED*",
            "mcp:listing-bugs::resource:docs_relative.md-*::schema FAILED*",
            "mcp:listing-bugs::resource:file_docs_notes.md-*::schema PASSED*",
            "mcp:listing-bugs::resource:file_docs_ok.md-*::schema PASSED*",
            "mcp:listing-bugs::template:file_path-*::schema FAILED*",
            # Each failure leads with its rule (the short summary cuts its lines short).
            "[[]mcp/required-member] the argument has no 'name', which the spec requires",
            "[[]mcp/duplicate] name 'dup' is listed 2 times in prompts/list*",
            "[[]mcp/resource-uri] the resource URI 'docs/relative.md' is relative*",
            "[[]mcp/uri-template] the URI template 'file://{path' is not a valid RFC 6570*",
            # The summary counts each server's entries and lists their rules.
            "library (protocol *): 1 tools, 2 prompts, 2 resources, 1 templates, *",
            "listing-bugs (protocol *): 1 tools, 2 prompts, 3 resources, 1 templates, *",
            "*warning mcp/mime-type (mcp): 1 entry (resource file:///docs/notes.md)*",
        ]
    )
    result.stdout.fnmatch_lines(["*template: file://{path    check: schema*"])
    # Deselected: the 3 tools' other items, and the 14 entries' drift items.
    result.assert_outcomes(failed=4, passed=13, deselected=23, warnings=1)
    report = json.loads((pytester.path / "report.json").read_text(encoding="utf-8"))
    bugs = {s["name"]: s for s in report["servers"]}["listing-bugs"]
    assert (bugs["prompts_listed"], bugs["resources_listed"], bugs["templates_listed"]) == (2, 3, 1)
    outcomes = {e["name"]: e["checks"]["schema"]["outcome"] for e in bugs["listed"]}
    assert outcomes == {
        "summarize": "failed",
        "dup": "failed",
        "docs/relative.md": "failed",
        "file:///docs/notes.md": "passed",
        "file:///docs/ok.md": "passed",
        "file://{path": "failed",
    }
    # A removed tool is a tool the server no longer lists: no entry is taken for one.
    assert [t["node_name"] for t in bugs["tools"]] == ["ok"]


def inprocess_schema_run(run_inprocess: RunMcp, *servers: str) -> pytest.RunResult:
    """The schema items of ``servers`` (--mcp-server arguments), pytest in this process."""
    return run_inprocess(args=(NO_SEQUENCES, *servers, "-k", "schema", "-v"))


def test_k_selects_prompts_as_it_selects_tools(run_inprocess: RunMcp) -> None:
    result = run_inprocess(
        "prompts_resources.py", args=(NO_SEQUENCES, "-k", "prompt and schema", "-v")
    )
    result.stdout.fnmatch_lines_random(CORRECT[:2])
    # Not echo, not the resources, not the prompts' drift items.
    result.assert_outcomes(passed=2, deselected=12)


def test_a_declared_listing_that_fails_is_its_own_failure_and_hides_no_tool(
    run_inprocess: RunMcp, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MCP_FIXTURE_VARIANT", "broken-prompts")
    buggy = f"--mcp-server={server_command('listing_bugs.py')}"
    result = inprocess_schema_run(run_inprocess, buggy)
    result.stdout.fnmatch_lines_random(
        [
            "mcp:listing-bugs::ok::schema PASSED*",
            "mcp:listing-bugs::listing:prompts::schema FAILED*",
            "[[]mcp/listing] prompts/list failed: JSON-RPC error -32603: Internal error: the "
            "prompt store is offline",
        ]
    )
    result.assert_outcomes(failed=3, passed=3, deselected=7, warnings=1)  # 4 of them drift items
