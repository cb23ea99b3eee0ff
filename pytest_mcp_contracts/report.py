"""Report: the text people read when a check fails or a server cannot be used."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from .call import ManagedServer

STDERR_LINES_SHOWN: Final = 20
INPUT_CHARS_SHOWN: Final = 2000


def indent(text: str, prefix: str = "    ") -> str:
    return textwrap.indent(text, prefix, lambda _line: True)


def stderr_block(tail: str) -> str:
    lines = tail.rstrip("\n").splitlines()[-STDERR_LINES_SHOWN:]
    if not lines:
        return "server stderr: (empty)"
    return "server stderr (last lines):\n" + indent("\n".join(lines))


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

    def render(self) -> str:
        # The first line is what pytest's short summary shows: make it the problem itself.
        parts = [self.problem, *(f"  {d}" for d in self.details)]
        parts += [
            "",
            f"server: {self.server}  (command: {self.command})",
            f"tool: {self.tool}    check: {self.check}",
        ]
        if self.arguments is not None:
            parts += ["", "smallest input found:", indent(short_json(self.arguments))]
        if self.request_json is not None:
            when = (
                "after the initialize handshake"
                if self.request_after_handshake
                else "one line on the server's stdin"
            )
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
        if self.stderr_tail is not None:
            parts += ["", stderr_block(self.stderr_tail)]
        return "\n".join(parts)


def start_failure(command: str, problem: str, stderr_tail: str) -> str:
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


def server_summary_lines(servers: Sequence[ManagedServer]) -> list[str]:
    lines = []
    for server in servers:
        surface = server.surface
        if surface is None:
            lines.append(f"{server.command.display}: did not start")
            continue
        restarts = f", restarted {server.restarts}x" if server.restarts else ""
        lines.append(
            f"{surface.name} (protocol {surface.protocol_version}): {len(surface.tools)} tools, "
            f"{server.calls} calls, {server.error_results} returned isError{restarts}"
        )
    return lines
