"""text.py: how long values are cut in messages, and how a server's stderr is quoted (the
stderr helpers moved here from reporting/failure.py, so that the transports quote it without
importing the reporting layer)."""

from __future__ import annotations

from typing import Any

from pytest_mcp_contracts.text import (
    CALL_STDERR_LINES_SHOWN,
    STDERR_LINES_SHOWN,
    abridge,
    call_stderr_block,
    indent,
    json_text,
    last_lines,
    plain_traceback,
    shorten,
    shorten_middle,
    stderr_block,
)


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


def test_last_lines_says_how_many_lines_it_left_out() -> None:
    text = "\n".join(f"line {i}" for i in range(STDERR_LINES_SHOWN + 5)) + "\n"
    shown = last_lines(text).splitlines()
    assert shown[0] == "(5 lines before these not shown)"
    assert shown[1:] == [f"line {i}" for i in range(5, STDERR_LINES_SHOWN + 5)]
    assert last_lines("one\ntwo\n") == "one\ntwo"


def test_indent_indents_blank_lines_too() -> None:
    assert indent("a\n\nb") == "    a\n    \n    b"


def test_stderr_block_names_an_empty_stderr() -> None:
    assert stderr_block("") == "server stderr: (empty)"
    assert stderr_block("Traceback\nValueError: x\n") == (
        "server stderr (last lines):\n    Traceback\n    ValueError: x"
    )


def test_a_calls_stderr_is_told_apart_from_what_came_before() -> None:
    during = "\n".join(f"t{i}" for i in range(CALL_STDERR_LINES_SHOWN + 1))
    block = call_stderr_block(during, "started\n", source="log").splitlines()
    assert block[0] == "server log while this call ran:"
    assert block[1] == "    (1 lines before these not shown)"
    assert block[-2:] == ["server log before this call (context, not from it):", "    started"]
    assert call_stderr_block(" \n", "") == "server stderr while this call ran: (nothing)"


RICH = (
    "[11/25/26 03:04:58] ERROR    Tool 'roll' raised an unexpected exception      server.py:455\n"
    "                    ╭──────── Traceback (most recent call last) ────────╮\n"
    "                    │ /srv/tools.py:40 in roll                           │\n"
    "                    │                                                    │\n"
    '                    │ ❱ 40 │   raise RuntimeError("off the table")       │\n'
    "                    ╰────────────────────────────────────────────────────╯\n"
    "                    RuntimeError: off the table\n"
    "                    size\n"
    "                      Input should be a valid integer\n"
)


def test_a_rich_traceback_reads_as_pythons_own() -> None:
    assert plain_traceback(RICH).splitlines() == [
        "[11/25/26 03:04:58] ERROR    Tool 'roll' raised an unexpected exception",
        "Traceback (most recent call last):",
        '  File "/srv/tools.py", line 40, in roll',
        '    raise RuntimeError("off the table")',
        "RuntimeError: off the table",
        "size",
        "  Input should be a valid integer",
    ]


# fastmcp 3.x through rich in a narrow box: headings wrapped, code with indent guides.
NARROW = """\
                    ╭──── Traceback (most recent call last) ─────╮
                    │                 ... 7 frames hidden ...    │
                    │                                            │
                    │ /venv/lib/python3.11/site-packages/fastmcp │
                    │ /tools/function_tool.py:95 in wrapper      │
                    │                                            │
                    │ /srv/app/sdk_tools.py:67 in                │
                    │ refuse_raise                               │
                    │                                            │
                    │    66 │   │   if limit < 1:                │
                    │ ❱  67 │   │   │   raise ValueError("limit  │
                    │    68 │   │   return f"{limit} items"      │
                    ╰────────────────────────────────────────────╯
                    ValueError: limit must be at least 1
"""


def test_a_narrow_rich_box_reads_as_pythons_own() -> None:
    assert plain_traceback(NARROW).splitlines() == [
        "Traceback (most recent call last):",
        '  File "/venv/lib/python3.11/site-packages/fastmcp/tools/function_tool.py", line 95, '
        "in wrapper",
        '  File "/srv/app/sdk_tools.py", line 67, in refuse_raise',
        '    raise ValueError("limit',
        "ValueError: limit must be at least 1",
    ]


def test_text_without_a_rich_traceback_is_left_as_it_was() -> None:
    plain = 'Traceback (most recent call last):\n  File "x.py"\nValueError: no   \n'
    assert plain_traceback(plain) == plain
