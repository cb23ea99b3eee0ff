"""The recorded contracts ``inspect`` and ``export`` read: a server's folder in a snapshot
folder, and one recorded file, or why it cannot be used."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from pytest_mcp_contracts.cli.command import USAGE_ERROR, CommandError
from pytest_mcp_contracts.contracts.record import contract_problem
from pytest_mcp_contracts.contracts.snapshot import SnapshotError, SnapshotStore, kind_of
from pytest_mcp_contracts.transport.discover import former_node_names, node_names


def recorded_file(
    store: SnapshotStore, server: str, tool: str
) -> tuple[dict[str, Any] | None, str]:
    """A tool's (or a listed entry's, by its file name) recorded file, or why it cannot be
    used: a corrupted contract is shown as corrupted, never as no contract at all."""
    try:
        data = store.read(server, tool)
    except SnapshotError as exc:
        return None, f"{exc.path}: {exc.reason}"
    problem = None if data is None else contract_problem(data, kind_of(tool))
    if problem is not None:
        return None, f"{store.path_for(server, tool)}: not a contract: {problem}"
    return data, ""


def recorded_server(snapshots: Path, server_name: str | None) -> str:
    """The one server folder of a snapshot folder, or the one ``--server-name`` names (under
    its name now, or as an earlier version named it)."""
    servers = sorted(p.name for p in snapshots.iterdir() if p.is_dir())
    found = ", ".join(servers) or "none"
    if server_name:
        named = [*node_names([server_name]), *former_node_names([server_name])]
        folder = next((name for name in named if name in servers), None)
        if folder is None:
            raise CommandError(
                f"no recorded server {server_name!r} in {snapshots}{os.sep} (found: {found})",
                USAGE_ERROR,
            )
        return folder
    if len(servers) != 1:
        raise CommandError(
            f"name one recorded server with --server-name (found: {found})", USAGE_ERROR
        )
    return servers[0]
