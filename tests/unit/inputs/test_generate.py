"""Input generation: every generated value is valid for the ORIGINAL schema, the
interesting shapes actually occur, and hostile schemas end in a GenerationError."""

from __future__ import annotations

import copy
import os
import re
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis.strategies import SearchStrategy

from pytest_mcp_contracts.inputs import hypothesis_compat
from pytest_mcp_contracts.inputs.generate import input_strategy
from pytest_mcp_contracts.inputs.input_schema import GenerationError, input_dialect
from pytest_mcp_contracts.inputs.rewrite import prepare_for_generation
from pytest_mcp_contracts.inputs.unsatisfiable import explain_unsatisfiable

ISO_DURATION = re.compile(r"^P(?!$)(\d+Y)?(\d+M)?(\d+W)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+S)?)?$")


def collect(strategy: SearchStrategy[Any], n: int = 50) -> list[Any]:
    """Values hypothesis draws from ``strategy`` during a short, deterministic run."""
    seen: list[Any] = []

    @settings(
        max_examples=n,
        deadline=None,
        database=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow],
    )
    @given(strategy)
    def record(value: Any) -> None:
        seen.append(value)

    record()
    assert seen, "no value was generated"
    return seen


def generate(schema: Mapping[str, Any], n: int = 50) -> list[dict[str, Any]]:
    """Generated inputs, each checked against the original schema in its own dialect."""
    values = collect(input_strategy(schema), n)
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    validator = cls(schema, format_checker=cls.FORMAT_CHECKER)
    for value in values:
        assert isinstance(value, dict)
        errors = [e.message for e in validator.iter_errors(value)]
        assert not errors, (value, errors)
    return values


# --------------------------------------------------------------------------- the compat shim


def test_shim_lets_hypothesis_jsonschema_generate_objects() -> None:
    from hypothesis_jsonschema import from_schema

    hypothesis_compat.install()
    hypothesis_compat.install()  # idempotent
    schema = {
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "string"}},
        "required": ["a"],
        # dependencies make from_object_schema call elements.reject(), the other half
        # of the old protocol
        "dependencies": {"b": {"properties": {"a": {"minimum": 0}}}},
    }
    values = collect(from_schema(schema), n=50)
    assert all(isinstance(v, dict) and "a" in v for v in values)
    assert any("b" in v for v in values)


def test_shim_leaves_an_old_style_many_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    from hypothesis.internal.conjecture import utils
    from hypothesis_jsonschema import _from_schema

    class OldMany:
        def more(self) -> bool:
            return False

    monkeypatch.setattr(utils, "many", OldMany)
    monkeypatch.setitem(vars(_from_schema), "cu", utils)
    hypothesis_compat.install()
    assert vars(_from_schema)["cu"] is utils


def test_the_plugins_own_modules_are_not_local_constants_and_a_users_still_are(
    tmp_path: Path,
) -> None:
    from hypothesis.internal.conjecture import providers

    import pytest_mcp_contracts.runs.contract as own

    hypothesis_compat.install()
    hypothesis_compat.install()  # idempotent: one wrapper, not two
    is_local = vars(providers)["is_local_module_file"]
    assert not is_local(own.__file__)
    assert is_local.leaves_out == str(Path(own.__file__).parents[1]) + os.sep
    users = tmp_path / "my_server" / "app.py"  # what hypothesis calls local: outside
    users.parent.mkdir()  # site-packages and the standard library, not a test file
    users.write_text("MAGIC = 'open-sesame'\n")
    assert is_local(str(users))
    # The standard library and site-packages, told by their folders without resolving.
    import json

    import hypothesis

    assert not is_local(json.__file__) and not is_local(hypothesis.__file__)


# --------------------------------------------------------------------------- dialects


@pytest.mark.parametrize(
    ("declared", "dialect"),
    [
        (None, "2020-12"),
        ("https://json-schema.org/draft/2020-12/schema", "2020-12"),
        ("https://json-schema.org/draft/2019-09/schema#", "2019-09"),
        ("http://json-schema.org/draft-07/schema#", "draft-07"),
        ("https://json-schema.org/draft-07/schema", "draft-07"),
        ("http://json-schema.org/draft-06/schema#", "draft-06"),
        ("http://json-schema.org/draft-04/schema#", "draft-04"),
    ],
)
def test_dialect_of(declared: str | None, dialect: str) -> None:
    schema = {} if declared is None else {"$schema": declared}
    assert input_dialect(schema) == dialect


@pytest.mark.parametrize(
    "declared", ["http://example.com/my-dialect", "http://json-schema.org/draft-03/schema#", 7]
)
def test_unknown_dialect_is_refused_by_name(declared: object) -> None:
    with pytest.raises(GenerationError) as caught:
        input_dialect({"$schema": declared})
    assert repr(declared) in str(caught.value)
    assert caught.value.pointer == "#/$schema"
    with pytest.raises(GenerationError):
        input_strategy({"$schema": declared, "type": "object"})


# --------------------------------------------------------------------------- plain schemas


def test_flat_five_properties() -> None:
    schema = {
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
    values = generate(schema, n=100)
    assert any(set(v) == set(schema["properties"]) for v in values)


NESTED = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {
        "contact": {
            "type": "object",
            "properties": {
                "email": {"type": "string", "format": "email"},
                "site": {"type": "string", "format": "uri"},
            },
            "required": ["email", "site"],
        },
        "line": {
            "type": "object",
            "properties": {
                "sku": {"type": "string", "pattern": "^[A-Z]{3}-[0-9]{4}$"},
                "qty": {"type": "integer", "minimum": 1, "maximum": 99},
                "id": {"type": "string", "format": "uuid"},
            },
            "required": ["sku", "qty", "id"],
            "additionalProperties": False,
        },
    },
    "properties": {
        "order": {
            "type": "object",
            "properties": {
                "placed": {"type": "string", "format": "date-time"},
                "customer": {"$ref": "#/$defs/contact"},
                "lines": {
                    "type": "array",
                    "items": {"$ref": "#/$defs/line"},
                    "minItems": 1,
                    "maxItems": 4,
                },
            },
            "required": ["placed", "customer", "lines"],
            "additionalProperties": False,
        },
    },
    "required": ["order"],
}


def test_nested_2020_12_with_defs_arrays_patterns_and_formats() -> None:
    values = generate(NESTED, n=30)
    for value in values:
        order = value["order"]
        assert "@" in order["customer"]["email"]
        for line in order["lines"]:
            assert re.fullmatch(r"[A-Z]{3}-[0-9]{4}", line["sku"])
            uuid.UUID(line["id"])


def test_if_then_else() -> None:
    schema = {
        "type": "object",
        "properties": {"kind": {"enum": ["a", "b"]}, "n": {"type": "integer"}},
        "required": ["kind"],
        "if": {"properties": {"kind": {"const": "a"}}},
        "then": {"required": ["n"]},
        "else": {"not": {"required": ["n"]}},
    }
    values = generate(schema)
    assert all(("n" in v) == (v["kind"] == "a") for v in values)
    assert {v["kind"] for v in values} == {"a", "b"}


def test_any_of_with_null() -> None:
    schema = {
        "type": "object",
        "properties": {"when": {"anyOf": [{"type": "string", "format": "date"}, {"type": "null"}]}},
        "required": ["when"],
    }
    values = generate(schema)
    assert any(v["when"] is None for v in values)
    assert any(isinstance(v["when"], str) for v in values)


def test_formats_hypothesis_jsonschema_lacks_are_generated() -> None:
    schema = {
        "type": "object",
        "properties": {
            "id": {"type": "string", "format": "uuid"},
            "wait": {"type": "string", "format": "duration"},
            "phone": {"type": "string", "format": "phone"},  # unknown: an annotation only
        },
        "required": ["id", "wait", "phone"],
    }
    for value in generate(schema):
        uuid.UUID(value["id"])
        assert ISO_DURATION.match(value["wait"]), value["wait"]
        assert isinstance(value["phone"], str)


def test_big_enum_just_works() -> None:
    schema = {
        "type": "object",
        "properties": {"pick": {"enum": list(range(100_000))}},
        "required": ["pick"],
    }
    values = generate(schema, n=10)
    assert all(0 <= v["pick"] < 100_000 for v in values)


def test_min_length_5000_works() -> None:
    schema = {
        "type": "object",
        "properties": {"blob": {"type": "string", "minLength": 5000, "maxLength": 6000}},
        "required": ["blob"],
    }
    values = generate(schema, n=10)
    assert all(5000 <= len(v["blob"]) <= 6000 for v in values)


# ------------------------------------------------------------------ 2019-09/2020-12 keywords


def test_prefix_items_closed() -> None:
    schema = {
        "type": "object",
        "properties": {
            "pair": {
                "type": "array",
                "prefixItems": [{"type": "integer"}, {"type": "string"}],
                "items": False,
            }
        },
        "required": ["pair"],
    }
    values = generate(schema)
    assert all(len(v["pair"]) <= 2 for v in values)
    assert any(len(v["pair"]) == 2 for v in values)
    for v in values:
        if v["pair"]:
            assert isinstance(v["pair"][0], int)
        if len(v["pair"]) == 2:
            assert isinstance(v["pair"][1], str)


def test_prefix_items_open() -> None:
    schema = {
        "type": "object",
        "properties": {
            "row": {
                "type": "array",
                "prefixItems": [{"type": "string"}, {"type": "boolean"}],
                "minItems": 2,
            }
        },
        "required": ["row"],
    }
    values = generate(schema)
    assert all(isinstance(v["row"][0], str) and isinstance(v["row"][1], bool) for v in values)


def test_dependent_required() -> None:
    schema = {
        "type": "object",
        "properties": {"card": {"type": "string"}, "cvv": {"type": "string"}},
        "dependentRequired": {"card": ["cvv"]},
    }
    values = generate(schema)
    assert all("cvv" in v for v in values if "card" in v)
    assert any("card" in v for v in values)


def test_dependent_schemas() -> None:
    schema = {
        "type": "object",
        "properties": {"unit": {"enum": ["kg", "lb"]}, "weight": {"type": "number"}},
        "dependentSchemas": {"unit": {"required": ["weight"]}},
    }
    values = generate(schema)
    assert all("weight" in v for v in values if "unit" in v)
    assert any("unit" in v for v in values)


def test_unevaluated_properties_false() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"type": "string"}},
        "unevaluatedProperties": False,
    }
    values = generate(schema)
    assert all(set(v) <= {"a"} for v in values)
    assert any("a" in v for v in values)


def test_unevaluated_properties_false_with_all_of() -> None:
    schema = {
        "type": "object",
        "allOf": [{"properties": {"id": {"type": "integer"}}, "required": ["id"]}],
        "properties": {"label": {"type": "string"}},
        "unevaluatedProperties": False,
    }
    values = generate(schema)
    assert all(set(v) <= {"id", "label"} for v in values)
    assert any(set(v) == {"id", "label"} for v in values)


def test_recursive_tree_via_defs() -> None:
    schema = {
        "type": "object",
        "$defs": {
            "node": {
                "type": "object",
                "properties": {
                    "value": {"type": "integer"},
                    "children": {"type": "array", "items": {"$ref": "#/$defs/node"}},
                },
                "required": ["value"],
                "additionalProperties": False,
            }
        },
        "properties": {"tree": {"$ref": "#/$defs/node"}},
        "required": ["tree"],
    }
    values = generate(schema)
    assert any(v["tree"].get("children") for v in values), "recursion never went one level down"


@pytest.mark.parametrize(
    ("dialect", "anchor", "ref"),
    [
        (
            "https://json-schema.org/draft/2019-09/schema",
            {"$recursiveAnchor": True},
            {"$recursiveRef": "#"},
        ),
        (
            "https://json-schema.org/draft/2020-12/schema",
            {"$dynamicAnchor": "node"},
            {"$dynamicRef": "#node"},
        ),
    ],
    ids=["recursiveRef", "dynamicRef"],
)
def test_dynamic_references_act_as_refs(
    dialect: str, anchor: dict[str, Any], ref: dict[str, Any]
) -> None:
    schema = {
        "$schema": dialect,
        **anchor,
        "type": "object",
        "properties": {
            "v": {"type": "integer"},
            "kids": {"type": "array", "items": ref, "maxItems": 2},
        },
        "required": ["v"],
        "additionalProperties": False,
    }
    assert any(v.get("kids") for v in generate(schema, n=30))


def test_anchor() -> None:
    schema = {
        "type": "object",
        "$defs": {"port": {"$anchor": "port", "type": "integer", "minimum": 1, "maximum": 65535}},
        "properties": {"port": {"$ref": "#port"}},
        "required": ["port"],
    }
    assert all(1 <= v["port"] <= 65535 for v in generate(schema))


def test_draft_07_definitions() -> None:
    schema = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "definitions": {"mail": {"type": "string", "format": "email"}},
        "properties": {"to": {"type": "array", "items": {"$ref": "#/definitions/mail"}}},
        "required": ["to"],
    }
    values = generate(schema)
    assert any(v["to"] for v in values)


def test_ref_to_own_id_is_local() -> None:
    schema = {
        "$id": "https://example.com/tools/search.json",
        "type": "object",
        "$defs": {"q": {"type": "string", "minLength": 1}},
        "properties": {"q": {"$ref": "https://example.com/tools/search.json#/$defs/q"}},
        "required": ["q"],
    }
    assert all(v["q"] for v in generate(schema, n=10))


# --------------------------------------------------------------------------- hostile schemas


def test_remote_ref_is_refused_by_uri() -> None:
    schema = {"type": "object", "properties": {"x": {"$ref": "https://example.com/x.json"}}}
    with pytest.raises(GenerationError, match=re.escape("https://example.com/x.json")) as caught:
        input_strategy(schema)
    assert caught.value.pointer == "#/properties/x/$ref"
    assert "https://example.com/x.json" in explain_unsatisfiable(schema)


@pytest.mark.parametrize(
    "schema",
    [
        {"$ref": "#"},
        {"type": "object", "allOf": [{"$ref": "#"}]},
        {
            "type": "object",
            "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}},
            "properties": {"x": {"$ref": "#/$defs/a"}},
        },
    ],
    ids=["self", "all-of-self", "a-b-a"],
)
def test_ref_loops_end_in_generation_error(schema: dict[str, Any]) -> None:
    with pytest.raises(GenerationError, match="loop"):
        input_strategy(schema)


def test_10000_levels_deep_fails_fast() -> None:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(10_000):
        schema = {"type": "object", "properties": {"a": schema}}
    with pytest.raises(GenerationError, match="deeper than 64 levels"):
        input_strategy(schema)


@pytest.mark.parametrize(
    ("schema", "pointer"),
    [
        ({"type": "object", "properties": {"a": {"type": "foo"}}}, "#/properties/a/type"),
        ({"type": 5}, "#/type"),
    ],
)
def test_invalid_schema_is_refused_with_pointer(schema: dict[str, Any], pointer: str) -> None:
    with pytest.raises(GenerationError, match="not a valid 2020-12") as caught:
        input_strategy(schema)
    assert caught.value.pointer == pointer


def test_ecma_only_pattern_is_refused() -> None:
    schema = {"type": "object", "properties": {"name": {"type": "string", "pattern": "^\\p{L}+$"}}}
    with pytest.raises(GenerationError, match="ECMA-262") as caught:
        input_strategy(schema)
    assert caught.value.pointer == "#/properties/name/pattern"


def test_contradiction_is_reported_where_it_is() -> None:
    schema = {
        "type": "object",
        "properties": {"n": {"type": "integer", "minimum": 5, "maximum": 1}},
        "required": ["n"],
    }
    with pytest.raises(GenerationError, match="no value satisfies") as caught:
        input_strategy(schema)
    assert caught.value.pointer == "#/properties/n"
    assert "#/properties/n" in explain_unsatisfiable(schema)


def test_explain_names_costly_constraints() -> None:
    schema = {
        "type": "object",
        "properties": {"xs": {"type": "array", "minItems": 500}},
        "required": ["xs"],
    }
    assert "#/properties/xs: minItems 500" in explain_unsatisfiable(schema)


def test_non_object_root_is_refused() -> None:
    with pytest.raises(GenerationError, match="JSON object"):
        input_strategy({"type": "array"})


# --------------------------------------------------------------------------- the rewrite


def test_prepare_rewrites_to_self_contained_draft_07() -> None:
    schema = {
        "type": "object",
        "$defs": {"n": {"type": "integer"}},
        "properties": {
            "pair": {"prefixItems": [{"$ref": "#/$defs/n"}], "items": False},
            "a": {"type": "string", "title": "an annotation"},
        },
        "dependentRequired": {"a": ["pair"]},
        "unevaluatedProperties": False,
    }
    assert prepare_for_generation(schema) == {
        "type": "object",
        "properties": {
            "pair": {"items": [{"type": "integer"}], "additionalItems": False},
            "a": {"type": "string"},
        },
        "dependencies": {"a": ["pair"]},
        "additionalProperties": False,
    }


def test_prepare_cuts_recursion_with_false() -> None:
    schema = {
        "type": "object",
        "properties": {"next": {"anyOf": [{"$ref": "#"}, {"type": "null"}]}},
    }
    prepared = prepare_for_generation(schema)
    depth = 0
    node: Any = prepared
    while node is not False:
        node = node["properties"]["next"]["anyOf"][0]
        depth += 1
    assert depth == 4  # the root, then three unrolled levels


def test_prepare_does_not_mutate_its_input() -> None:
    schemas = [NESTED, {"type": "object", "properties": {"e": {"enum": [[1, 2], {"k": "v"}]}}}]
    for schema in schemas:
        before = copy.deepcopy(schema)
        prepared = prepare_for_generation(schema)
        assert schema == before
        collect(input_strategy(schema), n=5)  # generation must not mutate it either
        assert schema == before
        prepared.clear()
        assert schema == before


def test_only_declared_properties_are_generated_but_free_form_maps_stay_open() -> None:
    schema = {
        "type": "object",
        "properties": {
            "a": {"type": "integer"},
            "inner": {"type": "object", "properties": {"b": {"type": "string"}}},
            "meta": {"type": "object"},
        },
        "required": ["a"],
    }
    values = generate(schema, n=100)
    assert all(set(v) <= {"a", "inner", "meta"} for v in values)
    assert all(set(v.get("inner", {})) <= {"b"} for v in values)
    # A map that declares no properties is free-form: its keys are the tool's to expect.
    assert any(v.get("meta") for v in values)


def test_allof_branches_are_not_closed() -> None:
    schema = {
        "allOf": [
            {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]},
            {"type": "object", "properties": {"b": {"type": "integer"}}, "required": ["b"]},
        ]
    }
    assert all({"a", "b"} <= set(v) for v in generate(schema))


def test_schema_examples_come_first_and_defaults_make_one_complete_input() -> None:
    from pytest_mcp_contracts.inputs.given_inputs import schema_examples

    schema = {
        "type": "object",
        "examples": [{"q": "x"}],
        "properties": {"q": {"type": "string", "examples": ["book"]}, "n": {"default": 5}},
        "required": ["q"],
    }
    assert schema_examples(schema) == [{"q": "x"}, {"n": 5, "q": "book"}]
    # Defaults that leave a required property out make no input at all.
    partial = {"type": "object", "properties": {"q": {}, "n": {"default": 5}}, "required": ["q"]}
    assert schema_examples(partial) == []


def test_a_ref_indexing_an_array_with_a_non_ascii_digit_is_a_generation_error() -> None:
    schema = {
        "type": "object",
        "properties": {
            "pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}]},
            "n": {"$ref": "#/properties/pair/prefixItems/%C2%B2"},  # "²"
        },
        "required": ["n"],
    }
    with pytest.raises(GenerationError, match="points to nothing in this schema"):
        input_strategy(schema)


def test_a_ref_relative_to_an_embedded_id_is_local() -> None:
    schema = {
        "$id": "https://example.com/root.json",
        "type": "object",
        "$defs": {
            "item": {
                "$id": "item.json",
                "$defs": {"q": {"type": "string", "minLength": 3}},
                "$ref": "#/$defs/q",
            }
        },
        "properties": {"q": {"$ref": "item.json"}},
        "required": ["q"],
    }
    assert all(len(v["q"]) >= 3 for v in generate(schema, n=10))


def test_a_ref_that_is_no_uri_is_a_generation_error_not_a_crash() -> None:
    schema = {
        "$id": "https://example.com/root.json",
        "type": "object",
        "properties": {"x": {"$ref": "http://[::1/x"}},
    }
    # input_strategy's metaschema check refuses it first (format uri-reference); the rewrite
    # used to crash on it with urljoin's ValueError.
    with pytest.raises(GenerationError, match="not a valid URI reference") as caught:
        prepare_for_generation(schema)
    assert caught.value.pointer == "#/properties/x/$ref"


def test_a_schema_is_checked_against_its_metaschema_once(monkeypatch: pytest.MonkeyPatch) -> None:
    from pytest_mcp_contracts.inputs import generate, input_schema

    checked: list[object] = []
    real = input_schema._metaschema_check
    monkeypatch.setattr(
        input_schema, "_metaschema_check", lambda doc: checked.append(doc) or real(doc)
    )
    schema = {"type": "object", "properties": {"once": {"type": "string"}}, "required": ["once"]}
    generate.input_strategy(schema)
    generate.coverage_plan(schema, 10)
    generate.coverage_plan(dict(schema), 10)  # an equal schema: the same verdict
    assert len(checked) == 1
    bad = {"type": "object", "properties": {"n": {"type": "integr"}}}
    for _ in range(2):  # a refused schema is refused each time, with the same words
        with pytest.raises(GenerationError, match="not a valid 2020-12 JSON Schema at "):
            generate.coverage_plan(bad, 10)
    assert len(checked) == 2
