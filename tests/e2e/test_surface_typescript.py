"""Resources, templates and prompts of TypeScript-SDK servers (1.32.2 `McpServer`): a correct
one passes everything, recorded and then in CI on several seeds and under -n 2; a buggy one
fails exactly its five bugs' items, each with its evidence and smallest arguments, and after
its second version its two drifts. What the SDK sends for each bug (checked on the wire) is
in tests/servers/ts_legacy/surface_buggy.mjs."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from ..conftest import NO_SEQUENCES, RunPytest

BUGGY = "FAILED mcp:ts-surface-buggy::"


def failed(result: pytest.RunResult) -> set[str]:
    return {
        line.removeprefix(BUGGY).split(" - ")[0]
        for line in result.stdout.lines
        if line.startswith(BUGGY)
    }


def test_the_correct_typescript_server_passes_recorded_then_in_ci_on_seeds_and_under_n2(
    inprocess_pytest: RunPytest,
    pytester: pytest.Pytester,
    ts_servers: Callable[[str], str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Its not-found refusals (-32002, the SDK's -32602), a template whose values come from
    completion/complete, a real PNG blob, an embedded resource: nothing fails."""
    server = f"--mcp-server={ts_servers('surface_correct.mjs')}"
    record = inprocess_pytest(server, NO_SEQUENCES)
    record.assert_outcomes(passed=34)
    monkeypatch.setenv("CI", "true")
    for seed in ("1", "2"):
        again = inprocess_pytest(server, NO_SEQUENCES, f"--hypothesis-seed={seed}")
        again.assert_outcomes(passed=34)
    parallel = pytester.runpytest_subprocess(server, NO_SEQUENCES, "-n", "2", "-p", "randomly")
    parallel.assert_outcomes(passed=34)


def test_each_typescript_bug_fails_exactly_its_item_and_the_second_version_its_drifts(
    inprocess_pytest: RunPytest,
    ts_servers: Callable[[str], str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    server = f"--mcp-server={ts_servers('surface_buggy.mjs')}"
    # The whole surface, recorded (the surfaces, the stats resource's JSON) as it is tested:
    # of its 34 items, the five with a bug fail, and only those.
    first = inprocess_pytest(server, NO_SEQUENCES)
    bugs = {
        "resource:file_app_logo.png::read",
        "resource:file_app_settings.json::read",
        "template:notes_name::read",
        "prompt:translate::get",
        "prompt:attach_logo::get",
    }
    assert failed(first) == bugs
    text = first.stdout.str()
    for shrunk in ('{"name": "archived"}', '{"text": ""}'):
        assert f"smallest arguments found:\n    {shrunk}" in text, shrunk
    # Each failure's first line: the rule or the evidence.
    assert text.count("[mcp/blob-base64] the base64 data has '<' at offset 0") == 2  # logo, attach
    assert "[mcp/mime-mismatch]" in text
    assert "JSON-RPC error -32603 (Cannot read properties of undefined (reading 'trim'))" in text
    first.assert_outcomes(failed=5, passed=29)
    # The second version.
    monkeypatch.setenv("SURFACE_VERSION", "2")
    second = inprocess_pytest(server, NO_SEQUENCES, "-k", "read or get or drift")
    assert failed(second) == bugs | {
        "prompt:summarize::drift",
        "resource:file_app_stats.json::read",
    }
    text = second.stdout.str()
    assert "the prompt's surface drifted (breaking): arguments.text: removed" in text
    assert "the content drifted from the recorded contract: $." in text
