"""Inferred output contracts: recorded on a first run, checked later, accepted on request."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_mcp_contracts.transport.stdio import ServerCommand, open_stdio

from ..conftest import NO_SEQUENCES, RunMcp, RunPytest, server_command

SNAPSHOTS = Path("mcp-contracts") / "inferred"


@pytest.fixture
def variant(monkeypatch: pytest.MonkeyPatch) -> object:
    monkeypatch.delenv("CI", raising=False)

    def use(name: str) -> None:
        monkeypatch.setenv("MCP_FIXTURE_VARIANT", name)

    use("v1")
    return use


def snapshot_bytes(root: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((root / SNAPSHOTS).glob("*.json"))}


def test_first_run_records_one_reviewable_file_per_tool(
    run_mcp_inprocess: RunMcp, pytester: pytest.Pytester, variant: object
) -> None:
    result = run_mcp_inprocess("inferred.py", args=(NO_SEQUENCES, "-k", "not list_items"))
    result.assert_outcomes(passed=12)
    files = snapshot_bytes(pytester.path)
    assert sorted(files) == ["describe.json", "get_item.json", "raw_structured.json"]
    record = json.loads(files["get_item.json"])
    assert files["get_item.json"].decode() == json.dumps(record, sort_keys=True, indent=2) + "\n"
    output = record["output"]
    assert record["format_version"] == 2 and record["tool"] == "get_item"
    assert output["source"] == "inferred" and output["kinds"] == ["json-text"]
    assert output["quality"] == "validated"
    schema = output["schema"]
    assert schema["properties"]["price"]["type"] == "number"
    assert schema["properties"]["updated"]["format"] == "date-time"
    # `note` is only there for even ids: optional, and its frequency is kept.
    assert "note" not in schema["required"] and {"id", "name", "price"} <= set(schema["required"])
    # Counts are capped at 10 (enough to break on) and exact observation counts are not kept:
    # they would change the file on every run.
    assert output["seen"]["$"] == output["seen"]["$.note"] == 10 and "observations" not in output
    assert json.loads(files["describe.json"])["output"]["quality"] == "unknown"
    result.stdout.fnmatch_lines(
        [
            "  contracts: 0 declared, 2 validated, 0 inferred, 2 unknown",
            "  outputSchema coverage 0% (0/4), contract coverage 50% (2/4)",
            "  could declare an outputSchema today: get_item, raw_structured*",
            "recorded 3 file(s):",
        ]
    )


def test_second_run_with_no_change_writes_nothing_and_passes(
    run_mcp_inprocess: RunMcp, pytester: pytest.Pytester, variant: object
) -> None:
    run_mcp_inprocess("inferred.py", args=(NO_SEQUENCES, "-k", "get_item")).assert_outcomes(
        passed=4
    )
    before = snapshot_bytes(pytester.path)
    mtime = (pytester.path / SNAPSHOTS / "get_item.json").stat().st_mtime_ns
    again = run_mcp_inprocess("inferred.py", args=(NO_SEQUENCES, "-k", "get_item"))
    again.assert_outcomes(passed=4)
    assert snapshot_bytes(pytester.path) == before
    assert (pytester.path / SNAPSHOTS / "get_item.json").stat().st_mtime_ns == mtime
    assert "recorded" not in again.stdout.str()


def test_drift_against_one_recording_breaking_kind_and_additive(
    run_mcp_inprocess: RunMcp, pytester: pytest.Pytester, variant: object
) -> None:
    """Three servers checked against one recording: none of these runs writes (a failing
    contract records nothing, additive drift is only listed), so they share it."""
    run_mcp_inprocess("inferred.py", args=(NO_SEQUENCES, "-k", "get_item")).assert_outcomes(
        passed=4
    )
    before = snapshot_bytes(pytester.path)

    # A field changed type: breaking, with field paths and the shrunk input.
    variant("breaking")  # type: ignore[operator]
    result = run_mcp_inprocess("inferred.py", args=(NO_SEQUENCES, "-k", "get_item"))
    result.assert_outcomes(passed=3, failed=1)
    result.stdout.fnmatch_lines(
        [
            "drift from the recorded output contract: $.price: number -> string",
            "  $.price: number -> string",
            "  if the change is intended, accept it: pytest * --mcp-snapshot-update",
            "smallest input found:",
            '    {"id": 1}',
        ]
    )

    # The output kind changed (JSON text -> prose): breaking too.
    variant("prose")  # type: ignore[operator]
    result = run_mcp_inprocess("inferred.py", args=(NO_SEQUENCES, "-k", "get_item"))
    result.assert_outcomes(passed=3, failed=1)
    result.stdout.fnmatch_lines(["  output kind: json-text -> prose"])

    # A new field: additive drift passes and is listed with the accept command.
    variant("additive")  # type: ignore[operator]
    result = run_mcp_inprocess("inferred.py", args=(NO_SEQUENCES, "-k", "get_item"))
    result.assert_outcomes(passed=4)
    result.stdout.fnmatch_lines(
        [
            "  drift (accept it with: pytest * --mcp-snapshot-update):",
            "    additive: get_item $.currency: new field: string",
        ]
    )
    assert snapshot_bytes(pytester.path) == before


def test_update_accepts_drift_and_the_next_run_passes(
    run_mcp_inprocess: RunMcp, pytester: pytest.Pytester, variant: object
) -> None:
    run_mcp_inprocess("inferred.py", args=(NO_SEQUENCES, "-k", "get_item")).assert_outcomes(
        passed=4
    )
    first = json.loads(snapshot_bytes(pytester.path)["get_item.json"])["output"]
    variant("breaking")  # type: ignore[operator]
    run_mcp_inprocess(
        "inferred.py", args=(NO_SEQUENCES, "-k", "get_item", "--mcp-snapshot-update")
    ).assert_outcomes(passed=4)
    accepted = json.loads(snapshot_bytes(pytester.path)["get_item.json"])["output"]
    # Accepting replaces: the contract is what the accepted run observed, not a merge.
    assert first["schema"]["properties"]["price"]["type"] == "number"
    assert accepted["schema"]["properties"]["price"]["type"] == "string"
    run_mcp_inprocess("inferred.py", args=(NO_SEQUENCES, "-k", "get_item")).assert_outcomes(
        passed=4
    )


def test_ci_never_writes_and_a_missing_contract_says_how_to_record_it(
    run_mcp_inprocess: RunMcp,
    pytester: pytest.Pytester,
    variant: object,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CI", "true")
    result = run_mcp_inprocess("inferred.py", args=(NO_SEQUENCES, "-k", "get_item"))
    result.assert_outcomes(passed=2, failed=2)
    result.stdout.fnmatch_lines(
        [
            "no contract is recorded for this tool (*get_item.json), and CI is set, so none is "
            "written",
            "  record it locally with: pytest *  and commit the file",
        ]
    )
    assert not (pytester.path / "mcp-contracts").exists()


def test_update_is_refused_under_ci(
    inprocess_pytest: RunPytest, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CI", "1")
    result = inprocess_pytest(
        NO_SEQUENCES, f"--mcp-server={server_command('inferred.py')}", "--mcp-snapshot-update"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*contracts are never written in CI*"])


# What a snapshot file that is no contract holds, and how the error names it. Each is written
# over the same recording in turn: these runs never rewrite the file (that is checked), so
# one recording serves them all.
NOT_A_CONTRACT = [
    (
        {"type": "bogus"},
        "not a contract: unknown key(s) *'type'*a contract file has format_version, *",
    ),
    (
        {"output": {"type": "bogus"}},
        "not a contract: 'output' must be an object whose source is one of *",
    ),
    ({"surface": "bogus"}, "not a contract: 'surface' must be an object*"),
]


def test_a_snapshot_that_is_no_contract_is_an_error_and_never_rewritten(
    run_mcp_inprocess: RunMcp, pytester: pytest.Pytester, variant: object
) -> None:
    run_mcp_inprocess("inferred.py", args=(NO_SEQUENCES, "-k", "get_item")).assert_outcomes(
        passed=4
    )
    path = pytester.path / SNAPSHOTS / "get_item.json"
    recorded = json.loads(path.read_text())

    # Not JSON at all (a write cut off): an update must not replace it either.
    path.write_text('{"format_version": 1, "tool": "get_item", "output": {"sour')
    result = run_mcp_inprocess(
        "inferred.py", args=(NO_SEQUENCES, "-k", "get_item", "--mcp-snapshot-update")
    )
    result.assert_outcomes(passed=2, failed=2)
    result.stdout.fnmatch_lines(
        ["the recorded contract *get_item.json cannot be read: not valid JSON*"]
    )
    assert path.read_text() == '{"format_version": 1, "tool": "get_item", "output": {"sour'

    for change, problem in NOT_A_CONTRACT:
        path.write_text(json.dumps({**recorded, **change}))
        before = path.read_bytes()
        for mode in ((), ("--mcp-snapshot-update",)):
            result = run_mcp_inprocess("inferred.py", args=(NO_SEQUENCES, "-k", "get_item", *mode))
            result.assert_outcomes(passed=2, failed=2)  # drift and contract name the file
            result.stdout.fnmatch_lines(
                [f"the recorded contract *get_item.json cannot be read: {problem}"]
            )
            assert path.read_bytes() == before, (change, mode)


def test_update_prunes_stale_contracts_only_when_every_tool_ran(
    run_mcp_inprocess: RunMcp, pytester: pytest.Pytester, variant: object
) -> None:
    stale = pytester.path / SNAPSHOTS / "removed_tool.json"
    stale.parent.mkdir(parents=True)
    stale.write_text(json.dumps({"format_version": 1, "tool": "removed_tool"}))
    partial = run_mcp_inprocess(
        "inferred.py", args=(NO_SEQUENCES, "-k", "get_item", "--mcp-snapshot-update")
    )
    partial.assert_outcomes(passed=4)
    assert stale.exists()
    full = run_mcp_inprocess(
        "inferred.py", args=(NO_SEQUENCES, "--mcp-snapshot-update", "--mcp-max-examples=10")
    )
    assert full.ret == 0
    assert not stale.exists()
    full.stdout.fnmatch_lines(["pruned 1 file(s):", "*removed_tool.json"])


def test_stale_contracts_are_listed(
    run_mcp_inprocess: RunMcp, pytester: pytest.Pytester, variant: object
) -> None:
    stale = pytester.path / SNAPSHOTS / "removed_tool.json"
    stale.parent.mkdir(parents=True)
    stale.write_text("{}")
    result = run_mcp_inprocess("inferred.py", args=(NO_SEQUENCES, "-k", "describe"))
    result.stdout.fnmatch_lines(
        ["  stale contracts of tools the server no longer lists*", "    *removed_tool.json"]
    )


def test_consistency_warnings(run_mcp_inprocess: RunMcp, variant: object) -> None:
    result = run_mcp_inprocess(
        "inferred.py", args=(NO_SEQUENCES, "-k", "raw_structured or list_items", "-rw")
    )
    result.stdout.fnmatch_lines_random(
        [
            "*inferred raw_structured: returns structuredContent but declares no outputSchema*",
            "*inferred raw_structured: * results with structuredContent did not mirror it*",
            "*inferred list_items: its output kind changes from call to call: *",
        ]
    )


def test_exported_schemas_validate_what_they_were_learned_from(
    run_mcp_inprocess: RunMcp, pytester: pytest.Pytester, variant: object
) -> None:
    from jsonschema import Draft202012Validator, FormatChecker

    result = run_mcp_inprocess(
        "inferred.py",
        args=(
            NO_SEQUENCES,
            "--mcp-export-schemas=proposals",
        ),
    )
    assert result.ret == 0
    exported = pytester.path / "proposals" / "inferred"
    assert sorted(p.name for p in exported.glob("*.json")) == [
        "get_item.json",
        "raw_structured.json",
    ]
    # One item comes back as a JSON object, several as one block each (an array): a root
    # that is sometimes an object and sometimes an array is never proposed as a schema.
    result.stdout.fnmatch_lines(
        ["proposals not exported:", "  list_items: not exported: $ is array | object *"]
    )
    schema = json.loads((exported / "get_item.json").read_text())
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert "quality: validated" in schema["description"]
    validator = Draft202012Validator(schema, format_checker=FormatChecker())
    # Ask the server itself for items 1..40 (odd and even ids, with and without `note`).
    conn = open_stdio(
        ServerCommand.parse(server_command("inferred.py")),
        startup_timeout=10,
        max_message_bytes=1 << 20,
    )
    try:
        for item_id in range(1, 41):
            result = conn.request(
                "tools/call", {"name": "get_item", "arguments": {"id": item_id}}, timeout=10
            )
            instance = json.loads(result["content"][0]["text"])
            assert validator.is_valid(instance), instance
    finally:
        conn.close()
