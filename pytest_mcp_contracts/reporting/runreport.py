"""Run report: one machine-readable JSON document per run, and a Markdown summary for CI.

No pytest here. The plugin hands in plain data, in three steps:

1. ``reporting/worker.WorkerFacts``: in the process that ran the servers (the only one, or
   each xdist worker), what the servers and the recorder know that no item owns; the
   workers' facts folded into one (each tool's observations taken from the worker that ran
   its items).
2. ``with_stats``: those facts, as JSON, with the numbers the items' reports carried
   (``reporting/facts.RunFacts`` folds them), added per tool.
3. ``build_report``: the facts and each check's outcome (from pytest's test reports, which
   the controller receives from every worker) into the published document,
   ``docs/run-report.schema.json``. ``step_summary`` renders a document as Markdown.

The document's format is versioned: additive changes keep ``VERSION``, anything else bumps it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from pytest_mcp_contracts.checks.stats import ToolStats
from pytest_mcp_contracts.reporting.findings import RECORD_KEYS, digest
from pytest_mcp_contracts.reporting.findings import counts as finding_counts
from pytest_mcp_contracts.text import start_error_line
from pytest_mcp_contracts.vocabulary import (
    BESIDE_TOOLS,
    IMPACT_ORDER,
    NODE_PREFIX,
    QUALITIES,
    TOOL_CHECKS,
    Check,
    EntryKind,
)

FORMAT: Final = "pytest-mcp-contracts/run-report"
VERSION: Final = 1
OUTCOMES: Final = ("passed", "failed", "skipped", "not_run")

Facts = dict[str, Any]


# -- 1. the facts and the numbers ------------------------------------------------------------


def _shown_path(path: Path, rootdir: Path) -> str:
    try:
        return path.relative_to(rootdir).as_posix()
    except ValueError:
        return str(path)


def with_stats(
    facts: Facts,
    stats: Mapping[tuple[str, str], ToolStats],
    findings: Mapping[tuple[str, str], list[dict[str, Any]]] | None = None,
) -> Facts:
    """``facts`` with each tool's numbers (by server node name and tool name), its schema
    check's findings (by server and tool node name) and each server's totals: what the
    report and the summaries print."""
    findings = findings or {}
    servers = []
    for entry in facts["servers"]:
        entry = dict(entry)
        if entry.get("started"):
            tools = []
            for tool in entry["tools"]:
                own = stats.get((entry["node_name"], tool["name"]), ToolStats())
                found = findings.get((entry["node_name"], tool["node_name"]), [])
                tools.append({**tool, **own.to_json(), "findings": found})
            entry["tools"] = tools
            entry["listed"] = [
                {
                    **listed,
                    "findings": findings.get((entry["node_name"], listed["node_name"]), []),
                    **_listed_numbers(
                        stats.get((entry["node_name"], f"{listed['kind']}:{listed['name']}"))
                    ),
                }
                for listed in entry.get("listed", [])
            ]
            entry["calls"] = sum(tool["calls"] for tool in tools)
            entry["error_results"] = sum(tool["error_results"] for tool in tools)
            entry["listed_calls"] = sum(listed["calls"] for listed in entry["listed"])
        servers.append(entry)
    return {**facts, "servers": servers}


# The call item of each kind of listed entry (pytest/items.call_items), and its numbers.
_CALL_CHECKS: Final = {
    EntryKind.PROMPT.value: (Check.GET,),
    EntryKind.RESOURCE.value: (Check.READ,),
    EntryKind.TEMPLATE.value: (Check.READ,),
}
_LISTED_NUMBERS: Final = ("calls", "refused", "real_results", "unanswered")


def _listed_numbers(stats: ToolStats | None) -> dict[str, int]:
    """A prompt's, resource's or template's reads or gets (checks/reads): keyed
    ``<kind>:<key>`` among the tools' numbers, which no tool name can be (no colon)."""
    stats = stats or ToolStats()
    return {
        "calls": stats.calls,
        "refused": stats.refused,
        "real_results": stats.real_results,
        "unanswered": stats.unanswered,
    }


# -- 2. the document ----------------------------------------------------------------------


def first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def _ratio(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def _check(outcomes: Mapping[str, Mapping[str, Any]], node_id: str) -> dict[str, Any]:
    found = outcomes.get(node_id)
    if found is None:
        return {"outcome": "not_run"}
    check: dict[str, Any] = {
        "outcome": str(found["outcome"]),
        "duration": round(float(found.get("duration", 0.0)), 3),
    }
    if found.get("message"):
        check["message"] = str(found["message"])
    failure = found.get("failure")
    if failure:
        check["failure"] = {"kind": str(failure["kind"]), "severity": str(failure["severity"])}
    return check


def _output(tool: Facts) -> dict[str, Any]:
    observed = tool["output"]
    if observed is not None:
        quality = str(observed["quality"])
    else:
        quality = "declared" if tool["declared"] else "unknown"
    if tool["declared"]:
        source = "declared"
    elif quality in ("validated", "inferred"):
        source = "inferred"
    else:
        source = None
    output: dict[str, Any] = {
        "source": source,
        "quality": quality,
        "kinds": dict(observed["kinds"]) if observed else {},
        "observations": int(observed["observations"]) if observed else 0,
    }
    if observed and "basis" in observed:
        output["basis"] = str(observed["basis"])
        output["varying_types"] = list(observed.get("varying_types", []))
    return output


def _finding(record: Mapping[str, Any]) -> dict[str, Any]:
    """A finding as the report publishes it (the record's keys, in the schema's order)."""
    return {key: record.get(key) for key in RECORD_KEYS}


def _drift_class(impact: str) -> str:
    return impact if impact in IMPACT_ORDER else "review"


def _startup_stdout(found: Sequence[Any]) -> dict[str, Any]:
    count, sample = found
    return {"lines": int(count), "sample": [str(line) for line in sample]}


def _server(entry: Facts, outcomes: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    node_name = str(entry.get("node_name", ""))
    prefix = f"{NODE_PREFIX}{node_name}::"
    mine = {node: found for node, found in outcomes.items() if node.startswith(prefix)}
    if not entry.get("started"):
        return {
            "name": node_name,
            "node_name": node_name,
            "command": entry["command"],
            "transport": entry["transport"],
            "started": False,
            "error": entry.get("error", ""),
        }
    tools = []
    drift: dict[str, list[str]] = {impact: [] for impact in IMPACT_ORDER}
    qualities: dict[str, int] = dict.fromkeys(QUALITIES, 0)
    listed = set()
    for tool in entry["tools"]:
        listed.add(tool["node_name"])
        output = _output(tool)
        qualities[output["quality"]] = qualities.get(output["quality"], 0) + 1
        base = f"{prefix}{tool['node_name']}::"
        tools.append(
            {
                "name": tool["name"],
                "node_name": tool["node_name"],
                "listed": True,
                "checks": {check: _check(mine, base + check) for check in TOOL_CHECKS},
                **ToolStats.from_json(tool).to_json(),
                "output": output,
                "findings": [_finding(record) for record in tool.get("findings", [])],
            }
        )
        pairs = (tool["surface_drift"] or []) + ((tool["output"] or {}).get("drift") or [])
        for impact, text in pairs:
            drift[_drift_class(impact)].append(f"{tool['name']} {text}")
    listed_entries = [
        {
            "kind": found["kind"],
            "name": found["name"],
            "node_name": found["node_name"],
            "listed": True,
            "checks": {
                check.value: _check(mine, f"{prefix}{found['node_name']}::{check}")
                for check in (Check.SCHEMA, Check.DRIFT, *_CALL_CHECKS.get(found["kind"], ()))
                # A drift item exists only where a snapshot folder is in use.
                if check != Check.DRIFT or f"{prefix}{found['node_name']}::{check}" in mine
            },
            "findings": [_finding(record) for record in found.get("findings", [])],
            **{number: int(found.get(number, 0)) for number in _LISTED_NUMBERS},
        }
        for found in entry.get("listed", [])
    ]
    listed |= {found["node_name"] for found in listed_entries}
    # Prompts, resources and templates: their drift, and those recorded but no longer listed
    # (their node names hold a ":", which no tool's does).
    for drifted in entry.get("listed_drift", []):
        for impact, text in drifted["surface_drift"]:
            kind = str(drifted["node_name"]).partition(":")[0]
            drift[_drift_class(impact)].append(f"{kind} {drifted['name']} {text}")
    gone = {d["node_name"]: d["name"] for d in entry.get("listed_drift", [])}
    gone |= {
        node: node.partition(":")[2]
        for node in (n[len(prefix) :].rsplit("::", 1)[0] for n in mine)
        if ":" in node and node not in listed and node not in gone
    }
    listed_entries += [
        {
            "kind": node.partition(":")[0],
            "name": gone[node],
            "node_name": node,
            "listed": False,
            "checks": {Check.DRIFT.value: _check(mine, f"{prefix}{node}::{Check.DRIFT}")},
            "findings": [],
            **dict.fromkeys(_LISTED_NUMBERS, 0),
        }
        for node in sorted(gone)
        if node not in listed
    ]
    listed |= set(gone)
    removed = {tool["node_name"]: tool for tool in entry.get("removed", [])}
    # A removed tool's drift item that ran elsewhere still shows in the outcomes.
    own = {prefix + Check.SEQUENCES, prefix + Check.STDOUT}  # the server's own items
    for node in mine:
        if node in own:
            continue
        tool_node = node[len(prefix) :].rsplit("::", 1)[0]
        if tool_node not in listed and tool_node not in removed:
            removed[tool_node] = {"name": tool_node, "node_name": tool_node, "surface_drift": []}
    for tool_node in sorted(removed):
        tool = removed[tool_node]
        tools.append(
            {
                "name": tool["name"],
                "node_name": tool_node,
                "listed": False,
                "checks": {"drift": _check(mine, f"{prefix}{tool_node}::drift")},
                **ToolStats().to_json(),
                "output": None,
                "findings": [],
            }
        )
        for impact, text in tool["surface_drift"]:
            drift[_drift_class(impact)].append(f"{tool['name']} {text}")
    counts = dict.fromkeys(OUTCOMES, 0)
    for tool in [*tools, *listed_entries]:
        for check in tool["checks"].values():
            counts[check["outcome"]] += 1
    # The sequences check is the server's own item (mcp:<server>::sequences), when collected.
    sequences = _check(mine, prefix + Check.SEQUENCES) if prefix + Check.SEQUENCES in mine else None
    # The stdout check: collected only for a stdio server that printed while it started.
    stdout = _check(mine, prefix + Check.STDOUT) if prefix + Check.STDOUT in mine else None
    for check in (sequences, stdout):
        if check is not None:
            counts[check["outcome"]] += 1
    total = len(entry["tools"])
    return {
        "name": entry["name"],
        "node_name": node_name,
        "command": entry["command"],
        "transport": entry["transport"],
        "started": True,
        "version": entry["version"],
        "protocol": entry["protocol"],
        "tools_listed": total,
        **{
            f"{kind}s_listed": sum(1 for e in listed_entries if e["kind"] == kind)
            for kind in BESIDE_TOOLS
        },
        "calls": entry["calls"],
        "listed_calls": entry.get("listed_calls", 0),
        "error_results": entry["error_results"],
        "restarts": entry["restarts"],
        "own_test_calls": entry.get("own_test_calls", 0),
        "startup_stdout": _startup_stdout(entry.get("startup_stdout", (0, []))),
        "between_calls_stdout": _startup_stdout(entry.get("between_calls_stdout", (0, []))),
        "checks": counts,
        "sequences": sequences,
        "stdout": stdout,
        "coverage": {
            "output_schema": _ratio(qualities["declared"], total),
            "contract": _ratio(qualities["declared"] + qualities["validated"], total),
            **qualities,
        },
        "drift": {impact: sorted(lines) for impact, lines in drift.items()},
        "findings": finding_counts(
            f for holder in [*tools, *listed_entries] for f in holder["findings"]
        ),
        "tools": tools,
        "listed": listed_entries,
    }


def build_report(
    facts: Facts,
    outcomes: Mapping[str, Mapping[str, Any]],
    *,
    exit_status: int,
    mode: str,
    partial: bool = False,
    rootdir: Path | None = None,
) -> dict[str, Any]:
    """The run report: ``outcomes`` maps node ids to ``{"outcome", "duration", "message"?,
    "failure"?}``; snapshot paths are shown relative to ``rootdir``."""
    return {
        "format": FORMAT,
        "version": VERSION,
        "pytest_exit_status": exit_status,
        "partial": partial,
        "mode": mode,
        "servers": [_server(entry, outcomes) for entry in facts["servers"]],
        "snapshots": {
            key: [_shown_path(Path(p), rootdir) if rootdir else p for p in facts["snapshots"][key]]
            for key in ("written", "pruned", "exported")
        },
    }


# -- Markdown for GitHub's job summary ---------------------------------------------------------


def _cell(text: Any) -> str:
    return str(text).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def _percent(ratio: float | None) -> str:
    return "n/a" if ratio is None else f"{round(100 * ratio)}%"


def _listed_counts(server: Mapping[str, Any]) -> str:
    """ "2 / 3 / 1": the prompts, resources and templates a server listed."""
    return " / ".join(str(server[f"{kind}s_listed"]) for kind in BESIDE_TOOLS)


def step_summary(document: Mapping[str, Any]) -> str:
    """A short Markdown summary: one row per server, then the failing checks."""
    lines = [
        "### MCP contracts",
        "",
        "| server | tools | prompts, resources, templates | reads and gets | checks passed "
        "| checks failed | outputSchema coverage | contract coverage | breaking drift |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for server in document["servers"]:
        name = _cell(server["name"])
        if not server["started"]:
            lines.append(f"| {name} | did not start | | | | | | | |")
            continue
        checks, coverage = server["checks"], server["coverage"]
        lines.append(
            f"| {name} | {server['tools_listed']} | {_listed_counts(server)} "
            f"| {server['listed_calls']} | {checks['passed']} | {checks['failed']} "
            f"| {_percent(coverage['output_schema'])} | {_percent(coverage['contract'])} "
            f"| {len(server['drift']['breaking'])} |"
        )
    lines += _coverage_summary(document)
    lines += _findings_summary(document)
    if document.get("partial"):
        lines += ["", "_Partial report: some workers sent no results._"]
    failing = list(failed_checks(document))
    if failing:
        lines += ["", "**Failing checks**", ""]
        for failed in failing:
            text = first_line(failed.message)
            lines.append(f"- `{failed.node_id}`" + (f": {text}" if text else ""))
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class FailedCheck:
    """A check of the run report that failed, or a server that did not start (``check``
    None): what the step summary lists and what SARIF makes a result of."""

    node_id: str
    server: Mapping[str, Any]
    subject: Mapping[str, Any] | None  # the tool, prompt, resource or template; None: the server
    check_name: str | None
    check: Mapping[str, Any] | None
    message: str


def failed_checks(document: Mapping[str, Any]) -> Iterator[FailedCheck]:
    """Every failure of the run, in the report's order: a server that did not start, then a
    server's own checks (stdout, sequences), then each tool's and listed entry's."""
    for server in document["servers"]:
        node = f"{NODE_PREFIX}{server['node_name']}"
        if not server["started"]:
            yield FailedCheck(node, server, None, None, None, start_error_line(server["error"]))
            continue
        for own in (Check.STDOUT, Check.SEQUENCES):
            check = server.get(own)
            if check is not None and check["outcome"] == "failed":
                yield FailedCheck(
                    f"{node}::{own}", server, None, own, check, check.get("message", "")
                )
        for subject in [*server["tools"], *server.get("listed", [])]:
            for check_name, check in subject["checks"].items():
                if check["outcome"] == "failed":
                    yield FailedCheck(
                        f"{node}::{subject['node_name']}::{check_name}",
                        server,
                        subject,
                        check_name,
                        check,
                        check.get("message", ""),
                    )


#: Tools listed by name under "Input coverage"; the others are counted.
STEP_SUMMARY_TOOLS = 20


def _coverage_summary(document: Mapping[str, Any]) -> list[str]:
    """Which tools' corners were not all visited, and the first reason each."""
    visited = derived = 0
    missed = []
    for server in document["servers"]:
        for tool in server.get("tools", []):
            coverage = tool.get("input_coverage")
            if not coverage:
                continue
            visited += coverage["corners"]["visited"]
            derived += coverage["corners"]["derived"]
            if coverage["not_visited"]:
                first = coverage["not_visited"][0]
                more = coverage["not_visited_count"] - 1
                missed.append(
                    f"- `{NODE_PREFIX}{server['node_name']}::{tool['node_name']}`: "
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


def _findings_summary(document: Mapping[str, Any]) -> list[str]:
    """Each server's listing findings, one bullet per rule (``reporting/findings.digest``)."""
    lines = []
    for server in document["servers"]:
        found = server.get("findings")
        if not server["started"] or not found or not (found["errors"] or found["warnings"]):
            continue
        lines += [
            "",
            f"**Listing findings** of {_cell(server['name'])}: {found['errors']} error(s), "
            f"{found['warnings']} warning(s)",
            "",
            *(f"- {_cell(line)}" for line in digest([*server["tools"], *server.get("listed", [])])),
        ]
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
