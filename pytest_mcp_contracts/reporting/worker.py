"""What one process that ran the servers knows that no item owns: a "worker"'s facts.

Each xdist worker starts every server and sends these once, through ``workeroutput``, as
builtins (``to_json``); the controller reads them back (``from_json``) and folds them
(``merge``). A serial run is one worker, folded the same way. The numbers of the calls are
not here: they ride on the items' reports (``runs/stats``, ``reporting/facts``).

Paths are absolute: each renderer shows them its own way (the summary relative to the
working directory, the run report to the rootdir).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from pytest_mcp_contracts.contracts.observe import EntryObservations
    from pytest_mcp_contracts.contracts.record import Recorder
    from pytest_mcp_contracts.transport.managed import ManagedServer

Pair = tuple[str, str]  # a drift: its impact and its text
Stdout = tuple[int, list[str]]  # lines on stdout that were not JSON-RPC, and a few of them


def _pairs(changes: Iterable[Any]) -> list[Pair]:
    return [(str(change.impact), str(change)) for change in changes]


def _pairs_json(pairs: Sequence[Pair]) -> list[list[str]]:
    return [[impact, text] for impact, text in pairs]


def _pairs_from(data: Iterable[Sequence[str]]) -> list[Pair]:
    return [(str(impact), str(text)) for impact, text in data]


def _stdout_from(data: Sequence[Any] | None) -> Stdout:
    count, sample = data or (0, [])
    return int(count), [str(line) for line in sample]


@dataclass
class Snapshots:
    """What the snapshot folder saw: the paths written, pruned and exported (sorted), and
    the contracts left unwritten and the proposals not exported (in the order found)."""

    written: list[str] = field(default_factory=list)
    pruned: list[str] = field(default_factory=list)
    exported: list[str] = field(default_factory=list)
    unwritten: list[str] = field(default_factory=list)
    not_exported: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, list[str]]:
        return {name: list(getattr(self, name)) for name in _SNAPSHOT_FIELDS}

    @classmethod
    def from_json(cls, data: Mapping[str, Sequence[str]]) -> Snapshots:
        return cls(
            **{name: [str(line) for line in data.get(name, [])] for name in _SNAPSHOT_FIELDS}
        )

    @classmethod
    def merge(cls, parts: Sequence[Snapshots]) -> Snapshots:
        def paths(name: str) -> list[str]:
            return sorted({p for part in parts for p in getattr(part, name)})

        def lines(name: str) -> list[str]:  # in the order found, each once
            return list(dict.fromkeys(line for part in parts for line in getattr(part, name)))

        return cls(
            paths("written"),
            paths("pruned"),
            paths("exported"),
            lines("unwritten"),
            lines("not_exported"),
        )


_SNAPSHOT_FIELDS: Final = ("written", "pruned", "exported", "unwritten", "not_exported")


@dataclass(frozen=True)
class EntryName:
    """A prompt, resource or template as listed, or a listing that failed: ``prompt``, its
    name, ``prompt:<safe name>``; ``listing``, ``prompts/list``, ``listing:prompts`` (the
    collector's name in the node id)."""

    kind: str
    name: str
    node_name: str

    def to_json(self) -> dict[str, str]:
        return {"kind": self.kind, "name": self.name, "node_name": self.node_name}

    @classmethod
    def from_json(cls, data: Mapping[str, str]) -> EntryName:
        return cls(str(data["kind"]), str(data["name"]), str(data["node_name"]))


@dataclass
class OutputFacts:
    """What a tool's contract item observed of its outputs (the recorder's observations)."""

    quality: str
    basis: str
    varying_types: list[Pair]  # (JSON path, the types it took)
    kinds: dict[str, int]
    observations: int
    breaking: list[Pair]  # fails the item; the report lists it with the rest
    additive: list[Pair]

    @classmethod
    def of(cls, obs: EntryObservations) -> OutputFacts:
        return cls(
            quality=str(obs.quality),
            basis=obs.assessment[1],
            varying_types=[(str(p), str(t)) for p, t in obs.unions()],
            kinds={str(k): int(n) for k, n in sorted(obs.kinds.items())},
            observations=obs.observations,
            breaking=_pairs(obs.breaking.values()),
            additive=_pairs(obs.additive.values()),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "quality": self.quality,
            "basis": self.basis,
            "varying_types": [{"path": p, "types": t} for p, t in self.varying_types],
            "kinds": dict(self.kinds),
            "observations": self.observations,
            "drift": _pairs_json([*self.breaking, *self.additive]),
            "additive": _pairs_json(self.additive),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> OutputFacts:
        additive = _pairs_from(data.get("additive", []))
        drift = _pairs_from(data.get("drift", []))
        return cls(
            quality=str(data["quality"]),
            basis=str(data.get("basis", "")),
            varying_types=[
                (str(v["path"]), str(v["types"])) for v in data.get("varying_types", [])
            ],
            kinds={str(k): int(n) for k, n in data.get("kinds", {}).items()},
            observations=int(data.get("observations", 0)),
            breaking=drift[: len(drift) - len(additive)],
            additive=additive,
        )


@dataclass
class ToolFacts:
    """A tool as listed, with what the recorder learned of it (None: its item did not run
    in this worker)."""

    name: str
    node_name: str
    declared: bool = False  # it declares an outputSchema
    output: OutputFacts | None = None
    surface_drift: list[Pair] | None = None  # None: its drift item did not run here

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "node_name": self.node_name,
            "declared": self.declared,
            "output": None if self.output is None else self.output.to_json(),
            "surface_drift": None
            if self.surface_drift is None
            else _pairs_json(self.surface_drift),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ToolFacts:
        output, drift = data.get("output"), data.get("surface_drift")
        return cls(
            name=str(data["name"]),
            node_name=str(data["node_name"]),
            declared=bool(data.get("declared", False)),
            output=None if output is None else OutputFacts.from_json(output),
            surface_drift=None if drift is None else _pairs_from(drift),
        )


@dataclass
class ServerHead:
    """What is known of one server apart from its entries: how it was started (``started``
    False: only the command, its transport and why it did not start), what it called
    itself, and what its process did beside the calls."""

    command: str
    transport: str
    node_name: str
    started: bool
    error: str = ""
    name: str = ""
    version: str = ""
    protocol: str = ""
    restarts: int = 0
    # Requests hand-written tests sent through the mcp_server fixture (pytest/fixtures):
    # counted apart from the checks' calls, which are the items' numbers.
    handwritten_calls: int = 0
    startup_stdout: Stdout = (0, [])
    between_calls_stdout: Stdout = (0, [])
    listing_changes: list[str] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)  # recorded files of tools not listed
    boundary: str = ""  # where it says it works, in words (judges/writes.Boundary)

    def head(self) -> dict[str, Any]:
        """These fields, to build another view of the same server from."""
        return {f.name: getattr(self, f.name) for f in fields(ServerHead)}


@dataclass
class ServerFacts(ServerHead):
    """One server as this worker's process of it saw it: its head, and its entries as
    names and observations (the items' numbers ride on their reports)."""

    tools: list[ToolFacts] = field(default_factory=list)
    removed: list[ToolFacts] = field(default_factory=list)  # recorded, no longer listed
    # The listings of its prompts, resources and templates that failed, then those listed.
    listed: list[EntryName] = field(default_factory=list)
    # The drift of its prompts, resources and templates (those no longer listed too), each
    # named by its key and by its collector's name ("prompt:<safe name>").
    listed_drift: list[ToolFacts] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        head = {"command": self.command, "transport": self.transport}
        if not self.started:
            return {**head, "started": False, "node_name": self.node_name, "error": self.error}
        return {
            **head,
            "started": True,
            "node_name": self.node_name,
            "name": self.name,
            "version": self.version,
            "protocol": self.protocol,
            "restarts": self.restarts,
            "own_test_calls": self.handwritten_calls,  # the run report's word
            "startup_stdout": [self.startup_stdout[0], list(self.startup_stdout[1])],
            "between_calls_stdout": [
                self.between_calls_stdout[0],
                list(self.between_calls_stdout[1]),
            ],
            "listing_changes": list(self.listing_changes),
            "stale": list(self.stale),
            "boundary": self.boundary,
            "tools": [tool.to_json() for tool in self.tools],
            "removed": [
                {
                    "name": t.name,
                    "node_name": t.node_name,
                    "surface_drift": _pairs_json(t.surface_drift or []),
                }
                for t in self.removed
            ],
            "listed": [entry.to_json() for entry in self.listed],
            "listed_drift": [
                {
                    "name": t.name,
                    "node_name": t.node_name,
                    "surface_drift": _pairs_json(t.surface_drift or []),
                }
                for t in self.listed_drift
            ],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ServerFacts:
        return cls(
            command=str(data["command"]),
            transport=str(data["transport"]),
            node_name=str(data.get("node_name", "")),
            started=bool(data.get("started")),
            error=str(data.get("error", "")),
            name=str(data.get("name", "")),
            version=str(data.get("version", "")),
            protocol=str(data.get("protocol", "")),
            restarts=int(data.get("restarts", 0)),
            handwritten_calls=int(data.get("own_test_calls", 0)),
            startup_stdout=_stdout_from(data.get("startup_stdout")),
            between_calls_stdout=_stdout_from(data.get("between_calls_stdout")),
            listing_changes=[str(c) for c in data.get("listing_changes", [])],
            stale=[str(p) for p in data.get("stale", [])],
            boundary=str(data.get("boundary", "")),
            tools=[ToolFacts.from_json(t) for t in data.get("tools", [])],
            removed=[
                ToolFacts.from_json({"declared": False, **t}) for t in data.get("removed", [])
            ],
            listed=[EntryName.from_json(entry) for entry in data.get("listed", [])],
            listed_drift=[
                ToolFacts.from_json({"declared": False, **t}) for t in data.get("listed_drift", [])
            ],
        )


def _merge_server(entries: list[ServerFacts]) -> ServerFacts:
    """One server's facts from every worker, in sorted worker order. Each worker started its
    own process of the server: what every process says alike (its name, its banner on
    stdout, its stale files, its changed listing) is taken from the first that says it,
    restarts and lines between calls are summed, and each tool's observations and drift
    come from the worker that ran its items."""
    started = [e for e in entries if e.started]
    if not started:
        return entries[0]
    first = started[0]
    between = [e.between_calls_stdout for e in started]
    tools = []
    for position, tool in enumerate(first.tools):
        same = [
            e.tools[position]
            for e in started
            if position < len(e.tools) and e.tools[position].node_name == tool.node_name
        ]
        tools.append(
            ToolFacts(
                tool.name,
                tool.node_name,
                tool.declared,
                next((t.output for t in same if t.output is not None), None),
                next((t.surface_drift for t in same if t.surface_drift is not None), None),
            )
        )
    removed: dict[str, ToolFacts] = {}
    for entry in started:
        for gone in entry.removed:
            removed.setdefault(gone.node_name, gone)
    # An entry's drift item and its read or get item may run in two workers: its surface
    # drift comes from one, its content drift from the other.
    listed_drift: dict[str, ToolFacts] = {}
    for entry in started:
        for drifted in entry.listed_drift:
            held = listed_drift.setdefault(
                drifted.node_name, ToolFacts(drifted.name, drifted.node_name, surface_drift=[])
            )
            pairs = [*(held.surface_drift or []), *(drifted.surface_drift or [])]
            held.surface_drift = list(dict.fromkeys(pairs))
    return ServerFacts(
        command=first.command,
        transport=first.transport,
        node_name=first.node_name,
        started=True,
        name=first.name,
        version=first.version,
        protocol=first.protocol,
        restarts=sum(e.restarts for e in started),
        handwritten_calls=sum(e.handwritten_calls for e in started),
        startup_stdout=first.startup_stdout,
        between_calls_stdout=(
            sum(count for count, _ in between),
            next((list(sample) for count, sample in between if count), []),
        ),
        listing_changes=next((e.listing_changes for e in started if e.listing_changes), []),
        stale=first.stale,
        boundary=first.boundary,
        tools=tools,
        removed=[removed[name] for name in sorted(removed)],
        listed=first.listed,  # every worker's process lists alike, or xdist stops at collection
        listed_drift=[listed_drift[name] for name in sorted(listed_drift)],
    )


def _boundary_words(server: ManagedServer) -> str:
    """Where the server says it works (``judges/writes.Boundary``), in words."""
    from pytest_mcp_contracts.judges.writes import Boundary

    client = server.client
    return Boundary.of(server.command, lambda: client.roots_asked).words()


@dataclass
class WorkerFacts:
    servers: list[ServerFacts] = field(default_factory=list)
    snapshots: Snapshots = field(default_factory=Snapshots)

    @classmethod
    def collect(
        cls,
        servers: Sequence[ManagedServer],
        recorder: Recorder | None,
        start_errors: Mapping[int, tuple[str, str]],
        handwritten_calls: Mapping[str, int] | None = None,
    ) -> WorkerFacts:
        """What this process knows of its servers and its recorder. ``start_errors`` maps a
        server's position in ``servers`` to its node name and its start failure;
        ``handwritten_calls`` a server's node name to the requests hand-written tests sent
        it."""
        from pytest_mcp_contracts.contracts.snapshot import file_of, kind_of, node_of
        from pytest_mcp_contracts.vocabulary import EntryKind

        observed = recorder.observed if recorder is not None else {}
        surface_drift = recorder.surface_drift if recorder is not None else {}
        facts = cls()
        for index, server in enumerate(servers):
            command, transport = server.command.display, server.command.transport
            surface = server.surface
            if surface is None or index in start_errors:
                node_name, message = start_errors.get(index, ("", "the server did not start"))
                facts.servers.append(ServerFacts(command, transport, node_name, False, message))
                continue
            tools = []
            for tool in surface.tools:
                obs = observed.get((server.node_name, file_of(tool)))
                drift = surface_drift.get((server.node_name, file_of(tool)))
                tools.append(
                    ToolFacts(
                        tool.name,
                        tool.node_name,
                        isinstance(tool.output_schema, dict),
                        OutputFacts.of(obs) if obs is not None and obs.ran else None,
                        None if drift is None else _pairs(drift),
                    )
                )
            listed = {file_of(entry) for entry in surface.entries}
            mine = [
                (node, changes)
                for (srv, node), changes in sorted(surface_drift.items())
                if srv == server.node_name
            ]
            removed = [
                ToolFacts(changes[0].tool if changes else node, node, surface_drift=_pairs(changes))
                for node, changes in mine
                if node not in listed and kind_of(node) is EntryKind.TOOL
            ]
            # A prompt's, resource's or template's drift, by its collector ("prompt:<node>"
            # for "prompts/<node>"): its surface drift (its drift item) and its content
            # drift (its read or get item).
            drifted: dict[str, ToolFacts] = {}
            # Named by its key (a URI, a template), not its file: a surface that did not
            # change has no change to take the name from.
            keys = {file_of(entry): entry.key for entry in surface.listed}
            for node, changes in mine:
                if kind_of(node) is not EntryKind.TOOL:
                    name = keys.get(node) or (changes[0].tool if changes else node)
                    drifted[node] = ToolFacts(name, node_of(node), surface_drift=_pairs(changes))
            for (srv, node), content in sorted(observed.items()):
                found = [*content.breaking.values(), *content.additive.values()]
                beside = content.entry.kind is not EntryKind.TOOL
                if beside and srv == server.node_name and content.ran and found:
                    entry = drifted.setdefault(
                        node, ToolFacts(content.entry.key, content.entry.node, surface_drift=[])
                    )
                    entry.surface_drift = [*(entry.surface_drift or []), *_pairs(found)]
            listed_drift = [drifted[node] for node in sorted(drifted)]
            stale = (
                [
                    str(recorder.path(server.node_name, n))
                    for n in recorder.stale(server.node_name, surface)
                ]
                if recorder is not None
                else []
            )
            facts.servers.append(
                ServerFacts(
                    command,
                    transport,
                    server.node_name,
                    True,
                    name=surface.name,
                    version=surface.version,
                    protocol=surface.protocol_version,
                    restarts=server.restarts,
                    handwritten_calls=(handwritten_calls or {}).get(server.node_name, 0),
                    startup_stdout=_stdout_from(server.startup_stdout),
                    between_calls_stdout=_stdout_from(server.between_calls_stdout),
                    listing_changes=list(server.listing_changes),
                    stale=stale,
                    boundary=_boundary_words(server),
                    tools=tools,
                    removed=removed,
                    listed_drift=listed_drift,
                    listed=[
                        *(EntryName("listing", f.method, f.node) for f in surface.listing_failures),
                        *(EntryName(str(e.kind), e.key, e.node) for e in surface.listed),
                    ],
                )
            )
        if recorder is not None:
            facts.snapshots = Snapshots(
                sorted(str(p) for p in recorder.written),
                sorted(str(p) for p in recorder.pruned),
                sorted(str(p) for p in recorder.exported),
                list(recorder.unwritten),
                list(recorder.not_exported),
            )
        return facts

    @classmethod
    def merge(cls, parts: Sequence[WorkerFacts]) -> WorkerFacts:
        """Several workers' facts as one, in the order given (sorted by worker id)."""
        if not parts:
            return cls()
        count = max(len(part.servers) for part in parts)
        servers = [
            _merge_server([part.servers[i] for part in parts if i < len(part.servers)])
            for i in range(count)
        ]
        return cls(servers, Snapshots.merge([part.snapshots for part in parts]))

    def to_json(self) -> dict[str, Any]:
        return {
            "servers": [server.to_json() for server in self.servers],
            "snapshots": self.snapshots.to_json(),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> WorkerFacts:
        return cls(
            [ServerFacts.from_json(server) for server in data.get("servers", [])],
            Snapshots.from_json(data.get("snapshots", {})),
        )
