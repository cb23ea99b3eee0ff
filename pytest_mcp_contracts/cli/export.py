"""``mcp-contracts export``: the recorded output contracts as typed models to paste in.

It reads the recorded contracts only (``export/document`` writes the models): the quality
that decides how strict a model is comes from the runs that recorded them, and a committed
snapshot gives the same file on every machine."""

from __future__ import annotations

import argparse
import difflib
import os
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Final, TextIO

from pytest_mcp_contracts.cli.command import USAGE_ERROR, CommandError, CommandSpec
from pytest_mcp_contracts.cli.recorded import recorded_file, recorded_server
from pytest_mcp_contracts.contracts.snapshot import SnapshotStore, write_atomic
from pytest_mcp_contracts.export.document import FORMATS as EXPORT_FORMATS
from pytest_mcp_contracts.export.document import RecordedTool, Source, export_file_name
from pytest_mcp_contracts.export.document import render as render_export
from pytest_mcp_contracts.options import DEFAULT_SNAPSHOT_DIR
from pytest_mcp_contracts.transport.discover import former_node_names, node_names
from pytest_mcp_contracts.vocabulary import EntryKind


def _recorded_tools(store: SnapshotStore, server: str, wanted: Sequence[str]) -> list[RecordedTool]:
    """The recorded tools of a server, or those named in ``wanted``; a file that cannot be
    read among them is an error that names it (never a model made from half a contract)."""
    files = store.recorded(server, EntryKind.TOOL)
    if not files:
        raise CommandError(f"no tools are recorded in {store.root / server}{os.sep}", USAGE_ERROR)
    tools, names = [], []
    # A wanted tool's file, under its name now or as an earlier version named it.
    files_wanted = {n for w in wanted for n in (*node_names([w]), *former_node_names([w]))}
    for file in files:
        recorded, problem = recorded_file(store, server, file)
        name = str((recorded or {}).get("tool", file))
        if problem and (not wanted or file in files_wanted):
            raise CommandError(
                f"the recorded contract {problem}\n  Fix it by hand (git diff shows what "
                "changed), or delete it and record it again with --mcp-snapshot-update.",
                1,
            )
        names.append(name)
        if recorded is not None and (not wanted or name in wanted):
            tools.append(RecordedTool(name, str(store.path_for(server, file)), recorded))
    for name in wanted:
        if name not in names:
            close = difflib.get_close_matches(name, names, n=3, cutoff=0.5)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise CommandError(
                f"no tool {name!r} is recorded for {server}{hint} (recorded: "
                f"{', '.join(sorted(names))})",
                USAGE_ERROR,
            )
    return tools


def _export_source(
    args: argparse.Namespace, snapshots: Path, server: str, tools: Sequence[RecordedTool]
) -> Source:
    """Where the models come from, and the command that writes them again (the options
    given, in one order: the file does not change with how the command was typed)."""
    words = ["mcp-contracts", "export", "--format", args.format]
    if args.snapshot_dir is not None:
        words += ["--snapshot-dir", str(args.snapshot_dir)]
    if args.server_name:
        words += ["--server-name", args.server_name]
    for tool in sorted(set(args.tool)):
        words += ["--tool", tool]
    recorded = next((str(t.data["server"]) for t in tools if t.data.get("server")), server)
    return Source(recorded, f"{snapshots / server}{os.sep}", shlex.join(words))


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Write the typed models of one server's recorded contracts (``export/document``)."""
    if args.format not in EXPORT_FORMATS:
        close = difflib.get_close_matches(args.format, EXPORT_FORMATS, n=1, cutoff=0.4)
        hint = f" (did you mean {close[0]}?)" if close else ""
        raise CommandError(
            f"--format {args.format!r} is unknown{hint}; one of {', '.join(EXPORT_FORMATS)}",
            USAGE_ERROR,
        )
    snapshots = args.snapshot_dir or Path(DEFAULT_SNAPSHOT_DIR)
    if not snapshots.is_dir():
        raise CommandError(
            f"no recorded contracts in {snapshots}{os.sep}: record them with "
            "pytest --mcp-server=... (or --mcp-url, --mcp-app), or give --snapshot-dir DIR",
            USAGE_ERROR,
        )
    server = recorded_server(snapshots, args.server_name)
    tools = _recorded_tools(SnapshotStore(snapshots), server, args.tool)
    text = render_export(args.format, tools, _export_source(args, snapshots, server, tools))
    if args.output in (None, "-"):
        out.write(text)
        return 0
    target = Path(args.output)
    if target.is_dir() or args.output.endswith(("/", os.sep)):
        target = target / export_file_name(args.format, server)
    try:
        write_atomic(target, text)
    except OSError as exc:
        raise CommandError(f"--output {target}: {exc.strerror or exc}", 1) from None
    print(f"mcp-contracts: wrote {target}", file=sys.stderr)
    return 0


def add_arguments(command: argparse.ArgumentParser) -> None:
    """export's own arguments (--snapshot-dir comes from the options table)."""
    command.add_argument(
        "--format", required=True, metavar="FORMAT", help=f"one of {', '.join(EXPORT_FORMATS)}"
    )
    command.add_argument(
        "--server-name", help="which recorded server (needed when the folder holds several)"
    )
    command.add_argument(
        "--tool",
        action="append",
        default=[],
        metavar="NAME",
        help="export only this tool (repeatable; default: every recorded tool)",
    )
    command.add_argument(
        "--output",
        metavar="PATH",
        help="write to this file (atomically), or into this folder under a name made from "
        "the server's; default: standard output",
    )


COMMAND: Final = CommandSpec(
    help="write typed models (pydantic, TypedDict, zod) or outputSchemas of the recorded "
    "output contracts",
    description="Write, per tool, code a server author pastes in to declare its "
    "outputSchema: a pydantic model or TypedDict for a Python MCPServer tool's return "
    "annotation, a zod object for a TypeScript McpServer tool's outputSchema, or the "
    "outputSchema as JSON Schema. Read from the recorded contracts (no server is "
    "started): a declared contract gives an exact model, a validated one a strict "
    "model, an inferred one a permissive model, and a tool without one gets none and "
    "the reason. The same snapshot gives the same bytes.",
    add_arguments=add_arguments,
    run=run,
)
