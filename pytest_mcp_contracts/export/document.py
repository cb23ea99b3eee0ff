"""``mcp-contracts export``: one server's recorded output contracts as code to paste in.

For each tool the snapshot file decides what to export (``plan``): a declared outputSchema
is read exactly, a validated contract strictly, an inferred one permissively
(``export/model``); a tool with no usable contract gets no model, and its section says why.
``render`` writes the whole document for one format (``FORMATS``): a header that says where
it comes from and how to use it, then a section per tool, sorted by name, each with a comment
on what its model rests on. The same snapshot always gives the same bytes: nothing in it
depends on the time, the machine or the order files are listed in.
"""

from __future__ import annotations

import json
import re
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from pytest_mcp_contracts.contracts.infer import ESTABLISHED
from pytest_mcp_contracts.contracts.observe import RecordedContract, RecordError
from pytest_mcp_contracts.contracts.record import (
    SCHEMA_DIALECT,
    proposal_description,
    union_refusal,
)
from pytest_mcp_contracts.contracts.snapshot import dumps
from pytest_mcp_contracts.export import jsonschema, python, zod
from pytest_mcp_contracts.export.model import Namer, Strictness, ToolModel, build
from pytest_mcp_contracts.text import shown
from pytest_mcp_contracts.vocabulary import Quality

FORMATS: Final = ("pydantic", "typeddict", "zod", "jsonschema")
#: The strictness each quality is read with (an unknown contract has no model).
STRICTNESS: Final = {
    Quality.DECLARED: Strictness.EXACT,
    Quality.VALIDATED: Strictness.STRICT,
    Quality.INFERRED: Strictness.PERMISSIVE,
}
WIDTH: Final = 96  # comment lines are wrapped here

_READING: Final = {
    Strictness.EXACT: (
        "Exact: it accepts what the declared outputSchema accepts; objects are closed only "
        "where the schema says additionalProperties: false."
    ),
    Strictness.STRICT: (
        "Strict: unknown keys are refused and every field the contract requires is "
        "required. Loosen it by hand where the tool may return more than was seen."
    ),
    Strictness.PERMISSIVE: (
        f"Permissive: unknown keys are kept, a field is required only where it was in every "
        f"one of {ESTABLISHED} or more objects, whole numbers are typed as numbers, and no "
        "string format is claimed."
    ),
}


@dataclass(frozen=True)
class RecordedTool:
    """One tool's snapshot file: its name, where the file is (as a reader finds it), and
    its content (a contract, checked by the caller)."""

    name: str
    file: str
    data: Mapping[str, Any]


@dataclass
class Plan:
    """What one tool's file gives to export: a schema and how to read it, or why nothing."""

    tool: str
    quality: str
    strictness: Strictness | None = None
    schema: Mapping[str, Any] | None = None
    seen: Mapping[str, int] = field(default_factory=dict)
    basis: str = ""  # what the contract rests on, in the recorded words
    evidence: list[str] = field(default_factory=list)  # lines for the comment
    why_not: str = ""


def plan(tool: RecordedTool) -> Plan:
    """What to export for ``tool``: its declared outputSchema, its learned contract, or why
    neither."""
    surface = tool.data.get("surface")
    declared = surface.get("outputSchema") if isinstance(surface, Mapping) else None
    if isinstance(declared, Mapping):
        return Plan(tool.name, Quality.DECLARED, Strictness.EXACT, declared)
    output = tool.data.get("output")
    if not isinstance(output, Mapping):
        return Plan(
            tool.name,
            Quality.UNKNOWN,
            why_not="no output contract is recorded yet: its contract item has not passed in "
            "a run that records (run pytest --mcp-server=... without CI set)",
        )
    if output.get("source") != "inferred":
        return Plan(
            tool.name,
            Quality.UNKNOWN,
            why_not="the file records a declared output, but no outputSchema in its surface",
        )
    try:
        contract = RecordedContract.from_data(output)
    except RecordError as exc:  # the caller checked it; a file changed since is still said
        return Plan(tool.name, Quality.UNKNOWN, why_not=str(exc))
    if contract.shape is None or contract.quality == Quality.UNKNOWN:
        kinds = f" (its results were {', '.join(contract.kinds)})" if contract.kinds else ""
        return Plan(tool.name, Quality.UNKNOWN, why_not=f"{contract.basis}{kinds}")
    refused = union_refusal(contract.shape.unions())
    if refused is not None:
        return Plan(tool.name, contract.quality, why_not=refused)
    seen = contract.shape.seen()
    count = seen.get("$", 0)
    results = f"{count} result(s)" if count < ESTABLISHED else f"{ESTABLISHED} or more results"
    evidence = [
        f"Rests on {results} (counts stop at {ESTABLISHED}) recorded in {tool.file}, by the "
        f"runs that wrote that file (git log -- {tool.file} lists them).",
    ]
    thin = [f"{path} ({n})" for path, n in seen.items() if path != "$" and 0 < n < ESTABLISHED]
    if thin and contract.quality == Quality.VALIDATED:  # a permissive model says it per object
        evidence.append(f"Thin evidence (fewer than {ESTABLISHED} values seen): {', '.join(thin)}.")
    return Plan(
        tool.name,
        contract.quality,
        STRICTNESS[Quality(contract.quality)],
        contract.shape.to_schema(),
        seen,
        contract.basis,
        evidence,
    )


# -- the document -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Source:
    """Where the contracts come from, for the header."""

    server: str  # the server's name, as its files record it
    folder: str  # its snapshot folder, as the reader finds it
    command: str  # the export command that makes this document again


def _comment(lines: Sequence[str], marker: str) -> list[str]:
    """Prose as comment lines: wrapped, and every character a comment could end on (a line
    break, U+2028 in JavaScript) escaped, since tool names and keys come from the server."""
    out = []
    for line in lines:
        text = shown(line, limit=6 * len(line) + 1)  # escaped, never cut
        if not text:
            out.append(marker.rstrip())
            continue
        wrapped = textwrap.wrap(
            text,
            WIDTH - len(marker),
            subsequent_indent="  ",
            break_on_hyphens=False,
            break_long_words=False,
        )
        out += [f"{marker}{part}" for part in wrapped]
    return out


def _title(p: Plan) -> str:
    if p.strictness is None:
        return f"{p.tool}: no model ({p.quality})"
    return f"{p.tool}: {p.quality} contract, {p.strictness} model"


def _about(p: Plan, notes: Sequence[str], use: str) -> list[str]:
    """What a tool's section says before its code."""
    if p.strictness is None:
        return [_title(p), f"Not exported: {p.why_not}."]
    lines = [_title(p)]
    if p.quality == Quality.DECLARED:
        lines.append("Declared by the server.")
    else:
        lines.append(f"{str(p.quality).capitalize()}: {p.basis}.")
    lines += [*p.evidence, _READING[p.strictness]]
    if notes:
        lines.append("Not expressed, or read otherwise:")
        lines += [f"  {note}" for note in notes]
    return [*lines, use]


def _models(plans: Sequence[Plan]) -> list[tuple[Plan, ToolModel | None]]:
    namer = Namer()  # one document, one set of names
    return [
        (
            p,
            None
            if p.strictness is None or p.schema is None
            else build(p.tool, p.schema, p.strictness, seen=p.seen, namer=namer),
        )
        for p in plans
    ]


def _python_use(p: Plan, model: ToolModel) -> str:
    function = p.tool if python.is_plain_identifier(p.tool) else "your_tool"
    return f"Use: def {function}(...) -> {model.name}:"


def _zod_use(p: Plan, model: ToolModel) -> str:
    value = "{ result: value }" if model.wrapped else "value"
    return (
        f"Use: server.registerTool({json.dumps(p.tool)}, {{ ..., outputSchema: {model.name} }}, "
        f"handler), the handler returning {{ content, structuredContent: {value} }}."
    )


def _header(source: Source, marker: str, usage: Sequence[str]) -> list[str]:
    lines = [
        f"Typed models of the output contracts of MCP server {source.server!r}, recorded by "
        f"pytest-mcp-contracts in {source.folder}.",
        f"Generated by: {source.command}",
        "Run it again when the contracts change: the same snapshot gives the same file.",
        "",
        *usage,
        "",
        "Strictness follows each contract's quality: a declared contract gives an exact "
        "model, a validated one a strict model, an inferred one a permissive model; a tool "
        "with no usable contract gets none, and its section says why.",
    ]
    return _comment(lines, marker)


_PYTHON_USAGE: Final = (
    "How to use: paste a tool's model into your MCPServer server (or import it from this "
    "module) and make it the tool's return annotation. The SDK then declares the model's "
    "schema as the tool's outputSchema and returns what the tool returns as "
    "structuredContent, validated. Run pytest --mcp-server=... again: the tool is now "
    "declared.",
    "Nothing the tool returns is rewritten: models are strict (no coercion), a JSON number "
    "is int | float, a field that may be absent stays absent (MISSING / NotRequired), and a "
    "string format is declared in the schema, where the run checks it, rather than parsed.",
)
_ZOD_USAGE: Final = (
    "How to use: paste a tool's const into your McpServer server (one import of z from zod "
    "is enough), pass it as outputSchema to registerTool, and return the value as "
    "structuredContent beside the text content: the SDK validates it and refuses a result "
    "without it. z.infer<typeof Name> is its TypeScript type. Run pytest --mcp-server=... "
    "again: the tool is now declared.",
)


def _python(plans: Sequence[Plan], source: Source, typed_dict: bool) -> str:
    pairs = _models(plans)
    module = python.render([m for _, m in pairs if m is not None], typed_dict=typed_dict)
    lines = [*_header(source, "# ", _PYTHON_USAGE), "", *module.imports]
    for p, model in pairs:
        lines += ["", ""]
        if model is None:
            lines += _comment(_about(p, [], ""), "# ")
            continue
        notes = [*model.notes, *module.notes[p.tool]]
        lines += _comment(_about(p, notes, _python_use(p, model)), "# ")
        lines += module.code[p.tool][2:]  # the comment sits on the first definition
    return "\n".join(_trim(lines)) + "\n"


def _zod(plans: Sequence[Plan], source: Source) -> str:
    pairs = _models(plans)
    module = zod.render([m for _, m in pairs if m is not None])
    lines = [*_header(source, "// ", _ZOD_USAGE), "", *module.imports]
    for p, model in pairs:
        lines.append("")
        if model is None:
            lines += _comment(_about(p, [], ""), "// ")
            continue
        lines += _comment(_about(p, model.notes, _zod_use(p, model)), "// ")
        lines += module.code[p.tool][1:]
    return "\n".join(_trim(lines)) + "\n"


def _json(plans: Sequence[Plan], source: Source) -> str:
    tools: dict[str, Any] = {}
    for p, model in _models(plans):
        entry: dict[str, Any] = {"quality": str(p.quality)}
        if model is None or p.strictness is None:
            tools[p.tool] = {**entry, "outputSchema": None, "not_exported": p.why_not}
            continue
        if p.strictness is Strictness.EXACT and p.schema is not None:
            schema = dict(p.schema)  # declared: exported as the server declares it
        else:
            schema = {
                "$schema": SCHEMA_DIALECT,
                **jsonschema.render(model),
                "description": proposal_description(p.tool, str(p.quality), p.basis),
            }
        tools[p.tool] = {
            **entry,
            "strictness": str(p.strictness),
            "rests_on": p.evidence,
            "notes": model.notes,
            "outputSchema": schema,
        }
    document = {
        "generated_by": source.command,
        "server": source.server,
        "snapshots": source.folder,
        "use": "Declare each tool's outputSchema as it is here and return the same value as "
        'structuredContent (an output that is no object as {"result": value}). Strictness '
        "follows the quality: declared exact, validated strict, inferred permissive; a tool "
        "whose outputSchema is null says why under not_exported.",
        "tools": tools,
    }
    return dumps(document)


def _trim(lines: list[str]) -> list[str]:
    """No trailing spaces, no more than two blank lines in a row."""
    out: list[str] = []
    for line in (line.rstrip() for line in lines):
        if not line and len(out) >= 2 and not out[-1] and not out[-2]:
            continue
        out.append(line)
    while out and not out[-1]:
        out.pop()
    return out


def export_file_name(fmt: str, server: str) -> str:
    """The file an export writes into a folder: named after the server's snapshot folder
    (a Python module name for the Python formats)."""
    if fmt in ("pydantic", "typeddict"):
        module = re.sub(r"\W", "_", server.lower()).strip("_") or "server"
        module = module if module[0].isalpha() else f"server_{module}"
        return f"{module}_{'models' if fmt == 'pydantic' else 'typeddicts'}.py"
    return f"{server}.zod.ts" if fmt == "zod" else f"{server}.output-schemas.json"


def render(fmt: str, tools: Sequence[RecordedTool], source: Source) -> str:
    """The document of ``tools`` in ``fmt`` (one of FORMATS), tools sorted by name."""
    plans = [plan(tool) for tool in sorted(tools, key=lambda t: t.name)]
    if fmt == "jsonschema":
        return _json(plans, source)
    if fmt == "zod":
        return _zod(plans, source)
    if fmt in ("pydantic", "typeddict"):
        return _python(plans, source, typed_dict=fmt == "typeddict")
    raise ValueError(f"unknown format {fmt!r}; one of {', '.join(FORMATS)}")
