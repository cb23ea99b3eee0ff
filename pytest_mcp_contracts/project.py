"""The project's own settings: ``[tool.mcp-contracts]`` in its ``pyproject.toml`` (each
tool's table, the servers' extra environment, the prompts, resources and templates excluded
from their calls), read the same way by the plugin's settings and by ``mcp-contracts``,
which runs without pytest; and, for ``mcp-contracts`` alone, the ``mcp_call`` ini value a
project gives pytest (the option as ``options`` declares it).
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from pytest_mcp_contracts.options import CALL_OPTION
from pytest_mcp_contracts.vocabulary import CALL_POLICIES, FAILING_CLASSES, REJECTS_INVALID_MODES


class SettingsError(ValueError):
    """A setting has a value we cannot use; the message says what is allowed."""


TOOL_KEYS: Final = (
    "skip",
    "call",
    "max_examples",
    "examples",
    "rejects_invalid",
    "warn_only",
    "sampling_text",
    "tool_time",
    "max_p95_ms",
)
# The isError classes that fail a contract item; ``warn_only`` turns them into warnings.
WARNABLE_CLASSES: Final = tuple(str(kind) for kind in FAILING_CLASSES)


@dataclass(frozen=True)
class ToolConfig:
    """``[tool.mcp-contracts.tools.<name>]`` in pyproject.toml: one tool's own settings."""

    skip: bool = False
    call: str | None = None
    max_examples: int | None = None
    examples: tuple[dict[str, Any], ...] = ()
    rejects_invalid: str | None = None
    warn_only: frozenset[str] = frozenset()
    sampling_text: str | None = None  # the canned reply to this tool's sampling requests
    # Its own time budget in seconds (--mcp-tool-time); 0: none; None: the run's.
    tool_time: float | None = None
    # Its own limit on the p95 of its answered calls' latency (--mcp-max-p95-ms), in ms;
    # 0: none; None: the run's.
    max_p95_ms: float | None = None


def _tool_config(name: str, table: Any) -> ToolConfig:
    where = f"[tool.mcp-contracts.tools.{json.dumps(name)}]"
    if not isinstance(table, dict):
        raise SettingsError(f"{where} must be a table")
    unknown = sorted(set(table) - set(TOOL_KEYS))
    if unknown:
        raise SettingsError(f"{where}: unknown key(s) {unknown}; allowed: {', '.join(TOOL_KEYS)}")
    skip, call = table.get("skip", False), table.get("call")
    max_examples, examples = table.get("max_examples"), table.get("examples", [])
    if not isinstance(skip, bool):
        raise SettingsError(f"{where} skip must be true or false")
    if call is not None and call not in CALL_POLICIES:
        raise SettingsError(f"{where} call must be one of {', '.join(CALL_POLICIES)}")
    if max_examples is not None and (type(max_examples) is not int or max_examples < 1):
        raise SettingsError(f"{where} max_examples must be a whole number >= 1")
    if not isinstance(examples, list) or not all(isinstance(e, dict) for e in examples):
        raise SettingsError(f"{where} examples must be a list of tables (tool arguments)")
    rejects_invalid = table.get("rejects_invalid")
    if rejects_invalid is not None and rejects_invalid not in REJECTS_INVALID_MODES:
        raise SettingsError(
            f"{where} rejects_invalid must be one of {', '.join(REJECTS_INVALID_MODES)}"
        )
    warn_only = table.get("warn_only", [])
    if not isinstance(warn_only, list) or not set(warn_only) <= set(WARNABLE_CLASSES):
        raise SettingsError(
            f"{where} warn_only must be a list of: {', '.join(WARNABLE_CLASSES)} "
            f"(got {warn_only!r})"
        )
    sampling_text = table.get("sampling_text")
    if sampling_text is not None and not isinstance(sampling_text, str):
        raise SettingsError(f"{where} sampling_text must be a string")
    tool_time = table.get("tool_time")
    if tool_time is not None:
        try:
            tool_time = budget_seconds(tool_time) or 0.0
        except ValueError:
            raise SettingsError(
                f'{where} tool_time must be a number of seconds > 0, or 0 or "off" for no '
                f"budget (got {tool_time!r})"
            ) from None
    max_p95_ms = table.get("max_p95_ms")
    if max_p95_ms is not None:
        try:
            max_p95_ms = budget_seconds(max_p95_ms) or 0.0  # the same words: > 0, or 0/off
        except (TypeError, ValueError):
            raise SettingsError(
                f'{where} max_p95_ms must be a number of milliseconds > 0, or 0 or "off" for '
                f"no limit (got {max_p95_ms!r})"
            ) from None
    return ToolConfig(
        skip,
        call,
        max_examples,
        tuple(examples),
        rejects_invalid,
        frozenset(warn_only),
        sampling_text,
        tool_time,
        max_p95_ms,
    )


def budget_seconds(raw: Any) -> float | None:
    """Seconds of a time budget (--mcp-tool-time, tool_time); None for none (0, "0", "off");
    ValueError for anything else."""
    if isinstance(raw, bool):
        raise ValueError(raw)
    if isinstance(raw, str) and raw.strip().lower() in ("off", "0", "none"):
        return None
    seconds = float(raw)
    if seconds == 0:
        return None
    if not seconds > 0 or seconds == float("inf"):
        raise ValueError(raw)
    return seconds


def tool_config(tools: Mapping[str, ToolConfig], server: str, name: str) -> ToolConfig:
    """A tool's own settings: its "server/tool" table first, then its bare name's."""
    return tools.get(f"{server}/{name}") or tools.get(name) or ToolConfig()


# The tables that exclude a prompt, resource or template from its calls, by kind: reads and
# gets run under every call policy (they change no state by the spec), so this is the way out.
LISTED_TABLES: Final = {"prompts": "prompt", "resources": "resource", "templates": "template"}


def _listed_skips(name: str, tables: Any) -> set[tuple[str, str]]:
    """``[tool.mcp-contracts.<name>."<key>"] skip = true`` as (kind, key) pairs."""
    if not isinstance(tables, dict):
        raise SettingsError(f"[tool.mcp-contracts] {name} must be a table of tables")
    skips = set()
    for key, table in tables.items():
        where = f"[tool.mcp-contracts.{name}.{json.dumps(key)}]"
        if not isinstance(table, dict):
            raise SettingsError(f"{where} must be a table")
        unknown = sorted(set(table) - {"skip"})
        if unknown:
            raise SettingsError(f"{where}: unknown key(s) {unknown}; allowed: skip")
        skip = table.get("skip", False)
        if not isinstance(skip, bool):
            raise SettingsError(f"{where} skip must be true or false")
        if skip:
            skips.add((LISTED_TABLES[name], key))
    return skips


PYPROJECT: Final = "pyproject.toml"


def load_project_table(
    rootdir: Path,
) -> tuple[dict[str, ToolConfig], dict[str, str], frozenset[tuple[str, str]]]:
    """Per-tool settings, extra server environment, and the prompts, resources and
    templates excluded from their calls, from ``[tool.mcp-contracts]``."""
    path = rootdir / PYPROJECT
    try:
        with path.open("rb") as handle:
            data = tomllib.load(handle)
    except FileNotFoundError:
        return {}, {}, frozenset()
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise SettingsError(f"{path}: {exc}") from None
    table = data.get("tool", {}).get("mcp-contracts", {})
    if not isinstance(table, dict):
        raise SettingsError(f"{path}: [tool.mcp-contracts] must be a table")
    allowed = ("tools", "env", *LISTED_TABLES)
    unknown = sorted(set(table) - set(allowed))
    if unknown:
        raise SettingsError(
            f"[tool.mcp-contracts]: unknown key(s) {unknown}; allowed: {', '.join(allowed)}"
        )
    env = table.get("env", {})
    if not isinstance(env, dict) or not all(isinstance(v, str) for v in env.values()):
        raise SettingsError("[tool.mcp-contracts] env must be a table of strings")
    tools = table.get("tools", {})
    if not isinstance(tools, dict):
        raise SettingsError("[tool.mcp-contracts] tools must be a table of tool tables")
    skips = {pair for name in LISTED_TABLES for pair in _listed_skips(name, table.get(name, {}))}
    configs = {name: _tool_config(name, spec) for name, spec in tools.items()}
    return configs, dict(env), frozenset(skips)


# The files pytest takes its configuration from, in the order it looks for them in each
# folder from the invocation folder up (pytest's own findpaths): a dedicated file counts
# even when empty; the others only with pytest's table or section in them.
#
# The one reading of them outside pytest, for ``mcp-contracts``; a pytest run uses pytest's
# own (``config.rootpath``, ``config.getini``). The CLI cannot ask pytest: its finder is
# private API (``_pytest.config.findpaths``, free to change in any release: pytest 9 added
# the pytest.toml files to it), and a public ``pytest.Config`` is only made by loading every
# installed plugin and conftest, which a command that reads a listing must not run (nor pay
# for).
_INI_FILES: Final = (
    "pytest.toml",
    ".pytest.toml",
    "pytest.ini",
    ".pytest.ini",
    "pyproject.toml",
    "tox.ini",
    "setup.cfg",
)


def pytest_ini(start: Path) -> tuple[Path, Mapping[str, Any]] | None:
    """The file pytest, run from ``start`` without arguments, takes its configuration
    from, and that configuration; None when there is none. SettingsError for a file that
    cannot be read."""
    for folder in (start, *start.parents):
        for name in _INI_FILES:
            path = folder / name
            found = _pytest_section(path) if path.is_file() else None
            if found is not None:
                return path, found
    return None


def project_root(start: Path) -> Path:
    """The rootdir pytest would choose run from ``start`` without arguments: the folder of
    its configuration file, else the nearest one holding a pyproject.toml, else ``start``
    (where [tool.mcp-contracts] is read from)."""
    found = pytest_ini(start)
    if found is not None:
        return found[0].parent
    return next((f for f in (start, *start.parents) if (f / PYPROJECT).is_file()), start)


def configured_call_policy(
    start: Path, environ: Mapping[str, str] | None = None
) -> tuple[str, str]:
    """The call policy a pytest run from ``start`` without arguments would use, and where it
    was set: ``--mcp-call`` in PYTEST_ADDOPTS (of ``environ``, this process's by default),
    else in the configuration's ``addopts``, else its ``mcp_call``, else the default, as
    pytest ranks them. SettingsError for a value that is no policy."""
    import os
    import shlex

    found = pytest_ini(start)
    section: Mapping[str, Any] = found[1] if found is not None else {}
    addopts = section.get("addopts", "")
    places = [
        (
            (environ if environ is not None else os.environ).get("PYTEST_ADDOPTS", ""),
            "PYTEST_ADDOPTS",
        ),
        (
            " ".join(addopts) if isinstance(addopts, list) else str(addopts),
            f"addopts in {found[0] if found else ''}",
        ),
    ]
    flag, ini = CALL_OPTION.flag, CALL_OPTION.ini
    for words, where in places:
        try:
            value = _last_value(flag, shlex.split(words))
        except ValueError as exc:  # unbalanced quotes: pytest would fail on them too
            raise SettingsError(f"{where}: {exc}") from None
        if value is not None:
            return _policy(value, flag, where)
    value = section.get(ini)
    if found is None or value is None:
        return str(CALL_OPTION.default), "the default"
    return _policy(value, ini, f"{found[0]}")


def _last_value(flag: str, words: list[str]) -> str | None:
    """The value of the last ``flag`` among command-line words (as argparse takes it:
    ``--flag=X`` or ``--flag X``), or None."""
    value = None
    for i, word in enumerate(words):
        if word.startswith(f"{flag}="):
            value = word.split("=", 1)[1]
        elif word == flag and i + 1 < len(words):
            value = words[i + 1]
    return value


def _policy(value: Any, name: str, where: str) -> tuple[str, str]:
    """A call policy read as ``name`` (the flag or the ini key) in ``where``, and where."""
    if value not in CALL_OPTION.choices:
        raise SettingsError(
            f"{where}: {name} must be one of {', '.join(CALL_OPTION.choices)}, got {value!r}"
        )
    return str(value), f"{name} in {where}"


def _pytest_section(path: Path) -> Mapping[str, Any] | None:
    """The pytest configuration ``path`` holds: {} for a dedicated file without any, None
    for another file without pytest's table or section."""
    dedicated = path.name.lstrip(".") in ("pytest.toml", "pytest.ini")
    try:
        if path.suffix == ".toml":
            with path.open("rb") as handle:
                data = tomllib.load(handle)
            if path.name != PYPROJECT:
                table = data.get("pytest")
            else:
                tool = data.get("tool", {}).get("pytest")
                native = {k: v for k, v in tool.items() if k != "ini_options"} if tool else {}
                table = native or (tool or {}).get("ini_options")
        else:
            table = _ini_section(path, "tool:pytest" if path.suffix == ".cfg" else "pytest")
    except (OSError, ValueError, AttributeError) as exc:
        raise SettingsError(f"{path}: {exc}") from None
    if isinstance(table, dict):
        return table
    return {} if dedicated else None


def _ini_section(path: Path, section: str) -> dict[str, str] | None:
    """A section of an ini file (None: not there); ValueError for a file configparser
    cannot read. Imported here: only ``mcp-contracts`` reads ini files, a plugin load does
    not."""
    import configparser

    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read(path, encoding="utf-8")
    except configparser.Error as exc:
        raise ValueError(str(exc)) from None
    return dict(parser[section]) if parser.has_section(section) else None
