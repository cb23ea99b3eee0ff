"""Terminal summary: what the run found, per server, at the end of the session.

One renderer for a serial run and an xdist controller: it prints the run's folded facts
(``reporting/facts.fold``, a ``reporting/model.Run``), the same ones the run report is built
from.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path

from pytest_mcp_contracts.inputs.coverage import coverage_line
from pytest_mcp_contracts.judges.writes import NONE_DECLARED
from pytest_mcp_contracts.reporting.failure import accept_command
from pytest_mcp_contracts.reporting.findings import HasFindings, counts, digest, refusals_line
from pytest_mcp_contracts.reporting.model import EntryResult, Run, ServerRun
from pytest_mcp_contracts.reporting.worker import Snapshots, Stdout
from pytest_mcp_contracts.runs.stats import ToolStats, latency_figures
from pytest_mcp_contracts.text import shown, start_error_line
from pytest_mcp_contracts.vocabulary import (
    BESIDE_TOOLS,
    IMPACT_ORDER,
    LEVEL_ORDER,
    QUALITIES,
    Level,
    Quality,
    SnapshotMode,
)


def _share(part: int, whole: int) -> str:
    return f"{round(100 * part / whole)}% ({part}/{whole})" if whole else "n/a (no tools)"


def _relative(path: Path) -> str:
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def summary_lines(
    run: Run, mode: str, command: str, *, verbose: bool, clients: Sequence[str]
) -> list[str]:
    """The "MCP contracts" section: per server, what is declared, learned, drifting, stale;
    then the files the run wrote. ``clients``: the profiles the run applied (--mcp-clients)."""
    lines = []
    for server in run.servers:
        if not server.started:
            # The target's own words (a URL is not started), and what went wrong.
            lines.append(start_error_line(server.error) or f"{server.command}: did not start")
            continue
        restarts = f", restarted {server.restarts}x" if server.restarts else ""
        disguised = _disguised(server.tools)
        lines.append(
            f"{shown(server.name)} (protocol {server.protocol}): "
            f"{len(server.tools)} tools{_listed_counts(server)}, {server.calls} calls, "
            f"{server.error_results} returned isError{disguised}{_listed_calls(server)}"
            f"{restarts}"
        )
        if server.boundary and server.boundary != NONE_DECLARED:
            lines.append(f"  boundary: {server.boundary}")
        lines += own_test_lines(server.handwritten_calls)
        lines += stray_stdout_lines(server.startup_stdout, server.between_calls_stdout)
        lines += findings_lines(server.with_findings(), clients)
        lines += protocol_lines(server)
        if server.listing_changes:
            lines.append(
                "  the tool list changed during the run (the spec says a server's tool set must "
                "not vary; this run used the first listing):"
            )
            lines += [f"    {change}" for change in server.listing_changes]
        lines += time_lines([*server.tools, *server.listed])
        lines += [f"  {line}" for line in _contract_lines(server, mode, command, verbose)]
    return lines + _written_lines(run.snapshots)


def protocol_lines(server: ServerRun) -> list[str]:
    """The protocol check's verdict in one line: the rules it found broken (errors) and
    those it warned about, each rule once."""
    check = server.protocol_check
    if check is None:
        return []
    found = server.protocol_findings
    if not found:
        said = "every rule held" if check.outcome == "passed" else check.message or check.outcome
        return [f"  protocol check: {said}"]
    by_level = {
        level: list(dict.fromkeys(str(f.rule) for f in found if f.level is level))
        for level in LEVEL_ORDER
    }
    parts = []
    for level, rules in by_level.items():
        if rules:
            verb = "broken" if level is Level.ERROR else "warned"
            parts.append(f"{len(rules)} rule(s) {verb}: {', '.join(rules)}")
    said = "; ".join(parts)
    return [f"  protocol check: {said} (each in full: the protocol item, the run report)"]


# How many phases and entries "where the time went" names: the top, not a table.
TOP_TIMES = 3


def _seconds(value: float) -> str:
    return f"{value:.1f} s" if value >= 0.1 else f"{value * 1000:.0f} ms"


def time_lines(entries: Sequence[EntryResult]) -> list[str]:
    """Where the checks' time went (``ToolStats.phase_seconds``): the phases and the entries
    that took the most; and what the run's time budget (--mcp-run-time) cut."""
    phases: Counter[str] = Counter()
    for entry in entries:
        phases.update(entry.stats.phase_seconds)
    total = sum(phases.values())
    lines = []
    if total >= 0.0005:
        top = ", ".join(
            f"{phase} {_seconds(seconds)} ({round(100 * seconds / total)}%)"
            for phase, seconds in phases.most_common(TOP_TIMES)
        )
        slowest = sorted(entries, key=lambda entry: -entry.stats.seconds)[:TOP_TIMES]
        named = ", ".join(
            f"{shown(entry.name)} {_seconds(entry.stats.seconds)}"
            f" (most in {entry.stats.phase_seconds.most_common(1)[0][0]})"
            for entry in slowest
            if entry.stats.seconds >= 0.0005
        )
        lines.append(
            f"  where the time went: {_seconds(total)} in the checks; by phase: {top}; "
            f"slowest: {named} (every figure: the run report's phase_seconds)"
        )
    cut = sorted(shown(entry.name) for entry in entries if entry.stats.run_time_cut)
    skipped = sorted(shown(entry.name) for entry in entries if entry.stats.run_time_skipped)
    if cut or skipped:
        lines.append(
            "  --mcp-run-time cut: "
            + "; ".join(
                f"{len(names)} {what}: {', '.join(names[:10])}{' ...' if len(names) > 10 else ''}"
                for what, names in (
                    ("tool(s) given less than their own budget", cut),
                    ("tool(s) with checks not run", skipped),
                )
                if names
            )
        )
    return lines


def own_test_lines(calls: int) -> list[str]:
    """The requests hand-written tests sent through the mcp_server fixture: counted apart,
    so that the numbers above stay the checks' own."""
    if not calls:
        return []
    return [
        f"  and {calls} request(s) from hand-written tests (the mcp_server fixture), not in the "
        "numbers above: their verdicts are those tests' outcomes"
    ]


def _listed_calls(server: ServerRun) -> str:
    """ ", 9 reads and gets (2 refused)": the calls of prompts, resources and templates."""
    if not server.listed_calls:
        return ""
    return f", {server.listed_calls} reads and gets ({server.refused} refused)"


def _listed_counts(server: ServerRun) -> str:
    """ ", 2 prompts, 3 resources" for a server that lists any (a failed listing, none)."""
    listed = [(kind, server.count_of(kind, gone_too=False)) for kind in BESIDE_TOOLS]
    return "".join(f", {count} {kind}s" for kind, count in listed if count)


def findings_lines(holders: Sequence[HasFindings], clients: Sequence[str]) -> list[str]:
    """The schema check's findings, one line per rule broken: where lint and client-profile
    warnings are read (a pytest warning is raised once per server and rule, not per tool);
    then the client rules that failed and how to leave them out."""
    lines = digest(holders)
    if not lines:
        return []
    found = counts(record for holder in holders for record in holder.findings)
    refusals = refusals_line(holders, clients)
    return [
        f"  listing findings: {found.errors} error(s), {found.warnings} warning(s), "
        "by rule (each one in full: the schema check, the run report, mcp-contracts inspect):",
        *(f"    {line}" for line in lines),
        *([f"  {refusals}"] if refusals else []),
    ]


def _disguised(tools: Sequence[EntryResult]) -> str:
    count = sum(sum(tool.stats.disguised_errors.values()) for tool in tools)
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


def stray_stdout_lines(startup: Stdout, between: Stdout) -> list[str]:
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


def _contract_lines(server: ServerRun, mode: str, command: str, verbose: bool) -> list[str]:
    tools = server.tools
    counts = {q: sum(1 for tool in tools if tool.quality == q) for q in QUALITIES}
    per_tool = []
    if verbose:
        for tool in tools:
            output, quality = tool.output, tool.quality
            basis = ""
            if output is not None and quality in (Quality.VALIDATED, Quality.INFERRED):
                basis = f" ({output.observations} observations this run; {output.basis})"
            coverage = tool.stats.input_coverage
            inputs = f"; {coverage_line(coverage)}" if coverage else ""
            # Its latencies beside its answers (the HTML report charts them apart).
            timed = f"; {latency_words(tool.stats.latencies_ms)}" if tool.stats.latencies_ms else ""
            per_tool.append(
                f"  {shown(tool.name)}: {quality}{basis}{inputs}{answers(tool.stats)}{timed}"
            )
    total = len(tools)
    lines = [
        "contracts: " + ", ".join(f"{counts[q]} {q}" for q in QUALITIES),
        f"outputSchema coverage {_share(counts[Quality.DECLARED], total)}, contract coverage "
        f"{_share(counts[Quality.DECLARED] + counts[Quality.VALIDATED], total)}",
        *per_tool,
    ]
    ran = sorted((tool for tool in tools if tool.output is not None), key=lambda t: t.name)
    lines += _evidence_lines(ran, accepting=mode == SnapshotMode.UPDATE)
    lines += _drift_lines(server, mode, command)
    if server.stale and mode != SnapshotMode.UPDATE:
        lines.append(
            "stale contracts of tools the server no longer lists (pruned by --mcp-snapshot-update):"
        )
        lines += [f"  {_relative(Path(path))}" for path in server.stale]
    ready = sorted(shown(tool.name) for tool in ran if tool.quality == Quality.VALIDATED)
    if ready:
        lines.append(
            "could declare an outputSchema today: "
            + ", ".join(ready)
            + " (mcp-contracts export --format pydantic|typeddict|zod|jsonschema writes the "
            "models to paste in)"
        )
    return lines


def answers(stats: ToolStats) -> str:
    """How a tool's isError results were judged, and what its rejects_invalid check counted."""
    parts = []
    classes, disguised = _nonzero(stats.error_classes), _nonzero(stats.disguised_errors)
    if classes:
        parts.append("isError: " + ", ".join(f"{n} {k}" for k, n in classes.items()))
    if disguised:
        parts.append("without isError: " + ", ".join(f"{n} {k}" for k, n in disguised.items()))
    if stats.error_results or disguised:
        # Said where calls came back as errors: how often the output contract was exercised.
        parts.append(f"real results: {stats.real_results} of {stats.calls} calls")
    if stats.unanswered:
        parts.append(f"no answer to {stats.unanswered} calls (hung, died or broke the protocol)")
    if stats.sandbox_calls:
        parts.append(f"sandbox paths in {stats.sandbox_calls} calls")
    asked = _nonzero(stats.client_requests)
    if asked:
        parts.append("asked the client: " + ", ".join(f"{k} {n}" for k, n in asked.items()))
    if stats.coercions_accepted:
        parts.append(f"accepted {stats.coercions_accepted} look-alike(s) (lenient coercion)")
    if stats.protocol_refusals:
        parts.append(
            f"refused {stats.protocol_refusals} invalid input(s) with JSON-RPC -32602 "
            "where the protocol asks for isError"
        )
    if stats.out_of_time:
        parts.append(
            f"time budget ran out in {stats.out_of_time} check(s), fewer inputs sent "
            "(--mcp-tool-time)"
        )
    if stats.repeated_inputs:
        alike = stats.repeated_inputs - stats.unstable_inputs
        parts.append(
            f"pass@k: {alike} of {stats.repeated_inputs} inputs sent again answered alike"
            + (" (flaky)" if stats.unstable_inputs else "")
        )
    return "; " + "; ".join(parts) if parts else ""


def latency_words(latencies_ms: Sequence[float]) -> str:
    """A tool's latencies in a few words: ``latency p50 3.1 ms, p95 ..., max ... (20 calls)``."""
    figures = latency_figures(latencies_ms) or {}
    said = ", ".join(f"{name} {round(ms, 1):g} ms" for name, ms in figures.items())
    return f"latency {said} ({len(latencies_ms)} calls)"


def _nonzero(counter: Mapping[str, int]) -> dict[str, int]:
    """A counter's classes by name, without the zero counts ``Counter.update`` leaves."""
    return {str(key): n for key, n in sorted(counter.items()) if n}


def _evidence_lines(ran: list[EntryResult], *, accepting: bool) -> list[str]:
    """Where an inferred contract cannot be trusted yet: paths that changed type from call
    to call, and contracts whose observations do not amount to evidence (not one this run
    broke: its drift is listed; an update accepts what it breaks)."""
    lines = []
    observed = [(tool, tool.output) for tool in ran if tool.output is not None]
    unions = [(tool, v) for tool, output in observed for v in output.varying_types]
    if unions:
        lines.append(
            "types that vary from call to call (probably bugs; not validated, not exported):"
        )
        lines += [f"  {shown(tool.name)} {path}: {types}" for tool, (path, types) in unions]
    weak = [
        (tool, output.basis)
        for tool, output in observed
        if output.quality == Quality.INFERRED
        and not output.varying_types
        and (accepting or not output.breaking)
    ]
    if weak:
        lines.append("inferred but not validated:")
        lines += [
            f"  {shown(tool.name)}: {reason.removeprefix('not validated: ')}"
            for tool, reason in weak
        ]
    return lines


def _drift_lines(server: ServerRun, mode: str, command: str) -> list[str]:
    """Every drift of the run, grouped by class: the tool surface's and the inferred outputs'
    (breaking too: a failed contract item shows one call, this the whole), then the surface
    of prompts, resources and templates."""
    found = server.drift(shown)
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


def _written_lines(snapshots: Snapshots) -> list[str]:
    lines = []
    for verb, paths in (
        ("recorded", snapshots.written),
        ("pruned", snapshots.pruned),
        ("exported", snapshots.exported),
    ):
        if paths:
            lines.append(f"{verb} {len(paths)} file(s):")
            lines += [f"  {_relative(Path(path))}" for path in paths]
    if snapshots.unwritten:
        lines.append("not written (left as it is):")
        lines += [f"  {problem}" for problem in snapshots.unwritten]
    if snapshots.not_exported:
        lines.append("proposals not exported:")
        lines += [f"  {why}" for why in snapshots.not_exported]
    return lines
