"""Field paths: every path a schema has (``field_paths``), and drilling down to the one a
person typed (``find_field``), with the fields there and the closest paths when the schema
does not have it (``FieldPathError``). Paths use infer's notation (``$``, ``.name``,
``["odd key"]``, ``[]``) plus ``{*}``: the value of any key an object does not declare.
"""

from __future__ import annotations

import difflib
import json
import re
from collections import deque
from collections.abc import Iterator, Mapping
from typing import Any, Final, Literal

from pytest_mcp_contracts.schema.budgets import DOCUMENT_DEPTH
from pytest_mcp_contracts.schema.field_view import unique
from pytest_mcp_contracts.schema.field_walker import EXTRA, FieldPath, Walker
from pytest_mcp_contracts.schema.paths import child_path

_CHILDREN_LISTED: Final = 20


_STEP: Final = re.compile(
    r'\.?(?:(\[(?:\d+|\*)?\])|(\{\*\})|\[("(?:[^"\\]|\\.)*")\]|([^.\[\]{}]+))'
)


class FieldPathError(ValueError):
    """A field path the schema does not have (or cannot be parsed)."""

    def __init__(
        self, path: str, stopped_at: str, children: list[str], matches: list[str], why: str = ""
    ) -> None:
        self.path = path
        self.stopped_at = stopped_at
        self.children = children
        self.matches = matches
        if why:
            where = why
        elif children:
            listed = ", ".join(children[:_CHILDREN_LISTED])
            more = len(children) - _CHILDREN_LISTED
            where = f"fields there: {listed}" + (f", … {more} more" if more > 0 else "")
        else:
            where = "it has no fields"
        message = f"no field path {path!r}: stopped at {stopped_at!r}; {where}"
        if matches:
            message += "; did you mean " + " or ".join(map(repr, matches)) + "?"
        super().__init__(message)


def field_paths(schema: Mapping[str, Any]) -> list[str]:
    """Every field path the schema has, breadth-first (``$.a``, ``$.a[]``, ``$.m{*}``…),
    bounded like a summary."""
    walker = Walker(schema)
    paths: list[str] = []
    queue = deque([walker.root])
    while queue:
        for child in walker.children(queue.popleft()):
            paths.append(child.path)
            queue.append(child)
    return paths


def short_path(path: str) -> str:
    """The path as a person types it: ``items[].sku`` for ``$.items[].sku``."""
    return path if path == "$" else path.removeprefix("$").removeprefix(".")


def _steps(path: str) -> Iterator[tuple[Literal["key", "items", "extra"], str]]:
    text = path.strip().removeprefix("$").removeprefix(".")
    pos = 0
    while pos < len(text):
        match = _STEP.match(text, pos)
        try:
            if match is None:
                raise ValueError(text[pos:])
            items, extra, quoted, name = match.groups()
            key = json.loads(quoted) if quoted else name
        except ValueError:
            read = short_path("$" + text[:pos])
            raise FieldPathError(path, read, [], [], f"cannot read {text[pos:]!r}") from None
        yield ("items", "") if items else ("extra", "") if extra else ("key", key)
        pos = match.end()


def find_field(walker: Walker, schema: Mapping[str, Any], path: str) -> FieldPath:
    node = walker.root
    for kind, key in list(_steps(path)):  # an unreadable path is that, not an unknown one
        kids = walker.children(node)
        found = next((k for k in kids if _is_step(k, kind, key)), None)
        if found is None:
            raise _unknown(walker, schema, path, node, kind, key)
        node = found
    return node


def _is_step(node: FieldPath, kind: str, key: str) -> bool:
    if kind == "key":
        return node.key == key
    return node.key is None and node.label == ("[]" if kind == "items" else EXTRA)


def _unknown(
    walker: Walker, schema: Mapping[str, Any], path: str, node: FieldPath, kind: str, key: str
) -> FieldPathError:
    kids = walker.children(node)
    children = [short_path(walker.entry(k, None).end.path) for k in kids]  # items[], not items
    wanted = short_path(path.strip() if path.strip().startswith("$") else "$." + path.strip())
    everything = [short_path(p) for p in field_paths(schema)]
    matches = difflib.get_close_matches(wanted, everything, n=3)
    if kind == "key":
        names = [k.key for k in kids if k.key is not None]
        close = difflib.get_close_matches(key, names, n=3)
        matches += [short_path(child_path(node.path, name)) for name in close]
    why = ""
    if node.depth >= DOCUMENT_DEPTH:
        why = f"fields deeper than {DOCUMENT_DEPTH} levels are not followed"
    return FieldPathError(path, short_path(node.path), children, unique(matches)[:3], why)
