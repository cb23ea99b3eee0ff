"""The specification's schemas (schema/spec): vendored as published, compiled per version, and
each message judged by the definition it answers to, with its path named."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest

from pytest_mcp_contracts.schema.spec import HERE, SPEC_VERSIONS, Spec
from pytest_mcp_contracts.transport.discover import LISTINGS

TEXT = {"type": "text", "text": "hi"}


def test_the_vendored_files_are_the_published_ones() -> None:
    source = json.loads((HERE / "SOURCE.json").read_text())
    assert set(source["sha256"]) == {f"{v}.json" for v in SPEC_VERSIONS} | {"LICENSE"}
    for name, digest in source["sha256"].items():
        assert hashlib.sha256((HERE / name).read_bytes()).hexdigest() == digest, name


@pytest.mark.parametrize("version", SPEC_VERSIONS)
def test_each_version_names_the_results_of_the_methods_the_client_sends(version: str) -> None:
    spec = Spec.of(version)
    assert spec is not None
    assert spec.result_definition("tools/call") == "CallToolResult"
    assert spec.result_definition("resources/read") == "ReadResourceResult"
    assert spec.result_definition("prompts/get") == "GetPromptResult"
    for listing in LISTINGS.values():
        assert spec.defines(listing.definition)
        assert spec.result_definition(listing.method) is not None
    assert spec.result_definition("ping") is None  # the empty result: anything passes
    assert spec.result_definition("no/such") is None


def test_a_version_without_a_schema_is_not_judged() -> None:
    assert Spec.of("2023-01-01") is None
    assert Spec.of(None) is None


def _result(version: str, **fields: Any) -> dict[str, Any]:
    extra = {"resultType": "complete"} if version == "2026-07-28" else {}
    return {**fields, **extra}


@pytest.mark.parametrize("version", SPEC_VERSIONS)
def test_conforming_messages_pass(version: str) -> None:
    spec = Spec.of(version)
    assert spec is not None
    assert spec.result("tools/call", _result(version, content=[TEXT], isError=False)) == []
    read = _result(version, contents=[{"uri": "file:///a", "text": "x"}])
    if version == "2026-07-28":
        read |= {"ttlMs": 0, "cacheScope": "private"}
    assert spec.result("resources/read", read) == []
    log = {"method": "notifications/message", "params": {"level": "info", "data": "x"}}
    assert spec.message({"jsonrpc": "2.0", **log}) == []
    assert spec.error({"code": -32602, "message": "no"}, "tools/call") == []


# The five ways a 2025-06-18 server breaks the envelope without touching a tool's own output.
ENVELOPE_BREAKS = [
    (
        "result",
        "tools/call",
        {"content": [{**TEXT, "annotations": {"priority": 2}}]},
        "CallToolResult",
        "$.content[0].annotations.priority",
    ),
    (
        "result",
        "tools/call",
        {"content": [{**TEXT, "annotations": {"audience": ["robot"]}}]},
        "CallToolResult",
        "$.content[0].annotations.audience[0]",
    ),
    (
        "message",
        "notifications/message",
        {"jsonrpc": "2.0", "method": "notifications/message", "params": {"data": "x"}},
        "LoggingMessageNotification",
        "$.params",
    ),
    (
        "message",
        "notifications/progress",
        {
            "jsonrpc": "2.0",
            "method": "notifications/progress",
            "params": {"progressToken": "t", "progress": "half"},
        },
        "ProgressNotification",
        "$.params.progress",
    ),
    (
        "result",
        "resources/read",
        {"contents": [{"text": "x"}]},
        "ReadResourceResult",
        "$.contents[0]",
    ),
]


@pytest.mark.parametrize(("how", "method", "message", "definition", "path"), ENVELOPE_BREAKS)
def test_each_envelope_break_names_its_definition_and_path(
    how: str, method: str, message: dict[str, Any], definition: str, path: str
) -> None:
    spec = Spec.of("2025-06-18")
    assert spec is not None
    found = spec.result(method, message) if how == "result" else spec.message(message)
    assert [(v.definition, v.path) for v in found] == [(definition, path)]
    assert str(found[0]).startswith(f"{found[0].what} breaks {definition} (2025-06-18 schema)")


def test_a_block_is_judged_as_the_kind_it_names() -> None:
    spec = Spec.of("2025-06-18")
    assert spec is not None
    found = spec.result("tools/call", {"content": [{"type": "image", "data": 1}]})
    assert {(v.path, v.message) for v in found} == {
        ("$.content[0]", "'mimeType' is a required property"),
        ("$.content[0].data", "1 is not of type 'string'"),
    }
    unknown = spec.result("tools/call", {"content": [{"type": "video"}]})
    assert [v.path for v in unknown] == ["$.content[0].type"]
    assert "'video' is not one of" in unknown[0].message


def test_a_block_newer_than_the_version_breaks_it() -> None:
    link = {"type": "resource_link", "uri": "file:///a", "name": "a"}
    old, new = Spec.of("2025-03-26"), Spec.of("2025-06-18")
    assert old is not None and new is not None
    assert [v.path for v in old.result("tools/call", {"content": [link]})] == ["$.content[0].type"]
    assert new.result("tools/call", {"content": [link]}) == []


def test_2026_results_carry_their_result_type_and_an_input_request_is_its_own_kind() -> None:
    spec = Spec.of("2026-07-28")
    assert spec is not None
    missing = spec.result("tools/call", {"content": [TEXT]})
    assert [(v.path, v.message) for v in missing] == [("$", "'resultType' is a required property")]
    asking = {"resultType": "input_required", "inputRequests": {}, "requestState": "s"}
    assert spec.result("tools/call", asking) == []
    assert [v.definition for v in spec.result("tools/call", {**asking, "requestState": 1})] == [
        "InputRequiredResult"
    ]


def test_a_listing_is_judged_without_its_entries_which_their_items_judge() -> None:
    spec = Spec.of("2026-07-28")
    assert spec is not None
    page = {"tools": [{"name": "no input schema"}], "resultType": "complete"}
    envelope = spec.envelope("tools/list", page)
    assert {(v.path, v.message) for v in envelope} == {
        ("$", "'cacheScope' is a required property"),
        ("$", "'ttlMs' is a required property"),
    }
    assert "$.tools[0]" in {v.path for v in spec.result("tools/list", page)}
    entry = spec.check("Tool", page["tools"][0], "the tool")
    assert [(v.path, v.message) for v in entry] == [("$", "'inputSchema' is a required property")]


def test_an_error_object_is_judged_by_the_version_s_error() -> None:
    for version, definition, path in [
        ("2025-06-18", "JSONRPCError", "$.error.code"),
        ("2026-07-28", "Error", "$.code"),
    ]:
        spec = Spec.of(version)
        assert spec is not None
        found = spec.error({"code": "oops", "message": "m"}, "tools/call")
        assert [(v.definition, v.path) for v in found] == [(definition, path)]


def test_unknown_methods_are_not_judged() -> None:
    spec = Spec.of("2025-11-25")
    assert spec is not None
    assert spec.message({"method": "notifications/vendor/thing", "params": 3}) == []
    assert spec.result("vendor/thing", {"anything": 1}) == []


def test_members_the_schema_does_not_name_are_allowed() -> None:
    spec = Spec.of("2025-11-25")
    assert spec is not None
    assert spec.result("tools/call", {"content": [{**TEXT, "x-extra": 1}], "extra": True}) == []


def test_a_progress_token_never_sent_cites_the_rule() -> None:
    spec = Spec.of("2025-06-18")
    assert spec is not None
    found = spec.unsent_token("other")
    assert found.path == "$.params.progressToken"
    assert "basic/utilities/progress" in found.message
