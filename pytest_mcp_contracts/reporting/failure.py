"""Report: the text pieces of what people read when a check fails or a server cannot be used
(the failure report itself is ``checks/failures.FailureReport``)."""

from __future__ import annotations

import json
import shlex
import textwrap
from collections.abc import Sequence
from typing import Any, Final

from pytest_mcp_contracts.text import abridge

STDERR_LINES_SHOWN: Final = 20
# A call's own stderr is shown whole up to this many lines: a Python traceback through
# an async SDK is often 40-60 lines, and its last lines are the exception itself.
CALL_STDERR_LINES_SHOWN: Final = 80
INPUT_CHARS_SHOWN: Final = 2000


NAME_CHARS_SHOWN: Final = 80


def shown(name: str, limit: int = NAME_CHARS_SHOWN) -> str:
    """A name a server chose, safe to print: control characters escaped (a tool name must not
    clear a CI log or ring its bell), and a very long one cut, saying how long it was."""
    text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in name)
    if len(text) > limit:
        return f"{text[: limit - 1]}… ({len(name)} characters)"
    return text


# Options of a run's own reports, workers and randomness: a command suggested to record or
# accept contracts is run locally, where they would write CI's files or pin CI's seed.
RUN_ONLY_OPTIONS: Final = (
    "--junitxml",
    "--junit-xml",
    "--junitprefix",
    "--junit-prefix",
    "--mcp-report",
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


def indent(text: str, prefix: str = "    ") -> str:
    return textwrap.indent(text, prefix, lambda _line: True)


def last_lines(text: str, count: int = STDERR_LINES_SHOWN) -> str:
    lines = text.rstrip("\n").splitlines()
    cut = f"({len(lines) - count} lines before these not shown)\n" if len(lines) > count else ""
    return cut + "\n".join(lines[-count:])


def call_stderr_block(during: str, before: str, *, source: str = "stderr") -> str:
    """What the server wrote while one call ran, and a little of what came before it, labelled
    so that nobody reads another call's traceback as this one's."""
    if during.strip():
        parts = [
            f"server {source} while this call ran:",
            indent(last_lines(during, CALL_STDERR_LINES_SHOWN)),
        ]
    else:
        parts = [f"server {source} while this call ran: (nothing)"]
    if before.strip():
        parts += [f"server {source} before this call (context, not from it):", indent(before)]
    return "\n".join(parts)


def stderr_block(tail: str) -> str:
    lines = last_lines(tail)
    if not lines:
        return "server stderr: (empty)"
    return "server stderr (last lines):\n" + indent(lines)


def short_json(value: Any, limit: int = INPUT_CHARS_SHOWN) -> str:
    text = json.dumps(abridge(value), ensure_ascii=False, sort_keys=True, default=repr)
    if len(text) > limit:
        return text[:limit] + f"… ({len(text)} characters in all)"
    return text
