"""judges/tool_result.py: result checks, as plain data."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pytest_mcp_contracts.judges.tool_result import check_result
from pytest_mcp_contracts.transport.discover import Entry
from pytest_mcp_contracts.vocabulary import EntryKind
from tests.unit.checks.test_listing import (
    DECLARED,
    LEGACY,
    LOOP,
    MODERN,
    OBJ,
    SUPERSCRIPT_REF,
    text,
    tool,
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
    ],
)
def test_content_blocks_must_be_content_blocks(content: list[Any], message: str) -> None:
    [finding] = check_result(tool(), {"content": content}, protocol_version=MODERN)
    assert finding.message.startswith("the result is not a CallToolResult: ")
    assert message in finding.message


@pytest.mark.parametrize(
    ("block", "rule", "where"),
    [
        ({"type": "resource", "resource": "x"}, "mcp/contents-entry", "content[1].resource"),
        (
            {"type": "resource", "resource": {"uri": "file:///a.png", "blob": "no base64!"}},
            "mcp/blob-base64",
            "content[1].resource.blob",
        ),
        ({"type": "resource_link", "uri": "a.txt", "name": "a"}, "mcp/resource-uri", None),
        ({"type": "resource_link", "uri": "file:///a.txt"}, "mcp/required-member", None),
    ],
)
def test_a_broken_embedded_resource_or_link_fails_the_result_even_with_is_error(
    block: dict[str, Any], rule: str, where: str | None
) -> None:
    for is_error in (False, True):
        result = {"content": [*text("ok"), block], "isError": is_error}
        [finding] = check_result(tool(), result, protocol_version=MODERN)
        assert (finding.check, finding.rule) == ("contract", rule)
        assert finding.where is not None and finding.where.startswith("content[1]")
        assert where is None or finding.where == where


def test_embedded_resource_warnings_do_not_fail_a_tool_result() -> None:
    # An embedded resource without a mimeType is a warning (judges/content_results): the judge
    # fails a call on any finding, so the result check leaves warnings out.
    block = {"type": "resource", "resource": {"uri": "file:///a.txt", "text": "hi"}}
    assert check_result(tool(), {"content": [block]}, protocol_version=MODERN) == []


def test_an_unknown_content_block_type_is_left_alone() -> None:
    result = {"content": [{"type": "hologram", "frames": 3}]}
    assert check_result(tool(), result, protocol_version=MODERN) == []


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


def test_an_output_schema_with_such_a_ref_is_a_finding_not_a_crash() -> None:
    raw = {"name": "t", "inputSchema": OBJ, "outputSchema": SUPERSCRIPT_REF}
    tool = Entry(EntryKind.TOOL, "t", "t", raw)
    result = {"content": [], "structuredContent": {"n": 1}}
    [finding] = check_result(tool, result, protocol_version=MODERN)
    assert finding.message.startswith("structuredContent cannot be checked: the outputSchema has")
