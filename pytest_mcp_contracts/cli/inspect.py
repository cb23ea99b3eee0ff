"""``mcp-contracts inspect``: what each tool takes and returns, before anyone writes code.

It reads a live server (``--server CMD``) or only the recorded contracts
(``--snapshots DIR``), and says plainly where an output schema comes from: declared by the
server, inferred by this plugin (with its quality, and the parts left open because their
keys depend on the input), or nowhere yet; which tools pytest calls, decided as the plugin
decides (``call_plan``); each input's limits (``schema/limits``); and what the
``schema`` check finds in each listing entry (the same ``check_listing``, the same records
as the run report). After the tools it lists the server's prompts (their arguments),
resources (URI, mimeType) and templates (their variables), each with its listing findings
(``judges/content_listing``) and its recorded content contract folded to a summary.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any, Final, TextIO

from pytest_mcp_contracts.cli.call_plan import CallPlan, call_plan
from pytest_mcp_contracts.cli.command import USAGE_ERROR, CommandError, CommandSpec
from pytest_mcp_contracts.cli.recorded import recorded_file, recorded_server
from pytest_mcp_contracts.cli.render import entry_json, render_list, render_tool
from pytest_mcp_contracts.cli.target import check_header, open_target
from pytest_mcp_contracts.cli.views import EntryView, recorded_contract
from pytest_mcp_contracts.contracts.record import follow_former_names
from pytest_mcp_contracts.contracts.snapshot import SnapshotError, SnapshotStore, file_of, kind_of
from pytest_mcp_contracts.judges.writes import Boundary
from pytest_mcp_contracts.options import DEFAULT_SECURITY, DEFAULT_SNAPSHOT_DIR
from pytest_mcp_contracts.reporting.findings import finding_record
from pytest_mcp_contracts.schema.field_paths import FieldPathError
from pytest_mcp_contracts.transport.client_config import configured_name
from pytest_mcp_contracts.transport.connect import probe_warning
from pytest_mcp_contracts.transport.discover import (
    LISTINGS,
    Entry,
    ServerSurface,
    discover,
    node_names,
)
from pytest_mcp_contracts.transport.errors import ServerError
from pytest_mcp_contracts.vocabulary import (
    HANDSHAKE_VERSION,
    ClientSettingError,
    EntryKind,
    SecurityMode,
    parse_clients,
)


def _findings(
    entry: Entry, protocol_version: str, args: argparse.Namespace
) -> tuple[dict[str, Any], ...]:
    """What the ``schema`` check finds in a listing entry: the same check, the same records
    the run report lists, under the client profiles and lint levels of ``--clients`` and
    ``--lints`` (the plugin's defaults without them); orders against the user in a
    description are failures, as under the plugin's default ``--mcp-security``."""
    from pytest_mcp_contracts.judges.content_listing import entry_findings
    from pytest_mcp_contracts.judges.lints import (  # jsonschema: inspect only
        LintLevels,
        LintSettingError,
    )

    try:
        clients = parse_clients(args.clients, option="--clients")
        lints = LintLevels.parse(args.lints, option="--lints") if args.lints else LintLevels()
    except (ClientSettingError, LintSettingError) as exc:
        raise CommandError(str(exc), USAGE_ERROR) from None
    found = entry_findings(
        entry,
        protocol_version=protocol_version,
        clients=clients,
        lints=lints,
        security=SecurityMode(DEFAULT_SECURITY),
    )
    return tuple(finding_record(f) for f in found)


def _views_from_server(
    surface: ServerSurface, store: SnapshotStore, args: argparse.Namespace, calls: CallPlan
) -> list[EntryView]:
    views = []
    for entry in surface.entries:
        recorded, problem = recorded_file(store, surface.node_name, file_of(entry))
        contract = recorded_contract(entry, recorded, problem)
        findings = _findings(entry, surface.protocol_version, args)
        refusal = (
            calls.refusal(surface.name, entry, surface.capabilities)
            if entry.kind is EntryKind.TOOL
            else None
        )
        views.append(EntryView(entry, contract, findings, refusal=refusal))
    return views


def _views_from_snapshots(
    store: SnapshotStore, server: str, args: argparse.Namespace, calls: CallPlan
) -> list[EntryView]:
    """The recorded entries, judged by the newest handshake revision: a snapshot does not
    record the protocol, and its rules (an object outputSchema root) are the ones the most
    clients hold servers to."""
    views = []
    for file in store.recorded(server, *EntryKind):
        kind = kind_of(file)
        recorded, problem = recorded_file(store, server, file)
        data = recorded or {}
        if kind is not EntryKind.TOOL:
            try:
                # Its surface even when its content section is corrupted (shown as such).
                data = store.read(server, file) or {}
            except SnapshotError:
                data = {}
        surface = data.get("surface")
        if kind is EntryKind.TOOL:
            raw = dict(surface) if isinstance(surface, dict) else {"name": data.get("tool", file)}
            entry = Entry(kind, str(raw.get("name", file)), file, raw)
        elif isinstance(surface, dict):
            key = surface.get(LISTINGS[kind].key_field)
            node_name = file.rpartition("/")[2]
            entry = Entry(kind, key if isinstance(key, str) else "", node_name, surface)
        else:
            continue  # unreadable: the run's drift item says so, with the file's name
        findings = _findings(entry, HANDSHAKE_VERSION, args) if isinstance(surface, dict) else None
        refusal = None
        if kind is EntryKind.TOOL:
            # Nor the server's capabilities: a task-only tool is told apart on a live server.
            refusal = calls.refusal(str(data.get("server", server)), entry, {})
        contract = recorded_contract(entry, recorded, problem)
        views.append(EntryView(entry, contract, findings, HANDSHAKE_VERSION, refusal))
    order = list(EntryKind)
    return sorted(views, key=lambda v: order.index(v.entry.kind))


def _load(args: argparse.Namespace) -> tuple[list[EntryView], str, CallPlan, str | None]:
    # Without --snapshots the contracts are read where pytest records them by default.
    snapshots = args.snapshots or Path(DEFAULT_SNAPSHOT_DIR)
    store = SnapshotStore(snapshots)
    check_header(args)
    calls = call_plan(args)
    if args.server or args.url or args.app or args.config:
        conn = open_target(args)
        if conn.probe_failure is not None:
            warning = probe_warning(conn.probe_failure, str(conn.protocol_version))
            print(f"mcp-contracts: warning: {warning}", file=sys.stderr)
        try:
            surface = discover(conn, timeout=args.startup_timeout)
        except ServerError as exc:
            raise CommandError(f"could not list the tools: {exc.message}", 1) from None
        finally:
            conn.close()
        if name := configured_name(conn.command):
            # Recorded under its name in the config file, as a pytest run with it records.
            surface = replace(surface, node_name=node_names([name])[0], former_node_name="")
        follow_former_names(store, surface.node_name, surface.former_node_name, surface)
        client, roots = conn.client, getattr(args, "roots", None)
        boundary = Boundary.of(conn.command, lambda: client.roots_asked, roots).words()
        return _views_from_server(surface, store, args, calls), surface.name, calls, boundary
    if not snapshots.is_dir():
        raise CommandError(
            f"no recorded contracts in {snapshots}{os.sep}: give --server CMD, --url URL or "
            "--app MODULE:ATTR to read a live server, or --snapshots DIR",
            USAGE_ERROR,
        )
    server = recorded_server(snapshots, args.server_name)
    return _views_from_snapshots(store, server, args, calls), server, calls, None


def run(args: argparse.Namespace, out: TextIO) -> int:
    views, server, calls, boundary = _load(args)
    tools = [v for v in views if v.entry.kind is EntryKind.TOOL]
    if args.tool is None:
        if args.json:
            payload: dict[str, Any] = {
                "server": server,
                "callPolicy": calls.policy,
                "callPolicySource": calls.source,
            }
            if boundary is not None:
                payload["boundary"] = boundary
            for kind in EntryKind:
                name = "templates" if kind == EntryKind.TEMPLATE else LISTINGS[kind].array
                payload[name] = [entry_json(v) for v in views if v.entry.kind == kind]
            out.write(json.dumps(payload, indent=2, sort_keys=True) + "\n")
        else:
            out.write(render_list(views, args, calls) + "\n")
            if boundary is not None:
                out.write(f"\nboundary (where the server says it works): {boundary}\n")
        return 0
    chosen = [v for v in tools if v.name == args.tool]
    if not chosen:
        close = difflib.get_close_matches(args.tool, [v.name for v in tools], n=3, cutoff=0.5)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise CommandError(f"no tool {args.tool!r} on {server}{hint}", USAGE_ERROR)
    view = chosen[0]
    if args.json:
        out.write(json.dumps(entry_json(view), indent=2, sort_keys=True) + "\n")
        return 0
    try:
        out.write(render_tool(view, args, calls) + "\n")
    except FieldPathError as exc:
        raise CommandError(str(exc), USAGE_ERROR) from None
    return 0


MIN_FIELDS: Final = 3  # a summary smaller than this says nothing about a schema


class _AtLeastMinFields(argparse.Action):
    """--max-fields below MIN_FIELDS is a usage error, said as the option's own rule."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        if values < MIN_FIELDS:
            parser.error(f"--max-fields must be {MIN_FIELDS} or more")
        setattr(namespace, self.dest, values)


def add_arguments(command: argparse.ArgumentParser) -> None:
    """inspect's own arguments (the server, the snapshots, --call, --clients, --lints and
    --startup-timeout come from the options table)."""
    command.add_argument("tool", nargs="?", help="show this tool in detail")
    command.add_argument("--server-name", help="which recorded server to read (with --snapshots)")
    command.add_argument("--json", action="store_true", help="answer in JSON, for machines")
    command.add_argument(
        "--max-fields",
        type=int,
        default=30,
        metavar="N",
        action=_AtLeastMinFields,
        help="summary budget (default 30)",
    )
    command.add_argument(
        "--field-path", metavar="PATH", help="show exactly this subtree, e.g. 'items[].sku'"
    )
    command.add_argument(
        "--schema",
        choices=("output", "input"),
        default="output",
        help="which schema --field-path opens (default output)",
    )
    command.add_argument(
        "--rootdir",
        type=Path,
        default=None,
        metavar="DIR",
        help="the project whose pyproject.toml [tool.mcp-contracts.tools] tables and pytest "
        "configuration apply (default: found from the current folder, as pytest finds it)",
    )


COMMAND: Final = CommandSpec(
    help="show what each tool takes and returns",
    description=None,
    add_arguments=add_arguments,
    run=run,
)
