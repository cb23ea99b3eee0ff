"""schema/refs.py: the one $ref / JSON pointer / anchor resolver, checked against
``referencing`` (the resolver jsonschema validates with) and on its own promises."""

from __future__ import annotations

from typing import Any

import pytest
import referencing
import referencing.exceptions
import referencing.jsonschema

from pytest_mcp_contracts.schema.refs import (
    RefIndex,
    Unresolvable,
    bad_array_index,
    escape,
    json_pointer,
    resolve_pointer,
    unescape,
)

POINTERS: dict[str, Any] = {
    "$defs": {
        "a": {"type": "string"},
        "a/b": {"type": "integer"},
        "t~n": {"type": "boolean"},
        "sp ace": {"type": "null"},
        "é": {"const": 1},
        "list": {"anyOf": [{"type": "string"}, {"type": "number"}]},
    },
    "definitions": {"legacy": {"type": "number"}},
    "properties": {"x": {"$ref": "#/$defs/a"}},
}
ANCHORS: dict[str, Any] = {
    "$defs": {
        "named": {"$anchor": "node", "type": "string"},
        "dynamic": {"$dynamicAnchor": "meta", "type": "object"},
    },
}
EMBEDDED: dict[str, Any] = {
    "$id": "https://example.com/root.json",
    "$defs": {
        "local": {"type": "string"},
        "item": {
            "$id": "item.json",
            "$anchor": "inner",
            "$defs": {"deep": {"type": "integer"}},
            "properties": {"d": {"$ref": "#/$defs/deep"}},
        },
        "nested": {
            "$id": "https://example.com/sub/nested.json",
            "$defs": {"x": {"type": "null"}},
        },
    },
}
LEGACY_ANCHOR: dict[str, Any] = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "definitions": {"a": {"$id": "#legacy", "type": "string"}},
}
NO_ID: dict[str, Any] = {
    "$defs": {"rel": {"$id": "rel.json", "$defs": {"x": {"type": "string"}}}},
}

# (schema, the pointer of the schema object the ref is written in, the ref)
CASES: list[tuple[str, dict[str, Any], str, str]] = [
    ("root", POINTERS, "#", "#"),
    ("empty-ref", POINTERS, "#", ""),
    ("defs", POINTERS, "#", "#/$defs/a"),
    ("definitions", POINTERS, "#", "#/definitions/legacy"),
    ("tilde-1", POINTERS, "#", "#/$defs/a~1b"),
    ("tilde-0", POINTERS, "#", "#/$defs/t~0n"),
    ("percent-space", POINTERS, "#", "#/$defs/sp%20ace"),
    ("percent-utf8", POINTERS, "#", "#/$defs/%C3%A9"),
    ("array-index", POINTERS, "#", "#/$defs/list/anyOf/1"),
    ("dangling-pointer", POINTERS, "#", "#/$defs/missing"),
    ("dangling-index", POINTERS, "#", "#/$defs/list/anyOf/7"),
    ("undecoded-slash", POINTERS, "#", "#/$defs/a/b"),
    ("remote", POINTERS, "#", "https://example.com/other.json#/a"),
    ("relative-without-base", POINTERS, "#", "other.json"),
    ("anchor", ANCHORS, "#", "#node"),
    ("dynamic-anchor", ANCHORS, "#", "#meta"),
    ("missing-anchor", ANCHORS, "#", "#nowhere"),
    ("id-root-absolute", EMBEDDED, "#", "https://example.com/root.json#/$defs/local"),
    ("id-root-fragment", EMBEDDED, "#", "#/$defs/local"),
    ("id-relative", EMBEDDED, "#", "item.json"),
    ("id-relative-pointer", EMBEDDED, "#", "item.json#/$defs/deep"),
    ("id-relative-anchor", EMBEDDED, "#", "item.json#inner"),
    ("id-anchor-out-of-scope", EMBEDDED, "#", "#inner"),
    ("id-inside-embedded", EMBEDDED, "#/$defs/item", "#/$defs/deep"),
    ("id-inside-embedded-sub", EMBEDDED, "#/$defs/item/properties/d", "#/$defs/deep"),
    ("id-sibling-from-embedded", EMBEDDED, "#/$defs/item", "root.json#/$defs/local"),
    ("id-absolute-embedded", EMBEDDED, "#", "https://example.com/sub/nested.json#/$defs/x"),
    ("id-relative-dir", EMBEDDED, "#/$defs/item", "sub/nested.json"),
    ("id-remote-sibling", EMBEDDED, "#", "missing.json"),
    ("legacy-id-anchor", LEGACY_ANCHOR, "#", "#legacy"),
    ("relative-id-no-base", NO_ID, "#", "rel.json#/$defs/x"),
]


def _referencing(schema: dict[str, Any], at: str, ref: str) -> Any:
    """What ``referencing`` finds, or the Unresolvable class."""
    spec = referencing.jsonschema.specification_with(
        schema.get("$schema", "https://json-schema.org/draft/2020-12/schema")
    )
    resource = spec.create_resource(schema)
    uri = resource.id() or ""
    resolver = referencing.Registry().with_resource(uri, resource).resolver(uri)
    if at != "#":
        resolver = resolver.lookup(at).resolver  # walks in, taking up each $id on the way
    try:
        return resolver.lookup(ref).contents
    except referencing.exceptions.Unresolvable:
        return Unresolvable


@pytest.mark.parametrize(("schema", "at", "ref"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_agrees_with_referencing(schema: dict[str, Any], at: str, ref: str) -> None:
    expected = _referencing(schema, at, ref)
    index = RefIndex(schema, "draft-07" if "$schema" in schema else "2020-12")
    try:
        found = index.lookup(ref, at).schema
    except Unresolvable:
        found = Unresolvable
    assert found is expected or found == expected


def test_lookup_reports_the_target_pointer() -> None:
    index = RefIndex(EMBEDDED)
    assert index.lookup("item.json#/$defs/deep").pointer == "#/$defs/item/$defs/deep"
    assert index.lookup("#/$defs/deep", "#/$defs/item").pointer == "#/$defs/item/$defs/deep"
    assert RefIndex(ANCHORS).lookup("#node").pointer == "#/$defs/named"
    assert RefIndex(POINTERS).lookup("#/$defs/a~1b").pointer == "#/$defs/a~1b"


def test_a_schema_object_stands_for_its_pointer() -> None:
    index = RefIndex(EMBEDDED)
    item = EMBEDDED["$defs"]["item"]
    assert index.where(item) == "#/$defs/item"
    assert index.lookup("#/$defs/deep", item).schema == {"type": "integer"}
    # A copy is not in the document: it resolves against the root's base.
    with pytest.raises(Unresolvable):
        index.lookup("#/$defs/deep", dict(item))


@pytest.mark.parametrize(
    ("ref", "reason", "network"),
    [
        ("https://example.com/s.json", "remote", True),
        ("urn:other#/a", "remote", False),
        ("#/nowhere", "dangling", False),
        ("#nowhere", "dangling", False),
        ("http://[::1/x", "malformed", False),
        (7, "not-a-string", False),
    ],
)
def test_unresolvable_says_why(ref: object, reason: str, network: bool) -> None:
    with pytest.raises(Unresolvable) as caught:
        RefIndex({**POINTERS, "$id": "https://example.com/r.json"}).lookup(ref)
    assert caught.value.reason == reason
    assert caught.value.is_network is network
    assert repr(ref) in str(caught.value)


def test_never_fetches(monkeypatch: pytest.MonkeyPatch) -> None:
    import socket
    import urllib.request

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the resolver tried to fetch something")

    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(urllib.request, "urlopen", refuse)
    monkeypatch.setattr("builtins.open", refuse)
    index = RefIndex({"$id": "file:///etc/", "$ref": "passwd"})
    for ref in ("passwd", "https://example.com/s.json", "file:///etc/passwd"):
        with pytest.raises(Unresolvable, match="never fetched"):
            index.lookup(ref)


def test_properties_named_like_keywords_are_no_ids_or_anchors() -> None:
    schema = {
        "properties": {"$id": {"type": "string"}, "$anchor": {"type": "string"}},
        "const": {"$anchor": "fake", "$id": "https://example.com/fake.json"},
    }
    index = RefIndex(schema)
    with pytest.raises(Unresolvable, match="points to nothing"):
        index.lookup("#fake")
    with pytest.raises(Unresolvable, match="never fetched"):
        index.lookup("https://example.com/fake.json")


def test_legacy_ref_hides_its_sibling_id() -> None:
    schema = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "definitions": {"a": {"$id": "a.json", "$ref": "#/definitions/b"}, "b": {}},
    }
    with pytest.raises(Unresolvable, match="never fetched"):
        RefIndex(schema, "draft-07").lookup("a.json")
    assert RefIndex({**schema, "$schema": None}).lookup("a.json").pointer == "#/definitions/a"


def test_a_ref_cycle_is_one_hop_per_lookup() -> None:
    schema = {"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#"}
    index = RefIndex(schema)
    assert index.lookup("#/$defs/a").schema == {"$ref": "#/$defs/b"}
    assert index.lookup("#").schema is schema
    assert sorted(index.refs()) == [
        ("#", "#"),
        ("#/$defs/a", "#/$defs/b"),
        ("#/$defs/b", "#/$defs/a"),
    ]


def test_depth_is_bounded_and_reported() -> None:
    deep: dict[str, Any] = {"$anchor": "bottom"}
    for _ in range(100):
        deep = {"items": deep}
    index = RefIndex(deep, max_depth=64)
    assert index.too_deep == "#" + "/items" * 64
    assert len(index.schema_pointers) == 64
    with pytest.raises(Unresolvable):
        index.lookup("#bottom")  # past the bound: not indexed


def test_pointer_helpers_round_trip() -> None:
    assert escape("a/b~c") == "a~1b~0c"
    assert unescape("a~1b~0c") == "a/b~c"
    assert unescape("~01") == "~1"  # ~1 first would make it "/"
    assert json_pointer(("properties", "a/b", 0)) == "#/properties/a~1b/0"
    assert resolve_pointer(POINTERS, json_pointer(("$defs", "a/b"))) == {"type": "integer"}
    assert resolve_pointer([10, 20], "/1") == 20
    with pytest.raises(KeyError):
        resolve_pointer([10, 20], "/01")
    assert bad_array_index(POINTERS, "#/$defs/list/anyOf/²") == "²"
    assert bad_array_index(POINTERS, "#/$defs/list/anyOf/1") is None
