"""Terminal summary: what the run found, per server, at the end of the session.

One renderer for a serial run and an xdist controller: it prints the run's folded facts
(``reporting/facts.RunFacts.fold``), the same ones the run report is built from.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pytest_mcp_contracts.inputs.coverage import coverage_line
from pytest_mcp_contracts.reporting.failure import accept_command
from pytest_mcp_contracts.reporting.findings import counts, digest
from pytest_mcp_contracts.text import shown, start_error_line
from pytest_mcp_contracts.vocabulary import (
    BESIDE_TOOLS,
    IMPACT_ORDER,
    QUALITIES,
    Quality,
    SnapshotMode,
)

Facts = dict[str, Any]


def _share(part: int, whole: int) -> str:
    return f"{round(100 * part / whole)}% ({part}/{whole})" if whole else "n/a (no tools)"


def _relative(path: Path) -> str:
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def summary_lines(facts: Facts, mode: str, command: str, *, verbose: bool) -> list[str]:
    """The "MCP contracts" section: per server, what is declared, learned, drifting, stale;
    then the files the run wrote."""
    lines = []
    for entry in facts["servers"]:
        if not entry.get("started"):
            # The target's own words (a URL is not started), and what went wrong.
            lines.append(
                start_error_line(entry.get("error", "")) or f"{entry['command']}: did not start"
            )
            continue
        restarts = f", restarted {entry['restarts']}x" if entry["restarts"] else ""
        disguised = _disguised(tool["disguised_errors"] for tool in entry["tools"])
        lines.append(
            f"{shown(entry['name'])} (protocol {entry['protocol']}): "
            f"{len(entry['tools'])} tools{_listed_counts(entry)}, {entry['calls']} calls, "
            f"{entry['error_results']} returned isError{disguised}{_listed_calls(entry)}"
            f"{restarts}"
        )
        lines += own_test_lines(entry.get("own_test_calls", 0))
        lines += stray_stdout_lines(entry["startup_stdout"], entry["between_calls_stdout"])
        lines += findings_lines([*entry["tools"], *entry.get("listed", [])])
        if entry["listing_changes"]:
            lines.append(
                "  the tool list changed during the run (the spec says a server's tool set must "
                "not vary; this run used the first listing):"
            )
            lines += [f"    {change}" for change in entry["listing_changes"]]
        lines += [f"  {line}" for line in _contract_lines(entry, mode, command, verbose)]
    return lines + _written_lines(facts["snapshots"])


def own_test_lines(calls: int) -> list[str]:
    """The requests hand-written tests sent through the mcp_server fixture: counted apart,
    so that the numbers above stay the checks' own."""
    if not calls:
        return []
    return [
        f"  and {calls} request(s) from hand-written tests (the mcp_server fixture), not in the "
        "numbers above: their verdicts are those tests' outcomes"
    ]


def _listed_calls(entry: Facts) -> str:
    """ ", 9 reads and gets (2 refused)": the calls of prompts, resources and templates."""
    calls = entry.get("listed_calls", 0)
    if not calls:
        return ""
    refused = sum(listed.get("refused", 0) for listed in entry.get("listed", []))
    return f", {calls} reads and gets ({refused} refused)"


def _listed_counts(entry: Facts) -> str:
    """ ", 2 prompts, 3 resources" for a server that lists any (a failed listing, none)."""
    kinds = [listed["kind"] for listed in entry.get("listed", [])]
    return "".join(f", {kinds.count(kind)} {kind}s" for kind in BESIDE_TOOLS if kind in kinds)


def findings_lines(tools: Sequence[Mapping[str, Any]]) -> list[str]:
    """The schema check's findings, one line per rule broken: where lint and client-profile
    warnings are read (a pytest warning is raised once per server and rule, not per tool)."""
    lines = digest(tools)
    if not lines:
        return []
    found = counts(record for tool in tools for record in tool.get("findings") or [])
    return [
        f"  listing findings: {found['errors']} error(s), {found['warnings']} warning(s), "
        "by rule (each one in full: the schema check, the run report, mcp-contracts inspect):",
        *(f"    {line}" for line in lines),
    ]


def _disguised(per_tool: Iterable[Mapping[str, int]]) -> str:
    count = sum(sum(classes.values()) for classes in per_tool)
    return f", {count} returned an error without isError" if count else ""


def startup_stdout_lines(
    count: int, sample: Sequence[str], when: str = "before the first call"
) -> list[str]:
    """What a server printed on stdout while it started (a banner), or between calls, that
    is not JSON-RPC: no call to blame it on, and still a stdio client that reads it as
    protocol may break."""
    if not count:
        return []
    return [
        f"  {count} line(s) on stdout {when} were not JSON-RPC (stdout is for "
        f"protocol messages only; log to stderr), e.g. {shown(sample[0], 120)!r}"
    ]


def stray_stdout_lines(startup: Sequence[Any], between: Sequence[Any]) -> list[str]:
    (count, sample), (later, later_sample) = startup, between
    return startup_stdout_lines(count, sample) + startup_stdout_lines(
        later, later_sample, when="between calls"
    )


def lost_workers_lines(lost: int | None) -> list[str]:
    """What an xdist controller says when a worker ended without sending its results (``None``:
    none of them did). The run then fails: its calls, counts and contracts are incomplete."""
    if lost == 0:
        return []
    who = "no xdist worker" if lost is None else f"{lost} xdist worker(s) ended without"
    verb = " sent" if lost is None else " sending"
    return [
        f"{who}{verb} its MCP results (a worker crashed, or failed to send them: see the "
        "errors above): calls, isError classes, coverage and contracts of the items it ran "
        "are missing from this summary, the run report (partial) and the snapshot files, so "
        "the run fails. Run without -n to see everything."
    ]


def _quality(tool: Facts) -> str:
    output = tool["output"]
    if output is not None:
        return str(output["quality"])
    return Quality.DECLARED if tool["declared"] else Quality.UNKNOWN


def _contract_lines(entry: Facts, mode: str, command: str, verbose: bool) -> list[str]:
    tools = entry["tools"]
    qualities = {tool["name"]: _quality(tool) for tool in tools}
    counts = {q: sum(1 for v in qualities.values() if v == q) for q in QUALITIES}
    per_tool = []
    if verbose:
        for tool in tools:
            output, quality = tool["output"], qualities[tool["name"]]
            basis = ""
            if output is not None and quality in (Quality.VALIDATED, Quality.INFERRED):
                basis = f" ({output['observations']} observations this run; {output['basis']})"
            coverage = tool["input_coverage"]
            inputs = f"; {coverage_line(coverage)}" if coverage else ""
            per_tool.append(f"  {shown(tool['name'])}: {quality}{basis}{inputs}{_answers(tool)}")
    total = len(tools)
    lines = [
        "contracts: " + ", ".join(f"{counts[q]} {q}" for q in QUALITIES),
        f"outputSchema coverage {_share(counts[Quality.DECLARED], total)}, contract coverage "
        f"{_share(counts[Quality.DECLARED] + counts[Quality.VALIDATED], total)}",
        *per_tool,
    ]
    ran = sorted((tool for tool in tools if tool["output"] is not None), key=lambda t: t["name"])
    lines += _evidence_lines(ran, accepting=mode == SnapshotMode.UPDATE)
    lines += _drift_lines(entry, mode, command)
    if entry["stale"] and mode != SnapshotMode.UPDATE:
        lines.append(
            "stale contracts of tools the server no longer lists (pruned by --mcp-snapshot-update):"
        )
        lines += [f"  {_relative(Path(path))}" for path in entry["stale"]]
    ready = sorted(
        shown(tool["name"]) for tool in ran if tool["output"]["quality"] == Quality.VALIDATED
    )
    if ready:
        lines.append(
            "could declare an outputSchema today: "
            + ", ".join(ready)
            + " (mcp-contracts export --format pydantic|typeddict|zod|jsonschema writes the "
            "models to paste in)"
        )
    return lines


def _answers(tool: Facts) -> str:
    """How a tool's isError results were judged, and what its rejects_invalid check counted."""
    parts = []
    classes, disguised = tool["error_classes"], tool["disguised_errors"]
    if classes:
        parts.append("isError: " + ", ".join(f"{n} {k}" for k, n in sorted(classes.items())))
    if disguised:
        parts.append(
            "without isError: " + ", ".join(f"{n} {k}" for k, n in sorted(disguised.items()))
        )
    if tool["error_results"] or disguised:
        # Said where calls came back as errors: how often the output contract was exercised.
        parts.append(f"real results: {tool['real_results']} of {tool['calls']} calls")
    if tool["unanswered"]:
        parts.append(f"no answer to {tool['unanswered']} calls (hung, died or broke the protocol)")
    if tool["sandbox_calls"]:
        parts.append(f"sandbox paths in {tool['sandbox_calls']} calls")
    asked = tool["client_requests"]
    if asked:
        parts.append("asked the client: " + ", ".join(f"{k} {n}" for k, n in asked.items()))
    if tool["coercions_accepted"]:
        parts.append(f"accepted {tool['coercions_accepted']} look-alike(s) (lenient coercion)")
    if tool["protocol_refusals"]:
        parts.append(
            f"refused {tool['protocol_refusals']} invalid input(s) with JSON-RPC -32602 "
            "where the protocol asks for isError"
        )
    if tool["out_of_time"]:
        parts.append(
            f"time budget ran out in {tool['out_of_time']} check(s), fewer inputs sent "
            "(--mcp-tool-time)"
        )
    return "; " + "; ".join(parts) if parts else ""


def _evidence_lines(ran: list[Facts], *, accepting: bool) -> list[str]:
    """Where an inferred contract cannot be trusted yet: paths that changed type from call
    to call, and contracts whose observations do not amount to evidence (not one this run
    broke: its drift is listed; an update accepts what it breaks)."""
    lines = []
    unions = [(tool, v) for tool in ran for v in tool["output"]["varying_types"]]
    if unions:
        lines.append(
            "types that vary from call to call (probably bugs; not validated, not exported):"
        )
        lines += [f"  {shown(tool['name'])} {v['path']}: {v['types']}" for tool, v in unions]
    weak = [
        (tool, tool["output"]["basis"])
        for tool in ran
        if tool["output"]["quality"] == Quality.INFERRED
        and not tool["output"]["varying_types"]
        and (accepting or len(tool["output"]["drift"]) == len(tool["output"]["additive"]))
    ]
    if weak:
        lines.append("inferred but not validated:")
        lines += [
            f"  {shown(tool['name'])}: {reason.removeprefix('not validated: ')}"
            for tool, reason in weak
        ]
    return lines


def listed_label(drifted: Facts) -> str:
    """A prompt's, resource's or template's drift as reports name it: ``prompt greet``."""
    return f"{str(drifted['node_name']).partition(':')[0]} {shown(drifted['name'])}"


def _drift_lines(entry: Facts, mode: str, command: str) -> list[str]:
    """Every drift of the run, grouped by class: the tool surface's and the inferred outputs'
    (breaking too: a failed contract item shows one call, this the whole), then the surface
    of prompts, resources and templates."""
    found: list[tuple[str, str]] = []
    for tool in sorted([*entry["tools"], *entry["removed"]], key=lambda t: t["node_name"]):
        for impact, text in tool["surface_drift"] or []:
            found.append((impact, f"{shown(tool['name'])} {text}"))
    for tool in entry["tools"]:
        for impact, text in (tool["output"] or {}).get("drift", []):
            found.append((impact, f"{shown(tool['name'])} {text}"))
    for listed in entry.get("listed_drift", []):
        for impact, text in listed["surface_drift"]:
            found.append((impact, f"{listed_label(listed)} {text}"))
    if not found:
        return []
    if mode == SnapshotMode.UPDATE:
        header = "drift accepted by --mcp-snapshot-update:"
    else:
        ci = mode == SnapshotMode.CI
        how = (
            accept_command(command, ci=True)
            if ci
            else f"accept it with: {command} --mcp-snapshot-update"
        )
        header = f"drift ({how}):"
    width = max(len(impact) for impact, _ in found) + 1
    ordered = sorted(found, key=lambda item: (IMPACT_ORDER.index(item[0]), item[1]))
    return [header, *(f"  {impact + ':':<{width}} {text}" for impact, text in ordered)]


def _written_lines(snapshots: Mapping[str, Sequence[str]]) -> list[str]:
    lines = []
    for verb, key in (("recorded", "written"), ("pruned", "pruned"), ("exported", "exported")):
        paths = snapshots.get(key, [])
        if paths:
            lines.append(f"{verb} {len(paths)} file(s):")
            lines += [f"  {_relative(Path(path))}" for path in paths]
    if snapshots.get("unwritten"):
        lines.append("not written (left as it is):")
        lines += [f"  {problem}" for problem in snapshots["unwritten"]]
    if snapshots.get("not_exported"):
        lines.append("proposals not exported:")
        lines += [f"  {why}" for why in snapshots["not_exported"]]
    return lines
