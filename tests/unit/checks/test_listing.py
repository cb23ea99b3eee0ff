"""judges/tool_listing.py: static listing checks, as plain data; tool-name rules without the SDK
(the same verdicts and words as its validator)."""

from __future__ import annotations

from typing import Any

import pytest
from mcp.shared.tool_name_validation import validate_tool_name

from pytest_mcp_contracts.judges.tool_listing import check_listing, tool_name_warnings
from pytest_mcp_contracts.transport.discover import Entry
from pytest_mcp_contracts.vocabulary import EntryKind

MODERN = "2026-07-28"
LEGACY = "2025-11-25"
OBJ = {"type": "object", "properties": {"n": {"type": "integer"}}}


def tool(**raw: Any) -> Entry:
    raw.setdefault("name", "t")
    raw.setdefault("inputSchema", OBJ)
    return Entry(EntryKind.TOOL, key=raw["name"], node_name=raw["name"], raw=raw)


def text(value: str) -> list[dict[str, str]]:
    return [{"type": "text", "text": value}]


def test_a_correct_listing_has_no_findings() -> None:
    assert check_listing(tool(outputSchema={"type": "object"}), protocol_version=LEGACY) == []


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"inputSchema": {"type": "string"}}, "inputSchema root must be an object schema"),
        ({"inputSchema": "x"}, "inputSchema is not a JSON object"),
        ({"outputSchema": {"type": 5}}, "outputSchema is not a valid 2020-12 schema"),
        ({"outputSchema": {"type": "array"}}, "outputSchema root must be an object schema"),
        ({"inputSchema": {"$schema": "urn:nope", **OBJ}}, "unsupported JSON Schema dialect"),
        (
            {"inputSchema": {**OBJ, "properties": {"a": {"$ref": "https://x.invalid/a"}}}},
            "network $ref",
        ),
    ],
)
def test_listing_problems_are_errors(raw: dict[str, Any], message: str) -> None:
    findings = check_listing(tool(**raw), protocol_version=LEGACY)
    assert [f.level for f in findings] == ["error"]
    assert message in findings[0].message


def test_array_output_root_is_fine_on_2026_connections() -> None:
    assert check_listing(tool(outputSchema={"type": "array"}), protocol_version=MODERN) == []


def test_bad_tool_name_is_only_a_warning() -> None:
    findings = check_listing(tool(name="get order!"), protocol_version=MODERN)
    assert [f.level for f in findings] == ["warning"]
    assert "naming rules" in findings[0].message


DECLARED = tool(
    outputSchema={
        "type": "object",
        "properties": {
            "items": {
                "type": "array",
                "items": {"type": "object", "properties": {"price": {"type": "number"}}},
            }
        },
        "required": ["items"],
    }
)


LOOP = {"a": {"$ref": "#/$defs/b"}, "b": {"allOf": [{"$ref": "#/$defs/a"}]}}


def test_a_ref_loop_that_never_moves_into_the_instance_is_a_schema_error() -> None:
    schema = {"type": "object", "properties": {"x": {"$ref": "#/$defs/a"}}, "$defs": LOOP}
    [finding] = check_listing(tool(inputSchema=schema), protocol_version=MODERN)
    assert "$ref loop" in finding.message
    assert "#/$defs/a -> #/$defs/b -> #/$defs/a" in finding.message


def test_recursion_through_properties_or_items_is_no_loop() -> None:
    node = {
        "type": "object",
        "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/node"}}},
    }
    schema = {"type": "object", "properties": {"root": {"$ref": "#/$defs/node"}}}
    listed = tool(inputSchema={**schema, "$defs": {"node": node}})
    assert check_listing(listed, protocol_version=MODERN) == []


def test_a_cut_entry_reports_only_its_own_problem() -> None:
    listed = Entry(
        EntryKind.TOOL, "deep", "deep", {"inputSchema": {"type": 5}}, ("too deep",), cut=True
    )
    assert [f.message for f in check_listing(listed, protocol_version=MODERN)] == ["too deep"]


# "%C2%B2" decodes to "²": a digit to str.isdigit(), no number to int().
SUPERSCRIPT_REF = {
    "type": "object",
    "properties": {
        "pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}]},
        "n": {"$ref": "#/properties/pair/prefixItems/%C2%B2"},
    },
}


def test_a_ref_indexing_an_array_with_a_non_ascii_digit_is_a_schema_finding() -> None:
    tool = Entry(EntryKind.TOOL, "t", "t", {"name": "t", "inputSchema": SUPERSCRIPT_REF})
    [finding] = check_listing(tool, protocol_version=MODERN)
    assert finding.level == "error"
    assert finding.message.startswith("inputSchema has a $ref whose JSON pointer indexes an array")
    assert finding.details == (
        "$ref '#/properties/pair/prefixItems/%C2%B2': '²' is not an array index (ASCII digits, "
        "RFC 6901)",
    )


# -- $refs as the one resolver (schema/refs.py) reads them ------------------------------------

OWN_ID = "https://example.com/tools/search.json"


def test_a_ref_to_the_schemas_own_id_is_no_network_ref() -> None:
    schema = {
        **OBJ,
        "$id": OWN_ID,
        "$defs": {"q": {}},
        "properties": {"q": {"$ref": f"{OWN_ID}#/$defs/q"}},
    }
    assert check_listing(tool(inputSchema=schema), protocol_version=MODERN) == []


def test_a_relative_ref_that_leaves_the_document_is_a_network_ref() -> None:
    schema = {**OBJ, "$id": OWN_ID, "properties": {"q": {"$ref": "money.json"}}}
    [finding] = check_listing(tool(inputSchema=schema), protocol_version=MODERN)
    assert "network $ref(s) that clients must not fetch: money.json" in finding.message


@pytest.mark.parametrize(
    ("ref", "defs"),
    [
        ("#/$defs/a%20b", {"a b": {"allOf": [{"$ref": "#/$defs/a%20b"}]}}),
        ("#loop", {"a": {"$anchor": "loop", "not": {"$ref": "#loop"}}}),
    ],
    ids=["percent-encoded", "anchor"],
)
def test_a_ref_loop_is_found_however_the_ref_is_spelled(ref: str, defs: dict[str, Any]) -> None:
    schema = {"type": "object", "properties": {"x": {"$ref": ref}}, "$defs": defs}
    [finding] = check_listing(tool(inputSchema=schema), protocol_version=MODERN)
    assert "$ref loop" in finding.message


NAMES = [
    "get_weather",
    "a.b-c_D9",
    "",
    "x" * 128,
    "x" * 129,
    "has space",
    "a,b",
    "-lead",
    "trail.",
    ".both-",
    "héllo wörld, ok",
    "tab\there",
    "emoji🙂",
    "slash/and:colon",
    "-",
]


@pytest.mark.parametrize("name", NAMES)
def test_tool_name_warnings_match_the_sdk(name: str) -> None:
    assert tool_name_warnings(name) == validate_tool_name(name).warnings


def test_a_valid_name_has_no_warnings() -> None:
    assert tool_name_warnings("search.files-v2") == []
