"""The HTML report (--mcp-html) of a failing and a passing run, in a real browser: it loads
with no console message, shows every failure the run report lists with the same counts, keeps
what a server sent as text, and is valid HTML5 (tests/browser.py)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from pytest_mcp_contracts.reporting.model import OUTCOMES

from .. import browser
from ..conftest import NO_SEQUENCES, SERVERS, RunPytest, server_command

# Both are installed by .ci/run where missing: in CI this test never skips. CI is read
# here, at collection: the suite's own fixtures unset it for the runs under test.
MISSING = browser.missing()
IN_CI = bool(os.environ.get("CI"))

# A server whose names and errors are markup: the page must show them as text.
HOSTILE = """
from mcp.server import MCPServer

app = MCPServer("<b>hostile</b>")


@app.tool(name="<script>alert(1)</script>")
def evil(text: str) -> str:
    raise ValueError("</pre><img src=x onerror=alert(2)>")
"""


def _facts_line(label: str, counts: dict[str, int]) -> str:
    """The page's "checks" line of a server, as the reader sees it after its label."""
    return label + ", ".join(f"{counts[o]} {o.replace('_', ' ')}" for o in OUTCOMES)


def _agrees_with_the_run_report(text: str, report: dict[str, Any]) -> None:
    """Every failure of the run report, and each server's counts, are on the page."""
    failed = 0
    for server in report["servers"]:
        assert server["name"] in text
        assert _facts_line("checks", server["checks"]) in text
        assert f"calls{server['calls']} ({server['error_results']} returned isError)" in text
        for entry in [*server["tools"], *server["listed"]]:
            for name, check in entry["checks"].items():
                if check["outcome"] == "failed":
                    failed += 1
                    node = f"mcp:{server['node_name']}::{entry['node_name']}::{name}"
                    assert node in text and check["message"] in text
    assert f"Failures ({failed})" in text


@pytest.mark.skipif(bool(MISSING) and not IN_CI, reason=f"not installed: {MISSING}")
def test_the_html_report_of_a_failing_and_a_passing_run_in_chromium(
    inprocess_pytest: RunPytest, pytester: pytest.Pytester, tmp_path: Path
) -> None:
    (pytester.path / "hostile.py").write_text(HOSTILE, encoding="utf-8")
    failing = inprocess_pytest(
        # Over stdio, so the failures carry the server's stderr; two of its failing tools.
        f"--mcp-server={server_command('sdk_failures.py')}",
        "--mcp-app=hostile.py",
        NO_SEQUENCES,
        "-k",
        "price_quote or initial or alert",
        "--mcp-html=out/failing.html",
        "--mcp-report=out/failing.json",
    )
    failing.assert_outcomes(failed=2, passed=10)
    passing = inprocess_pytest(
        f"--mcp-app={SERVERS / 'typed_ok.py'}",
        "--mcp-max-examples=10",
        "--mcp-html=out/passing.html",
        "--mcp-report=out/passing.json",
    )
    assert passing.ret == 0
    out = pytester.path / "out"
    texts = {}
    for name in ("failing", "passing"):
        page, report = out / f"{name}.html", json.loads((out / f"{name}.json").read_text())
        document, console = browser.load(page, tmp_path / "profile")
        assert console == []
        texts[name] = browser.text_of(document)
        _agrees_with_the_run_report(texts[name], report)
        if name == "failing":
            # What the hostile server named itself and its tool stays text in the DOM.
            assert "<b>hostile</b>" in texts[name]
            assert "<script>alert(1)</script>" in texts[name]
            assert "<script" not in document and "<img" not in document and "<b>" not in document
    # The failing run's failures in full: the smallest input, the replay command and the
    # traceback the server wrote to stderr for that call.
    assert '{"quantity": 41}' in texts["failing"] and '{"word": ""}' in texts["failing"]
    assert "mcp-contracts call '--server=" in texts["failing"]
    assert "Tool 'initial' raised an unexpected exception" in texts["failing"]
    assert "No check failed." in texts["passing"]
    # The console watch sees what the page's policy refuses: a planted image is reported.
    planted = tmp_path / "planted.html"
    page = (out / "passing.html").read_text(encoding="utf-8")
    planted.write_text(page.replace("</main>", '<img src="x.png" alt=""></main>'))
    assert any("Content Security Policy" in line for line in browser.load(planted, tmp_path)[1])
    # Valid HTML5 by the W3C's checker; a broken page beside them shows the checker reports.
    broken = tmp_path / "broken.html"
    broken.write_text(page.replace("<main>", "<main><table><p>"), encoding="utf-8")
    errors = browser.html5_errors(out / "failing.html", out / "passing.html", broken)
    assert errors and all("broken.html" in line for line in errors), errors
