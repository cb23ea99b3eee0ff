"""The run's facts: every test report folded into one object, on a serial run and on an xdist
controller by the same code.

Each item's report carries its check's numbers (``checks/stats.CheckStats`` as builtins,
under ``STATS_KEY``), the schema check's findings (``reporting/findings``, ``FINDINGS_KEY``)
and, when it failed, its failure's kind and severity (``FAILURE_KEY``),
as hypothesis's pytest plugin carries its statistics: xdist sends a report's ``__dict__``
to the controller. What no item owns (the servers' names, restarts, stdout, the recorder's
observations and drift, the files written) is each worker's ``server_facts``, sent once
through ``workeroutput``; a serial run is one worker. ``facts`` folds the two into what the
renderers print (``reporting/summary``, ``reporting/runreport``).

No pytest here: the plugin registers a ``RunFacts`` and it reads reports by their attributes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from pytest_mcp_contracts.checks.stats import CheckStats, ToolStats
from pytest_mcp_contracts.reporting.findings import FINDINGS_KEY
from pytest_mcp_contracts.reporting.runreport import Facts, with_stats
from pytest_mcp_contracts.reporting.worker import WorkerFacts
from pytest_mcp_contracts.vocabulary import NODE_PREFIX

STATS_KEY: Final = "mcp_contracts_stats"  # a report's check numbers, by tool name
FAILURE_KEY: Final = "mcp_contracts_failure"  # a failed report's {"kind", "severity"}
SERIAL: Final = "serial"  # the one "worker" of a run without xdist


def first_line(report: Any) -> str:
    """The first line of a report's failure or skip reason (not ``longreprtext``: under
    xdist it starts with the worker's name)."""
    longrepr = report.longrepr
    if isinstance(longrepr, tuple):  # a skip: (path, line, reason)
        text = str(longrepr[2]).removeprefix("Skipped: ")
    else:
        crash = None if isinstance(longrepr, str) else getattr(longrepr, "reprcrash", None)
        text = str(crash.message) if crash is not None else str(longrepr or "")
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


class RunFacts:
    """Each check's outcome and numbers (from the test reports), the servers that did not
    start, and each worker's server facts."""

    def __init__(self) -> None:
        self.outcomes: dict[str, dict[str, Any]] = {}
        self.stats: dict[tuple[str, str], ToolStats] = {}  # by server node name and tool name
        # The schema check's findings (reporting/findings records), by server and tool node name
        self.findings: dict[tuple[str, str], list[dict[str, Any]]] = {}
        self.start_errors: dict[int, tuple[str, str]] = {}  # by position in SERVERS_KEY
        self.workers: dict[str, WorkerFacts] = {}  # each worker's server facts, by worker id
        self.handed_over: dict[str, Any] = {}  # by worker id: the contracts it did not write
        self.lost_workers = 0
        self.partial = False  # on an xdist controller: some worker's results never arrived
        self.folded: Facts | None = None  # at the end: what the renderers print

    def pytest_runtest_logreport(self, report: Any) -> None:
        if not report.nodeid.startswith(NODE_PREFIX):
            return
        found = self.outcomes.setdefault(report.nodeid, {"outcome": "passed", "duration": 0.0})
        found["duration"] += report.duration
        if report.when == "call" or (report.when == "setup" and not report.passed):
            found["outcome"] = report.outcome
        elif report.failed:  # a teardown failure fails the check
            found["outcome"] = "failed"
        if not report.passed and "message" not in found:
            found["message"] = first_line(report)
        failure = report.__dict__.get(FAILURE_KEY)
        if failure is not None and "failure" not in found:
            found["failure"] = dict(failure)
        carried = report.__dict__.get(STATS_KEY)
        if carried is not None:
            self.add_stats(report.nodeid, carried)
        findings = report.__dict__.get(FINDINGS_KEY)
        if findings is not None:
            server, tool = report.nodeid.removeprefix(NODE_PREFIX).split("::")[:2]
            self.findings[(server, tool)] = [dict(record) for record in findings]

    def add_stats(self, nodeid: str, carried: Mapping[str, Any]) -> None:
        """Fold one report's numbers in, each under the tool it called."""
        server = nodeid.removeprefix(NODE_PREFIX).split("::", 1)[0]
        for tool, stats in CheckStats.from_json(carried).tools.items():
            self.stats.setdefault((server, tool), ToolStats()).add(stats)

    def add_worker(self, worker: str, facts: WorkerFacts | Mapping[str, Any]) -> None:
        """A worker's server facts: as an xdist controller receives them (JSON), or this
        process's own, which go through JSON too, so a serial run folds exactly what a
        worker would send."""
        data = facts.to_json() if isinstance(facts, WorkerFacts) else facts
        self.workers[worker] = WorkerFacts.from_json(data)

    def fold(self, own: WorkerFacts | None = None) -> Facts:
        """Every worker's facts in sorted worker order (the same on every run), with the
        numbers of the reports; ``own`` adds what this process itself wrote (the xdist
        controller writes the contracts the workers handed over)."""
        parts = [self.workers[worker] for worker in sorted(self.workers)]
        merged = WorkerFacts.merge([*parts, *([own] if own is not None else [])])
        self.folded = with_stats(merged.to_json(), self.stats, self.findings)
        return self.folded
