"""judges/protocol_rules: each rule's verdict on the answers a server may give, by version."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_mcp_contracts.judges.failures import FailureKind
from pytest_mcp_contracts.judges.protocol_rules import (
    MALFORMED,
    RULES,
    Answer,
    judge_discover,
    judge_error_codes,
    judge_list_changed,
    judge_malformed_call,
    judge_pages,
    judge_per_connection,
    judge_resource_not_found,
    judge_unknown_method,
    judge_unsupported_version,
)
from pytest_mcp_contracts.transport.jsonrpc import modern_meta
from pytest_mcp_contracts.vocabulary import HANDSHAKE_VERSIONS, MODERN_VERSION, Level

VERSIONS = (*HANDSHAKE_VERSIONS, MODERN_VERSION)
SENT = {"name": "echo", "arguments": None}


def error(code: int, method: str = "tools/call") -> Answer:
    return Answer(method, SENT, code=code, error="nope")


def result(body: dict[str, Any], method: str = "tools/call") -> Answer:
    return Answer(method, SENT, result=body)


NO_ANSWER = Answer("tools/call", SENT, failure="no answer within 5 s")
TEXT = {"content": [{"type": "text", "text": "ran"}]}
IS_ERROR = {**TEXT, "isError": True}


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("case", list(MALFORMED))
def test_a_malformed_call_answered_with_invalid_params_holds(case: str, version: str) -> None:
    assert judge_malformed_call(case, version, error(-32602)) is None


@pytest.mark.parametrize("case", list(MALFORMED))
@pytest.mark.parametrize("answer", [error(-32603), NO_ANSWER], ids=["internal", "no-answer"])
def test_an_internal_error_or_no_answer_fails_every_case(case: str, answer: Answer) -> None:
    found = judge_malformed_call(case, "2025-06-18", answer)
    assert found is not None and found.level is Level.ERROR
    assert found.rule == f"protocol/{case}" and found.kind is FailureKind.PROTOCOL_VIOLATION
    assert found.where is not None and found.where.startswith("2025-06-18 server/tools")
    assert ("the Server MUST reply" in found.where) is (answer is NO_ANSWER)
    assert found.details[0].startswith("sent: tools/call") and found.details[1].startswith(
        "received: "
    )


@pytest.mark.parametrize(
    ("case", "level"),
    [
        ("missing-name", Level.ERROR),
        ("unknown-tool", Level.ERROR),
        ("arguments-null", Level.WARNING),
        ("arguments-array", Level.WARNING),
    ],
)
def test_a_plain_result_fails_where_something_ran_that_cannot(case: str, level: Level) -> None:
    found = judge_malformed_call(case, MODERN_VERSION, result(TEXT))
    assert found is not None and found.level is level


@pytest.mark.parametrize("case", list(MALFORMED))
def test_an_is_error_result_or_another_code_warns(case: str) -> None:
    for answer in (result(IS_ERROR), error(-32601), error(-32600)):
        found = judge_malformed_call(case, "2025-11-25", answer)
        assert found is not None and found.level is Level.WARNING


def test_an_unknown_method_wants_method_not_found() -> None:
    assert judge_unknown_method("2024-11-05", error(-32601, "x/y")) is None
    warned = judge_unknown_method("2024-11-05", error(-32602, "x/y"))
    assert warned is not None and warned.level is Level.WARNING
    for answer in (error(-32603, "x/y"), result({}, "x/y"), NO_ANSWER):
        failed = judge_unknown_method("2024-11-05", answer)
        assert failed is not None and failed.level is Level.ERROR
        assert failed.rule == "protocol/unknown-method"


def page(*names: str) -> list[dict[str, Any]]:
    return [{"name": name} for name in names]


def test_pages_that_end_and_list_each_entry_once_hold() -> None:
    assert judge_pages("2025-06-18", "tools/list", "name", [page("a"), page("b")], None) == []


def test_a_loop_fails_the_pagination_rule() -> None:
    (found,) = judge_pages("2025-06-18", "tools/list", "name", [page("a")], "cursor came back")
    assert found.rule == "protocol/pagination" and found.level is Level.ERROR


def test_an_entry_on_two_pages_fails_on_2026_and_warns_before() -> None:
    pages = [page("a", "b"), page("b", "c")]
    (modern,) = judge_pages(MODERN_VERSION, "prompts/list", "name", pages, None)
    assert modern.rule == "protocol/repeated-entry" and modern.level is Level.ERROR
    assert "'b' on pages 1 and 2" in modern.message
    (legacy,) = judge_pages("2025-06-18", "prompts/list", "name", pages, None)
    assert legacy.level is Level.WARNING


def test_a_name_twice_on_one_page_is_the_schema_items_not_this_rules() -> None:
    assert judge_pages(MODERN_VERSION, "tools/list", "name", [page("a", "a")], None) == []


def test_a_change_warns_only_where_list_changed_was_declared_and_not_sent() -> None:
    before, after = page("a"), page("a", "b")

    def judge(**flags: bool) -> Any:
        return judge_list_changed("2025-06-18", "tools/list", "tools", before, after, **flags)

    found = judge(declared=True, announced=False)
    assert found is not None and found.level is Level.WARNING
    assert "notifications/tools/list_changed" in found.message
    assert judge(declared=True, announced=True) is None
    assert judge(declared=False, announced=False) is None  # it promised nothing
    assert (
        judge_list_changed(
            "2025-06-18",
            "tools/list",
            "tools",
            before,
            list(reversed(before)),
            declared=True,
            announced=False,
        )
        is None
    )


def test_per_connection_tells_a_listing_of_its_own_from_a_change_over_time() -> None:
    a, b = page("a"), page("a", "b")
    per_connection = judge_per_connection("tools/list", a, b, a, b)
    assert per_connection is not None and per_connection.level is Level.ERROR
    side_effect = judge_per_connection("tools/list", a, a, b, a)
    assert side_effect is not None and "changed on the connection" in side_effect.message
    assert judge_per_connection("tools/list", a, a, b, b) is None  # both saw it change
    assert judge_per_connection("tools/list", a, a, a, a) is None


def test_an_unsupported_version_wants_32022() -> None:
    sent = {"_meta": modern_meta("1900-01-01")}
    assert judge_unsupported_version(Answer("tools/list", sent, code=-32022)) is None
    for answer in (
        Answer("tools/list", sent, result={"tools": []}),
        Answer("tools/list", sent, code=-32602),
        Answer("tools/list", sent, failure="died"),
    ):
        found = judge_unsupported_version(answer)
        assert found is not None and found.level is Level.ERROR and "'1900-01-01'" in found.message


def test_resource_not_found_codes_by_version() -> None:
    assert judge_resource_not_found(MODERN_VERSION, error(-32602, "resources/read")) is None
    assert judge_resource_not_found("2025-11-25", error(-32002, "resources/read")) is None
    modern = judge_resource_not_found(MODERN_VERSION, error(-32002, "resources/read"))
    assert modern is not None and modern.level is Level.ERROR  # MUST -32602 on 2026
    legacy = judge_resource_not_found("2025-06-18", error(-32603, "resources/read"))
    assert legacy is not None and legacy.level is Level.WARNING  # SHOULD -32002 before
    empty = judge_resource_not_found(MODERN_VERSION, result({"contents": []}, "resources/read"))
    assert empty is not None and empty.level is Level.ERROR
    served = result({"contents": [{"uri": "x", "text": ""}]}, "resources/read")
    assert judge_resource_not_found(MODERN_VERSION, served) is None  # it has it after all


def test_discover_names_the_modern_version() -> None:
    sent = {"_meta": modern_meta(MODERN_VERSION)}
    ok = Answer("server/discover", sent, result={"supportedVersions": [MODERN_VERSION]})
    assert judge_discover(ok) is None
    for answer in (
        Answer("server/discover", sent, result={"supportedVersions": ["2025-11-25"]}),
        Answer("server/discover", sent, code=-32601),
    ):
        found = judge_discover(answer)
        assert found is not None and found.level is Level.ERROR


def test_error_codes_of_the_reserved_range_on_2026_only() -> None:
    answers = [error(-32050), error(-32002), error(-32022), error(-32602), error(-32001)]
    found = judge_error_codes(MODERN_VERSION, answers)
    assert [f.message.split(", a code")[0][-6:] for f in found] == ["-32050", "-32002"]
    assert judge_error_codes("2025-11-25", answers) == []


def test_every_rule_names_a_section_for_every_version() -> None:
    for rule in RULES.values():
        for version in VERSIONS:
            where = rule.where(version)
            assert "{" not in where and ("§" in where or "server/discover" in where)


def test_the_reference_page_lists_every_rule() -> None:
    from pathlib import Path

    page = Path(__file__).parents[3] / "docs" / "reference" / "protocol-rules.md"
    text = page.read_text(encoding="utf-8")
    assert [rule.id for rule in RULES.values() if f"`{rule.id}`" not in text] == []


def test_a_header_that_disagrees_with_the_body_wants_400_and_32020() -> None:
    from pytest_mcp_contracts.judges.protocol_rules import judge_headers

    sent = {"name": "x"}
    assert judge_headers("wrong-name", Answer("tools/call", sent, code=-32020)) is None
    warned = judge_headers(
        "no-method", Answer("tools/list", {}, failure="HTTP 400 Bad Request", status=400)
    )
    assert warned is not None and warned.level is Level.WARNING  # an intermediary may
    for answer in (
        Answer("tools/list", {}, result={"tools": []}),
        Answer("tools/list", {}, code=-32600),
        Answer("tools/list", {}, failure="HTTP 500", status=500),
        Answer("tools/list", {}, failure="no answer within 5 s"),
    ):
        found = judge_headers("wrong-method", answer)
        assert found is not None and found.level is Level.ERROR
        assert found.rule == "protocol/headers" and "§Server Validation" in str(found.where)
