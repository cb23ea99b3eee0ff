"""runs/repeat.py: two answers to one input, compared past what varies by its nature."""

from __future__ import annotations

import json
from typing import Any

from pytest_mcp_contracts.runs.repeat import differing_paths, repeatable
from pytest_mcp_contracts.transport.discover import Entry, EntryKind


def _result(structured: dict[str, Any], text: str | None = None) -> dict[str, Any]:
    shown = json.dumps(structured) if text is None else text
    return {"content": [{"type": "text", "text": shown}], "structuredContent": structured}


def test_ids_uuids_and_times_vary_and_nothing_else_does() -> None:
    first = _result(
        {
            "value": 7,
            "request_id": 1,
            "token": "1b4e28ba-2fa1-11d2-883f-0016d3cca427",
            "at": "2026-12-02T00:00:00Z",
        }
    )
    same = _result(
        {
            "value": 7,
            "request_id": 2,
            "token": "6fa459ea-ee8a-3ca4-894e-db77e160355e",
            "at": "2026-12-02T00:00:01.5Z",
        }
    )
    assert differing_paths(first, same) == []
    other = _result({**same["structuredContent"], "value": 8})
    assert differing_paths(first, other) == ["$.content[0].text.value", "$.structuredContent.value"]


def test_a_missing_field_a_changed_error_flag_and_text_are_named() -> None:
    first = {"content": [{"type": "text", "text": "made at 2026-12-02T00:00:00Z"}]}
    later = {"content": [{"type": "text", "text": "made at 2026-12-02T00:00:09Z"}]}
    assert differing_paths(first, later) == []  # a time inside a text
    assert differing_paths(first, {**later, "isError": True}) == ["$.isError"]
    assert differing_paths(_result({"a": 1}), _result({"a": 1, "b": 2})) == [
        "$.content[0].text.b",
        "$.structuredContent.b",
    ]
    assert differing_paths({"content": [], "_meta": {"x": 1}}, {"content": []}) == []


def test_only_a_tool_that_says_calls_repeat_is_sent_twice() -> None:
    def tool(hints: dict[str, Any]) -> Entry:
        return Entry(kind=EntryKind.TOOL, key="t", node_name="t", raw={"annotations": hints})

    assert repeatable(tool({"readOnlyHint": True}))
    assert repeatable(tool({"idempotentHint": True}))
    assert not repeatable(tool({"readOnlyHint": False}))
    assert not repeatable(tool({}))
