"""The call policy: destructive tools are not called by default; the static checks still run."""

from __future__ import annotations

import pytest

from ..conftest import RunMcp


@pytest.fixture
def call_log(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch):
    log = pytester.path / "calls.log"
    monkeypatch.setenv("MCP_FIXTURE_CALL_LOG", str(log))
    return lambda: set(log.read_text().split()) if log.exists() else set()


def test_default_run_never_calls_a_destructive_tool(run_mcp: RunMcp, call_log) -> None:
    result = run_mcp("annotated.py", args=("--mcp-max-examples=5", "-rs"))
    result.assert_outcomes(passed=11, skipped=1)
    assert call_log() == {"read", "bare", "touch"}
    result.stdout.fnmatch_lines(
        [
            "SKIPPED * mcp:annotated::wipe::contract: not called: the tool declares "
            "destructiveHint: true*--mcp-call=all*"
        ]
    )


@pytest.mark.parametrize(
    ("policy", "called"),
    [
        ("readonly", {"read"}),
        ("nondestructive", {"read", "bare", "touch"}),
        ("all", {"wipe", "read", "bare", "touch"}),
    ],
)
def test_call_policy(run_mcp: RunMcp, call_log, policy: str, called: set[str]) -> None:
    result = run_mcp("annotated.py", args=(f"--mcp-call={policy}", "--mcp-max-examples=5"))
    assert result.ret == 0
    assert call_log() == called


def test_bad_policy_is_a_usage_error(run_mcp: RunMcp) -> None:
    result = run_mcp("annotated.py", args=("--mcp-call=some",))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*--mcp-call (ini mcp_call) must be one of readonly, nondestructive, all, got 'some'*"]
    )
