"""A bounded JSON decoder: one message from its bytes, however deeply it nests.

Python's json module recurses once per nesting level and gives up near the recursion limit
(~1000); a hostile server's deeper message must not crash the reader thread, so it goes
through an iterative parser, up to MAX_JSON_DEPTH levels.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, Final

MAX_JSON_DEPTH: Final = 100_000


class UnreadableMessage(ValueError):
    """A message that is JSON but cannot be read: too large, or nested too deeply."""


def decode(line: bytes) -> Any:
    """One JSON message; UnreadableMessage when it nests deeper than MAX_JSON_DEPTH."""
    try:
        return json.loads(line)
    except RecursionError:
        return _loads_iteratively(line.decode("utf-8"))


_WHITESPACE = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_LITERALS: Final[dict[str, Any]] = {"true": True, "false": False, "null": None}
# The json module's own string scanner (C-accelerated); typeshed does not declare it.
_scanstring: Callable[[str, int], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]


def _loads_iteratively(text: str) -> Any:
    """``json.loads`` with an explicit stack instead of recursion, for deep messages.

    Only reached when Python's parser hits its recursion limit, so speed matters less than
    never crashing the reader thread.
    """
    containers: list[Any] = []  # the open arrays and objects, outermost first
    keys: list[str] = []  # for each open container, the key its next value goes to

    def skip(at: int) -> int:
        match = _WHITESPACE.match(text, at)
        assert match is not None  # the pattern matches the empty string
        return match.end()

    def key(at: int) -> int:
        if not text.startswith('"', at):
            raise ValueError(f"expected a property name at character {at}")
        name, at = _scanstring(text, at + 1)
        at = skip(at)
        if not text.startswith(":", at):
            raise ValueError(f"expected ':' at character {at}")
        keys[-1] = name
        return skip(at + 1)

    pos = skip(0)
    while True:
        value: Any
        char = text[pos : pos + 1]
        if char in ("{", "["):
            if len(containers) >= MAX_JSON_DEPTH:
                raise UnreadableMessage(f"a message nested deeper than {MAX_JSON_DEPTH} levels")
            closer = "}" if char == "{" else "]"
            pos = skip(pos + 1)
            if text.startswith(closer, pos):
                value, pos = ({} if char == "{" else []), pos + 1
            else:
                containers.append({} if char == "{" else [])
                keys.append("")
                if char == "{":
                    pos = key(pos)
                continue
        elif char == '"':
            value, pos = _scanstring(text, pos + 1)
        elif (number := _NUMBER.match(text, pos)) is not None:
            literal = number.group()
            value = float(literal) if number.group(1) or number.group(2) else int(literal)
            pos = number.end()
        else:
            word = next((w for w in _LITERALS if text.startswith(w, pos)), None)
            if word is None:
                raise ValueError(f"unexpected character at {pos}")
            value, pos = _LITERALS[word], pos + len(word)
        # Attach the value to its container; close every container that ends here.
        while True:
            if not containers:
                if skip(pos) != len(text):
                    raise ValueError(f"extra data at character {skip(pos)}")
                return value
            parent = containers[-1]
            if isinstance(parent, list):
                parent.append(value)
            else:
                parent[keys[-1]] = value
            pos = skip(pos)
            char = text[pos : pos + 1]
            if char == ",":
                pos = skip(pos + 1)
                if isinstance(parent, dict):
                    pos = key(pos)
                break
            if char != ("]" if isinstance(parent, list) else "}"):
                raise ValueError(f"expected ',' or a closing bracket at character {pos}")
            value, pos = containers.pop(), pos + 1
            keys.pop()
