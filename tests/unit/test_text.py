"""text.py: how long values are cut in messages."""

from __future__ import annotations

from typing import Any

from pytest_mcp_contracts.text import abridge, json_text, shorten, shorten_middle


def test_shorten_keeps_short_text_and_marks_a_cut() -> None:
    assert shorten("abc", 3) == "abc"
    assert shorten("abcdef", 4) == "abc…"
    assert len(shorten("x" * 1000)) == 240


def test_shorten_middle_keeps_both_ends() -> None:
    pointer = "/properties/" + "a" * 200 + "/items/leaf"
    cut = shorten_middle(pointer, 60)
    assert cut.startswith("/properties/") and cut.endswith("leaf") and "..." in cut
    assert len(cut) <= 60
    assert shorten_middle("short", 60) == "short"


def test_json_text_is_compact_json_or_says_why_not() -> None:
    assert json_text({"a": [1, 2]}) == '{"a": [1, 2]}'
    assert json_text({"when": object}).startswith('{"when": "<class')  # repr for the rest
    deep: Any = []
    for _ in range(10_000):
        deep = [deep]
    assert json_text(deep) == "<a list nested too deeply to show>"


def test_abridge_quotes_long_strings_with_their_length_at_any_depth() -> None:
    value = {"text": "a" * 300, "items": ["b" * 5, {"c": "c" * 201}], "n": 3}
    assert abridge(value) == {
        "text": "a" * 199 + "… (300 characters)",
        "items": ["bbbbb", {"c": "c" * 199 + "… (201 characters)"}],
        "n": 3,
    }
