"""transport/discover.py: names made safe, pagination read to the end, malformed entries kept."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest

from pytest_mcp_contracts.transport.discover import (
    CUT_MARKER,
    MAX_ENTRY_DEPTH,
    build_surface,
    command_label,
    former_node_names,
    list_tools,
    node_names,
    safe_name,
)
from pytest_mcp_contracts.transport.errors import ProtocolViolation
from pytest_mcp_contracts.transport.stdio import ServerCommand


class FakeConnection:
    """Answers tools/list from a dict of cursor -> page."""

    def __init__(self, pages: dict[str | None, dict[str, Any]]) -> None:
        self.pages = pages
        self.cursors: list[str | None] = []
        self.command = ServerCommand.parse("python -m demo_server")
        self.server_info: dict[str, Any] = {"name": "demo"}
        self.protocol_version = "2026-07-28"
        self.capabilities: dict[str, Any] = {"tools": {}}

    def request(self, method: str, params: dict[str, Any], *, timeout: float) -> dict[str, Any]:
        cursor = params.get("cursor")
        self.cursors.append(cursor)
        return self.pages[cursor]

    def stderr_tail(self) -> str:
        return ""


def tools(*names: str) -> list[dict[str, Any]]:
    return [{"name": n, "inputSchema": {"type": "object"}} for n in names]


def test_pagination_continues_past_an_empty_string_cursor() -> None:
    conn = FakeConnection(
        {
            None: {"tools": tools("a"), "nextCursor": ""},
            "": {"tools": tools("b"), "nextCursor": "c2"},
            "c2": {"tools": tools("c")},
        }
    )
    listed = list_tools(conn, timeout=1)  # type: ignore[arg-type]
    assert [t["name"] for t in listed] == ["a", "b", "c"]
    assert conn.cursors == [None, "", "c2"]


def test_a_looping_cursor_is_a_protocol_violation() -> None:
    conn = FakeConnection(
        {None: {"tools": [], "nextCursor": "x"}, "x": {"tools": [], "nextCursor": "x"}}
    )
    with pytest.raises(ProtocolViolation, match="loops"):
        list_tools(conn, timeout=1)  # type: ignore[arg-type]


def test_missing_tools_array_is_a_protocol_violation() -> None:
    with pytest.raises(ProtocolViolation, match="no 'tools' array"):
        list_tools(FakeConnection({None: {}}), timeout=1)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "name",
    ["get_order", "a.b-c", "x" * 64],
)
def test_safe_names_stay_as_they_are(name: str) -> None:
    assert safe_name(name) == name


@pytest.mark.parametrize(
    "name",
    ["../../x", "/etc/passwd", "a/b", "con\x00trol", "x" * 10_000, "名前", "a::b[1]"],
)
def test_unsafe_names_become_safe_and_distinct(name: str) -> None:
    safe = safe_name(name)
    assert safe != name
    assert len(safe) <= 64
    assert all(c.isalnum() or c in "_.-" for c in safe) and safe.isascii()
    assert not safe.startswith(".")
    # Alone a rendering may equal another name's; in one listing they never meet.
    first, second = node_names([name, name + "!"])
    assert first != second


def test_a_name_that_renders_uniquely_has_no_hash() -> None:
    names = ["get weather", "config://app/settings", "_private", "users/{user_id}/profile"]
    assert node_names(names) == [
        "get_weather",
        "config_app_settings",
        "private",
        "users_user_id_profile",
    ]


def _digest(name: str) -> str:
    return hashlib.sha256(name.encode()).hexdigest()[:8]


def test_names_that_render_alike_keep_a_stable_hash_in_any_order() -> None:
    # "a_b" is its own rendering: it keeps it; every other name rendered so gets its hash.
    expected = {"a b": f"a_b-{_digest('a b')}", "A_B": "A_B", "a/b": f"a_b-{_digest('a/b')}"}
    for names in (["a b", "A_B", "a/b"], ["a/b", "a b", "A_B"]):
        assert node_names(names) == [expected[name] for name in names]
    # Alone, each renders without one.
    assert node_names(["a b"]) == ["a_b"]


def test_former_names_are_what_earlier_versions_recorded_under() -> None:
    names = ["get weather", "plain", "CON", "x" * 70]
    assert former_node_names(names) == [
        f"get_weather-{_digest('get weather')}",
        "plain",
        f"CON-{_digest('CON')}",
        f"{'x' * 55}-{_digest('x' * 70)}",
    ]
    # Where a hash stays (a device name, a long one), the name did not move.
    assert node_names(names)[2:] == former_node_names(names)[2:]


def test_duplicate_and_case_clashing_names_get_distinct_node_names() -> None:
    raw = [*tools("Foo", "foo", "foo"), {"name": 3, "inputSchema": {}}, "not an object"]
    listed = [r if isinstance(r, dict) else {"__not_an_object__": r} for r in raw]
    surface = build_surface(FakeConnection({}), listed)  # type: ignore[arg-type]
    node_names = [t.node_name for t in surface.tools]
    assert len({n.lower() for n in node_names}) == len(node_names)
    # A name listed twice is one tool (calls go by name): its first entry, flagged.
    assert [t.name for t in surface.tools] == ["Foo", "foo", "", ""]
    assert "listed 2 times" in surface.tools[1].problems[0]
    assert surface.tools[2].problems == ("the tool has no name",)
    assert "not an object" in surface.tools[3].problems[0]


def test_a_clash_suffix_never_takes_the_name_of_a_listed_tool() -> None:
    # The old numbering gave both the second "foo" and the real "foo-2" the node name foo-2,
    # and so one snapshot file.
    surface = build_surface(FakeConnection({}), tools("foo", "Foo", "foo-2"))  # type: ignore[arg-type]
    assert [t.node_name for t in surface.tools] == ["foo", "Foo-3", "foo-2"]


@pytest.mark.parametrize("name", ["CON", "con", "Nul.txt", "LPT1", "com9"])
def test_windows_device_names_are_not_file_names(name: str) -> None:
    assert safe_name(name).startswith(name + "-")


def _depth(value: Any) -> int:
    deepest, stack = 0, [(value, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        children = node.values() if isinstance(node, dict) else node
        stack += [(c, depth + 1) for c in children if isinstance(c, (dict, list))]
    return deepest


def test_an_entry_nested_too_deeply_is_cut_and_flagged() -> None:
    deep: dict[str, Any] = {"type": "string"}
    for _ in range(MAX_ENTRY_DEPTH):
        deep = {"type": "object", "properties": {"a": deep}}
    listed = [*tools("flat"), {"name": "deep", "inputSchema": deep}]
    flat, cut = build_surface(FakeConnection({}), listed).tools  # type: ignore[arg-type]
    assert not flat.cut and not flat.problems
    assert cut.cut and "nests deeper than 256 levels" in cut.problems[0]
    assert _depth(cut.raw) == MAX_ENTRY_DEPTH
    assert CUT_MARKER in json.dumps(cut.raw)


@pytest.mark.parametrize(
    ("command", "label"),
    [
        ("python -m my_server --debug", "my_server"),
        ("node build/index.js", "index.js"),
        ("npx -y @acme/mcp-server", "mcp-server"),
        ("my-server", "my-server"),
    ],
)
def test_command_label(command: str, label: str) -> None:
    assert command_label(ServerCommand.parse(command).argv) == label


class ListingsConnection(FakeConnection):
    """Answers each listing method from its own pages; a method missing from ``by_method``
    is refused as the SDKs refuse an unknown method."""

    def __init__(self, capabilities: dict[str, Any], by_method: dict[str, Any]) -> None:
        super().__init__({None: {"tools": tools("a")}})
        self.capabilities = capabilities
        self.by_method = by_method
        self.methods: list[str] = []

    def request(self, method: str, params: dict[str, Any], *, timeout: float) -> dict[str, Any]:
        from pytest_mcp_contracts.transport.errors import RpcError

        self.methods.append(method)
        if method == "tools/list":
            return super().request(method, params, timeout=timeout)
        if method not in self.by_method:
            raise RpcError(-32601, "Method not found")
        page: dict[str, Any] = self.by_method[method][params.get("cursor")]
        return page


def test_declared_listings_are_read_to_their_last_page_and_undeclared_ones_never_asked() -> None:
    from pytest_mcp_contracts.transport.discover import discover

    conn = ListingsConnection(
        {"tools": {}, "prompts": {}},
        {
            "prompts/list": {
                None: {"prompts": [{"name": "p1"}], "nextCursor": "2"},
                "2": {"prompts": [{"name": "p2"}]},
            }
        },
    )
    surface = discover(conn, timeout=1)  # type: ignore[arg-type]
    assert [p.key for p in surface.prompts] == ["p1", "p2"]
    assert surface.resources == () and surface.listing_failures == ()
    assert "resources/list" not in conn.methods  # old SDKs crash on methods they do not know


def test_a_failed_or_garbled_listing_is_its_own_failure_and_keeps_the_tools() -> None:
    from pytest_mcp_contracts.transport.discover import discover

    conn = ListingsConnection(
        {"tools": {}, "prompts": {}, "resources": {}},
        {
            "resources/list": {None: {"resources": "not an array"}},
            "resources/templates/list": {None: {"resourceTemplates": [{"uriTemplate": "x://{a}"}]}},
        },
    )
    surface = discover(conn, timeout=1)  # type: ignore[arg-type]
    assert [t.name for t in surface.tools] == ["a"]
    assert [t.key for t in surface.templates] == ["x://{a}"]
    failures = {f.method: f.message for f in surface.listing_failures}
    assert failures.keys() == {"prompts/list", "resources/list"}
    assert "Method not found" in failures["prompts/list"]
    assert "no 'resources' array" in failures["resources/list"]
