"""inputs/invalid.py: inputs a tool must refuse, derived from its inputSchema and one valid input.
Every case returned must be refused by the schema's own validator."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

import pytest

from pytest_mcp_contracts.inputs.invalid import (
    EXTRA_PROPERTY,
    InvalidInput,
    invalid_inputs,
)
from pytest_mcp_contracts.schema.budgets import MUTATION_DEPTH
from pytest_mcp_contracts.schema.dialects import make_validator

DRAFT7 = "http://json-schema.org/draft-07/schema#"
DRAFT4 = "http://json-schema.org/draft-04/schema#"

ORDER: dict[str, Any] = {
    "type": "object",
    "required": ["sku", "quantity"],
    "additionalProperties": False,
    "properties": {
        "sku": {"type": "string", "minLength": 3, "maxLength": 10},
        "quantity": {"type": "integer", "minimum": 1, "maximum": 99},
        "colour": {"type": "string", "enum": ["red", "green"]},
        "gift": {"type": "boolean"},
        "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 3},
        "address": {
            "type": "object",
            "required": ["city"],
            "additionalProperties": False,
            "properties": {"city": {"type": "string", "minLength": 1}, "zip": {"type": "string"}},
        },
    },
}
ORDER_VALID: dict[str, Any] = {
    "sku": "ABCD",
    "quantity": 3,
    "colour": "red",
    "gift": False,
    "tags": ["a"],
    "address": {"city": "Oslo"},
}


def cases(
    schema: Mapping[str, Any], valid: Mapping[str, Any], *, limit: int = 100
) -> list[InvalidInput]:
    """invalid_inputs, with every case checked: invalid for the original schema, a JSON
    object, and no two alike."""
    found = invalid_inputs(schema, valid, limit=limit)
    validator = make_validator(schema)
    for case in found:
        assert isinstance(case.arguments, dict)
        assert not validator.is_valid(case.arguments), case
    keys = [repr(sorted(c.arguments.items(), key=lambda kv: kv[0])) for c in found]
    assert len(keys) == len(set(keys)), found
    # Look-alikes come after the structural cases, outside the limit (tested on their own).
    lax = [c.lax for c in found]
    assert lax == sorted(lax), found
    return [c for c in found if not c.lax]


def whys(found: list[InvalidInput]) -> list[str]:
    return [c.why for c in found]


def one(found: list[InvalidInput], why: str) -> InvalidInput:
    matching = [c for c in found if c.why == why]
    assert len(matching) == 1, (why, whys(found))
    return matching[0]


def obj(**properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties}


# -- kind 1: missing required -----------------------------------------------------------------


def test_each_required_property_removed_once() -> None:
    found = cases(ORDER, ORDER_VALID)
    sku = one(found, "required property 'sku' is missing")
    assert sku.path == "sku"
    assert "sku" not in sku.arguments
    assert sku.arguments["quantity"] == 3
    quantity = one(found, "required property 'quantity' is missing")
    assert "quantity" not in quantity.arguments
    # Optional properties are never "missing".
    assert not [w for w in whys(found) if "'colour' is missing" in w]


# -- kind 2: wrong types ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("declared", "value", "wrong", "sent"),
    [
        ("integer", 3, "not a number", "string"),
        ("number", 2.5, "not a number", "string"),
        ("string", "s", 12345, "integer"),
        ("boolean", True, "not a boolean", "string"),
        ("array", [1], "not a list", "string"),
        ("object", {}, "not an object", "string"),
    ],
)
def test_wrong_type_per_declared_type(declared: str, value: Any, wrong: Any, sent: str) -> None:
    found = cases(obj(p={"type": declared}), {"p": value})
    case = one(found, f"'p' has the wrong type ({sent}, the schema wants {declared})")
    assert case.arguments == {"p": wrong}
    assert case.path == "p"


def test_wrong_type_for_a_type_union_is_outside_every_member() -> None:
    found = cases(obj(p={"type": ["integer", "string"]}), {"p": 1})
    case = one(found, "'p' has the wrong type (boolean, the schema wants string or integer)")
    assert case.arguments == {"p": True}


def test_wrong_type_for_number_is_never_an_integer() -> None:
    found = cases(obj(p={"type": ["number", "string"]}), {"p": 1.5})
    case = one(found, "'p' has the wrong type (boolean, the schema wants string or number)")
    assert case.arguments == {"p": True}


def test_property_without_type_gets_no_wrong_type_case() -> None:
    found = cases(obj(p={"minimum": 3}, q={"type": "integer"}), {"p": 5, "q": 1})
    assert [c.path for c in found if "wrong type" in c.why] == ["q"]


def test_absent_properties_are_not_mutated() -> None:
    """Kinds 2 and 3 touch only properties present in the valid input."""
    schema = obj(p={"type": "integer", "minimum": 1}, q={"type": "string", "maxLength": 2})
    found = cases(schema, {"p": 4})
    assert found
    assert {c.path for c in found} == {"p"}
    assert all("q" not in c.arguments for c in found)


# -- kind 3: constraints ----------------------------------------------------------------------


def test_numeric_bounds() -> None:
    schema = obj(
        lo={"type": "integer", "minimum": 1},
        hi={"type": "integer", "maximum": 99},
        xlo={"type": "number", "exclusiveMinimum": 0},
        xhi={"type": "number", "exclusiveMaximum": 2.5},
    )
    found = cases(schema, {"lo": 3, "hi": 3, "xlo": 1, "xhi": 1})
    assert one(found, "'lo' is 0, below minimum 1").arguments["lo"] == 0
    assert one(found, "'hi' is 100, above maximum 99").arguments["hi"] == 100
    assert one(found, "'xlo' is 0, not above exclusiveMinimum 0").arguments["xlo"] == 0
    assert one(found, "'xhi' is 2.5, not below exclusiveMaximum 2.5").arguments["xhi"] == 2.5


def test_integer_bound_that_is_a_fraction_gives_an_integer() -> None:
    found = cases(obj(n={"type": "integer", "minimum": 0.5, "maximum": 9.5}), {"n": 3})
    assert one(found, "'n' is 0, below minimum 0.5").arguments["n"] == 0
    assert one(found, "'n' is 10, above maximum 9.5").arguments["n"] == 10


def test_draft07_numeric_exclusive_minimum() -> None:
    schema = {"$schema": DRAFT7, **obj(n={"type": "integer", "exclusiveMinimum": 5})}
    found = cases(schema, {"n": 6})
    assert one(found, "'n' is 5, not above exclusiveMinimum 5").arguments == {"n": 5}


def test_draft04_boolean_exclusive_minimum_uses_the_boundary() -> None:
    schema = {
        "$schema": DRAFT4,
        **obj(n={"type": "integer", "minimum": 5, "exclusiveMinimum": True}),
    }
    found = cases(schema, {"n": 6})
    case = one(found, "'n' is 5, not above minimum 5 (exclusiveMinimum is true)")
    assert case.arguments == {"n": 5}


def test_lengths_and_sizes() -> None:
    schema = obj(
        name={"type": "string", "minLength": 2, "maxLength": 10},
        tags={"type": "array", "minItems": 2, "maxItems": 3, "uniqueItems": True},
    )
    found = cases(schema, {"name": "abc", "tags": ["a", "b"]})
    assert one(found, "'name' is shorter than minLength 2").arguments["name"] == "x"
    assert len(one(found, "'name' is longer than maxLength 10").arguments["name"]) == 11
    assert one(found, "'tags' has fewer items than minItems 2").arguments["tags"] == ["a"]
    assert len(one(found, "'tags' has more items than maxItems 3").arguments["tags"]) == 4
    duplicate = one(found, "'tags' has duplicate items where uniqueItems is true")
    assert duplicate.arguments["tags"] == ["a", "b", "a"]


def test_enum_const_pattern_multiple_of() -> None:
    schema = obj(
        colour={"type": "string", "enum": ["red", "green", "zz-not-in-enum"]},
        size={"enum": [1, 2, 3]},
        kind={"const": "book"},
        code={"type": "string", "pattern": "^[A-Z]{3}$"},
        pack={"type": "integer", "multipleOf": 6},
    )
    valid = {"colour": "red", "size": 2, "kind": "book", "code": "ABC", "pack": 12}
    found = cases(schema, valid)
    colour = one(found, "'colour' is 'zz-not-in-enum-2', not one of the enum values")
    assert colour.arguments["colour"] == "zz-not-in-enum-2"
    assert one(found, "'size' is 4, not one of the enum values").arguments["size"] == 4
    assert one(found, "'kind' is 'book-not-the-const', not the const value 'book'")
    code = [c for c in found if c.path == "code" and "does not match pattern" in c.why]
    assert len(code) == 1
    assert one(found, "'pack' is 7, not a multiple of 6").arguments["pack"] == 7


def test_constraints_take_turns_across_properties() -> None:
    schema = obj(
        a={"minimum": 1, "maximum": 5, "multipleOf": 2},
        b={"minLength": 2, "maxLength": 3},
    )
    found = cases(schema, {"a": 2, "b": "ab"}, limit=2)
    assert [c.path for c in found] == ["a", "b"]


# -- kind 4: extra property -------------------------------------------------------------------


def test_extra_property_only_where_additional_properties_is_false() -> None:
    closed = {**obj(n={"type": "integer"}), "additionalProperties": False}
    case = one(
        cases(closed, {"n": 1}),
        f"extra property '{EXTRA_PROPERTY}' where additionalProperties is false",
    )
    assert case.arguments == {"n": 1, EXTRA_PROPERTY: "x"}
    assert case.path == ""
    open_ = obj(n={"type": "integer"})
    assert not [c for c in cases(open_, {"n": 1}) if EXTRA_PROPERTY in c.arguments]
    schema_valued = {**obj(n={"type": "integer"}), "additionalProperties": {"type": "string"}}
    assert not [c for c in cases(schema_valued, {"n": 1}) if EXTRA_PROPERTY in c.arguments]


def test_no_extra_property_when_pattern_properties_match_it() -> None:
    schema = {
        **obj(n={"type": "integer"}),
        "additionalProperties": False,
        "patternProperties": {"^__": {}},
    }
    assert not [c for c in cases(schema, {"n": 1}) if EXTRA_PROPERTY in c.arguments]


def test_unevaluated_properties_false_in_2020_12_but_not_draft07() -> None:
    schema = {**obj(n={"type": "integer"}), "unevaluatedProperties": False}
    case = one(
        cases(schema, {"n": 1}),
        f"extra property '{EXTRA_PROPERTY}' where unevaluatedProperties is false",
    )
    assert case.arguments[EXTRA_PROPERTY] == "x"
    # Draft-07 does not know the keyword: an extra property is valid there.
    legacy = {"$schema": DRAFT7, **schema}
    assert not [c for c in cases(legacy, {"n": 1}) if EXTRA_PROPERTY in c.arguments]


# -- nesting and $ref -------------------------------------------------------------------------


def test_nested_objects_get_dotted_paths_after_top_level_cases() -> None:
    found = cases(ORDER, ORDER_VALID)
    city = one(found, "required property 'address.city' is missing")
    assert city.path == "address.city"
    assert city.arguments["address"] == {}
    assert one(found, "'address.city' is shorter than minLength 1").arguments["address"] == {
        "city": ""
    }
    nested_extra = one(
        found,
        f"extra property '{EXTRA_PROPERTY}' in 'address' where additionalProperties is false",
    )
    assert nested_extra.path == "address"
    assert nested_extra.arguments["address"] == {"city": "Oslo", EXTRA_PROPERTY: "x"}
    # Within each kind, top-level fields come first.
    for kind in ("is missing", "wrong type", "extra property"):
        depths = [c.path.count(".") for c in found if kind in c.why]
        assert depths == sorted(depths), kind


def test_kinds_come_in_order() -> None:
    found = cases(ORDER, ORDER_VALID)

    def kind(case: InvalidInput) -> int:
        if case.why.startswith("required property"):
            return 0
        if "wrong type" in case.why:
            return 1
        if case.why.startswith("extra property"):
            return 3
        return 2

    kinds = [kind(c) for c in found]
    assert kinds == sorted(kinds)
    assert set(kinds) == {0, 1, 2, 3}


@pytest.mark.parametrize(
    ("dialect", "where"), [(None, "$defs"), (DRAFT7, "definitions")], ids=["2020-12", "draft-07"]
)
def test_ref_property_is_resolved(dialect: str | None, where: str) -> None:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "quantity": {"$ref": f"#/{where}/count"},
            "address": {"$ref": f"#/{where}/address"},
        },
        where: {
            "count": {"type": "integer", "minimum": 1},
            "address": {
                "type": "object",
                "required": ["city"],
                "properties": {"city": {"$ref": f"#/{where}/name"}},
            },
            "name": {"type": "string", "maxLength": 4},
        },
    }
    if dialect:
        schema["$schema"] = dialect
    found = cases(schema, {"quantity": 2, "address": {"city": "Oslo"}})
    assert one(found, "'quantity' is 0, below minimum 1")
    assert one(found, "'quantity' has the wrong type (string, the schema wants integer)")
    assert one(found, "required property 'address.city' is missing")
    assert one(found, "'address.city' is longer than maxLength 4")


def test_ref_siblings_count_from_2019_09_only() -> None:
    """Before 2019-09 a $ref hides its siblings: a sibling bound is not a constraint."""
    schema = {
        "type": "object",
        "properties": {"n": {"$ref": "#/definitions/n", "maximum": 5}},
        "definitions": {"n": {"type": "integer"}},
    }
    assert one(cases(schema, {"n": 1}), "'n' is 6, above maximum 5")
    legacy = {"$schema": DRAFT7, **schema}
    assert not [c for c in cases(legacy, {"n": 1}) if "maximum" in c.why]


def test_ref_loops_and_remote_refs_are_harmless() -> None:
    schema = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "n": {"type": "integer"},
            "loop": {"$ref": "#/$defs/a"},
            "remote": {"$ref": "https://example.invalid/schema.json"},
        },
        "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}},
    }
    found = cases(schema, {"n": 1})
    assert one(found, "'n' has the wrong type (string, the schema wants integer)")
    assert {c.path for c in found} == {"n", ""}


def test_recursive_schema_stops_at_the_depth_cap() -> None:
    schema = {
        "$ref": "#/$defs/node",
        "$defs": {
            "node": {
                "type": "object",
                "required": ["label"],
                "properties": {"label": {"type": "string"}, "child": {"$ref": "#/$defs/node"}},
            }
        },
    }
    valid: dict[str, Any] = {"label": "leaf"}
    for _ in range(20):
        valid = {"label": "x", "child": valid}
    found = cases(schema, valid, limit=1000)
    assert found
    depths = {c.path.count(".") for c in found}
    assert max(depths) == MUTATION_DEPTH  # "child" x MUTATION_DEPTH, then "label"


# -- limits and spreading ---------------------------------------------------------------------


def test_limit_spreads_across_kinds() -> None:
    properties = {f"p{i}": {"type": "integer", "minimum": 0} for i in range(30)}
    schema = {
        "type": "object",
        "required": list(properties),
        "additionalProperties": False,
        "properties": properties,
    }
    valid = {name: 1 for name in properties}
    found = cases(schema, valid, limit=6)
    assert len(found) == 6
    assert [c.why for c in found] == [
        "required property 'p0' is missing",
        "required property 'p1' is missing",
        "'p0' has the wrong type (string, the schema wants integer)",
        "'p1' has the wrong type (string, the schema wants integer)",
        "'p0' is -1, below minimum 0",
        f"extra property '{EXTRA_PROPERTY}' where additionalProperties is false",
    ]
    assert len(cases(schema, valid, limit=1000)) == 30 + 30 + 30 + 1
    assert invalid_inputs(schema, valid, limit=0) == []


def test_default_limit_is_twelve() -> None:
    assert len([c for c in invalid_inputs(ORDER, ORDER_VALID) if not c.lax]) == 12


def test_look_alikes_are_the_valid_value_as_a_string_and_marked_lax() -> None:
    schema = obj(
        flag={"type": "boolean"},
        count={"type": "integer"},
        ratio={"type": "number"},
        name={"type": "string"},
        either={"type": ["integer", "string"]},
    )
    valid = {"flag": True, "count": 3, "ratio": 2.5, "name": "x", "either": 1}
    found = [c for c in invalid_inputs(schema, valid) if c.lax]
    assert [c.arguments for c in found] == [
        {**valid, "flag": "true"},
        {**valid, "count": "3"},
        {**valid, "ratio": "2.5"},
    ]
    assert found[0].why == "'flag' is the string 'true', a look-alike of boolean"
    # The structural wrong-type case for a boolean is no look-alike any more.
    wrong = one(
        cases(schema, valid), "'flag' has the wrong type (string, the schema wants boolean)"
    )
    assert wrong.arguments["flag"] == "not a boolean" and not wrong.lax


def test_identical_cases_are_kept_once() -> None:
    schema = {
        "allOf": [{"properties": {"n": {"minimum": 1}}}],
        "properties": {"n": {"type": "integer", "minimum": 1}},
    }
    found = cases(schema, {"n": 2})
    assert len([c for c in found if c.arguments == {"n": 0}]) == 1


# -- safety -----------------------------------------------------------------------------------


def test_every_case_is_invalid_and_the_valid_input_is_untouched() -> None:
    valid = copy.deepcopy(ORDER_VALID)
    found = cases(ORDER, valid, limit=1000)
    assert len(found) > 12
    assert valid == ORDER_VALID
    for case in found:
        case.arguments["address"] = "changed"  # cases share nothing with the valid input
    assert valid == ORDER_VALID
    validator = make_validator(ORDER)
    assert validator.is_valid(valid)
    assert not any(validator.is_valid(c.arguments) for c in found)


def test_schema_without_properties_gives_nothing() -> None:
    assert invalid_inputs({"type": "object"}, {}) == []
    assert invalid_inputs({}, {}) == []


@pytest.mark.parametrize(
    "schema",
    [
        obj(n={"type": "integr"}),
        obj(n={"minimum": "one"}),
        obj(n={"type": "string", "pattern": "("}),
        {"$schema": "https://example.com/my-dialect", **obj(n={"type": "integer"})},
        {"$schema": DRAFT7, **obj(n={"type": "integer", "exclusiveMinimum": True})},
    ],
    ids=["bad-type", "bad-minimum", "bad-pattern", "unknown-dialect", "draft04-style-in-07"],
)
def test_invalid_schema_gives_nothing(schema: dict[str, Any]) -> None:
    assert invalid_inputs(schema, {"n": 1}) == []


def test_an_input_that_is_not_valid_gives_nothing() -> None:
    """Without a valid starting point, no case could be blamed on its mutation."""
    assert invalid_inputs(ORDER, {"sku": "ABCD"}) == []


def test_huge_enum_is_handled_in_linear_time() -> None:
    values = [f"v{i}" for i in range(100_000)]
    schema = obj(c={"type": "string", "enum": [*values, "zz-not-in-enum"]})
    found = cases(schema, {"c": "v5"})
    case = one(found, "'c' is 'zz-not-in-enum-2', not one of the enum values")
    assert case.arguments == {"c": "zz-not-in-enum-2"}


def test_very_deep_schema_returns() -> None:
    schema: dict[str, Any] = {"type": "object", "additionalProperties": False}
    node = schema
    for _ in range(10_000):
        child: dict[str, Any] = {"type": "object", "additionalProperties": False}
        node["properties"] = {"a": child}
        node = child
    schema["required"] = ["a"]
    valid: dict[str, Any] = {}
    for _ in range(30):
        valid = {"a": valid}
    valid_copy = copy.deepcopy(valid)
    found = invalid_inputs(schema, valid, limit=1000)
    assert one(found, "required property 'a' is missing").arguments == {}
    assert max(c.path.count(".") for c in found) == MUTATION_DEPTH
    assert valid == valid_copy


def test_a_ref_by_anchor_or_relative_to_an_id_is_followed() -> None:
    item = {"type": "object", "properties": {"n": {"type": "integer", "maximum": 5}}}
    for ref, defs in [
        ("#item", {"item": {**item, "$anchor": "item"}}),
        ("item.json", {"item": {**item, "$id": "item.json"}}),
    ]:
        schema = {"$id": "https://example.com/root.json", "$ref": ref, "$defs": defs}
        assert one(cases(schema, {"n": 1}), "'n' is 6, above maximum 5"), ref
