"""What every ``mcp-contracts`` command is to the parser and to ``main``: its words in
``--help``, its own arguments, how it runs, and how it fails."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, TextIO

USAGE_ERROR: Final = 2  # argparse's status for a command line it refuses


class CommandError(Exception):
    """Why a command stops, printed as ``mcp-contracts: <message>``, and its exit status
    (USAGE_ERROR for a command line or a file it cannot use, 1 for a server that failed)."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class CommandSpec:
    """One command. The settings it shares with a pytest run (the server it talks to, its
    timeouts...) are declared in ``options``; ``add_arguments`` adds only its own."""

    help: str
    description: str | None
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace, TextIO], int]
    target_required: bool = False  # one of --server, --url, --app must be given
