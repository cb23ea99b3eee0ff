"""Client profiles (--mcp-clients, docs/clients.md) on fixture servers built with the real SDKs:
each tool that breaks one client's rule fails its schema item naming that client, the rule,
the place and the fix; a tool that follows every rule passes; profiles not chosen are silent.

Only the schema items are selected (-k schema): the profiles are a static check of the
listing, and calling the tools would only make the runs slower."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import NO_SEQUENCES, RunMcp, RunPytest

SCHEMA_ONLY = ("-k", "schema", NO_SEQUENCES)


def test_each_python_sdk_tool_fails_for_the_client_whose_rule_it_breaks(
    run_inprocess: RunMcp,
) -> None:
    result = run_inprocess("client_rules.py", args=("--mcp-clients=all", *SCHEMA_ONLY))
    result.assert_outcomes(failed=3, passed=1, deselected=12)
    result.stdout.fnmatch_lines(
        [
            "[[]vscode/array-items[]] VS Code/Copilot refuses this tool: an array schema "
            "without items",
            "  at inputSchema $.properties.tags",
            "[[]openai-strict/open-object[]] OpenAI strict mode refuses this tool: an object "
            "without properties that is not closed with additionalProperties: false",
            "  at inputSchema $.properties.where",
            "[[]gemini/type-union[]] Gemini refuses this tool: a type given as a list (e.g. "
            "[[]\"object\", \"null\"[]]) (type [[]'object', 'null'[]])",
            "  at inputSchema $.properties.rows.items",
            "FAILED mcp:client-rules::tag_items::schema - [[]vscode/array-items[]] VS Code*",
            "FAILED mcp:client-rules::filters::schema - [[]openai-strict/open-object[]] *",
            "FAILED mcp:client-rules::nullable_rows::schema - [[]gemini/type-union[]] Gemini*",
        ]
    )
    out = result.stdout.str()
    # The other clients that refuse tag_items are named too, each with its fix.
    assert "[openai/array-items] OpenAI refuses this tool: an array schema without items" in out
    assert "[gemini/array-items] Gemini refuses this tool" in out
    assert 'fix: add items (e.g. "items": {"type": "string"}, or {} for anything)' in out
    assert "follows_rules" not in out  # it passed, and a passing item prints nothing here


def test_the_default_profiles_leave_opt_in_clients_silent(
    run_inprocess: RunMcp, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PYTEST_ADDOPTS")  # the suite's --mcp-clients=none: the real default here
    result = run_inprocess("client_rules.py", args=SCHEMA_ONLY)
    result.assert_outcomes(failed=1, passed=3, deselected=13)
    out = result.stdout.str()
    assert "FAILED mcp:client-rules::tag_items::schema - [vscode/array-items] VS" in out
    assert "openai-strict/" not in out and "gemini/" not in out


def test_a_typescript_sdk_draft07_output_schema_fails_for_claude(
    inprocess_pytest: RunPytest, ts_servers: Callable[[str], str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PYTEST_ADDOPTS")  # the default profiles, as a user runs them
    # pytest in this process, the TypeScript server a real node process.
    result = inprocess_pytest(f"--mcp-server={ts_servers('client_rules.mjs')}", *SCHEMA_ONLY)
    result.assert_outcomes(failed=1, passed=1, deselected=8)
    result.stdout.fnmatch_lines(
        [
            "[[]claude/output-dialect[]] Claude Desktop refuses this tool: an "
            "outputSchema that declares a $schema other than 2020-12 ($schema "
            "'http://json-schema.org/draft-07/schema#')",
            "  at outputSchema $",
            "FAILED mcp:ts-client-rules::locate::schema - [[]claude/output-dialect[]] Claude*",
        ]
    )
    out = result.stdout.str()
    # z.tuple's draft-07 tuple is refused on its own: dropping $schema alone does not fix it.
    assert (
        "[claude/output-tuple-items] Claude Desktop refuses this tool: an outputSchema "
        "with a draft-07 tuple (items given as a list)\n"
        "    at outputSchema $.properties.point"
    ) in out
    assert "fix: declare $schema https://json-schema.org/draft/2020-12/schema or drop it" in out


# The line the summary prints when the default profiles' rules fail a run, with its opt-out.
DEFAULT_REFUSALS = (
    "client rules failing (on by default): claude/output-dialect (2 tools), "
    "typescript-sdk/output-dialect (1 tool): Claude Desktop and the TypeScript SDK 2.x client "
    "refuse these tools; to leave them out: --mcp-clients=openai,vscode (docs/clients.md)"
)


def test_a_draft04_output_schema_fails_by_default_and_the_summary_says_how_to_opt_out(
    run_mcp_inprocess: RunMcp, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("PYTEST_ADDOPTS")  # the default profiles, as a user runs them
    step_summary = tmp_path / "step-summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(step_summary))
    result = run_mcp_inprocess("output_dialects.py", args=SCHEMA_ONLY)
    result.assert_outcomes(failed=2, passed=1, deselected=9)
    result.stdout.fnmatch_lines(
        [
            "*[[]typescript-sdk/output-dialect[]] the TypeScript SDK 2.x client refuses this "
            "tool: an outputSchema that declares draft-04 or a $schema it does not know "
            "($schema 'http://json-schema.org/draft-04/schema#')",
            "*  at outputSchema $",
            "*  verified on @modelcontextprotocol/client 2.0.0, 2.1.0, 2.2.0, 2.3.1 and 2.4.0 on "
            "Node 20 (2026-12-02)",
        ]
    )
    out = result.stdout.str()
    # draft-07 is Claude Desktop's refusal alone: the SDK 2.x client takes it.
    assert "FAILED mcp:output-dialects::draft07::schema - [claude/output-dialect] Claude" in out
    assert "typescript-sdk/output-dialect (1 tool)" in out
    assert out.count(DEFAULT_REFUSALS) == 1
    assert DEFAULT_REFUSALS in step_summary.read_text(encoding="utf-8")


def test_the_opt_out_the_summary_names_turns_those_rules_off(
    run_mcp_inprocess: RunMcp, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PYTEST_ADDOPTS")
    result = run_mcp_inprocess(
        "output_dialects.py", args=("--mcp-clients=openai,vscode", *SCHEMA_ONLY)
    )
    result.assert_outcomes(passed=3, deselected=9)
    assert "client rules failing" not in result.stdout.str()
