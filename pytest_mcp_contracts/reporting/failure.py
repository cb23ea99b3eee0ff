"""Report: the text pieces of what people read when a check fails or a server cannot be used
(the failure report itself is ``judges/failures.FailureReport``)."""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from typing import Final

# Options of a run's own reports, workers and randomness: a command suggested to record or
# accept contracts is run locally, where they would write CI's files or pin CI's seed.
RUN_ONLY_OPTIONS: Final = (
    "--junitxml",
    "--junit-xml",
    "--junitprefix",
    "--junit-prefix",
    "--mcp-report",
    "--mcp-sarif",
    "--mcp-html",
    "--hypothesis-seed",
    "--numprocesses",
    "--maxprocesses",
    "--dist",
    "-n",
)


def _run_only(arg: str) -> tuple[bool, bool]:
    """Whether ``arg`` is a run-only option, and whether its value is the next word."""
    for option in RUN_ONLY_OPTIONS:
        if arg == option:
            return True, True
        joined = option == "-n" and arg.startswith("-n") and arg[2:3].isalnum()  # -n4, -nauto
        if arg.startswith(f"{option}=") or joined:
            return True, False
    return False, False


def rerun_command(args: Sequence[str]) -> str:
    """The pytest command line to suggest for running locally: without the options of the
    run's own reports, workers and seed (RUN_ONLY_OPTIONS), and with --mcp-header values
    redacted (a token the shell expanded must not end up in a hint, a log or a JUnit file)."""
    shown_args, redact_next, skip_next = [], False, False
    for arg in args:
        if skip_next:
            skip_next = False
            continue
        run_only, skip_next = _run_only(arg)
        if run_only:
            continue
        if redact_next or arg.startswith("--mcp-header="):
            prefix = "--mcp-header=" if arg.startswith("--mcp-header=") else ""
            header = arg.removeprefix(prefix)
            arg = f"{prefix}{header.split(':', 1)[0]}: <redacted>"
        redact_next = arg == "--mcp-header"
        shown_args.append(arg)
    return shlex.join(["pytest", *shown_args])


def accept_command(command: str, *, ci: bool) -> str:
    """How to accept a change: the update flag is refused where CI is set, so there the
    command is one to run locally."""
    where = " locally (contracts are never written in CI)" if ci else ""
    return f"accept it{where}: {command} --mcp-snapshot-update"
