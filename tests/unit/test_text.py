"""text.py: how a server's stderr is quoted in messages (moved here from reporting/failure.py so
that the transports quote it without importing the reporting layer)."""

from __future__ import annotations

from pytest_mcp_contracts.text import (
    CALL_STDERR_LINES_SHOWN,
    STDERR_LINES_SHOWN,
    call_stderr_block,
    indent,
    last_lines,
    stderr_block,
)


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
