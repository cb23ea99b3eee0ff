"""The listing checks of resources, resource templates and prompts (judges/content_listing)."""

from typing import Any

import pytest

from pytest_mcp_contracts.judges.content_listing import check_entry, listing_failure_finding
from pytest_mcp_contracts.transport.discover import (
    ListingFailure,
    build_entries,
)
from pytest_mcp_contracts.vocabulary import EntryKind

NEW = "2025-11-25"
OLD = "2024-11-05"


def rules(spec: type, raw: Any, version: str = NEW) -> list[tuple[str | None, str]]:
    (entry,) = build_entries(spec, [raw])
    return [(f.rule, f.level) for f in check_entry(entry, protocol_version=version)]


@pytest.mark.parametrize(
    ("spec", "raw"),
    [
        (
            EntryKind.RESOURCE,
            {"uri": "file:///docs/readme.md", "name": "readme", "mimeType": "text/markdown"},
        ),
        (EntryKind.RESOURCE, {"uri": "test://static/resource/1", "name": "r", "size": 12}),
        (
            EntryKind.RESOURCE,
            {"uri": "mailto:a@example.com", "name": "m", "mimeType": "text/plain; charset=utf-8"},
        ),
        (EntryKind.TEMPLATE, {"uriTemplate": "users://{id}/profile", "name": "profile"}),
        (EntryKind.TEMPLATE, {"uriTemplate": "{+base}/logs{?since,limit}", "name": "logs"}),
        (
            EntryKind.PROMPT,
            {
                "name": "review",
                "arguments": [{"name": "code", "required": True}, {"name": "style"}],
            },
        ),
        (EntryKind.PROMPT, {"name": "plain"}),
        # Before 2025-06-18 the schema has no title: any value is an unknown member.
        (EntryKind.PROMPT, {"name": "old", "title": 3}),
    ],
)
def test_correct_entries_have_no_findings(spec: type, raw: dict[str, Any]) -> None:
    version = OLD if raw.get("name") == "old" else NEW
    assert rules(spec, raw, version) == []


@pytest.mark.parametrize(
    ("spec", "raw", "expected"),
    [
        (EntryKind.RESOURCE, {"uri": "docs/readme.md", "name": "r"}, ("mcp/resource-uri", "error")),
        (EntryKind.RESOURCE, {"uri": "file:///a b", "name": "r"}, ("mcp/resource-uri", "error")),
        (EntryKind.RESOURCE, {"name": "r"}, ("mcp/required-member", "error")),
        (EntryKind.RESOURCE, {"uri": "file:///a"}, ("mcp/required-member", "error")),
        (
            EntryKind.RESOURCE,
            {"uri": "file:///a", "name": "r", "size": "12"},
            ("mcp/member-type", "error"),
        ),
        (
            EntryKind.RESOURCE,
            {"uri": "file:///a", "name": "r", "size": True},
            ("mcp/member-type", "error"),
        ),
        (
            EntryKind.RESOURCE,
            {"uri": "file:///a", "name": "r", "mimeType": "markdown"},
            ("mcp/mime-type", "warning"),
        ),
        (
            EntryKind.RESOURCE,
            {"uri": "file:///a", "name": "r", "title": ["t"]},
            ("mcp/member-type", "error"),
        ),
        (
            EntryKind.TEMPLATE,
            {"uriTemplate": "file://{path", "name": "t"},
            ("mcp/uri-template", "error"),
        ),
        (EntryKind.TEMPLATE, {"uriTemplate": "x://{}", "name": "t"}, ("mcp/uri-template", "error")),
        (
            EntryKind.TEMPLATE,
            {"uriTemplate": "x://{=a}", "name": "t"},
            ("mcp/uri-template", "error"),
        ),
        (
            EntryKind.TEMPLATE,
            {"uriTemplate": "users/{id}", "name": "t"},
            ("mcp/uri-template", "error"),
        ),
        (EntryKind.TEMPLATE, {"uriTemplate": 7, "name": "t"}, ("mcp/member-type", "error")),
        (
            EntryKind.PROMPT,
            {"name": "p", "arguments": [{"description": "no name"}]},
            ("mcp/required-member", "error"),
        ),
        (
            EntryKind.PROMPT,
            {"name": "p", "arguments": [{"name": "a", "required": "yes"}]},
            ("mcp/member-type", "error"),
        ),
        (
            EntryKind.PROMPT,
            {"name": "p", "arguments": [{"name": "a"}, {"name": "a"}]},
            ("mcp/duplicate", "error"),
        ),
        (EntryKind.PROMPT, {"name": "p", "arguments": ["a"]}, ("mcp/prompt-argument", "error")),
        (EntryKind.PROMPT, {"name": "p", "arguments": {"a": {}}}, ("mcp/member-type", "error")),
        (EntryKind.PROMPT, {"description": "no name"}, ("mcp/required-member", "error")),
        (EntryKind.PROMPT, 5, ("mcp/listing-entry", "error")),
    ],
)
def test_each_rule_is_found(spec: type, raw: Any, expected: tuple[str, str]) -> None:
    raw = raw if isinstance(raw, dict) else {"__not_an_object__": raw}
    assert rules(spec, raw) == [expected]


def test_a_key_listed_twice_is_one_entry_with_a_duplicate_finding() -> None:
    first, second = {"name": "greet"}, {"name": "greet", "description": "again"}
    (entry,) = build_entries(EntryKind.PROMPT, [first, second])
    assert entry.raw is first and entry.listed == 2
    (finding,) = check_entry(entry, protocol_version=NEW)
    assert finding.rule == "mcp/duplicate" and "listed 2 times in prompts/list" in finding.message


def test_node_names_are_safe_and_readable() -> None:
    raws = [
        {"uri": "file:///docs/readme.md"},
        {"uri": "file:///docs/readme:md"},
        {"name": "plain"},
        {"uri": "../../etc/passwd\n::x"},
    ]
    names = [e.node_name for e in build_entries(EntryKind.RESOURCE, raws)]
    # Each renders apart from the others: no hash.
    assert names[:3] == ["file_docs_readme.md", "file_docs_readme_md", "unnamed"]
    assert all("/" not in n and "::" not in n and "\n" not in n for n in names)
    assert len(set(names)) == len(names)
    (prompt,) = build_entries(EntryKind.PROMPT, [{"name": "review_code"}])
    assert prompt.node == "prompt:review_code"


def test_a_failed_listing_is_a_finding_of_its_own() -> None:
    failure = ListingFailure(
        "prompt", "prompts/list", "prompts/list failed: JSON-RPC error -32601: Method not found"
    )
    finding = listing_failure_finding(failure)
    assert failure.node == "listing:prompts"
    assert finding.rule == "mcp/listing" and finding.level == "error"
    assert finding.message == "prompts/list failed: JSON-RPC error -32601: Method not found"


def test_templates_not_listed_by_a_server_that_declares_resources_is_a_warning() -> None:
    """The Python SDK 1.x low-level Server answers resources/templates/list with -32601
    unless templates were registered (mcp-server-sqlite): "none" in the wrong words."""
    message = "resources/templates/list failed: JSON-RPC error -32601: Method not found"
    failure = ListingFailure("template", "resources/templates/list", message, -32601)
    finding = listing_failure_finding(failure)
    assert finding.level == "warning" and finding.rule == "mcp/listing"
    assert "resourceTemplates" in (finding.fix or "")
    # Another error there, or -32601 for prompts, still fails.
    other = ListingFailure("template", "resources/templates/list", "boom", -32603)
    assert listing_failure_finding(other).level == "error"
    prompts = ListingFailure("prompt", "prompts/list", message, -32601)
    assert listing_failure_finding(prompts).level == "error"
