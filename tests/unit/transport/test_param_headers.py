"""The Mcp-Param-* headers a 2026-07-28 tools/call mirrors from its arguments, written in
transport/param_headers rather than taken from the SDK: the same answers as the SDK's
``mcp.shared.inbound`` (compared where that SDK is installed), on the schemas that decide
something."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_mcp_contracts.transport.param_headers import (
    encode_value,
    header_map,
    headers_for,
    invalid_reason,
)


def test_header_values_outside_printable_ascii_are_base64_wrapped() -> None:
    assert encode_value("plain value") == "plain value"
    assert encode_value("café") == "=?base64?Y2Fmw6k=?="
    assert encode_value(" padded") == "=?base64?IHBhZGRlZA==?="
    # A value that looks like the wrapper is wrapped, or the server would unwrap it.
    assert encode_value("=?base64?eA==?=") == "=?base64?PT9iYXNlNjQ/ZUE9PT89?="


def _prop(token: Any, kind: Any = "string") -> dict[str, Any]:
    return {"type": kind, "x-mcp-header": token}


VALID = {
    "type": "object",
    "properties": {
        "region": _prop("Region"),
        "units": _prop("Units"),
        "count": _prop("Count", "integer"),
        "dry": _prop("Dry", "boolean"),
        "where": {"type": "object", "properties": {"zone": _prop("Zone")}},
        "plain": {"type": "string"},
    },
}

# Schemas whose annotations a client must not mirror at all, and the words of the reason.
INVALID = {
    "under items": (
        {"properties": {"tags": {"type": "array", "items": _prop("Tag")}}},
        "not reached through properties",
    ),
    "under anyOf": ({"anyOf": [{"properties": {"a": _prop("A")}}]}, "not reached"),
    "under $defs": ({"$defs": {"x": _prop("X")}}, "not reached"),
    "on the root": ({"type": "string", "x-mcp-header": "Root"}, "not reached"),
    "not a token": ({"properties": {"a": _prop("Bad Name")}}, "not an RFC 9110 token"),
    "not a string": ({"properties": {"a": _prop(7)}}, "must be a string"),
    "a number": ({"properties": {"a": _prop("A", "number")}}, "other than string"),
    "no type": ({"properties": {"a": {"x-mcp-header": "A"}}}, "other than string"),
    "a type list": ({"properties": {"a": _prop("A", ["string", "null"])}}, "other than"),
    "repeated": (
        {"properties": {"a": _prop("Same"), "b": _prop("same")}},
        "repeats",
    ),
}


def test_annotated_properties_reached_through_properties_are_mirrored() -> None:
    assert invalid_reason(VALID) is None
    assert header_map(VALID) == {
        ("region",): "Region",
        ("units",): "Units",
        ("count",): "Count",
        ("dry",): "Dry",
        ("where", "zone"): "Zone",
    }
    arguments = {
        "region": "eu-west",
        "units": None,  # null: no header
        "count": 3,
        "dry": True,
        "where": {"zone": "Zürich"},
        "plain": "not mirrored",
    }
    assert headers_for(header_map(VALID), arguments) == {
        "Mcp-Param-Region": "eu-west",
        "Mcp-Param-Count": "3",
        "Mcp-Param-Dry": "true",
        "Mcp-Param-Zone": "=?base64?WsO8cmljaA==?=",
    }
    # Absent, or a path through a non-object, or a value with no rendering: no header.
    assert headers_for(header_map(VALID), {"where": "flat", "region": ["a"]}) == {}


@pytest.mark.parametrize(("schema", "words"), INVALID.values(), ids=INVALID.keys())
def test_an_invalid_annotation_anywhere_mirrors_none(schema: dict[str, Any], words: str) -> None:
    reason = invalid_reason(schema)
    assert reason is not None and words in reason
    assert header_map(schema) == {}


def test_schemas_that_are_not_objects_have_no_headers() -> None:
    for schema in (None, True, [], "x", {}):
        assert invalid_reason(schema) is None
        assert header_map(schema) == {}


@pytest.mark.parametrize(
    "schema",
    [VALID, *(schema for schema, _ in INVALID.values())],
    ids=["valid", *INVALID.keys()],
)
def test_the_same_headers_as_the_python_sdk(schema: dict[str, Any]) -> None:
    inbound = pytest.importorskip("mcp.shared.inbound")
    assert (invalid_reason(schema) is None) == (inbound.find_invalid_x_mcp_header(schema) is None)
    ours = header_map(schema)
    if ours:
        assert ours == inbound.x_mcp_header_map(schema)
        arguments = {"region": "a b", "count": 10**5, "dry": False, "where": {"zone": "ü"}}
        assert headers_for(ours, arguments) == inbound.mcp_param_headers(ours, arguments)
    for value in ("plain", "café", " x", "=?base64?eA==?=", "", "tab\there"):
        assert encode_value(value) == inbound.encode_header_value(value)
