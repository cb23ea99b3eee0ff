"""Tool-name rules without the SDK: the same verdicts and words as its validator."""

from __future__ import annotations

import pytest
from mcp.shared.tool_name_validation import validate_tool_name

from pytest_mcp_contracts.checks.listing import tool_name_warnings

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
