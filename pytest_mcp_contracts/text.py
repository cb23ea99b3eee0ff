"""Short text for messages: the one place that decides how long values are cut and how a
server's names, inputs and stderr are quoted. Imports nothing from the package, so every layer
may use it."""

from __future__ import annotations

import json
import re
import textwrap
from typing import Any, Final

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


def shorten(text: str, limit: int = 240) -> str:
    """``text`` cut to at most ``limit`` characters, an ellipsis marking the cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def shorten_middle(text: str, limit: int = 120) -> str:
    """``text`` with its middle cut out past ``limit`` characters: both ends of a long
    JSON pointer say where it is."""
    if len(text) <= limit:
        return text
    keep = limit - 10
    head = keep * 7 // 11
    return f"{text[:head]}...{text[-(keep - head) :]}"


def json_text(value: Any, limit: int = 240) -> str:
    """``value`` as compact JSON (repr for what JSON cannot hold), shortened."""
    try:
        return shorten(json.dumps(value, default=repr), limit)
    except (RecursionError, ValueError):
        return f"<a {type(value).__name__} nested too deeply to show>"


def abridge(value: Any, limit: int = 200) -> Any:
    """``value`` (JSON data) with every string longer than ``limit`` cut by ``shorten`` and its
    length said: an input with a 64 KiB string is quoted, not pasted into a report."""
    try:
        return _abridge(value, limit)
    except RecursionError:
        return value


def _abridge(value: Any, limit: int) -> Any:
    if isinstance(value, str) and len(value) > limit:
        return f"{shorten(value, limit)} ({len(value)} characters)"
    if isinstance(value, list):
        return [_abridge(item, limit) for item in value]
    if isinstance(value, dict):
        return {key: _abridge(item, limit) for key, item in value.items()}
    return value


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


# rich's traceback box, which Python servers that log through rich (FastMCP, fastmcp and the
# MCP Python SDK's MCPServer, when rich is installed) print instead of Python's own
# traceback. A narrow box cuts the heading short ("Traceback (most recent call last─╮").
_RICH_TRACEBACK = re.compile(r"^(\s*)╭─+ Traceback \(most recent call last")
_RICH_LOG_SOURCE = re.compile(r"\s{2,}[\w.-]+\.py:\d+$")  # a log line's right column
_RICH_CODE = re.compile(r"^(❱)?\s*(\d+)\s*│\s?(.*)$")  # "❱ 40 │   raise ...": a code line
_RICH_HEADING = re.compile(r"^(\S+?):(\d+)\s*in\s*(\S+)$")  # "path:line in function"


def plain_traceback(text: str) -> str:
    """``text`` with a rich-rendered traceback written as Python writes one: each frame's
    heading (wrapped over several lines in a narrow box) as ``File "path", line N, in f``
    with the line rich marks as current under it, the box, the other code lines, the log's
    message column and a line's padding taken off. The evidence found in stderr is then
    the same whichever way a server logs (``judges/tracebacks`` reads Python's format
    only). Other text comes back as it was."""
    if "╭" not in text:  # every call's stderr passes here: most have no box at all
        return text
    lines = text.splitlines()
    column = next(
        (len(match.group(1)) for line in lines if (match := _RICH_TRACEBACK.match(line.rstrip()))),
        None,
    )
    if column is None:
        return text
    plain: list[str] = []
    heading = ""  # a frame's heading, as far as it has come

    def end_heading() -> None:
        nonlocal heading
        frame = _RICH_HEADING.match(heading)
        if frame is not None:
            plain.append(f'  File "{frame[1]}", line {frame[2]}, in {frame[3]}')
        heading = ""

    for line in lines:
        line = line.rstrip()
        if line[:column].strip():  # a log record's first line: "[time] ERROR  message"
            end_heading()
            plain.append(_RICH_LOG_SOURCE.sub("", line))
            continue
        body = line[column:]
        if body.startswith("╭"):
            end_heading()
            plain.append("Traceback (most recent call last):")
        elif body.startswith("│"):
            content = body[1:].removesuffix("│").strip()
            code = _RICH_CODE.match(content)
            if code is None and content and "frames hidden" not in content:
                heading += content
                continue
            end_heading()
            if code is not None and code[1]:  # the frame's current line
                plain.append("    " + code[3].lstrip("│ "))
        elif body.startswith("╰"):
            end_heading()
        else:
            plain.append(body)
    return "\n".join(plain) + ("\n" if text.endswith("\n") else "")


def start_error_line(error: str) -> str:
    """Why a server did not start, in one line: the first two lines of its error with any
    text, joined ("" when it has none)."""
    said = [line.strip() for line in error.splitlines() if line.strip()]
    return ": ".join(said[:2])
