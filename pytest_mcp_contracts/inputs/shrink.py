"""Shrinking a failing input by a bounded search of our own, for the failures hypothesis does
not shrink: those of the coverage phase, whose inputs are explicit examples to it.

A coverage input is already small everywhere but at its corner, and the corner is often far
from where the bug starts (a maximum of 1000, or 2**31-1, for a bug above 100). So each value
is moved toward its simplest value (``corners.simplest_value``): numbers by a galloping search
then bisection over the values the schema allows (``multipleOf`` respected; integers, or whole
steps of a number), strings and arrays by keeping a shorter prefix, optional properties
dropped, booleans to false, enum values to the first one, nested objects and array items
likewise; round after round while something got smaller. The result is a boundary: the
failing value with the next simpler one passing (``{"n": 101}``).

A string that names a file or folder that exists (an absolute path, or a ``file://`` URI:
the roots sandbox's values, a folder the server was given) is kept whole: it is a place,
not text, and a shorter one names another place, outside the run's own (a tool that
creates what it is named, given ``/tmp/pytest-mcp-roots-x`` cut to ``/tmp/py``, made a
repository there). That one check of existence is all this module reads of the disk.

The module is pure: ``fails`` makes the call and says whether the input failed the same way
(or raises SearchStopped when time or restarts run out); ``is_valid`` (the original schema's
validator) re-checks every attempt, and one it refuses is never passed to ``fails``.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pytest_mcp_contracts.inputs.corners import NoSimplestValue, simplest_value
from pytest_mcp_contracts.inputs.number_corners import round_to_step
from pytest_mcp_contracts.schema.budgets import SHRINK_DEPTH
from pytest_mcp_contracts.schema.document import (
    implied_types,
    json_type,
    value_key,
    with_branch,
    with_conjuncts,
)

__all__ = ["SearchStopped", "Shrunk", "shrink_input"]

#: Attempts (calls) at most, whatever the time allows: a bound on a search that a server
#: answering in microseconds could otherwise stretch over thousands of calls.
MAX_ATTEMPTS = 400
#: Rounds over the whole input at most (a round that makes nothing smaller ends the search).
MAX_ROUNDS = 4
#: Items of an array whose own values are shrunk (after its length): the first few.
MAX_ITEMS_SHRUNK = 8

Path = tuple[str | int, ...]


class SearchStopped(Exception):
    """Raised by ``fails`` to end the search early; ``why`` is for the report, ``failed``
    says that the attempt it stopped at did fail (a crash that spent the last restart)."""

    def __init__(self, why: str, *, failed: bool = False) -> None:
        super().__init__(why)
        self.why = why
        self.failed = failed


@dataclass(frozen=True)
class Shrunk:
    """The smallest failing input found, how many calls it took, and, when the search
    stopped before it was done, why."""

    value: dict[str, Any]
    attempts: int
    stopped: str | None = None


def shrink_input(
    arguments: dict[str, Any],
    schema: Mapping[str, Any],
    is_valid: Callable[[Any], bool],
    fails: Callable[[dict[str, Any]], bool],
    *,
    max_attempts: int = MAX_ATTEMPTS,
) -> Shrunk:
    """The smallest input found that still ``fails``, starting from ``arguments`` (which
    failed): ``schema`` is the inputSchema rewritten to draft-07 without ``$ref``s (the
    coverage phase's), ``is_valid`` the original schema's validator."""
    search = _Search(arguments, is_valid, fails, max_attempts)
    try:
        for _ in range(MAX_ROUNDS):
            before = search.best
            search.value_at((), dict(schema), 0)
            if search.best == before:
                break
    except SearchStopped as stop:
        return Shrunk(search.best, search.attempts, stop.why)
    return Shrunk(search.best, search.attempts)


def _get(value: Any, path: Path) -> Any:
    for step in path:
        value = value[step]
    return value


def _put(value: Any, path: Path, new: Any) -> Any:
    """A copy of ``value`` with the value at ``path`` replaced (only the path is copied)."""
    if not path:
        return new
    head, rest = path[0], path[1:]
    copy: Any = dict(value) if isinstance(value, dict) else list(value)
    copy[head] = _put(value[head], rest, new)
    return copy


def _drop(value: Any, path: Path, name: str) -> Any:
    inner = {k: v for k, v in _get(value, path).items() if k != name}
    return _put(value, path, inner)


def _place(value: Any) -> bool:
    """Whether ``value`` names a file or folder that exists (kept whole: see above)."""
    if not isinstance(value, str) or not value.startswith(("/", "file:///")):
        return False
    path = value.removeprefix("file://")
    try:
        return os.path.lexists(path)
    except ValueError:  # a NUL in it: no path
        return False


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _fits_type(schema: Mapping[str, Any], value: Any) -> bool:
    types = implied_types(schema)
    if not types:
        return True
    kind = json_type(value)
    if kind == "integer":
        return bool({"integer", "number"} & set(types))
    if kind == "number":
        return "number" in types or ("integer" in types and value.is_integer())
    return kind in types


def _schema_for(schema: Any, value: Any, depth: int = 0) -> dict[str, Any]:
    """The part of ``schema`` that ``value`` is an instance of: the first anyOf/oneOf branch
    of its type (merged with its siblings, as the coverage phase does), allOf merged."""
    if not isinstance(schema, dict) or depth > SHRINK_DEPTH:
        return {}
    for keyword in ("anyOf", "oneOf"):
        branches = schema.get(keyword)
        if isinstance(branches, list):
            for branch in branches:
                merged = with_branch(schema, branch, keyword)
                inner = _schema_for(merged, value, depth + 1)
                if isinstance(merged, dict) and _fits_type(inner, value):
                    return _schema_for(merged, value, depth + 1)
            return {k: v for k, v in schema.items() if k != keyword}
    if isinstance(schema.get("allOf"), list):
        merged = with_conjuncts(schema)
        return _schema_for(merged, value, depth + 1)
    return schema


class _Search:
    def __init__(
        self,
        arguments: dict[str, Any],
        is_valid: Callable[[Any], bool],
        fails: Callable[[dict[str, Any]], bool],
        max_attempts: int,
    ) -> None:
        self.best = arguments
        self.is_valid = is_valid
        self.fails = fails
        self.max_attempts = max_attempts
        self.attempts = 0
        self.tried: dict[str, bool] = {value_key(arguments): True}
        # Values already searched down to their boundary: a later round, after something
        # else got smaller, does not search them again (each search is up to ~60 calls).
        self.settled: set[tuple[Path, str]] = set()

    def attempt(self, candidate: dict[str, Any]) -> bool:
        """Whether ``candidate`` fails (it becomes the best when it does). Each input is sent
        once; one the schema refuses is never sent and counts as not failing."""
        key = value_key(candidate)
        if key not in self.tried:
            if not self.is_valid(candidate):
                self.tried[key] = False
            else:
                if self.attempts >= self.max_attempts:
                    raise SearchStopped(f"the search made {self.max_attempts} calls")
                try:
                    self.tried[key] = self.fails(candidate)
                except SearchStopped as stop:
                    if stop.failed:  # the call was made, and failed: it is the best now
                        self.attempts += 1
                        self.best = candidate
                    raise
                self.attempts += 1
        if self.tried[key]:
            self.best = candidate
        return self.tried[key]

    def attempt_at(self, path: Path, new: Any) -> bool:
        return self.attempt(_put(self.best, path, new))

    # ---------------------------------------------------------------- one value

    def value_at(self, path: Path, schema: Any, depth: int) -> None:
        """Shrink the value at ``path`` (whose schema is ``schema``) and what it holds."""
        if depth > SHRINK_DEPTH:
            return
        value = _get(self.best, path)
        if _place(value):
            return
        schema = _schema_for(schema, value)
        if path:  # the whole input's simplest value is the base input: no corner at all
            try:
                target = simplest_value(schema)
            except NoSimplestValue:
                target = None
            else:
                if value_key(target) != value_key(value) and self.attempt_at(path, target):
                    return
        if isinstance(value, dict):
            self.object_at(path, schema, depth)
        elif isinstance(value, list):
            self.array_at(path, schema, depth)
        elif isinstance(value, str):
            self.string_at(path, schema)
        elif _is_number(value):
            self.number_at(path, schema, value)
        elif value is True:
            self.attempt_at(path, False)

    def object_at(self, path: Path, schema: dict[str, Any], depth: int) -> None:
        required = schema.get("required")
        required = set(required) if isinstance(required, list) else set()
        for name in sorted(_get(self.best, path)):
            if name not in required:
                self.attempt(_drop(self.best, path, name))
        properties = schema.get("properties")
        properties = properties if isinstance(properties, dict) else {}
        extra = schema.get("additionalProperties", True)
        for name in sorted(_get(self.best, path)):
            self.value_at((*path, name), properties.get(name, extra), depth + 1)

    def array_at(self, path: Path, schema: dict[str, Any], depth: int) -> None:
        value = _get(self.best, path)
        low = schema.get("minItems")
        low = low if isinstance(low, int) and not isinstance(low, bool) else 0
        self.shorter(path, value, max(low, 0))
        items = schema.get("items", True)
        for index in range(min(len(_get(self.best, path)), MAX_ITEMS_SHRUNK)):
            if isinstance(items, list):
                item = items[index] if index < len(items) else schema.get("additionalItems", True)
            else:
                item = items
            self.value_at((*path, index), item, depth + 1)

    def string_at(self, path: Path, schema: dict[str, Any]) -> None:
        if "pattern" in schema or "format" in schema:
            return  # a prefix would not match: the simplest value was the one to try
        low = schema.get("minLength")
        low = low if isinstance(low, int) and not isinstance(low, bool) else 0
        self.shorter(path, _get(self.best, path), max(low, 0))

    def shorter(self, path: Path, value: str | list[Any], low: int) -> None:
        """Keep the shortest prefix, at least ``low`` long, that still fails."""
        if len(value) <= low:
            return
        self.boundary(path, lambda k: value[: low + k], len(value) - low)

    def number_at(self, path: Path, schema: dict[str, Any], value: float | int) -> None:
        try:
            simplest = simplest_value(schema)
        except NoSimplestValue:
            return
        if not _is_number(simplest) or simplest == value:
            return
        origin: float | int = simplest
        declared = schema.get("multipleOf")
        step: float | int = 1
        if isinstance(declared, int | float) and not isinstance(declared, bool) and declared > 0:
            step = declared
        sign = 1 if value > origin else -1
        integer = isinstance(value, int) and isinstance(origin, int) and isinstance(step, int)
        distance = abs(value - origin)
        # Integer arithmetic where it is exact: 2**53 - 1 as a float is not.
        steps = int(distance // step) if integer else math.floor(distance / step)

        def point(k: int) -> float | int:
            if integer:
                return origin + sign * k * step
            found = round_to_step(origin + sign * k * step, step)
            return float(found) if isinstance(value, float) else found

        if point(steps) != value and not self.attempt_at(path, point(steps)):
            return  # the failing value is off the grid, and the grid point below it passes
        self.boundary(path, point, steps)

    def boundary(self, path: Path, point: Callable[[int], Any], high: int) -> None:
        """The smallest k in 1..``high`` whose ``point(k)`` fails, given that ``point(high)``
        failed and ``point(0)`` is the simplest value (tried, or the base's): a galloping
        search from the simplest end (1, 2, 4, ...: a bug near the simplest value is found in
        a few calls), then bisection between the last point that passed and the first that
        failed."""
        if (path, value_key(point(high))) in self.settled:
            return

        def attempt(value: Any) -> bool:
            return self.attempt_at(path, value)

        if attempt(point(0)):
            return
        low, step = 0, 1
        while low + step < high:
            if attempt(point(low + step)):
                high = low + step
                break
            low += step
            step *= 2
        while high - low > 1:
            middle = (low + high) // 2
            if attempt(point(middle)):
                high = middle
            else:
                low = middle
        attempt(point(high))  # the best is the boundary itself, not the last point to fail
        self.settled.add((path, value_key(point(high))))
