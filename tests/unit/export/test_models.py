"""The generated models, table-driven over schema shapes: every case is one tool of one export
document per format, and each format's code is run as its users run it.

- Python (pydantic models and TypedDicts): the module is imported; each value is validated
  and dumped back unchanged (nothing the tool returns is rewritten); through MCPServer's own
  ``func_metadata``, the model is a return annotation that declares an outputSchema, and the
  structuredContent it makes validates against it.
- zod: the module is imported by node; each value parses, and passes the JSON Schema that
  the TypeScript SDK declares for it (zod's toJSONSchema, draft-07, as the SDK calls it).
- jsonschema: each value passes the exported outputSchema with the plugin's own validator.

Values in ``observed`` are what the tool returned: for a learned contract (validated,
inferred) the contract is learned from them by ``contracts/infer`` as a run learns it.
``accepted`` are more values the model must take (a permissive model's extra key), and
``refused`` values every target must refuse.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from pytest_mcp_contracts.contracts.infer import Shape
from pytest_mcp_contracts.export.document import RecordedTool, Source, render
from pytest_mcp_contracts.export.model import tool_prefix
from pytest_mcp_contracts.schema.dialects import validator_for_schema

SOURCE = Source("models-test", "mcp-contracts/models-test/", "mcp-contracts export --format X")


@dataclass(frozen=True)
class Case:
    tool: str
    observed: list[Any]
    schema: dict[str, Any] | None = None  # declared; None: learned from `observed`
    quality: str = "declared"
    accepted: list[Any] = field(default_factory=list)
    refused: list[Any] = field(default_factory=list)
    wrapped: bool = False  # an output that is no object: declared as {"result": ...}

    @property
    def name(self) -> str:
        return f"{tool_prefix(self.tool)}Output"

    def record(self) -> RecordedTool:
        if self.schema is not None:
            data = {
                "tool": self.tool,
                "surface": {"name": self.tool, "outputSchema": self.schema},
                "output": {"source": "declared", "quality": "declared"},
            }
        else:
            shape = Shape()
            for value in self.observed:
                shape.observe(value)
            output = {
                "source": "inferred",
                "kinds": ["json-text"],
                "quality": self.quality,
                "basis": "observed by the test",
                "schema": shape.to_schema(),
                "seen": shape.seen(),
            }
            data = {"tool": self.tool, "surface": {"name": self.tool}, "output": output}
        return RecordedTool(self.tool, f"mcp-contracts/models-test/{self.tool}.json", data)


def obj(
    properties: dict[str, Any], required: list[str] | None = None, **more: Any
) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required or [], **more}


STR, INT, NUM = {"type": "string"}, {"type": "integer"}, {"type": "number"}
HOSTILE_KEYS = [
    "first-name",
    "first_name",
    "class",
    "from",
    "json",
    "model_config",
    "_private",
    "__proto__",
    "__dunder",
    "1st",
    "a b",
    "名前",
    "str",
    "int",
    "Any",
    "MISSING",
    "schema",
    "line\nbreak",
    'quote"s\\',
    "sep\u2028arator */",
]
KEYS_VALUE = {key: f"v{i}" for i, key in enumerate(HOSTILE_KEYS)}
HOSTILE_TEXT = 'ends """ here\n) ; import os # \u2028 */ `${x}`'
LEARNED = [
    {
        "id": n,
        "price": n + 0.5,
        "when": f"2026-11-{n + 1:02d}T10:00:00Z",
        "tags": ["a", "b"][: n % 3],
        "owner": None if n % 2 else {"name": f"o{n}", "rank": n},
        **({"note": "even"} if n % 4 == 0 else {}),
    }
    for n in range(12)
]

CASES = [
    Case(
        "nested_defs",
        [
            {"id": 1, "customer": {"name": "a"}, "items": [{"sku": "x", "qty": 2}], "note": None},
            {"id": 2, "customer": {"name": "b", "vip": True}, "items": [], "note": "n"},
            {"id": 3, "customer": {"name": "c"}, "items": [{"sku": "y", "qty": 1}], "more": 1},
        ],
        schema={
            **obj(
                {
                    "id": INT,
                    "customer": {"$ref": "#/$defs/Customer"},
                    "items": {"type": "array", "items": {"$ref": "#/$defs/Line"}},
                    "note": {"type": ["string", "null"]},
                },
                ["id", "customer", "items"],
            ),
            "$defs": {
                "Customer": obj({"name": STR, "vip": {"type": "boolean"}}, ["name"]),
                "Line": obj({"sku": STR, "qty": INT}, ["sku", "qty"], additionalProperties=False),
            },
        },
        refused=[
            {"id": "1", "customer": {"name": "a"}, "items": []},  # no coercion
            {"id": 1, "items": []},  # customer is required
            {"id": 1, "customer": {"name": "a"}, "items": [{"sku": "x", "qty": 2, "z": 0}]},
        ],
    ),
    Case(
        "closed",
        [{"a": 1}, {"a": 1, "b": "x"}],
        schema=obj({"a": INT, "b": STR}, ["a"], additionalProperties=False),
        refused=[{"a": 1, "c": 2}, {"a": 1.5}, {"b": "x"}],
    ),
    Case(
        "unions",
        [
            {"v": "x", "w": 1, "shape": {"kind": "circle", "r": 1}},
            {"v": 3, "w": 2.5, "shape": {"kind": "square", "side": 2}},
        ],
        schema=obj(
            {
                "v": {"anyOf": [STR, INT]},
                "w": {"type": ["string", "number"]},
                "shape": {
                    "oneOf": [
                        obj({"kind": {"const": "circle"}, "r": NUM}, ["kind", "r"]),
                        obj({"kind": {"const": "square"}, "side": NUM}, ["kind", "side"]),
                    ]
                },
            },
            ["v", "w", "shape"],
        ),
        refused=[{"v": True, "w": 1, "shape": {"kind": "circle", "r": 1}}],
    ),
    Case(
        "enums",
        [
            {"status": "open", "mixed": 1, "three": 3},
            {"status": "closed", "mixed": None, "three": 3},
            {"status": "closed", "mixed": True, "three": 3},  # true, a member apart from 1
        ],
        schema=obj(
            {
                "status": {"type": "string", "enum": ["open", "closed"]},
                "mixed": {"enum": [1, "a", None, True]},
                "three": {"const": 3},
            },
            ["status", "mixed", "three"],
        ),
        refused=[
            {"status": "other", "mixed": 1, "three": 3},
            {"status": "open", "mixed": 2, "three": 3},
        ],
    ),
    Case(
        "formats",
        [
            {
                "at": "2026-11-21T10:00:00Z",
                "on": "2026-11-21",
                "id": "123e4567-e89b-12d3-a456-426614174000",
                "mail": "ada@example.org",
                "home": "https://example.org/a?b=1",
                "host": "example.org",
            }
        ],
        schema=obj(
            {
                "at": {"type": "string", "format": "date-time"},
                "on": {"type": "string", "format": "date"},
                "id": {"type": "string", "format": "uuid"},
                "mail": {"type": "string", "format": "email"},
                "home": {"type": "string", "format": "uri"},
                "host": {"type": "string", "format": "hostname"},
            },
            ["at", "on", "id", "mail", "home", "host"],
        ),
    ),
    Case(
        "tree",
        [{"name": "root", "children": [{"name": "a", "children": [{"name": "b"}]}]}],
        schema=obj({"name": STR, "children": {"type": "array", "items": {"$ref": "#"}}}, ["name"]),
        refused=[{"name": "root", "children": [{"children": []}]}],
    ),
    Case(
        "mutual",
        [{"b": {"a": {"b": {"a": {"leaf": True}}}}, "leaf": False}],
        schema={
            "$ref": "#/$defs/A",
            "$defs": {
                "A": obj({"b": {"$ref": "#/$defs/B"}, "leaf": {"type": "boolean"}}),
                "B": obj({"a": {"$ref": "#/$defs/A"}}, ["a"]),
            },
        },
    ),
    Case(
        "hostile_keys",
        [KEYS_VALUE],
        schema={
            **obj(
                {k: {"type": "string", "description": HOSTILE_TEXT} for k in HOSTILE_KEYS},
                HOSTILE_KEYS,
            ),
            "description": HOSTILE_TEXT,
        },
        refused=[{k: v for k, v in KEYS_VALUE.items() if k != "class"}],
    ),
    Case(
        "maps",
        [{"counts": {"a": 1, "b": 2}, "known": 1, "x-extra": "s"}],
        schema=obj(
            {
                "counts": {"type": "object", "additionalProperties": INT},
                "known": INT,
            },
            ["counts", "known"],
            additionalProperties=STR,
        ),
        refused=[{"counts": {"a": "1"}, "known": 1}],
    ),
    Case(
        "tuple",
        [{"pair": ["x", 1]}],
        schema=obj(
            {"pair": {"type": "array", "prefixItems": [STR, INT], "items": False}}, ["pair"]
        ),
        refused=[{"pair": ["x", "y"]}],
    ),
    Case(
        "array_root",
        [[{"sku": "a"}, {"sku": "b"}], []],
        schema={"type": "array", "items": obj({"sku": STR}, ["sku"])},
        refused=[[{"sku": 1}]],
        wrapped=True,
    ),
    Case(
        "bounded",
        [{"code": "AB12", "n": 5, "xs": [1]}],
        schema=obj(
            {
                "code": {
                    "type": "string",
                    "minLength": 2,
                    "maxLength": 8,
                    "pattern": "^[A-Z]+[0-9]*$",
                },
                "n": {"type": "integer", "minimum": 0, "exclusiveMaximum": 10},
                "xs": {"type": "array", "items": INT, "minItems": 1},
            },
            ["code", "n", "xs"],
        ),
        refused=[
            {"code": "ab", "n": 5, "xs": [1]},
            {"code": "AB", "n": 10, "xs": [1]},
            {"code": "AB", "n": 5, "xs": []},
        ],
    ),
    Case(
        "learned_strict",
        LEARNED,
        quality="validated",
        refused=[
            {**LEARNED[1], "extra": 1},  # closed
            {k: v for k, v in LEARNED[1].items() if k != "price"},  # required
            {**LEARNED[1], "id": 1.5},  # an integer stays one
        ],
    ),
    Case(
        "learned_permissive",
        LEARNED[:3],
        quality="inferred",
        accepted=[
            {**LEARNED[1], "extra": [1, 2]},  # open
            {"id": 1},  # fields seen in only 3 objects are optional
            {**LEARNED[1], "id": 1.5},  # whole numbers are no evidence of an integer
            {**LEARNED[1], "when": "not a date"},  # no format is claimed on thin evidence
        ],
        refused=[{**LEARNED[1], "price": "1.5"}],
    ),
    Case(
        "null_only",
        [{"gone": None, "n": i} for i in range(12)],
        quality="validated",
        accepted=[{"gone": {"now": "set"}, "n": 1}],
    ),
    Case(
        "learned_map",
        [{"env": {f"VAR_{i}": f"v{i}" for i in range(5)}} for _ in range(3)],
        quality="validated",
        accepted=[{"env": {"OTHER": "x"}}],
        refused=[{"env": {"OTHER": 1}}],
    ),
    Case(
        "learned_list_root",
        [[{"k": i}, {"k": i + 1}] for i in range(12)],
        quality="validated",
        wrapped=True,
    ),
]


@pytest.fixture(scope="module")
def documents() -> dict[str, str]:
    records = [case.record() for case in CASES]
    return {
        fmt: render(fmt, records, SOURCE) for fmt in ("pydantic", "typeddict", "zod", "jsonschema")
    }


def import_module(path: Path, name: str) -> Iterator[ModuleType]:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # pydantic resolves forward references in it
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        del sys.modules[name]


@pytest.fixture(scope="module", params=["pydantic", "typeddict"])
def python_models(
    request: pytest.FixtureRequest,
    documents: dict[str, str],
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[str, ModuleType]]:
    fmt = request.param
    path = tmp_path_factory.mktemp(fmt) / f"exported_{fmt}.py"
    path.write_text(documents[fmt])
    yield from ((fmt, m) for m in import_module(path, f"exported_{fmt}"))


def wrapped(case: Case, value: Any) -> Any:
    return {"result": value} if case.wrapped else value


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.tool)
def test_python_models_take_each_value_unchanged_and_declare_an_output_schema(
    case: Case, python_models: tuple[str, ModuleType]
) -> None:
    from mcp.server.mcpserver.utilities.func_metadata import func_metadata
    from pydantic import TypeAdapter, ValidationError

    _, module = python_models
    model = getattr(module, case.name)
    adapter: TypeAdapter[Any] = TypeAdapter(model)

    def tool() -> None: ...

    tool.__annotations__["return"] = model
    meta = func_metadata(tool)
    assert meta.output_schema is not None, "MCPServer declares no outputSchema for it"
    declared = validator_for_schema(meta.output_schema)
    for value in [*case.observed, *case.accepted]:
        dumped = adapter.dump_python(adapter.validate_python(value), mode="json", by_alias=True)
        assert dumped == value
        structured = meta.convert_result(value).structured_content  # type: ignore[union-attr]
        assert structured == wrapped(case, value)
        errors = [e.message for e in declared.iter_errors(structured)]
        assert not errors, errors
    for value in case.refused:
        with pytest.raises(ValidationError):
            adapter.validate_python(value)


def test_python_modules_pass_mypy_strict(documents: dict[str, str], tmp_path: Path) -> None:
    """A server that type-checks keeps type-checking with the models pasted in."""
    api = pytest.importorskip("mypy.api")
    files = []
    for fmt in ("pydantic", "typeddict"):
        files.append(tmp_path / f"exported_{fmt}.py")
        files[-1].write_text(documents[fmt])
    # mypy's main raises the interpreter's recursion limit for good (to 2**14): restored, or
    # every later test in this process runs with it (test_text's deep-nesting case did).
    limit = sys.getrecursionlimit()
    try:
        out, err, status = api.run(
            ["--strict", "--cache-dir", str(tmp_path / "cache"), *map(str, files)]
        )
    finally:
        sys.setrecursionlimit(limit)
    assert status == 0, out + err


@pytest.fixture(scope="module")
def zod_results(
    documents: dict[str, str],
    tmp_path_factory: pytest.TempPathFactory,
    ts_servers: Callable[[str], str],
) -> dict[str, Any]:
    # ts_servers installs node_modules (npm ci) under the folder's lock, or waits for the
    # process installing it, and skips only where Node.js or npm is missing: looked for
    # directly, zod was missing while .ci/run's fixture build was still going, and all 18
    # zod tests skipped.
    node = shutil.which("node")
    modules = Path(__file__).parents[2] / "servers" / "ts_legacy" / "node_modules"
    assert node is not None and (modules / "zod").is_dir(), modules
    folder = tmp_path_factory.mktemp("zod")
    (folder / "node_modules").symlink_to(modules)
    (folder / "models.mjs").write_text(documents["zod"])
    cases = {
        c.tool: {
            "name": c.name,
            "valid": [wrapped(c, v) for v in [*c.observed, *c.accepted]],
            "refused": [wrapped(c, v) for v in c.refused],
        }
        for c in CASES
    }
    (folder / "cases.json").write_text(json.dumps(cases))
    (folder / "check.mjs").write_text(
        """
import { readFileSync } from "node:fs";
import * as z4mini from "zod/v4-mini";
import * as models from "./models.mjs";
const cases = JSON.parse(readFileSync(new URL("./cases.json", import.meta.url)));
const out = {};
for (const [tool, c] of Object.entries(cases)) {
  const schema = models[c.name];
  out[tool] = {
    valid: c.valid.map((v) => schema.safeParse(v).error?.message ?? null),
    refused: c.refused.map((v) => schema.safeParse(v).success),
    // What @modelcontextprotocol/sdk 1.32 declares for it (zod-json-schema-compat.js).
    declared: z4mini.toJSONSchema(schema, { target: "draft-7", io: "output" }),
  };
}
console.log(JSON.stringify(out));
"""
    )
    done = subprocess.run(
        [node, str(folder / "check.mjs")], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    results: dict[str, Any] = json.loads(done.stdout)
    return results


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.tool)
def test_zod_objects_parse_each_value_and_declare_a_schema_it_passes(
    case: Case, zod_results: dict[str, Any]
) -> None:
    found = zod_results[case.tool]
    assert found["valid"] == [None] * len(found["valid"])  # no zod error for any
    assert found["refused"] == [False] * len(case.refused)
    declared = validator_for_schema(found["declared"])
    for value in [*case.observed, *case.accepted]:
        errors = [e.message for e in declared.iter_errors(wrapped(case, value))]
        assert not errors, errors


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.tool)
def test_json_schemas_take_each_value_and_refuse_the_others(
    case: Case, documents: dict[str, str]
) -> None:
    entry = json.loads(documents["jsonschema"])["tools"][case.tool]
    validator = validator_for_schema(entry["outputSchema"])
    # A declared outputSchema is exported as declared (a root that is no object included).
    as_declared = (lambda value: value) if case.schema is not None else partial(wrapped, case)
    for value in [*case.observed, *case.accepted]:
        errors = [e.message for e in validator.iter_errors(as_declared(value))]
        assert not errors, errors
    for value in case.refused:
        assert list(validator.iter_errors(as_declared(value))), value


def test_format_checks_are_zods_and_the_schemas(zod_results: dict[str, Any]) -> None:
    """pydantic models declare formats without parsing them (the value stays the string the
    tool returned); zod checks the ones it knows and declares the others."""
    declared = zod_results["formats"]["declared"]["properties"]
    assert {k: v.get("format") for k, v in declared.items()} == {
        "at": "date-time",
        "on": "date",
        "id": "uuid",
        "mail": "email",
        "home": "uri",
        "host": "hostname",
    }
