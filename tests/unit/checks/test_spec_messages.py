"""judges/spec_messages: the schema's verdict on a call fails the calling check once, after
the hand-written checks, and a listing entry's fails its schema item."""

from __future__ import annotations

from typing import Any

from pytest_mcp_contracts.judges.call import judge, judge_invalid
from pytest_mcp_contracts.judges.content_listing import entry_findings
from pytest_mcp_contracts.judges.failures import FailureKind
from pytest_mcp_contracts.runs.content_calls import judge_answer
from pytest_mcp_contracts.schema.spec import Spec
from pytest_mcp_contracts.transport.client import CallTranscript
from pytest_mcp_contracts.transport.discover import Entry
from pytest_mcp_contracts.transport.managed import CallOutcome
from pytest_mcp_contracts.vocabulary import EntryKind, Level

V = "2025-06-18"
TOOL = Entry(EntryKind.TOOL, "t", "t", {"name": "t", "inputSchema": {"type": "object"}})
TEXT = {"type": "text", "text": "hi"}


def _call(result: dict[str, Any], method: str = "tools/call", **fields: Any) -> CallOutcome:
    request = {"method": method, "params": {"uri": "file:///a"}}
    return CallOutcome({}, request, result=result, **fields)


def test_a_result_that_breaks_its_definition_fails_the_calling_check() -> None:
    outcome = _call({"content": [{**TEXT, "annotations": {"priority": 7}}]})
    found = judge(TOOL, outcome, V)
    assert found is not None
    assert found.kind is FailureKind.PROTOCOL_VIOLATION
    assert found.rule == "mcp/schema"
    assert found.where == "CallToolResult $.content[0].annotations.priority"
    assert "7 is greater than the maximum of 1" in found.render()
    invalid = judge_invalid(outcome, "t", V)
    assert invalid is not None and invalid.check == "rejects_invalid"


def test_what_the_server_sent_during_the_call_is_judged_with_it() -> None:
    spec = Spec.of(V)
    assert spec is not None
    transcript = CallTranscript(
        violations=spec.message({"method": "notifications/message", "params": {"data": 1}})
    )
    found = judge(TOOL, _call({"content": [TEXT]}, client=transcript), V)
    assert found is not None and found.where == "LoggingMessageNotification $.params"


def test_a_conforming_answer_passes_and_a_hand_written_finding_comes_first() -> None:
    assert judge(TOOL, _call({"content": [TEXT]}), V) is None
    not_a_list = judge(TOOL, _call({"content": "text"}), V)
    assert not_a_list is not None and not_a_list.kind is FailureKind.MALFORMED_RESULT


def test_a_read_that_breaks_its_definition_fails_the_read() -> None:
    # What 2026-07-28 added to a read's result, which the hand-written checks do not know.
    read = {"contents": [{"uri": "file:///a", "text": "x"}], "resultType": "complete"}
    judged = judge_answer(_call(read, "resources/read"), "2026-07-28", check="read")
    assert judged.finding is not None
    assert judged.finding.check == "read"
    assert judged.finding.where == "ReadResourceResult $"
    assert "'cacheScope' is a required property" in judged.finding.render()
    cached = {**read, "ttlMs": 0, "cacheScope": "public"}
    assert judge_answer(_call(cached, "resources/read"), "2026-07-28", check="read").finding is None


def test_a_listing_entry_is_judged_by_its_definition_in_its_schema_item() -> None:
    annotated = {**TOOL.raw, "annotations": {"readOnlyHint": "yes"}}
    tool = Entry(EntryKind.TOOL, "t", "t", annotated)
    found = [f for f in entry_findings(tool, protocol_version=V) if f.rule == "mcp/schema"]
    assert [(f.check, f.level, f.where) for f in found] == [
        ("schema", Level.ERROR, "Tool $.annotations.readOnlyHint")
    ]
    assert not [f for f in entry_findings(TOOL, protocol_version=V) if f.rule == "mcp/schema"]
