"""The plugin as a full client: tools that sample, elicit, read roots and report progress
mid-call (tests/servers/client_features.py, the Python SDK) pass over every transport in
both protocol eras; what the server asked shows in a failure report; progress restarts the
call timeout only up to --mcp-max-call-time. The TypeScript SDK's side:
tests/e2e/test_server_everything.py.
"""

from __future__ import annotations

import json
import re

import pytest

from tests.conftest import NO_SEQUENCES, RunMcp
from tests.e2e.test_transports import Reach, reach  # noqa: F401 (the fixture)

TOOLS = ("summarize", "greet", "workspace", "count_steps")


@pytest.mark.parametrize(
    ("fixture", "protocol"),
    [("client_features.py", "2026-07-28"), ("client_features_legacy.py", "2025-11-25")],
)
def test_tools_that_ask_the_client_pass(
    reach: Reach,  # noqa: F811
    fixture: str,
    protocol: str,
) -> None:
    # 2026-07-28: the answers travel as input_required rounds; handshake era: as replies to
    # the server's requests during the call (over HTTP, on the call's SSE stream).
    # count_steps takes up to 1.6 s with a 1 s call timeout: it passes because each of its
    # progress notifications restarts the timeout.
    # count_steps sleeps 0.4 s a step, so it gets one call, a 3-step one (1.2 s: past the
    # timeout, which only its progress keeps from firing), and no invalid inputs (a
    # look-alike "3" the SDK coerces would sleep as long).
    reach.pytester.makepyprojecttoml(
        """
        [tool.mcp-contracts.tools.count_steps]
        max_examples = 1
        examples = [{steps = 3}]
        rejects_invalid = "off"
        """
    )
    result = reach.run(fixture, "--mcp-call-timeout=1", "-v", "--mcp-report=run.json", examples=8)
    for tool in TOOLS:
        for check in ("schema", "drift", "contract"):
            assert f"mcp:client-features::{tool}::{check} PASSED" in result.stdout.str()
    outcomes = result.parseoutcomes()
    assert "failed" not in outcomes and "error" not in outcomes, result.stdout.str()
    assert f"client-features (protocol {protocol}): 4 tools" in result.stdout.str()
    # What each tool asked of the client is counted in the run report.
    report = json.loads((reach.pytester.path / "run.json").read_text())
    asked = {t["name"]: t["client_requests"] for t in report["servers"][0]["tools"]}
    assert asked["summarize"].get("sampling/createMessage", 0) > 0, asked
    assert asked["greet"].get("elicitation/create", 0) > 0, asked
    assert asked["workspace"].get("roots/list", 0) > 0, asked
    assert asked["count_steps"].get("progress", 0) > 0, asked


def _section(output: str, tool: str) -> str:
    match = re.search(rf"_+ \S+ {tool} \[contract\] _+\n(.*?)(?=\n_{{5,}} |\n=+ )", output, re.S)
    assert match is not None, output
    return match.group(1)


def test_a_call_still_reporting_progress_at_the_maximum_is_warned_about_not_failed(
    run_mcp_inprocess: RunMcp,
) -> None:
    """A tool that keeps sending progress until --mcp-max-call-time ends the call is doing
    what its input asked (server-everything's trigger-long-running-operation sleeps as long
    as asked, and nothing bounds `duration`): a warning that says how to bound it, never a
    failure. A tool that goes silent still fails (the tests of --mcp-call-timeout)."""
    result = run_mcp_inprocess(
        "client_features.py",
        args=(
            NO_SEQUENCES,
            "--mcp-call-timeout=1",
            "--mcp-max-call-time=1.1",
            "--mcp-max-examples=8",
            "--hypothesis-seed=1",
            "-k",
            "count_steps and contract",
        ),
    )
    result.assert_outcomes(passed=1, warnings=1)
    out = " ".join(result.stdout.str().split())
    assert re.search(
        r"[1-9] of \d+ calls were still working when --mcp-max-call-time ran out, sending "
        r"progress all along \(no answer to tools/call within the maximum of 1.1 s "
        r"\(--mcp-max-call-time\), though it sent [1-9]\d* progress notification\(s\)",
        out,
    ), out
    assert "bound them in the inputSchema (a maximum); else raise --mcp-max-call-time" in out
    # Steps 3 and 4 take 1.2 and 1.6 s, with progress every 0.4 s: after two such calls the
    # tool's run ends, so that an input asking for hours does not make the run last hours.
    assert "2 of " in out and "Its calls stopped after 2 such calls" in out, out


def test_what_the_server_asked_is_in_the_failure_report(
    pytester: pytest.Pytester, run_mcp_inprocess: RunMcp
) -> None:
    # The hook answers summarize's sampling request with no text, on which the tool
    # crashes: the report shows the exchange that led there.
    pytester.makeconftest(
        """
        def pytest_mcp_sampling_reply(server, tool, params):
            return "" if tool == "summarize" else None
        """
    )
    result = run_mcp_inprocess(
        "client_features.py", args=(NO_SEQUENCES, "--mcp-max-examples=3", "-k", "summarize")
    )
    section = _section(result.stdout.str(), "summarize")
    assert "what the server asked of the client during this call:" in section
    assert re.search(
        r"sampling/createMessage \('Summarize .*in one line\.'\): answered ''", section
    )
    # 2026-07-28: the answer went back in the call itself, sent again.
    assert "sent again with inputResponses 1 time(s) (2026-07-28 input_required)" in section
    outcomes = result.parseoutcomes()
    assert outcomes.get("failed") == 1, result.stdout.str()


def test_a_call_that_needs_the_user_at_a_url_passes_only_where_the_protocol_has_it(
    run_mcp_inprocess: RunMcp, pytester: pytest.Pytester
) -> None:
    # -32042 "URL elicitation required" is protocol 2025-11-25's answer for a call that
    # cannot go on until the user opens a URL: a tester has no user, so the call has no
    # result to check, and that is no failure. Without data.elicitations it is no such
    # answer; on 2026-07-28, which retired the code, it is never right.
    legacy = run_mcp_inprocess(
        "url_required_legacy.py", args=(NO_SEQUENCES, "-v", "--mcp-report=run.json")
    )
    out = legacy.stdout.str()
    assert "mcp:url-required::open_drive::contract PASSED" in out, out
    assert "mcp:url-required::open_drive::rejects_invalid PASSED" in out, out
    mail = _section(out, "open_mail")
    assert "JSON-RPC error -32042 (URL elicitation required) that the protocol does not" in mail
    assert "its data has no elicitations list" in mail, mail
    assert legacy.parseoutcomes().get("failed") == 1, out
    report = json.loads((pytester.path / "run.json").read_text())
    asked = {t["name"]: t["client_requests"] for t in report["servers"][0]["tools"]}
    assert asked["open_drive"].get("url elicitation required (-32042)", 0) > 0, asked

    modern = run_mcp_inprocess(
        "url_required.py", args=(NO_SEQUENCES, "-k", "open_drive and contract")
    )
    drive = _section(modern.stdout.str(), "open_drive")
    assert "protocol 2026-07-28 retired it" in drive, drive
    assert "-32042 URL elicitation required: https://drive.example.com/connect" in drive
