"""judges/content_results.py: what resources/read and prompts/get answer, and embedded resources
(judges/content_blocks.py, judges/resource_contents.py, judges/media.py)."""

from __future__ import annotations

import base64
import time
from typing import Any

import pytest

from pytest_mcp_contracts.judges.content_blocks import check_embedded_resource
from pytest_mcp_contracts.judges.content_results import (
    MAX_ENTRIES_JUDGED,
    MAX_FINDINGS_SHOWN,
    check_prompt_result,
    check_read_result,
)
from pytest_mcp_contracts.judges.failures import FailureKind, Finding
from pytest_mcp_contracts.judges.media import MAX_BASE64_CHARS, base64_problem
from pytest_mcp_contracts.judges.resource_contents import is_sub_uri

NEW = "2025-11-25"
MODERN = "2026-07-28"
OLD = "2024-11-05"
PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\0" * 40).decode()
JPEG = base64.b64encode(b"\xff\xd8\xff\xe0" + b"\0" * 40).decode()
PDF = base64.b64encode(b"%PDF-1.7\n" + b"\0" * 40).decode()
ZEROS = base64.b64encode(b"\0" * 40).decode()
URI = "file:///docs/a.txt"


def rules(findings: list[Finding]) -> list[tuple[str | None, str]]:
    return [(f.rule, f.level) for f in findings]


def read(*entries: Any, uri: str = URI, version: str = NEW) -> list[tuple[str | None, str]]:
    return rules(check_read_result({"contents": list(entries)}, uri, protocol_version=version))


def prompt(*contents: Any, version: str = NEW, role: str = "user") -> list[tuple[str | None, str]]:
    messages = [{"role": role, "content": content} for content in contents]
    return rules(check_prompt_result({"messages": messages}, protocol_version=version))


# -- base64 ------------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["", "QQ==", "QUI=", "QUJD", PNG, "AAEC/w=="])
def test_standard_padded_base64_has_no_problem(value: str) -> None:
    assert base64_problem(value) is None


@pytest.mark.parametrize(
    ("value", "level", "words"),
    [
        ("ab-c", "error", "URL-safe alphabet ('-' at offset 2)"),
        ("a_bc", "error", "URL-safe alphabet ('_' at offset 1)"),
        ("QQ=A", "error", "'=' padding inside the data"),
        ("héllo==", "error", "'é' at offset 1, outside the base64 alphabet"),
        ("Q", "error", "a length (1 characters) no base64 string has"),
        ("QQ=", "error", "a length (3 characters)"),
        ("QQ===", "error", "a length (5 characters)"),
        # atob (the TypeScript SDK's check) takes these; Python's b64decode refuses the first.
        ("QQ", "warning", "no '=' padding"),
        ("QUJD\nQUJD", "warning", "broken into lines"),
    ],
)
def test_base64_problems(value: str, level: str, words: str) -> None:
    problem = base64_problem(value)
    assert problem is not None
    assert (problem.level, words in problem.message) == (level, True), problem.message


def test_a_huge_blob_is_judged_on_its_head_and_its_length_in_bounded_time() -> None:
    beyond_the_cap = "A" * (MAX_BASE64_CHARS + 8) + "-AAA"
    assert base64_problem(beyond_the_cap) is None  # the alphabet is checked on the head only
    assert base64_problem("A" * (MAX_BASE64_CHARS + 9)) is not None  # the length on all
    blob = "QUJD" * (50 * 1024 * 1024 // 4)  # 50 MB
    started = time.perf_counter()
    found = read({"uri": URI, "blob": blob, "mimeType": "image/png"})
    assert time.perf_counter() - started < 2
    assert found == [("mcp/mime-content", "warning")]  # "ABC..." is no PNG


# -- sub-resources ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("uri", "requested", "sub"),
    [
        ("file:///dir/a.txt", "file:///dir/a.txt", True),
        ("file:///dir/a.txt", "file:///dir", True),
        ("file:///dir/a.txt", "file:///dir/", True),
        ("doc://x/readme#intro", "doc://x/readme", True),
        # What URL parsers rewrite: an empty path after a host, host case, escapes.
        ("https://example.com/", "https://example.com", True),
        ("https://example.com/a", "https://Example.COM/a", True),
        ("file:///a%20b", "file:///a b", True),
        ("file:///dir2/a.txt", "file:///dir", False),
        ("file:///other.txt", "file:///dir/a.txt", False),
        ("users://{id}/profile", "users://42/profile", False),
        ("http://example.com/a", "https://example.com/a", False),
        ("db://t?row=1", "db://t?row=2", False),
    ],
)
def test_sub_uri(uri: str, requested: str, sub: bool) -> None:
    assert is_sub_uri(uri, requested) is sub


# -- resources/read ----------------------------------------------------------------------

# What the real SDKs sent (checked 2026-11-25 over stdio: Python mcp 2.3.0 MCPServer on
# 2026-07-28 and 2025-11-25, TypeScript SDK 1.32.2 McpServer on 2025-11-25).
SDK_READS = [
    ({"uri": "data://text", "mimeType": "text/plain", "text": "plain text"}, "data://text"),
    ({"uri": "data://b", "mimeType": "application/octet-stream", "blob": "AAFiaW5hcnk="}, None),
    ({"uri": "data://dict", "mimeType": "application/json", "text": '{\n  "a": 1\n}'}, None),
    ({"uri": "data://list", "mimeType": "application/json", "text": '[\n  1,\n  "x"\n]'}, None),
    ({"uri": "users://42/profile", "mimeType": "application/json", "text": '{"id": "42"}'}, None),
    ({"uri": "data://png", "blob": PNG, "mimeType": "image/png"}, None),
    ({"uri": "data://blob", "blob": "AAEC/w==", "mimeType": "application/octet-stream"}, None),
    ({"uri": "data://text", "text": "plain"}, None),  # TypeScript: no mimeType
]


@pytest.mark.parametrize(("entry", "requested"), SDK_READS)
@pytest.mark.parametrize("version", [OLD, NEW, MODERN])
def test_what_the_sdks_send_is_clean(
    entry: dict[str, Any], requested: str | None, version: str
) -> None:
    result = {"contents": [entry], "resultType": "complete", "_meta": {"k": 1}}
    uri = requested or entry["uri"]
    assert check_read_result(result, uri, protocol_version=version) == []


@pytest.mark.parametrize(
    ("entries", "expected"),
    [
        ([{"uri": URI, "text": "hi"}, {"uri": URI + "/part", "text": "2"}], []),
        ([{"uri": "file:///docs/b.txt", "text": "hi"}], [("mcp/read-uri", "error")]),
        ([{"uri": "docs/a.txt", "text": "hi"}], [("mcp/resource-uri", "error")]),
        ([{"text": "hi"}], [("mcp/required-member", "error")]),
        ([{"uri": 7, "text": "hi"}], [("mcp/member-type", "error")]),
        (["hi"], [("mcp/contents-entry", "error")]),
        ([{"uri": URI}], [("mcp/contents-entry", "error")]),
        ([{"uri": URI, "text": "a", "blob": "QQ=="}], [("mcp/contents-entry", "error")]),
        ([{"uri": URI, "text": 5}], [("mcp/member-type", "error")]),
        ([{"uri": URI, "blob": "not base64!"}], [("mcp/blob-base64", "error")]),
        ([{"uri": URI, "blob": "QQ"}], [("mcp/base64-form", "warning")]),
        ([{"uri": URI, "text": "x", "mimeType": "text"}], [("mcp/mime-type", "warning")]),
        ([{"uri": URI, "text": "x", "mimeType": 3}], [("mcp/member-type", "error")]),
        ([{"uri": URI, "text": "x", "_meta": "m"}], [("mcp/member-type", "error")]),
    ],
)
def test_read_entries(entries: list[Any], expected: list[tuple[str, str]]) -> None:
    assert read(*entries) == expected


def test_the_uri_read_echoed_is_not_judged_again() -> None:
    # A relative listed URI fails the resource's schema item (mcp/resource-uri) already.
    assert read({"uri": "docs/a.txt", "text": "x"}, uri="docs/a.txt") == []
    assert read({"uri": "docs/b.txt", "text": "x"}, uri="docs/a.txt") == [
        ("mcp/resource-uri", "error")
    ]


def test_meta_is_an_unknown_member_before_2025_06_18() -> None:
    assert read({"uri": URI, "text": "x", "_meta": "m"}, version=OLD) == []


@pytest.mark.parametrize(
    ("entry", "expected"),
    [
        ({"text": '{"a": [1, 2]}', "mimeType": "application/json"}, []),
        ({"text": '{"@id": "x"}', "mimeType": "application/ld+json; charset=utf-8"}, []),
        ({"text": "{oops", "mimeType": "application/json"}, [("mcp/mime-mismatch", "error")]),
        ({"text": "NaN", "mimeType": "application/json"}, [("mcp/mime-mismatch", "error")]),
        ({"text": "{'a': 1}", "mimeType": "text/plain"}, []),
        ({"blob": JPEG, "mimeType": "image/png"}, [("mcp/mime-mismatch", "error")]),
        ({"blob": PDF, "mimeType": "image/jpg"}, [("mcp/mime-mismatch", "error")]),
        ({"blob": JPEG, "mimeType": "image/jpg"}, []),
        ({"blob": ZEROS, "mimeType": "image/png"}, [("mcp/mime-content", "warning")]),
        ({"blob": ZEROS, "mimeType": "image/bmp"}, []),  # no signature known: not judged
        ({"blob": PNG, "mimeType": "text/plain"}, [("mcp/mime-content", "warning")]),
        ({"blob": "AAFiaW5hcnk=", "mimeType": "text/plain"}, [("mcp/mime-content", "warning")]),
        (
            {"blob": base64.b64encode(b"\xff\xfe\xfa").decode(), "mimeType": "text/csv"},
            [("mcp/mime-content", "warning")],
        ),
        # server-everything's blob resources: UTF-8 text as a blob, which the spec allows.
        ({"blob": base64.b64encode("Résumé 2".encode()).decode(), "mimeType": "text/plain"}, []),
        ({"text": "abc", "mimeType": "image/png"}, [("mcp/mime-content", "warning")]),
        ({"text": "<svg/>", "mimeType": "image/svg+xml"}, []),
    ],
)
def test_mime_type_against_content(entry: dict[str, Any], expected: list[tuple[str, str]]) -> None:
    assert read({"uri": URI, **entry}) == expected


def test_a_mismatch_says_what_the_bytes_are() -> None:
    [found] = check_read_result(
        {"contents": [{"uri": URI, "blob": JPEG, "mimeType": "image/png"}]},
        URI,
        protocol_version=NEW,
    )
    assert found.message == "the data is labelled 'image/png' but its bytes are image/jpeg"
    assert (found.check, found.kind, found.where) == (
        "read",
        FailureKind.MALFORMED_RESULT,
        "contents[0].blob",
    )


@pytest.mark.parametrize(
    ("result", "expected"),
    [
        ({"contents": "x"}, [("mcp/read-result", "error")]),
        ({}, [("mcp/read-result", "error")]),
        ({"contents": []}, [("mcp/empty-result", "warning")]),
        ({"contents": [{"uri": URI, "text": ""}], "_meta": []}, [("mcp/member-type", "error")]),
    ],
)
def test_read_result_envelope(result: dict[str, Any], expected: list[tuple[str, str]]) -> None:
    assert rules(check_read_result(result, URI, protocol_version=NEW)) == expected


def test_a_hundred_thousand_entries_are_judged_in_bounded_time_and_said_once() -> None:
    entries = [{"uri": "file:///elsewhere", "text": "x"}] * 100_000
    started = time.perf_counter()
    found = check_read_result({"contents": entries}, URI, protocol_version=NEW)
    assert time.perf_counter() - started < 2
    assert len(found) == MAX_FINDINGS_SHOWN
    assert found[0].details == (
        f"only the first {MAX_ENTRIES_JUDGED} of 100000 contents entries were judged "
        f"({100_000 - MAX_ENTRIES_JUDGED} more)",
        f"{MAX_ENTRIES_JUDGED - MAX_FINDINGS_SHOWN} more findings are not shown",
    )
    assert all(not f.details for f in found[1:])


# -- prompts/get -------------------------------------------------------------------------

IMAGE = {"type": "image", "data": PNG, "mimeType": "image/png"}
TEXT = {"type": "text", "text": "hi"}
WAV = base64.b64encode(b"RIFF\x24\0\0\0WAVEfmt \x10\0\0\0").decode()
AUDIO = {"type": "audio", "data": WAV, "mimeType": "audio/wav"}
LINK = {"type": "resource_link", "uri": "file:///b.txt", "name": "b"}
EMBEDDED = {"type": "resource", "resource": {"uri": URI, "text": "hi", "mimeType": "text/plain"}}


def test_what_the_sdks_send_as_prompts_is_clean() -> None:
    # Python MCPServer: a str, a list of messages, an image, embedded resources and a link;
    # the TypeScript SDK's are the same shapes without "description".
    messages = [
        {"content": TEXT, "role": "user"},
        {"content": {"text": "sure", "type": "text"}, "role": "assistant"},
        {"content": IMAGE, "role": "user"},
        {"content": EMBEDDED, "role": "user"},
        {
            "content": {
                "type": "resource",
                "resource": {"uri": "file:///a.png", "blob": PNG, "mimeType": "image/png"},
            },
            "role": "user",
        },
        {"content": LINK, "role": "user"},
    ]
    for version in (NEW, MODERN):
        result = {"description": "", "messages": messages, "resultType": "complete"}
        assert check_prompt_result(result, protocol_version=version) == []


@pytest.mark.parametrize(
    ("content", "version", "expected"),
    [
        (AUDIO, NEW, []),
        (AUDIO, OLD, [("mcp/content-block", "error")]),
        (LINK, "2025-03-26", [("mcp/content-block", "error")]),
        ({"type": "hologram"}, NEW, []),  # a newer revision's type: left alone
        ("hi", NEW, [("mcp/content-block", "error")]),
        ({"text": "no type"}, NEW, [("mcp/content-block", "error")]),
        ({"type": "text"}, NEW, [("mcp/content-block", "error")]),
        ({"type": "image", "data": PNG}, NEW, [("mcp/content-block", "error")]),
        ({**IMAGE, "data": "****"}, NEW, [("mcp/blob-base64", "error")]),
        ({**IMAGE, "data": JPEG}, NEW, [("mcp/mime-mismatch", "error")]),
        ({**IMAGE, "mimeType": "text/plain"}, NEW, [("mcp/mime-type", "warning")]),
        ({**AUDIO, "mimeType": "image/png"}, NEW, [("mcp/mime-type", "warning")]),
        ({**LINK, "uri": "b.txt"}, NEW, [("mcp/resource-uri", "error")]),
        ({"type": "resource_link", "uri": "file:///b"}, NEW, [("mcp/required-member", "error")]),
        (
            {"type": "resource", "resource": {"uri": URI, "text": "hi"}},
            NEW,
            [("mcp/embedded-mime", "warning")],
        ),
        ({**TEXT, "annotations": {"audience": ["user"], "priority": 0.5}}, OLD, []),
        ({**TEXT, "annotations": {"priority": 2}}, NEW, [("mcp/annotations", "error")]),
        ({**TEXT, "annotations": {"priority": True}}, NEW, [("mcp/annotations", "error")]),
        ({**TEXT, "annotations": {"audience": ["system"]}}, NEW, [("mcp/annotations", "error")]),
        ({**TEXT, "annotations": []}, NEW, [("mcp/member-type", "error")]),
        ({**TEXT, "annotations": {"lastModified": "2025-01-12T15:00:58Z"}}, NEW, []),
        (
            {**TEXT, "annotations": {"lastModified": "yesterday"}},
            NEW,
            [("mcp/last-modified", "warning")],
        ),
        ({**TEXT, "annotations": {"lastModified": 5}}, NEW, [("mcp/annotations", "error")]),
        ({**TEXT, "annotations": {"lastModified": 5}}, "2025-03-26", []),  # not yet defined
        ({**TEXT, "_meta": 1}, NEW, [("mcp/member-type", "error")]),
    ],
)
def test_prompt_content_blocks(content: Any, version: str, expected: list[tuple[str, str]]) -> None:
    assert prompt(content, version=version) == expected


@pytest.mark.parametrize(
    ("result", "expected"),
    [
        ({"messages": {}}, [("mcp/prompt-result", "error")]),
        ({"messages": []}, [("mcp/empty-result", "warning")]),
        (
            {"messages": [{"role": "user", "content": TEXT}], "description": 3},
            [("mcp/member-type", "error")],
        ),
        ({"messages": [{"role": "system", "content": TEXT}]}, [("mcp/prompt-role", "error")]),
        ({"messages": [{"content": TEXT}]}, [("mcp/prompt-role", "error")]),
        ({"messages": [{"role": "user"}]}, [("mcp/required-member", "error")]),
        ({"messages": ["hi"]}, [("mcp/prompt-message", "error")]),
    ],
)
def test_prompt_result_envelope(result: dict[str, Any], expected: list[tuple[str, str]]) -> None:
    assert rules(check_prompt_result(result, protocol_version=NEW)) == expected


def test_a_system_role_is_named_and_found_under_get() -> None:
    result = {"messages": [{"role": "system", "content": TEXT}]}
    [found] = check_prompt_result(result, protocol_version=NEW)
    assert found.check == "get"
    assert found.where == "messages[0].role"
    assert "the spec has no system role" in found.message


# -- embedded resources ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("block", "expected"),
    [
        (EMBEDDED, []),
        (LINK, []),
        (TEXT, []),  # not a resource block: nothing to judge
        (
            {"type": "resource", "resource": {"uri": URI, "blob": "a-b=", "mimeType": "image/png"}},
            [("mcp/blob-base64", "error", "content[2].resource.blob")],
        ),
        (
            {
                "type": "resource",
                "resource": {"uri": URI, "text": "{", "mimeType": "application/json"},
            },
            [("mcp/mime-mismatch", "error", "content[2].resource.text")],
        ),
        ({"type": "resource"}, [("mcp/required-member", "error", "content[2].resource")]),
        ({**LINK, "uri": "b.txt"}, [("mcp/resource-uri", "error", "content[2].uri")]),
        ({**LINK, "name": 3}, [("mcp/member-type", "error", "content[2].name")]),
        ({**LINK, "size": "3"}, [("mcp/member-type", "error", "content[2].size")]),
    ],
)
def test_embedded_resources_and_links(
    block: dict[str, Any], expected: list[tuple[str, str, str]]
) -> None:
    found = check_embedded_resource(block, "content[2]")
    assert [(f.rule, f.level, f.where) for f in found] == expected
    assert all(f.check == "contract" and f.kind is FailureKind.MALFORMED_RESULT for f in found)
