"""``mcp-contracts``: pytest-mcp-contracts without pytest, a module per command.

``inspect`` shows what each tool of a server takes and returns, ``call`` replays tool calls
(a failure's reproduction), ``export`` writes the recorded output contracts as typed models.
The settings they share with a pytest run are declared once, in ``options``; ``parser``
builds the command line from that table.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from pytest_mcp_contracts.cli.command import CommandError
from pytest_mcp_contracts.cli.parser import COMMANDS, build_parser
from pytest_mcp_contracts.options import Command


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return COMMANDS[Command(args.command)].run(args, sys.stdout)
    except CommandError as exc:
        print(f"mcp-contracts: {exc}", file=sys.stderr)
        return exc.status
