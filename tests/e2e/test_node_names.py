"""Node ids and snapshot files read as the server's names: no hash where a name is unique
(a server called "Demo Server", a tool "_lookup", a resource "config://app/settings"), and
contracts recorded under the names earlier versions gave them (with a hash) still found,
then moved by an update."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pytest_mcp_contracts.transport.discover import former_node_names

from ..conftest import NO_SEQUENCES, RunPytest

SERVER = '''
import json

from mcp.server import MCPServer

app = MCPServer("Demo Server")


@app.tool(name="_lookup")
def lookup(key: str) -> dict[str, str]:
    """Look a key up."""
    return {"key": key, "value": key.upper()}


@app.resource("config://app/settings")
def settings() -> str:
    """The settings."""
    return '{"theme": "dark"}'


@app.resource("users://{user_id}/profile")
def profile(user_id: str) -> str:
    """A user's profile."""
    return json.dumps({"id": user_id})
'''
NOW = [
    "Demo_Server/lookup.json",
    "Demo_Server/resources/config_app_settings.json",
    "Demo_Server/templates/users_user_id_profile.json",
]


def _files(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*.json"))


def _as_earlier_versions_recorded(root: Path) -> list[str]:
    """Move the recorded files to the names versions before issue 26 gave them."""
    (server,) = former_node_names(["Demo Server"])
    (tool,) = former_node_names(["_lookup"])
    (resource,) = former_node_names(["config://app/settings"], limit=96)
    (template,) = former_node_names(["users://{user_id}/profile"], limit=96)
    moves = {
        "lookup": tool,
        "resources/config_app_settings": f"resources/{resource}",
        "templates/users_user_id_profile": f"templates/{template}",
    }
    for now, was in moves.items():
        target = root / server / f"{was}.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        (root / "Demo_Server" / f"{now}.json").rename(target)
    shutil.rmtree(root / "Demo_Server")
    return _files(root)


@pytest.mark.parametrize("workers", [(), ("-n", "2")], ids=["serial", "xdist"])
def test_unique_names_have_no_hash_and_earlier_recordings_are_still_found(
    inprocess_pytest: RunPytest,
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    workers: tuple[str, ...],
) -> None:
    pytester.makepyfile(demo_server=SERVER)
    run = ("--mcp-app=demo_server.py:app", NO_SEQUENCES, "--mcp-max-examples=5", *workers)
    recorded = inprocess_pytest(*run)
    recorded.assert_outcomes(passed=10)
    ids = {report.nodeid for report in recorded.reprec.getreports("pytest_runtest_logreport")}
    assert {
        "mcp:Demo_Server::lookup::contract",
        "mcp:Demo_Server::resource:config_app_settings::read",
        "mcp:Demo_Server::template:users_user_id_profile::read",
    } <= ids
    root = pytester.path / "mcp-contracts"
    assert _files(root) == NOW
    earlier = _as_earlier_versions_recorded(root)
    assert all("-" in name for name in earlier), earlier  # every one with its hash
    # CI reads them where they are: nothing missing, nothing removed, nothing written.
    monkeypatch.setenv("CI", "true")
    ci = inprocess_pytest(*run)
    ci.assert_outcomes(passed=10)
    assert "stale" not in ci.stdout.str() and "drift" not in ci.stdout.str()
    assert _files(root) == earlier
    # An update moves each to its name now; the former folder goes.
    monkeypatch.delenv("CI")
    inprocess_pytest(*run, "--mcp-snapshot-update").assert_outcomes(passed=10)
    assert _files(root) == NOW
    assert [p.name for p in root.iterdir()] == ["Demo_Server"]
