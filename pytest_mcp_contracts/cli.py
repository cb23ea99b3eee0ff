"""``mcp-contracts inspect``: what each tool takes and returns, before anyone writes code.
``mcp-contracts call``: replay tool calls (a failure's reproduction) on a server.
``mcp-contracts export``: the recorded output contracts as typed models to paste in.

``inspect`` reads a live server (``--server CMD``) or only the recorded contracts
(``--snapshots DIR``), and says plainly where an output schema comes from: declared by the
server, inferred by this plugin (with its quality, and the parts left open because their
keys depend on the input), or nowhere yet; which tools pytest calls, decided as the plugin
decides (``transport/call_policy.tool_refusal`` under the project's call policy and tool
tables, ``project``); each input's limits (``schema/summarize``); and what the ``schema``
check finds in each listing entry (the same ``check_listing``, the same records as the run
report). After the tools it lists the server's prompts (their arguments), resources (URI,
mimeType) and templates (their variables), each with its listing findings
(``checks/surface_listing``) and its recorded content contract folded to a summary. ``call``
does the
handshake (either protocol era), makes each call in order, each after the answer to the one
before, and prints every answer as one line of JSON. ``export`` reads the recorded
contracts only (``export/document`` writes the models): the quality that decides how strict a
model is comes from the runs that recorded them, and a committed snapshot gives the same file
on every machine.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import shlex
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, TextIO

from pytest_mcp_contracts.contracts.drift import HINT_DEFAULTS
from pytest_mcp_contracts.contracts.record import (
    contract_problem,
    follow_former_names,
    listed_file,
    listed_kind,
)
from pytest_mcp_contracts.contracts.snapshot import SnapshotError, SnapshotStore, write_atomic
from pytest_mcp_contracts.export.document import FORMATS as EXPORT_FORMATS
from pytest_mcp_contracts.export.document import RecordedTool, Source, export_file_name
from pytest_mcp_contracts.export.document import render as render_export
from pytest_mcp_contracts.inputs.elicitation import form_content
from pytest_mcp_contracts.project import (
    SettingsError,
    ToolConfig,
    configured_call_policy,
    load_project_table,
    project_root,
    tool_config,
)
from pytest_mcp_contracts.reporting.findings import finding_record, render
from pytest_mcp_contracts.schema.summarize import FieldPathError, limits, summarize
from pytest_mcp_contracts.text import stderr_block
from pytest_mcp_contracts.transport.call_policy import tool_refusal
from pytest_mcp_contracts.transport.client import CallTranscript, Client, ClientSettings
from pytest_mcp_contracts.transport.connect import open_server, probe_warning
from pytest_mcp_contracts.transport.discover import (
    ListedSpec,
    PromptSpec,
    ResourceSpec,
    ServerSurface,
    TemplateSpec,
    ToolSpec,
    discover,
    former_node_names,
    node_names,
)
from pytest_mcp_contracts.transport.errors import RpcError, ServerError
from pytest_mcp_contracts.transport.http import HeaderError, ServerUrl
from pytest_mcp_contracts.transport.inprocess import ServerApp
from pytest_mcp_contracts.transport.jsonrpc import RpcConnection
from pytest_mcp_contracts.transport.stdio import ServerCommand
from pytest_mcp_contracts.vocabulary import (
    CALL_POLICIES,
    DEFAULT_CALL_POLICY,
    DEFAULT_CALL_TIMEOUT,
    DEFAULT_CLIENTS,
    DEFAULT_MAX_RESULT_BYTES,
    DEFAULT_SNAPSHOT_DIR,
    DEFAULT_STARTUP_TIMEOUT,
    HANDSHAKE_VERSION,
    ClientSettingError,
    Quality,
    parse_clients,
)

USAGE_ERROR: Final = 2
# What `mcp-contracts --help` says: plain text for a terminal (the module docstring is for
# readers of the code, in its own markup).
DESCRIPTION: Final = (
    "inspect: what each tool of an MCP server takes (with its input limits) and returns, "
    "which tools pytest calls under the project's call policy, "
    "and where each output schema comes from (declared by the server, inferred by "
    "pytest-mcp-contracts, or nowhere yet), from a live server (--server, --url, --app) or "
    "from the recorded contracts alone (--snapshots). call: replay tool calls (a failure's "
    "reproduction) on a server, in order, and print each answer as one line of JSON. "
    "export: the recorded output contracts as typed models (pydantic, TypedDict, zod, JSON "
    "Schema) to paste into the server."
)
HINTS: Final = (
    ("readOnlyHint", True, "read-only"),
    ("destructiveHint", True, "destructive"),
    ("idempotentHint", True, "idempotent"),
    ("openWorldHint", True, "open-world"),
)


@dataclass(frozen=True)
class OutputContract:
    """Where a tool's output schema comes from, and the schema itself if there is one."""

    source: str  # "declared", "inferred", "corrupted" or "none"
    quality: str
    basis: str  # why the inferred contract has its quality ("" when the file does not say)
    schema: dict[str, Any] | None
    problem: str = ""  # why a corrupted recorded contract cannot be used
    # Objects of an inferred contract whose keys depend on the input (a query tool's rows):
    # the contract holds the keys every result had there, and allows any other.
    open_paths: tuple[str, ...] = ()

    def label(self) -> str:
        if self.source == "declared":
            return "declared"
        if self.source == "inferred":
            return self.quality
        return self.source


@dataclass(frozen=True)
class ToolView:
    name: str
    raw: dict[str, Any]
    output: OutputContract
    # The schema check's findings on this listing entry (reporting/findings records); None
    # when no listing entry is known (a snapshot file that is corrupted).
    findings: tuple[dict[str, Any], ...] | None = None
    judged_as: str = ""  # the protocol revision the findings assume, where none is known
    refusal: str | None = None  # why pytest does not call it (None: it does)

    @property
    def called(self) -> str:
        return "no" if self.refusal else "yes"

    @property
    def limits(self) -> list[dict[str, Any]]:
        """What the inputSchema allows each field (schema/summarize.limits)."""
        schema = self.raw.get("inputSchema")
        return limits(schema) if isinstance(schema, dict) else []

    @property
    def findings_label(self) -> str:
        if self.findings is None:
            return "unknown"
        errors = sum(1 for f in self.findings if f["severity"] == "error")
        warnings = len(self.findings) - errors
        parts = [
            f"{errors} error(s)" if errors else "",
            f"{warnings} warning(s)" if warnings else "",
        ]
        return ", ".join(p for p in parts if p) or "-"

    @property
    def safety(self) -> str:
        annotations = self.raw.get("annotations")
        hints = annotations if isinstance(annotations, dict) else {}
        words = [
            word
            for key, wanted, word in HINTS
            if hints.get(key, HINT_DEFAULTS[key]) is wanted
            and not (key == "destructiveHint" and hints.get("readOnlyHint") is True)
        ]
        if "annotations" not in self.raw:
            words.append("(no annotations: defaults assumed)")
        return ", ".join(words)


def output_contract(
    raw: dict[str, Any], recorded: dict[str, Any] | None, problem: str = ""
) -> OutputContract:
    declared = raw.get("outputSchema")
    if isinstance(declared, dict):
        return OutputContract("declared", Quality.DECLARED, "", declared)
    if problem:
        return OutputContract("corrupted", Quality.UNKNOWN, "", None, problem)
    output = (recorded or {}).get("output")
    if isinstance(output, dict) and isinstance(output.get("schema"), dict):
        return OutputContract(
            "inferred",
            str(output.get("quality", "inferred")),
            str(output.get("basis", "")),
            output["schema"],
            open_paths=_open_paths(output),
        )
    return OutputContract("none", Quality.UNKNOWN, "", None)


def _open_paths(section: dict[str, Any]) -> tuple[str, ...]:
    """Where a recorded inferred contract is open (``contracts/infer``); none when the
    section cannot be read as one (the file is then shown as it is)."""
    from pytest_mcp_contracts.contracts.observe import RecordedContract, RecordError

    try:
        shape = RecordedContract.from_data(section).shape
    except RecordError:
        return ()
    return tuple(shape.open_paths()) if shape is not None else ()


def _recorded(store: SnapshotStore, server: str, tool: str) -> tuple[dict[str, Any] | None, str]:
    """A tool's (or a listed entry's, by its file name) recorded file, or why it cannot be
    used: a corrupted contract is shown as corrupted, never as no contract at all."""
    try:
        data = store.read(server, tool)
    except SnapshotError as exc:
        return None, f"{exc.path}: {exc.reason}"
    problem = None if data is None else contract_problem(data, listed_kind(tool))
    if problem is not None:
        return None, f"{store.path_for(server, tool)}: not a contract: {problem}"
    return data, ""


@dataclass(frozen=True)
class CallPlan:
    """Which tools pytest calls, decided as the plugin decides (``tool_refusal``): the run's
    call policy and where it was set, and the project's ``[tool.mcp-contracts.tools]``."""

    policy: str
    source: str  # "--call", "--mcp-call in addopts in <file>", "mcp_call in <file>", ...
    tools: dict[str, ToolConfig]

    def refusal(self, server: str, tool: ToolSpec, capabilities: dict[str, Any]) -> str | None:
        own = tool_config(self.tools, server, tool.name)
        why = tool_refusal(tool, capabilities, policy=self.policy, own_call=own.call, skip=own.skip)
        if why is None and tool.malformed:
            why = "not called: its listing entry is malformed (see its findings)"
        return why

    def heading(self, views: Sequence[ToolView]) -> str:
        called = sum(1 for v in views if v.refusal is None)
        return (
            f"pytest calls {called} of {len(views)} tools under --mcp-call={self.policy} "
            f"({self.source})"
        )


def _call_plan(args: argparse.Namespace) -> CallPlan:
    """The call policy (--call, else what a plain pytest run there uses:
    ``project.configured_call_policy``) and the tool tables of the project pytest would run
    in (--rootdir, else found as pytest finds it)."""
    rootdir = args.rootdir or project_root(Path.cwd())
    try:
        tools, _, _ = load_project_table(rootdir)
        policy, source = (args.call, "--call") if args.call else configured_call_policy(rootdir)
    except SettingsError as exc:
        raise _Failure(str(exc), USAGE_ERROR) from None
    return CallPlan(policy, source, tools)


def _findings(
    tool: ToolSpec, protocol_version: str, args: argparse.Namespace
) -> tuple[dict[str, Any], ...]:
    """What the ``schema`` check finds in a listing entry: the same check, the same records
    the run report lists, under the client profiles and lint levels of ``--clients`` and
    ``--lints`` (the plugin's defaults without them)."""
    from pytest_mcp_contracts.checks.lints import (  # jsonschema: inspect only
        LintLevels,
        LintSettingError,
    )
    from pytest_mcp_contracts.checks.listing import check_listing

    try:
        clients = parse_clients(args.clients, option="--clients")
        lints = LintLevels.parse(args.lints, option="--lints") if args.lints else LintLevels()
    except (ClientSettingError, LintSettingError) as exc:
        raise _Failure(str(exc), USAGE_ERROR) from None
    found = check_listing(tool, protocol_version=protocol_version, clients=clients, lints=lints)
    return tuple(finding_record(f) for f in found)


def _views_from_server(
    surface: ServerSurface, store: SnapshotStore, args: argparse.Namespace, calls: CallPlan
) -> list[ToolView]:
    server = surface.node_name
    views = []
    for tool in surface.tools:
        recorded, problem = _recorded(store, server, tool.node_name)
        output = output_contract(tool.raw, recorded, problem)
        findings = _findings(tool, surface.protocol_version, args)
        refusal = calls.refusal(surface.name, tool, surface.capabilities)
        views.append(ToolView(tool.name, tool.raw, output, findings, refusal=refusal))
    return views


def _views_from_snapshots(
    store: SnapshotStore, server: str, args: argparse.Namespace, calls: CallPlan
) -> list[ToolView]:
    views = []
    for name in store.recorded_tools(server):
        recorded, problem = _recorded(store, server, name)
        data = recorded or {}
        surface = data.get("surface")
        raw = dict(surface) if isinstance(surface, dict) else {"name": data.get("tool", name)}
        tool_name = str(raw.get("name", name))
        tool = ToolSpec(tool_name, name, raw)
        # A snapshot does not record the protocol: judged by the newest handshake revision,
        # whose rules (an object outputSchema root) the most clients hold servers to.
        findings = _findings(tool, HANDSHAKE_VERSION, args) if isinstance(surface, dict) else None
        output = output_contract(raw, recorded, problem)
        # Nor the server's capabilities: a task-only tool is told apart on a live server.
        refusal = calls.refusal(str(data.get("server", server)), tool, {})
        views.append(
            ToolView(tool_name, raw, output, findings, judged_as=HANDSHAKE_VERSION, refusal=refusal)
        )
    return views


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
        schema,
        budget=args.max_fields,
        field_path=args.field_path if selected else None,
    )
    where = f" at {summary.path}" if summary.path != "$" else ""
    return [f"{title}{where}:", *(f"  {line}" for line in summary.render().splitlines())]


def render_tool(view: ToolView, args: argparse.Namespace, calls: CallPlan | None = None) -> str:
    lines = [view.name]
    if view.raw.get("title"):
        lines.append(f"  title: {view.raw['title']}")
    lines.append(f"  safety: {view.safety}")
    if calls is not None:
        policy = f"--mcp-call={calls.policy}, {calls.source}"
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


# -- prompts, resources and templates ---------------------------------------------------------

_SPECS: Final[dict[str, type[ListedSpec]]] = {
    spec.kind: spec for spec in (PromptSpec, ResourceSpec, TemplateSpec)
}


@dataclass(frozen=True)
class ListedView:
    """A prompt, resource or template as inspect shows it."""

    entry: ListedSpec
    findings: tuple[dict[str, Any], ...]
    content: OutputContract  # its recorded content contract ("none" when there is none)

    @property
    def details(self) -> str:
        """What a client needs to use it: a prompt's arguments, a resource's mimeType, a
        template's variables."""
        raw = self.entry.raw
        if self.entry.kind == PromptSpec.kind:
            arguments = raw.get("arguments")
            names = [
                f"{a['name']}{' (required)' if a.get('required') is True else ''}"
                for a in (arguments if isinstance(arguments, list) else [])
                if isinstance(a, dict) and isinstance(a.get("name"), str)
            ]
            return f"arguments: {', '.join(names) or '-'}"
        mime = f"  {raw['mimeType']}" if isinstance(raw.get("mimeType"), str) else ""
        if self.entry.kind == TemplateSpec.kind:
            from pytest_mcp_contracts.contracts.content import template_variables

            variables = ", ".join(template_variables(self.entry.key)) or "-"
            return f"variables: {variables}{mime}"
        return mime.strip() or "-"


def _content_contract(recorded: dict[str, Any] | None, problem: str) -> OutputContract:
    if problem:
        return OutputContract("corrupted", Quality.UNKNOWN, "", None, problem)
    content = (recorded or {}).get("content")
    if isinstance(content, dict) and isinstance(content.get("schema"), dict):
        quality = str(content.get("quality", "inferred"))
        return OutputContract("inferred", quality, str(content.get("basis", "")), content["schema"])
    return OutputContract("none", Quality.UNKNOWN, "", None)


def _listed_view(
    entry: ListedSpec, store: SnapshotStore, server: str, protocol_version: str
) -> ListedView:
    from pytest_mcp_contracts.checks.surface_listing import check_entry

    recorded, problem = _recorded(store, server, listed_file(entry))
    found = check_entry(entry, protocol_version=protocol_version)
    return ListedView(
        entry, tuple(finding_record(f) for f in found), _content_contract(recorded, problem)
    )


def _listed_from_server(surface: ServerSurface, store: SnapshotStore) -> list[ListedView]:
    return [
        _listed_view(entry, store, surface.node_name, surface.protocol_version)
        for entry in surface.listed
    ]


def _listed_from_snapshots(store: SnapshotStore, server: str) -> list[ListedView]:
    """The recorded prompts, resources and templates, judged as the tools' snapshots are (a
    snapshot does not record the protocol revision)."""
    views = []
    for file in store.recorded_listed(server):
        kind = listed_kind(file)
        try:
            # Its surface even when its content section is corrupted (shown as such below).
            surface = (store.read(server, file) or {}).get("surface")
        except SnapshotError:
            surface = None
        if kind is None or not isinstance(surface, dict):
            continue  # unreadable: the run's drift item says so, with the file's name
        spec = _SPECS[kind]
        key = surface.get(spec.key_field)
        entry = spec(key if isinstance(key, str) else "", file.rpartition("/")[2], surface)
        views.append(_listed_view(entry, store, server, HANDSHAKE_VERSION))
    order = list(_SPECS)
    return sorted(views, key=lambda v: order.index(v.entry.kind))


def render_listed(views: Sequence[ListedView], args: argparse.Namespace) -> str:
    """Prompts, then resources, then templates: one line each, and under it its content
    contract folded to a summary (schema/summarize) when one is recorded."""
    lines: list[str] = []
    for kind, spec in _SPECS.items():
        mine = [v for v in views if v.entry.kind == kind]
        if not mine:
            continue
        width = max(len(v.entry.key) for v in mine)
        lines += ["", f"{spec.array if kind != 'template' else 'templates'}:"]
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
        "kind": entry.kind,
        entry.key_field: entry.key,
        "entry": entry.raw,
        "findings": list(view.findings),
        "contentContract": content.source,
        "quality": content.quality,
        "basis": content.basis,
        "contentSchema": content.schema,
    }


def _target_arguments(command: argparse.ArgumentParser, *, required: bool) -> None:
    """--server, --url or --app, and --header for a URL: the server a command talks to."""
    reach = command.add_mutually_exclusive_group(required=required)
    reach.add_argument("--server", metavar="CMD", help="start this MCP server over stdio")
    reach.add_argument("--url", help="the MCP server at this Streamable HTTP URL")
    reach.add_argument(
        "--app", metavar="MODULE:ATTR", help="this Python server object, run in-process"
    )
    command.add_argument(
        "--header",
        action="append",
        default=[],
        metavar="'NAME: VALUE'",
        help="an HTTP header for --url (repeatable; $VAR is read from the environment)",
    )


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mcp-contracts", description=DESCRIPTION)
    commands = parser.add_subparsers(dest="command", required=True)
    inspect = commands.add_parser("inspect", help="show what each tool takes and returns")
    inspect.add_argument("tool", nargs="?", help="show this tool in detail")
    _target_arguments(inspect, required=False)
    inspect.add_argument(
        "--snapshots",
        metavar="DIR",
        type=Path,
        default=None,
        help=f"recorded contracts to read (default ./{DEFAULT_SNAPSHOT_DIR}); without "
        "--server, only these are read and no server is started",
    )
    inspect.add_argument("--server-name", help="which recorded server to read (with --snapshots)")
    inspect.add_argument("--json", action="store_true", help="answer in JSON, for machines")
    inspect.add_argument(
        "--max-fields", type=int, default=30, metavar="N", help="summary budget (default 30)"
    )
    inspect.add_argument(
        "--field-path", metavar="PATH", help="show exactly this subtree, e.g. 'items[].sku'"
    )
    inspect.add_argument(
        "--schema",
        choices=("output", "input"),
        default="output",
        help="which schema --field-path opens (default output)",
    )
    inspect.add_argument(
        "--startup-timeout", type=float, default=DEFAULT_STARTUP_TIMEOUT, metavar="S"
    )
    inspect.add_argument(
        "--call",
        choices=CALL_POLICIES,
        default=None,
        help="the call policy to say which tools pytest calls under, as --mcp-call (default: "
        "what a plain pytest run there uses: --mcp-call in PYTEST_ADDOPTS or addopts, else "
        f"mcp_call, else {DEFAULT_CALL_POLICY})",
    )
    inspect.add_argument(
        "--rootdir",
        type=Path,
        default=None,
        metavar="DIR",
        help="the project whose pyproject.toml [tool.mcp-contracts.tools] tables and pytest "
        "configuration apply (default: found from the current folder, as pytest finds it)",
    )
    inspect.add_argument(
        "--clients",
        default=",".join(DEFAULT_CLIENTS),
        metavar="LIST",
        help="client profiles whose rules the findings apply, as --mcp-clients "
        f"(default {','.join(DEFAULT_CLIENTS)}; all, none)",
    )
    inspect.add_argument(
        "--lints",
        default="",
        metavar="LEVELS",
        help="lint levels, as --mcp-lints (e.g. 'no-annotations:off'; default: every lint a "
        "warning)",
    )
    call = commands.add_parser(
        "call",
        help="call tools in order and print each answer as JSON",
        description="Call tools on a server, in order, each after the answer to the one "
        "before, and print each answer as one line of JSON: "
        '{"tool", "arguments", and "result", "error" (JSON-RPC) or "failure"}. '
        "Exit status 1 when the server did not start, died or did not answer.",
    )
    call.add_argument(
        "calls",
        nargs="*",
        metavar="TOOL JSON",
        help="pairs of a tool name and its arguments as a JSON object",
    )
    _target_arguments(call, required=True)
    call.add_argument(
        "--file",
        type=Path,
        metavar="PATH",
        help="more calls, one per line: a tool name, a space, its arguments as JSON "
        "(blank lines and lines starting with # are skipped); made after those given inline",
    )
    call.add_argument(
        "--roots",
        type=Path,
        metavar="DIR",
        help="offer this folder as the client's one root (roots/list), as the run did: a "
        "failure whose input points into the run's roots sandbox names it",
    )
    asked = call.add_mutually_exclusive_group()
    asked.add_argument(
        "--read", metavar="URI", help="instead of tools: read this resource (resources/read)"
    )
    asked.add_argument(
        "--prompt", metavar="NAME", help="instead of tools: get this prompt (prompts/get)"
    )
    call.add_argument(
        "--arguments",
        metavar="JSON",
        default="{}",
        help="the prompt's arguments, a JSON object of strings (with --prompt)",
    )
    call.add_argument("--startup-timeout", type=float, default=DEFAULT_STARTUP_TIMEOUT, metavar="S")
    call.add_argument(
        "--call-timeout",
        type=float,
        default=DEFAULT_CALL_TIMEOUT,
        metavar="S",
        help=f"seconds each call may take (default {DEFAULT_CALL_TIMEOUT:g})",
    )
    _export_parser(commands)
    return parser


def _export_parser(commands: Any) -> None:
    export = commands.add_parser(
        "export",
        help="write typed models (pydantic, TypedDict, zod) or outputSchemas of the recorded "
        "output contracts",
        description="Write, per tool, code a server author pastes in to declare its "
        "outputSchema: a pydantic model or TypedDict for a Python MCPServer tool's return "
        "annotation, a zod object for a TypeScript McpServer tool's outputSchema, or the "
        "outputSchema as JSON Schema. Read from the recorded contracts (no server is "
        "started): a declared contract gives an exact model, a validated one a strict "
        "model, an inferred one a permissive model, and a tool without one gets none and "
        "the reason. The same snapshot gives the same bytes.",
    )
    export.add_argument(
        "--format",
        required=True,
        metavar="FORMAT",
        help=f"one of {', '.join(EXPORT_FORMATS)}",
    )
    export.add_argument(
        "--snapshot-dir",
        "--snapshots",
        dest="snapshot_dir",
        metavar="DIR",
        type=Path,
        help=f"the recorded contracts (default ./{DEFAULT_SNAPSHOT_DIR}, as --mcp-snapshot-dir)",
    )
    export.add_argument(
        "--server-name", help="which recorded server (needed when the folder holds several)"
    )
    export.add_argument(
        "--tool",
        action="append",
        default=[],
        metavar="NAME",
        help="export only this tool (repeatable; default: every recorded tool)",
    )
    export.add_argument(
        "--output",
        metavar="PATH",
        help="write to this file (atomically), or into this folder under a name made from "
        "the server's; default: standard output",
    )


class _Failure(Exception):
    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


def _open(args: argparse.Namespace) -> RpcConnection:
    """A connection to the server named by --server, --url or --app, handshake done."""
    target: ServerCommand | ServerUrl | ServerApp
    try:
        if args.url:
            target = ServerUrl.parse(args.url, args.header)
            target.resolved_headers(os.environ)  # a missing variable fails here, clearly
        elif args.app:
            target = ServerApp.parse(args.app, Path.cwd())
        else:
            target = ServerCommand.parse(args.server)
    except (HeaderError, ValueError) as exc:
        raise _Failure(str(exc), USAGE_ERROR) from None
    roots: Path | None = getattr(args, "roots", None)
    if roots is not None and not roots.is_dir():
        raise _Failure(f"--roots {roots}: no such folder", USAGE_ERROR)
    client = Client(
        ClientSettings(
            roots=(roots.resolve().as_uri(),) if roots else (),
            form_content=form_content,
        )
    )
    try:
        return open_server(
            target,
            startup_timeout=args.startup_timeout,
            max_message_bytes=DEFAULT_MAX_RESULT_BYTES,
            client=client,
        )
    except ServerError as exc:
        tail = f"\n{stderr_block(exc.stderr_tail)}" if exc.stderr_tail else ""
        raise _Failure(f"{target.unusable()}: {exc.message}{tail}", 1) from None


def _load(args: argparse.Namespace) -> tuple[list[ToolView], list[ListedView], str, CallPlan]:
    # Without --snapshots the contracts are read where pytest records them by default.
    snapshots = args.snapshots or Path(DEFAULT_SNAPSHOT_DIR)
    store = SnapshotStore(snapshots)
    if args.header and not args.url:
        raise _Failure("--header applies to --url", USAGE_ERROR)
    calls = _call_plan(args)
    if args.server or args.url or args.app:
        conn = _open(args)
        if conn.probe_failure is not None:
            warning = probe_warning(conn.probe_failure, str(conn.protocol_version))
            print(f"mcp-contracts: warning: {warning}", file=sys.stderr)
        try:
            surface = discover(conn, timeout=args.startup_timeout)
        except ServerError as exc:
            raise _Failure(f"could not list the tools: {exc.message}", 1) from None
        finally:
            conn.close()
        follow_former_names(store, surface.node_name, surface.former_node_name, surface)
        views = _views_from_server(surface, store, args, calls)
        return views, _listed_from_server(surface, store), surface.name, calls
    if not snapshots.is_dir():
        raise _Failure(
            f"no recorded contracts in {snapshots}{os.sep}: give --server CMD, --url URL or "
            "--app MODULE:ATTR to read a live server, or --snapshots DIR",
            USAGE_ERROR,
        )
    server = _recorded_server(snapshots, args.server_name)
    views = _views_from_snapshots(store, server, args, calls)
    return views, _listed_from_snapshots(store, server), server, calls


def _recorded_server(snapshots: Path, server_name: str | None) -> str:
    """The one server folder of a snapshot folder, or the one ``--server-name`` names (under
    its name now, or as an earlier version named it)."""
    servers = sorted(p.name for p in snapshots.iterdir() if p.is_dir())
    found = ", ".join(servers) or "none"
    if server_name:
        named = [*node_names([server_name]), *former_node_names([server_name])]
        folder = next((name for name in named if name in servers), None)
        if folder is None:
            raise _Failure(
                f"no recorded server {server_name!r} in {snapshots}{os.sep} (found: {found})",
                USAGE_ERROR,
            )
        return folder
    if len(servers) != 1:
        raise _Failure(f"name one recorded server with --server-name (found: {found})", 2)
    return servers[0]


def inspect_command(args: argparse.Namespace, out: TextIO) -> int:
    views, listed, server, calls = _load(args)
    if args.tool is None:
        if args.json:
            payload: dict[str, Any] = {
                "server": server,
                "callPolicy": calls.policy,
                "callPolicySource": calls.source,
                "tools": [tool_json(v) for v in views],
            }
            for kind, spec in _SPECS.items():
                name = "templates" if kind == TemplateSpec.kind else spec.array
                payload[name] = [listed_json(v) for v in listed if v.entry.kind == kind]
            out.write(json.dumps(payload, indent=2, sort_keys=True) + "\n")
        else:
            more = render_listed(listed, args)
            out.write(render_list(views, calls) + (f"\n{more}" if more else "") + "\n")
        return 0
    chosen = [v for v in views if v.name == args.tool]
    if not chosen:
        close = difflib.get_close_matches(args.tool, [v.name for v in views], n=3, cutoff=0.5)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise _Failure(f"no tool {args.tool!r} on {server}{hint}", USAGE_ERROR)
    view = chosen[0]
    if args.json:
        out.write(json.dumps(tool_json(view), indent=2, sort_keys=True) + "\n")
        return 0
    try:
        out.write(render_tool(view, args, calls) + "\n")
    except FieldPathError as exc:
        raise _Failure(str(exc), USAGE_ERROR) from None
    return 0


def parse_calls(words: Sequence[str], lines: Sequence[str]) -> list[tuple[str, dict[str, Any]]]:
    """The calls to make: ``TOOL JSON`` pairs, then the lines of a calls file."""
    if len(words) % 2:
        raise _Failure(
            f"calls come in pairs of a tool name and its JSON arguments; {words[-1]!r} has "
            "no arguments (write '{}' for none)",
            USAGE_ERROR,
        )
    pairs = [(words[i], words[i + 1], f"call {i // 2 + 1}") for i in range(0, len(words), 2)]
    for number, line in enumerate(lines, 1):
        text = line.strip()
        if text and not text.startswith("#"):
            tool, _, arguments = text.partition(" ")
            pairs.append((tool, arguments.strip() or "{}", f"line {number} of --file"))
    calls = []
    for tool, raw, where in pairs:
        try:
            arguments = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise _Failure(f"{where}: the arguments of {tool} are not JSON: {exc}", 2) from None
        if not isinstance(arguments, dict):
            raise _Failure(f"{where}: the arguments of {tool} must be a JSON object", 2)
        calls.append((tool, arguments))
    if not calls:
        raise _Failure("no calls given: TOOL 'JSON' pairs, or --file PATH", USAGE_ERROR)
    return calls


def listed_request(args: argparse.Namespace) -> tuple[str, dict[str, Any]] | None:
    """The read (--read) or get (--prompt, --arguments) asked for instead of tool calls."""
    if args.read is None and args.prompt is None:
        if args.arguments != "{}":
            raise _Failure("--arguments applies to --prompt", USAGE_ERROR)
        return None
    if args.calls or args.file is not None:
        raise _Failure("--read and --prompt make one request: give no tool calls", USAGE_ERROR)
    if args.read is not None:
        if args.arguments != "{}":
            raise _Failure("--arguments applies to --prompt", USAGE_ERROR)
        return "resources/read", {"uri": args.read}
    try:
        arguments = json.loads(args.arguments)
    except json.JSONDecodeError as exc:
        raise _Failure(f"--arguments is not JSON: {exc}", USAGE_ERROR) from None
    if not isinstance(arguments, dict):
        raise _Failure("--arguments must be a JSON object", USAGE_ERROR)
    return "prompts/get", {"name": args.prompt, "arguments": arguments}


def call_command(args: argparse.Namespace, out: TextIO) -> int:
    """Make each call in order and print its answer; stop at a server that died or hung."""
    if args.header and not args.url:
        raise _Failure("--header applies to --url", USAGE_ERROR)
    request = listed_request(args)
    if request is not None:
        return _request_command(args, *request, out)
    lines: list[str] = []
    if args.file is not None:
        try:
            lines = args.file.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            raise _Failure(f"--file {args.file}: {exc}", USAGE_ERROR) from None
    calls = parse_calls(args.calls, lines)
    conn = _open(args)
    try:
        for tool, arguments in calls:
            answer: dict[str, Any] = {"tool": tool, "arguments": arguments}
            params = {"name": tool, "arguments": arguments}
            mark = conn.stderr_mark()
            try:
                answer["result"] = conn.call_tool(
                    params, CallTranscript(tool=tool), timeout=args.call_timeout
                )
            except RpcError as exc:
                answer["error"] = {"code": exc.code, "message": exc.message, "data": exc.data}
            except ServerError as exc:
                answer["failure"] = exc.message
                _with_stderr(answer, conn, mark)
                out.write(json.dumps(answer, ensure_ascii=False) + "\n")
                return 1
            _with_stderr(answer, conn, mark)
            out.write(json.dumps(answer, ensure_ascii=False) + "\n")
            out.flush()
    finally:
        conn.close()
    return 0


def _with_stderr(answer: dict[str, Any], conn: RpcConnection, mark: int) -> None:
    """Add what the server wrote on stderr during the call (its traceback, for a crash the SDK
    turned into an isError result), when it wrote anything: a replay shows the evidence the
    failure report quoted. A remote server's stderr is not ours to read."""
    written = conn.stderr_since(mark)
    if written.strip():
        answer["stderr"] = written


def _request_command(
    args: argparse.Namespace, method: str, params: dict[str, Any], out: TextIO
) -> int:
    """Make one read or get and print its answer, as a tool call's is printed."""
    conn = _open(args)
    answer: dict[str, Any] = {"method": method, "params": params}
    mark = conn.stderr_mark()
    try:
        answer["result"] = conn.request(method, params, timeout=args.call_timeout)
    except RpcError as exc:
        answer["error"] = {"code": exc.code, "message": exc.message, "data": exc.data}
    except ServerError as exc:
        answer["failure"] = exc.message
    finally:
        _with_stderr(answer, conn, mark)
        conn.close()
    out.write(json.dumps(answer, ensure_ascii=False) + "\n")
    return 1 if "failure" in answer else 0


def _recorded_tools(store: SnapshotStore, server: str, wanted: Sequence[str]) -> list[RecordedTool]:
    """The recorded tools of a server, or those named in ``wanted``; a file that cannot be
    read among them is an error that names it (never a model made from half a contract)."""
    files = store.recorded_tools(server)
    if not files:
        raise _Failure(f"no tools are recorded in {store.root / server}{os.sep}", USAGE_ERROR)
    tools, names = [], []
    # A wanted tool's file, under its name now or as an earlier version named it.
    files_wanted = {n for w in wanted for n in (*node_names([w]), *former_node_names([w]))}
    for file in files:
        recorded, problem = _recorded(store, server, file)
        name = str((recorded or {}).get("tool", file))
        if problem and (not wanted or file in files_wanted):
            raise _Failure(
                f"the recorded contract {problem}\n  Fix it by hand (git diff shows what "
                "changed), or delete it and record it again with --mcp-snapshot-update.",
                1,
            )
        names.append(name)
        if recorded is not None and (not wanted or name in wanted):
            tools.append(RecordedTool(name, str(store.path_for(server, file)), recorded))
    for name in wanted:
        if name not in names:
            close = difflib.get_close_matches(name, names, n=3, cutoff=0.5)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise _Failure(
                f"no tool {name!r} is recorded for {server}{hint} (recorded: "
                f"{', '.join(sorted(names))})",
                USAGE_ERROR,
            )
    return tools


def _export_source(
    args: argparse.Namespace, snapshots: Path, server: str, tools: Sequence[RecordedTool]
) -> Source:
    """Where the models come from, and the command that writes them again (the options
    given, in one order: the file does not change with how the command was typed)."""
    words = ["mcp-contracts", "export", "--format", args.format]
    if args.snapshot_dir is not None:
        words += ["--snapshot-dir", str(args.snapshot_dir)]
    if args.server_name:
        words += ["--server-name", args.server_name]
    for tool in sorted(set(args.tool)):
        words += ["--tool", tool]
    recorded = next((str(t.data["server"]) for t in tools if t.data.get("server")), server)
    return Source(recorded, f"{snapshots / server}{os.sep}", shlex.join(words))


def export_command(args: argparse.Namespace, out: TextIO) -> int:
    """Write the typed models of one server's recorded contracts (``export/document``)."""
    if args.format not in EXPORT_FORMATS:
        close = difflib.get_close_matches(args.format, EXPORT_FORMATS, n=1, cutoff=0.4)
        hint = f" (did you mean {close[0]}?)" if close else ""
        raise _Failure(
            f"--format {args.format!r} is unknown{hint}; one of {', '.join(EXPORT_FORMATS)}",
            USAGE_ERROR,
        )
    snapshots = args.snapshot_dir or Path(DEFAULT_SNAPSHOT_DIR)
    if not snapshots.is_dir():
        raise _Failure(
            f"no recorded contracts in {snapshots}{os.sep}: record them with "
            "pytest --mcp-server=... (or --mcp-url, --mcp-app), or give --snapshot-dir DIR",
            USAGE_ERROR,
        )
    server = _recorded_server(snapshots, args.server_name)
    tools = _recorded_tools(SnapshotStore(snapshots), server, args.tool)
    text = render_export(args.format, tools, _export_source(args, snapshots, server, tools))
    if args.output in (None, "-"):
        out.write(text)
        return 0
    target = Path(args.output)
    if target.is_dir() or args.output.endswith(("/", os.sep)):
        target = target / export_file_name(args.format, server)
    try:
        write_atomic(target, text)
    except OSError as exc:
        raise _Failure(f"--output {target}: {exc.strerror or exc}", 1) from None
    print(f"mcp-contracts: wrote {target}", file=sys.stderr)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command in ("call", "export"):
        command = call_command if args.command == "call" else export_command
        try:
            return command(args, sys.stdout)
        except _Failure as exc:
            print(f"mcp-contracts: {exc}", file=sys.stderr)
            return exc.status
    if args.max_fields < 3:
        parser.error("--max-fields must be 3 or more")
    try:
        return inspect_command(args, sys.stdout)
    except _Failure as exc:
        print(f"mcp-contracts: {exc}", file=sys.stderr)
        return exc.status


if __name__ == "__main__":
    sys.exit(main())
