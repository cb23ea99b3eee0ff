"""Check: what named clients refuse in a tool's schemas, beyond what the MCP spec asks.

A server can follow the spec to the letter and still break in its users' hands, because
clients and model providers enforce rules of their own: VS Code/Copilot throws on an array
without ``items``, OpenAI refuses a root object without ``properties``, Claude refuses an
``outputSchema`` that declares draft-07. Each rule here is one row of ``RULES``: its id, the
client, which schema it reads, the function that finds the places that break it, what the
client does, the fix, the source (the client's code, or an issue thread that reproduces it),
and the client versions it was verified on and when (clients change: a rule is as old as its
verification). docs/clients.md renders its rule tables from ``RULES``
(docs/_hooks/generated.py), so the page cannot drift from the checks.

The rules never follow ``$ref``s (a client that does is free to refuse what it finds there:
the places are reported where they are written), and every walk is bounded by
``schema/budgets``.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass
from typing import Any, Final

from pytest_mcp_contracts.judges.failures import FailureKind, Finding
from pytest_mcp_contracts.schema.budgets import CLIENT_RULE_VISITS, DOCUMENT_DEPTH
from pytest_mcp_contracts.schema.dialects import DIALECT_URIS
from pytest_mcp_contracts.schema.document import declared_types
from pytest_mcp_contracts.schema.paths import json_path
from pytest_mcp_contracts.schema.refs import SCHEMA_LISTS, SCHEMA_MAPS, SCHEMA_SINGLES
from pytest_mcp_contracts.text import shorten
from pytest_mcp_contracts.transport.discover import Entry
from pytest_mcp_contracts.vocabulary import (
    CLIENT_PROFILES,
    ClientProfile,
)

Path = tuple[str | int, ...]
# A rule's finder: every place in one schema document that breaks the rule, with a few words
# about what is there when the rule's own words do not say it (the declared ``$schema``, the
# union of types; else ""), in document order.
Finder = Callable[[Any], Iterator[tuple[Path, str]]]

CLIENT_NAMES: Final = {
    ClientProfile.CLAUDE: "Claude (Desktop/Code)",
    ClientProfile.OPENAI: "OpenAI",
    ClientProfile.OPENAI_STRICT: "OpenAI strict mode",
    ClientProfile.GEMINI: "Gemini",
    ClientProfile.VSCODE: "VS Code/Copilot",
    ClientProfile.TYPESCRIPT_SDK: "the TypeScript SDK 2.x client",
    ClientProfile.MCP: "the MCP spec",
}
# Strict mode is OpenAI's function calling with more rules: choosing it chooses both.
IMPLIES: Final = {ClientProfile.OPENAI_STRICT: ClientProfile.OPENAI}
#: Places of one rule reported one by one; past this one more finding says how many more.
PLACES_SHOWN: Final = 20


# -- walking a schema --------------------------------------------------------------------------

# Keywords whose value is a map of subschemas, a list of them, or one of them (the schema
# layer's one list, contentSchema aside: no client walks into a string's decoded content).
_MAPS: Final = SCHEMA_MAPS
_LISTS: Final = SCHEMA_LISTS
_SINGLES: Final = SCHEMA_SINGLES - {"contentSchema"}
EVERYWHERE: Final = _MAPS | _LISTS | _SINGLES
# The keywords each client's own walk descends through (see the sources in RULES): a place it
# never visits is not one it refuses.
VSCODE_WALK: Final = frozenset(
    {
        "properties",
        "items",
        "dependencies",
        "patternProperties",
        "additionalProperties",
        "anyOf",
        "allOf",
        "oneOf",
        "not",
        "if",
        "then",
        "else",
        "contains",
    }
)
STRICT_WALK: Final = frozenset(
    {"$defs", "definitions", "properties", "items", "anyOf", "oneOf", "allOf"}
)
# What ajv compiles when it compiles a schema: everything but the definitions, which it compiles
# only when a $ref reaches them (a tuple in an unreferenced $defs entry compiles; measured with
# the TypeScript SDK 2.4.0's AjvJsonSchemaValidator). The rules do not follow $refs, so a
# referenced definition is not reported: a miss, never a false refusal.
AJV_WALK: Final = EVERYWHERE - {"$defs", "definitions"}


def subschemas(root: Any, walk: Collection[str] = EVERYWHERE) -> Iterator[tuple[Any, Path]]:
    """Every subschema (boolean ones included) reached from ``root`` through the keywords in
    ``walk``, root first, in document order: ``DOCUMENT_DEPTH`` levels deep and at most
    ``CLIENT_RULE_VISITS`` of them, without recursion and without following ``$ref``."""
    stack: list[tuple[Any, Path, int]] = [(root, (), 0)]
    visits = 0
    while stack and visits < CLIENT_RULE_VISITS:
        node, path, level = stack.pop()
        visits += 1
        yield node, path
        if not isinstance(node, dict) or level >= DOCUMENT_DEPTH:
            continue
        children: list[tuple[Any, Path, int]] = []
        for key, value in node.items():
            if key not in walk:
                continue
            if key in _MAPS and isinstance(value, dict):
                children += [
                    (sub, (*path, key, name), level + 1)
                    for name, sub in value.items()
                    if isinstance(sub, dict | bool)
                ]
            elif key in _LISTS and isinstance(value, list):
                children += [
                    (sub, (*path, key, i), level + 1)
                    for i, sub in enumerate(value)
                    if isinstance(sub, dict | bool)
                ]
            elif key in _SINGLES and isinstance(value, dict | bool):
                children.append((value, (*path, key), level + 1))
        stack += reversed(children)


def _each_node(
    test: Callable[[dict[str, Any], Path], str | None], walk: Collection[str] = EVERYWHERE
) -> Finder:
    """A finder that asks ``test`` about every object subschema ``walk`` reaches."""

    def find(root: Any) -> Iterator[tuple[Path, str]]:
        for node, path in subschemas(root, walk):
            if isinstance(node, dict) and (detail := test(node, path)) is not None:
                yield path, detail

    return find


def _at_root(test: Callable[[dict[str, Any]], str | None]) -> Finder:
    def find(root: Any) -> Iterator[tuple[Path, str]]:
        if isinstance(root, dict) and (detail := test(root)) is not None:
            yield (), detail

    return find


# -- what each rule looks for --------------------------------------------------------------------


def _array_without_items(node: dict[str, Any], _: Path) -> str | None:
    types = declared_types(node) or []
    return "" if "array" in types and "items" not in node else None


def _vscode_array_without_items(node: dict[str, Any], _: Path) -> str | None:
    # Copilot Chat tests `n.type === 'array' && !n.items`: only a single type, and a falsy
    # items (missing, or `false`) counts as none.
    if node.get("type") == "array" and node.get("items") in (None, False):
        return "" if "items" not in node else "items: false"
    return None


def _type_union(node: dict[str, Any], _: Path) -> str | None:
    declared = node.get("type")
    return f"type {declared}" if isinstance(declared, list) else None


def _boolean_schemas(root: Any) -> Iterator[tuple[Path, str]]:
    # Where a value's schema is written (a property, the items, a branch): the threads show
    # `true` there refused. `additionalProperties: false` is a keyword's value, not a
    # declaration of a value, and nothing shows it refused.
    for node, path in subschemas(root):
        if isinstance(node, bool) and _in_value_slot(path):
            yield path, f"the schema `{str(node).lower()}`"


def _root_without_properties(node: dict[str, Any]) -> str | None:
    if node.get("type") == "object" and not isinstance(node.get("properties"), dict):
        return ""
    return None


_TYPED_BY: Final = ("type", "anyOf", "oneOf", "allOf", "$ref")


def _untyped_values(root: Any) -> Iterator[tuple[Path, str]]:
    """Property, item and branch schemas that say no type (and are no union or reference,
    whose own rules cover them)."""
    for node, path in subschemas(root):
        typed = isinstance(node, dict) and any(key in node for key in _TYPED_BY)
        if isinstance(node, dict) and not typed and _in_value_slot(path):
            yield path, ""


_VALUE_SLOTS: Final = ("properties", "anyOf", "oneOf", "allOf", "items", "prefixItems")


def _in_value_slot(path: Path) -> bool:
    """Whether ``path`` ends where the schema of a value is written: a property, the items,
    a tuple position or a union's branch."""
    if not path:
        return False
    return path[-1] == "items" or (len(path) >= 2 and path[-2] in _VALUE_SLOTS)


def _refs(node: dict[str, Any], _: Path) -> str | None:
    ref = node.get("$ref")
    return f"$ref {shorten(str(ref), 80)!r}" if ref is not None else None


_2020_12_URIS: Final = frozenset(uri for uri, name in DIALECT_URIS.items() if name == "2020-12")


def _other_dialect(node: dict[str, Any]) -> str | None:
    declared = node.get("$schema")
    if not isinstance(declared, str):
        return None
    key = declared.strip().removesuffix("#")
    key = "http://" + key.removeprefix("https://") if key.startswith("https://") else key
    return None if key in _2020_12_URIS else f"$schema {shorten(declared, 80)!r}"


def _tuple_items(node: dict[str, Any], _: Path) -> str | None:
    return "" if isinstance(node.get("items"), list) else None


# The dialects the TypeScript SDK 2.x's default validators accept, as its declaredDialect
# (packages/core-internal/src/validators/dialects.ts, the same from 2.0.0 to 2.4.0) matches
# them: these exact URIs once one trailing '#' is dropped, nothing else normalised (a
# trailing space is an unknown dialect there, though not here: schema/dialects strips it).
_TS_SDK_DIALECTS: Final = {
    f"{scheme}://json-schema.org/{path}/schema": name
    for scheme in ("http", "https")
    for path, name in (
        ("draft/2020-12", "2020-12"),
        ("draft/2019-09", "2019-09"),
        ("draft-07", "draft-07"),
        ("draft-06", "draft-06"),
    )
}


def _ts_sdk_dialect(node: dict[str, Any]) -> str | None:
    """The dialect a TypeScript SDK 2.x client validates ``node`` in (2020-12 without a string
    ``$schema``, as the SDK reads it), or None for one it refuses."""
    declared = node.get("$schema")
    if not isinstance(declared, str):
        return "2020-12"
    return _TS_SDK_DIALECTS.get(declared.removesuffix("#"))


def _ts_sdk_unknown_dialect(node: dict[str, Any]) -> str | None:
    if _ts_sdk_dialect(node) is not None:
        return None
    return f"$schema {shorten(str(node['$schema']), 80)!r}"


def _ts_sdk_tuple_items(root: Any) -> Iterator[tuple[Path, str]]:
    # Only Ajv2020 refuses a list of items: the SDK compiles a schema declared 2019-09 with
    # Ajv2019 and one declared draft-07 or draft-06 with the classic Ajv, which take it.
    if isinstance(root, dict) and _ts_sdk_dialect(root) == "2020-12":
        yield from _each_node(_tuple_items, AJV_WALK)(root)


def _open_additional_properties(node: dict[str, Any], _: Path) -> str | None:
    # ensure_strict_json_schema: an object (or a schema without type) whose
    # additionalProperties is anything but false raises; `{}` counts as open.
    if "additionalProperties" not in node or node["additionalProperties"] is False:
        return None
    types = declared_types(node)
    if types is None or "object" in types:
        return f"additionalProperties {shorten(repr(node['additionalProperties']), 60)}"
    return None


def _open_object(node: dict[str, Any], _: Path) -> str | None:
    # With _reject_open_objects (every MCP inputSchema but `{}`): an object with no declared
    # properties that does not close itself with additionalProperties: false.
    types = declared_types(node) or []
    if "object" not in types or node.get("properties") not in (None, {}):
        return None
    if "additionalProperties" in node:
        return None  # false is closed; anything else is the additional-properties rule's
    return ""


def _root_union(node: dict[str, Any]) -> str | None:
    # The conversion turns oneOf into anyOf before it looks at the root.
    for keyword in ("anyOf", "oneOf"):
        if isinstance(node.get(keyword), list):
            return keyword
    types = node.get("type")
    if isinstance(types, list) and "object" in types and types != ["object"]:
        return f"type {types}"
    return None


_NON_CONSTRAINING: Final = frozenset(
    {
        "$anchor",
        "$comment",
        "$defs",
        "$schema",
        "contentEncoding",
        "contentMediaType",
        "contentSchema",
        "default",
        "definitions",
        "deprecated",
        "description",
        "examples",
        "readOnly",
        "title",
        "writeOnly",
    }
)


def _ref_with_siblings(node: dict[str, Any], path: Path) -> str | None:
    if "$ref" not in node:
        return None
    allowed = _NON_CONSTRAINING | {"$ref"} | ({"$id"} if not path else set())
    extra = sorted(set(node) - allowed)
    return f"$ref beside {', '.join(extra)}" if extra else None


# -- the rules -----------------------------------------------------------------------------------

INPUT, OUTPUT = "inputSchema", "outputSchema"


@dataclass(frozen=True)
class Verified:
    """The client versions a rule was last verified on, when, and how: a client that changes
    its validator makes the rule wrong, so the rule says how old its evidence is."""

    versions: str  # the client (and its version) that refused, e.g. "Claude Desktop 2.2553.1"
    on: str  # the date of the evidence (ISO), a report's or our own run's
    how: str  # run here, read in the client's source, or reported (which thread)


@dataclass(frozen=True)
class Rule:
    """One thing one client refuses, with where we know it from."""

    id: str  # "<client>/<what>": the name users see and docs/clients.md lists
    client: ClientProfile
    schema: str  # which schema of the listing entry it reads
    find: Finder
    refuses: str  # what the client refuses, in a few words
    why: str  # what the client does then
    fix: str
    source: str  # the client's code, or the issue thread that reproduces it
    verified: Verified
    # The client the findings name, where the rule holds for one client of the profile only.
    who: str | None = None
    # What changes when the client stops refusing (a fixed release): the rule then lapses.
    lapses: str = ""

    @property
    def client_name(self) -> str:
        return self.who or CLIENT_NAMES[self.client]


_TS_SDK_AJV = (
    "modelcontextprotocol/typescript-sdk packages/core-internal/src/validators/ajvProvider.ts "
    "before #2534 (commit f130e1ac5), whose error Claude prints; threads: anthropics/claude-code"
    "#86142, #90245, oscardvs/zoteus#83, sweetrb/apple-mail-mcp#147"
)
_TS_SDK_2 = (
    "@modelcontextprotocol/client 2.0.0-2.4.0: declaredDialect in dist/dialects-*.mjs "
    "(packages/core-internal/src/validators/dialects.ts), called by AjvJsonSchemaValidator and "
    "CfWorkerJsonSchemaValidator; Client.callTool throws InvalidParams before the request"
)
# Run here on 2026-12-02: each of @modelcontextprotocol/client 2.0.0, 2.1.0, 2.2.0, 2.3.1 and
# 2.4.0 (npm) connected over stdio to a raw server whose tools declare one dialect each, and
# called every tool; @modelcontextprotocol/sdk 1.32.2's client, for contrast, called them all.
_TS_SDK_RUN = Verified(
    "@modelcontextprotocol/client 2.0.0, 2.1.0, 2.2.0, 2.3.1 and 2.4.0 on Node 20",
    "2026-12-02",
    "run here: Client.callTool on tools declaring each dialect; the 1.32.2 client refuses none",
)
_COPILOT_NORMALIZER = (
    "microsoft/vscode-copilot-chat src/extension/tools/common/toolSchemaNormalizer.ts "
    "(normalizeToolSchema)"
)
_STRICT_SCHEMA = (
    "openai/openai-agents-python src/agents/strict_schema.py (ensure_strict_json_schema, with "
    "_reject_open_objects as src/agents/mcp/util.py calls it)"
)
_STRICT_WHY = (
    "the Agents SDK cannot convert the schema to strict mode and sends the tool non-strict "
    "(logged); strict function calling refuses it"
)
_STRICT_READ = Verified(
    "openai-agents 0.24.0 (PyPI)",
    "2026-12-02",
    "read here: strict_schema.py still raises for these, and mcp/util.py still passes "
    "_reject_open_objects for every inputSchema but {}",
)
_CLAUDE_DESKTOP = "Claude Desktop"
_CLAUDE_LAPSES = (
    "the Claude Desktop release that ships the TypeScript SDK's fixed validator (typescript-sdk "
    "PR #2534, @modelcontextprotocol/client 2.0.0 on) takes draft-07, draft-06 and 2019-09: "
    "this rule then lapses, and typescript-sdk/output-dialect still refuses draft-04 and "
    "unknown dialects"
)

RULES: Final[tuple[Rule, ...]] = (
    Rule(
        "claude/output-dialect",
        ClientProfile.CLAUDE,
        OUTPUT,
        _at_root(_other_dialect),
        "an outputSchema that declares a $schema other than 2020-12",
        "every call of the tool fails client-side before it is sent: 'Tool ... has an invalid "
        "outputSchema: JSON Schema declares an unsupported dialect'",
        "declare $schema https://json-schema.org/draft/2020-12/schema or drop it (for zod: "
        "z.toJSONSchema(schema, {target: 'draft-2020-12'}))",
        _TS_SDK_AJV + ", shashankswe2020-ux/whoop-mcp#251",
        Verified(
            "Claude Desktop 2.2553.1 (macOS); the Code tab of the desktop app at 2.1.250",
            "2026-09-21",
            "reported: shashankswe2020-ux/whoop-mcp#251 (Desktop 2.2553.1, 2026-09-21), "
            "anthropics/claude-code#90245 (2026-08-28: the Claude Code CLI 2.1.250 accepts "
            "what its desktop app refuses; #86142: the CLI 2.1.233 accepts draft-07)",
        ),
        who=_CLAUDE_DESKTOP,
        lapses=_CLAUDE_LAPSES,
    ),
    Rule(
        "claude/output-tuple-items",
        ClientProfile.CLAUDE,
        OUTPUT,
        _each_node(_tuple_items, AJV_WALK),
        "an outputSchema with a draft-07 tuple (items given as a list)",
        "the 2020-12 validator (Ajv2020) does not compile it: 'items value must be "
        '["object","boolean"]\', so every call of the tool fails',
        "use prefixItems for the positions (and items: false to close the tuple)",
        _TS_SDK_AJV + "; AlexGladkov/claude-in-mobile#57 (z.tuple); compile error measured with "
        "ajv 8.20 Ajv2020 configured as that provider",
        Verified(
            "Claude Desktop (its validator: typescript-sdk before #2534)",
            "2026-11-25",
            "measured here with ajv 8.20 Ajv2020 configured as that provider; reported: "
            "AlexGladkov/claude-in-mobile#57",
        ),
        who=_CLAUDE_DESKTOP,
        lapses="with the fixed validator a tuple still fails where the schema is 2020-12 "
        "(typescript-sdk/output-tuple-items) and passes where it declares draft-07",
    ),
    Rule(
        "typescript-sdk/output-dialect",
        ClientProfile.TYPESCRIPT_SDK,
        OUTPUT,
        _at_root(_ts_sdk_unknown_dialect),
        "an outputSchema that declares draft-04 or a $schema it does not know",
        "it takes 2020-12, 2019-09, draft-07 and draft-06 only: callTool fails client-side "
        "before the request is sent ('Tool ... has an invalid outputSchema: JSON Schema "
        "declares an unsupported dialect'); the inputSchema is not checked so",
        "declare $schema https://json-schema.org/draft/2020-12/schema or drop it",
        _TS_SDK_2,
        _TS_SDK_RUN,
    ),
    Rule(
        "typescript-sdk/output-tuple-items",
        ClientProfile.TYPESCRIPT_SDK,
        OUTPUT,
        _ts_sdk_tuple_items,
        "an outputSchema in 2020-12 (no $schema, or that one) with items given as a list",
        "Ajv2020 does not compile it: callTool fails client-side with 'Tool ... has an "
        'invalid outputSchema: items value must be ["object","boolean"]\'',
        "use prefixItems for the positions (and items: false to close the tuple)",
        _TS_SDK_2,
        _TS_SDK_RUN,
    ),
    Rule(
        "vscode/array-items",
        ClientProfile.VSCODE,
        INPUT,
        _each_node(_vscode_array_without_items, VSCODE_WALK),
        "an array schema without items",
        "Copilot Chat throws 'tool parameters array type must have items' and the request "
        "fails, for every tool of the session",
        'add items (e.g. "items": {"type": "string"}, or {} for anything)',
        _COPILOT_NORMALIZER + "; microsoft/vscode#246119, #284536",
        Verified(
            "VS Code 1.107.1 with Copilot Chat",
            "2025-12-19",
            "reported: microsoft/vscode#284536; the walk follows normalizeToolSchema as read "
            "when the rule was written (2026-11-25)",
        ),
    ),
    Rule(
        "openai/root-properties",
        ClientProfile.OPENAI,
        INPUT,
        _at_root(_root_without_properties),
        "an object inputSchema without properties",
        "the API answers 400 'Invalid schema for function ...: In context=(), object schema "
        "missing properties' (the Agents SDK adds properties itself; other clients do not)",
        'add "properties": {} (also for a tool without arguments)',
        "github/github-mcp-server#1548, github/copilot-cli#2223, openai/openai-agents-python"
        "#449 (fixed on the SDK side in #454, src/agents/mcp/util.py)",
        Verified(
            "the OpenAI API as Codex sends it",
            "2026-05-06",
            "reported: inboxapi/cli#106 (validated against the live endpoint that day)",
        ),
    ),
    Rule(
        "openai/array-items",
        ClientProfile.OPENAI,
        INPUT,
        _each_node(_array_without_items),
        "an array schema without items",
        "the API answers 400 'Invalid schema for function ...: In context=(...), array "
        "schema missing items', for the whole request",
        'add items (e.g. "items": {"type": "string"}, or {} for anything)',
        "spacelift-io/spacectl#402, digitalocean-labs/mcp-digitalocean#265, mark3labs/mcphost#35",
        Verified(
            "the OpenAI API as Codex sends it",
            "2026-05-15",
            "reported: garrytan/gbrain#1028 ('Invalid schema for function ...: array schema "
            "missing items')",
        ),
    ),
    Rule(
        "openai-strict/additional-properties",
        ClientProfile.OPENAI_STRICT,
        INPUT,
        _each_node(_open_additional_properties, STRICT_WALK),
        "an object whose additionalProperties is not false",
        _STRICT_WHY,
        "declare every property and set additionalProperties: false",
        _STRICT_SCHEMA,
        _STRICT_READ,
    ),
    Rule(
        "openai-strict/open-object",
        ClientProfile.OPENAI_STRICT,
        INPUT,
        _each_node(_open_object, STRICT_WALK),
        "an object without properties that is not closed with additionalProperties: false",
        _STRICT_WHY,
        "declare its properties, or add additionalProperties: false",
        _STRICT_SCHEMA,
        _STRICT_READ,
    ),
    Rule(
        "openai-strict/root-union",
        ClientProfile.OPENAI_STRICT,
        INPUT,
        _at_root(_root_union),
        "a root that is a union (anyOf, oneOf, or a nullable object type)",
        _STRICT_WHY,
        "make the root a plain object; move alternatives into a property",
        _STRICT_SCHEMA + " (_ensure_strict_root)",
        _STRICT_READ,
    ),
    Rule(
        "openai-strict/ref-siblings",
        ClientProfile.OPENAI_STRICT,
        INPUT,
        _each_node(_ref_with_siblings, STRICT_WALK),
        "a $ref beside keywords that constrain the value",
        _STRICT_WHY,
        "move the constraints into the referenced schema, or inline it",
        _STRICT_SCHEMA,
        _STRICT_READ,
    ),
    Rule(
        "gemini/array-items",
        ClientProfile.GEMINI,
        INPUT,
        _each_node(_array_without_items),
        "an array schema without items",
        "the API answers 400 INVALID_ARGUMENT ('... items: missing field') for every request "
        "while the tool is enabled",
        'add items (e.g. "items": {"type": "string"})',
        "backstage/backstage#34038, anomalyco/opencode#48073",
        Verified(
            "the Gemini API as opencode sends it",
            "2026-09-09",
            "reported: anomalyco/opencode#48073",
        ),
    ),
    Rule(
        "gemini/type-union",
        ClientProfile.GEMINI,
        INPUT,
        _each_node(_type_union),
        'a type given as a list (e.g. ["object", "null"])',
        "function declarations take one type (an OpenAPI 3.0 subset): 400 INVALID_ARGUMENT "
        "for every request",
        'declare one type (drop "null", or use nullable: true / anyOf for alternatives)',
        "github/copilot-cli#4623, sbroenne/mcp-server-excel#672 and PR #674",
        Verified(
            "Copilot CLI 1.0.83 with Gemini Flash",
            "2026-09-08",
            "reported: github/copilot-cli#4623",
        ),
    ),
    Rule(
        "gemini/boolean-schema",
        ClientProfile.GEMINI,
        INPUT,
        _boolean_schemas,
        "a boolean schema (true or false) in place of a schema object",
        "400 INVALID_ARGUMENT for every request while the tool is enabled",
        "write {} instead of true (and a schema that says what is refused instead of false)",
        "github/copilot-cli#4623",
        Verified(
            "Copilot CLI 1.0.83 with Gemini Flash",
            "2026-09-08",
            "reported: github/copilot-cli#4623",
        ),
    ),
    Rule(
        "gemini/value-type",
        ClientProfile.GEMINI,
        INPUT,
        _untyped_values,
        "a property, item or branch schema without type",
        "400 '... schema didn't specify the schema type field' for every request",
        "give it a type",
        "awslabs/mcp#661, CoplayDev/unity-mcp#572, zereight/gitlab-mcp#166",
        Verified(
            "the Gemini API (versions not given in the reports)",
            "2025-07-22",
            "reported: zereight/gitlab-mcp#166; gemini-cli stopped skipping such tools itself "
            "(google-gemini/gemini-cli PR #9574, 2025-09-25): the API's refusal is not re-checked",
        ),
    ),
    Rule(
        "gemini/ref",
        ClientProfile.GEMINI,
        INPUT,
        _each_node(_refs),
        "a $ref (function declarations carry no definitions)",
        "400 'reference to undefined schema at ...' for every request",
        "inline the referenced schema",
        "google-gemini/gemini-cli#13326, agent-infra/sandbox#83",
        Verified(
            "the Gemini API as Gemini CLI sends it",
            "2025-11-21",
            "reported: google-gemini/gemini-cli#13326 (2025-11-18), agent-infra/sandbox#83",
        ),
    ),
)


# -- choosing profiles ---------------------------------------------------------------------------


def chosen_profiles(names: Collection[str]) -> frozenset[ClientProfile]:
    """The profiles ``names`` chooses, with what they imply (strict OpenAI is OpenAI too)."""
    chosen = {ClientProfile(name) for name in names if name in CLIENT_PROFILES}
    chosen |= {IMPLIES[p] for p in chosen if p in IMPLIES}
    return frozenset(chosen)


def check_clients(tool: Entry, clients: Collection[str]) -> list[Finding]:
    """Every place in the tool's schemas that a chosen client refuses: one finding per rule
    and place (``PLACES_SHOWN`` per rule, then one that counts the rest)."""
    chosen = chosen_profiles(clients)
    schemas = {INPUT: tool.input_schema, OUTPUT: tool.output_schema}
    findings: list[Finding] = []
    for rule in RULES:
        schema = schemas[rule.schema]
        if rule.client not in chosen or schema is None:
            continue
        places = list(rule.find(schema))
        findings += [_finding(rule, path, detail) for path, detail in places[:PLACES_SHOWN]]
        if len(places) > PLACES_SHOWN:
            findings.append(_more(rule, len(places) - PLACES_SHOWN))
    return findings


def _finding(rule: Rule, path: Path, detail: str) -> Finding:
    client = rule.client_name
    lapses = (f"until: {rule.lapses}",) if rule.lapses else ()
    # The rule's id, the place and the fix are fields: Finding.render shows each once.
    return Finding(
        "schema",
        f"{client} refuses this tool: {rule.refuses}" + (f" ({detail})" if detail else ""),
        details=(
            f"{client}: {rule.why}",
            f"verified on {rule.verified.versions} ({rule.verified.on})",
            *lapses,
            f"source: {rule.source}",
        ),
        kind=FailureKind.CLIENT_SCHEMA,
        rule=rule.id,
        client=str(rule.client),
        where=f"{rule.schema} {json_path(path)}",
        fix=rule.fix,
    )


def _more(rule: Rule, count: int) -> Finding:
    return Finding(
        "schema",
        f"{rule.client_name} refuses {count} more place(s) of {rule.schema} for the same reason",
        kind=FailureKind.CLIENT_SCHEMA,
        rule=rule.id,
        client=str(rule.client),
        fix=rule.fix,
    )
