"""The drift gate: a tool's, prompt's, resource's or template's listed surface against its
recorded one, and recorded ones the server no longer lists.

Plain functions over the recorder: the pytest items hand in the server, the tool and the
words of the commands to suggest, and turn a ``ContractFailure`` into a failed item.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from pytest_mcp_contracts.checks.failures import ContractFailure, FailureKind, FailureReport
from pytest_mcp_contracts.contracts.change import Change
from pytest_mcp_contracts.vocabulary import GRAVITY, SnapshotMode

if TYPE_CHECKING:
    from pytest_mcp_contracts.contracts.record import Recorder
    from pytest_mcp_contracts.transport.discover import ListedSpec, ServerSurface, ToolSpec
    from pytest_mcp_contracts.transport.managed import ManagedServer

CHECK: Final = "drift"
MAX_DRIFT_LINES: Final = 30  # one shared definition can change hundreds of paths


@dataclass(frozen=True)
class Attributed:
    """A surface change and the tool it belongs to, for the summary."""

    tool: str
    change: Change

    @property
    def severity(self) -> str:
        return str(self.change.severity)

    def __str__(self) -> str:
        return str(self.change)


def _failure(
    server: ManagedServer,
    tool: str,
    problem: str,
    kind: FailureKind,
    details: tuple[str, ...] = (),
    subject: str = "tool",
) -> ContractFailure:
    report = FailureReport.for_tool(server, tool, CHECK, problem, kind, details=details)
    report.subject = subject
    return ContractFailure(report)


@dataclass(frozen=True)
class _Subject:
    """What one drift item gates: a tool, or a prompt, resource or template (``noun``), its
    file in the server's folder and the name that file records."""

    noun: str
    file: str
    name: str
    current: dict[str, Any]


def gate_surface(
    recorder: Recorder,
    server: ManagedServer,
    surface: ServerSurface,
    tool: ToolSpec,
    *,
    record_command: str,
    accept: str,
) -> str | None:
    """Compare the tool's surface with the recorded one, queue the new one, and raise a
    ContractFailure for a change that blocks (or a surface CI cannot record); a changed
    description that does not block comes back as a warning's text."""
    from pytest_mcp_contracts.contracts.drift import added_tool, diff_tool
    from pytest_mcp_contracts.contracts.record import surface_of

    subject = _Subject("tool", tool.node_name, tool.name, surface_of(tool))
    known = recorder.known_server(server.node_name)
    return _gate(
        recorder, server, surface, subject, known, added_tool(), diff_tool, record_command, accept
    )


def gate_listed(
    recorder: Recorder,
    server: ManagedServer,
    surface: ServerSurface,
    entry: ListedSpec,
    *,
    record_command: str,
    accept: str,
) -> str | None:
    """``gate_surface`` for a prompt, resource or template: its listing entry against the
    recorded one (``contracts/drift.diff_listed``)."""
    from pytest_mcp_contracts.contracts.drift import added_listed, diff_listed
    from pytest_mcp_contracts.contracts.record import listed_file, surface_of_listed

    subject = _Subject(entry.kind, listed_file(entry), entry.key, surface_of_listed(entry))
    known = recorder.known_listed(server.node_name)
    added = added_listed(entry.kind)
    return _gate(
        recorder, server, surface, subject, known, added, diff_listed, record_command, accept
    )


def _gate(
    recorder: Recorder,
    server: ManagedServer,
    surface: ServerSurface,
    subject: _Subject,
    known: bool,
    added: Change,
    diff: Callable[[dict[str, Any], dict[str, Any]], list[Change]],
    record_command: str,
    accept: str,
) -> str | None:
    from pytest_mcp_contracts.contracts.snapshot import SnapshotError

    name, node, noun = server.node_name, subject.file, subject.noun
    recorder.ran.add((name, node))
    try:
        data = recorder.load(name, node, subject.name) or {}
    except SnapshotError as exc:
        raise _failure(server, subject.name, exc.render(), FailureKind.SETUP, (), noun) from None
    recorded = data.get("surface")
    if not data and known:
        # A server with recorded entries of this sort gained this one: additive, listed
        # (or strict).
        recorder.surface_drift[(name, node)] = [Attributed(subject.name, added)]
        if recorder.blocking([added]):
            raise _failure(
                server,
                subject.name,
                f"a new {noun} drifted in (--mcp-strict)",
                FailureKind.SURFACE_DRIFT,
                (str(added),),
                noun,
            )
    if not isinstance(recorded, dict):
        if recorder.missing_in_ci(False):
            raise _failure(
                server,
                subject.name,
                f"no {noun} surface is recorded for this {noun} ({recorder.path(name, node)}), "
                "and CI is set, so none is written",
                FailureKind.MISSING_RECORD,
                (f"record it locally with: {record_command}  and commit the file",),
                noun,
            )
        recorder.queue_file(
            surface.name, name, node, subject.name, "surface", subject.current, recorded=False
        )
        return None
    changes = diff(recorded, subject.current)
    recorder.surface_drift[(name, node)] = [Attributed(subject.name, c) for c in changes]
    if changes:
        recorder.queue_file(
            surface.name, name, node, subject.name, "surface", subject.current, recorded=True
        )
    blocking = recorder.blocking(changes)
    if blocking:
        # The first line is all a short summary, a step summary or a run report shows:
        # it says what drifted. The recorded file and every change follow.
        more = f", and {len(blocking) - 1} more" if len(blocking) > 1 else ""
        only_descriptions = all(c.severity == "description" for c in blocking)
        raise _failure(
            server,
            subject.name,
            f"the {noun}'s surface drifted ({blocking[0].severity}): {blocking[0]}{more}",
            FailureKind.DESCRIPTION_DRIFT if only_descriptions else FailureKind.SURFACE_DRIFT,
            (
                f"recorded surface: {recorder.path(name, node)}",
                *drift_details(changes, blocking, accept),
            ),
            noun,
        )
    if recorder.mode == SnapshotMode.UPDATE:
        return None  # accepted: the summary lists it as such
    return description_warning(changes, accept)


def description_warning(changes: Sequence[Change], accept: str) -> str | None:
    """What a run that does not fail on changed descriptions says about them: never
    nothing, since a changed description changes what a model does with the tool."""
    described = [c for c in changes if c.severity == "description"]
    if not described:
        return None
    lines = [
        f"{'its description' if len(described) == 1 else 'descriptions'} changed since the "
        "recorded surface (an instruction to the model: read the new text before you "
        f"accept it; --mcp-descriptions=pin fails on this):",
        *(f"  {c}" for c in described[:MAX_DRIFT_LINES]),
    ]
    if len(described) > MAX_DRIFT_LINES:
        lines.append(f"  … and {len(described) - MAX_DRIFT_LINES} more")
    lines.append(f"if the change is intended, {accept}")
    return "\n".join(lines)


def gate_removed(recorder: Recorder, server: ManagedServer, node: str, *, accept: str) -> None:
    """Raise a ContractFailure while the recorded tool ``node`` is missing from the listing
    (removing a tool is breaking), unless removals do not block."""
    from pytest_mcp_contracts.contracts.drift import removed_tool
    from pytest_mcp_contracts.contracts.snapshot import SnapshotError

    try:
        data = recorder.load(server.node_name, node, None) or {}
    except SnapshotError as exc:
        raise _failure(server, node, exc.render(), FailureKind.SETUP) from None
    name = str(data.get("tool", node))
    change = removed_tool()
    recorder.removals_seen.add((server.node_name, node))
    recorder.surface_drift[(server.node_name, node)] = [Attributed(name, change)]
    if recorder.blocking([change]):
        problem = (
            f"tool {name!r} is recorded ({recorder.path(server.node_name, node)}) "
            "but the server no longer lists it"
        )
        details = ("clients that call it will break", f"if the removal is intended, {accept}")
        raise _failure(server, name, problem, FailureKind.REMOVED_TOOL, details)


def gate_removed_listed(
    recorder: Recorder, server: ManagedServer, surface: ServerSurface, file: str, *, accept: str
) -> None:
    """``gate_removed`` for a recorded prompt, resource or template (``file``:
    ``<folder>/<node>``) the server no longer lists. A resource or template of the same
    name that is listed under another URI or template is said as what it became
    (``contracts/drift.moved_listed``)."""
    from pytest_mcp_contracts.contracts.drift import moved_listed, removed_listed
    from pytest_mcp_contracts.contracts.record import listed_kind
    from pytest_mcp_contracts.contracts.snapshot import SnapshotError

    kind = listed_kind(file) or "entry"
    node = file.rpartition("/")[2]
    try:
        data = recorder.load(server.node_name, file, None) or {}
    except SnapshotError as exc:
        raise _failure(server, node, exc.render(), FailureKind.SETUP, (), kind) from None
    name = str(data.get(kind, node))
    recorded = data.get("surface")
    same_kind = [e.raw for e in surface.listed if e.kind == kind]
    moved = moved_listed(kind, recorded, same_kind) if isinstance(recorded, dict) else None
    change = moved or removed_listed(kind)
    recorder.removals_seen.add((server.node_name, file))
    recorder.surface_drift[(server.node_name, file)] = [Attributed(name, change)]
    if not recorder.blocking([change]):
        return
    path = recorder.path(server.node_name, file)
    if moved is None:
        problem = f"{kind} {name!r} is recorded ({path}) but the server no longer lists it"
        why = {
            "prompt": "clients that get it will break",
            "resource": "clients that read it will break",
        }.get(kind, "clients that expand it will break")
        details: tuple[str, ...] = (why,)
    else:
        problem = f"the {kind}'s surface drifted ({moved.severity}): {moved}"
        details = (f"recorded surface: {path}", f"{kind} {name!r} is no longer listed")
    details += (f"if the change is intended, {accept}",)
    raise _failure(server, name, problem, FailureKind.SURFACE_DRIFT, details, kind)


def drift_details(
    changes: Sequence[Change], blocking: Sequence[Change], accept: str
) -> tuple[str, ...]:
    """Every change by severity (the gravest first, each group cut at MAX_DRIFT_LINES), and
    how to accept them."""
    lines = []
    for severity in GRAVITY:
        group = [c for c in changes if c.severity == severity]
        if group:
            lines.append(f"{severity}:")
            lines += [f"  {c}" for c in group[:MAX_DRIFT_LINES]]
            if len(group) > MAX_DRIFT_LINES:
                lines.append(f"  … and {len(group) - MAX_DRIFT_LINES} more")
    if any(c.severity == "review" for c in blocking):
        lines.append("review: a change the plugin cannot classify soundly; check it by hand")
    if any(c.severity == "description" for c in blocking):
        lines.append(
            "description: an instruction to the model changed (tool poisoning arrives this "
            "way); read the new text before you accept it"
        )
    lines.append(f"if the change is intended, {accept}")
    return tuple(lines)
