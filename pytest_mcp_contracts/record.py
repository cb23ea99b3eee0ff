"""Record: what a run may write to the snapshot folder, decided per tool, written at the end.

- record (the default, locally): a missing contract is recorded; an existing one is never
  overwritten, only checked.
- ci (the ``CI`` environment variable is set): nothing is written; a missing contract fails.
- update (``--mcp-snapshot-update``): this run's observations are merged into the recorded
  contracts, drift is accepted, and contracts of tools the server no longer lists are pruned,
  but only when every tool of that server ran.

Writes are queued and flushed once, at session end, so a run stopped half-way writes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from .discover import ServerSurface, ToolSpec
from .observe import RecordedContract, RecordError, ToolObservations
from .snapshot import SnapshotError, SnapshotStore, dumps

RECORD, CI, UPDATE = "record", "ci", "update"
MODES: Final = (RECORD, CI, UPDATE)


@dataclass
class Recorder:
    store: SnapshotStore
    mode: str
    tools: dict[tuple[str, str], ToolObservations] = field(default_factory=dict)
    written: list[Path] = field(default_factory=list)
    pruned: list[Path] = field(default_factory=list)
    exported: list[Path] = field(default_factory=list)
    _pending: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)

    def start_tool(self, server: str, tool: ToolSpec) -> ToolObservations:
        """Load what is recorded for the tool; SnapshotError when the file is unusable."""
        data = self.store.read(server, tool.node_name)
        recorded = None
        if data is not None:
            path = self.store.path_for(server, tool.node_name)
            if data.get("tool") != tool.name:
                raise SnapshotError(
                    path, f"it records tool {data.get('tool')!r}, not {tool.name!r}"
                )
            output = data.get("output")
            if isinstance(output, dict) and output.get("source") == "inferred":
                try:
                    recorded = RecordedContract.from_data(output)
                except RecordError as exc:
                    raise SnapshotError(path, str(exc)) from None
        observations = ToolObservations(
            tool=tool, recorded=recorded, checking=self.mode != UPDATE, has_record=data is not None
        )
        self.tools[(server, tool.node_name)] = observations
        return observations

    def path(self, server: str, tool: ToolSpec) -> Path:
        return self.store.path_for(server, tool.node_name)

    def finish_tool(self, surface: ServerSurface, server: str, obs: ToolObservations) -> None:
        """The tool's contract item ended; queue what this mode writes for it."""
        obs.ran = True
        if not obs.passed or self.mode == CI:
            return
        if self.mode == RECORD and obs.has_record:
            return
        output: dict[str, Any] = (
            {"source": "declared", "quality": "declared"}
            if obs.declared
            else (obs.merged() if self.mode == UPDATE else obs.learned()).to_data()
        )
        self._pending[(server, obs.tool.node_name)] = {
            "server": surface.name,
            "tool": obs.tool.name,
            "output": output,
        }

    def missing_in_ci(self, obs: ToolObservations) -> bool:
        return self.mode == CI and not obs.has_record

    def stale(self, server: str, surface: ServerSurface) -> list[Path]:
        """Recorded contracts of tools the server no longer lists."""
        listed = {t.node_name for t in surface.tools}
        return [
            self.store.path_for(server, name)
            for name in self.store.recorded_tools(server)
            if name not in listed
        ]

    def flush(self, surfaces: dict[str, ServerSurface]) -> None:
        """Write what was queued; under update, prune servers whose every tool ran."""
        for (server, tool), data in sorted(self._pending.items()):
            if self.store.write(server, tool, data):
                self.written.append(self.store.path_for(server, tool))
        self._pending.clear()
        if self.mode != UPDATE:
            return
        for server, surface in surfaces.items():
            ran = {tool for (srv, tool), obs in self.tools.items() if srv == server and obs.ran}
            if ran >= {t.node_name for t in surface.tools}:
                for path in self.stale(server, surface):
                    path.unlink(missing_ok=True)
                    self.pruned.append(path)


SCHEMA_DIALECT: Final = "https://json-schema.org/draft/2020-12/schema"


def proposed_output_schema(obs: ToolObservations) -> dict[str, Any] | None:
    """The outputSchema a tool without one could declare, from everything observed so far."""
    if obs.declared:
        return None
    contract = obs.merged()
    if contract.shape is None:
        return None
    return {
        "$schema": SCHEMA_DIALECT,
        **contract.shape.to_schema(),
        "description": (
            f"Proposed outputSchema for tool {obs.tool.name!r}, inferred by pytest-mcp-contracts "
            f"from {contract.observations} observations on {contract.distinct_inputs} distinct "
            f"inputs (quality: {obs.quality}). Review it, declare it on the tool, and return the "
            "same value as structuredContent."
        ),
    }


def export_proposals(recorder: Recorder, folder: Path) -> list[Path]:
    """Write one proposed outputSchema per undeclared tool with something learned."""
    written = []
    exports = SnapshotStore(folder)
    for (server, tool), obs in sorted(recorder.tools.items()):
        schema = proposed_output_schema(obs)
        if schema is None:
            continue
        path = exports.path_for(server, tool)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(dumps(schema), encoding="utf-8")
        written.append(path)
    return written
