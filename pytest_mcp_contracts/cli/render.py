"""``inspect``'s answer as text for a terminal and as JSON for machines: the tools' table,
one tool in detail (its schemas folded by ``schema/summarize``), and the prompts,
resources and templates."""

from __future__ import annotations

import argparse
import json
import shlex
from collections.abc import Sequence
from typing import Any

from pytest_mcp_contracts.cli.call_plan import CallPlan
from pytest_mcp_contracts.cli.views import ListedView, ToolView
from pytest_mcp_contracts.options import CALL_OPTION
from pytest_mcp_contracts.reporting.findings import render
from pytest_mcp_contracts.schema.summarize import summarize
from pytest_mcp_contracts.transport.discover import LISTINGS
from pytest_mcp_contracts.vocabulary import BESIDE_TOOLS


def _record_command(command: str | None) -> str:
    server = shlex.quote(command) if command else "'<your server command>'"
    return f"pytest --mcp-server={server}"


def render_list(views: Sequence[ToolView], calls: CallPlan | None = None) -> str:
    width = max((len(v.name) for v in views), default=4)
    marks = max([len("findings"), *(len(v.findings_label) for v in views)])
    lines = [f"{'tool':<{width}}  output contract  {'findings':<{marks}}  called  safety"]
    lines += [
        f"{v.name:<{width}}  {v.output.label():<15}  {v.findings_label:<{marks}}  "
        f"{v.called:<6}  {v.safety}"
        for v in views
    ]
    if calls is not None:
        lines += ["", f"{calls.heading(views)}:" if _refused(views) else calls.heading(views)]
        lines += [f"  {v.name}: {_reason(v.refusal)}" for v in views if v.refusal]
    return "\n".join(lines)


def _refused(views: Sequence[ToolView]) -> bool:
    return any(v.refusal for v in views)


def _reason(refusal: str | None) -> str:
    return (refusal or "").removeprefix("not called: ")


def _schema_block(title: str, schema: Any, args: argparse.Namespace, selected: bool) -> list[str]:
    if not isinstance(schema, dict):
        return [f"{title}: (not a JSON object: {json.dumps(schema)[:80]})"]
    summary = summarize(
        schema, budget=args.max_fields, field_path=args.field_path if selected else None
    )
    where = f" at {summary.path}" if summary.path != "$" else ""
    return [f"{title}{where}:", *(f"  {line}" for line in summary.render().splitlines())]


def render_tool(view: ToolView, args: argparse.Namespace, calls: CallPlan | None = None) -> str:
    lines = [view.name]
    if view.raw.get("title"):
        lines.append(f"  title: {view.raw['title']}")
    lines.append(f"  safety: {view.safety}")
    if calls is not None:
        policy = f"{CALL_OPTION.flag}={calls.policy}, {calls.source}"
        said = f"no: {_reason(view.refusal)}" if view.refusal else f"yes ({policy})"
        lines.append(f"  called by pytest: {said}")
    description = str(view.raw.get("description") or "(no description)")
    lines += ["", description, ""]
    if view.findings:
        assumed = (
            f", judged as protocol {view.judged_as}: the snapshot does not record the server's"
            if view.judged_as
            else ""
        )
        lines.append(f"findings (the schema check's{assumed}):")
        lines += [f"  {line}" for finding in view.findings for line in render(finding)]
        lines.append("")
    lines += _schema_block(
        "input schema", view.raw.get("inputSchema"), args, args.schema == "input"
    )
    lines.append("")
    output = view.output
    if output.source == "declared":
        title = "output schema (declared by the server)"
    elif output.source == "inferred":
        basis = f" ({output.basis})" if output.basis else ""
        title = (
            f"output schema (inferred by pytest-mcp-contracts: {output.quality}{basis}; "
            "the server declares none)"
        )
    elif output.source == "corrupted":
        lines += [
            "output schema: unknown. The recorded contract is corrupted and was not used:",
            f"  {output.problem}",
            "  Fix it by hand (git diff shows what changed), or delete it and record it again "
            "with --mcp-snapshot-update.",
        ]
        return "\n".join(lines)
    else:
        lines += [
            "output schema: none. The server declares no outputSchema for this tool, and no "
            "contract has been recorded for it.",
            f"  Record one with: {_record_command(args.server)}",
        ]
        return "\n".join(lines)
    lines += _schema_block(title, output.schema, args, args.schema == "output")
    if output.open_paths:
        lines += [
            "",
            f"keys that depend on the input, left open: {', '.join(output.open_paths)}",
            "  (their keys changed from call to call, each call's alike, as a query's columns "
            "do: the contract holds the keys every result had there, and allows any other)",
        ]
    return "\n".join(lines)


def tool_json(view: ToolView) -> dict[str, Any]:
    output = view.output
    note = {
        "declared": "declared by the server",
        "inferred": "inferred by pytest-mcp-contracts from observed results; "
        "the server declares none",
        "none": "the server declares no outputSchema and no contract has been recorded",
        "corrupted": f"the recorded contract is corrupted and was not used: {output.problem}",
    }[output.source]
    return {
        "name": view.name,
        "title": view.raw.get("title"),
        "description": view.raw.get("description"),
        "annotations": view.raw.get("annotations"),
        "inputSchema": view.raw.get("inputSchema"),
        "outputSchema": output.schema,
        "outputSchemaNote": note,
        "contractSource": output.source,
        "quality": output.quality,
        "basis": output.basis,
        "openPaths": list(output.open_paths),
        "called": view.refusal is None,
        "notCalledBecause": _reason(view.refusal) or None,
        "inputLimits": view.limits,
        "findings": None if view.findings is None else list(view.findings),
        "findingsProtocol": view.judged_as or None,
    }


def render_listed(views: Sequence[ListedView], args: argparse.Namespace) -> str:
    """Prompts, then resources, then templates: one line each, and under it its content
    contract folded to a summary (schema/summarize) when one is recorded."""
    lines: list[str] = []
    for kind in BESIDE_TOOLS:
        mine = [v for v in views if v.entry.kind == kind]
        if not mine:
            continue
        width = max(len(v.entry.key) for v in mine)
        lines += ["", f"{LISTINGS[kind].array if kind != 'template' else 'templates'}:"]
        for view in mine:
            findings = ToolView("", {}, view.content, view.findings).findings_label
            lines.append(
                f"  {view.entry.key:<{width}}  {view.details}  findings: {findings}  "
                f"content: {view.content.label()}"
            )
            if view.content.schema is not None:
                summary = summarize(view.content.schema, budget=args.max_fields)
                lines += [f"      {line}" for line in summary.render().splitlines()]
    return "\n".join(lines)


def listed_json(view: ListedView) -> dict[str, Any]:
    entry, content = view.entry, view.content
    return {
        "kind": str(entry.kind),
        entry.listing.key_field: entry.key,
        "entry": entry.raw,
        "findings": list(view.findings),
        "contentContract": content.source,
        "quality": content.quality,
        "basis": content.basis,
        "contentSchema": content.schema,
    }
