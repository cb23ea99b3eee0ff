"""``inspect``'s answer as text for a terminal and as JSON for machines: the tools' table
and, under it, the prompts, resources and templates; one tool in detail (its schemas folded
by ``schema/summarize``)."""

from __future__ import annotations

import argparse
import json
import shlex
from collections.abc import Sequence
from typing import Any

from pytest_mcp_contracts.cli.call_plan import CallPlan
from pytest_mcp_contracts.cli.views import EntryView
from pytest_mcp_contracts.options import CALL_OPTION
from pytest_mcp_contracts.reporting.findings import render
from pytest_mcp_contracts.schema.summarize import summarize
from pytest_mcp_contracts.transport.discover import LISTINGS
from pytest_mcp_contracts.vocabulary import BESIDE_TOOLS, EntryKind


def _record_command(args: argparse.Namespace) -> str:
    if args.config:
        picked = [f"--mcp-config-server={args.config_server}"] if args.config_server else []
        return shlex.join(["pytest", f"--mcp-config={args.config}", *picked])
    server = shlex.quote(args.server) if args.server else "'<your server command>'"
    return f"pytest --mcp-server={server}"


def render_list(
    views: Sequence[EntryView], args: argparse.Namespace, calls: CallPlan | None = None
) -> str:
    """The tools' table, then prompts, resources and templates (``_content_lines``)."""
    tools = [v for v in views if v.entry.kind is EntryKind.TOOL]
    width = max((len(v.name) for v in tools), default=4)
    marks = max([len("findings"), *(len(v.findings_label) for v in tools)])
    lines = [f"{'tool':<{width}}  output contract  {'findings':<{marks}}  called  safety"]
    lines += [
        f"{v.name:<{width}}  {v.contract.label():<15}  {v.findings_label:<{marks}}  "
        f"{v.called:<6}  {v.safety}"
        for v in tools
    ]
    if calls is not None:
        lines += ["", f"{calls.heading(tools)}:" if _refused(tools) else calls.heading(tools)]
        lines += [f"  {v.name}: {_reason(v.refusal)}" for v in tools if v.refusal]
    return "\n".join(lines + _content_lines(views, args))


def _refused(views: Sequence[EntryView]) -> bool:
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


def render_tool(view: EntryView, args: argparse.Namespace, calls: CallPlan | None = None) -> str:
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
    output = view.contract
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
            f"  Record one with: {_record_command(args)}",
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


def entry_json(view: EntryView) -> dict[str, Any]:
    """An entry for machines: a tool's listing and output contract by field, a prompt's,
    resource's or template's listing entry and content contract."""
    entry, contract = view.entry, view.contract
    if entry.kind is not EntryKind.TOOL:
        return {
            "kind": str(entry.kind),
            entry.listing.key_field: entry.key,
            "entry": entry.raw,
            "findings": list(view.findings or ()),
            "contentContract": contract.source,
            "quality": contract.quality,
            "basis": contract.basis,
            "contentSchema": contract.schema,
        }
    note = {
        "declared": "declared by the server",
        "inferred": "inferred by pytest-mcp-contracts from observed results; "
        "the server declares none",
        "none": "the server declares no outputSchema and no contract has been recorded",
        "corrupted": f"the recorded contract is corrupted and was not used: {contract.problem}",
    }[contract.source]
    return {
        "name": view.name,
        "title": view.raw.get("title"),
        "description": view.raw.get("description"),
        "annotations": view.raw.get("annotations"),
        "inputSchema": view.raw.get("inputSchema"),
        "outputSchema": contract.schema,
        "outputSchemaNote": note,
        "contractSource": contract.source,
        "quality": contract.quality,
        "basis": contract.basis,
        "openPaths": list(contract.open_paths),
        "called": view.refusal is None,
        "notCalledBecause": _reason(view.refusal) or None,
        "inputLimits": view.limits,
        "findings": None if view.findings is None else list(view.findings),
        "findingsProtocol": view.judged_as or None,
    }


def _content_lines(views: Sequence[EntryView], args: argparse.Namespace) -> list[str]:
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
            content = view.contract
            lines.append(
                f"  {view.entry.key:<{width}}  {view.details}  findings: {view.findings_label}  "
                f"content: {content.label()}"
            )
            if content.schema is not None:
                summary = summarize(content.schema, budget=args.max_fields)
                lines += [f"      {line}" for line in summary.render().splitlines()]
    return lines
