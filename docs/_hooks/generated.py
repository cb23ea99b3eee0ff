"""The docs' generated parts, rendered from the code at build time (an mkdocs hook).

A page asks for one with a marker line, ``<!-- generated: options -->``; ``on_page_markdown``
puts the rendered Markdown in its place. Rendered at build time rather than committed, so
the reference cannot drift from the code and no branch that adds an option has a generated
file to regenerate or to merge: ``mkdocs build --strict`` in .ci/run renders it every run,
and a marker this module does not know fails the build.

Only modules that import nothing outside the standard library are read here
(``options``, ``judges/failures``, ``vocabulary``, and tests/e2e/conformance_table.py, the
table tests/e2e/test_conformance_agreement.py checks), so the docs build needs mkdocs
and this checkout, not the package's dependencies: .ci/run builds in a virtualenv that holds
only the ``docs`` extra.
"""

from __future__ import annotations

import inspect
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # the checkout's package, installed or not
    sys.path.insert(0, str(ROOT))

from pytest_mcp_contracts.judges.failures import (  # noqa: E402
    KIND_TEXT,
    SEVERITY,
    FailureKind,
    Severity,
)
from pytest_mcp_contracts.options import DEFAULT_MAX_RESULT_BYTES, OPTIONS, Option  # noqa: E402
from tests.e2e import conformance_table  # noqa: E402

MARKER = re.compile(r"^<!-- generated: ([a-z-]+) -->$", re.MULTILINE)


class GenerationError(Exception):
    """A page asks for something this module cannot render; the build must fail."""


def _default(option: Option) -> str:
    """The default as a user writes it, or what happens without a value."""
    if option.kind == "flag":
        return "off"
    if option.kind in ("servers", "lines"):
        return "none"
    if option.default is None:
        return "see below" if "(default:" in option.help else "none"
    if option.default == DEFAULT_MAX_RESULT_BYTES:
        return f"`{option.default}` (64 MiB)"
    if isinstance(option.default, float):
        return f"`{option.default:g}`"
    return f"`{option.default}`"


def _ini(option: Option) -> str:
    if not option.ini_too:
        return "none: command line only"
    if option.kind in ("servers", "lines"):
        return f"`{option.ini}` (a list: one per line, or a TOML array)"
    return f"`{option.ini}`"


def _escape(text: str) -> str:
    """Help text as Markdown text: ``<name>`` is not a tag, ``*`` not emphasis."""
    return text.replace("<", "&lt;").replace("*", r"\*")


def options_markdown() -> str:
    """Every option of ``options.OPTIONS``, in its order: flag, ini key, default,
    values, and the help text ``pytest --help`` prints."""
    lines = []
    for option in OPTIONS:
        anchor = option.flag.removeprefix("--")
        usage = option.flag if option.kind == "flag" else f"{option.flag}={option.shown_metavar}"
        lines += [f"### `{usage}` {{#{anchor}}}", ""]
        lines.append(f"- ini key: {_ini(option)}")
        lines.append(f"- default: {_default(option)}")
        if option.choices:
            lines.append(f"- values: {', '.join(f'`{choice}`' for choice in option.choices)}")
        if option.kind in ("servers", "lines"):
            lines.append("- repeatable")
        # The default is on its own line: "(default 3)" at the end of the help goes.
        text = re.sub(r" \(default [^();:]+\)$", "", option.help)
        lines += ["", _escape(text[:1].upper() + text[1:]) + ".", ""]
    return "\n".join(lines)


def member_comments(enum: type) -> dict[str, str]:
    """Each member's trailing comment in the enum's source (``NAME = "value"  # comment``):
    the one description of a severity, kept beside its value."""
    pattern = re.compile(r'^\s+[A-Z_]+ = "([a-z_-]+)"\s+#\s*(.+)$')
    comments = {}
    for line in inspect.getsource(enum).splitlines():
        match = pattern.match(line)
        if match:
            comments[match[1]] = match[2].strip()
    missing = [str(member) for member in enum if str(member) not in comments]  # type: ignore[attr-defined]
    if missing:
        raise GenerationError(
            f"{enum.__name__} members without a comment to document them: {', '.join(missing)}"
        )
    return comments


def failure_kinds_markdown() -> str:
    """The severities, then every failure kind with its severity, gravest first, in the
    words of ``KIND_TEXT`` (which the SARIF rules carry too)."""
    severities = member_comments(Severity)
    lines = ["| severity | means |", "|---|---|"]
    lines += [f"| `{severity}` | {severities[str(severity)]} |" for severity in Severity]
    lines += ["", "| kind | severity | what went wrong | what to do |", "|---|---|---|---|"]
    order = list(Severity)
    for kind in sorted(FailureKind, key=lambda kind: order.index(SEVERITY[kind])):
        text = KIND_TEXT[kind]
        lines.append(
            f"| `{kind}` | `{SEVERITY[kind]}` | {_escape(text.description)} "
            f"| {_escape(text.help)} |"
        )
    return "\n".join(lines) + "\n"


GENERATED: dict[str, Callable[[], str]] = {
    "options": options_markdown,
    "failure-kinds": failure_kinds_markdown,
    "conformance-agreement": conformance_table.markdown,
}


def render(markdown: str) -> str:
    """``markdown`` with every marker replaced by what it names."""

    def one(match: re.Match[str]) -> str:
        name = match[1]
        if name not in GENERATED:
            raise GenerationError(f"unknown marker {match[0]!r}; known: {', '.join(GENERATED)}")
        return GENERATED[name]()

    return MARKER.sub(one, markdown)


def on_page_markdown(markdown: str, **_: Any) -> str:
    return render(markdown)
