"""The coverage phase's derivation (inputs/coverage.py, the corners and simplest values of
inputs/corners.py, inputs/number_corners.py and inputs/pattern_example.py, and
inputs/generate.coverage_plan that feeds them)."""

from __future__ import annotations

import time
from typing import Any

import pytest

from pytest_mcp_contracts.inputs.coverage import (
    CoveragePlan,
    coverage_budget,
    coverage_line,
    random_share,
)
from pytest_mcp_contracts.inputs.generate import coverage_plan
from pytest_mcp_contracts.inputs.input_schema import GenerationError
from pytest_mcp_contracts.inputs.pattern_example import pattern_example
from pytest_mcp_contracts.schema.dialects import make_validator


def _obj(properties: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": list(required)}


def _inputs(plan: CoveragePlan) -> list[dict[str, Any]]:
    return [item.arguments for item in plan.inputs]


def _visited(plan: CoveragePlan) -> set[str]:
    return {str(c) for item in plan.inputs if not item.pair for c in item.corners}


def test_every_enum_value_once_the_rest_at_its_simplest() -> None:
    schema = _obj({"mode": {"enum": ["a", "b", "c", "d"]}, "q": {"type": "string"}}, ("mode", "q"))
    plan = coverage_plan(schema, 40)
    inputs = _inputs(plan)
    for value in "abcd":
        assert {"mode": value, "q": ""} in inputs
    assert inputs[0] == {"mode": "a", "q": ""}  # the base input comes first


def test_numeric_bounds_respect_exclusive_bounds_and_multiple_of() -> None:
    schema = _obj(
        {
            "n": {"type": "integer", "minimum": 1, "maximum": 100},
            "x": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
            "m": {"type": "integer", "minimum": 1, "maximum": 20, "multipleOf": 3},
            "z": {"type": "integer", "maximum": 5},
        },
        ("n", "x", "m", "z"),
    )
    values: dict[str, set[Any]] = {}
    for arguments in _inputs(coverage_plan(schema, 100)):
        for name, value in arguments.items():
            values.setdefault(name, set()).add(value)
    assert {1, 100} <= values["n"] and 0 not in values["n"]
    assert 0 not in values["x"] and 1 not in values["x"]
    assert min(values["x"]) > 0 and max(values["x"]) < 1 and len(values["x"]) >= 2
    assert values["m"] == {3, 18}  # the first and last multiples of 3 inside 1..20
    assert {0, -1, 5} <= values["z"]  # zero and a negative where allowed


def test_strings_arrays_formats_and_patterns() -> None:
    schema = _obj(
        {
            "s": {"type": "string", "minLength": 2, "maxLength": 5},
            "e": {"type": "string"},
            "d": {"type": "string", "format": "date"},
            "p": {"type": "string", "pattern": "^A-[0-9]+$"},
            "tags": {"type": "array", "items": {"enum": ["x", "y"]}, "maxItems": 3},
        },
        ("s", "e", "d", "p", "tags"),
    )
    plan = coverage_plan(schema, 100)
    seen: dict[str, list[Any]] = {}
    for arguments in _inputs(plan):
        for name, value in arguments.items():
            seen.setdefault(name, []).append(value)
    assert {"aa", "aaaaa"} <= set(seen["s"])
    assert "" in seen["e"]
    assert seen["d"] == ["2000-01-01"] * len(seen["d"])
    assert all(value.startswith("A-") for value in seen["p"])
    lengths = {len(v) for v in seen["tags"]}
    assert {0, 3} <= lengths
    assert ["y"] in seen["tags"]  # each item corner, as a one-item array
    visited = _visited(plan)
    assert {"d: format date", "tags: maxItems 3", 'tags[]: enum "y"'} <= visited


def test_optional_properties_present_and_absent_and_both_booleans() -> None:
    schema = _obj({"url": {"type": "string"}, "verbose": {"type": "boolean", "default": False}})
    schema["required"] = ["url"]
    plan = coverage_plan(schema, 40)
    inputs = _inputs(plan)
    assert inputs[0] == {"url": ""}
    assert {"url": "", "verbose": True} in inputs and {"url": "", "verbose": False} in inputs
    assert {"verbose: absent", "verbose: present", "verbose: boolean true"} <= _visited(plan)


def test_any_of_branches_null_and_pairs_with_an_enum() -> None:
    schema = _obj(
        {
            "value": {"anyOf": [{"type": "integer"}, {"type": "string"}, {"type": "null"}]},
            "kind": {"enum": ["sq", "tri", "hex", "oct"]},
        },
        ("value", "kind"),
    )
    plan = coverage_plan(schema, 40)
    inputs = _inputs(plan)
    for value in (0, "", None):
        for kind in ("sq", "tri", "hex", "oct"):
            assert {"value": value, "kind": kind} in inputs
    assert plan.report(lambda _: True)["pairs"]["visited"] > 0
    assert {"value: branch anyOf[1]", "value: null"} <= _visited(plan)


def test_pairs_are_trimmed_before_single_corners() -> None:
    schema = _obj({"a": {"enum": list(range(10))}, "b": {"enum": list(range(10, 20))}}, ("a", "b"))
    plan = coverage_plan(schema, 25)
    singles = [item for item in plan.inputs if not item.pair]
    pairs = [item for item in plan.inputs if item.pair]
    assert len(plan.inputs) == 25
    assert len(singles) == 19 and len(pairs) == 6  # every value, then pairs up to the budget
    report = plan.report(lambda _: True)
    assert report["corners"] == {"derived": 20, "visited": 20}
    assert report["pairs"]["possible"] == 81 and report["pairs"]["visited"] == 6
    assert report["not_visited"] == [
        {"corner": "75 pairs", "why": "beyond the coverage budget (raise --mcp-max-examples)"}
    ]


def test_a_small_budget_keeps_enum_values_before_bounds() -> None:
    schema = _obj(
        {"mode": {"enum": ["a", "b", "c"]}, "n": {"type": "integer", "minimum": 1, "maximum": 9}},
        ("mode", "n"),
    )
    plan = coverage_plan(schema, 3)
    assert _inputs(plan) == [{"mode": "a", "n": 1}, {"mode": "b", "n": 1}, {"mode": "c", "n": 1}]
    missed = plan.report(lambda _: True)["not_visited"]
    assert {
        "corner": "n: maximum 9",
        "why": "beyond the coverage budget (raise --mcp-max-examples)",
    } in (missed)


def test_a_budget_of_nothing_plans_nothing() -> None:
    # --mcp-max-examples=1 (or a tool's max_examples = 1) leaves no coverage budget: the
    # plan is empty, and a corner whose input is the simplest one must not look it up.
    schema = _obj({"steps": {"type": "integer", "minimum": 1, "maximum": 4}}, ("steps",))
    budget = coverage_budget(1)
    assert budget == 0
    plan = coverage_plan(schema, budget)
    assert _inputs(plan) == []
    assert plan.corners


SCHEMAS = [
    _obj({"n": {"type": "integer", "minimum": -3, "maximum": 7, "multipleOf": 2}}, ("n",)),
    _obj({"x": {"type": ["string", "null"], "minLength": 1}}),
    _obj(
        {
            "inner": _obj(
                {"k": {"enum": [1, 2]}, "t": {"type": "array", "minItems": 1, "uniqueItems": True}},
                ("k",),
            )
        },
        ("inner",),
    ),
    {
        "type": "object",
        "properties": {"c": {"$ref": "#/$defs/c"}, "f": {"type": "number", "maximum": -0.5}},
        "required": ["c"],
        "$defs": {"c": {"oneOf": [{"const": "x"}, {"type": "integer", "exclusiveMaximum": 0}]}},
    },
    {
        "$schema": "http://json-schema.org/draft-04/schema#",
        "type": "object",
        "properties": {"n": {"type": "number", "minimum": 0, "exclusiveMinimum": True}},
        "required": ["n"],
    },
]


@pytest.mark.parametrize("schema", SCHEMAS)
def test_every_input_is_valid_for_the_original_schema(schema: dict[str, Any]) -> None:
    validator = make_validator(schema)
    plan = coverage_plan(schema, 200)
    assert plan.inputs
    for arguments in _inputs(plan):
        assert validator.is_valid(arguments), arguments


def test_an_input_the_schema_refuses_is_dropped_and_said() -> None:
    # The rewrite does not see `not`: the maximum corner (10) is refused by the original.
    schema = _obj({"n": {"type": "integer", "minimum": 0, "maximum": 10, "not": {"const": 10}}})
    schema["required"] = ["n"]
    plan = coverage_plan(schema, 40)
    assert {"n": 10} not in _inputs(plan)
    missed = plan.report(lambda _: True)["not_visited"]
    assert {
        "corner": "n: maximum 10",
        "why": "the input built for it is refused by the inputSchema: not sent",
    } in missed


def test_a_tool_without_properties_gets_the_empty_input_only() -> None:
    for schema in ({"type": "object", "properties": {}}, {"type": "object"}):
        plan = coverage_plan(schema, 40)
        assert _inputs(plan) == [{}]
        assert "declares no properties" in plan.note


def test_the_report_says_what_a_failure_left_unvisited() -> None:
    schema = _obj({"mode": {"enum": ["a", "b", "c"]}}, ("mode",))
    plan = coverage_plan(schema, 40)
    report = plan.report(lambda arguments: arguments["mode"] != "c")
    assert report["sent"] == 2
    assert report["not_visited"] == [
        {"corner": 'mode: enum "c"', "why": "not reached: the phase stopped at a failure"}
    ]
    assert coverage_line(report) == (
        'input coverage: 2/3 corners, 0/0 pairs, 2 inputs; not visited: mode: enum "c" '
        "(not reached: the phase stopped at a failure)"
    )


def test_a_huge_enum_is_bounded_and_reported() -> None:
    schema = _obj({"color": {"enum": [f"c{i}" for i in range(100_000)]}}, ("color",))
    start = time.perf_counter()
    plan = coverage_plan(schema, 40)
    assert time.perf_counter() - start < 5
    assert len(plan.inputs) == 40
    report = plan.report(lambda _: True)
    assert report["not_visited"][0] == {
        "corner": "color: 99800 more enum values",
        "why": "an enum of 100000 values: a sample of 200 is planned",
    }
    assert report["not_visited_count"] == 1 + 160  # the sample's values beyond the budget


def test_plans_are_deterministic() -> None:
    schema = SCHEMAS[3]
    assert _inputs(coverage_plan(schema, 40)) == _inputs(coverage_plan(schema, 40))


def test_hostile_schemas_raise_generation_errors() -> None:
    loop = {
        "type": "object",
        "properties": {"x": {"$ref": "#/$defs/a"}},
        "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}},
    }
    remote = {"type": "object", "properties": {"x": {"$ref": "https://example.com/s.json"}}}
    for schema in (loop, remote):
        with pytest.raises(GenerationError):
            coverage_plan(schema, 40)


def test_the_budget_splits_max_examples() -> None:
    assert coverage_budget(50) == 40 and random_share(50, 40) == 10 and random_share(50, 3) == 47
    assert coverage_budget(1) == 0 and random_share(1, 0) == 1
    assert random_share(100, 80) == 20


@pytest.mark.parametrize(
    ("pattern", "simplest"),
    [
        ("^A-[0-9]+$", "A-0"),
        ("^[A-Z]{3}-[0-9]{4}$", "AAA-0000"),
        ("^[0-9]{5}(-[0-9]{4})?$", "00000"),
        (r"\d+\w*|x", "0"),
        ("x{2,}", "xx"),
    ],
)
def test_pattern_example_reads_plain_patterns(pattern: str, simplest: str) -> None:
    assert pattern_example(pattern) == simplest


def test_pattern_example_falls_back_to_hypothesis_or_gives_up() -> None:
    import re

    for pattern in ("[^a]x", r"(b)\1", "(?=c)c"):  # negated class, backreference, lookahead
        found = pattern_example(pattern)
        assert found is not None and re.search(pattern, found), pattern
    assert pattern_example(r"^\p{L}+$") is None  # ECMA-262 only: Python cannot read it


def test_a_base_the_schema_refuses_is_replaced_by_the_simplest_input_hypothesis_finds() -> None:
    schema = _obj({"n": {"type": "integer", "not": {"const": 0}}, "m": {"enum": ["x", "y"]}})
    schema["required"] = ["n", "m"]
    plan = coverage_plan(schema, 40)
    assert _inputs(plan) == [
        {"n": 1, "m": "x"},
        {"n": 1, "m": "y"},
        {"n": -1, "m": "x"},
        {"n": 2**31 - 1, "m": "x"},  # n has no maximum: large corners too
        {"n": 2**53, "m": "x"},
    ]


def test_a_no_argument_tool_gets_no_made_up_keys_from_the_random_phase_either() -> None:
    from hypothesis import HealthCheck, given, settings

    from pytest_mcp_contracts.inputs.generate import input_strategy

    drawn: list[dict[str, Any]] = []
    maps: list[dict[str, Any]] = []

    @settings(max_examples=30, database=None, suppress_health_check=list(HealthCheck))
    @given(input_strategy({"type": "object", "properties": {}}))
    def no_arguments(value: dict[str, Any]) -> None:
        drawn.append(value)

    @settings(max_examples=30, database=None, suppress_health_check=list(HealthCheck))
    @given(input_strategy({"type": "object", "additionalProperties": {"type": "integer"}}))
    def a_map(value: dict[str, Any]) -> None:
        maps.append(value)

    no_arguments()
    a_map()
    assert drawn and all(value == {} for value in drawn)
    assert any(value for value in maps)  # a declared map still gets keys


def _corner_values(plan: CoveragePlan, kind: str) -> dict[str, list[Any]]:
    """Each corner of ``kind`` by its label, with the value of its property."""
    found: dict[str, list[Any]] = {}
    for item in plan.inputs:
        for corner in item.corners:
            if corner.kind == kind and not item.pair:
                found.setdefault(str(corner), []).append(item.arguments[corner.top])
    return found


def test_large_corners_where_nothing_bounds_a_number_string_or_array_from_above() -> None:
    schema = _obj(
        {
            "n": {"type": "integer", "minimum": 1},
            "m": {"type": "integer", "multipleOf": 3},
            "x": {"type": "number"},
            "s": {"type": "string", "minLength": 2},
            "a": {"type": "array", "items": {"type": "string"}},
            "u": {"type": "array", "items": {"type": "integer"}, "uniqueItems": True},
        },
        ("n", "m", "x", "s", "a", "u"),
    )
    large = _corner_values(coverage_plan(schema, 100), "large")
    assert large.keys() == {
        "n: large 2147483647",
        "n: large 9007199254740992",
        "m: large 2147483646",  # the multiples of 3 just below
        "m: large 9007199254740990",
        "x: large 1e+300",
        "s: large 65536 characters",
        "a: large 1000 items",
        "u: large 1000 items",
        # the items of an array are corners too, each as the array's one item
        "a[]: large 65536 characters",
        "u[]: large 2147483647",
        "u[]: large 9007199254740992",
    }
    assert large["n: large 2147483647"] == [2**31 - 1]
    assert large["s: large 65536 characters"] == ["a" * 65536]
    assert large["a: large 1000 items"] == [[""] * 1000]
    assert large["u: large 1000 items"] == [list(range(1000))]  # distinct under uniqueItems


def test_no_large_corner_where_the_schema_sets_an_upper_bound_or_a_pattern() -> None:
    schema = _obj(
        {
            "n": {"type": "integer", "maximum": 10},
            "e": {"type": "integer", "exclusiveMaximum": 10},
            "s": {"type": "string", "maxLength": 10},
            "p": {"type": "string", "pattern": "^[a-z]+$"},
            "f": {"type": "string", "format": "date"},
            "a": {"type": "array", "items": {"type": "boolean"}, "maxItems": 3},
            "t": {"type": "array", "prefixItems": [{"type": "boolean"}], "items": False},
        },
        ("n", "e", "s", "p", "f", "a", "t"),
    )
    assert _corner_values(coverage_plan(schema, 200), "large") == {}


def test_large_corners_come_after_enum_values_and_bounds_when_the_budget_is_short() -> None:
    schema = _obj(
        {"mode": {"enum": ["a", "b", "c"]}, "n": {"type": "integer", "minimum": 1}}, ("mode", "n")
    )
    plan = coverage_plan(schema, 4)
    assert _inputs(plan) == [
        {"mode": "a", "n": 1},
        {"mode": "b", "n": 1},
        {"mode": "c", "n": 1},
        {"mode": "a", "n": 2**31 - 1},
    ]
    report = plan.report(lambda arguments: True)
    assert "n: large 2147483647" in report["visited"]
    why = "beyond the coverage budget (raise --mcp-max-examples)"
    assert {"corner": "n: large 9007199254740992", "why": why} in report["not_visited"]
