"""Report: the text people read when a check fails or a server cannot be used."""

from __future__ import annotations

import json
import shlex
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from .coverage import coverage_line
from .observe import DECLARED, INFERRED, QUALITIES, UNKNOWN, VALIDATED

if TYPE_CHECKING:
    from .call import ManagedServer
    from .observe import ToolObservations
    from .record import Recorder

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
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, default=repr)
    if len(text) > limit:
        return text[:limit] + f"… ({len(text)} characters in all)"
    return text


@dataclass
class FailureReport:
    """A failure as the contract item prints it: who, what, the input, how to reproduce."""

    server: str
    command: str
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
    command_noun: str = "command"  # "url" for a server reached over Streamable HTTP
    call_stderr: str | None = None  # what the server wrote while the failing call ran
    stderr_before: str = ""

    def render(self) -> str:
        # The first line is what pytest's short summary shows: make it the problem itself.
        parts = [self.problem, *(f"  {d}" for d in self.details)]
        parts += [
            "",
            f"server: {shown(self.server)}  ({self.command_noun}: {self.command})",
            f"tool: {shown(self.tool)}    check: {self.check}",
        ]
        if self.arguments is not None:
            parts += ["", self.input_label, indent(short_json(self.arguments))]
        if self.request_json is not None:
            if self.command_noun == "url":
                when = "POST it to the URL" + (
                    " in a session, after the initialize handshake"
                    if self.request_after_handshake
                    else ""
                )
            elif self.command_noun == "app":
                when = "the server ran in-process; over stdio this is one line on its stdin" + (
                    ", after the initialize handshake" if self.request_after_handshake else ""
                )
            elif self.request_after_handshake:
                when = "after the initialize handshake"
            else:
                when = "one line on the server's stdin"
            parts += [
                "",
                f"reproduce with this tools/call request ({when}):",
                indent(
                    self.request_json
                    if len(self.request_json) < 4000
                    else self.request_json[:4000] + "…"
                ),
            ]
        parts += ["", *self.notes] if self.notes else []
        if self.call_stderr is not None:
            source = "log records" if self.command_noun == "app" else "stderr"
            parts += ["", call_stderr_block(self.call_stderr, self.stderr_before, source=source)]
        if self.command_noun == "app":
            if self.stderr_tail:  # in-process there is no stderr: how the server's run ended
                parts += ["", "the server's run ended with:", indent(last_lines(self.stderr_tail))]
        elif self.stderr_tail is not None and self.call_stderr is None:
            parts += ["", stderr_block(self.stderr_tail)]
        return "\n".join(parts)


def start_failure(command: str, problem: str, stderr_tail: str, *, noun: str = "command") -> str:
    if noun == "app":
        lines = [f"MCP server could not be run in-process: {command}", f"  {problem}"]
        if stderr_tail:
            lines += ["", indent(last_lines(stderr_tail))]
        module = command.split(":", 1)[0]
        check = f"python {module}" if module.endswith(".py") else f"python -c 'import {module}'"
        return "\n".join(
            [*lines, "", f"Check that `{check}` works from the rootdir (--mcp-app imports it)."]
        )
    if noun == "url":
        return "\n".join(
            [
                f"MCP server at {command} could not be used",
                f"  {problem}",
                "",
                "A server reached with --mcp-url must already be running: check that it is up "
                "at that URL; for a slow answer raise --mcp-startup-timeout.",
            ]
        )
    return "\n".join(
        [
            f"MCP server did not start: {command}",
            f"  {problem}",
            "",
            stderr_block(stderr_tail),
            "",
            "Run the command by hand to see it fail; for a slow start raise --mcp-startup-timeout.",
        ]
    )


def _share(part: int, whole: int) -> str:
    return f"{round(100 * part / whole)}% ({part}/{whole})" if whole else "n/a (no tools)"


def _relative(path: Path) -> str:
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def server_summary_lines(
    servers: Sequence[ManagedServer], recorder: Recorder | None, command: str, *, verbose: bool
) -> list[str]:
    """The "MCP contracts" section: per server, what is declared, learned, drifting, stale."""
    lines = []
    for server in servers:
        surface = server.surface
        if surface is None:
            lines.append(f"{server.command.display}: did not start")
            continue
        restarts = f", restarted {server.restarts}x" if server.restarts else ""
        lines.append(
            f"{shown(surface.name)} (protocol {surface.protocol_version}): "
            f"{len(surface.tools)} tools, "
            f"{server.calls} calls, {server.error_results} returned isError{restarts}"
        )
        lines += stray_stdout_lines(server.startup_stdout, server.between_calls_stdout)
        if server.listing_changes:
            lines.append(
                "  the tool list changed during the run (the spec says a server's tool set must "
                "not vary; this run used the first listing):"
            )
            lines += [f"    {change}" for change in server.listing_changes]
        if recorder is not None:
            lines += [f"  {line}" for line in _contract_lines(server, recorder, command, verbose)]
    if recorder is not None:
        lines += _written_lines(recorder)
    return lines


def startup_stdout_lines(
    count: int, sample: Sequence[str], when: str = "before the first call"
) -> list[str]:
    """What a server printed on stdout while it started (a banner), or between calls, that
    is not JSON-RPC: no call to blame it on, and still a stdio client that reads it as
    protocol may break."""
    if not count:
        return []
    return [
        f"  {count} line(s) on stdout {when} were not JSON-RPC (stdout is for "
        f"protocol messages only; log to stderr), e.g. {shown(sample[0], 120)!r}"
    ]


def stray_stdout_lines(startup: Sequence[Any], between: Sequence[Any]) -> list[str]:
    (count, sample), (later, later_sample) = startup, between
    return startup_stdout_lines(count, sample) + startup_stdout_lines(
        later, later_sample, when="between calls"
    )


def workers_summary_lines(facts: dict[str, Any], recorder: Recorder) -> list[str]:
    """The summary on an xdist controller, from what the workers reported: the servers ran
    in the workers (one process per worker), the contracts were written here."""
    lines = []
    for entry in facts["servers"]:
        if not entry.get("started"):
            lines.append(f"{entry['command']}: did not start")
            continue
        restarts = f", restarted {entry['restarts']}x" if entry["restarts"] else ""
        lines.append(
            f"{shown(entry['name'])} (protocol {entry['protocol']}): {len(entry['tools'])} tools, "
            f"{entry['calls']} calls, {entry['error_results']} returned isError{restarts} "
            "(all workers)"
        )
        lines += stray_stdout_lines(
            entry.get("startup_stdout", (0, [])), entry.get("between_calls_stdout", (0, []))
        )
        varying = [
            f"    {shown(tool['name'])} {v['path']}: {v['types']}"
            for tool in entry["tools"]
            for v in (tool.get("output") or {}).get("varying_types", [])
        ]
        if varying:
            lines.append(
                "  types that vary from call to call (probably bugs; not validated, not exported):"
            )
            lines += varying
    return lines + _written_lines(recorder)


def _contract_lines(
    server: ManagedServer, recorder: Recorder, command: str, verbose: bool
) -> list[str]:
    surface = server.surface
    assert surface is not None
    observed = {tool: obs for (srv, tool), obs in recorder.tools.items() if srv == server.node_name}
    qualities: dict[str, str] = {}
    for tool in surface.tools:
        obs = observed.get(tool.node_name)
        if obs is not None and obs.ran:
            qualities[tool.name] = obs.quality
        elif isinstance(tool.output_schema, dict):
            qualities[tool.name] = DECLARED
        else:
            qualities[tool.name] = UNKNOWN
    counts = {q: sum(1 for v in qualities.values() if v == q) for q in QUALITIES}
    per_tool = []
    if verbose:
        for tool in surface.tools:
            obs = observed.get(tool.node_name)
            basis = ""
            if obs is not None and obs.ran and qualities[tool.name] in (VALIDATED, INFERRED):
                basis = f" ({obs.observations} observations this run; {obs.assessment[1]})"
            coverage = server.input_coverage.get(tool.name)
            inputs = f"; {coverage_line(coverage)}" if coverage else ""
            per_tool.append(
                f"  {shown(tool.name)}: {qualities[tool.name]}{basis}{inputs}"
                f"{_answers(server, tool.name)}"
            )
    total = len(surface.tools)
    lines = [
        "contracts: " + ", ".join(f"{counts[q]} {q}" for q in QUALITIES),
        f"outputSchema coverage {_share(counts[DECLARED], total)}, contract coverage "
        f"{_share(counts[DECLARED] + counts[VALIDATED], total)}",
        *per_tool,
    ]
    lines += _evidence_lines(observed)
    lines += _drift_lines(server.node_name, observed, recorder, command)
    stale = recorder.stale(server.node_name, surface)
    if stale and recorder.mode != "update":
        lines.append(
            "stale contracts of tools the server no longer lists (pruned by --mcp-snapshot-update):"
        )
        lines += [f"  {_relative(recorder.path(server.node_name, name))}" for name in stale]
    ready = sorted(
        shown(obs.tool.name) for obs in observed.values() if obs.ran and obs.quality == VALIDATED
    )
    if ready:
        lines.append(
            "could declare an outputSchema today: "
            + ", ".join(ready)
            + " (--mcp-export-schemas=DIR writes the proposals)"
        )
    return lines


def _answers(server: ManagedServer, tool: str) -> str:
    """How a tool's isError results were judged, and what its rejects_invalid check counted."""
    parts = []
    classes = server.error_classes.get(tool)
    if classes:
        parts.append("isError: " + ", ".join(f"{n} {k}" for k, n in sorted(classes.items())))
    if server.coercions_accepted[tool]:
        parts.append(f"accepted {server.coercions_accepted[tool]} look-alike(s) (lenient coercion)")
    if server.protocol_refusals[tool]:
        parts.append(
            f"refused {server.protocol_refusals[tool]} invalid input(s) with JSON-RPC -32602 "
            "where the protocol asks for isError"
        )
    return "; " + "; ".join(parts) if parts else ""


def _evidence_lines(observed: dict[str, ToolObservations]) -> list[str]:
    """Where an inferred contract cannot be trusted yet: paths that changed type from call
    to call, and contracts whose observations do not amount to evidence."""
    ran = sorted((obs for obs in observed.values() if obs.ran), key=lambda o: o.tool.name)
    lines = []
    unions = [(obs, path, types) for obs in ran for path, types in obs.unions()]
    if unions:
        lines.append(
            "types that vary from call to call (probably bugs; not validated, not exported):"
        )
        lines += [f"  {shown(obs.tool.name)} {path}: {types}" for obs, path, types in unions]
    weak = [
        (obs, obs.assessment[1])
        for obs in ran
        if obs.quality == INFERRED and not obs.unions() and not obs.breaking
    ]
    if weak:
        lines.append("inferred but not validated:")
        lines += [
            f"  {shown(obs.tool.name)}: {reason.removeprefix('not validated: ')}"
            for obs, reason in weak
        ]
    return lines


DRIFT_ORDER = ("breaking", "review", "additive", "cosmetic")


def _drift_lines(
    server: str, observed: dict[str, ToolObservations], recorder: Recorder, command: str
) -> list[str]:
    """Every drift of the run, grouped by class: the tool surface's and the inferred outputs'."""
    found: list[tuple[str, str]] = []
    for (srv, _), changes in sorted(recorder.surface_drift.items()):
        if srv == server:
            found += [(c.severity, f"{shown(c.tool)} {c}") for c in changes]
    for obs in observed.values():
        found += [(d.severity, f"{shown(obs.tool.name)} {d}") for d in obs.additive.values()]
    if not found:
        return []
    if recorder.mode == "update":
        header = "drift accepted by --mcp-snapshot-update:"
    else:
        ci = recorder.mode == "ci"
        how = (
            accept_command(command, ci=True)
            if ci
            else f"accept it with: {command} --mcp-snapshot-update"
        )
        header = f"drift ({how}):"
    width = max(len(severity) for severity, _ in found) + 1
    ordered = sorted(found, key=lambda item: (DRIFT_ORDER.index(item[0]), item[1]))
    return [header, *(f"  {sev + ':':<{width}} {text}" for sev, text in ordered)]


def _written_lines(recorder: Recorder) -> list[str]:
    lines = []
    for verb, paths in (
        ("recorded", recorder.written),
        ("pruned", recorder.pruned),
        ("exported", recorder.exported),
    ):
        if paths:
            lines.append(f"{verb} {len(paths)} file(s):")
            lines += [f"  {_relative(path)}" for path in paths]
    if recorder.unwritten:
        lines.append("not written (left as it is):")
        lines += [f"  {problem}" for problem in recorder.unwritten]
    if recorder.not_exported:
        lines.append("proposals not exported:")
        lines += [f"  {why}" for why in recorder.not_exported]
    return lines
