"""--mcp-lints / ini mcp_lints in pytest/settings.py: every lint a warning by default, the
command line over ini, and a usage error that names the close match."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pytest_mcp_contracts.judges.lints import LINTS
from pytest_mcp_contracts.options import OPTIONS
from pytest_mcp_contracts.pytest.settings import SettingsError, resolve
from pytest_mcp_contracts.vocabulary import Level


def settings(cli: dict[str, Any], ini: dict[str, Any]) -> Any:
    ini = {"mcp_url": ["http://localhost:1/mcp"], **ini}  # lints are read for runs with servers
    return resolve(
        lambda flag: cli.get(flag), lambda key: ini.get(key), rootdir=Path("/repo"), environ={}
    )


def test_every_lint_warns_by_default() -> None:
    resolved = settings({}, {})
    assert resolved.lints is None
    assert {resolved.lint_levels.level(i) for i in LINTS} == {Level.WARNING}


def test_ini_lines_and_the_command_line_over_them() -> None:
    ini = {"mcp_lints": "no-annotations:off\n  model-instructions:error"}
    from_ini = settings({}, ini).lint_levels
    assert from_ini.level("no-annotations") is None  # off
    assert from_ini.level("model-instructions") is Level.ERROR
    assert from_ini.level("hidden-text") is Level.WARNING
    from_cli = settings({"--mcp-lints": "all:error"}, ini).lint_levels
    assert {from_cli.level(i) for i in LINTS} == {Level.ERROR}


def test_a_misspelled_lint_is_a_usage_error_with_the_close_match() -> None:
    with pytest.raises(SettingsError) as caught:
        settings({}, {"mcp_lints": "hiden-text:error"})
    assert str(caught.value).startswith(
        "--mcp-lints (ini mcp_lints): unknown lint 'hiden-text'; did you mean 'hidden-text'?"
    )


def test_the_help_names_every_lint() -> None:
    (option,) = [o for o in OPTIONS if o.flag == "--mcp-lints"]
    assert all(lint_id in option.help for lint_id in LINTS)


def test_a_run_without_servers_reads_no_lints() -> None:
    resolved = resolve({"--mcp-lints": "nonsense"}.get, {}.get, rootdir=Path("/repo"), environ={})
    assert resolved.lints is None
