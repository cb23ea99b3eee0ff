"""Run report: one machine-readable JSON document per run, and a Markdown summary for CI.

No pytest here. ``build_report`` writes the run's typed facts (``reporting/model.Run``, as
``reporting/facts`` folds them) as the published document, ``docs/run-report.schema.json``;
``step_summary`` renders the same facts as Markdown. ``for_the_wire`` and ``from_the_wire``
are the other edge: what an xdist worker sends its controller.

The document's format is versioned: additive changes keep ``VERSION``, anything else bumps it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from pytest_mcp_contracts.reporting.findings import counts as finding_counts
from pytest_mcp_contracts.reporting.findings import digest, refusals_line
from pytest_mcp_contracts.reporting.model import (
    NOT_RUN,
    CheckResult,
    EntryResult,
    Run,
    ServerRun,
)
from pytest_mcp_contracts.reporting.worker import OutputFacts, Stdout
from pytest_mcp_contracts.runs.stats import ToolStats, latency_figures
from pytest_mcp_contracts.text import start_error_line
from pytest_mcp_contracts.vocabulary import BESIDE_TOOLS, IMPACT_ORDER, NODE_PREFIX

FORMAT: Final = "pytest-mcp-contracts/run-report"
VERSION: Final = 1


# -- the document -----------------------------------------------------------------------------


def shown_path(path: Path, rootdir: Path) -> str:
    try:
        return path.relative_to(rootdir).as_posix()
    except ValueError:
        return str(path)


def first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def _check(check: CheckResult) -> dict[str, Any]:
    if check.outcome == NOT_RUN:
        return {"outcome": NOT_RUN}
    found: dict[str, Any] = {"outcome": check.outcome, "duration": round(check.duration, 3)}
    if check.message:
        found["message"] = check.message
    if check.failure is not None:
        found["failure"] = {"kind": check.failure.kind, "severity": check.failure.severity}
    return found


def _output(tool: EntryResult) -> dict[str, Any]:
    observed: OutputFacts | None = tool.output
    output: dict[str, Any] = {
        "source": tool.source,
        "quality": tool.quality,
        "kinds": dict(observed.kinds) if observed else {},
        "observations": observed.observations if observed else 0,
    }
    if observed:
        output["basis"] = observed.basis
        output["varying_types"] = [{"path": p, "types": t} for p, t in observed.varying_types]
    return output


def _latency(stats: ToolStats) -> dict[str, Any] | None:
    """The figures of a tool's latencies (``latencies_ms`` has each call's)."""
    figures = latency_figures(stats.latencies_ms)
    return None if figures is None else {"calls": len(stats.latencies_ms), **figures}


def _tool(tool: EntryResult, listed: bool) -> dict[str, Any]:
    return {
        "name": tool.name,
        "node_name": tool.node_name,
        "listed": listed,
        "checks": {name: _check(check) for name, check in tool.checks.items()},
        **tool.stats.to_json(),
        "latency_ms": _latency(tool.stats),
        "output": _output(tool) if listed else None,
        "findings": [record.to_json() for record in tool.findings],
    }


def _listed(entry: EntryResult, listed: bool) -> dict[str, Any]:
    return {
        "kind": entry.kind,
        "name": entry.name,
        "node_name": entry.node_name,
        "listed": listed,
        "checks": {name: _check(check) for name, check in entry.checks.items()},
        "findings": [record.to_json() for record in entry.findings],
        "calls": entry.stats.calls,
        "refused": entry.stats.refused,
        "real_results": entry.stats.real_results,
        "unanswered": entry.stats.unanswered,
        "phase_seconds": entry.stats.to_json()["phase_seconds"],
        "run_time_cut": entry.stats.run_time_cut,
        "run_time_skipped": entry.stats.run_time_skipped,
    }


def _drift_class(impact: str) -> str:
    return impact if impact in IMPACT_ORDER else "review"


def _stdout(found: Stdout) -> dict[str, Any]:
    count, sample = found
    return {"lines": count, "sample": list(sample)}


def _server(server: ServerRun) -> dict[str, Any]:
    if not server.started:
        return {
            "name": server.title,
            "node_name": server.node_name,
            "command": server.command,
            "transport": server.transport,
            "started": False,
            "error": server.error,
        }
    drift: dict[str, list[str]] = {impact: [] for impact in IMPACT_ORDER}
    for impact, line in server.drift():
        drift[_drift_class(impact)].append(line)
    output_schema, contract = server.coverage()
    return {
        "name": server.title,
        "node_name": server.node_name,
        "command": server.command,
        "transport": server.transport,
        "started": True,
        "version": server.version,
        "protocol": server.protocol,
        "boundary": server.boundary,
        "tools_listed": len(server.tools),
        # Counted with those recorded and no longer listed.
        **{f"{kind}s_listed": server.count_of(kind, gone_too=True) for kind in BESIDE_TOOLS},
        "calls": server.calls,
        "listed_calls": server.listed_calls,
        "error_results": server.error_results,
        "restarts": server.restarts,
        "own_test_calls": server.handwritten_calls,
        "startup_stdout": _stdout(server.startup_stdout),
        "between_calls_stdout": _stdout(server.between_calls_stdout),
        "checks": server.check_counts(),
        "sequences": None if server.sequences is None else _check(server.sequences),
        "stdout": None if server.stdout is None else _check(server.stdout),
        "protocol_check": None if server.protocol_check is None else _check(server.protocol_check),
        "protocol_findings": [record.to_json() for record in server.protocol_findings],
        "coverage": {"output_schema": output_schema, "contract": contract, **server.qualities()},
        "drift": {level: sorted(lines) for level, lines in drift.items()},
        "findings": finding_counts(f for e in server.with_findings() for f in e.findings).to_json(),
        "tools": [
            *(_tool(tool, True) for tool in server.tools),
            *(_tool(tool, False) for tool in server.removed),
        ],
        "listed": [
            *(_listed(entry, True) for entry in server.listed),
            *(_listed(entry, False) for entry in server.gone),
        ],
    }


def build_report(
    run: Run,
    *,
    exit_status: int,
    mode: str,
    rootdir: Path | None = None,
) -> dict[str, Any]:
    """The run report of the folded facts; snapshot paths are shown relative to ``rootdir``."""
    snapshots = run.snapshots
    return {
        "format": FORMAT,
        "version": VERSION,
        "pytest_exit_status": exit_status,
        "partial": run.partial,
        "mode": mode,
        "servers": [_server(server) for server in run.servers],
        "snapshots": {
            key: [shown_path(Path(p), rootdir) if rootdir else p for p in paths]
            for key, paths in (
                ("written", snapshots.written),
                ("pruned", snapshots.pruned),
                ("exported", snapshots.exported),
            )
        },
    }


# -- Markdown for GitHub's job summary ---------------------------------------------------------


def _cell(text: Any) -> str:
    return str(text).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def _percent(ratio: float | None) -> str:
    return "n/a" if ratio is None else f"{round(100 * ratio)}%"


def _listed_counts(server: ServerRun) -> str:
    """ "2 / 3 / 1": the prompts, resources and templates a server listed."""
    return " / ".join(str(server.count_of(kind, gone_too=True)) for kind in BESIDE_TOOLS)


def step_summary(run: Run, clients: Sequence[str]) -> str:
    """A short Markdown summary: one row per server, then the failing checks. ``clients``:
    the profiles the run applied (--mcp-clients)."""
    lines = [
        "### MCP contracts",
        "",
        "| server | tools | prompts, resources, templates | reads and gets | checks passed "
        "| checks failed | outputSchema coverage | contract coverage | breaking drift |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for server in run.servers:
        name = _cell(server.title)
        if not server.started:
            lines.append(f"| {name} | did not start | | | | | | | |")
            continue
        checks = server.check_counts()
        output_schema, contract = server.coverage()
        breaking = sum(1 for level, _ in server.drift() if level == "breaking")
        lines.append(
            f"| {name} | {len(server.tools)} | {_listed_counts(server)} "
            f"| {server.listed_calls} | {checks['passed']} | {checks['failed']} "
            f"| {_percent(output_schema)} | {_percent(contract)} "
            f"| {breaking} |"
        )
    lines += _coverage_summary(run)
    lines += _findings_summary(run, clients)
    if run.partial:
        lines += ["", "_Partial report: some workers sent no results._"]
    failing = list(failed_checks(run))
    if failing:
        lines += ["", "**Failing checks**", ""]
        for failed in failing:
            text = first_line(failed.message)
            lines.append(f"- `{failed.node_id}`" + (f": {text}" if text else ""))
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class FailedCheck:
    """A check of the run that failed, or a server that did not start (``check`` None):
    what the step summary lists and what SARIF makes a result of."""

    node_id: str
    server: ServerRun
    subject: EntryResult | None  # the tool, prompt, ...; None: the server
    check_name: str | None
    check: CheckResult | None
    message: str


def failed_checks(run: Run) -> Iterator[FailedCheck]:
    """Every failure of the run, in the report's order: a server that did not start, then a
    server's own checks (stdout, sequences, protocol), then each tool's and listed entry's."""
    for server in run.servers:
        node = f"{NODE_PREFIX}{server.node_name}"
        if not server.started:
            yield FailedCheck(node, server, None, None, None, start_error_line(server.error))
            continue
        for own, check in server.own_checks():
            if check.failed:
                yield FailedCheck(f"{node}::{own}", server, None, own, check, check.message or "")
        for subject in server.subjects():
            for check_name, check in subject.checks.items():
                if check.failed:
                    yield FailedCheck(
                        f"{node}::{subject.node_name}::{check_name}",
                        server,
                        subject,
                        check_name,
                        check,
                        check.message or "",
                    )


#: Tools listed by name under "Input coverage"; the others are counted.
STEP_SUMMARY_TOOLS = 20


def _coverage_summary(run: Run) -> list[str]:
    """Which tools' corners were not all visited, and the first reason each."""
    visited = derived = 0
    missed = []
    for server in run.started():
        for tool in server.tools:
            # The coverage phase's own report (inputs/coverage), carried as it wrote it.
            coverage = tool.stats.input_coverage
            if not coverage:
                continue
            visited += coverage["corners"]["visited"]
            derived += coverage["corners"]["derived"]
            if coverage["not_visited"]:
                first = coverage["not_visited"][0]
                more = coverage["not_visited_count"] - 1
                missed.append(
                    f"- `{NODE_PREFIX}{server.node_name}::{tool.node_name}`: "
                    f"{_cell(first['corner'])} ({_cell(first['why'])})"
                    + (f" and {more} more" if more else "")
                )
    if not derived:
        return []
    lines = ["", f"**Input coverage**: {visited} of {derived} schema corners visited", ""]
    lines += missed[:STEP_SUMMARY_TOOLS]
    if len(missed) > STEP_SUMMARY_TOOLS:
        lines.append(f"- … and {len(missed) - STEP_SUMMARY_TOOLS} more tools")
    return lines if missed else lines[:2]


def _findings_summary(run: Run, clients: Sequence[str]) -> list[str]:
    """Each server's listing findings, one bullet per rule (``reporting/findings.digest``),
    then the client rules that failed and how to leave them out (``refusals_line``)."""
    lines = []
    for server in run.started():
        holders = server.with_findings()
        found = finding_counts(f for holder in holders for f in holder.findings)
        if not (found.errors or found.warnings):
            continue
        lines += [
            "",
            f"**Listing findings** of {_cell(server.title)}: {found.errors} error(s), "
            f"{found.warnings} warning(s)",
            "",
            *(f"- {_cell(line)}" for line in digest(holders)),
        ]
        refusals = refusals_line(holders, clients)
        if refusals:
            lines += ["", _cell(refusals)]
    return lines


# What execnet (pytest-xdist's channel) can carry: builtins only, no subclasses of them.
_WIRE_SCALARS: Final = (bool, str, int, float, bytes, type(None))  # bool before int
# execnet 2.1 writes an int as four bytes unless it is above their range, so an int below
# it fails to pack ("'i' format requires ..."): the TypeScript SDK's zod gives every
# `.int()` the bounds -9007199254740991 and 9007199254740991, and a worker whose recorded
# schemas held one lost all its results. Such an int travels as ("int", its digits): no
# other tuple is left once a value is made ready for the wire, so the controller knows it.
_INT4: Final = range(-(2**31), 2**31)
_BIG_INT: Final = "int"


def for_the_wire(value: Any, where: str = "facts") -> Any:
    """``value`` as builtins that an xdist worker can send to its controller
    (``from_the_wire`` reads it back there).

    A ``str`` or ``int`` subclass (an enum) becomes its plain value, a tuple a list, an int
    beyond four bytes a tagged tuple; anything else is a bug in what this process collected,
    named with its path, so that it fails here, in the worker's own report, and not as a
    silent ``DumpError`` that drops the worker's results (which happened with isError
    classes as ``StrEnum`` keys)."""
    if isinstance(value, dict):
        return {for_the_wire(k, where): for_the_wire(v, f"{where}.{k}") for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        items = sorted(value) if isinstance(value, set | frozenset) else value
        return [for_the_wire(v, f"{where}[{i}]") for i, v in enumerate(items)]
    if isinstance(value, int) and not isinstance(value, bool) and value not in _INT4:
        return (_BIG_INT, str(int(value)))
    if value is None or type(value) in _WIRE_SCALARS:
        return value
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, str):
        return str(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    raise TypeError(f"{where}: {type(value).__name__} cannot be sent from an xdist worker")


def from_the_wire(value: Any) -> Any:
    """What ``for_the_wire`` sent, as it was collected: its ints beyond four bytes back."""
    if isinstance(value, dict):
        return {from_the_wire(k): from_the_wire(v) for k, v in value.items()}
    if isinstance(value, list):
        return [from_the_wire(v) for v in value]
    if isinstance(value, tuple) and len(value) == 2 and value[0] == _BIG_INT:
        return int(value[1])
    return value
