"""Text that contradicts structuredContent (contracts/agreement), and the shapes that agree."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pytest_mcp_contracts.contracts.agreement import mirrors, same, text_contradiction
from pytest_mcp_contracts.judges.tool_result import check_result
from pytest_mcp_contracts.transport.discover import Entry
from pytest_mcp_contracts.vocabulary import EntryKind


def _result(structured: Any, *texts: str) -> dict[str, Any]:
    return {
        "content": [{"type": "text", "text": text} for text in texts],
        "structuredContent": structured,
    }


@pytest.mark.parametrize(
    "result",
    [
        _result({"total": 252.5}, json.dumps({"total": 252.5}, indent=2)),
        _result({"total": 1}, '{"total": 1.0}'),  # the same JSON number
        _result({"result": 42}, "42"),  # MCPServer: a scalar, bare in the text
        _result({"result": "ok"}, "ok"),
        # a `-> str` tool returning a JSON document (a file's text), written as it is
        _result({"result": '{\n  "name": "sample"\n}'}, '{\n  "name": "sample"\n}'),
        _result({"result": [{"a": 1}, {"a": 2}]}, '{"a": 1}', '{"a": 2}'),  # one block per item
        _result({"result": [{"a": 1}]}, '{"a": 1}'),
        _result({"result": ["x", "{y"]}, "x", "{y"),  # strings without JSON quotes
        _result({"entities": [{"n": "A"}]}, '[{"n": "A"}]'),  # a bare array beside its key
        _result({"total": 2}, "Total: 2 items"),  # prose is not compared
        _result({"total": 2}, "Here it is:", '{"total": 2}'),
        _result({"total": 2}, '{"total": 2}', '{"meta": "extra"}'),  # one block mirrors it
        _result({"total": 2}),
        {"content": [{"type": "text", "text": '{"a": 1}'}]},  # no structured content
    ],
)
def test_shapes_that_agree(result: dict[str, Any]) -> None:
    assert text_contradiction(result) is None


def test_the_sdk_coercion_case_names_the_path_and_both_values() -> None:
    # Python mcp 2.3: a tool annotated -> Quote returned {"total": "252.50"}; the SDK coerced
    # the structured content and wrote the raw value into the text.
    result = _result({"quantity": 101, "total": 252.5}, '{"quantity": 101, "total": "252.50"}')
    found = text_contradiction(result)
    assert found is not None
    assert found[1] == ['$.total: the text has "252.50" (string), structuredContent 252.5 (number)']


def test_missing_and_extra_keys_and_lengths_are_named() -> None:
    result = _result({"a": 1, "b": [1, 2], "c": True}, '{"a": 1, "b": [1], "d": 0, "c": 1}')
    found = text_contradiction(result)
    assert found is not None
    assert found[1] == [
        "$.b: the text has 1 items, structuredContent 2",
        "$.d: only in the text (0)",
        "$.c: the text has 1 (number), structuredContent true (boolean)",
    ]
    missing = text_contradiction(_result({"a": 1, "note": "x"}, '{"a": 1}'))
    assert missing is not None
    assert missing[1] == ['$.note: missing from the text (structuredContent has "x")']


def test_the_closest_reading_is_reported() -> None:
    # {"result": [...]} against a bare array in the text: compared with the inner list.
    found = text_contradiction(_result({"result": [1, 2]}, "[1, 3]"))
    assert found is not None
    assert found[1] == ["$[1]: the text has 3 (number), structuredContent 2 (number)"]


def test_json_equality_is_not_python_equality() -> None:
    assert same(1, 1.0) and same({"a": [1.5]}, {"a": [1.5]})
    assert not same(True, 1) and not same(0, False) and not same(None, 0)


def test_check_result_fails_a_contradiction_with_the_outputschema_errors() -> None:
    schema = {
        "type": "object",
        "properties": {"total": {"type": "number"}},
        "required": ["total"],
    }
    raw = {"name": "quote", "inputSchema": {"type": "object"}, "outputSchema": schema}
    tool = Entry(EntryKind.TOOL, "quote", "quote", raw)
    result = _result({"total": 252.5}, '{"total": "252.50"}')
    (finding,) = check_result(tool, result, protocol_version="2025-11-25")
    assert finding.message.startswith("the text content contradicts structuredContent")
    assert finding.details[0] == (
        '$.total: the text has "252.50" (string), structuredContent 252.5 (number)'
    )
    assert "  $.total: '252.50' is not of type 'number'" in finding.details
    agreeing = _result({"total": 252.5}, '{"total": 252.50}')
    assert check_result(tool, agreeing, protocol_version="2025-11-25") == []


def test_deep_nesting_from_a_hostile_server_is_compared_without_recursing() -> None:
    deep: Any = 1
    for _ in range(400):
        deep = {"a": [deep]}
    text = json.dumps(deep)
    assert text_contradiction(_result(deep, text)) is None
    other = json.loads(text.replace("1", "2"))
    found = text_contradiction(_result(deep, json.dumps(other)))
    assert found is not None
    (line,) = found[1]
    assert line.endswith(": differs below this point (nested too deep to show where)")


QUOTE_SCHEMA = {
    "$defs": {
        "Quote": {
            "type": "object",
            "properties": {
                "total": {"type": "number"},
                "currency": {"type": "string", "default": "EUR"},
                "note": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
            },
            "required": ["total"],
        }
    },
    "type": "object",
    "properties": {"result": {"type": "array", "items": {"$ref": "#/$defs/Quote"}}},
}


def test_defaults_the_sdk_filled_in_are_no_contradiction() -> None:
    # MCPServer: a tool returning {"total": 1} for a model with defaults sends them in
    # structuredContent and the dict as it was in the text, one block per list item.
    filled = {"total": 1, "currency": "EUR", "note": None}
    result = _result({"result": [filled, filled]}, '{"total": 1}', '{"total": 1.0}')
    assert text_contradiction(result, QUOTE_SCHEMA) is None
    assert mirrors(result, QUOTE_SCHEMA)  # and the inferred contract's mirror count agrees
    assert not mirrors(result)
    # A value other than the default is a contradiction; so is any default without a schema.
    other = {"total": 1, "currency": "USD", "note": None}
    found = text_contradiction(_result({"result": [other]}, '{"total": 1}'), QUOTE_SCHEMA)
    assert found is not None
    assert found[1] == ['$[0].currency: missing from the text (structuredContent has "USD")']
    assert text_contradiction(_result(filled, '{"total": 1}')) is not None


def test_a_key_the_model_dropped_is_no_contradiction_unless_the_schema_forbids_it() -> None:
    schema = {"type": "object", "properties": {"total": {"type": "number"}}}
    result = _result({"total": 2}, '{"total": 2, "debug": "x"}')
    assert text_contradiction(result, schema) is None
    closed = {**schema, "additionalProperties": False}
    assert text_contradiction(result, closed) is not None
    declared = {"type": "object", "properties": {"total": {}, "debug": {}}}
    assert text_contradiction(result, declared) is not None  # declared, yet not sent
    assert text_contradiction(result) is not None  # no schema: the server wrote both


def test_structured_content_that_is_the_content_blocks_agrees() -> None:
    # mcp-text-editor on FastMCP (mcp 1.30): a tool returning Sequence[TextContent] gets
    # structuredContent {"result": [<the blocks>]} beside the blocks themselves.
    text = '{"path": "a.txt", "hash": "x1"}'
    blocks = [{"type": "text", "text": text}]
    result = {"content": blocks, "structuredContent": {"result": [{**blocks[0], "meta": None}]}}
    assert text_contradiction(result) is None
    # Blocks whose texts differ from the text blocks are data that can contradict.
    other = {"content": blocks, "structuredContent": {"result": [{"type": "text", "text": "{}"}]}}
    assert text_contradiction(other) is not None
