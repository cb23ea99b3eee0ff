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
present, and a large value where a number, string or array has no upper bound (``LARGE_*``,
in ``inputs/corners`` and ``inputs/number_corners``).
Then pairs of the enumerable corners (enum values, branches, booleans, null, presence) of two
properties at once, as many as the budget allows. Since everything else
stays at its simplest value, a failing input is already small.

The module is pure: the simplest valid value and the corners come from ``inputs/corners``,
derived from a draft-07 schema without ``$ref``s (what ``rewrite.prepare_for_generation``
makes of any inputSchema, hostile ones bounded there), and a validator of the *original*
schema re-checks every input; an input it refuses is dropped and reported, never sent. Here:
which inputs the budget buys (``plan_coverage``), what they visited (``CoveragePlan.report``),
and the budget shared with the random phase.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pytest_mcp_contracts.inputs.corners import (
    Corner,
    NoSimplestValue,
    object_corners,
    simplest_object,
)
from pytest_mcp_contracts.schema.document import value_key

__all__ = [
    "CoverageInput",
    "CoveragePlan",
    "coverage_budget",
    "coverage_line",
    "plan_coverage",
    "random_share",
]

#: Corners derived at most per tool, whatever the schema (bounds the work on huge schemas).
MAX_CORNERS = 2_000
#: How many "not visited" corners a report lists by name; the others are counted.
MAX_LISTED = 30


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


_ABSENT = object()  # a property left out


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
        base = simplest_object(dict(schema), 0)
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
    found = object_corners(dict(schema), base, "", 0)
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
