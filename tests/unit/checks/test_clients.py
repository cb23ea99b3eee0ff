"""judges/clients.py: each client rule finds exactly the places that break it, and nothing in a
schema that follows every rule; each says on which client versions and when it was verified;
docs/clients.md renders every rule from the table."""

from __future__ import annotations

import importlib.util
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from pytest_mcp_contracts.judges.clients import (
    PLACES_SHOWN,
    RULES,
    check_clients,
    chosen_profiles,
    subschemas,
)
from pytest_mcp_contracts.judges.failures import FailureKind
from pytest_mcp_contracts.judges.tool_listing import check_listing
from pytest_mcp_contracts.schema.budgets import DOCUMENT_DEPTH
from pytest_mcp_contracts.transport.discover import Entry
from pytest_mcp_contracts.vocabulary import CLIENT_PROFILES, ClientProfile, EntryKind

DOCS = Path(__file__).parents[3] / "docs" / "clients.md"
D07 = "http://json-schema.org/draft-07/schema#"
D04 = "http://json-schema.org/draft-04/schema#"
HOOK = DOCS.parent / "_hooks" / "generated.py"

# A listing entry that follows every rule of every profile: typed, closed objects with
# properties, arrays with items, one type each, no $ref, no boolean schema, 2020-12.
GOOD_INPUT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "tags": {"type": "array", "items": {"type": "string"}, "description": "labels"},
        "where": {
            "type": "object",
            "properties": {"lat": {"type": "number"}, "lon": {"type": "number"}},
            "required": ["lat", "lon"],
            "additionalProperties": False,
        },
        "mode": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
    },
    "required": ["tags"],
    "additionalProperties": False,
}
GOOD_OUTPUT: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {"point": {"type": "array", "prefixItems": [{"type": "number"}] * 2}},
}


def tool(input_schema: Any = None, output_schema: Any = None) -> Entry:
    raw: dict[str, Any] = {"name": "t", "inputSchema": input_schema or GOOD_INPUT}
    if output_schema is not None:
        raw["outputSchema"] = output_schema
    return Entry(EntryKind.TOOL, key="t", node_name="t", raw=raw)


def with_property(schema: Any) -> dict[str, Any]:
    return {**GOOD_INPUT, "properties": {**GOOD_INPUT["properties"], "p": schema}}


# (rule, input schema, output schema, where): each case breaks exactly that rule among the
# rules of its own client.
CASES = [
    ("claude/output-dialect", None, {**GOOD_OUTPUT, "$schema": D07}, "outputSchema $"),
    (
        "claude/output-dialect",
        None,
        {**GOOD_OUTPUT, "$schema": "https://json-schema.org/draft/2019-09/schema"},
        "outputSchema $",
    ),
    ("typescript-sdk/output-dialect", None, {**GOOD_OUTPUT, "$schema": D04}, "outputSchema $"),
    (
        "typescript-sdk/output-dialect",
        None,
        {**GOOD_OUTPUT, "$schema": "https://example.com/my-dialect"},
        "outputSchema $",
    ),
    (
        "typescript-sdk/output-tuple-items",
        None,
        {"type": "object", "properties": {"p": {"type": "array", "items": [{"type": "number"}]}}},
        "outputSchema $.properties.p",
    ),
    (
        "claude/output-tuple-items",
        None,
        {"type": "object", "properties": {"p": {"type": "array", "items": [{"type": "number"}]}}},
        "outputSchema $.properties.p",
    ),
    ("vscode/array-items", with_property({"type": "array"}), None, "inputSchema $.properties.p"),
    (
        "vscode/array-items",
        with_property({"type": "object", "properties": {"q": {"type": "array", "items": False}}}),
        None,
        "inputSchema $.properties.p.properties.q",
    ),
    ("openai/root-properties", {"type": "object"}, None, "inputSchema $"),
    (
        "openai/array-items",
        with_property({"anyOf": [{"type": "array"}, {"type": "null"}]}),
        None,
        "inputSchema $.properties.p.anyOf[0]",
    ),
    (
        "openai-strict/additional-properties",
        with_property(
            {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": {}}
        ),
        None,
        "inputSchema $.properties.p",
    ),
    (
        "openai-strict/open-object",
        with_property({"type": "object", "properties": {}}),
        None,
        "inputSchema $.properties.p",
    ),
    (
        "openai-strict/root-union",
        {**GOOD_INPUT, "type": ["object", "null"]},
        None,
        "inputSchema $",
    ),
    (
        "openai-strict/root-union",
        {**GOOD_INPUT, "oneOf": [{"required": ["tags"]}, {"required": ["where"]}]},
        None,
        "inputSchema $",
    ),
    (
        "openai-strict/ref-siblings",
        {
            **GOOD_INPUT,
            "properties": {"p": {"$ref": "#/$defs/P", "minLength": 1}},
            "required": [],
            "$defs": {"P": {"type": "string"}},
        },
        None,
        "inputSchema $.properties.p",
    ),
    (
        "gemini/array-items",
        with_property({"type": "object", "properties": {"q": {"type": "array"}}}),
        None,
        "inputSchema $.properties.p.properties.q",
    ),
    (
        "gemini/type-union",
        with_property({"type": "array", "items": {"type": ["object", "null"], "properties": {}}}),
        None,
        "inputSchema $.properties.p.items",
    ),
    ("gemini/boolean-schema", with_property(True), None, "inputSchema $.properties.p"),
    (
        "gemini/value-type",
        with_property({"description": "anything"}),
        None,
        "inputSchema $.properties.p",
    ),
    (
        "gemini/ref",
        {
            **GOOD_INPUT,
            "properties": {"p": {"$ref": "#/$defs/P"}},
            "required": [],
            "$defs": {"P": {"type": "string"}},
        },
        None,
        "inputSchema $.properties.p",
    ),
]
CLIENT_OF = {rule.id: rule.client for rule in RULES}


def test_a_tool_that_follows_every_rule_has_no_finding() -> None:
    assert check_clients(tool(GOOD_INPUT, GOOD_OUTPUT), CLIENT_PROFILES) == []
    assert (
        check_listing(
            tool(GOOD_INPUT, GOOD_OUTPUT), protocol_version="2025-11-25", clients=CLIENT_PROFILES
        )
        == []
    )


@pytest.mark.parametrize(("rule", "input_schema", "output_schema", "where"), CASES)
def test_each_rule_finds_its_place(
    rule: str, input_schema: Any, output_schema: Any, where: str
) -> None:
    client = CLIENT_OF[rule]
    findings = check_clients(tool(input_schema, output_schema), [client])
    own = [f for f in findings if f.client == client]
    assert [(f.rule, f.where) for f in own] == [(rule, where)]
    [finding] = own
    assert finding.kind is FailureKind.CLIENT_SCHEMA and finding.level == "error"
    shown = finding.render()  # the id, the place and the fix, each said once
    assert shown.startswith(f"[{rule}] ") and shown.count(f"at {where}\n") == 1
    assert finding.fix and shown.count(finding.fix) == 1


def _rendered_docs() -> str:
    """docs/clients.md as the site shows it: its rule tables rendered by the mkdocs hook."""
    spec = importlib.util.spec_from_file_location("docs_generated", HOOK)
    assert spec is not None and spec.loader is not None
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)
    rendered: str = hook.render(DOCS.read_text(encoding="utf-8"))
    return rendered


def test_every_rule_has_a_case_and_a_line_in_the_docs() -> None:
    docs = _rendered_docs()
    for rule in RULES:
        assert rule.id in {case[0] for case in CASES}, rule.id
        assert f"`{rule.id}`" in docs, f"{rule.id} is missing from docs/clients.md"
        assert rule.id.startswith(f"{rule.client}/")


def test_only_chosen_profiles_report_and_strict_openai_implies_openai() -> None:
    broken = tool(with_property({"type": "array"}))
    assert {f.client for f in check_clients(broken, ["vscode"])} == {"vscode"}
    assert check_clients(broken, []) == []
    assert {f.client for f in check_clients(broken, ["openai-strict"])} == {"openai"}
    assert chosen_profiles(["openai-strict"]) == {
        ClientProfile.OPENAI_STRICT,
        ClientProfile.OPENAI,
    }


def test_one_finding_per_place_then_a_count() -> None:
    many = {"type": "object", "properties": {f"p{i}": {"type": "array"} for i in range(30)}}
    findings = check_clients(tool(many), ["vscode"])
    assert len(findings) == PLACES_SHOWN + 1
    assert len({f.where for f in findings[:PLACES_SHOWN]}) == PLACES_SHOWN
    assert "10 more place(s)" in findings[-1].message


def test_claude_reads_the_output_schema_only() -> None:
    draft7 = {**GOOD_INPUT, "$schema": D07}
    assert check_clients(tool(draft7), ["claude"]) == []


def test_vscode_walks_what_copilot_walks() -> None:
    # Copilot Chat's walk does not enter $defs: an array without items there is not refused
    # by it (OpenAI's API, walking everything, is told apart).
    schema = {**GOOD_INPUT, "$defs": {"P": {"type": "array"}}}
    assert check_clients(tool(schema), ["vscode"]) == []
    assert [f.where for f in check_clients(tool(schema), ["openai"])] == [
        'inputSchema $["$defs"].P'
    ]


def test_the_spec_check_speaks_first() -> None:
    # A schema the spec refuses is reported once, by the mcp profile's rule.
    findings = check_listing(
        tool({"type": "array"}), protocol_version="2025-11-25", clients=CLIENT_PROFILES
    )
    assert [(f.rule, f.client) for f in findings] == [("mcp/root-object", "mcp")]


def test_walks_are_bounded() -> None:
    deep: Any = {"type": "string"}
    for _ in range(DOCUMENT_DEPTH * 3):
        deep = {"type": "object", "properties": {"d": deep}}
    levels = max(len(path) for _, path in subschemas(deep))
    assert levels == 2 * DOCUMENT_DEPTH


def test_every_rule_says_on_what_and_when_it_was_verified_and_the_docs_show_it() -> None:
    docs = _rendered_docs()
    for rule in RULES:
        seen = rule.verified
        assert seen.versions and seen.how, rule.id
        assert date.fromisoformat(seen.on) <= date.today(), rule.id
        row = next(line for line in docs.splitlines() if line.startswith(f"| `{rule.id}` |"))
        assert f"**{seen.on}**" in row, rule.id
        finding = check_clients(tool(*_case_schemas(rule.id)), [rule.client])[0]
        assert f"verified on {seen.versions} ({seen.on})" in finding.details, rule.id


def _case_schemas(rule_id: str) -> tuple[Any, Any]:
    case = next(case for case in CASES if case[0] == rule_id)
    return case[1], case[2]


def test_claude_output_dialect_names_claude_desktop_and_when_it_lapses() -> None:
    [finding] = check_clients(tool(None, {**GOOD_OUTPUT, "$schema": D07}), ["claude"])
    assert finding.message.startswith("Claude Desktop refuses this tool: ")
    [lapses] = [line for line in finding.details if line.startswith("until: ")]
    assert "fixed validator" in lapses and "typescript-sdk/output-dialect" in lapses
    assert "`claude/output-dialect`: the Claude Desktop release that ships" in _rendered_docs()


# What @modelcontextprotocol/client 2.0.0-2.4.0 called and refused (docs/clients.md, "How it
# was verified"): their declaredDialect, not this project's own dialect reading.
TS_SDK_TAKES = [
    None,
    "https://json-schema.org/draft/2020-12/schema",
    "http://json-schema.org/draft/2020-12/schema#",
    "https://json-schema.org/draft/2019-09/schema",
    D07,
    "https://json-schema.org/draft-07/schema",
    "http://json-schema.org/draft-06/schema#",
    4,  # not a string: the SDK reads 2020-12 (the spec check refuses it first here)
]
TS_SDK_REFUSES = [
    D04,
    "http://json-schema.org/draft-03/schema#",
    "https://example.com/my-dialect",
    D07 + " ",  # taken by schema/dialects, which strips it; not by the SDK
    "http://json-schema.org/draft-07/schema##",  # one '#' is dropped, not two
]


@pytest.mark.parametrize("declared", TS_SDK_TAKES + TS_SDK_REFUSES)
def test_the_typescript_sdk_dialects_are_the_sdks_own(declared: Any) -> None:
    output = {**GOOD_OUTPUT}
    output.pop("$schema")
    if declared is not None:
        output["$schema"] = declared
    rules = [f.rule for f in check_clients(tool(None, output), ["typescript-sdk"])]
    assert rules == ([] if declared in TS_SDK_TAKES else ["typescript-sdk/output-dialect"])


def test_the_typescript_sdk_takes_a_tuple_in_the_dialects_that_allow_one() -> None:
    tuple_output: dict[str, Any] = {
        "type": "object",
        "properties": {"p": {"type": "array", "items": [{"type": "number"}]}},
    }
    for dialect in (D07, "https://json-schema.org/draft/2019-09/schema"):
        declared = {**tuple_output, "$schema": dialect}
        assert check_clients(tool(None, declared), ["typescript-sdk"]) == []
    # ajv compiles a definition only where a $ref reaches it: an unreferenced one is taken.
    unreferenced = {"type": "object", "$defs": {"T": tuple_output["properties"]["p"]}}
    assert check_clients(tool(None, unreferenced), ["typescript-sdk", "claude"]) == []
    # The SDK 2.x client never checks an inputSchema's dialect.
    assert check_clients(tool({**GOOD_INPUT, "$schema": D04}), ["typescript-sdk"]) == []
