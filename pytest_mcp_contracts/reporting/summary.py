"""Terminal summary: what the run found, per server, at the end of the session."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_mcp_contracts.contracts.change import SEVERITIES
from pytest_mcp_contracts.contracts.observe import DECLARED, INFERRED, QUALITIES, UNKNOWN, VALIDATED
from pytest_mcp_contracts.inputs.coverage import coverage_line
from pytest_mcp_contracts.reporting.failure import accept_command, shown

if TYPE_CHECKING:
    from pytest_mcp_contracts.contracts.observe import ToolObservations
    from pytest_mcp_contracts.contracts.record import Recorder
    from pytest_mcp_contracts.transport.managed import ManagedServer


def _share(part: int, whole: int) -> str:
    return f"{round(100 * part / whole)}% ({part}/{whole})" if whole else "n/a (no tools)"


def _relative(path: Path) -> str:
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def server_summary_lines(
    servers: Sequence[ManagedServer], recorder: Recorder | None, command: str, *, verbose: bool
) -> list[str]:
    """The "MCP contracts" section: per server, what is declared, learned, drifting, stale."""
    lines = []
    for server in servers:
        surface = server.surface
        if surface is None:
            lines.append(f"{server.command.display}: did not start")
            continue
        restarts = f", restarted {server.restarts}x" if server.restarts else ""
        disguised = _disguised(server.disguised_errors.values())
        lines.append(
            f"{shown(surface.name)} (protocol {surface.protocol_version}): "
            f"{len(surface.tools)} tools, "
            f"{server.calls} calls, {server.error_results} returned isError{disguised}{restarts}"
        )
        lines += stray_stdout_lines(server.startup_stdout, server.between_calls_stdout)
        if server.listing_changes:
            lines.append(
                "  the tool list changed during the run (the spec says a server's tool set must "
                "not vary; this run used the first listing):"
            )
            lines += [f"    {change}" for change in server.listing_changes]
        if recorder is not None:
            lines += [f"  {line}" for line in _contract_lines(server, recorder, command, verbose)]
    if recorder is not None:
        lines += _written_lines(recorder)
    return lines


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


def workers_summary_lines(facts: dict[str, Any], recorder: Recorder) -> list[str]:
    """The summary on an xdist controller, from what the workers reported: the servers ran
    in the workers (one process per worker), the contracts were written here."""
    lines = []
    for entry in facts["servers"]:
        if not entry.get("started"):
            lines.append(f"{entry['command']}: did not start")
            continue
        restarts = f", restarted {entry['restarts']}x" if entry["restarts"] else ""
        disguised = _disguised(tool.get("disguised_errors", {}) for tool in entry["tools"])
        lines.append(
            f"{shown(entry['name'])} (protocol {entry['protocol']}): {len(entry['tools'])} tools, "
            f"{entry['calls']} calls, {entry['error_results']} returned isError{disguised}"
            f"{restarts} (all workers)"
        )
        lines += stray_stdout_lines(
            entry.get("startup_stdout", (0, [])), entry.get("between_calls_stdout", (0, []))
        )
        varying = [
            f"    {shown(tool['name'])} {v['path']}: {v['types']}"
            for tool in entry["tools"]
            for v in (tool.get("output") or {}).get("varying_types", [])
        ]
        if varying:
            lines.append(
                "  types that vary from call to call (probably bugs; not validated, not exported):"
            )
            lines += varying
    return lines + _written_lines(recorder)


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


def _contract_lines(
    server: ManagedServer, recorder: Recorder, command: str, verbose: bool
) -> list[str]:
    surface = server.surface
    assert surface is not None
    observed = {tool: obs for (srv, tool), obs in recorder.tools.items() if srv == server.node_name}
    qualities: dict[str, str] = {}
    for tool in surface.tools:
        obs = observed.get(tool.node_name)
        if obs is not None and obs.ran:
            qualities[tool.name] = obs.quality
        elif isinstance(tool.output_schema, dict):
            qualities[tool.name] = DECLARED
        else:
            qualities[tool.name] = UNKNOWN
    counts = {q: sum(1 for v in qualities.values() if v == q) for q in QUALITIES}
    per_tool = []
    if verbose:
        for tool in surface.tools:
            obs = observed.get(tool.node_name)
            basis = ""
            if obs is not None and obs.ran and qualities[tool.name] in (VALIDATED, INFERRED):
                basis = f" ({obs.observations} observations this run; {obs.assessment[1]})"
            coverage = server.input_coverage.get(tool.name)
            inputs = f"; {coverage_line(coverage)}" if coverage else ""
            per_tool.append(
                f"  {shown(tool.name)}: {qualities[tool.name]}{basis}{inputs}"
                f"{_answers(server, tool.name)}"
            )
    total = len(surface.tools)
    lines = [
        "contracts: " + ", ".join(f"{counts[q]} {q}" for q in QUALITIES),
        f"outputSchema coverage {_share(counts[DECLARED], total)}, contract coverage "
        f"{_share(counts[DECLARED] + counts[VALIDATED], total)}",
        *per_tool,
    ]
    lines += _evidence_lines(observed)
    lines += _drift_lines(server.node_name, observed, recorder, command)
    stale = recorder.stale(server.node_name, surface)
    if stale and recorder.mode != "update":
        lines.append(
            "stale contracts of tools the server no longer lists (pruned by --mcp-snapshot-update):"
        )
        lines += [f"  {_relative(recorder.path(server.node_name, name))}" for name in stale]
    ready = sorted(
        shown(obs.tool.name) for obs in observed.values() if obs.ran and obs.quality == VALIDATED
    )
    if ready:
        lines.append(
            "could declare an outputSchema today: "
            + ", ".join(ready)
            + " (--mcp-export-schemas=DIR writes the proposals)"
        )
    return lines


def _answers(server: ManagedServer, tool: str) -> str:
    """How a tool's isError results were judged, and what its rejects_invalid check counted."""
    parts = []
    classes = server.error_classes.get(tool)
    if classes:
        parts.append("isError: " + ", ".join(f"{n} {k}" for k, n in sorted(classes.items())))
    disguised = server.disguised_errors.get(tool)
    if disguised:
        parts.append(
            "without isError: " + ", ".join(f"{n} {k}" for k, n in sorted(disguised.items()))
        )
    if server.tool_error_results[tool] or disguised:
        # Said where calls came back as errors: how often the output contract was exercised.
        parts.append(
            f"real results: {server.real_results[tool]} of {server.tool_calls[tool]} calls"
        )
    if server.sandbox_calls[tool]:
        parts.append(f"sandbox paths in {server.sandbox_calls[tool]} calls")
    asked = {k: n for k, n in sorted(server.client_requests.get(tool, {}).items()) if n}
    if asked:
        parts.append("asked the client: " + ", ".join(f"{k} {n}" for k, n in asked.items()))
    if server.coercions_accepted[tool]:
        parts.append(f"accepted {server.coercions_accepted[tool]} look-alike(s) (lenient coercion)")
    if server.protocol_refusals[tool]:
        parts.append(
            f"refused {server.protocol_refusals[tool]} invalid input(s) with JSON-RPC -32602 "
            "where the protocol asks for isError"
        )
    return "; " + "; ".join(parts) if parts else ""


def _evidence_lines(observed: dict[str, ToolObservations]) -> list[str]:
    """Where an inferred contract cannot be trusted yet: paths that changed type from call
    to call, and contracts whose observations do not amount to evidence."""
    ran = sorted((obs for obs in observed.values() if obs.ran), key=lambda o: o.tool.name)
    lines = []
    unions = [(obs, path, types) for obs in ran for path, types in obs.unions()]
    if unions:
        lines.append(
            "types that vary from call to call (probably bugs; not validated, not exported):"
        )
        lines += [f"  {shown(obs.tool.name)} {path}: {types}" for obs, path, types in unions]
    weak = [
        (obs, obs.assessment[1])
        for obs in ran
        if obs.quality == INFERRED and not obs.unions() and not obs.breaking
    ]
    if weak:
        lines.append("inferred but not validated:")
        lines += [
            f"  {shown(obs.tool.name)}: {reason.removeprefix('not validated: ')}"
            for obs, reason in weak
        ]
    return lines


DRIFT_ORDER = SEVERITIES


def _drift_lines(
    server: str, observed: dict[str, ToolObservations], recorder: Recorder, command: str
) -> list[str]:
    """Every drift of the run, grouped by class: the tool surface's and the inferred outputs'."""
    found: list[tuple[str, str]] = []
    for (srv, _), changes in sorted(recorder.surface_drift.items()):
        if srv == server:
            found += [(c.severity, f"{shown(c.tool)} {c}") for c in changes]
    for obs in observed.values():
        found += [(d.severity, f"{shown(obs.tool.name)} {d}") for d in obs.additive.values()]
    if not found:
        return []
    if recorder.mode == "update":
        header = "drift accepted by --mcp-snapshot-update:"
    else:
        ci = recorder.mode == "ci"
        how = (
            accept_command(command, ci=True)
            if ci
            else f"accept it with: {command} --mcp-snapshot-update"
        )
        header = f"drift ({how}):"
    width = max(len(severity) for severity, _ in found) + 1
    ordered = sorted(found, key=lambda item: (DRIFT_ORDER.index(item[0]), item[1]))
    return [header, *(f"  {sev + ':':<{width}} {text}" for sev, text in ordered)]


def _written_lines(recorder: Recorder) -> list[str]:
    lines = []
    for verb, paths in (
        ("recorded", recorder.written),
        ("pruned", recorder.pruned),
        ("exported", recorder.exported),
    ):
        if paths:
            lines.append(f"{verb} {len(paths)} file(s):")
            lines += [f"  {_relative(path)}" for path in paths]
    if recorder.unwritten:
        lines.append("not written (left as it is):")
        lines += [f"  {problem}" for problem in recorder.unwritten]
    if recorder.not_exported:
        lines.append("proposals not exported:")
        lines += [f"  {why}" for why in recorder.not_exported]
    return lines
