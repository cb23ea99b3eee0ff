"""Client profiles (--mcp-clients, docs/clients.md) on fixture servers built with the real SDKs:
each tool that breaks one client's rule fails its schema item naming that client, the rule,
the place and the fix; a tool that follows every rule passes; profiles not chosen are silent.

Only the schema items are selected (-k schema): the profiles are a static check of the
listing, and calling the tools would only make the runs slower."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.conftest import NO_SEQUENCES, PROTOCOL_OFF, RunMcp, RunPytest

SCHEMA_ONLY = ("-k", "schema", NO_SEQUENCES, PROTOCOL_OFF)


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
            "[[]claude/output-dialect[]] Claude (Desktop/Code) refuses this tool: an "
            "outputSchema that declares a $schema other than 2020-12 ($schema "
            "'http://json-schema.org/draft-07/schema#')",
            "  at outputSchema $",
            "FAILED mcp:ts-client-rules::locate::schema - [[]claude/output-dialect[]] Claude*",
        ]
    )
    out = result.stdout.str()
    # z.tuple's draft-07 tuple is refused on its own: dropping $schema alone does not fix it.
    assert (
        "[claude/output-tuple-items] Claude (Desktop/Code) refuses this tool: an outputSchema "
        "with a draft-07 tuple (items given as a list)\n"
        "    at outputSchema $.properties.point"
    ) in out
    assert "fix: declare $schema https://json-schema.org/draft/2020-12/schema or drop it" in out
