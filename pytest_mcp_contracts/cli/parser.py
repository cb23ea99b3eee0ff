"""The ``mcp-contracts`` command line: each command's settings shared with a pytest run,
built from the options table (``options``: the same defaults, choices and types), then the
command's own arguments (``CommandSpec.add_arguments``)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from pytest_mcp_contracts.cli import call, export, inspect
from pytest_mcp_contracts.cli.command import CommandSpec
from pytest_mcp_contracts.options import OPTIONS, Command

COMMANDS: Final[dict[Command, CommandSpec]] = {
    Command.INSPECT: inspect.COMMAND,
    Command.CALL: call.COMMAND,
    Command.EXPORT: export.COMMAND,
}
# What `mcp-contracts --help` says: plain text for a terminal (the modules' docstrings are
# for readers of the code, in their own markup).
DESCRIPTION: Final = (
    "inspect: what each tool of an MCP server takes (with its input limits) and returns, "
    "which tools pytest calls under the project's call policy, "
    "and where each output schema comes from (declared by the server, inferred by "
    "pytest-mcp-contracts, or nowhere yet), from a live server (--server, --url, --app) or "
    "from the recorded contracts alone (--snapshots). call: replay tool calls (a failure's "
    "reproduction) on a server, in order, and print each answer as one line of JSON. "
    "export: the recorded output contracts as typed models (pydantic, TypedDict, zod, JSON "
    "Schema) to paste into the server."
)
# The argparse type of an option's value, by the option's kind; any other kind is a string,
# read as the plugin reads it (parse_clients, LintLevels.parse, the targets' own parsers).
TYPES: Final[dict[str, Callable[[str], Any]]] = {"int": int, "float": float, "path": Path}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mcp-contracts", description=DESCRIPTION)
    commands = parser.add_subparsers(dest="command", required=True)
    for name, spec in COMMANDS.items():
        command = commands.add_parser(name, help=spec.help, description=spec.description)
        add_settings(command, name, target_required=spec.target_required)
        spec.add_arguments(command)
    return parser


def add_settings(command: argparse.ArgumentParser, name: Command, *, target_required: bool) -> None:
    """The flags of the options that ``name`` takes, in the table's order; --server, --url
    and --app exclude each other."""
    targets: argparse._MutuallyExclusiveGroup | None = None
    for option in OPTIONS:
        for flag in option.cli:
            if name not in flag.commands:
                continue
            into: Any = command
            if flag.target:
                if targets is None:
                    targets = command.add_mutually_exclusive_group(required=target_required)
                into = targets
            metavar = option.shown_metavar if flag.metavar == "" else flag.metavar
            settings: dict[str, Any] = {"help": flag.help, "metavar": metavar}
            if flag.repeat:
                settings.update(action="append", default=[])
            else:
                settings["default"] = option.default if flag.table_default else None
                if option.choices:
                    settings["choices"] = option.choices
                if option.kind in TYPES:
                    settings["type"] = TYPES[option.kind]
            into.add_argument(*flag.names, **settings)
