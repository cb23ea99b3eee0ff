"""``mcp-contracts inspect``: what each tool takes and returns, before anyone writes code.

It reads a live server (``--server CMD``) or only the recorded contracts
(``--snapshots DIR``), and says plainly where an output schema comes from: declared by the
server, inferred by this plugin (with its quality, and the parts left open because their
keys depend on the input), or nowhere yet; which tools pytest calls, decided as the plugin
decides (``call_plan``); each input's limits (``schema/summarize``); and what the
``schema`` check finds in each listing entry (the same ``check_listing``, the same records
as the run report). After the tools it lists the server's prompts (their arguments),
resources (URI, mimeType) and templates (their variables), each with its listing findings
(``checks/listed_entries``) and its recorded content contract folded to a summary.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import sys
from pathlib import Path
from typing import Any, Final, TextIO

from pytest_mcp_contracts.cli.call_plan import CallPlan, call_plan
from pytest_mcp_contracts.cli.command import USAGE_ERROR, CommandError, CommandSpec
from pytest_mcp_contracts.cli.recorded import recorded_file, recorded_server
from pytest_mcp_contracts.cli.render import (
    listed_json,
    render_list,
    render_listed,
    render_tool,
    tool_json,
)
from pytest_mcp_contracts.cli.target import check_header, open_target
from pytest_mcp_contracts.cli.views import (
    ListedView,
    ToolView,
    content_contract,
    output_contract,
)
from pytest_mcp_contracts.contracts.record import follow_former_names
from pytest_mcp_contracts.contracts.snapshot import SnapshotError, SnapshotStore, file_of, kind_of
from pytest_mcp_contracts.options import DEFAULT_SNAPSHOT_DIR
from pytest_mcp_contracts.reporting.findings import finding_record
from pytest_mcp_contracts.schema.summarize import FieldPathError
from pytest_mcp_contracts.transport.connect import probe_warning
from pytest_mcp_contracts.transport.discover import (
    LISTINGS,
    Entry,
    ServerSurface,
    discover,
)
from pytest_mcp_contracts.transport.errors import ServerError
from pytest_mcp_contracts.vocabulary import (
    BESIDE_TOOLS,
    HANDSHAKE_VERSION,
    ClientSettingError,
    EntryKind,
    parse_clients,
)


def _findings(
    tool: Entry, protocol_version: str, args: argparse.Namespace
) -> tuple[dict[str, Any], ...]:
    """What the ``schema`` check finds in a listing entry: the same check, the same records
    the run report lists, under the client profiles and lint levels of ``--clients`` and
    ``--lints`` (the plugin's defaults without them)."""
    from pytest_mcp_contracts.checks.lints import (  # jsonschema: inspect only
        LintLevels,
        LintSettingError,
    )
    from pytest_mcp_contracts.checks.listing import check_listing

    try:
        clients = parse_clients(args.clients, option="--clients")
        lints = LintLevels.parse(args.lints, option="--lints") if args.lints else LintLevels()
    except (ClientSettingError, LintSettingError) as exc:
        raise CommandError(str(exc), USAGE_ERROR) from None
    found = check_listing(tool, protocol_version=protocol_version, clients=clients, lints=lints)
    return tuple(finding_record(f) for f in found)


def _views_from_server(
    surface: ServerSurface, store: SnapshotStore, args: argparse.Namespace, calls: CallPlan
) -> list[ToolView]:
    server = surface.node_name
    views = []
    for tool in surface.tools:
        recorded, problem = recorded_file(store, server, tool.node_name)
        output = output_contract(tool.raw, recorded, problem)
        findings = _findings(tool, surface.protocol_version, args)
        refusal = calls.refusal(surface.name, tool, surface.capabilities)
        views.append(ToolView(tool.name, tool.raw, output, findings, refusal=refusal))
    return views


def _views_from_snapshots(
    store: SnapshotStore, server: str, args: argparse.Namespace, calls: CallPlan
) -> list[ToolView]:
    views = []
    for name in store.recorded(server, EntryKind.TOOL):
        recorded, problem = recorded_file(store, server, name)
        data = recorded or {}
        surface = data.get("surface")
        raw = dict(surface) if isinstance(surface, dict) else {"name": data.get("tool", name)}
        tool_name = str(raw.get("name", name))
        tool = Entry(EntryKind.TOOL, tool_name, name, raw)
        # A snapshot does not record the protocol: judged by the newest handshake revision,
        # whose rules (an object outputSchema root) the most clients hold servers to.
        findings = _findings(tool, HANDSHAKE_VERSION, args) if isinstance(surface, dict) else None
        output = output_contract(raw, recorded, problem)
        # Nor the server's capabilities: a task-only tool is told apart on a live server.
        refusal = calls.refusal(str(data.get("server", server)), tool, {})
        views.append(
            ToolView(tool_name, raw, output, findings, judged_as=HANDSHAKE_VERSION, refusal=refusal)
        )
    return views


def _listed_view(
    entry: Entry, store: SnapshotStore, server: str, protocol_version: str
) -> ListedView:
    from pytest_mcp_contracts.checks.listed_entries import check_entry

    recorded, problem = recorded_file(store, server, file_of(entry))
    found = check_entry(entry, protocol_version=protocol_version)
    return ListedView(
        entry, tuple(finding_record(f) for f in found), content_contract(recorded, problem)
    )


def _listed_from_server(surface: ServerSurface, store: SnapshotStore) -> list[ListedView]:
    return [
        _listed_view(entry, store, surface.node_name, surface.protocol_version)
        for entry in surface.listed
    ]


def _listed_from_snapshots(store: SnapshotStore, server: str) -> list[ListedView]:
    """The recorded prompts, resources and templates, judged as the tools' snapshots are (a
    snapshot does not record the protocol revision)."""
    views = []
    for file in store.recorded(server, *BESIDE_TOOLS):
        kind = kind_of(file)
        try:
            # Its surface even when its content section is corrupted (shown as such below).
            surface = (store.read(server, file) or {}).get("surface")
        except SnapshotError:
            surface = None
        if not isinstance(surface, dict):
            continue  # unreadable: the run's drift item says so, with the file's name
        key = surface.get(LISTINGS[kind].key_field)
        node_name = file.rpartition("/")[2]
        entry = Entry(kind, key if isinstance(key, str) else "", node_name, surface)
        views.append(_listed_view(entry, store, server, HANDSHAKE_VERSION))
    return sorted(views, key=lambda v: BESIDE_TOOLS.index(v.entry.kind))


def _load(args: argparse.Namespace) -> tuple[list[ToolView], list[ListedView], str, CallPlan]:
    # Without --snapshots the contracts are read where pytest records them by default.
    snapshots = args.snapshots or Path(DEFAULT_SNAPSHOT_DIR)
    store = SnapshotStore(snapshots)
    check_header(args)
    calls = call_plan(args)
    if args.server or args.url or args.app:
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
        follow_former_names(store, surface.node_name, surface.former_node_name, surface)
        views = _views_from_server(surface, store, args, calls)
        return views, _listed_from_server(surface, store), surface.name, calls
    if not snapshots.is_dir():
        raise CommandError(
            f"no recorded contracts in {snapshots}{os.sep}: give --server CMD, --url URL or "
            "--app MODULE:ATTR to read a live server, or --snapshots DIR",
            USAGE_ERROR,
        )
    server = recorded_server(snapshots, args.server_name)
    views = _views_from_snapshots(store, server, args, calls)
    return views, _listed_from_snapshots(store, server), server, calls


def run(args: argparse.Namespace, out: TextIO) -> int:
    views, listed, server, calls = _load(args)
    if args.tool is None:
        if args.json:
            payload: dict[str, Any] = {
                "server": server,
                "callPolicy": calls.policy,
                "callPolicySource": calls.source,
                "tools": [tool_json(v) for v in views],
            }
            for kind in BESIDE_TOOLS:
                name = "templates" if kind == EntryKind.TEMPLATE else LISTINGS[kind].array
                payload[name] = [listed_json(v) for v in listed if v.entry.kind == kind]
            out.write(json.dumps(payload, indent=2, sort_keys=True) + "\n")
        else:
            more = render_listed(listed, args)
            out.write(render_list(views, calls) + (f"\n{more}" if more else "") + "\n")
        return 0
    chosen = [v for v in views if v.name == args.tool]
    if not chosen:
        close = difflib.get_close_matches(args.tool, [v.name for v in views], n=3, cutoff=0.5)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise CommandError(f"no tool {args.tool!r} on {server}{hint}", USAGE_ERROR)
    view = chosen[0]
    if args.json:
        out.write(json.dumps(tool_json(view), indent=2, sort_keys=True) + "\n")
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
