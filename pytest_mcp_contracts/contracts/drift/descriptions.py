"""A changed description as drift shows it: its class (``description``, or ``cosmetic``
when only its whitespace changed) and a word diff (``contracts/wording``); any other changed
text as its two values, when they are short."""

from __future__ import annotations

from typing import Any, Literal

from pytest_mcp_contracts.contracts.drift.json_values import MISSING, same
from pytest_mcp_contracts.contracts.wording import same_words, word_diff


def description_change(old: Any, new: Any) -> tuple[Literal["description", "cosmetic"], str] | None:
    """A changed description (``MISSING`` where there is none) as its class and its text:
    a word diff, or None when nothing changed."""
    if same(old, new):
        return None
    was = "" if old is MISSING else old
    now = "" if new is MISSING else new
    if not (isinstance(was, str) and isinstance(now, str)):
        return "description", text_change(old, new)
    if same_words(was, now):
        return "cosmetic", "whitespace changed"
    return "description", word_diff(was, now)


def text_change(old: Any, new: Any) -> str:
    if isinstance(old, str) and isinstance(new, str) and len(old) < 60 and len(new) < 60:
        return f"{old!r} -> {new!r}"
    return "changed"
