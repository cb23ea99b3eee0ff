"""The servers by name as hand-written tests ask for them (pytest/fixtures.ServerMap): what
a wrong name and an ambiguous or missing ``mcp_server`` say."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_mcp_contracts.pytest.fixtures import ServerMap, UnknownServer

SHOP: Any = object()  # stands for a ServerUnderTest: the map only hands them out
WEATHER: Any = object()


def test_a_name_is_a_node_name_and_a_wrong_one_lists_them() -> None:
    servers = ServerMap({"shop": SHOP, "weather": WEATHER}, [])
    assert servers["shop"] is SHOP and list(servers) == ["shop", "weather"]
    assert "shop" in servers and "Shop" not in servers and servers.get("x") is None
    with pytest.raises(UnknownServer) as unknown:
        servers["Shop"]
    assert isinstance(unknown.value, KeyError)
    assert str(unknown.value) == (
        "mcp_servers['Shop']: no server of this run is named so; the names are those of "
        "their node ids (mcp:<name>): 'shop', 'weather'"
    )


def test_mcp_server_is_the_one_server_and_otherwise_says_what_to_ask_for() -> None:
    assert ServerMap({"shop": SHOP}, ["python bad.py"]).only() is SHOP
    with pytest.raises(pytest.fail.Exception) as two:
        ServerMap({"shop": SHOP, "weather": WEATHER}, []).only()
    assert str(two.value) == (
        "mcp_server: this run has 2 servers ('shop', 'weather'); ask for mcp_servers "
        'instead and pick one by name: mcp_servers["shop"]'
    )
    with pytest.raises(pytest.fail.Exception) as none:
        ServerMap({}, ["python bad.py"]).only()
    assert str(none.value) == (
        "mcp_server: the server python bad.py did not start (its collection error says why)"
    )
    with pytest.raises(UnknownServer, match=r"'shop'; the server python bad.py did not start"):
        ServerMap({"shop": SHOP}, ["python bad.py"])["bad.py"]
