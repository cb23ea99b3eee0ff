"""The run's facts, typed: what the fold (``reporting/facts``) builds and the renderers read
(``reporting/summary``, ``reporting/runreport``, ``reporting/sarif``, ``reporting/html``).

Each number is held once, where it is counted: a tool's or a listed entry's ``ToolStats``;
a server's totals, its checks' counts, its coverage and its drift are derived from its
entries here, so every renderer prints the same sums. No JSON here: the worker facts'
wire form is ``reporting/worker``, the published documents are built from these by
``runreport.build_report``, ``sarif.sarif_log`` and ``html.html_report``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Final

from pytest_mcp_contracts.reporting.findings import FindingRecord
from pytest_mcp_contracts.reporting.worker import OutputFacts, Pair, ServerHead, Snapshots
from pytest_mcp_contracts.runs.stats import ToolStats
from pytest_mcp_contracts.vocabulary import QUALITIES, EntryKind, Quality

NOT_RUN: Final = "not_run"
OUTCOMES: Final = ("passed", "failed", "skipped", NOT_RUN)


@dataclass(frozen=True)
class Failure:
    """A failed check's verdict, as its item's exception carried it: its kind and severity,
    and for a failure report (``judges/failures.FailureReport``) the pieces the HTML report
    shows apart (``reporting/facts.failure_facts``)."""

    kind: str
    severity: str
    input: str | None = None  # the smallest input found, or the shortest sequence of calls
    command: str | None = None  # the mcp-contracts call command that replays it
    stderr: str | None = None  # what the server wrote while the call ran, else its last lines
    text: str | None = None  # the whole report, as the terminal shows it


@dataclass
class CheckResult:
    """One check's outcome, from the test reports of its item (setup, call, teardown)."""

    outcome: str = NOT_RUN
    duration: float = 0.0
    message: str | None = None  # the first line of the first report that did not pass
    failure: Failure | None = None

    @property
    def failed(self) -> bool:
        return self.outcome == "failed"


@dataclass
class EntryResult:
    """A tool, prompt, resource or template (``kind``), or a listing that failed
    (``listing``): listed (its checks, its numbers; a tool's output contract too), or
    recorded and no longer listed (its drift check only)."""

    kind: str
    name: str
    node_name: str  # a tool's safe name, "prompt:<safe name>", "listing:prompts"
    checks: dict[str, CheckResult]
    stats: ToolStats = field(default_factory=ToolStats)  # its calls, or its reads or gets
    declared: bool = False  # a tool that declares an outputSchema
    output: OutputFacts | None = None  # what a tool's contract item observed; None: no run
    surface_drift: list[Pair] = field(default_factory=list)  # its listing's and content's
    findings: list[FindingRecord] = field(default_factory=list)

    @property
    def is_tool(self) -> bool:
        return self.kind == EntryKind.TOOL

    @property
    def label(self) -> str:
        return self.name if self.is_tool else f"{self.kind} {self.name}"

    @property
    def quality(self) -> str:
        if self.output is not None:
            return self.output.quality
        return Quality.DECLARED if self.declared else Quality.UNKNOWN

    @property
    def source(self) -> str | None:
        """Where a tool's output contract comes from: the server's, learned, or none."""
        if self.declared:
            return "declared"
        return "inferred" if self.quality in (Quality.VALIDATED, Quality.INFERRED) else None

    def drift(self) -> list[Pair]:
        """Its listing's drift, then a tool's inferred output's (breaking first)."""
        output = [] if self.output is None else [*self.output.breaking, *self.output.additive]
        return [*self.surface_drift, *output]


@dataclass
class ServerRun(ServerHead):
    """One server's run: its head, and its entries with their checks and numbers."""

    tools: list[EntryResult] = field(default_factory=list)  # as listed
    removed: list[EntryResult] = field(default_factory=list)  # recorded tools, by node name
    # Failed listings, then prompts, resources and templates as listed; those recorded and
    # no longer listed, by node name.
    listed: list[EntryResult] = field(default_factory=list)
    gone: list[EntryResult] = field(default_factory=list)
    sequences: CheckResult | None = None  # the server's own items, when collected
    stdout: CheckResult | None = None
    # Not ``protocol``: that is the head's negotiated protocol version.
    protocol_check: CheckResult | None = None
    # The protocol item's findings (judges/protocol_rules), errors and warnings.
    protocol_findings: list[FindingRecord] = field(default_factory=list)

    @property
    def title(self) -> str:
        """Its name in the reports: its own, or for one that did not start, its node name."""
        return self.name if self.started else self.node_name

    @property
    def calls(self) -> int:
        return sum(tool.stats.calls for tool in self.tools)

    @property
    def error_results(self) -> int:
        return sum(tool.stats.error_results for tool in self.tools)

    @property
    def listed_calls(self) -> int:
        """The reads and gets of its prompts, resources and templates."""
        return sum(entry.stats.calls for entry in self.listed)

    @property
    def refused(self) -> int:
        return sum(entry.stats.refused for entry in self.listed)

    def subjects(self) -> list[EntryResult]:
        """Every entry with checks, in the reports' order."""
        return [*self.tools, *self.removed, *self.listed, *self.gone]

    def with_findings(self) -> list[EntryResult]:
        return [*self.tools, *self.listed]

    def own_checks(self) -> list[tuple[str, CheckResult]]:
        """The server's own checks that ran, by their check's name, in the reports' order."""
        own = (("stdout", self.stdout), ("sequences", self.sequences))
        return [(name, c) for name, c in (*own, ("protocol", self.protocol_check)) if c]

    def check_counts(self) -> dict[str, int]:
        counts = dict.fromkeys(OUTCOMES, 0)
        for subject in self.subjects():
            for check in subject.checks.values():
                counts[check.outcome] += 1
        for _, own in self.own_checks():
            counts[own.outcome] += 1
        return counts

    def qualities(self) -> dict[str, int]:
        found: dict[str, int] = dict.fromkeys(QUALITIES, 0)
        for tool in self.tools:
            found[tool.quality] = found.get(tool.quality, 0) + 1
        return found

    def coverage(self) -> tuple[float | None, float | None]:
        """The shares of its tools with a declared outputSchema, and with a contract."""
        qualities, total = self.qualities(), len(self.tools)
        return (
            _ratio(qualities[Quality.DECLARED], total),
            _ratio(qualities[Quality.DECLARED] + qualities[Quality.VALIDATED], total),
        )

    def drift(self, show: Callable[[str], str] = str) -> list[Pair]:
        """Every drift of the run, each as its class and its line (the entry it is of,
        named by ``show``, then the change): tools' and removed tools', then prompts',
        resources' and templates', those no longer listed too."""
        found: list[Pair] = []
        for tool in [*self.tools, *self.removed]:
            found += [(impact, f"{show(tool.name)} {text}") for impact, text in tool.drift()]
        for entry in [*self.listed, *self.gone]:
            prefix = f"{entry.kind} {show(entry.name)}"
            found += [(impact, f"{prefix} {text}") for impact, text in entry.drift()]
        return found

    def count_of(self, kind: str, *, gone_too: bool) -> int:
        entries = [*self.listed, *self.gone] if gone_too else self.listed
        return sum(1 for entry in entries if entry.kind == kind)


@dataclass
class Run:
    """The whole run: every server, and the files its recorder wrote."""

    servers: list[ServerRun] = field(default_factory=list)
    snapshots: Snapshots = field(default_factory=lambda: Snapshots())
    partial: bool = False  # on an xdist controller: some worker's results never arrived

    def started(self) -> Iterator[ServerRun]:
        return (server for server in self.servers if server.started)


def _ratio(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None
