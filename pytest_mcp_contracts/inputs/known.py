"""Well-known values: string properties whose name says what they hold, which no generator
finds by chance.

A time server refuses ``"Ý7"`` as a timezone, a currency converter ``"0"`` as a currency:
without a real value such a tool answers nothing but refusals (mcp-server-time: 100 calls, 0
real results), and its output contract is never exercised. So a top-level string property
named like one of these kinds (``timezone``, ``source_timezone``, ``tz``; ``time``; ``currency``;
``language``, ``locale``; ``country``; ``email``), and otherwise unconstrained (no ``enum``,
``const``, ``format`` or ``pattern``: those say better what the server wants), takes a
well-known value about half the time it is sent, and starts the coverage phase's base input
at one. Every input is still checked against the schema; a value it refuses is not sent.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

# Each kind: the words of a property name that say it, and values real servers accept (the
# first is the simplest: the coverage phase's base input starts there).
KINDS: Final[dict[str, tuple[frozenset[str], tuple[str, ...]]]] = {
    "timezone": (
        frozenset({"timezone", "tz", "zone", "timezones"}),
        (
            "UTC",
            "Europe/London",
            "America/New_York",
            "Asia/Tokyo",
            "Europe/Berlin",
            "Asia/Kolkata",
            "Australia/Sydney",
            "America/Sao_Paulo",
        ),
    ),
    # A time of day (mcp-server-time's convert_time takes "HH:MM"), then a date-time for the
    # tools that want one.
    "time": (frozenset({"time"}), ("12:00", "09:30", "23:59", "2026-01-15T12:00:00Z")),
    "currency": (frozenset({"currency"}), ("USD", "EUR", "GBP", "JPY", "CHF")),
    "language": (
        frozenset({"language", "lang", "locale"}),
        ("en", "en-US", "de", "fr", "ja", "pt-BR"),
    ),
    "country": (frozenset({"country"}), ("US", "DE", "GB", "JP", "BR", "IN")),
    "email": (frozenset({"email"}), ("user@example.com", "first.last@example.org")),
}
# How many of a kind's values the coverage phase visits as corners of their own.
CORNERS: Final = 3

_SPLIT = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")
_CONSTRAINED = ("enum", "const", "format", "pattern")


def _words(name: str) -> set[str]:
    return {w.lower() for w in _SPLIT.findall(name)} | {name.lower()}


def _kind(name: str, sub: Mapping[str, Any]) -> str | None:
    if sub.get("type", "string") != "string" or any(key in sub for key in _CONSTRAINED):
        return None
    words = _words(name) | {name.lower().replace("_", "")}  # time_zone, timeZone
    return next((kind for kind, (names, _) in KINDS.items() if words & names), None)


def known_slots(prepared: Mapping[str, Any]) -> dict[str, tuple[str, ...]]:
    """The top-level properties of a (draft-07, ``$ref``-free) input schema that take a
    well-known kind of string, with their values."""
    properties = prepared.get("properties")
    if not isinstance(properties, Mapping):
        return {}
    found = {}
    for name, sub in properties.items():
        kind = _kind(str(name), sub) if isinstance(sub, Mapping) else None
        if kind is not None:
            found[str(name)] = KINDS[kind][1]
    return found


def known_corners(slots: Mapping[str, tuple[str, ...]]) -> dict[str, list[tuple[str, Any]]]:
    """The coverage phase's (label, value) corners of each slot: its first few values."""
    return {name: [(repr(v), v) for v in values[:CORNERS]] for name, values in slots.items()}


def with_values(
    generated: SearchStrategy[dict[str, Any]],
    strategies: Mapping[str, SearchStrategy[Any]],
    is_valid: Callable[[Any], bool],
) -> SearchStrategy[dict[str, Any]]:
    """Inputs from ``generated`` whose properties named in ``strategies`` take a value from
    there about half the time they are present (whether an optional one is present stays
    generated). An input the schema refuses with it keeps the generated value. The drawn
    branch comes first, so inputs shrink to a value from ``strategies``."""
    from hypothesis import strategies as st

    if not strategies:
        return generated
    keep = object()
    choices = st.fixed_dictionaries(
        {name: st.one_of(strategy, st.just(keep)) for name, strategy in strategies.items()}
    )

    def merge(pair: tuple[dict[str, Any], dict[str, Any]]) -> dict[str, Any]:
        value, chosen = pair
        picked = {k: v for k, v in chosen.items() if v is not keep and k in value}
        if not picked:
            return value
        merged = {**value, **picked}
        return merged if is_valid(merged) else value

    return st.tuples(generated, choices).map(merge)


def with_known_values(
    generated: SearchStrategy[dict[str, Any]],
    slots: Mapping[str, tuple[str, ...]],
    is_valid: Callable[[Any], bool],
) -> SearchStrategy[dict[str, Any]]:
    """``generated`` with each well-known slot drawing from its values (``with_values``)."""
    from hypothesis import strategies as st

    return with_values(
        generated, {name: st.sampled_from(values) for name, values in slots.items()}, is_valid
    )
