"""checks/listing.py, checks/result.py and schema/dialects.py: static listing checks and
result checks, as plain data."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pytest_mcp_contracts.checks.listing import check_listing
from pytest_mcp_contracts.checks.result import check_result
from pytest_mcp_contracts.schema.dialects import (
    UnsupportedDialect,
    dialect_of,
    make_validator,
)
from pytest_mcp_contracts.schema.paths import json_path
from pytest_mcp_contracts.transport.discover import ToolSpec

MODERN = "2026-07-28"
LEGACY = "2025-11-25"
OBJ = {"type": "object", "properties": {"n": {"type": "integer"}}}


def tool(**raw: Any) -> ToolSpec:
    raw.setdefault("name", "t")
    raw.setdefault("inputSchema", OBJ)
    return ToolSpec(name=raw["name"], node_name=raw["name"], raw=raw)


def text(value: str) -> list[dict[str, str]]:
    return [{"type": "text", "text": value}]


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ([], "$"),
        (["items", 0, "price"], "$.items[0].price"),
        (["a b", 2], '$["a b"][2]'),
        ([0, 1], "$[0][1]"),
    ],
)
def test_json_path(path: list[Any], expected: str) -> None:
    assert json_path(path) == expected


@pytest.mark.parametrize(
    ("uri", "dialect"),
    [
        (None, "2020-12"),
        ("https://json-schema.org/draft/2020-12/schema", "2020-12"),
        ("http://json-schema.org/draft-07/schema#", "draft-07"),
        ("https://json-schema.org/draft-07/schema", "draft-07"),
        ("http://json-schema.org/draft-04/schema#", "draft-04"),
        ("https://json-schema.org/draft/2019-09/schema", "2019-09"),
    ],
)
def test_dialect_of(uri: str | None, dialect: str) -> None:
    schema = {} if uri is None else {"$schema": uri}
    assert dialect_of(schema) == dialect


def test_unknown_dialect_is_refused_by_name() -> None:
    with pytest.raises(UnsupportedDialect, match=r"http://example\.com/x"):
        dialect_of({"$schema": "http://example.com/x"})


def test_validator_uses_the_declared_dialect() -> None:
    # exclusiveMaximum is a boolean in draft-04 and a number from draft-06 on.
    draft4 = {
        "$schema": "http://json-schema.org/draft-04/schema#",
        "maximum": 5,
        "exclusiveMaximum": True,
    }
    assert not make_validator(draft4).is_valid(5)
    assert make_validator({"exclusiveMaximum": 5}).is_valid(4)
    assert not make_validator({"exclusiveMaximum": 5}).is_valid(5)


def test_validator_checks_formats() -> None:
    validator = make_validator({"type": "string", "format": "date-time"})
    assert validator.is_valid("2026-11-21T10:00:00Z")
    assert not validator.is_valid("yesterday")


def test_validator_never_fetches_a_network_ref() -> None:
    validator = make_validator({"$ref": "https://example.invalid/schema.json"})
    with pytest.raises(Exception, match=r"example\.invalid"):
        validator.is_valid(1)


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
    assert [f.severity for f in findings] == ["error"]
    assert message in findings[0].message


def test_array_output_root_is_fine_on_2026_connections() -> None:
    assert check_listing(tool(outputSchema={"type": "array"}), protocol_version=MODERN) == []


def test_bad_tool_name_is_only_a_warning() -> None:
    findings = check_listing(tool(name="get order!"), protocol_version=MODERN)
    assert [f.severity for f in findings] == ["warning"]
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


def test_valid_structured_content_passes() -> None:
    structured = {"items": [{"price": 1.5}]}
    result = {"content": text(json.dumps(structured)), "structuredContent": structured}
    assert check_result(DECLARED, result, protocol_version=MODERN) == []


def test_violation_is_reported_with_its_json_path() -> None:
    result = {"content": [], "structuredContent": {"items": [{"price": "abc"}]}}
    [finding] = check_result(DECLARED, result, protocol_version=MODERN)
    assert finding.message == "structuredContent does not match the outputSchema (2020-12)"
    assert finding.details == ("$.items[0].price: 'abc' is not of type 'number'",)


def test_missing_structured_content_fails() -> None:
    [finding] = check_result(DECLARED, {"content": text("x")}, protocol_version=MODERN)
    assert "no structuredContent" in finding.message


def test_error_results_are_not_checked_against_the_output_schema() -> None:
    result = {"content": text("boom"), "isError": True}
    assert check_result(DECLARED, result, protocol_version=MODERN) == []


def test_result_without_content_array_is_not_a_call_tool_result() -> None:
    [finding] = check_result(DECLARED, {"structuredContent": {}}, protocol_version=MODERN)
    assert "not a CallToolResult" in finding.message


def test_legacy_structured_content_must_be_an_object() -> None:
    listed = tool(outputSchema={"type": "object"})
    findings = check_result(
        listed, {"content": [], "structuredContent": [1]}, protocol_version=LEGACY
    )
    assert any("must be an object under protocol 2025-11-25" in f.message for f in findings)


def test_tool_without_output_schema_accepts_any_result() -> None:
    assert check_result(tool(), {"content": text("prose")}, protocol_version=MODERN) == []


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ([{"text": "no type"}], "content[0] has no string 'type'"),
        (["just text"], "content[0] is not an object"),
        ([*text("ok"), {"type": "text", "value": "x"}], "content[1] is a 'text' block without"),
        ([{"type": "image", "data": "AA=="}], "'image' block without a string 'mimeType'"),
        ([{"type": "resource", "resource": "x"}], "'resource' block without a 'resource'"),
    ],
)
def test_content_blocks_must_be_content_blocks(content: list[Any], message: str) -> None:
    [finding] = check_result(tool(), {"content": content}, protocol_version=MODERN)
    assert finding.message.startswith("the result is not a CallToolResult: ")
    assert message in finding.message


def test_an_unknown_content_block_type_is_left_alone() -> None:
    result = {"content": [{"type": "hologram", "frames": 3}]}
    assert check_result(tool(), result, protocol_version=MODERN) == []


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


@pytest.mark.parametrize(
    ("output_schema", "message"),
    [
        (
            {"type": "object", "properties": {"v": {"$ref": "#/$defs/a"}}, "$defs": LOOP},
            "recursed too deeply",
        ),
        (
            {"type": "object", "properties": {"v": {"$ref": "http://127.0.0.1:9/s.json"}}},
            "refers to 'http://127.0.0.1:9/s.json', which cannot be resolved",
        ),
    ],
)
def test_an_output_schema_that_cannot_validate_is_a_finding_not_a_crash(
    output_schema: dict[str, Any], message: str
) -> None:
    listed = tool(outputSchema=output_schema)
    result = {"content": text('{"v": 1}'), "structuredContent": {"v": 1}}
    [finding] = check_result(listed, result, protocol_version=MODERN)
    assert message in finding.message


def test_a_cut_entry_reports_only_its_own_problem() -> None:
    listed = ToolSpec("deep", "deep", {"inputSchema": {"type": 5}}, ("too deep",), cut=True)
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
    tool = ToolSpec("t", "t", {"name": "t", "inputSchema": SUPERSCRIPT_REF})
    [finding] = check_listing(tool, protocol_version=MODERN)
    assert finding.severity == "error"
    assert finding.message.startswith("inputSchema has a $ref whose JSON pointer indexes an array")
    assert finding.details == (
        "$ref '#/properties/pair/prefixItems/%C2%B2': '²' is not an array index (ASCII digits, "
        "RFC 6901)",
    )


def test_an_output_schema_with_such_a_ref_is_a_finding_not_a_crash() -> None:
    raw = {"name": "t", "inputSchema": OBJ, "outputSchema": SUPERSCRIPT_REF}
    tool = ToolSpec("t", "t", raw)
    result = {"content": [], "structuredContent": {"n": 1}}
    [finding] = check_result(tool, result, protocol_version=MODERN)
    assert finding.message.startswith("structuredContent cannot be checked: the outputSchema has")


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
