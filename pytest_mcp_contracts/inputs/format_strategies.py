"""Strategies for the string formats hypothesis-jsonschema would fill with arbitrary strings
(``uuid``, ``duration``), and for long required strings, which it cannot build within its
health checks (``LONG_TEXT``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy

from pytest_mcp_contracts.inputs.rewrite import draft07_children

__all__ = ["LONG_TEXT", "custom_format_strategies"]

#: Longer required strings make hypothesis fail its ``large_base_example`` health check,
#: so they are built from a short repeated chunk instead (see ``_long_text``).
LONG_TEXT = 1_000


def _uuids() -> SearchStrategy[str]:
    return st.uuids().map(str)


def _iso_durations() -> SearchStrategy[str]:
    def render(parts: tuple[int | None, ...]) -> str:
        date = "".join(
            f"{n}{unit}" for n, unit in zip(parts[:3], "YMD", strict=True) if n is not None
        )
        time = "".join(
            f"{n}{unit}" for n, unit in zip(parts[3:], "HMS", strict=True) if n is not None
        )
        if not date and not time:
            return "P0D"
        return f"P{date}T{time}" if time else f"P{date}"

    part = st.none() | st.integers(0, 999)
    return st.tuples(*[part] * 6).map(render) | st.integers(0, 99).map("P{}W".format)


def _long_text(min_size: int, max_size: int | None) -> SearchStrategy[str]:
    upper = min_size + 100 if max_size is None else min(max_size, min_size + 100)

    def repeat(chunk: str, size: int) -> str:
        return (chunk * (size // len(chunk) + 1))[:size]

    return st.builds(repeat, st.text(min_size=1, max_size=16), st.integers(min_size, upper))


def _draft07_subschemas(schema: Mapping[str, Any]) -> Iterator[dict[str, Any]]:
    return (sub for _, sub in draft07_children(schema))


def custom_format_strategies(prepared: dict[str, Any]) -> dict[str, SearchStrategy[str]]:
    """Strategies for formats hypothesis-jsonschema would fill with arbitrary strings, plus
    one pseudo-format per long string (rewritten in place in ``prepared``, our own copy)."""
    formats: dict[str, SearchStrategy[str]] = {"uuid": _uuids(), "duration": _iso_durations()}
    pending = [prepared]
    while pending:
        schema = pending.pop()
        min_length = schema.get("minLength", 0)
        if (
            isinstance(min_length, int)
            and min_length > LONG_TEXT
            and "pattern" not in schema
            and "format" not in schema
        ):
            max_length = schema.get("maxLength")
            name = f"x-pytest-mcp-contracts-long-text-{min_length}-{max_length}"
            formats[name] = _long_text(min_length, max_length)
            schema["format"] = name
        pending += _draft07_subschemas(schema)
    return formats
