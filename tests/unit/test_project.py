"""project.py: the call policy mcp-contracts reads from the pytest configuration pytest would
find, and the folder it reads [tool.mcp-contracts] from, without pytest."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pytest_mcp_contracts.project import SettingsError, configured_call_policy, project_root


def _write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("pytest.toml", '[pytest]\nmcp_call = "all"\n'),
        ("pytest.ini", "[pytest]\nmcp_call = all\n"),
        ("pyproject.toml", '[tool.pytest.ini_options]\nmcp_call = "all"\n'),
        ("pyproject.toml", '[tool.pytest]\nmcp_call = "all"\n'),
        ("tox.ini", "[pytest]\nmcp_call = all\n"),
        ("setup.cfg", "[tool:pytest]\nmcp_call = all\n"),
    ],
)
def test_the_policy_is_read_where_pytest_reads_its_ini(
    tmp_path: Path, name: str, text: str
) -> None:
    path = _write(tmp_path, name, text)
    below = tmp_path / "src" / "pkg"
    below.mkdir(parents=True)
    assert configured_call_policy(below) == ("all", f"mcp_call in {path}")
    assert project_root(below) == tmp_path


def test_the_first_file_that_configures_pytest_wins_as_for_pytest(tmp_path: Path) -> None:
    # pytest.ini counts even without the value (or a [pytest] section): the default stands.
    first = tmp_path / "first"
    _write(first, "pytest.ini", "[other]\n")
    _write(first, "pyproject.toml", '[tool.pytest.ini_options]\nmcp_call = "all"\n')
    assert configured_call_policy(first) == ("nondestructive", "the default")
    # A pyproject.toml without pytest's table is passed over...
    passed_over = tmp_path / "passed_over"
    _write(passed_over, "pyproject.toml", "[tool.mcp-contracts]\n")
    _write(passed_over, "setup.cfg", "[tool:pytest]\nmcp_call = readonly\n")
    assert configured_call_policy(passed_over)[0] == "readonly"
    # ...but it is the rootdir (where [tool.mcp-contracts] is read) when nothing above or
    # beside it configures pytest.
    bare = tmp_path / "bare"
    _write(bare, "pyproject.toml", "[project]\nname = 'x'\n")
    (bare / "src").mkdir()
    assert project_root(bare / "src") == bare
    assert configured_call_policy(bare / "src") == ("nondestructive", "the default")


def test_a_value_that_is_no_policy_is_an_error_naming_the_file(tmp_path: Path) -> None:
    path = _write(tmp_path, "pytest.ini", "[pytest]\nmcp_call = everything\n")
    with pytest.raises(SettingsError, match=re.escape(f"{path}: mcp_call must be one of ")):
        configured_call_policy(tmp_path)
    _write(tmp_path / "broken", "pyproject.toml", "[tool.pytest\n")
    with pytest.raises(SettingsError, match=re.escape(str(tmp_path / "broken"))):
        configured_call_policy(tmp_path / "broken")


def test_addopts_and_pytest_addopts_outrank_mcp_call_as_in_pytest(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        "pytest.ini",
        "[pytest]\nmcp_call = readonly\naddopts = -q --mcp-call all -p no:randomly\n",
    )
    assert configured_call_policy(tmp_path, {}) == ("all", f"--mcp-call in addopts in {path}")
    environ = {"PYTEST_ADDOPTS": "--mcp-call=nondestructive"}
    assert configured_call_policy(tmp_path, environ) == (
        "nondestructive",
        "--mcp-call in PYTEST_ADDOPTS",
    )
    toml = tmp_path / "toml"
    listed = _write(toml, "pyproject.toml", '[tool.pytest]\naddopts = ["--mcp-call=readonly"]\n')
    assert configured_call_policy(toml, {}) == ("readonly", f"--mcp-call in addopts in {listed}")
    with pytest.raises(SettingsError, match="PYTEST_ADDOPTS: --mcp-call must be one of"):
        configured_call_policy(tmp_path, {"PYTEST_ADDOPTS": "--mcp-call=some"})
