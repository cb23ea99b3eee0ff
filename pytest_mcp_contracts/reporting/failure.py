"""Report: the text people read when a check fails or a server cannot be used."""

from __future__ import annotations

import json
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Protocol

from pytest_mcp_contracts.text import call_stderr_block, indent, short_json, shown

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


CALLS_IN_COMMAND: Final = 10  # more than this many calls go in a file (--file)


def call_command(target: Target, calls: Sequence[tuple[str, Any]]) -> str:
    """The ``mcp-contracts call`` command that makes ``calls`` (tool, arguments) on the
    target, in order: inline pairs, or for a long sequence a file of them."""
    flag = {"command": "--server", "url": "--url", "app": "--app"}.get(target.noun, "--server")
    words = ["mcp-contracts", "call", f"{flag}={target.display}"]
    if len(calls) <= CALLS_IN_COMMAND:
        for tool, arguments in calls:
            words += [tool, json.dumps(arguments, ensure_ascii=False, sort_keys=True)]
        return shlex.join(words)
    lines = [f"{tool} {json.dumps(arguments, ensure_ascii=False)}" for tool, arguments in calls]
    return (
        shlex.join([*words, "--file=calls.txt"])
        + f"   # calls.txt: these {len(calls)} lines\n"
        + "\n".join(lines)
    )


class Target(Protocol):
    """A server as the user named it (a stdio command, a URL, an in-process app): each kind
    supplies its own words, so no report asks which kind it is talking about."""

    @property
    def noun(self) -> str: ...  # "command", "url", "app": what the display is

    @property
    def display(self) -> str: ...

    @property
    def output_source(self) -> str | None: ...  # what its side output is called, if any

    def reproduce_where(self, *, after_handshake: bool) -> str: ...

    def output_block(self, tail: str | None, *, call_output_shown: bool) -> str: ...

    def start_failure(self, problem: str, stderr_tail: str) -> str: ...


@dataclass
class FailureReport:
    """A failure as the contract item prints it: who, what, the input, how to reproduce."""

    server: str
    target: Target
    tool: str
    check: str
    problem: str
    details: Sequence[str] = ()
    arguments: Any = None
    request_json: str | None = None
    request_after_handshake: bool = False
    stderr_tail: str | None = None
    notes: list[str] = field(default_factory=list)
    input_label: str = "smallest input found:"
    call_stderr: str | None = None  # what the server wrote while the failing call ran
    stderr_before: str = ""
    # What the server asked of the client while the failing call ran (sampling, elicitation,
    # roots), and the notifications it sent, one line each.
    client_exchanges: Sequence[str] = ()
    # A failure reached by a sequence of calls (the sequences check): each call and its
    # answer, and the JSON-RPC lines that replay it on ``replay_from``.
    sequence: Sequence[str] = ()
    replay: Sequence[str] = ()
    replay_from: str = ""
    # Calls before the failing one that may have changed the state it ran in.
    earlier_calls: Sequence[str] = ()
    # One command that makes the reproducing call(s) itself (mcp-contracts call).
    replay_command: str = ""

    def render(self) -> str:
        target = self.target
        # The first line is what pytest's short summary shows: make it the problem itself.
        parts = [self.problem, *(f"  {d}" for d in self.details)]
        parts += [
            "",
            f"server: {shown(self.server)}  ({target.noun}: {target.display})",
            f"tool: {shown(self.tool)}    check: {self.check}",
        ]
        if self.sequence:
            parts += ["", "shortest sequence found (each call, then its answer):"]
            parts += [indent(line) for line in self.sequence]
        elif self.arguments is not None:
            parts += ["", self.input_label, indent(short_json(self.arguments))]
        if self.earlier_calls:
            parts += [
                "",
                "earlier calls that may have changed the state this call ran in (the newest last):",
                *(indent(line) for line in self.earlier_calls),
            ]
        if self.replay:
            how = "POST them to the URL" if target.noun == "url" else "write them to its stdin"
            parts += [
                "",
                f"reproduce on {self.replay_from}: {how}, each after the answer to the one before:",
            ]
            parts += [
                indent(line if len(line) < 4000 else line[:4000] + "…") for line in self.replay
            ]
        elif self.request_json is not None:
            when = target.reproduce_where(after_handshake=self.request_after_handshake)
            request = self.request_json
            parts += [
                "",
                f"reproduce with this tools/call request ({when}):",
                indent(request if len(request) < 4000 else request[:4000] + "…"),
            ]
        if self.replay_command:
            parts += ["", "or with one command:", indent(self.replay_command)]
        if self.client_exchanges:
            parts += [
                "",
                "what the server asked of the client during this call:",
                *(f"  {line}" for line in self.client_exchanges),
            ]
        parts += ["", *self.notes] if self.notes else []
        if self.call_stderr is not None and target.output_source is not None:
            block = call_stderr_block(
                self.call_stderr, self.stderr_before, source=target.output_source
            )
            parts += ["", block]
        block = target.output_block(
            self.stderr_tail, call_output_shown=self.call_stderr is not None
        )
        parts += ["", block] if block else []
        return "\n".join(parts)
