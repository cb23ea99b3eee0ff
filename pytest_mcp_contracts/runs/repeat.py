"""Flaky tools: the same input sent again, its answers compared.

A tool annotated ``readOnlyHint`` or ``idempotentHint`` promises that a call repeated has no
further effect, so the contract check sends each of its coverage inputs twice
(``runs/contract``; every explicit input of every tool K times under --mcp-repeat=K) and
asks here whether a later answer differs from the first. Fields that differ by
their nature are not compared: a string the contract learns a ``uuid``, ``date`` or
``date-time`` format for (``contracts/infer.string_format``), and a value under a key named
like an id (``runs/sequences/feeding.base_of``: ``id``, ``request_id``, ``noteId``). What
is left and differs is named by its JSON path (``schema/paths``) in the check's warning.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

from pytest_mcp_contracts.contracts.infer import MAX_DEPTH, string_format
from pytest_mcp_contracts.runs.sequences.feeding import base_of
from pytest_mcp_contracts.schema.paths import child_path
from pytest_mcp_contracts.transport.discover import Entry

#: Formats whose values differ from call to call by their nature.
VARYING_FORMATS: Final = frozenset({"uuid", "date", "date-time"})
#: Paths named in a warning; more are counted.
PATHS_SHOWN: Final = 5


def repeatable(tool: Entry) -> bool:
    """Whether the tool says a call sent twice answers alike (its hints, untrusted: that is
    what is checked)."""
    hints = tool.annotations
    return hints.get("readOnlyHint") is True or hints.get("idempotentHint") is True


def differing_paths(first: Mapping[str, Any], second: Mapping[str, Any]) -> list[str]:
    """The JSON paths at which two results of one input differ, past fields that vary by
    their nature; the result's ``_meta`` is not compared. A text block that holds JSON is
    compared as JSON (``$.content[0].text.value``)."""
    paths: list[str] = []
    _compare(_comparable(first), _comparable(second), "$", None, paths, 0)
    return paths


def _comparable(result: Mapping[str, Any]) -> dict[str, Any]:
    kept = {key: value for key, value in result.items() if key != "_meta"}
    content = kept.get("content")
    if isinstance(content, list):
        kept["content"] = [_parsed_text(block) for block in content]
    return kept


def _parsed_text(block: Any) -> Any:
    if isinstance(block, dict) and isinstance(block.get("text"), str):
        try:
            return {**block, "text": json.loads(block["text"])}
        except ValueError:
            return block
    return block


def _varies(key: str | None, a: Any, b: Any) -> bool:
    """Whether two values that differ may: an id's, or two strings of a varying format."""
    if key is not None and base_of(key) == "id":
        return True
    if isinstance(a, str) and isinstance(b, str):
        return string_format(a) in VARYING_FORMATS and string_format(b) == string_format(a)
    return False


def _compare(a: Any, b: Any, path: str, key: str | None, out: list[str], depth: int) -> None:
    if a == b or _varies(key, a, b):
        return
    if depth >= MAX_DEPTH:
        out.append(path)
        return
    if isinstance(a, dict) and isinstance(b, dict):
        for name in sorted(set(a) | set(b), key=str):
            if name not in a or name not in b:
                out.append(child_path(path, str(name)))
            else:
                _compare(a[name], b[name], child_path(path, str(name)), str(name), out, depth + 1)
        return
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for index, (x, y) in enumerate(zip(a, b, strict=True)):
            _compare(x, y, f"{path}[{index}]", key, out, depth + 1)
        return
    if isinstance(a, str) and isinstance(b, str) and _words_vary(a, b):
        return
    out.append(path)


def _words_vary(a: str, b: str) -> bool:
    """Two texts that differ only in words of a varying format ("created 2026-01-02T...")."""
    words_a, words_b = a.split(), b.split()
    return len(words_a) == len(words_b) and all(
        x == y or _varies(None, x.strip(".,;:()[]\"'"), y.strip(".,;:()[]\"'"))
        for x, y in zip(words_a, words_b, strict=True)
    )


def unstable_words(unstable: list[tuple[dict[str, Any], list[str]]], repeated: int) -> str:
    """The contract check's warning about a tool that answered one input two ways."""
    from pytest_mcp_contracts.text import short_json

    arguments, paths = unstable[0]
    shown = ", ".join(paths[:PATHS_SHOWN]) + (
        f" and {len(paths) - PATHS_SHOWN} more" if len(paths) > PATHS_SHOWN else ""
    )
    return (
        f"answered the same input differently: {len(unstable)} of {repeated} inputs sent "
        "again (each coverage input of a tool annotated readOnlyHint or idempotentHint, "
        "every explicit input under --mcp-repeat); the first, "
        f"{short_json(arguments)}, differs at {shown}. Ids, uuids, dates and times are not "
        "compared. A client that retries or caches such a call gets another answer: make the "
        "answer depend on the input alone, or drop the hint"
    )
