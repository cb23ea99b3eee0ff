"""The server a command talks to (``--server``, ``--url``, ``--app`` or ``--config``), opened
and with its handshake done, as the plugin opens it (``transport/managed.open_server``)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from pytest_mcp_contracts.cli.command import USAGE_ERROR, CommandError
from pytest_mcp_contracts.inputs.elicitation import form_content
from pytest_mcp_contracts.options import DEFAULT_MAX_RESULT_BYTES
from pytest_mcp_contracts.text import stderr_block
from pytest_mcp_contracts.transport.client import Client, ClientSettings
from pytest_mcp_contracts.transport.client_config import (
    ClientConfigError,
    ConfiguredCommand,
    ConfiguredUrl,
    read_configs,
)
from pytest_mcp_contracts.transport.connect import open_server
from pytest_mcp_contracts.transport.errors import ServerError
from pytest_mcp_contracts.transport.http import HeaderError, ServerUrl
from pytest_mcp_contracts.transport.inprocess import ServerApp
from pytest_mcp_contracts.transport.jsonrpc import RpcConnection
from pytest_mcp_contracts.transport.stdio import ServerCommand


def check_header(args: argparse.Namespace) -> None:
    """A usage error for --header without --url (a header only goes to an HTTP server named
    on the command line; a config file names its own) and for --config-server without
    --config."""
    if args.header and not args.url:
        raise CommandError("--header applies to --url", USAGE_ERROR)
    if args.config_server and not args.config:
        raise CommandError("--config-server picks a server of --config", USAGE_ERROR)


def configured_target(args: argparse.Namespace) -> ConfiguredCommand | ConfiguredUrl:
    """The one server of --config that --config-server names, or the file's only one."""
    picked = [args.config_server] if args.config_server else []
    servers = read_configs([Path(args.config)], picked, os.environ, home=Path.home())
    if len(servers) != 1:
        names = ", ".join(s.name for s in servers)
        raise ClientConfigError(
            f"{args.config} has {len(servers)} servers ({names}): name one with --config-server"
        )
    return servers[0]


def open_target(args: argparse.Namespace) -> RpcConnection:
    """A connection to the server named by --server, --url, --app or --config, handshake
    done."""
    target: ServerCommand | ServerUrl | ServerApp
    try:
        if args.config:
            target = configured_target(args)
        elif args.url:
            target = ServerUrl.parse(args.url, args.header)
            target.resolved_headers(os.environ)  # a missing variable fails here, clearly
        elif args.app:
            target = ServerApp.parse(args.app, Path.cwd())
        else:
            target = ServerCommand.parse(args.server)
    except (HeaderError, ValueError) as exc:
        raise CommandError(str(exc), USAGE_ERROR) from None
    roots: Path | None = getattr(args, "roots", None)
    if roots is not None and not roots.is_dir():
        raise CommandError(f"--roots {roots}: no such folder", USAGE_ERROR)
    client = Client(
        ClientSettings(
            roots=(roots.resolve().as_uri(),) if roots else (), form_content=form_content
        )
    )
    try:
        return open_server(
            target,
            startup_timeout=args.startup_timeout,
            max_message_bytes=DEFAULT_MAX_RESULT_BYTES,
            client=client,
        )
    except ServerError as exc:
        tail = f"\n{stderr_block(exc.stderr_tail)}" if exc.stderr_tail else ""
        raise CommandError(f"{target.unusable()}: {exc.message}{tail}", 1) from None
