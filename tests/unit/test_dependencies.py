"""What the core install asks of a server's environment: no MCP SDK (a server's project pins
its own, of any generation), and only --mcp-app reaches for the one it has."""

from __future__ import annotations

import ast
import importlib.util
import tomllib
from pathlib import Path

import pytest

from pytest_mcp_contracts.transport import inprocess
from pytest_mcp_contracts.transport.errors import ServerStartError

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "pytest_mcp_contracts"


def _imports_of_mcp(tree: ast.Module) -> list[tuple[int, bool]]:
    """(line, at module level) of every import of ``mcp`` or a module under it."""
    found = []
    top = {id(node) for node in tree.body}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        if any(name == "mcp" or name.startswith("mcp.") for name in names):
            found.append((node.lineno, id(node) in top))
    return found


def test_only_the_in_process_transport_imports_the_sdk_and_only_when_it_runs() -> None:
    importers = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        found = _imports_of_mcp(ast.parse(path.read_text(encoding="utf-8")))
        if found:
            importers[path.relative_to(ROOT).as_posix()] = found
    assert set(importers) == {"pytest_mcp_contracts/transport/inprocess.py"}, importers
    assert not [line for line, top in importers[next(iter(importers))] if top]


def test_the_core_install_requires_no_sdk_and_the_app_extra_brings_one() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    names = [spec.split(">")[0].split("=")[0].split("<")[0] for spec in project["dependencies"]]
    assert not {"mcp", "mcp-types", "fastmcp", "pydantic"} & set(names), names
    assert [s for s in project["optional-dependencies"]["app"] if s.startswith("mcp")]


def test_mcp_app_without_an_sdk_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "mcp" else real(name, *a)
    )
    app = inprocess.ServerApp("any_module", "app", ROOT)
    with pytest.raises(ServerStartError) as caught:
        app.load()
    message = str(caught.value)
    assert "pip install 'pytest-mcp-contracts[app]'" in message
    assert "its own SDK is the one used" in message
    assert "\n" not in message
