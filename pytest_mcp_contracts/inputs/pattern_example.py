"""The simplest string that matches a ``pattern``: read off the parsed regex when it uses only
plain constructs, else the simplest one hypothesis finds (imported only then).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from pytest_mcp_contracts.inputs.examples import simplest_example

__all__ = ["pattern_example"]


@lru_cache(maxsize=256)
def pattern_example(pattern: str) -> str | None:
    """The simplest string that matches a regex: read off the parsed pattern when it uses
    only plain constructs (each repeat at its minimum, the first branch and the first
    character of each class), else the simplest one hypothesis finds (derandomized and
    shrunk, so deterministic too, but a search, far slower than the reading). None when
    Python cannot read the pattern or nothing is found quickly."""
    import re

    try:
        compiled = re.compile(pattern)
    except (re.error, RecursionError, ValueError, TypeError):
        return None
    try:
        import re._parser as sre_parse  # type: ignore[import-not-found]

        text = _simplest_match(sre_parse.parse(pattern))
        if compiled.search(text) is not None:
            return text
    except (_Unsupported, re.error, RecursionError, ValueError, TypeError, ImportError):
        pass
    return _found_by_hypothesis(compiled)


class _Unsupported(Exception):
    """A regex construct the direct reading does not handle (lookarounds, backreferences,
    negated classes...)."""


def _simplest_match(parsed: Any) -> str:
    from re import _constants as c

    out = []
    for op, arg in parsed:
        if op is c.LITERAL:
            out.append(chr(arg))
        elif op is c.ANY:
            out.append("a")
        elif op is c.IN:
            out.append(_first_in_class(arg, c))
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT, getattr(c, "POSSESSIVE_REPEAT", None)):
            low, _high, sub = arg
            out.append(_simplest_match(sub) * low)
        elif op is c.SUBPATTERN:
            out.append(_simplest_match(arg[-1]))
        elif op is c.BRANCH:
            out.append(_simplest_match(arg[1][0]))
        elif op is c.AT:
            continue  # anchors match positions, not characters
        else:
            raise _Unsupported
    return "".join(out)


def _first_in_class(items: Any, c: Any) -> str:
    categories = {
        c.CATEGORY_DIGIT: "0",
        c.CATEGORY_WORD: "a",
        c.CATEGORY_SPACE: " ",
        c.CATEGORY_NOT_DIGIT: "a",
        c.CATEGORY_NOT_WORD: " ",
        c.CATEGORY_NOT_SPACE: "a",
    }
    op, arg = items[0]
    if op is c.LITERAL:
        return chr(arg)
    if op is c.RANGE:
        return chr(arg[0])
    if op is c.CATEGORY and arg in categories:
        return categories[arg]
    raise _Unsupported


def _found_by_hypothesis(compiled: Any) -> str | None:
    from hypothesis import strategies as st
    from hypothesis.errors import HypothesisException

    from pytest_mcp_contracts.inputs.hypothesis_compat import seed_unicode_table

    seed_unicode_table()  # from_regex needs hypothesis's Unicode table
    try:
        value = simplest_example(st.from_regex(compiled), tries=20)
    except (HypothesisException, RecursionError, ValueError, TypeError):
        return None
    return value if isinstance(value, str) else None
