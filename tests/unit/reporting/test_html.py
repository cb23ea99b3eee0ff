"""The HTML report (reporting/html): the run's facts as one page, its server's words escaped."""

from __future__ import annotations

import copy
import re
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

from pytest_mcp_contracts.reporting.facts import fold
from pytest_mcp_contracts.reporting.html import html_report
from pytest_mcp_contracts.reporting.model import CheckResult, Failure
from pytest_mcp_contracts.reporting.runreport import failed_checks
from pytest_mcp_contracts.reporting.worker import ServerFacts, ToolFacts, WorkerFacts

from .test_runreport import OUTCOMES, STATS, WORKER, facts


class _Page(HTMLParser):
    """The page as a browser's parser reads it: its elements, attributes and text."""

    def __init__(self, page: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.attributes: list[tuple[str, str | None]] = []
        self.chunks: list[str] = []
        self.feed(page)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attributes += attrs

    def handle_data(self, data: str) -> None:
        self.chunks.append(data)

    @property
    def text(self) -> str:
        return "".join(self.chunks)


def _page(**outcomes: CheckResult) -> str:
    return html_report(facts({**OUTCOMES, **outcomes}), exit_status=1, mode="ci")


def test_every_failure_is_shown_with_its_input_command_and_stderr() -> None:
    contract = CheckResult(
        "failed",
        1.2,
        "structuredContent does not match the outputSchema (2020-12)",
        Failure(
            "output_schema",
            "high",
            input='{"qty": 101}',
            command="mcp-contracts call --server='python -m shop' quote '{\"qty\": 101}'",
            stderr="Traceback (most recent call last):\nValueError: price",
            text="structuredContent does not match the outputSchema (2020-12)\n\nthe whole of it",
        ),
    )
    run = facts({**OUTCOMES, "mcp:shop::quote::contract": contract})
    page = _Page(html_report(run, exit_status=1, mode="ci"))
    failing = list(failed_checks(run))
    assert len(failing) == 6  # the server that did not start, sequences, four entries' checks
    for failed in failing:
        assert failed.node_id in page.text
        assert failed.message.splitlines()[0] in page.text
    assert "Failures (6)" in page.text
    for piece in ('{"qty": 101}', "ValueError: price", "the whole of it", "--server="):
        assert piece in page.text
    assert "MCP server did not start: python broken.py" in page.text  # its whole error


def test_the_page_is_self_contained_with_no_script() -> None:
    page = _Page(_page())
    assert "script" not in page.tags
    assert not [value for _, value in page.attributes if value and "//" in value]  # no URL
    assert ("http-equiv", "Content-Security-Policy") in page.attributes
    assert ("name", "viewport") in page.attributes


def test_what_a_server_sent_is_text_never_markup() -> None:
    hostile = "<script>alert(1)</script>"
    worker = copy.deepcopy(WORKER)
    server = worker.servers[0]
    server.tools.append(ToolFacts(hostile, "evil"))
    server.name = '"><img src=x onerror=alert(2)>'
    stderr = "\x1b[2Jcleared\x00 <b>bold</b> \ud800"
    run = facts(
        {
            **OUTCOMES,
            "mcp:shop::evil::contract": CheckResult(
                "failed", 0.1, f"tool {hostile} broke", Failure("crash", "critical", stderr=stderr)
            ),
        },
        worker,
    )
    page = html_report(run, exit_status=1, mode="ci")
    parsed = _Page(page)
    assert {"script", "img", "b"}.isdisjoint(parsed.tags)
    assert hostile in parsed.text and server.name in parsed.text
    # HTML5 forbids control characters and lone surrogates: they are shown as escapes.
    assert not re.search("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff]", page)
    assert "\\x1b[2Jcleared\\x00 <b>bold</b> \\ud800" in parsed.text


def test_latency_is_a_chart_and_a_table_when_recorded_and_said_missing_when_not() -> None:
    assert "No latency recorded." in _Page(_page()).text
    stats = copy.deepcopy(STATS)
    stats[("shop", "quote")].latencies_ms = [float(ms) for ms in range(1, 101)]
    worker = WorkerFacts([copy.deepcopy(WORKER.servers[0])], WORKER.snapshots)

    run = fold(worker, stats, {}, OUTCOMES)
    raw = html_report(run, exit_status=1, mode="ci")
    page = _Page(raw)
    assert "svg" in page.tags and "No latency recorded." not in page.text
    # Its calls, then p50, p95, p99 and max: measured latencies (nearest rank).
    cells = "".join(f'<td class="n">{n}</td>' for n in (100, 50, 95, 99, 100))
    assert f"<tr><td>quote</td>{cells}</tr>" in raw
    assert "p95 95.0 ms" in page.text  # the bar's title


def test_where_the_time_went_by_entry_and_by_phase() -> None:
    stats = copy.deepcopy(STATS)
    stats[("shop", "quote")].phase_seconds = Counter(coverage=0.25, random=1.5)

    run = fold(copy.deepcopy(WORKER), stats, {}, OUTCOMES)
    page = _Page(html_report(run, exit_status=1, mode="ci"))
    assert "coverage 0.25 s, random 1.50 s" in page.text
    assert "quote1.24 s" in page.text.replace("\n", "")  # its checks' durations summed


def test_drift_is_a_diff_breaking_first_and_files_relative_to_the_rootdir() -> None:
    run = facts()
    page = _Page(html_report(run, exit_status=1, mode="ci", rootdir=Path.cwd()))
    diff = [line for line in page.text.splitlines() if line[:2] in ("- ", "+ ", "~ ")]
    assert diff[0].startswith("- breaking:") and diff[-1].startswith("~ cosmetic:")
    assert "+ additive: get_order $.note: new" in diff
    assert "mcp-contracts/shop/get_order.json" in page.text


def test_a_run_without_servers_or_failures_says_so() -> None:
    empty = WorkerFacts([ServerFacts("python ok.py", "stdio", "ok.py", True, name="ok")])

    page = _Page(html_report(fold(empty, {}, {}, {}), exit_status=0, mode="record"))
    assert "MCP contracts: passed" in page.text and "No check failed." in page.text
    assert "The server lists nothing." in page.text
