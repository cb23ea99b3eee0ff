"""`mcp-contracts inspect`: what a tool returns, at a glance, from a live server or snapshots."""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_mcp_contracts import cli

from ..conftest import RunMcp, server_command

REPO = Path(__file__).parents[2]
EXAMPLE = server_command(REPO / "example_server")
SNAPSHOTS = REPO / "mcp-contracts"


def inspect(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """`mcp-contracts inspect` in this process (``cli.main``, what the installed command
    calls), its exit status and output as a subprocess gives them; the servers it starts
    are real processes. The installed command itself runs in test_findings_report.py and
    test_reproduce.py."""
    return cli_command("inspect", *args, cwd=cwd)


def cli_command(verb: str, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``mcp-contracts VERB ARGS`` in this process, as ``inspect`` runs it."""
    out, err = io.StringIO(), io.StringIO()
    with (
        contextlib.chdir(cwd or os.getcwd()),
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
    ):
        try:
            status = cli.main([verb, *args])
        except SystemExit as exc:  # argparse's usage errors
            status = exc.code if isinstance(exc.code, int) else 2
    return subprocess.CompletedProcess(args, status, out.getvalue(), err.getvalue())


def table(listing: str) -> dict[str, str]:
    """The tool table's rows by tool name: the lines after its heading, to the first blank."""
    rows = listing.split("\n\n")[0].splitlines()[1:]
    return {line.split()[0]: line for line in rows}


def test_lists_tools_with_safety_and_output_contract() -> None:
    done = inspect("--server", EXAMPLE, "--snapshots", str(SNAPSHOTS))
    assert done.returncode == 0, done.stderr
    lines = table(done.stdout)
    assert set(lines) == {
        "get_order",
        "search_books",
        "stock_level",
        "order_summary_json",
        "describe_book",
        "cancel_order",
    }
    assert "declared" in lines["get_order"] and "read-only" in lines["get_order"]
    assert "  validated  " in lines["order_summary_json"]
    assert " none " in lines["describe_book"]
    assert "destructive" in lines["cancel_order"] and "read-only" not in lines["cancel_order"]


def test_declared_inferred_and_missing_output_schemas_are_labelled_plainly() -> None:
    declared = inspect("--server", EXAMPLE, "--snapshots", str(SNAPSHOTS), "get_order")
    assert "output schema (declared by the server):" in declared.stdout
    assert "  status: string (enum: pending, shipped, delivered)" in declared.stdout
    inferred = inspect("--server", EXAMPLE, "--snapshots", str(SNAPSHOTS), "order_summary_json")
    assert (
        "output schema (inferred by pytest-mcp-contracts: validated (consistent over 3 or more "
        "inputs that differ in declared arguments, with outputs that varied); the server "
        "declares none):" in inferred.stdout
    )
    missing = inspect("--server", EXAMPLE, "--snapshots", str(SNAPSHOTS), "describe_book")
    assert "output schema: none. The server declares no outputSchema" in missing.stdout
    assert "Record one with: pytest --mcp-server=" in missing.stdout


def test_json_answer_for_machines() -> None:
    done = inspect("--server", EXAMPLE, "--snapshots", str(SNAPSHOTS), "--json", "describe_book")
    answer = json.loads(done.stdout)
    assert answer["name"] == "describe_book"
    assert answer["outputSchema"] is None and answer["contractSource"] == "none"
    assert "declares no outputSchema" in answer["outputSchemaNote"]
    assert answer["inputSchema"]["type"] == "object"
    listing = json.loads(inspect("--snapshots", str(SNAPSHOTS), "--json").stdout)
    sources = {t["name"]: (t["contractSource"], t["quality"]) for t in listing["tools"]}
    assert sources["order_summary_json"] == ("inferred", "validated")
    assert sources["get_order"] == ("declared", "declared")


def test_snapshots_alone_start_no_server() -> None:
    done = inspect("--snapshots", str(SNAPSHOTS), "order_summary_json")
    assert done.returncode == 0, done.stderr
    assert "inferred by pytest-mcp-contracts: validated (consistent" in done.stdout


def test_no_target_reads_the_default_snapshot_folder(tmp_path: Path) -> None:
    shutil.copytree(SNAPSHOTS, tmp_path / "mcp-contracts")
    done = inspect("order_summary_json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "inferred by pytest-mcp-contracts: validated (consistent" in done.stdout
    empty = tmp_path / "elsewhere"
    empty.mkdir()
    missing = inspect(cwd=empty)
    assert missing.returncode == 2
    assert missing.stderr.startswith("mcp-contracts: no recorded contracts in mcp-contracts/: ")


def test_a_corrupted_contract_is_shown_as_corrupted_not_as_none(tmp_path: Path) -> None:
    folder = tmp_path / "mcp-contracts"
    shutil.copytree(SNAPSHOTS, folder)
    (server,) = [p for p in folder.iterdir() if p.is_dir()]
    (server / "order_summary_json.json").write_text('{"format_version": 1, "out')
    bogus = server / "describe_book.json"
    bogus.write_text(json.dumps({**json.loads(bogus.read_text()), "output": {"type": "bogus"}}))
    for target in ((), ("--server", EXAMPLE)):
        listing = inspect(*target, cwd=tmp_path)
        assert listing.returncode == 0, listing.stderr
        lines = table(listing.stdout)
        assert " corrupted " in lines["order_summary_json"]
        assert " corrupted " in lines["describe_book"]
        assert " none " not in listing.stdout
        detail = inspect(*target, "describe_book", cwd=tmp_path)
        assert "output schema: unknown. The recorded contract is corrupted and was not used:" in (
            detail.stdout
        )
        assert "describe_book.json: not a contract: 'output' must be an object" in detail.stdout
        answer = json.loads(inspect(*target, "order_summary_json", "--json", cwd=tmp_path).stdout)
        assert answer["contractSource"] == "corrupted"
        assert "not valid JSON" in answer["outputSchemaNote"]


def test_unknown_tool_is_one_line_with_close_matches() -> None:
    done = inspect("--snapshots", str(SNAPSHOTS), "get_ordr")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "mcp-contracts: no tool 'get_ordr' on example-server; did you mean get_order, cancel_order?"
    ]


def test_a_server_that_does_not_start_is_a_clear_error() -> None:
    done = inspect("--server", server_command("startup_crash.py"))
    assert done.returncode == 1
    assert "the server did not start" in done.stderr
    # The server's own stderr is shown; no traceback of the inspect command itself.
    assert "server stderr (last lines):" in done.stderr
    assert "ImportError: cannot import name 'FastMCP'" in done.stderr
    assert "pytest_mcp_contracts" not in done.stderr


def test_large_schema_is_folded_within_the_budget_and_drills_down_to_any_leaf() -> None:
    server = server_command("large_schema.py")
    done = inspect("--server", server, "get_order")
    assert done.returncode == 0, done.stderr
    output = done.stdout.split("output schema (declared by the server):")[1].splitlines()
    assert 5 < len(output) <= 32  # the budget (30) plus the title and the hidden-fields note
    assert any("--field-path 'items[]'" in line for line in output)
    assert "fields shown" in output[-1]
    leaf = inspect("--server", server, "get_order", "--field-path", "items[].variants[].price")
    assert leaf.returncode == 0, leaf.stderr
    assert "price: number" in leaf.stdout
    wrong = inspect("--server", server, "get_order", "--field-path", "items[].variant")
    assert wrong.returncode == 2 and "variants" in wrong.stderr


@pytest.mark.parametrize("path", ["customer.address.city", "items[].dimensions[][]", "metadata"])
def test_drill_down_reaches_nested_paths(path: str) -> None:
    done = inspect("--server", server_command("large_schema.py"), "get_order", "--field-path", path)
    assert done.returncode == 0, done.stderr


# Exits on the 2026 probe, as servers on old SDKs do; speaks the handshake when started again.
BROKEN_BY_PROBE = """
import json, os, sys
for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("method") == "server/discover":
        sys.stderr.write("ValueError: unknown method server/discover\\n"); sys.stderr.flush()
        os._exit(1)
    if "id" not in msg:
        continue
    result = {"tools": []} if msg["method"] == "tools/list" else {
        "protocolVersion": "2024-11-05", "capabilities": {"tools": {}},
        "serverInfo": {"name": "old"}}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}) + "\\n")
    sys.stdout.flush()
"""


def test_a_server_the_probe_breaks_is_listed_and_the_finding_said(tmp_path: Path) -> None:
    script = tmp_path / "old.py"
    script.write_text(BROKEN_BY_PROBE)
    done = inspect("--server", f"{sys.executable} {script}")
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip() == (
        "mcp-contracts: warning: clients that open with server/discover (protocol 2026-07-28) "
        "cannot use this server: the server exited while answering server/discover (exit "
        "status 1); its stderr ended with 'ValueError: unknown method server/discover'. It was "
        "started again and reached over the initialize handshake (protocol 2024-11-05). A "
        "server should answer a method it does not know with JSON-RPC error -32601 (method not "
        "found) and keep running"
    )


def test_inspect_says_which_tools_pytest_calls_as_pytest_decides(
    pytester: pytest.Pytester,
    run_mcp_inprocess: RunMcp,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The project's call policy (mcp_call) and tool tables (call, skip), read by inspect as
    the plugin reads them: the tools it says pytest calls are the ones pytest then calls."""
    pytester.makepyprojecttoml(
        """
        [tool.pytest.ini_options]
        mcp_call = "readonly"

        [tool.mcp-contracts.tools.touch]
        call = "all"

        [tool.mcp-contracts.tools.hinted]
        skip = true
        """
    )
    log = pytester.path / "calls.log"
    monkeypatch.setenv("MCP_FIXTURE_CALL_LOG", str(log))
    from pytest_mcp_contracts.cli import main

    capsys.readouterr()  # what the fixtures printed
    target = ["inspect", "--server", server_command("annotated.py")]
    assert main([*target, "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert (answer["callPolicy"], answer["callPolicySource"]) == (
        "readonly",
        f"mcp_call in {pytester.path / 'pyproject.toml'}",
    )
    said = {tool["name"] for tool in answer["tools"] if tool["called"]}
    assert said == {"read", "touch"}
    assert main(target) == 0
    assert capsys.readouterr().out.splitlines()[-6:] == [
        f"pytest calls 2 of 5 tools under --mcp-call=readonly (mcp_call in "
        f"{pytester.path / 'pyproject.toml'}):",
        "  wipe: the tool does not declare readOnlyHint: true and --mcp-call=readonly; use "
        "--mcp-call=nondestructive or all to call it",
        "  bare: the tool does not declare readOnlyHint: true and --mcp-call=readonly; use "
        "--mcp-call=nondestructive or all to call it",
        "  hinted: skipped by [tool.mcp-contracts.tools] skip = true",
        "",
        "boundary (where the server says it works): none declared (no folder given, the "
        "client's roots never asked for)",
    ]
    assert not log.exists()  # inspect lists tools, it calls none
    run_mcp_inprocess("annotated.py", args=("--mcp-max-examples=3",))
    capsys.readouterr()  # the run's own output
    called = {line.split(" ", 1)[0] for line in log.read_text().splitlines()}
    assert called == said
    # --call answers for another policy; a tool's own table still wins.
    assert main([*target, "--json", "--call=all"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert {tool["name"] for tool in answer["tools"] if tool["called"]} == {
        "read",
        "touch",
        "wipe",
        "bare",
    }
