"""What `export` makes of each recorded contract (``plan``), the names it chooses, the bounds
of its reading of a schema, and that the same snapshot always gives the same bytes."""

from __future__ import annotations

import json
import zlib
from typing import Any

import pytest

from pytest_mcp_contracts.contracts.infer import ESTABLISHED, Shape
from pytest_mcp_contracts.export.document import RecordedTool, Source, plan, render
from pytest_mcp_contracts.export.model import (
    UNKNOWN,
    ModelRef,
    Namer,
    Strictness,
    build,
    pascal,
    tool_prefix,
)
from pytest_mcp_contracts.schema.budgets import DOCUMENT_DEPTH, EXPORT_NODES

SOURCE = Source("srv", "mcp-contracts/srv/", "mcp-contracts export --format pydantic")
FORMATS = ("pydantic", "typeddict", "zod", "jsonschema")


def learned(tool: str, values: list[Any], quality: str = "validated") -> RecordedTool:
    shape = Shape()
    for value in values:
        shape.observe(value)
    output = {
        "source": "inferred",
        "kinds": ["json-text"],
        "quality": quality,
        "basis": "the basis as recorded",
        "schema": shape.to_schema(),
        "seen": shape.seen(),
    }
    return RecordedTool(tool, f"mcp-contracts/srv/{tool}.json", {"tool": tool, "output": output})


def declared(tool: str, schema: dict[str, Any]) -> RecordedTool:
    data = {"tool": tool, "surface": {"name": tool, "outputSchema": schema}}
    return RecordedTool(tool, f"mcp-contracts/srv/{tool}.json", data)


PROSE = RecordedTool(
    "motto",
    "mcp-contracts/srv/motto.json",
    {
        "tool": "motto",
        "output": {
            "source": "inferred",
            "kinds": ["prose"],
            "quality": "unknown",
            "basis": "nothing to learn from: no JSON result was observed",
            "schema": None,
            "seen": {},
        },
    },
)


# -- what each contract gives -----------------------------------------------------------------


def test_strictness_follows_the_quality() -> None:
    values = [{"n": i} for i in range(12)]
    assert plan(declared("d", {"type": "object"})).strictness is Strictness.EXACT
    assert plan(learned("v", values)).strictness is Strictness.STRICT
    assert plan(learned("i", values, "inferred")).strictness is Strictness.PERMISSIVE
    assert plan(PROSE).strictness is None


def test_a_declared_schema_wins_over_what_was_learned_before_it() -> None:
    tool = learned("t", [{"n": 1}])
    data = {**tool.data, "surface": {"name": "t", "outputSchema": {"type": "object"}}}
    found = plan(RecordedTool("t", tool.file, data))
    assert (found.quality, found.schema) == ("declared", {"type": "object"})


@pytest.mark.parametrize(
    ("tool", "why"),
    [
        (PROSE, "nothing to learn from: no JSON result was observed (its results were prose)"),
        (
            RecordedTool("new", "f.json", {"tool": "new", "surface": {"name": "new"}}),
            "no output contract is recorded yet",
        ),
        (learned("mixed", [{"id": 1}, {"id": "a"}], "inferred"), "$.id is integer | string"),
        (
            RecordedTool("odd", "f.json", {"tool": "odd", "output": {"source": "declared"}}),
            "records a declared output, but no outputSchema",
        ),
    ],
)
def test_a_tool_without_a_usable_contract_gets_no_model_and_the_file_says_why(
    tool: RecordedTool, why: str
) -> None:
    assert why in plan(tool).why_not
    for fmt in FORMATS:
        text = render(fmt, [tool], SOURCE)
        if fmt == "jsonschema":
            entry = json.loads(text)["tools"][tool.name]
            assert entry["outputSchema"] is None and why in entry["not_exported"]
        else:
            assert "no model" in text and why in text
            code = [line for line in text.splitlines() if not line.startswith(("#", "//"))]
            assert not [line for line in code if line.startswith(("class ", "export const "))]


def test_a_validated_model_says_what_it_rests_on() -> None:
    values = [{"n": i, **({"rare": "x"} if i < 3 else {})} for i in range(12)]
    text = render("pydantic", [learned("count", values)], SOURCE)
    flat = " ".join(line.removeprefix("#").strip() for line in text.splitlines())
    assert "Validated: the basis as recorded." in flat
    assert (
        f"Rests on {ESTABLISHED} or more results (counts stop at {ESTABLISHED}) recorded in "
        "mcp-contracts/srv/count.json, by the runs that wrote that file (git log -- "
        "mcp-contracts/srv/count.json lists them)." in flat
    )
    assert "Thin evidence (fewer than 10 values seen): $.rare (3)." in flat
    assert "Strict: unknown keys are refused" in flat


def test_a_permissive_model_says_which_objects_were_seen_too_rarely() -> None:
    text = render("zod", [learned("few", [{"a": 1}, {"a": 2}], "inferred")], SOURCE)
    assert "//   $: seen 2 time(s), fewer than 10: every field of it is optional" in text
    assert "a: z.number().optional()," in text  # a whole number read as a number


def test_a_learned_union_is_refused_as_the_proposals_refuse_it() -> None:
    found = plan(learned("u", [{"v": 1}, {"v": "x"}] * 6))
    assert found.strictness is None
    assert found.why_not == "$.v is integer | string (make it one type, or declare it)"


# -- names --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tool", "prefix"),
    [
        ("get_order", "GetOrder"),
        ("get-order.v2", "GetOrderV2"),
        ("listUsers", "ListUsers"),
        ("3d_render", "Tool3dRender"),
        ("---", f"Tool{zlib.crc32(b'---'):08x}"),  # no letter or digit: its hash
        ("名前", f"Tool{zlib.crc32('名前'.encode()):08x}"),
        ("a" * 60, f"A{'a' * 39}{zlib.crc32(b'a' * 60):08x}"),  # cut, and its hash kept
    ],
)
def test_tool_names_become_identifiers(tool: str, prefix: str) -> None:
    assert tool_prefix(tool) == prefix
    assert prefix.isidentifier() and prefix.isascii()


def test_names_are_claimed_once_per_document_in_order() -> None:
    namer = Namer()
    assert [namer.claim(n) for n in ("GetItem", "GetItem", "BaseModel", "GetItem")] == [
        "GetItem",
        "GetItem2",
        "BaseModel2",
        "GetItem3",
    ]
    assert pascal("first-name", fallback="F") == "FirstName"


def test_tools_whose_names_meet_get_distinct_models_in_one_module() -> None:
    schema = {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]}
    tools = [declared("get-item", schema), declared("get_item", schema)]
    text = render("pydantic", tools, SOURCE)
    assert "class GetItemOutput(BaseModel):" in text
    assert "class GetItemOutput2(BaseModel):" in text
    namespace: dict[str, Any] = {}
    exec(compile(text, "<export>", "exec"), namespace)
    assert {"GetItemOutput", "GetItemOutput2"} <= set(namespace)


def test_a_field_that_names_the_output_does_not_take_its_name() -> None:
    schema = {"type": "object", "properties": {"output": {"type": "object", "properties": {}}}}
    found = build("t", schema, Strictness.EXACT)
    assert found.name == "TOutput" and found.root == ModelRef("TOutput")


# -- bounds -------------------------------------------------------------------------------------


def nested(depth: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(depth):
        schema = {"type": "object", "properties": {"a": schema}}
    return schema


def test_a_schema_too_deep_is_cut_with_a_note() -> None:
    found = build("deep", nested(DOCUMENT_DEPTH + 5), Strictness.EXACT)
    assert any("nested too deeply" in note for note in found.notes)
    assert len(found.models) <= DOCUMENT_DEPTH + 1


def test_a_schema_too_large_is_cut_with_a_note() -> None:
    wide = {
        "type": "object",
        "properties": {f"p{i}": {"type": "string"} for i in range(EXPORT_NODES)},
    }
    found = build("wide", wide, Strictness.EXACT)
    assert any("too large" in note for note in found.notes)


@pytest.mark.parametrize(
    ("schema", "note"),
    [
        (
            {
                "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}},
                "$ref": "#/$defs/a",
            },
            "a $ref cycle through #/$defs/a no object breaks: cut here",
        ),
        ({"$ref": "#/$defs/missing"}, "points to nothing in this schema"),
        ({"$ref": "https://example.org/s.json"}, "remote schemas are never fetched"),
        (
            {"type": "object", "properties": {"x": {"type": "string", "not": {"const": ""}}}},
            "$.x: not expressed by the model: not",
        ),
        (
            {"type": "object", "properties": {"r": {"type": "string", "pattern": "(?<=a"}}},
            "$.r: a pattern Python's re cannot read is not expressed",
        ),
    ],
)
def test_what_the_models_cannot_hold_is_noted(schema: dict[str, Any], note: str) -> None:
    found = build("t", schema, Strictness.EXACT)
    assert any(note in line for line in found.notes), found.notes


def test_a_learned_null_only_field_accepts_anything() -> None:
    shape = Shape()
    for _ in range(3):
        shape.observe({"gone": None})
    found = build("t", shape.to_schema(), Strictness.STRICT, seen=shape.seen())
    assert found.models[0].fields[0].type == UNKNOWN
    assert "$.gone: only null was seen here: any value is accepted" in found.notes


# -- the same snapshot, the same bytes ---------------------------------------------------------


def test_the_same_contracts_in_any_order_give_the_same_bytes() -> None:
    values = [{"id": i, "tags": ["a"], "who": {"n": "x"}} for i in range(12)]
    tools = [
        learned("b_tool", values),
        learned("a_tool", values[:3], "inferred"),
        declared("c_tool", {"type": "object", "properties": {"z": {"type": "integer"}}}),
        PROSE,
    ]
    for fmt in FORMATS:
        first = render(fmt, tools, SOURCE)
        assert render(fmt, list(reversed(tools)), SOURCE) == first
        assert render(fmt, tools, SOURCE) == first
        assert first.endswith("\n") and not first.endswith("\n\n")
        positions = [first.index(name) for name in ("a_tool", "b_tool", "c_tool", "motto")]
        assert positions == sorted(positions)


def test_comments_cannot_be_ended_by_a_tool_name() -> None:
    evil = "evil\nimport os\u2028x"
    text = render("zod", [PROSE.__class__(evil, "f.json", {"tool": evil})], SOURCE)
    assert "\nimport os" not in text and "\u2028" not in text
    assert "evil\\nimport os\\u2028x" in text
