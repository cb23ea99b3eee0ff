"""The mcp-contracts commands (cli/) without a server: how calls are read, what a tool's view
says, and the usage errors `mcp-contracts` gives before it starts anything."""

from __future__ import annotations

import argparse
import json
import re
from dataclasses import replace
from typing import Any

import pytest

from pytest_mcp_contracts.cli import main
from pytest_mcp_contracts.cli.call import parse_calls
from pytest_mcp_contracts.cli.command import USAGE_ERROR, CommandError
from pytest_mcp_contracts.cli.render import entry_json, render_list
from pytest_mcp_contracts.cli.views import EntryView, recorded_contract
from pytest_mcp_contracts.transport.discover import Entry
from pytest_mcp_contracts.vocabulary import EntryKind

SCHEMA = {"type": "object", "properties": {"n": {"type": "integer"}}}


def test_calls_are_pairs_then_the_lines_of_the_file_in_order() -> None:
    lines = ["# a comment", "", 'add {"a": 1}', "ping"]
    assert parse_calls(["echo", '{"text": "x"}'], lines) == [
        ("echo", {"text": "x"}),
        ("add", {"a": 1}),
        ("ping", {}),  # a line without arguments means none
    ]


@pytest.mark.parametrize(
    ("words", "lines", "message"),
    [
        (["echo"], [], "'echo' has no arguments (write '{}' for none)"),
        (["echo", "{nope"], [], "call 1: the arguments of echo are not JSON"),
        (["echo", "[1]"], [], "call 1: the arguments of echo must be a JSON object"),
        ([], ["add 3"], "line 1 of --file: the arguments of add must be a JSON object"),
        ([], ["# only a comment"], "no calls given"),
    ],
)
def test_bad_calls_are_refused_with_where_they_are(
    words: list[str], lines: list[str], message: str
) -> None:
    with pytest.raises(CommandError) as caught:
        parse_calls(words, lines)
    assert message in str(caught.value)
    assert caught.value.status == USAGE_ERROR


def test_a_declared_schema_wins_over_a_recorded_one() -> None:
    recorded = {"output": {"schema": {"type": "string"}, "quality": "strong"}}
    contract = recorded_contract(_tool({"name": "t", "outputSchema": SCHEMA}), recorded)
    assert (contract.source, contract.label(), contract.schema) == ("declared", "declared", SCHEMA)


def test_a_recorded_contract_is_inferred_with_its_quality_and_basis() -> None:
    recorded = {"output": {"schema": SCHEMA, "quality": "strong", "basis": "50 results"}}
    contract = recorded_contract(_tool({"name": "t"}), recorded)
    assert (contract.source, contract.label(), contract.basis) == (
        "inferred",
        "strong",
        "50 results",
    )
    assert recorded_contract(_tool({"name": "t"}), None).label() == "none"
    corrupted = recorded_contract(_tool({"name": "t"}), None, problem="not JSON")
    assert (corrupted.label(), corrupted.problem) == ("corrupted", "not JSON")


def _tool(raw: dict[str, Any]) -> Entry:
    return Entry(EntryKind.TOOL, raw["name"], raw["name"], raw)


def _view(raw: dict[str, Any], recorded: dict[str, Any] | None = None) -> EntryView:
    return EntryView(_tool(raw), recorded_contract(_tool(raw), recorded))


def test_safety_reads_the_hints_with_the_specs_defaults() -> None:
    assert (
        _view({"name": "t"}).safety == "destructive, open-world, (no annotations: defaults assumed)"
    )
    read_only = {"readOnlyHint": True, "destructiveHint": True, "openWorldHint": False}
    # readOnly makes destructiveHint meaningless: not both.
    assert _view({"name": "t", "annotations": read_only}).safety == "read-only"


def test_the_list_lines_up_names_contracts_and_safety() -> None:
    views = [
        _view({"name": "a", "outputSchema": SCHEMA}),
        replace(_view({"name": "longer", "annotations": {}}), findings=(), refusal="not called: x"),
    ]
    assert render_list(views, argparse.Namespace(max_fields=40)).splitlines() == [
        "tool    output contract  findings  called  safety",
        "a       declared         unknown   yes     destructive, open-world, (no annotations: "
        "defaults assumed)",
        "longer  none             -         no      destructive, open-world",
    ]


def test_entry_json_says_where_the_output_schema_comes_from() -> None:
    raw = {"name": "t", "inputSchema": SCHEMA}
    recorded = {"output": {"schema": SCHEMA, "quality": "weak", "basis": "3 results"}}
    document = entry_json(_view(raw, recorded))
    assert document["outputSchema"] == SCHEMA
    assert document["contractSource"] == "inferred"
    assert document["outputSchemaNote"].startswith("inferred by pytest-mcp-contracts")
    assert (document["quality"], document["basis"]) == ("weak", "3 results")
    json.dumps(document)  # a machine reads it: plain JSON only


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["call", "--server", "x", "--header", "A: b", "t", "{}"], "--header applies to --url"),
        (["call", "--server", "x"], "no calls given"),
        (["call", "--server", "x", "t"], "'t' has no arguments"),
        (["call", "--server", "x", "--read", "a://b", "t", "{}"], "give no tool calls"),
        (["call", "--server", "x", "--arguments", '{"a": "b"}', "t", "{}"], "applies to --prompt"),
        (["call", "--server", "x", "--prompt", "p", "--arguments", "[1]"], "a JSON object"),
        (["call", "--server", "x", "--prompt", "p", "--arguments", "{"], "is not JSON"),
    ],
)
def test_call_refuses_bad_usage_before_it_starts_a_server(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == USAGE_ERROR
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("mcp-contracts: ") and message in err, err


def test_a_missing_calls_file_is_a_usage_error(
    tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "calls.txt"
    assert main(["call", "--server", "x", "--file", str(missing)]) == USAGE_ERROR
    assert f"mcp-contracts: --file {missing}: " in capsys.readouterr().err


def test_inspect_refuses_a_field_budget_under_three(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["inspect", "--max-fields", "2"])
    assert exited.value.code == USAGE_ERROR
    assert "--max-fields must be 3 or more" in capsys.readouterr().err


def test_call_needs_exactly_one_server(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["call", "t", "{}"])
    assert (
        "one of the arguments --server --url --app --config is required" in capsys.readouterr().err
    )


def _record(tmp_path: Any, entries: list[dict[str, Any]]) -> Any:
    """A snapshot folder holding one recorded surface per entry (as the drift gate writes)."""
    from pytest_mcp_contracts.contracts.snapshot import SnapshotStore, dumps, write_atomic

    store = SnapshotStore(tmp_path / "mcp-contracts")
    for entry in entries:
        data = {"format_version": 1, "server": "shop", "tool": entry["name"], "surface": entry}
        write_atomic(store.path_for("shop", entry["name"]), dumps(data))
    return store.root


def test_inspect_shows_the_schema_checks_findings_of_the_recorded_listing(
    tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _record(
        tmp_path,
        [
            {"name": "string_root", "inputSchema": {"type": "string"}},
            {
                "name": "ok",
                "description": "Does nothing, safely.",
                "inputSchema": {"type": "object", "properties": {}},
                "annotations": {
                    "readOnlyHint": True,
                    "destructiveHint": False,
                    "idempotentHint": True,
                    "openWorldHint": False,
                },
            },
        ],
    )
    assert main(["inspect", "--snapshots", str(folder)]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert listed[0].split() == ["tool", "output", "contract", "findings", "called", "safety"]
    assert listed[1].startswith("ok           none             -                         yes ")
    assert listed[2].startswith("string_root  none             1 error(s), 2 warning(s)  yes ")
    assert listed[4:] == ["pytest calls 2 of 2 tools under --mcp-call=nondestructive (the default)"]
    assert main(["inspect", "--snapshots", str(folder), "string_root"]) == 0
    shown = capsys.readouterr().out
    assert (
        "findings (the schema check's, judged as protocol 2025-11-25: the snapshot does not "
        "record the server's):\n"
        "  error mcp/root-object (mcp): inputSchema root must be an object schema (the spec "
        "requires it); it has type 'string'\n"
        "    at inputSchema $\n"
        "  warning no-description: the tool has no description\n"
    ) in shown
    assert main(["inspect", "--snapshots", str(folder), "--json"]) == 0
    tools = {t["name"]: t for t in json.loads(capsys.readouterr().out)["tools"]}
    assert tools["ok"]["findings"] == []
    assert tools["ok"]["findingsProtocol"] == "2025-11-25"
    finding, *lints = tools["string_root"]["findings"]
    assert [lint["rule"] for lint in lints] == ["no-description", "no-annotations"]
    assert finding == {
        "rule": "mcp/root-object",
        "client": "mcp",
        "severity": "error",
        "kind": "invalid_listing",
        "where": "inputSchema $",
        "message": "inputSchema root must be an object schema (the spec requires it); it has "
        "type 'string'",
        "details": [],
        "fix": None,
    }


def test_inspect_applies_the_clients_and_lints_it_is_given(
    tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    # An open object is refused by OpenAI's strict mode only: chosen with --clients, it is a
    # finding; the lints are set as --mcp-lints sets them.
    folder = _record(
        tmp_path,
        [
            {
                "name": "noargs",
                "description": "Takes nothing.",
                "inputSchema": {"type": "object", "properties": {}},
            }
        ],
    )

    def rules(*flags: str) -> list[tuple[str, str]]:
        assert main(["inspect", "--snapshots", str(folder), "--json", *flags]) == 0
        [tool] = json.loads(capsys.readouterr().out)["tools"]
        return [(f["rule"], f["severity"]) for f in tool["findings"]]

    assert rules() == [("no-annotations", "warning")]
    assert rules("--clients=openai-strict", "--lints=no-annotations:off") == [
        ("openai-strict/open-object", "error")
    ]
    assert rules("--lints=all:error") == [("no-annotations", "error")]
    assert main(["inspect", "--snapshots", str(folder), "--clients=gemeni"]) == 2
    assert "--clients: unknown client 'gemeni' (did you mean gemini?)" in capsys.readouterr().err


def test_inspect_lists_prompts_resources_and_templates_with_their_content_contracts(
    tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    from pytest_mcp_contracts.contracts.snapshot import SnapshotStore, dumps, write_atomic

    store = SnapshotStore(tmp_path / "mcp-contracts")
    prompt = {
        "name": "review",
        "arguments": [{"name": "code", "required": True}, {"name": "style"}],
    }
    content = {
        "source": "inferred",
        "kinds": ["json-text"],
        "quality": "validated",
        "basis": "consistent",
        "schema": {
            "type": "object",
            "properties": {"theme": {"type": "string"}},
            "required": ["theme"],
        },
        "seen": {"$": 12, "$.theme": 12},
    }
    files = {
        "prompts/review": {"prompt": "review", "surface": prompt},
        "resources/config_app-1": {
            "resource": "config://app",
            "surface": {"uri": "config://app", "name": "app", "mimeType": "application/json"},
            "content": content,
        },
        "templates/users-1": {
            "template": "users://{org}/{id}",
            "surface": {"uriTemplate": "users://{org}/{id}", "name": "users"},
        },
        # Relative: its listing finding is shown, as the schema item would say it; its
        # content section is corrupted, and said to be.
        "resources/relative-1": {
            "resource": "docs/x.md",
            "surface": {"uri": "docs/x.md", "name": "x"},
            "content": {"source": "inferred", "schema": {}, "seen": {}},
        },
    }
    for file, data in files.items():
        write_atomic(
            store.path_for("shop", file), dumps({"format_version": 2, "server": "shop", **data})
        )
    assert main(["inspect", "--snapshots", str(store.root)]) == 0
    out = capsys.readouterr().out
    assert (
        "\nprompts:\n  review  arguments: code (required), style  findings: -  content: none\n"
        in out
    )
    assert (
        "\nresources:\n"
        "  config://app  application/json  findings: -  content: validated\n"
        "      theme: string\n"
        "      … other keys allowed\n"
        "  docs/x.md     -  findings: 1 error(s)  content: corrupted\n"
    ) in out
    assert (
        "\ntemplates:\n  users://{org}/{id}  variables: org, id  findings: -  content: none" in out
    )
    assert main(["inspect", "--snapshots", str(store.root), "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert [p["name"] for p in payload["prompts"]] == ["review"]
    (app, relative) = payload["resources"]
    assert (app["uri"], app["contentContract"], app["quality"]) == (
        "config://app",
        "inferred",
        "validated",
    )
    assert app["contentSchema"] == content["schema"]
    assert [f["rule"] for f in relative["findings"]] == ["mcp/resource-uri"]
    assert payload["templates"][0]["uriTemplate"] == "users://{org}/{id}"


# What a reader of --help would see as reST rather than as text: ``literals``, roles such as
# :option:`--x` or :func:`f`, and **strong** emphasis.
REST_MARKUP = re.compile(r"``|:[a-z]+:`|\*\*")


@pytest.mark.parametrize("argv", [["--help"], ["inspect", "--help"], ["call", "--help"]])
def test_help_is_plain_text(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 0
    shown = capsys.readouterr().out
    assert "mcp-contracts" in shown
    assert not REST_MARKUP.search(shown), REST_MARKUP.findall(shown)


def test_the_plugins_options_help_is_plain_text() -> None:
    # What `pytest --help` prints for each option (and its ini key).
    from pytest_mcp_contracts.options import OPTIONS

    marked = [option.flag for option in OPTIONS if REST_MARKUP.search(option.help)]
    assert marked == []


def test_inspect_shows_each_input_limit_in_the_text_and_the_json(
    tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    properties = {
        "limit": {"type": "integer", "minimum": 1, "maximum": 100},
        "ratio": {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
        "ids": {
            "type": "array",
            "items": {"type": "string", "maxLength": 12, "pattern": "^A-[0-9]+$"},
            "minItems": 1,
            "maxItems": 5,
        },
        "sort": {"enum": ["name", "date", "size"]},
    }
    schema = {"type": "object", "properties": properties, "required": ["ids"]}
    folder = _record(tmp_path, [{"name": "search", "inputSchema": schema}])
    assert main(["inspect", "--snapshots", str(folder), "search", "--schema=input"]) == 0
    shown = capsys.readouterr().out
    assert (
        "input schema:\n"
        "  ids[]: string (1..5 items) (length ≤ 12) (pattern ^A-[0-9]+$)\n"
        "  limit?: integer (1..100)\n"
        "  ratio?: number (> 0, ≤ 1)\n"
        "  sort?: string (enum: name, date, size)\n"
    ) in shown
    assert main(["inspect", "--snapshots", str(folder), "--json"]) == 0
    [tool] = json.loads(capsys.readouterr().out)["tools"]
    # As the snapshot keeps the listing: keys sorted (the summary puts required ones first).
    assert tool["inputLimits"] == [
        {"path": "$.ids", "minItems": 1, "maxItems": 5},
        {"path": "$.limit", "minimum": 1, "maximum": 100},
        {"path": "$.ratio", "exclusiveMinimum": 0, "maximum": 1},
        {"path": "$.sort", "enumSize": 3},
        {"path": "$.ids[]", "maxLength": 12, "pattern": "^A-[0-9]+$"},
    ]


def test_the_commands_take_their_shared_settings_from_the_options_table() -> None:
    from pytest_mcp_contracts.cli.parser import build_parser
    from pytest_mcp_contracts.options import (
        DEFAULT_CALL_TIMEOUT,
        DEFAULT_CLIENTS,
        DEFAULT_STARTUP_TIMEOUT,
    )

    parser = build_parser()
    call = parser.parse_args(["call", "--server", "x"])
    assert (call.startup_timeout, call.call_timeout, call.roots, call.header) == (
        DEFAULT_STARTUP_TIMEOUT,
        DEFAULT_CALL_TIMEOUT,
        None,
        [],
    )
    inspect = parser.parse_args(["inspect"])
    assert (inspect.startup_timeout, inspect.clients) == (
        DEFAULT_STARTUP_TIMEOUT,
        ",".join(DEFAULT_CLIENTS),
    )
    # Not given: resolved as a plain pytest run would, or left out of export's command line.
    assert (inspect.call, inspect.snapshots, inspect.lints) == (None, None, None)
    assert parser.parse_args(["export", "--format", "zod"]).snapshot_dir is None
    with pytest.raises(SystemExit):
        parser.parse_args(["inspect", "--call", "sometimes"])  # not one of --mcp-call's


def test_each_commands_flags_are_named_once() -> None:
    from pytest_mcp_contracts.options import OPTIONS, Command

    for command in Command:
        names = [
            name
            for option in OPTIONS
            for flag in option.cli
            if command in flag.commands
            for name in flag.names
        ]
        assert len(names) == len(set(names)), command
    assert len({option.dest for option in OPTIONS}) == len(OPTIONS)
