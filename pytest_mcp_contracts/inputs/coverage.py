"""The coverage phase: a deterministic set of tool inputs that visits every corner of an
``inputSchema``, derived before any random input is drawn.

Random generation leaves corners unvisited (one value of a 30-value enum, the maximum of a
range), and in CI, where hypothesis is derandomized, it leaves the *same* ones unvisited on
every run. So, like schemathesis's coverage phase, we start from the simplest valid input
(required properties at their simplest value, optional ones absent) and change one property
at a time to each of its corners: every ``enum``/``const`` value, every ``anyOf``/``oneOf``
branch and type, ``null``, both booleans, numeric bounds (exactly at them, just inside
exclusive ones, ``multipleOf`` respected, 0 and a negative where allowed), strings and arrays
at their length bounds, a value for each ``format`` and ``pattern``, each optional property
present, and a large value where a number, string or array has no upper bound (``LARGE_*``).
Then pairs of the enumerable corners (enum values, branches, booleans, null, presence) of two
properties at once, as many as the budget allows. Since everything else
stays at its simplest value, a failing input is already small.

The module is pure, and owns the simplest valid value of a schema (``simplest_value``, which
shrinking moves values toward): it works on a draft-07 schema without ``$ref``s (what
``generate.prepare_for_generation`` makes of any inputSchema, hostile ones bounded there) and
on a validator of the *original* schema, which re-checks every input; an input it refuses is
dropped and reported, never sent.
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from pytest_mcp_contracts.inputs.examples import simplest_example
from pytest_mcp_contracts.schema.budgets import CORNER_DEPTH, SIMPLEST_DEPTH
from pytest_mcp_contracts.schema.document import (
    implied_types,
    value_key,
    with_branch,
    with_conjuncts,
)
from pytest_mcp_contracts.text import shorten

__all__ = [
    "Corner",
    "CoverageInput",
    "CoveragePlan",
    "NoSimplestValue",
    "coverage_budget",
    "coverage_line",
    "pattern_example",
    "plan_coverage",
    "random_share",
    "round_to_step",
    "simplest_value",
]

#: Values of one enum considered at most: a 100,000-value enum must not cost 100,000 inputs
#: (the budget would cut them anyway); the rest is reported as not visited.
MAX_VALUES_PER_DIMENSION = 256
#: Corners derived at most per tool, whatever the schema (bounds the work on huge schemas).
MAX_CORNERS = 2_000
#: Strings and arrays longer than this are not built at their maximum length.
MAX_LENGTH = 10_000
#: How many "not visited" corners a report lists by name; the others are counted.
MAX_LISTED = 30
#: Large values sent where the schema sets no upper bound: what an int32 or a float64 mantissa
#: holds at most (a count of 2147483647 has hung a real server), a float near the top of its
#: range, a 64 KiB string and 1,000 items. Nothing in the schema refuses them, so a client may
#: send them; a server that hangs or dies on one fails like on any other input.
LARGE_INTEGERS = (2**31 - 1, 2**53)
LARGE_NUMBER = 1e300
LARGE_STRING = 64 * 1024
LARGE_ARRAY = 1_000

# Corner kinds, in the order they are worth a call: the enumerable ones (which also form
# pairs) first, then bounds, then the rest.
ENUMERABLE = ("enum", "const", "branch", "type", "boolean", "null", "present")
_PRIORITY = {
    **{kind: 0 for kind in ENUMERABLE},
    "minimum": 1,
    "maximum": 1,
    "zero": 2,
    "negative": 2,
    "large": 2,
    "minLength": 3,
    "maxLength": 3,
    "empty": 3,
    "minItems": 3,
    "maxItems": 3,
    "item": 3,
    "format": 3,
    "pattern": 3,
    "absent": 0,
    "sandbox": 0,
    "known": 0,
}

#: A fixed, valid value per format (jsonschema checks these formats when it can).
FORMAT_VALUES: dict[str, str] = {
    "date-time": "2000-01-01T00:00:00Z",
    "date": "2000-01-01",
    "time": "00:00:00Z",
    "duration": "P1D",
    "email": "user@example.com",
    "idn-email": "user@example.com",
    "hostname": "example.com",
    "idn-hostname": "example.com",
    "ipv4": "127.0.0.1",
    "ipv6": "::1",
    "uri": "https://example.com/",
    "uri-reference": "/",
    "iri": "https://example.com/",
    "iri-reference": "/",
    "uri-template": "https://example.com/{id}",
    "uuid": "00000000-0000-4000-8000-000000000000",
    "json-pointer": "/a",
    "relative-json-pointer": "0",
    "regex": "^a$",
}

_ABSENT = object()  # a property left out


class NoSimplestValue(Exception):
    """No value satisfies the sub-schema as far as ``simplest_value`` can tell."""


@dataclass(frozen=True)
class Corner:
    """One corner of the input space: ``path`` is the property (``a.b``, ``a[]`` for array
    items; ``""`` for the root), ``kind`` what sort of corner, ``label`` which one."""

    path: str
    kind: str
    label: str

    def __str__(self) -> str:
        where = self.path or "(input)"
        return f"{where}: {self.kind} {self.label}".rstrip()

    @property
    def top(self) -> str:
        """The top-level property the corner belongs to (pairs combine two of them)."""
        return self.path.split(".", 1)[0].split("[", 1)[0]


@dataclass(frozen=True)
class CoverageInput:
    arguments: dict[str, Any]
    #: the corners this input visits (several when they lead to the same input; none for a
    #: base input that is no corner), or the two corners of a pair
    corners: tuple[Corner, ...]
    pair: bool = False


@dataclass
class CoveragePlan:
    """The inputs of the coverage phase and what they visit, in the order they are sent."""

    inputs: list[CoverageInput] = field(default_factory=list)
    budget: int = 0
    corners: list[Corner] = field(default_factory=list)  # every single corner derived
    pairs_possible: int = 0
    #: corners that get no input, each with the reason
    skipped: list[tuple[str, str]] = field(default_factory=list)
    #: corners whose input the original schema refuses (the rewrite or the merge of a
    #: branch with its siblings got something wrong): dropped, never sent
    refused: set[Corner] = field(default_factory=set)
    note: str = ""  # why there is no plan at all, when there is none
    #: the schema the inputs were derived from and the original schema's validator: what
    #: shrinking a failing coverage input works with (inputs/shrink)
    schema: Mapping[str, Any] = field(default_factory=dict)
    is_valid: Callable[[Any], bool] | None = None

    def report(
        self, sent: Callable[[dict[str, Any]], bool], stopped_by: str = "a failure"
    ) -> dict[str, Any]:
        """What was visited, for the run report; ``sent`` says whether an input was sent
        (a failure, or the tool's time budget, ``stopped_by``, stops the phase early)."""
        visited: set[Corner] = set()
        pairs_planned = pairs_sent = inputs_sent = 0
        for item in self.inputs:
            done = sent(item.arguments)
            inputs_sent += done
            if item.pair:
                pairs_planned += 1
                pairs_sent += done
            elif done:
                visited.update(item.corners)
        not_visited: list[tuple[str, str]] = list(self.skipped)  # summaries first
        planned = {c for item in self.inputs if not item.pair for c in item.corners}
        for corner in self.corners:
            if corner in visited:
                continue
            if corner in self.refused:
                why = "the input built for it is refused by the inputSchema: not sent"
            elif corner in planned:
                why = f"not reached: the phase stopped at {stopped_by}"
            else:
                why = "beyond the coverage budget (raise --mcp-max-examples)"
            not_visited.append((str(corner), why))
        if pairs_sent < pairs_planned:
            why = f"not reached: the phase stopped at {stopped_by}"
            not_visited.append((f"{pairs_planned - pairs_sent} pairs", why))
        if pairs_planned < self.pairs_possible:
            why = "beyond the coverage budget (raise --mcp-max-examples)"
            not_visited.append((f"{self.pairs_possible - pairs_planned} pairs", why))
        return {
            "inputs": len(self.inputs),
            "sent": inputs_sent,
            "budget": self.budget,
            "corners": {"derived": len(self.corners), "visited": len(visited)},
            "pairs": {"possible": self.pairs_possible, "visited": pairs_sent},
            "visited": sorted(str(c) for c in visited)[:MAX_LISTED],
            "not_visited": [{"corner": c, "why": w} for c, w in not_visited[:MAX_LISTED]],
            "not_visited_count": len(not_visited),
            "note": self.note,
        }


def simplest_value(schema: Any, depth: int = 0) -> Any:
    """The simplest value valid for ``schema`` (required properties only, shortest strings and
    arrays, 0 or the bound nearest to it); raises NoSimplestValue when none can be told."""
    if schema is True or schema == {}:
        return None
    if not isinstance(schema, dict) or depth > SIMPLEST_DEPTH:
        raise NoSimplestValue
    if "const" in schema:
        return schema["const"]
    if isinstance(schema.get("enum"), list):
        if not schema["enum"]:
            raise NoSimplestValue
        return schema["enum"][0]
    for keyword in ("anyOf", "oneOf"):
        if isinstance(schema.get(keyword), list):
            for branch in schema[keyword]:
                try:
                    return simplest_value(with_branch(schema, branch, keyword), depth + 1)
                except NoSimplestValue:
                    continue
            raise NoSimplestValue
    if isinstance(schema.get("allOf"), list):
        merged = with_conjuncts(schema)
        return simplest_value(merged, depth + 1)
    types = implied_types(schema)
    if not types:
        return None
    for kind in types:
        try:
            return _simplest_of_type(schema, kind, depth)
        except NoSimplestValue:
            continue
    raise NoSimplestValue


def _simplest_of_type(schema: dict[str, Any], kind: str, depth: int) -> Any:
    if kind == "null":
        return None
    if kind == "boolean":
        return False
    if kind in ("integer", "number"):
        values = _numbers(schema, kind)
        if values.simplest is None:
            raise NoSimplestValue
        return values.simplest
    if kind == "string":
        return _simplest_string(schema)
    if kind == "array":
        count = _int(schema.get("minItems"), 0)
        if count == 0:
            return []
        if count > MAX_LENGTH:
            raise NoSimplestValue
        items = schema.get("items")
        if isinstance(items, list):
            fixed = [simplest_value(s, depth + 1) for s in items[:count]]
            extra = schema.get("additionalItems", True)
            while len(fixed) < count:
                fixed.append(simplest_value(extra, depth + 1))
            return fixed
        if schema.get("uniqueItems") and count > 1:
            distinct = _distinct_values(items if items is not None else True, count, depth)
            return distinct
        return [simplest_value(items if items is not None else True, depth + 1)] * count
    if kind == "object":
        return _simplest_object(schema, depth)
    raise NoSimplestValue


def _simplest_object(schema: dict[str, Any], depth: int) -> dict[str, Any]:
    properties = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    assert isinstance(properties, dict)
    value: dict[str, Any] = {}
    required = [r for r in schema.get("required", []) or [] if isinstance(r, str)]
    for name in required:
        sub = properties.get(name, schema.get("additionalProperties", True))
        value[name] = simplest_value(sub if sub is not False else True, depth + 1)
    wanted = _int(schema.get("minProperties"), 0)
    for name, sub in properties.items():
        if len(value) >= wanted:
            break
        if name not in value:
            value[name] = simplest_value(sub, depth + 1)
    return value


def _distinct_values(items: Any, count: int, depth: int) -> list[Any]:
    found: list[Any] = []
    seen: set[str] = set()
    for _corner, value in _corners(items, "", depth + 1):
        if value_key(value) not in seen:
            seen.add(value_key(value))
            found.append(value)
        if len(found) == count:
            return found
    raise NoSimplestValue


def _int(value: Any, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _simplest_string(schema: dict[str, Any]) -> str:
    fmt = schema.get("format")
    if isinstance(fmt, str) and fmt in FORMAT_VALUES:
        return FORMAT_VALUES[fmt]
    pattern = schema.get("pattern")
    if isinstance(pattern, str):
        found = pattern_example(pattern)
        if found is None:
            raise NoSimplestValue
        return found
    low = _int(schema.get("minLength"), 0)
    if low > MAX_LENGTH:
        raise NoSimplestValue
    return "a" * low


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


# --------------------------------------------------------------------------- numbers


@dataclass
class _Numbers:
    corners: list[tuple[str, str, float | int]]  # (kind, label, value)
    simplest: float | int | None


def _numbers(schema: Mapping[str, Any], kind: str) -> _Numbers:
    integer = kind == "integer"
    step = schema.get("multipleOf")
    step = (
        step if isinstance(step, int | float) and not isinstance(step, bool) and step > 0 else None
    )
    low, low_exclusive = _bound(schema, "minimum", "exclusiveMinimum")
    high, high_exclusive = _bound(schema, "maximum", "exclusiveMaximum")

    def fits(value: float | int) -> bool:
        if low is not None and (value < low or (low_exclusive and value == low)):
            return False
        if high is not None and (value > high or (high_exclusive and value == high)):
            return False
        if integer and not float(value).is_integer():
            return False
        return step is None or _is_multiple(value, step)

    def up_from(value: float | int, exclusive: bool) -> float | int | None:
        """The smallest allowed value at or just above a lower bound."""
        if step is not None:
            found = math.ceil(value / step) * step
            if exclusive and found <= value:
                found += step
            found = round_to_step(found, step)
        elif integer:
            found = math.floor(value) + 1 if exclusive else math.ceil(value)
        else:
            found = math.nextafter(value, math.inf) if exclusive else value
        return found if fits(found) else None

    def down_from(value: float | int, exclusive: bool) -> float | int | None:
        if step is not None:
            found = math.floor(value / step) * step
            if exclusive and found >= value:
                found -= step
            found = round_to_step(found, step)
        elif integer:
            found = math.ceil(value) - 1 if exclusive else math.floor(value)
        else:
            found = math.nextafter(value, -math.inf) if exclusive else value
        return found if fits(found) else None

    corners: list[tuple[str, str, float | int]] = []
    if low is not None:
        at_low = up_from(low, low_exclusive)
        if at_low is not None:
            label = f"just above {low!r}: {at_low!r}" if low_exclusive else f"{at_low!r}"
            corners.append(("minimum", label, at_low))
    if high is not None:
        at_high = down_from(high, high_exclusive)
        if at_high is not None:
            label = f"just below {high!r}: {at_high!r}" if high_exclusive else f"{at_high!r}"
            corners.append(("maximum", label, at_high))
    zero: float | int = 0 if integer else 0.0
    if fits(zero):
        corners.append(("zero", "0", zero))
    negative = -(step if step is not None else 1)
    negative = int(negative) if integer else float(negative)
    if fits(negative):
        corners.append(("negative", f"{negative!r}", negative))
    if high is None:
        for large in LARGE_INTEGERS if integer else (LARGE_NUMBER,):
            at_large: float | int | None
            if integer and isinstance(step, int):  # exact: 2**53 / 3 as a float is not
                at_large = large - large % step if fits(large - large % step) else None
            else:
                at_large = down_from(large, False)
            if at_large is not None and at_large > 0:
                corners.append(("large", f"{at_large!r}", at_large))
    # The simplest value: 0 if allowed, else the allowed value nearest to it.
    if fits(zero):
        best: float | int | None = zero
    elif low is not None and low >= 0:
        best = up_from(low, low_exclusive)
    elif high is not None and high <= 0:
        best = down_from(high, high_exclusive)
    else:
        best = next((v for _, _, v in corners), None)
    if integer and best is not None:
        best = int(best)
    corners = [(k, lbl, int(v) if integer else v) for k, lbl, v in corners]
    return _Numbers(corners, best)


def _bound(schema: Mapping[str, Any], inclusive: str, exclusive: str) -> tuple[Any, bool]:
    """A bound and whether it is exclusive (draft-04 booleans and draft-06+ numbers)."""
    value = schema.get(inclusive)
    other = schema.get(exclusive)
    value = value if _is_number(value) else None
    if other is True and value is not None:
        return value, True
    if _is_number(other):
        # Both given: the tighter one wins.
        tighter = value is None or (other >= value if "min" in inclusive else other <= value)
        if tighter:
            return other, True
    return value, False


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _is_multiple(value: float | int, step: float | int) -> bool:
    if isinstance(value, int) and isinstance(step, int):
        return value % step == 0
    quotient = value / step
    return math.isfinite(quotient) and abs(quotient - round(quotient)) < 1e-9


def round_to_step(value: float | int, step: float | int) -> float | int:
    # Multiples of a float step pick up rounding noise (0.1 * 3); round to the step's digits.
    if isinstance(step, int):
        return int(value)
    digits = max(0, -math.floor(math.log10(abs(step)))) + 6
    return round(value, digits)


# --------------------------------------------------------------------------- corners


def _corners(schema: Any, path: str, depth: int) -> Iterator[tuple[Corner, Any]]:
    """Each corner of ``schema`` with a value for it (the rest at its simplest)."""
    if not isinstance(schema, dict) or depth > CORNER_DEPTH:
        return
    if "const" in schema:
        yield Corner(path, "const", _shown(schema["const"])), schema["const"]
        return
    if isinstance(schema.get("enum"), list):
        for value in schema["enum"][:MAX_VALUES_PER_DIMENSION]:
            yield Corner(path, "enum", _shown(value)), value
        return
    for keyword in ("anyOf", "oneOf"):
        if isinstance(schema.get(keyword), list):
            for index, branch in enumerate(schema[keyword]):
                merged = with_branch(schema, branch, keyword)
                try:
                    yield (
                        Corner(path, "branch", f"{keyword}[{index}]"),
                        simplest_value(merged, depth),
                    )
                except NoSimplestValue:
                    continue
                yield from _corners(merged, path, depth + 1)
            return
    if isinstance(schema.get("allOf"), list):
        merged = with_conjuncts(schema)
        yield from _corners(merged, path, depth + 1)
        return
    types = implied_types(schema)
    several = len(types) > 1
    for kind in types:
        if several:
            try:
                yield Corner(path, "type", kind), _simplest_of_type(schema, kind, depth)
            except NoSimplestValue:
                continue
        yield from _type_corners(schema, kind, path, depth)


def _type_corners(
    schema: dict[str, Any], kind: str, path: str, depth: int
) -> Iterator[tuple[Corner, Any]]:
    if kind == "null":
        yield Corner(path, "null", ""), None
    elif kind == "boolean":
        yield Corner(path, "boolean", "false"), False
        yield Corner(path, "boolean", "true"), True
    elif kind in ("integer", "number"):
        for corner_kind, label, value in _numbers(schema, kind).corners:
            yield Corner(path, corner_kind, label), value
    elif kind == "string":
        yield from _string_corners(schema, path)
    elif kind == "array":
        yield from _array_corners(schema, path, depth)
    elif kind == "object":
        try:
            base = _simplest_object(schema, depth)
        except NoSimplestValue:
            return
        yield from _object_corners(schema, base, path, depth)


def _string_corners(schema: dict[str, Any], path: str) -> Iterator[tuple[Corner, Any]]:
    fmt = schema.get("format")
    if isinstance(fmt, str) and fmt in FORMAT_VALUES:
        yield Corner(path, "format", fmt), FORMAT_VALUES[fmt]
        return
    pattern = schema.get("pattern")
    if isinstance(pattern, str):
        found = pattern_example(pattern)
        if found is not None:
            yield Corner(path, "pattern", _shown(pattern)), found
        return  # the pattern decides the lengths
    low = _int(schema.get("minLength"), 0)
    high = schema.get("maxLength")
    if low == 0:
        yield Corner(path, "empty", '""'), ""
    elif low <= MAX_LENGTH:
        yield Corner(path, "minLength", str(low)), "a" * low
    if isinstance(high, int) and high != low and 0 < high <= MAX_LENGTH:
        yield Corner(path, "maxLength", str(high)), "a" * high
    if high is None and low < LARGE_STRING:
        yield Corner(path, "large", f"{LARGE_STRING} characters"), "a" * LARGE_STRING


def _array_corners(schema: dict[str, Any], path: str, depth: int) -> Iterator[tuple[Corner, Any]]:
    low = _int(schema.get("minItems"), 0)
    high = schema.get("maxItems")
    items = schema.get("items", True)
    if isinstance(items, list):  # a tuple: its lengths are what matters
        items_schema: Any = schema.get("additionalItems", True)
    else:
        items_schema = items
    tail_refused = items_schema is False
    try:
        base = simplest_value(schema, depth)
    except NoSimplestValue:
        return
    if low == 0:
        yield Corner(path, "minItems" if "minItems" in schema else "empty", "0"), []
    else:
        yield Corner(path, "minItems", str(low)), base
    if isinstance(high, int) and high != low and 0 < high <= MAX_LENGTH:
        try:
            filler = simplest_value(items_schema, depth + 1)
            tail = [filler] * (high - len(base))
            yield Corner(path, "maxItems", str(high)), [*base, *tail]
        except NoSimplestValue:
            pass
    if high is None and low < LARGE_ARRAY and not (isinstance(items, list) and tail_refused):
        large = _large_array(schema, base, items_schema, depth)
        if large is not None:
            yield Corner(path, "large", f"{LARGE_ARRAY} items"), large
    if isinstance(items, dict):
        # Each corner of the items, as the first item of the shortest non-empty array.
        for corner, value in _corners(items, f"{path}[]", depth + 1):
            rest = base[1:] if base else []
            yield corner, [value, *rest]


def _large_array(
    schema: dict[str, Any], base: list[Any], items_schema: Any, depth: int
) -> list[Any] | None:
    """``base`` filled up to LARGE_ARRAY items with the simplest item, or, under
    ``uniqueItems``, with distinct simple items (numbers counted up from the simplest, strings
    numbered); None when no such filler can be told (the re-check drops a wrong one)."""
    try:
        filler = simplest_value(items_schema, depth + 1)
    except NoSimplestValue:
        return None
    count = LARGE_ARRAY - len(base)
    if not schema.get("uniqueItems"):
        return [*base, *([filler] * count)]
    if isinstance(filler, bool) or not isinstance(filler, int | float | str):
        return None
    step = items_schema.get("multipleOf", 1) if isinstance(items_schema, dict) else 1
    step = step if _is_number(step) and step > 0 else 1
    # Distinct values beside the base's: the base has at most a few items.
    taken = {value_key(v) for v in base}
    varied: list[Any] = []
    for index in range(count + len(base)):
        value = f"{filler}{index}" if isinstance(filler, str) else filler + index * step
        if value_key(value) not in taken:
            taken.add(value_key(value))
            varied.append(value)
        if len(varied) == count:
            return [*base, *varied]
    return None


def _object_corners(
    schema: dict[str, Any], base: dict[str, Any], path: str, depth: int
) -> Iterator[tuple[Corner, Any]]:
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return
    required = set(schema.get("required", []) or [])
    prefix = f"{path}." if path else ""
    for name, sub in properties.items():
        where = f"{prefix}{name}"
        if name not in required:
            yield Corner(where, "absent", ""), {k: v for k, v in base.items() if k != name}
            try:
                present = simplest_value(sub, depth + 1)
            except NoSimplestValue:
                continue
            yield Corner(where, "present", ""), {**base, name: present}
        for corner, value in _corners(sub, where, depth + 1):
            yield corner, {**base, name: value}


def _shown(value: Any) -> str:
    return shorten(json.dumps(value, default=repr), 40)


# --------------------------------------------------------------------------- the plan


def plan_coverage(
    schema: Mapping[str, Any],
    is_valid: Callable[[Any], bool],
    budget: int,
    fallback_base: Callable[[], dict[str, Any] | None] | None = None,
    original: Mapping[str, Any] | None = None,
    paths: Mapping[str, Sequence[tuple[str, Any]]] | None = None,
    well_known: Mapping[str, Sequence[tuple[str, Any]]] | None = None,
) -> CoveragePlan:
    """The coverage inputs for a tool: ``schema`` is its inputSchema rewritten to draft-07
    without ``$ref``s, ``is_valid`` the original schema's validator, ``budget`` how many
    inputs at most. The base input comes first, then single corners by worth, then pairs.
    ``original`` (the schema as the server wrote it) lets the plan say which enum values the
    rewrite sampled away. ``paths`` are the sandbox's (label, value) for each property that
    takes paths (``sandbox.path_slots``), ``well_known`` the values of properties named like
    a timezone or a currency (``known.known_slots``): the base starts there, and each is a
    corner."""
    plan = CoveragePlan(budget=budget, schema=schema, is_valid=is_valid)
    properties = schema.get("properties")
    if not isinstance(properties, dict) or not properties:
        plan.inputs = [CoverageInput({}, ())] if is_valid({}) and budget > 0 else []
        plan.note = "the inputSchema declares no properties: called with {}"
        return plan
    try:
        base = _simplest_object(dict(schema), 0)
    except NoSimplestValue:
        base = None
    if base is None or not is_valid(base):
        base = fallback_base() if fallback_base is not None else None
        if base is None or not is_valid(base):
            plan.note = "no simplest valid input could be derived: left to the random phase"
            return plan
    base = _at_real_paths(base, {**(well_known or {}), **(paths or {})}, is_valid)
    singles: list[tuple[Corner, dict[str, Any]]] = []
    known: set[Corner] = set()
    found = _object_corners(dict(schema), base, "", 0)
    outside = itertools.chain(
        _path_corners(base, paths or {}, "sandbox"), _path_corners(base, well_known or {}, "known")
    )
    for corner, value in itertools.chain(found, outside):
        if len(known) >= MAX_CORNERS:
            plan.skipped.append(("more corners", f"past {MAX_CORNERS} per tool"))
            break
        if corner in known:
            continue
        known.add(corner)
        plan.corners.append(corner)
        singles.append((corner, value))
    _note_trimmed_enums(original if original is not None else schema, plan)
    # Single corners by worth (enumerable, then bounds, then the rest), and within one worth
    # round-robin over the properties, so that a cut is spread evenly.
    singles = _round_robin(singles)
    pairs = _pairs(base, singles)
    chosen: list[CoverageInput] = [CoverageInput(base, ())] if budget > 0 else []
    where = {value_key(base): 0} if chosen else {}  # input -> its position in ``chosen``
    for corner, value in singles:
        key = value_key(value)
        if key in where:  # an earlier input is this one too: it visits this corner as well
            earlier = chosen[where[key]]
            chosen[where[key]] = CoverageInput(value, (*earlier.corners, corner))
            continue
        if len(chosen) >= budget:
            continue  # not break: a later corner may still be one of the chosen inputs
        # Validated only when chosen: a check against a huge enum is not cheap.
        if not is_valid(value):
            plan.refused.add(corner)
            continue
        where[key] = len(chosen)
        chosen.append(CoverageInput(value, (corner,)))
    # Pairs: whole groups of two properties, smallest groups first, while the budget lasts.
    # A pair equal to a single corner's input is no pair; one the schema refuses is dropped.
    plan.pairs_possible = 0
    for group in sorted(pairs, key=len):
        for pair_corners, value in group:
            key = value_key(value)
            if key in where:
                continue
            if len(chosen) < budget:
                if not is_valid(value):
                    continue
                chosen.append(CoverageInput(value, pair_corners, pair=True))
            where[key] = -1
            plan.pairs_possible += 1
    plan.inputs = chosen
    return plan


def _at_real_paths(
    base: dict[str, Any],
    paths: Mapping[str, Sequence[tuple[str, Any]]],
    is_valid: Callable[[Any], bool],
) -> dict[str, Any]:
    """The base input with each path property it has at the sandbox's first value (a real
    file), so that every corner is visited with a path the server can open."""
    for name, corners in paths.items():
        if name in base and corners:
            moved = {**base, name: corners[0][1]}
            if is_valid(moved):
                base = moved
    return base


def _path_corners(
    base: dict[str, Any], paths: Mapping[str, Sequence[tuple[str, Any]]], kind: str
) -> Iterator[tuple[Corner, dict[str, Any]]]:
    for name, corners in paths.items():
        for label, value in corners:
            yield Corner(name, kind, label), {**base, name: value}


def _round_robin(
    singles: Sequence[tuple[Corner, dict[str, Any]]],
) -> list[tuple[Corner, dict[str, Any]]]:
    ordered: list[tuple[Corner, dict[str, Any]]] = []
    for worth in sorted(set(_PRIORITY.values())):
        by_property: dict[str, list[tuple[Corner, dict[str, Any]]]] = {}
        for corner, value in singles:
            if _PRIORITY.get(corner.kind, 3) == worth:
                by_property.setdefault(corner.top, []).append((corner, value))
        queues = list(by_property.values())
        while queues:
            for queue in queues:
                ordered.append(queue.pop(0))
            queues = [q for q in queues if q]
    return ordered


def _pairs(
    base: dict[str, Any], singles: Sequence[tuple[Corner, dict[str, Any]]]
) -> list[list[tuple[tuple[Corner, Corner], dict[str, Any]]]]:
    """Pairs of enumerable corners of two top-level properties: the base with both changed."""
    by_property: dict[str, list[tuple[Corner, Any]]] = {}
    for corner, value in singles:
        if corner.kind in ENUMERABLE:
            top = corner.top
            by_property.setdefault(top, []).append((corner, value.get(top, _ABSENT)))
    names = list(by_property)
    groups = []
    for i, first in enumerate(names):
        for second in names[i + 1 :]:
            group = []
            for corner_a, value_a in by_property[first]:
                for corner_b, value_b in by_property[second]:
                    combined = dict(base)
                    for name, value in ((first, value_a), (second, value_b)):
                        if value is _ABSENT:
                            combined.pop(name, None)
                        else:
                            combined[name] = value
                    group.append(((corner_a, corner_b), combined))
            groups.append(group)
    return groups


def _note_trimmed_enums(schema: Mapping[str, Any], plan: CoveragePlan) -> None:
    """Top-level enums with more values than were planned (capped here, or sampled by the
    rewrite for generation): the others are not visited, and the report says so."""
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return
    planned: dict[str, int] = {}
    for corner in plan.corners:
        if corner.kind == "enum" and corner.path in properties:
            planned[corner.path] = planned.get(corner.path, 0) + 1
    for name, sub in properties.items():
        if isinstance(sub, dict) and isinstance(sub.get("enum"), list) and name in planned:
            extra = len(sub["enum"]) - planned[name]
            if extra > 0:
                plan.skipped.append(
                    (
                        f"{name}: {extra} more enum values",
                        f"an enum of {len(sub['enum'])} values: a sample of {planned[name]} "
                        "is planned",
                    )
                )


# --------------------------------------------------------------------------- the budget


def random_floor(max_examples: int) -> int:
    """Random inputs every tool gets whatever its corners: a fifth of ``max_examples``."""
    return max(1, max_examples // 5)


def coverage_budget(max_examples: int) -> int:
    """Coverage inputs a tool may get: ``max_examples`` less the random phase's floor (40 of
    the default 50), so that corners take precedence over the random fill."""
    return max_examples - random_floor(max_examples)


def random_share(max_examples: int, coverage_inputs: int) -> int:
    """Random inputs after ``coverage_inputs``: together they make ``max_examples``."""
    return max(max_examples - coverage_inputs, random_floor(max_examples))


def coverage_line(report: Mapping[str, Any]) -> str:
    """One line about a tool's input coverage, for the terminal."""
    if not report["inputs"]:
        return f"input coverage: none ({report['note']})"
    corners, pairs = report["corners"], report["pairs"]
    text = (
        f"input coverage: {corners['visited']}/{corners['derived']} corners, "
        f"{pairs['visited']}/{pairs['possible']} pairs, {report['sent']} inputs"
    )
    if report["note"]:
        text += f" ({report['note']})"
    missed = report["not_visited"]
    if missed:
        first = missed[0]
        more = report["not_visited_count"] - 1
        text += f"; not visited: {first['corner']} ({first['why']})"
        text += f" and {more} more" if more else ""
    return text
