"""The drift gate: a tool's, prompt's, resource's or template's listing entry against its
recorded one, and recorded ones the server no longer lists.

Plain functions over the recorder: the pytest items hand in the server, the entry and the
words of the commands to suggest, and turn a ``ContractFailure`` into a failed item. A tool's
latency is gated here too (``gate_latency``), with a warning only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from pytest_mcp_contracts.contracts.change import Change
from pytest_mcp_contracts.judges.failures import ContractFailure, FailureKind, FailureReport
from pytest_mcp_contracts.vocabulary import IMPACT_ORDER, EntryKind, Impact, SnapshotMode

if TYPE_CHECKING:
    from pytest_mcp_contracts.contracts.latency import LatencyRecord
    from pytest_mcp_contracts.contracts.record import Recorder
    from pytest_mcp_contracts.transport.discover import (
        Entry,
        ServerSurface,
    )
    from pytest_mcp_contracts.transport.managed import ManagedServer

CHECK: Final = "drift"
MAX_DRIFT_LINES: Final = 30  # one shared definition can change hundreds of paths


@dataclass(frozen=True)
class Attributed:
    """A listing change and the tool it belongs to, for the summary."""

    tool: str
    change: Change

    @property
    def impact(self) -> Impact:
        return self.change.impact

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


def gate_listing(
    recorder: Recorder,
    server: ManagedServer,
    surface: ServerSurface,
    entry: Entry,
    *,
    record_command: str,
    accept: str,
) -> str | None:
    """Compare the entry's listing with the recorded one, queue the new one, and raise a
    ContractFailure for a change that blocks (or a listing CI cannot record); a changed
    description that does not block comes back as a warning's text."""
    from pytest_mcp_contracts.contracts.drift.listing import added, diff_listing
    from pytest_mcp_contracts.contracts.record import listing_of
    from pytest_mcp_contracts.contracts.snapshot import SnapshotError, file_of

    name, node, noun = server.node_name, file_of(entry), str(entry.kind)
    current = listing_of(entry)
    recorder.ran.add((name, node))
    try:
        data = recorder.load(name, node, entry.key) or {}
    except SnapshotError as exc:
        raise _failure(server, entry.key, exc.render(), FailureKind.SETUP, (), noun) from None
    recorded = data.get("surface")
    if not data and recorder.known(name, entry.kind):
        # A server with recorded entries of this sort gained this one: additive, listed
        # (or strict).
        new = added(entry.kind)
        recorder.surface_drift[(name, node)] = [Attributed(entry.key, new)]
        if recorder.blocking([new]):
            raise _failure(
                server,
                entry.key,
                f"a new {noun} drifted in (--mcp-strict)",
                FailureKind.SURFACE_DRIFT,
                (str(new),),
                noun,
            )
    if not isinstance(recorded, dict):
        if recorder.missing_in_ci(False):
            raise _failure(
                server,
                entry.key,
                f"no {noun} surface is recorded for this {noun} ({recorder.path(name, node)}), "
                "and CI is set, so none is written",
                FailureKind.MISSING_RECORD,
                (f"record it locally with: {record_command}  and commit the file",),
                noun,
            )
        recorder.queue(surface.name, name, node, entry.key, "surface", current, recorded=False)
        return None
    changes = diff_listing(entry.kind, recorded, current)
    recorder.surface_drift[(name, node)] = [Attributed(entry.key, c) for c in changes]
    if changes:
        recorder.queue(surface.name, name, node, entry.key, "surface", current, recorded=True)
    blocking = recorder.blocking(changes)
    if blocking:
        # The first line is all a short summary, a step summary or a run report shows:
        # it says what drifted. The recorded file and every change follow.
        more = f", and {len(blocking) - 1} more" if len(blocking) > 1 else ""
        only_descriptions = all(c.impact is Impact.DESCRIPTION for c in blocking)
        raise _failure(
            server,
            entry.key,
            f"the {noun}'s surface drifted ({blocking[0].impact}): {blocking[0]}{more}",
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
    described = [c for c in changes if c.impact is Impact.DESCRIPTION]
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


# Who a removed entry breaks, how its failure is filed (removing a tool has a kind of its
# own), and what accepting it accepts.
_BREAKS: Final = {
    EntryKind.TOOL: ("clients that call it will break", FailureKind.REMOVED_TOOL, "removal"),
    EntryKind.PROMPT: ("clients that get it will break", FailureKind.SURFACE_DRIFT, "change"),
    EntryKind.RESOURCE: ("clients that read it will break", FailureKind.SURFACE_DRIFT, "change"),
    EntryKind.TEMPLATE: (
        "clients that expand it will break",
        FailureKind.SURFACE_DRIFT,
        "change",
    ),
}


def gate_removed(
    recorder: Recorder, server: ManagedServer, surface: ServerSurface, file: str, *, accept: str
) -> None:
    """Raise a ContractFailure while the recorded entry ``file`` (its file name in the
    server's folder) is missing from the listing (removing one is breaking), unless removals
    do not block. A resource or template of the same name that is listed under another URI
    or template is said as what it became (``contracts/drift/content_listing.moved``)."""
    from pytest_mcp_contracts.contracts.drift.content_listing import moved
    from pytest_mcp_contracts.contracts.drift.listing import removed
    from pytest_mcp_contracts.contracts.snapshot import SnapshotError, kind_of

    kind = kind_of(file)
    noun, node = str(kind), file.rpartition("/")[2]
    try:
        data = recorder.load(server.node_name, file, None) or {}
    except SnapshotError as exc:
        raise _failure(server, node, exc.render(), FailureKind.SETUP, (), noun) from None
    name = str(data.get(noun, node))
    recorded = data.get("surface")
    same_kind = [e.raw for e in surface.entries if e.kind is kind]
    became = moved(kind, recorded, same_kind) if isinstance(recorded, dict) else None
    change = became or removed(kind)
    recorder.removals_seen.add((server.node_name, file))
    recorder.surface_drift[(server.node_name, file)] = [Attributed(name, change)]
    if not recorder.blocking([change]):
        return
    path = recorder.path(server.node_name, file)
    why, failure_kind, accepted = _BREAKS[kind]
    if became is None:
        problem = f"{noun} {name!r} is recorded ({path}) but the server no longer lists it"
        details: tuple[str, ...] = (why,)
    else:
        problem = f"the {noun}'s surface drifted ({became.impact}): {became}"
        details = (f"recorded surface: {path}", f"{noun} {name!r} is no longer listed")
        failure_kind = FailureKind.SURFACE_DRIFT
    details += (f"if the {accepted} is intended, {accept}",)
    raise _failure(server, name, problem, failure_kind, details, noun)


def drift_details(
    changes: Sequence[Change], blocking: Sequence[Change], accept: str
) -> tuple[str, ...]:
    """Every change by impact (the gravest first, each group cut at MAX_DRIFT_LINES), and
    how to accept them."""
    lines = []
    for impact in IMPACT_ORDER:
        group = [c for c in changes if c.impact is impact]
        if group:
            lines.append(f"{impact}:")
            lines += [f"  {c}" for c in group[:MAX_DRIFT_LINES]]
            if len(group) > MAX_DRIFT_LINES:
                lines.append(f"  … and {len(group) - MAX_DRIFT_LINES} more")
    if any(c.impact is Impact.REVIEW for c in blocking):
        lines.append("review: a change the plugin cannot classify soundly; check it by hand")
    if any(c.impact is Impact.DESCRIPTION for c in blocking):
        lines.append(
            "description: an instruction to the model changed (tool poisoning arrives this "
            "way); read the new text before you accept it"
        )
    lines.append(f"if the change is intended, {accept}")
    return tuple(lines)


def gate_latency(
    recorder: Recorder,
    server: str,
    surface: ServerSurface,
    entry: Entry,
    current: LatencyRecord | None,
    *,
    accept: str,
) -> str | None:
    """Compare a tool's latency with the recorded one and queue this run's where none is
    recorded, or under update (which keeps the recorded figures unless this run's moved
    past the rule: ``contracts/latency.latency_to_keep``); a warning's text when the p95 grew
    (``latency_grew``) or the recorded figures are unusable. Never a failure: machines
    differ. ``current`` None: too few answered calls (--mcp-latency-calls) to record or
    compare anything. ``server`` is its folder's name (``ManagedServer.node_name``)."""
    from pytest_mcp_contracts.contracts.latency import (
        LATENCY_SECTION,
        LatencyRecord,
        latency_grew,
    )
    from pytest_mcp_contracts.contracts.snapshot import file_of

    if current is None:
        return None
    file = file_of(entry)
    data = recorder.load(server, file, entry.key) or {}  # loaded (and checked) by the check
    raw = data.get(LATENCY_SECTION)
    # A plain run writes only a missing section: a timing that moved is no reason to
    # rewrite a file (git churn); nor is one under update that the rule cannot tell apart.
    recorder.queue(
        surface.name,
        server,
        file,
        entry.key,
        LATENCY_SECTION,
        current.to_data(),
        recorded=raw is not None,
    )
    if raw is None or recorder.mode == SnapshotMode.UPDATE:
        return None
    path = recorder.path(server, file)
    try:
        recorded = LatencyRecord.from_data(raw)
    except ValueError as exc:
        return (
            f"the recorded latency in {path} is not usable ({exc}); it is ignored, and "
            f"nothing is compared. To record this run's figures in its place, {accept}"
        )
    if not latency_grew(recorded, current):
        return None
    # A hand-written 0 is a figure too: anything at least the floor above it grew.
    times = f"{current.p95_ms / recorded.p95_ms:.1f}x, " if recorded.p95_ms else ""
    return (
        f"p95 latency grew to {current.p95_ms:g} ms from the recorded {recorded.p95_ms:g} ms "
        f"({times}over {current.calls} answered calls; "
        f"recorded over {recorded.calls} in {path}). Only a warning: machines differ. "
        f"If the tool is meant to answer this slowly now, {accept}"
    )
