"""The run's facts: every test report folded into one object, on a serial run and on an xdist
controller by the same code.

Each item's report carries its check's numbers (``runs/stats.CheckStats`` as builtins,
under ``STATS_KEY``), the schema check's findings (``reporting/findings``, ``FINDINGS_KEY``)
and, when it failed, its failure's kind and severity, and a failure report's input, replay
command, stderr and text (``FAILURE_KEY``, ``failure_facts``),
as hypothesis's pytest plugin carries its statistics: xdist sends a report's ``__dict__``
to the controller. What no item owns (the servers' names, restarts, stdout, the recorder's
observations and drift, the files written) is each worker's ``server_facts``, sent once
through ``workeroutput``; a serial run is one worker. ``fold`` builds from the two the typed
``reporting/model.Run`` that the renderers read (``reporting/summary``,
``reporting/runreport``, ``reporting/sarif``, ``reporting/html``).

No pytest here: the plugin registers a ``RunFacts`` and it reads reports by their attributes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from pytest_mcp_contracts.judges.failures import FailureReport
from pytest_mcp_contracts.reporting.findings import FINDINGS_KEY, FindingRecord
from pytest_mcp_contracts.reporting.model import (
    CheckResult,
    EntryResult,
    Failure,
    Run,
    ServerRun,
)
from pytest_mcp_contracts.reporting.worker import ServerFacts, ToolFacts, WorkerFacts
from pytest_mcp_contracts.runs.stats import CheckStats, ToolStats
from pytest_mcp_contracts.text import CALL_STDERR_LINES_SHOWN, last_lines, short_json
from pytest_mcp_contracts.vocabulary import (
    NODE_PREFIX,
    OPTIONAL_TOOL_CHECKS,
    TOOL_CHECKS,
    Check,
    EntryKind,
)

STATS_KEY: Final = "mcp_contracts_stats"  # a report's check numbers, by tool name
FAILURE_KEY: Final = "mcp_contracts_failure"  # a failed report's {"kind", "severity"}
SERIAL: Final = "serial"  # the one "worker" of a run without xdist

Stats = Mapping[tuple[str, str], ToolStats]  # by server node name and tool name
Findings = Mapping[tuple[str, str], list[FindingRecord]]  # by server and entry node name
Outcomes = Mapping[str, CheckResult]  # by node id


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


# The texts of a failure report that ride on its test report beside its kind and severity.
_FAILURE_TEXTS: Final = ("input", "command", "stderr", "text")


def failure_facts(error: BaseException) -> dict[str, Any] | None:
    """What a failed item's exception says of its failure, as builtins for its test report
    (``FAILURE_KEY``): its kind and severity, and of a failure report its smallest input,
    its replay command, the server's stderr and its whole text; None for any other error."""
    kind, severity = getattr(error, "kind", None), getattr(error, "severity", None)
    if kind is None or severity is None:
        return None
    found: dict[str, Any] = {"kind": str(kind), "severity": str(severity)}
    report = getattr(error, "report", None)
    if isinstance(report, FailureReport):
        if report.sequence:
            found["input"] = "\n".join(report.sequence)
        elif report.arguments is not None:
            found["input"] = short_json(report.arguments)
        found["command"] = report.replay_command or None
        during = report.call_stderr
        found["stderr"] = (
            last_lines(during, CALL_STDERR_LINES_SHOWN)
            if during and during.strip()
            else last_lines(report.stderr_tail or "") or None
        )
        found["text"] = report.render()
    return found


class RunFacts:
    """Each check's outcome and numbers (from the test reports), the servers that did not
    start, and each worker's server facts."""

    def __init__(self) -> None:
        self.outcomes: dict[str, CheckResult] = {}  # by node id
        self.stats: dict[tuple[str, str], ToolStats] = {}  # by server node name and tool name
        # The schema check's findings, by server and tool node name
        self.findings: dict[tuple[str, str], list[FindingRecord]] = {}
        self.start_errors: dict[int, tuple[str, str]] = {}  # by position in SERVERS_KEY
        self.workers: dict[str, WorkerFacts] = {}  # each worker's server facts, by worker id
        self.handed_over: dict[str, Any] = {}  # by worker id: the contracts it did not write
        self.lost_workers = 0
        self.partial = False  # on an xdist controller: some worker's results never arrived
        self.folded: Run | None = None  # at the end: what the renderers print

    def pytest_runtest_logreport(self, report: Any) -> None:
        if not report.nodeid.startswith(NODE_PREFIX):
            return
        found = self.outcomes.setdefault(report.nodeid, CheckResult("passed"))
        found.duration += report.duration
        if report.when == "call" or (report.when == "setup" and not report.passed):
            found.outcome = report.outcome
        elif report.failed:  # a teardown failure fails the check
            found.outcome = "failed"
        if not report.passed and found.message is None:
            found.message = first_line(report)
        failure = report.__dict__.get(FAILURE_KEY)
        if failure is not None and found.failure is None:
            found.failure = Failure(
                str(failure["kind"]),
                str(failure["severity"]),
                **{key: failure.get(key) for key in _FAILURE_TEXTS},
            )
        carried = report.__dict__.get(STATS_KEY)
        if carried is not None:
            self.add_stats(report.nodeid, carried)
        findings = report.__dict__.get(FINDINGS_KEY)
        if findings is not None:
            server, tool = report.nodeid.removeprefix(NODE_PREFIX).split("::")[:2]
            self.findings[(server, tool)] = [FindingRecord.from_json(r) for r in findings]

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

    def fold(self, controller: WorkerFacts | None = None) -> Run:
        """Every worker's facts in sorted worker order (the same on every run), with the
        numbers and outcomes of the reports; ``controller`` adds what this process itself
        wrote (the xdist controller writes the contracts the workers handed over)."""
        parts = [self.workers[worker] for worker in sorted(self.workers)]
        merged = WorkerFacts.merge([*parts, *([controller] if controller is not None else [])])
        self.folded = fold(merged, self.stats, self.findings, self.outcomes, partial=self.partial)
        return self.folded


def fold(
    facts: WorkerFacts,
    stats: Stats,
    findings: Findings,
    outcomes: Outcomes,
    *,
    partial: bool = False,
) -> Run:
    """The run: the workers' facts with each entry's numbers, findings and checks."""
    return Run(
        [_server(server, stats, findings, outcomes) for server in facts.servers],
        facts.snapshots,
        partial,
    )


# The call item of each kind of listed entry (pytest/items.call_items).
_CALL_CHECKS: Final = {
    EntryKind.PROMPT.value: (Check.GET,),
    EntryKind.RESOURCE.value: (Check.READ,),
    EntryKind.TEMPLATE.value: (Check.READ,),
}


def _server(facts: ServerFacts, stats: Stats, findings: Findings, outcomes: Outcomes) -> ServerRun:
    server = ServerRun(**facts.head())
    if not facts.started:
        return server
    node_name = facts.node_name
    prefix = f"{NODE_PREFIX}{node_name}::"
    mine = {
        node[len(prefix) :]: found for node, found in outcomes.items() if node.startswith(prefix)
    }

    def check(*path: str) -> CheckResult:
        return mine.get("::".join(path)) or CheckResult()

    server.tools = [
        EntryResult(
            EntryKind.TOOL,
            tool.name,
            tool.node_name,
            {
                **{str(name): check(tool.node_name, name) for name in TOOL_CHECKS},
                **{
                    str(name): mine[f"{tool.node_name}::{name}"]
                    for name in OPTIONAL_TOOL_CHECKS
                    if f"{tool.node_name}::{name}" in mine
                },
            },
            stats.get((node_name, tool.name)) or ToolStats(),
            declared=tool.declared,
            output=tool.output,
            surface_drift=list(tool.surface_drift or []),
            findings=list(findings.get((node_name, tool.node_name), [])),
        )
        for tool in facts.tools
    ]
    drifted = {entry.node_name: entry for entry in facts.listed_drift}
    server.listed = [
        EntryResult(
            listed.kind,
            listed.name,
            listed.node_name,
            {
                name.value: check(listed.node_name, name)
                for name in (Check.SCHEMA, Check.DRIFT, *_CALL_CHECKS.get(listed.kind, ()))
                # A drift item exists only where a snapshot folder is in use.
                if name != Check.DRIFT or f"{listed.node_name}::{name}" in mine
            },
            stats.get((node_name, f"{listed.kind}:{listed.name}")) or ToolStats(),
            surface_drift=_drift_of(drifted.get(listed.node_name)),
            findings=list(findings.get((node_name, listed.node_name), [])),
        )
        for listed in facts.listed
    ]
    known = {tool.node_name for tool in server.tools} | {e.node_name for e in server.listed}
    # Prompts, resources and templates recorded but no longer listed, those whose drift item
    # ran in another worker too: their node names hold a ":", which no tool's does.
    gone = {entry.node_name: entry.name for entry in facts.listed_drift}
    server_items = (Check.SEQUENCES, Check.STDOUT)
    ran = [node.rsplit("::", 1)[0] for node in mine if node not in server_items]
    gone |= {node: node.partition(":")[2] for node in ran if ":" in node and node not in gone}
    server.gone = [
        EntryResult(
            node.partition(":")[0],
            gone[node],
            node,
            {Check.DRIFT.value: check(node, Check.DRIFT)},
            surface_drift=_drift_of(drifted.get(node)),
        )
        for node in sorted(gone)
        if node not in known
    ]
    known |= set(gone)
    # A removed tool's drift item that ran elsewhere still shows in the outcomes.
    removed = {tool.node_name: tool for tool in facts.removed}
    for node in ran:
        if node not in known and node not in removed:
            removed[node] = ToolFacts(node, node, surface_drift=[])
    server.removed = [
        EntryResult(
            EntryKind.TOOL,
            removed[node].name,
            node,
            {Check.DRIFT.value: check(node, Check.DRIFT)},
            surface_drift=list(removed[node].surface_drift or []),
        )
        for node in sorted(removed)
    ]
    server.sequences = mine.get(Check.SEQUENCES)
    server.stdout = mine.get(Check.STDOUT)
    return server


def _drift_of(drifted: ToolFacts | None) -> list[tuple[str, str]]:
    return [] if drifted is None else list(drifted.surface_drift or [])
