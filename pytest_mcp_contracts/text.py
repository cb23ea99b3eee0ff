"""Short text for messages: the one place that decides how long values are cut."""

from __future__ import annotations

import json
from typing import Any


def shorten(text: str, limit: int = 240) -> str:
    """``text`` cut to at most ``limit`` characters, an ellipsis marking the cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def shorten_middle(text: str, limit: int = 120) -> str:
    """``text`` with its middle cut out past ``limit`` characters: both ends of a long
    JSON pointer say where it is."""
    if len(text) <= limit:
        return text
    keep = limit - 10
    head = keep * 7 // 11
    return f"{text[:head]}...{text[-(keep - head) :]}"


def json_text(value: Any, limit: int = 240) -> str:
    """``value`` as compact JSON (repr for what JSON cannot hold), shortened."""
    try:
        return shorten(json.dumps(value, default=repr), limit)
    except (RecursionError, ValueError):
        return f"<a {type(value).__name__} nested too deeply to show>"


def abridge(value: Any, limit: int = 200) -> Any:
    """``value`` (JSON data) with every string longer than ``limit`` cut by ``shorten`` and its
    length said: an input with a 64 KiB string is quoted, not pasted into a report."""
    try:
        return _abridge(value, limit)
    except RecursionError:
        return value


def _abridge(value: Any, limit: int) -> Any:
    if isinstance(value, str) and len(value) > limit:
        return f"{shorten(value, limit)} ({len(value)} characters)"
    if isinstance(value, list):
        return [_abridge(item, limit) for item in value]
    if isinstance(value, dict):
        return {key: _abridge(item, limit) for key, item in value.items()}
    return value
