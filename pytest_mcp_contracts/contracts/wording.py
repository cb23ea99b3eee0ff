"""A word diff of two descriptions, as ``git diff --word-diff`` prints one: the words a new
text removed in ``[-...-]``, the words it added in ``{+...+}``, the unchanged words around
them kept for context and the rest cut.

A description is an instruction to a model, so what changed in it must be readable in a CI
log: invisible characters (a zero-width space, a bidi override: the hiding places of
tool-poisoning text) are printed as escapes, and the diff stays bounded for a hostile text
of megabytes.
"""

from __future__ import annotations

import difflib
from typing import Final

from pytest_mcp_contracts.text import shown

MAX_WORDS: Final = 1000  # per side: SequenceMatcher is quadratic in the worst case
CONTEXT_WORDS: Final = 4  # unchanged words kept on each side of a change
MAX_CHARS: Final = 400  # the diff as printed


def word_diff(old: str, new: str, *, limit: int = MAX_CHARS) -> str:
    """``old`` to ``new`` as a word diff, at most about ``limit`` characters."""
    a, b = old.split(), new.split()
    cut = len(a) > MAX_WORDS or len(b) > MAX_WORDS
    a, b = [_word(w) for w in a[:MAX_WORDS]], [_word(w) for w in b[:MAX_WORDS]]
    opcodes = difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    parts: list[str] = []
    changes = 0
    for index, (tag, i1, i2, j1, j2) in enumerate(opcodes):
        if tag == "equal":
            parts += _context(a[i1:i2], first=index == 0, last=index == len(opcodes) - 1)
            continue
        changes += 1
        removed = f"[-{' '.join(a[i1:i2])}-]" if i2 > i1 else ""
        added = f"{{+{' '.join(b[j1:j2])}+}}" if j2 > j1 else ""
        parts.append(removed + added)
    text = " ".join(parts)
    if len(text) > limit:
        text = text[:limit].rstrip() + f"… (cut; {changes} changed run(s) in all)"
    if cut:
        text += f" (compared over the first {MAX_WORDS} words)"
    return text


def same_words(old: str, new: str) -> bool:
    """Whether two texts differ only in their whitespace."""
    return old.split() == new.split()


def _word(word: str) -> str:
    return shown(word, limit=len(word) * 10 + 10)  # escapes only: never cut a word here


def _context(words: list[str], *, first: bool, last: bool) -> list[str]:
    """The unchanged words between two changes (or before the first, after the last), cut
    to CONTEXT_WORDS next to each change."""
    if first and last:
        return []  # no change at all
    keep_head = 0 if first else CONTEXT_WORDS
    keep_tail = 0 if last else CONTEXT_WORDS
    if len(words) <= keep_head + keep_tail:
        return words
    return [*words[:keep_head], "…", *words[len(words) - keep_tail :]]
