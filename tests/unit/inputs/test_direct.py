"""The direct (fast) strategies: taken for simple schemas, not for the others, and every
value still valid for the original schema with nothing lost in coverage."""

from __future__ import annotations

import copy
import datetime
import functools
import json
import re
import sys
import uuid
from collections.abc import Mapping
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, Phase, find, given, settings
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument
from hypothesis.strategies import SearchStrategy

from pytest_mcp_contracts.inputs import generate
from pytest_mcp_contracts.inputs.direct import direct_strategy, mixed_strategy, utf8_alphabet
from pytest_mcp_contracts.inputs.generate import input_strategy
from pytest_mcp_contracts.inputs.input_schema import GenerationError, cache_key
from pytest_mcp_contracts.inputs.rewrite import prepare_for_generation
from pytest_mcp_contracts.inputs.tool_arguments import as_tool_arguments, declared_properties_only
from pytest_mcp_contracts.inputs.user_strategies import UserStrategyError

FLAT = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "minLength": 1, "maxLength": 20},
        "count": {"type": "integer", "minimum": 0, "maximum": 10},
        "ratio": {"type": "number"},
        "enabled": {"type": "boolean"},
        "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 3},
    },
    "required": ["name", "count"],
    "additionalProperties": False,
}

ORDER = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {
        "item": {
            "type": "object",
            "properties": {
                "sku": {"type": "string", "pattern": "^[A-Z]{3}-[0-9]{4}$"},
                "qty": {"type": "integer", "minimum": 1},
                "price": {"type": "number", "minimum": 0},
            },
            "required": ["sku", "qty", "price"],
        },
        "address": {
            "type": "object",
            "properties": {
                "postcode": {"type": "string", "pattern": "^[0-9]{5}$"},
                "country": {"enum": ["DE", "FR", "GB", "US", "JP"]},
                "street": {"type": "string", "description": "an annotation"},
            },
            "required": ["postcode", "country"],
        },
    },
    "properties": {
        "order": {
            "type": "object",
            "properties": {
                "customer": {
                    "type": "object",
                    "properties": {
                        "email": {"type": "string", "format": "email"},
                        "name": {"type": "string", "minLength": 1},
                        "id": {"type": "string", "format": "uuid"},
                        "since": {"type": "string", "format": "date-time"},
                    },
                    "required": ["email", "name"],
                },
                "items": {"type": "array", "items": {"$ref": "#/$defs/item"}, "minItems": 1},
                "shipping": {"$ref": "#/$defs/address"},
                "note": {"anyOf": [{"type": "string", "maxLength": 200}, {"type": "null"}]},
            },
            "required": ["customer", "items", "shipping"],
        },
    },
    "required": ["order"],
}

QUICK = settings(max_examples=100, deadline=None, database=None, derandomize=True)


def prepared_for(schema: Mapping[str, Any]) -> dict[str, Any]:
    """The schema as input_strategy hands it to the builders: draft-07, objects closed."""
    prepared = as_tool_arguments(prepare_for_generation(schema))
    declared_properties_only(prepared)
    return prepared


def original_validator(schema: Mapping[str, Any]) -> jsonschema.protocols.Validator:
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def collect(strategy: SearchStrategy[Any], n: int = 100) -> list[Any]:
    seen: list[Any] = []

    @settings(QUICK, max_examples=n, suppress_health_check=[HealthCheck.too_slow])
    @given(strategy)
    def record(value: Any) -> None:
        seen.append(value)

    record()
    assert seen
    return seen


@functools.cache
def order_values() -> tuple[dict[str, Any], ...]:
    """100 inputs for ORDER, drawn once for the tests that read them: drawing ORDER's
    patterns and formats costs some 20 ms an input, and each test drew its own 100."""
    return tuple(collect(input_strategy(ORDER)))


def reach(schema: Mapping[str, Any], condition: Any) -> dict[str, Any]:
    """An input for ``schema`` meeting ``condition``; fails if hypothesis finds none. The first
    one found: whether it can be reached is the question, not its smallest form (shrinking
    it was most of these tests' time)."""
    value = find(
        input_strategy(schema),
        condition,
        settings=settings(
            max_examples=2_000, database=None, derandomize=True, phases=[Phase.generate]
        ),
    )
    assert original_validator(schema).is_valid(value)
    return value


def prop(schema: dict[str, Any], required: bool = True) -> dict[str, Any]:
    """An object schema with one property ``x`` of ``schema``."""
    return {
        "type": "object",
        "properties": {"x": schema},
        "required": ["x"] if required else [],
    }


# --------------------------------------------------------------------------- which path


@pytest.mark.parametrize("schema", [FLAT, ORDER], ids=["flat", "nested"])
def test_simple_schemas_take_the_fast_path(schema: dict[str, Any]) -> None:
    assert direct_strategy(prepared_for(schema)) is not None


def test_the_nested_test_schema_of_test_generate_is_direct_too() -> None:
    from tests.unit.inputs.test_generate import NESTED

    assert direct_strategy(prepared_for(NESTED)) is not None


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "patternProperties": {"^x-": {"type": "string"}}},
        {
            "type": "object",
            "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
            "dependentRequired": {"a": ["b"]},
        },
        {
            "type": "object",
            "allOf": [
                {"properties": {"a": {"type": "integer"}}},
                {"properties": {"b": {"type": "integer"}}},
            ],
        },
        {
            "type": "object",
            "properties": {"k": {"type": "string"}},
            "if": {"properties": {"k": {"const": "a"}}},
            "then": {"required": ["k"]},
        },
        prop({"not": {"type": "string"}}),
        prop({"type": "array", "contains": {"type": "integer"}}),
        prop({"type": "object", "propertyNames": {"maxLength": 3}}),
        prop({"type": "object", "minProperties": 1}),
        prop({"type": "number", "multipleOf": 0.5}),
        prop({"type": "integer", "multipleOf": 0.5}),
        prop({"type": "string", "anyOf": [{"minLength": 2}, {"maxLength": 0}]}),
    ],
    ids=[
        "patternProperties",
        "dependentRequired",
        "allOf-two",
        "if-then",
        "not",
        "contains",
        "propertyNames",
        "minProperties",
        "number-multipleOf",
        "integer-float-multipleOf",
        "anyOf-with-siblings",
    ],
)
def test_unsupported_keywords_fall_back(schema: dict[str, Any]) -> None:
    prepared = prepared_for(schema)
    assert direct_strategy(prepared) is None
    # ...and the values still come, valid, from hypothesis-jsonschema.
    validator = original_validator(schema)
    assert all(validator.is_valid(v) for v in collect(input_strategy(schema), n=30))


def test_only_the_unsupported_sub_schema_falls_back() -> None:
    schema = {
        "type": "object",
        "properties": {
            "odd": {"not": {"type": "string"}},
            "plain": {"type": "integer", "minimum": 3},
            "nested": prop({"type": "object", "patternProperties": {"^a": {"type": "null"}}}),
        },
        "required": ["odd", "plain", "nested"],
    }
    fallen: list[Any] = []

    def fallback(sub: Any) -> SearchStrategy[Any]:
        fallen.append(sub)
        return generate._build(sub, {})

    strategy, count = mixed_strategy(prepared_for(schema), {}, fallback)
    assert count == 2
    assert fallen == [
        {"not": {"type": "string"}},
        {"type": "object", "patternProperties": {"^a": {"type": "null"}}},
    ]
    validator = original_validator(schema)
    assert all(validator.is_valid(v) for v in collect(strategy.filter(validator.is_valid), 30))


def test_input_strategy_does_not_touch_hypothesis_jsonschema_for_simple_schemas(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refuse(*args: object, **kwargs: object) -> SearchStrategy[Any]:
        raise AssertionError("hypothesis-jsonschema was used")

    monkeypatch.setattr(generate, "_build", refuse)
    generate._cached_input_strategy.cache_clear()
    for schema in (FLAT, ORDER):
        collect(input_strategy(schema), n=10)
    generate._cached_input_strategy.cache_clear()


# --------------------------------------------------------------------------- validity


def test_every_nested_value_is_valid_for_the_original_schema() -> None:
    validator = original_validator(ORDER)
    for value in order_values():
        errors = [e.message for e in validator.iter_errors(value)]
        assert not errors, (value, errors)
        for item in value["order"]["items"]:
            assert re.fullmatch(r"[A-Z]{3}-[0-9]{4}", item["sku"])
        customer = value["order"]["customer"]
        assert "@" in customer["email"]
        if "id" in customer:
            uuid.UUID(customer["id"])
        if "since" in customer:
            datetime.datetime.fromisoformat(customer["since"].replace("Z", "+00:00"))
        assert value["order"]["shipping"]["country"] in {"DE", "FR", "GB", "US", "JP"}


@QUICK
@given(input_strategy(FLAT))
def test_every_flat_value_is_valid_for_the_original_schema(value: dict[str, Any]) -> None:
    assert original_validator(FLAT).is_valid(value), value


def test_draft_04_exclusive_bounds_still_work() -> None:
    schema = {
        "$schema": "http://json-schema.org/draft-04/schema#",
        "type": "object",
        "properties": {
            "n": {"type": "number", "minimum": 0, "exclusiveMinimum": True, "maximum": 1}
        },
        "required": ["n"],
    }
    assert all(0 < v["n"] <= 1 for v in collect(input_strategy(schema), n=30))


# --------------------------------------------------------------------------- coverage


def test_optional_properties_are_sometimes_present_and_sometimes_absent() -> None:
    values = order_values()
    for path in (("note",), ("customer", "id"), ("customer", "since"), ("shipping", "street")):
        present = []
        for value in values:
            node = value["order"]
            for key in path[:-1]:
                node = node[key]
            present.append(path[-1] in node)
        assert any(present) and not all(present), path
    assert any(v["order"].get("note") is None and "note" in v["order"] for v in values)
    assert any(len(v["order"]["items"]) > 1 for v in values)


def test_only_declared_properties_are_generated() -> None:
    values = order_values()
    assert all(set(v) == {"order"} for v in values)
    assert all(set(v["order"]["customer"]) <= {"email", "name", "id", "since"} for v in values)


def test_integer_bounds_are_reachable() -> None:
    reach(FLAT, lambda v: v["count"] == 0)
    reach(FLAT, lambda v: v["count"] == 10)
    exclusive = prop({"type": "integer", "exclusiveMinimum": 2, "exclusiveMaximum": 7})
    assert reach(exclusive, lambda v: v["x"] <= 3)["x"] == 3
    assert reach(exclusive, lambda v: v["x"] >= 6)["x"] == 6


def test_number_bounds_are_reachable_and_numbers_include_integers_and_floats() -> None:
    schema = prop({"type": "number", "minimum": 0.5, "maximum": 2.5})
    assert reach(schema, lambda v: v["x"] == 0.5)["x"] == 0.5
    assert reach(schema, lambda v: v["x"] == 2.5)["x"] == 2.5
    values = [v["x"] for v in collect(input_strategy(schema))]
    assert any(isinstance(x, int) for x in values)
    assert any(isinstance(x, float) and not x.is_integer() for x in values)
    exclusive = prop({"type": "number", "exclusiveMinimum": 0, "maximum": 1})
    assert all(0 < v["x"] <= 1 for v in collect(input_strategy(exclusive)))


def test_multiple_of_on_integers() -> None:
    schema = prop({"type": "integer", "multipleOf": 5, "minimum": 3, "maximum": 40})
    assert direct_strategy(prepared_for(schema)) is not None
    values = [v["x"] for v in collect(input_strategy(schema))]
    assert all(x % 5 == 0 and 5 <= x <= 40 for x in values)
    reach(schema, lambda v: v["x"] == 5)
    reach(schema, lambda v: v["x"] == 40)


def test_string_lengths_are_reachable_including_empty_and_maximal() -> None:
    reach(FLAT, lambda v: len(v["name"]) == 1)
    reach(FLAT, lambda v: len(v["name"]) == 20)
    reach(prop({"type": "string"}), lambda v: v["x"] == "")


def test_strings_use_all_of_unicode_including_nul() -> None:
    schema = prop({"type": "string"})
    reach(schema, lambda v: "\x00" in v["x"])
    reach(schema, lambda v: any(ord(c) > 0xFFFF for c in v["x"]))
    for value in collect(input_strategy(schema)):
        value["x"].encode("utf-8")  # no surrogates


def test_arrays_can_be_empty_full_and_unique() -> None:
    reach(FLAT, lambda v: v.get("tags") == [])
    reach(FLAT, lambda v: len(v.get("tags", [])) == 3)
    unique = prop(
        {"type": "array", "items": {"enum": [1, 2, 3, 4]}, "uniqueItems": True, "maxItems": 4}
    )
    values = collect(input_strategy(unique))
    assert all(len(set(v["x"])) == len(v["x"]) for v in values)
    reach(unique, lambda v: len(v["x"]) == 4)


def test_positional_items_may_end_early_and_extra_items_follow() -> None:
    schema = prop({"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}]})
    assert direct_strategy(prepared_for(schema)) is not None
    lengths = {len(v["x"]) for v in collect(input_strategy(schema), n=200)}
    assert {0, 1, 2} <= lengths and max(lengths) > 2
    closed = prop(
        {
            "type": "array",
            "prefixItems": [{"type": "integer"}, {"type": "string"}],
            "items": False,
            "minItems": 1,
        }
    )
    assert {len(v["x"]) for v in collect(input_strategy(closed))} == {1, 2}


def test_patterns_are_searched_not_anchored() -> None:
    schema = prop({"type": "string", "pattern": "ab+c"})
    values = [v["x"] for v in collect(input_strategy(schema))]
    assert all(re.search("ab+c", x) for x in values)
    assert any(not re.fullmatch("ab+c", x) for x in values), "no text around the match"


def test_pattern_with_format_and_length() -> None:
    schema = prop({"type": "string", "format": "email", "pattern": "@", "maxLength": 40})
    for value in collect(input_strategy(schema), n=50):
        assert "@" in value["x"] and len(value["x"]) <= 40
    schema = prop({"type": "string", "pattern": "^[0-9]+$", "minLength": 2, "maxLength": 4})
    for value in collect(input_strategy(schema), n=50):
        assert re.fullmatch("[0-9]{2,4}", value["x"])


def test_free_form_and_typed_maps() -> None:
    free = prop({"type": "object"})
    assert any(v["x"] for v in collect(input_strategy(free)))
    typed = prop({"type": "object", "additionalProperties": {"type": "integer"}})
    values = collect(input_strategy(typed))
    assert any(v["x"] for v in values)
    assert all(isinstance(n, int) for v in values for n in v["x"].values())


def test_declared_plus_typed_extra_properties() -> None:
    schema = prop(
        {
            "type": "object",
            "properties": {"a": {"type": "string"}},
            "required": ["a"],
            "additionalProperties": {"type": "boolean"},
        }
    )
    assert direct_strategy(prepared_for(schema)) is not None
    values = collect(input_strategy(schema))
    assert all(isinstance(v["x"]["a"], str) for v in values)
    assert any(len(v["x"]) > 1 for v in values)


def test_untyped_and_multi_typed_schemas() -> None:
    values = [v["x"] for v in collect(input_strategy(prop({})), n=200)]
    kinds = {type(x).__name__ for x in values}
    assert {"list", "dict"} < kinds, kinds  # any JSON value, mostly containers
    multi = prop({"type": ["integer", "string"], "minimum": 3, "maxLength": 2})
    values = [v["x"] for v in collect(input_strategy(multi))]
    assert all(x >= 3 if isinstance(x, int) else len(x) <= 2 for x in values)
    assert {type(x) for x in values} == {int, str}


def test_one_of_drops_values_matching_several_branches() -> None:
    schema = prop({"oneOf": [{"type": "integer"}, {"type": "number", "minimum": 10}]})
    for value in collect(input_strategy(schema)):
        x = value["x"]
        assert not (isinstance(x, int) and x >= 10)


def test_enum_and_const_values_are_checked_against_the_rest() -> None:
    schema = prop({"type": "string", "enum": ["a", 1, "bb", None], "maxLength": 1})
    assert {v["x"] for v in collect(input_strategy(schema))} == {"a"}
    impossible = prop({"type": "string", "enum": [1, 2]})
    with pytest.raises(GenerationError, match="no value satisfies"):
        input_strategy(impossible)
    const = prop({"const": {"k": [1]}, "not": {"type": "string"}})
    values = collect(input_strategy(const), n=10)
    assert all(v == {"x": {"k": [1]}} for v in values)
    values[0]["x"]["k"].append(2)  # a mutated value does not leak into the next one
    assert collect(input_strategy(const), n=5)[-1] == {"x": {"k": [1]}}


def test_contradictions_are_still_reported() -> None:
    for schema in (
        prop({"type": "string", "minLength": 3, "maxLength": 2}),
        prop({"type": "array", "minItems": 3, "maxItems": 2}),
        prop({"type": "number", "exclusiveMinimum": 1, "exclusiveMaximum": 1}),
    ):
        with pytest.raises(GenerationError, match="no value satisfies") as caught:
            input_strategy(schema)
        assert caught.value.pointer == "#/properties/x"


def test_recursion_cut_short_leaves_optional_members_out() -> None:
    schema = {
        "type": "object",
        "$defs": {
            "node": {
                "type": "object",
                "properties": {
                    "v": {"type": "integer"},
                    "next": {"$ref": "#/$defs/node"},
                    "kids": {"type": "array", "items": {"$ref": "#/$defs/node"}},
                },
                "required": ["v"],
            }
        },
        "properties": {"root": {"$ref": "#/$defs/node"}},
        "required": ["root"],
    }
    assert direct_strategy(prepared_for(schema)) is not None
    values = collect(input_strategy(schema))
    assert any("next" in v["root"] for v in values)
    assert any(v["root"].get("kids") for v in values)


# --------------------------------------------------------------------------- overrides


def test_field_overrides_are_used_and_the_rest_generated() -> None:
    overrides = {"name": st.just("fixed")}
    values = collect(input_strategy(FLAT, overrides), n=30)
    assert all(v["name"] == "fixed" for v in values)
    assert all(0 <= v["count"] <= 10 for v in values)


def test_whole_override_is_used_as_is() -> None:
    values = collect(input_strategy(FLAT, st.just({"name": "n", "count": 1})), n=5)
    assert values == [{"name": "n", "count": 1}] * len(values)


def test_refused_override_names_the_users_value() -> None:
    strategy = input_strategy(FLAT, {"count": st.just(99)})
    with pytest.raises(UserStrategyError, match="99"):
        collect(strategy, n=5)


# --------------------------------------------------------------------------- caching


def test_strategies_are_cached_per_schema_content() -> None:
    first = input_strategy(ORDER)
    assert input_strategy(copy.deepcopy(ORDER)) is first
    assert input_strategy(json.loads(json.dumps(ORDER)), {}) is first
    assert input_strategy(FLAT, {"name": st.just("x")}) is not input_strategy(
        FLAT, {"name": st.just("x")}
    )


def test_a_cached_strategy_ignores_later_changes_to_the_callers_schema() -> None:
    schema = prop({"type": "integer", "minimum": 0, "maximum": 3})
    strategy = input_strategy(schema)
    schema["properties"]["x"]["maximum"] = 1000
    assert all(0 <= v["x"] <= 3 for v in collect(strategy, n=30))
    assert input_strategy(schema) is not strategy


def test_schemas_that_are_not_plain_json_are_not_cached() -> None:
    schema = prop({"type": "integer"}) | {"x-note": (1, 2)}  # a tuple: not JSON
    assert cache_key(schema) is None
    assert input_strategy(schema) is not input_strategy(schema)


def test_the_alphabet_is_every_character_that_utf8_encodes_and_decodes_back() -> None:
    """The alphabet hypothesis-jsonschema would build for codec="utf-8" (which hypothesis
    derives by encoding every code point, 3 s of CPU in a fresh checkout), found here the
    same way, once, without hypothesis."""
    runs: list[tuple[int, int]] = []
    for point in range(sys.maxunicode + 1):
        char = chr(point)
        try:
            ok = char.encode("utf-8").decode("utf-8") == char
        except UnicodeEncodeError:
            ok = False
        if ok and runs and runs[-1][1] == point - 1:
            runs[-1] = (runs[-1][0], point)
        elif ok:
            runs.append((point, point))
    alphabet = utf8_alphabet()
    assert alphabet.intervals.intervals == tuple(runs)
    # What hypothesis-jsonschema asks of its alphabet: names with \x00 allowed, and any
    # character UTF-8 cannot encode refused.
    alphabet.check_name_allowed("a\x00b")
    with pytest.raises(InvalidArgument, match="cannot be encoded as 'utf-8'"):
        alphabet.check_name_allowed("\ud800")
