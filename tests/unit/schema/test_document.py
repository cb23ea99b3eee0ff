"""schema/document.py and schema/budgets.py: the one schema document every walker reads, the
type facts they share, and the bounds that keep hostile schemas cheap."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pytest_mcp_contracts.schema import budgets
from pytest_mcp_contracts.schema.dialects import UnsupportedDialect
from pytest_mcp_contracts.schema.document import (
    TYPE_ORDER,
    SchemaDocument,
    declared_types,
    implied_types,
    json_type,
    ordered_types,
    union_text,
    value_key,
    with_branch,
    with_conjuncts,
)
from pytest_mcp_contracts.schema.refs import Unresolvable

PACKAGE = Path(__file__).resolve().parents[3] / "pytest_mcp_contracts"


# -- values and types --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "kind"),
    [
        (None, "null"),
        (True, "boolean"),
        (False, "boolean"),  # never an integer, though bool is an int to Python
        (0, "integer"),
        (1.5, "number"),
        (1.0, "number"),
        ("", "string"),
        ([], "array"),
        ({}, "object"),
    ],
)
def test_json_type(value: Any, kind: str) -> None:
    assert json_type(value) == kind


def test_json_type_refuses_what_json_cannot_hold() -> None:
    with pytest.raises(TypeError, match="not a JSON value: tuple"):
        json_type(())


def test_types_are_ordered_once_each_unknown_names_last() -> None:
    assert ordered_types(["null", "string", "integer", "string"]) == ["integer", "string", "null"]
    assert ordered_types({"zeta", "object", "alpha"}) == ["object", "alpha", "zeta"]
    assert ordered_types(reversed(TYPE_ORDER)) == list(TYPE_ORDER)


def test_a_union_prints_with_bars_in_the_order_given() -> None:
    assert union_text(["string", "null"]) == "string | null"
    assert union_text(["integer"]) == "integer"
    assert union_text(ordered_types({"string", "integer"})) == "integer | string"


@pytest.mark.parametrize(
    ("schema", "declared"),
    [
        ({"type": "string"}, ["string"]),
        ({"type": ["string", "null"]}, ["string", "null"]),
        ({"type": ["string", 3]}, ["string", 3]),  # kept: whether it is an error is the caller's
        ({"type": 3}, None),
        ({}, None),
    ],
)
def test_declared_types(schema: dict[str, Any], declared: list[Any] | None) -> None:
    assert declared_types(schema) == declared


@pytest.mark.parametrize(
    ("schema", "implied"),
    [
        ({"type": ["string", 3]}, ["string"]),
        ({"type": "integer", "properties": {}}, ["integer"]),  # declared wins
        ({"properties": {}, "minLength": 1}, ["object"]),  # the first guess only
        ({"maxItems": 2}, ["array"]),
        ({"format": "email"}, ["string"]),
        ({"multipleOf": 2}, ["number"]),
        ({"type": 3, "pattern": "a"}, ["string"]),  # no usable type: guessed
        ({"description": "anything"}, []),
    ],
)
def test_implied_types(schema: dict[str, Any], implied: list[str]) -> None:
    assert implied_types(schema) == implied


def test_value_key_ignores_key_order_and_tells_types_apart() -> None:
    assert value_key({"a": 1, "b": [2]}) == value_key({"b": [2], "a": 1})
    assert value_key(1) != value_key("1")
    assert value_key(True) != value_key(1)


def test_a_branch_replaces_its_combinator_and_conjuncts_merge() -> None:
    schema = {"type": "object", "anyOf": [{"required": ["a"]}, True], "title": "t"}
    assert with_branch(schema, {"required": ["a"]}, "anyOf") == {
        "type": "object",
        "required": ["a"],
        "title": "t",
    }
    assert with_branch(schema, True, "anyOf") is True  # a boolean branch is itself
    merged = with_conjuncts({"type": "integer", "allOf": [{"minimum": 1}, False, {"minimum": 2}]})
    assert merged == {"type": "integer", "minimum": 2}


# -- the document ------------------------------------------------------------------------------


def test_the_dialect_is_read_from_schema_or_defaults() -> None:
    assert SchemaDocument.read({}).dialect == "2020-12"
    draft7 = SchemaDocument.read({"$schema": "http://json-schema.org/draft-07/schema#"})
    assert draft7.dialect == "draft-07"
    assert draft7.legacy
    assert not SchemaDocument.read({}).legacy
    assert "$ref" in draft7.keywords
    assert "prefixItems" not in draft7.keywords


def test_an_unknown_dialect_is_refused_when_read_and_defaulted_when_lenient() -> None:
    odd = {"$schema": "http://example.com/my-dialect"}
    with pytest.raises(UnsupportedDialect, match="unsupported JSON Schema dialect"):
        SchemaDocument.read(odd)
    assert SchemaDocument.lenient(odd).dialect == "2020-12"
    assert SchemaDocument.lenient(True).dialect == "2020-12"  # no object: nothing declared


def test_the_ref_index_is_built_on_first_use_only() -> None:
    doc = SchemaDocument.read({"$defs": {"a": {"type": "string"}}, "$ref": "#/$defs/a"})
    assert "refs" not in vars(doc)
    assert doc.refs.lookup("#/$defs/a").schema == {"type": "string"}
    assert doc.refs is doc.refs  # once


def test_a_remote_ref_is_never_fetched() -> None:
    doc = SchemaDocument.read({"$ref": "https://example.com/schema.json"})
    with pytest.raises(Unresolvable) as caught:
        doc.refs.lookup("https://example.com/schema.json")
    assert caught.value.reason == "remote"
    assert caught.value.is_network


def _nested(levels: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(levels - 1):
        schema = {"properties": {"a": schema}}
    return schema


def test_the_index_stops_at_the_document_depth() -> None:
    assert SchemaDocument.read(_nested(budgets.DOCUMENT_DEPTH)).refs.too_deep is None
    too_deep = SchemaDocument.read(_nested(budgets.DOCUMENT_DEPTH + 1)).refs.too_deep
    assert too_deep == "#" + "/properties/a" * budgets.DOCUMENT_DEPTH


def test_in_place_refs_follow_combinators_not_members() -> None:
    schema = {
        "$defs": {
            "a": {"allOf": [{"$ref": "#/$defs/b"}], "not": {"$ref": "#/$defs/c"}},
            "b": {"properties": {"x": {"$ref": "#/$defs/a"}}},  # a member: not in place
            "c": {"anyOf": [{"$ref": "#/$defs/nowhere"}]},  # dangling: left out
        }
    }
    doc = SchemaDocument.read(schema)
    assert sorted(doc.in_place_refs("#/$defs/a")) == ["#/$defs/b", "#/$defs/c"]
    assert doc.in_place_refs("#/$defs/b") == []
    assert doc.in_place_refs("#/$defs/c") == []


# -- budgets -----------------------------------------------------------------------------------


def test_the_bounds_are_those_the_walkers_had_before_they_moved_here() -> None:
    # The hostile-schema protections hold exactly as before issue 23 gathered them here.
    assert budgets.DOCUMENT_DEPTH == 64  # refs, generate and summarize
    assert budgets.DRIFT_DEPTH == 32
    assert budgets.RECURSION_UNROLL == 3  # generate and drift
    assert budgets.CORNER_DEPTH == 6
    assert budgets.SIMPLEST_DEPTH == 24  # coverage's MAX_DEPTH * 4
    assert budgets.MUTATION_DEPTH == budgets.REF_HOPS == budgets.SHRINK_DEPTH == 8
    assert budgets.SUMMARY_VISITS == 50_000
    assert budgets.DRIFT_WORK == 100_000
    assert budgets.EXPANDED_SUBSCHEMAS == 20_000


def test_no_schema_walker_defines_a_bound_of_its_own() -> None:
    walkers = [
        "schema/refs.py",
        "schema/summarize.py",
        "schema/field_view.py",
        "schema/field_walker.py",
        "schema/field_paths.py",
        "schema/limits.py",
        "contracts/drift/schema_diff.py",
        "contracts/drift/schema_normalize.py",
        "contracts/drift/schema_keywords.py",
        "inputs/generate.py",
        "inputs/input_schema.py",
        "inputs/rewrite.py",
        "inputs/tool_arguments.py",
        "inputs/unsatisfiable.py",
        "inputs/invalid.py",
        "inputs/coverage.py",
        "inputs/corners.py",
        "inputs/number_corners.py",
        "inputs/shrink.py",
        "judges/tool_listing.py",
    ]
    for name in walkers:
        tree = ast.parse((PACKAGE / name).read_text())
        assigned = {
            target.id
            for node in tree.body
            if isinstance(node, ast.Assign | ast.AnnAssign)
            for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
            if isinstance(target, ast.Name)
        }
        assert not {n for n in assigned if "DEPTH" in n or n.endswith("HOPS")}, name


# -- the layers ----------------------------------------------------------------------------------


def _loaded_after(statement: str) -> set[str]:
    code = f"import sys; {statement}; print('\\n'.join(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return {name for name in out.stdout.split() if name.startswith("pytest_mcp_contracts.")}


def test_the_schema_layer_imports_nothing_above_it() -> None:
    loaded = _loaded_after(
        "import pytest_mcp_contracts.schema.document, pytest_mcp_contracts.schema.summarize"
    )
    assert {name.split(".")[1] for name in loaded} <= {"schema", "text", "vocabulary"}


def test_coverage_does_not_import_generate() -> None:
    loaded = _loaded_after("import pytest_mcp_contracts.inputs.coverage")
    assert "pytest_mcp_contracts.inputs.generate" not in loaded
    # Nor the rest of generation: the coverage phase reads the rewrite it is handed.
    assert "pytest_mcp_contracts.inputs.rewrite" not in loaded
    assert "pytest_mcp_contracts.inputs.input_schema" not in loaded


def test_shrink_imports_no_private_names() -> None:
    tree = ast.parse((PACKAGE / "inputs/shrink.py").read_text())
    imported = [
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    ]
    assert imported
    assert not [name for name in imported if name.startswith("_") and name != "__future__"]
