"""Record: what a run may write to the snapshot folder, decided per entry, written at the end.

An entry's file has one section per contract: ``surface`` (its listing entry as the drift
gate records it: ``listing_of``) and its results' section (``RESULT_SECTIONS``): a tool's
``output`` (what it returns: declared, or inferred from observations), a prompt's,
resource's or template's ``content`` (what its gets or reads return, inferred as tools'
outputs are: ``contracts/content``). Every file goes through the one queue below, by file
name (``snapshot.file_of``: ``<node>`` for a tool, ``<folder>/<node>`` for the others).

- record (the default, locally): a missing section is recorded; an existing one is never
  overwritten, only checked.
- ci (the ``CI`` environment variable is set): nothing is written; a missing section fails.
- update (``--mcp-snapshot-update``): this run's sections replace the recorded ones (the
  output contract is re-learned from this run's observations alone: accepting replaces),
  and files of tools the server no longer lists are pruned, but only when every tool of
  that server ran (some item of it) and the removed tool's own drift item ran: under ``-k``
  nothing is pruned by accident. An output contract that states the same thing as the
  recorded one keeps the recorded file, evidence counts included: no change, no diff.

A tool's ``latency`` section (its contract calls' p50 and p95: ``contracts/latency``) follows
the same modes: recorded when missing, never written in CI, and under update replaced when
this run's figures moved past the drift gate's rule (else kept, byte for byte, as an unchanged
output contract is); the drift gate compares against it and only warns
(``judges/drift_gate.gate_latency``).

Writes are queued and flushed once, at session end, so a run stopped half-way writes nothing.
The flush holds a lock on the snapshot folder and reads each file again under it. A file that
another run changed since this one read it is left alone and reported: under replace
semantics writing over it would silently undo the other run's acceptance (an update) or
overwrite what it recorded (a local run only fills in sections still missing).
"""

from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from pytest_mcp_contracts.contracts.latency import LATENCY_SECTION, latency_to_keep
from pytest_mcp_contracts.contracts.observe import (
    EntryObservations,
    RecordedContract,
    RecordError,
    same_contract,
)
from pytest_mcp_contracts.contracts.snapshot import (
    SnapshotError,
    SnapshotStore,
    dumps,
    file_named,
    file_of,
    kind_of,
    write_atomic,
)
from pytest_mcp_contracts.transport.discover import (
    Entry,
    ServerSurface,
)
from pytest_mcp_contracts.vocabulary import BESIDE_TOOLS, EntryKind, Impact, SnapshotMode

#: What the drift gate records of each kind of entry: the members of its listing entry a
#: client relies on or shows, exactly as listed (a tool's declarations; never a prompt's,
#: resource's or template's ``_meta``, ``icons``, ``size`` or ``annotations``: they change
#: without changing what a client can do with it).
LISTING_KEYS: Final = {
    EntryKind.TOOL: ("name", "title", "description", "inputSchema", "outputSchema", "annotations"),
    EntryKind.PROMPT: ("name", "title", "description", "arguments"),
    EntryKind.RESOURCE: ("uri", "name", "title", "description", "mimeType"),
    EntryKind.TEMPLATE: ("uriTemplate", "name", "title", "description", "mimeType"),
}


def listing_of(entry: Entry) -> dict[str, Any]:
    """What the drift gate records of an entry: its listing entry's ``LISTING_KEYS``."""
    return {key: entry.raw[key] for key in LISTING_KEYS[entry.kind] if key in entry.raw}


#: The section of each kind's file that holds what its calls return.
RESULT_SECTIONS: Final = {
    EntryKind.TOOL: "output",
    EntryKind.PROMPT: "content",
    EntryKind.RESOURCE: "content",
    EntryKind.TEMPLATE: "content",
}


def file_keys(kind: EntryKind) -> tuple[str, ...]:
    """The keys of a file of ``kind``: it names its entry under its kind (``"tool":
    "get_item"``, ``"prompt": "greet"``)."""
    # "surface" is the file format's name for the recorded listing entry (listing_of).
    keys = ("format_version", "server", str(kind), "surface", RESULT_SECTIONS[kind])
    # Only tools' calls are timed. What the latency section holds is checked where it is
    # read (contracts/latency): an unusable figure is ignored with a warning, not an error
    # of the whole file, since latency never fails a run.
    return (*keys, LATENCY_SECTION) if kind is EntryKind.TOOL else keys


OUTPUT_SOURCES: Final = ("declared", "inferred")


def contract_problem(data: dict[str, Any], kind: EntryKind = EntryKind.TOOL) -> str | None:
    """Why a snapshot file (valid JSON, the right format version) of an entry of ``kind`` is
    not a contract this plugin could have written, or None. Such a file is an error naming
    it, and it is never rewritten: merging a run into it would bury what someone put there."""
    keys = file_keys(kind)
    identity, section = str(kind), RESULT_SECTIONS[kind]
    unknown = sorted(set(data) - set(keys))
    if unknown:
        return f"unknown key(s) {unknown}; a contract file has {', '.join(keys)}"
    for key in ("server", identity):
        if not isinstance(data.get(key, ""), str):
            return f"{key!r} must be a string, not {data[key]!r:.80}"
    if not isinstance(data.get("surface", {}), dict):
        return f"'surface' must be an object (the {kind} as it was listed)"
    output = data.get(section)
    if output is None:
        return None
    if not isinstance(output, dict) or output.get("source") not in OUTPUT_SOURCES:
        return f"{section!r} must be an object whose source is one of {', '.join(OUTPUT_SOURCES)}"
    if output["source"] == "inferred":
        try:
            RecordedContract.from_data(output, section)
        except RecordError as exc:
            return str(exc)
    return None


@dataclass(frozen=True)
class _Learned:
    """An output section to compute at flush time, against the file as it is then."""

    declared: bool
    contract: RecordedContract | None = None  # what this run learned (undeclared output)

    def resolve(self, on_disk: Any) -> dict[str, Any]:
        if self.declared or self.contract is None:
            return {"source": "declared", "quality": "declared"}
        contract = self.contract
        if isinstance(on_disk, dict) and on_disk.get("source") == "inferred":
            recorded = RecordedContract.from_data(on_disk)
            if recorded.shape is not None and contract.shape is not None:
                shape = copy.deepcopy(contract.shape)
                shape.settle(recorded.shape)
                contract = dataclasses.replace(contract, shape=shape)
        learned = contract.to_data()
        if isinstance(on_disk, dict) and same_contract(on_disk, learned):
            return on_disk  # the same contract: its recorded evidence stays, byte for byte
        return learned

    def to_data(self) -> dict[str, Any]:
        return {
            LEARNED_KEY: True,
            "declared": self.declared,
            "contract": None if self.contract is None else self.contract.to_data(),
        }

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> _Learned:
        contract = data.get("contract")
        return cls(
            bool(data.get("declared")),
            None if contract is None else RecordedContract.from_data(contract),
        )


LEARNED_KEY: Final = "__learned__"


@dataclass
class _Pending:
    server_name: str
    tool_name: str  # the name the file records: its entry's key
    sections: dict[str, Any] = field(default_factory=dict)
    # The file as this run read it (None: absent); only known when this run read it.
    base: dict[str, Any] | None = None
    base_known: bool = False


@dataclass
class Recorder:
    store: SnapshotStore
    mode: str
    strict: bool = False
    pin_descriptions: bool = False  # --mcp-descriptions=pin
    # Each entry's observations, by (server, file name).
    observed: dict[tuple[str, str], EntryObservations] = field(default_factory=dict)
    surface_drift: dict[tuple[str, str], list[Any]] = field(default_factory=dict)
    ran: set[tuple[str, str]] = field(default_factory=set)  # entries any item of which ran
    removals_seen: set[tuple[str, str]] = field(default_factory=set)
    written: list[Path] = field(default_factory=list)
    pruned: list[Path] = field(default_factory=list)
    exported: list[Path] = field(default_factory=list)
    unwritten: list[str] = field(default_factory=list)  # files changed under us, left alone
    not_exported: list[str] = field(default_factory=list)  # proposals refused, and why
    _pending: dict[tuple[str, str], _Pending] = field(default_factory=dict)
    _loaded: dict[tuple[str, str], dict[str, Any] | None] = field(default_factory=dict)
    _known: dict[tuple[str, bool], bool] = field(default_factory=dict)

    # -- reading ---------------------------------------------------------------------------

    def path(self, server: str, tool_node: str) -> Path:
        """Where a file is (its former name's path while it is found there)."""
        return self.store.located(server, tool_node)

    def load(self, server: str, tool_node: str, tool_name: str | None) -> dict[str, Any] | None:
        """An entry's recorded file (``tool_node`` its file name; read once); SnapshotError
        when it is unusable."""
        key = (server, tool_node)
        if key not in self._loaded:
            data = self._read(server, tool_node)
            identity = str(kind_of(tool_node))
            if data is not None and tool_name is not None and data.get(identity) != tool_name:
                raise SnapshotError(
                    self.path(server, tool_node),
                    f"it records {identity} {data.get(identity)!r}, not {tool_name!r}",
                )
            self._loaded[key] = data
        return self._loaded[key]

    def _read(self, server: str, tool_node: str) -> dict[str, Any] | None:
        data = self.store.read(server, tool_node)
        problem = None if data is None else contract_problem(data, kind_of(tool_node))
        if problem is not None:
            raise SnapshotError(self.path(server, tool_node), f"not a contract: {problem}")
        return data

    def start(self, server: str, entry: Entry) -> EntryObservations:
        """The entry's observations, with its recorded results' contract to check against
        (its call items call this, then ``observations.observe`` per result, then
        ``finish``)."""
        observations = self.recorded(server, entry)
        self.observed[(server, file_of(entry))] = observations
        return observations

    def recorded(self, server: str, entry: Entry) -> EntryObservations:
        """Observations to check results against the entry's recorded contract, that teach
        the recorder nothing (the mcp_server fixture's: a hand-written test's inputs are no
        evidence of the contract)."""
        file, section = file_of(entry), RESULT_SECTIONS[entry.kind]
        data = self.load(server, file, entry.key) or {}
        output = data.get(section)
        recorded = None
        if isinstance(output, dict) and output.get("source") == "inferred":
            try:
                recorded = RecordedContract.from_data(output, section)
            except RecordError as exc:
                raise SnapshotError(self.path(server, file), str(exc)) from None
        return EntryObservations(
            entry=entry,
            recorded=recorded,
            checking=self.mode != SnapshotMode.UPDATE,
            strict=self.strict,
            has_record=isinstance(output, dict),
        )

    def finish(
        self, surface: ServerSurface, server: str, obs: EntryObservations, *, passed: bool
    ) -> None:
        """The entry's call item ended; queue its results' contract if it ``passed`` and
        this mode writes it. A tool's is recorded whatever it returned (declared, or what
        was learned); another entry's only when it returned JSON: a text resource has no
        content contract."""
        obs.ran = True
        entry = obs.entry
        file = file_of(entry)
        self.ran.add((server, file))
        if not passed or (entry.kind is not EntryKind.TOOL and not obs.observations):
            return
        # Resolved at flush against the file as it is then (an unchanged contract keeps it).
        learned = _Learned(obs.declared, None if obs.declared else obs.learned())
        section = RESULT_SECTIONS[entry.kind]
        self.queue(surface.name, server, file, entry.key, section, learned, recorded=obs.has_record)

    def known(self, server: str, kind: EntryKind) -> bool:
        """Whether the server had recorded entries of ``kind``'s sort (tools, or prompts,
        resources and templates) before this run wrote anything. Each sort by itself: a
        server recorded before prompts were snapshotted would see every prompt it lists
        "drift in" on the first run that records them."""
        tools = kind is EntryKind.TOOL
        if (server, tools) not in self._known:
            kinds = (EntryKind.TOOL,) if tools else BESIDE_TOOLS
            self._known[(server, tools)] = bool(self.store.recorded(server, *kinds))
        return self._known[(server, tools)]

    def missing_in_ci(self, has_section: bool) -> bool:
        return self.mode == SnapshotMode.CI and not has_section

    def content_missing_in_ci(self, obs: EntryObservations) -> bool:
        """Whether a read or get item must fail in CI for want of a content contract: only
        an entry that returned JSON has one to record (a text resource has none)."""
        return self.missing_in_ci(obs.has_record) and obs.observations > 0

    # -- deciding what to write ------------------------------------------------------------

    def queue(
        self,
        server_name: str,
        server: str,
        file: str,
        name: str,
        section: str,
        value: Any,
        *,
        recorded: bool,
    ) -> None:
        """Queue a section of a file (``name`` is what the file records its entry as): in
        record mode only a missing one, in update mode always."""
        if self.mode == SnapshotMode.CI or (self.mode == SnapshotMode.RECORD and recorded):
            return
        key = (server, file)
        pending = self._pending.setdefault(key, _Pending(server_name, name))
        if key in self._loaded and not pending.base_known:
            pending.base, pending.base_known = self._loaded[key], True
        pending.sections[section] = value

    def blocking(self, changes: list[Any]) -> list[Any]:
        """The drift that fails a run: breaking and unreviewed, changed descriptions where
        they are pinned, or any under --mcp-strict."""
        if self.mode == SnapshotMode.UPDATE:
            return []
        if self.strict:
            return list(changes)
        failing = {Impact.BREAKING, Impact.REVIEW}
        if self.pin_descriptions:
            failing.add(Impact.DESCRIPTION)
        return [c for c in changes if c.impact in failing]

    # -- the folder ------------------------------------------------------------------------

    def stale(self, server: str, surface: ServerSurface) -> list[str]:
        """File names of recorded entries the server no longer lists. Not those of a
        listing that failed this run: its entries are unknown, not removed (its own item
        fails)."""
        listed = {file_of(e) for e in surface.entries}
        failed = {f.kind for f in surface.listing_failures}
        return [name for name in self._stale(server, listed) if kind_of(name) not in failed]

    def _stale(self, server: str, listed: set[str]) -> list[str]:
        # Tools first, as their items are collected.
        recorded = [
            *self.store.recorded(server, EntryKind.TOOL),
            *self.store.recorded(server, *BESIDE_TOOLS),
        ]
        return [name for name in recorded if name not in listed]

    def flush(self, listed: dict[str, set[str]]) -> None:
        """Write what was queued; under update, prune servers whose every tool ran.

        ``listed`` holds each server's listed entries (file names, ``file_of``). Under the
        folder's lock,
        each file is read again: another run may have written it since this one started.
        """
        if not self._pending and self.mode != SnapshotMode.UPDATE:
            return
        with self.store.locked():
            self._write_pending()
            if self.mode == SnapshotMode.UPDATE:
                self._prune(listed)

    def _write_pending(self) -> None:
        for (server, tool), pending in sorted(self._pending.items()):
            try:
                current = self._read(server, tool)
                on_disk = current or {}
                data = dict(on_disk)
                for section, value in pending.sections.items():
                    if self.mode == SnapshotMode.RECORD and section in on_disk:
                        continue  # recorded by another run meanwhile: a local run never overwrites
                    if isinstance(value, _Learned):
                        value = value.resolve(on_disk.get(section))
                    elif section == LATENCY_SECTION:  # figures that did not move stay
                        value = latency_to_keep(on_disk.get(section), value)
                    data[section] = value
            except (SnapshotError, RecordError) as exc:
                self.unwritten.append(f"{self.path(server, tool)}: {exc}")
                continue
            data.update({"server": pending.server_name, str(kind_of(tool)): pending.tool_name})
            changed_meanwhile = pending.base_known and _content(current) != _content(pending.base)
            if (
                self.mode == SnapshotMode.UPDATE
                and changed_meanwhile
                and _content(data) != _content(current)
            ):
                self.unwritten.append(
                    f"{self.path(server, tool)}: another run changed it since this run read it; "
                    "run the update again to accept what this server returns now"
                )
                continue
            if self.store.write(server, tool, data):
                self.written.append(self.path(server, tool))
        self._pending.clear()

    def _prune(self, listed: dict[str, set[str]]) -> None:
        for server, tools in sorted(listed.items()):
            ran = {tool for (srv, tool) in self.ran if srv == server}
            if ran >= tools:
                for name in self._stale(server, tools):
                    if (server, name) in self.removals_seen:
                        self.store.delete(server, name)
                        self.pruned.append(self.path(server, name))

    # -- xdist: workers hand what they would write to the controller, which writes once ----

    def hand_over(self, listed: dict[str, set[str]]) -> dict[str, Any]:
        """What this (worker) run would write, as JSON-able data for the controller."""
        return {
            "pending": [
                {
                    "server": server,
                    "tool": tool,
                    "server_name": pending.server_name,
                    "tool_name": pending.tool_name,
                    "base": pending.base,
                    "base_known": pending.base_known,
                    "sections": {
                        name: value.to_data() if isinstance(value, _Learned) else value
                        for name, value in pending.sections.items()
                    },
                }
                for (server, tool), pending in sorted(self._pending.items())
            ],
            "ran": sorted(self.ran),
            "removals_seen": sorted(self.removals_seen),
            # Where the files were found: the controller writes (and moves) them.
            "former": [[*now, *was] for now, was in sorted(self.store.former.items())],
            "listed": {server: sorted(tools) for server, tools in listed.items()},
        }

    def take_over(self, handed: dict[str, Any]) -> dict[str, set[str]]:
        """Queue what a worker handed over; return its servers' listed tools."""
        for entry in handed["pending"]:
            pending = self._pending.setdefault(
                (entry["server"], entry["tool"]), _Pending(entry["server_name"], entry["tool_name"])
            )
            if entry["base_known"] and not pending.base_known:
                pending.base, pending.base_known = entry["base"], True
            for name, value in entry["sections"].items():
                is_learned = isinstance(value, dict) and value.get(LEARNED_KEY) is True
                pending.sections[name] = _Learned.from_data(value) if is_learned else value
        for server, name, former_server, former in handed.get("former", []):
            self.store.former[(server, name)] = (former_server, former)
        self.ran |= {(server, tool) for server, tool in handed["ran"]}
        self.removals_seen |= {(server, tool) for server, tool in handed["removals_seen"]}
        return {server: set(tools) for server, tools in handed["listed"].items()}


def _content(data: dict[str, Any] | None) -> dict[str, Any] | None:
    # What a file says, apart from the version stamp the store adds on every write.
    if data is None:
        return None
    return {k: v for k, v in data.items() if k != "format_version"}


SCHEMA_DIALECT: Final = "https://json-schema.org/draft/2020-12/schema"


def follow_former_names(
    store: SnapshotStore, server: str, former_server: str, surface: ServerSurface
) -> None:
    """Let the contracts of ``surface``'s server (its folder ``server``) be found where
    earlier versions recorded them: names that had to change then kept a hash even when
    no other entry rendered alike (``discover.former_node_names``). They are read there,
    and a run that writes one (an update, a local run filling in a section) moves it."""
    renames = {
        file_of(entry): file_named(entry.kind, entry.former_name)
        for entry in surface.entries
        if entry.former_name
    }
    store.follow(server, former_server or server, renames)


def proposed_output_schema(obs: EntryObservations) -> tuple[dict[str, Any] | None, str | None]:
    """The outputSchema a tool without one could declare, or why none is proposed.

    It is the recorded contract when this run checked against one (a CI run with fewer
    inputs proposes what was accepted, not what it happened to see), else what this run
    learned. A path that took different types is never proposed (``union_refusal``).
    """
    if obs.declared:
        return None, None
    contract = obs.learned()
    recorded = obs.recorded
    if recorded is not None and recorded.shape is not None and (obs.checking or not contract.shape):
        contract = recorded
    if contract.shape is None:
        return None, None
    refused = union_refusal(contract.shape.unions())
    if refused is not None:
        return None, f"{obs.entry.name}: not exported: {refused}"
    quality, basis = obs.assessment
    return {
        "$schema": SCHEMA_DIALECT,
        **contract.shape.to_schema(),
        "description": proposal_description(obs.entry.name, quality, basis),
    }, None


def union_refusal(unions: list[tuple[str, str]]) -> str | None:
    """Why a learned contract whose paths took different types is not proposed, or None.

    Declaring ``number | string`` would make a probable bug the tool's promise."""
    if not unions:
        return None
    paths = ", ".join(f"{path} is {types}" for path, types in unions)
    return f"{paths} (make it one type, or declare it)"


def proposal_description(tool: str, quality: str, basis: str) -> str:
    """The description of a proposed outputSchema: where it comes from and what to do."""
    return (
        f"Proposed outputSchema for tool {tool!r}, inferred by pytest-mcp-contracts "
        f"(quality: {quality}: {basis}). Review it, declare it on the tool, and return the "
        "same value as structuredContent."
    )


def export_proposals(recorder: Recorder, folder: Path) -> list[Path]:
    """Write one proposed outputSchema per undeclared tool with something learned; the tools
    left out, and why, go to ``recorder.not_exported``."""
    written = []
    exports = SnapshotStore(folder)
    for (server, tool), obs in sorted(recorder.observed.items()):
        if obs.entry.kind is not EntryKind.TOOL:
            continue  # a prompt's or resource's content has no schema to declare
        schema, refused = proposed_output_schema(obs)
        if refused is not None:
            recorder.not_exported.append(refused)
        if schema is None:
            continue
        path = exports.path_for(server, tool)
        write_atomic(path, dumps(schema))
        written.append(path)
    return written
