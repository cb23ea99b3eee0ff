"""Reports for CI: the JSON run report (serial and under xdist) and GitHub's job summary."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from ..conftest import NO_SEQUENCES, RunMcp
from ..sarif import sarif_errors

SCHEMA = json.loads(
    (Path(__file__).parents[2] / "docs" / "run-report.schema.json").read_text(encoding="utf-8")
)
FAILING = "mcp:broken-output::price_quote::contract"
PROBLEM = "structuredContent does not match the outputSchema (2020-12)"


def _load(path: Path) -> dict[str, Any]:
    text = path.read_text(encoding="utf-8")
    assert text.endswith("\n")
    document: dict[str, Any] = json.loads(text)
    assert list(Draft202012Validator(SCHEMA).iter_errors(document)) == []
    return document


def _check_broken_output(document: dict[str, Any]) -> None:
    assert document["format"] == "pytest-mcp-contracts/run-report"
    assert document["version"] == 1
    assert document["partial"] is False
    server = document["servers"][0]
    assert server["name"] == "broken-output" and server["started"] is True
    assert server["tools_listed"] == 2
    assert server["checks"] == {"passed": 7, "failed": 1, "skipped": 0, "not_run": 0}
    assert server["coverage"] == {
        "output_schema": 1.0,
        "contract": 1.0,
        "declared": 2,
        "validated": 0,
        "inferred": 0,
        "unknown": 0,
    }
    tools = {tool["name"]: tool for tool in server["tools"]}
    contract = tools["price_quote"]["checks"]["contract"]
    assert contract["outcome"] == "failed" and contract["message"] == PROBLEM
    assert tools["healthy"]["checks"]["contract"]["outcome"] == "passed"
    assert "message" not in tools["healthy"]["checks"]["contract"]
    assert tools["healthy"]["calls"] > 0
    assert tools["price_quote"]["calls"] > 0
    assert server["calls"] == sum(tool["calls"] for tool in tools.values())
    assert server["startup_stdout"] == {"lines": 0, "sample": []}
    assert tools["price_quote"]["output"]["source"] == "declared"
    assert document["snapshots"]["written"] == [
        "mcp-contracts/broken-output/healthy.json",
        "mcp-contracts/broken-output/price_quote.json",
    ]


@pytest.fixture(params=["serial", "xdist"])
def plugin_args(request: pytest.FixtureRequest) -> tuple[str, ...]:
    """Each report test runs serially and under -n 2: the two must report the same (syrupy's
    ``plugin_args`` fixture does this for its integration tests)."""
    if request.param == "xdist":
        pytest.importorskip("xdist")
        return ("-n", "2")
    return ()


def _runner(plugin_args: tuple[str, ...], run_mcp: RunMcp, run_mcp_inprocess: RunMcp) -> RunMcp:
    """A serial run in this process; -n 2 in a new one (its controller starts the workers)."""
    return run_mcp if plugin_args else run_mcp_inprocess


def test_report_of_a_failing_run(
    run_mcp: RunMcp,
    run_mcp_inprocess: RunMcp,
    pytester: pytest.Pytester,
    plugin_args: tuple[str, ...],
) -> None:
    result = _runner(plugin_args, run_mcp, run_mcp_inprocess)(
        "broken_output.py",
        args=(
            NO_SEQUENCES,
            "--mcp-max-examples=100",
            "--mcp-report=report.json",
            "--mcp-sarif=out/run.sarif",
            *plugin_args,
        ),
    )
    result.assert_outcomes(passed=7, failed=1)
    document = _load(pytester.path / "report.json")
    assert document["pytest_exit_status"] == 1
    _check_broken_output(document)
    # The SARIF file says the same, serially and under -n 2: its one failed check, at the
    # contract the run recorded for the tool.
    log = json.loads((pytester.path / "out" / "run.sarif").read_text(encoding="utf-8"))
    assert sarif_errors(log) == []
    (result_,) = log["runs"][0]["results"]
    assert result_["ruleId"] == "output_schema"
    assert result_["message"]["text"] == f"{FAILING}: {PROBLEM}"
    location = result_["locations"][0]["physicalLocation"]["artifactLocation"]
    assert location == {
        "uri": "mcp-contracts/broken-output/price_quote.json",
        "uriBaseId": "%SRCROOT%",
    }


def test_a_banner_on_stdout_before_the_handshake_is_reported(
    run_mcp: RunMcp,
    run_mcp_inprocess: RunMcp,
    pytester: pytest.Pytester,
    plugin_args: tuple[str, ...],
) -> None:
    result = _runner(plugin_args, run_mcp, run_mcp_inprocess)(
        "banner.py", args=(NO_SEQUENCES, "--mcp-report=report.json", *plugin_args)
    )
    result.assert_outcomes(passed=4, failed=1)  # no call is blamed: mcp:banner::stdout fails
    result.stdout.fnmatch_lines(
        [
            "  2 line(s) on stdout before the first call were not JSON-RPC (stdout is for protocol "
            "messages only; log to stderr), e.g. 'Starting banner-server v1.0 on stdio'"
        ]
    )
    (server,) = _load(pytester.path / "report.json")["servers"]
    assert server["startup_stdout"] == {
        "lines": 2,
        "sample": ["Starting banner-server v1.0 on stdio", "Ready."],
    }
    assert server["stdout"]["failure"] == {"kind": "stdout_noise", "severity": "high"}


def test_report_of_a_server_that_did_not_start(
    run_mcp_inprocess: RunMcp, pytester: pytest.Pytester
) -> None:
    ini = pytester.makeini(
        "[pytest]\nmcp_report = reports/run.json\nmcp_sarif = reports/run.sarif\n"
    )
    result = run_mcp_inprocess("startup_crash.py", args=(NO_SEQUENCES,))
    assert result.ret == pytest.ExitCode.INTERRUPTED
    document = _load(pytester.path / "reports" / "run.json")
    assert document["pytest_exit_status"] == 2
    (server,) = document["servers"]
    assert server["started"] is False
    assert server["command"].endswith("startup_crash.py")
    assert server["error"].startswith("MCP server did not start: ")
    assert "ImportError: cannot import name 'FastMCP'" in server["error"]
    # The SARIF file, named in the ini file, places the server's failure there.
    log = json.loads((pytester.path / "reports" / "run.sarif").read_text(encoding="utf-8"))
    assert sarif_errors(log) == []
    (found,) = log["runs"][0]["results"]
    assert found["ruleId"] == "server_unavailable"
    assert found["message"]["text"].startswith("mcp:startup_crash.py: MCP server did not start: ")
    physical = found["locations"][0]["physicalLocation"]
    assert physical["artifactLocation"]["uri"] == ini.name


def test_xdist_report_and_github_step_summary(
    run_mcp: RunMcp, pytester: pytest.Pytester, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under xdist the servers run in the workers: the controller's report is built from the
    test reports and what every worker sent, and is the same as a serial run's."""
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n", encoding="utf-8")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    result = run_mcp(
        "broken_output.py",
        "startup_crash.py",
        args=(NO_SEQUENCES, "--mcp-max-examples=100", "--mcp-report=out/report.json", "-n", "2"),
    )
    outcomes = result.parseoutcomes()
    assert (outcomes["passed"], outcomes["failed"]) == (7, 1)
    # Each worker collects, so each may report the start failure: xdist shows one or both.
    assert outcomes["errors"] in (1, 2)
    document = _load(pytester.path / "out" / "report.json")
    assert document["pytest_exit_status"] == result.ret
    _check_broken_output(document)
    assert document["servers"][1]["started"] is False

    text = summary.read_text(encoding="utf-8")
    assert text.startswith("earlier step\n### MCP contracts\n")
    lines = text.splitlines()
    assert "| broken-output | 2 | 0 / 0 / 0 | 0 | 7 | 1 | 100% | 100% | 0 |" in lines
    assert "| startup_crash.py | did not start | | | | | | | |" in lines
    assert f"- `{FAILING}`: {PROBLEM}" in lines
    assert any(
        line.startswith("- `mcp:startup_crash.py`: MCP server did not start") for line in lines
    )


def test_unwritable_step_summary_only_warns(
    run_mcp_inprocess: RunMcp, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path))  # a folder: cannot be appended to
    result = run_mcp_inprocess(
        "legacy_only.py",
        args=(
            NO_SEQUENCES,
            "--mcp-max-examples=5",
        ),
    )
    result.assert_outcomes(passed=8, warnings=1)
    assert result.ret == 0
    result.stdout.fnmatch_lines(["*could not append to GITHUB_STEP_SUMMARY*"])


def test_no_step_summary_when_the_plugin_is_inactive(
    pytester: pytest.Pytester, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    pytester.makepyfile("def test_plain():\n    pass\n")
    pytester.runpytest_subprocess(NO_SEQUENCES, "-p", "no:randomly").assert_outcomes(passed=1)
    assert not summary.exists()
