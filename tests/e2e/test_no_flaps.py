"""Inferred contracts you can commit (issue 15): recorded once, a correct server never fails
CI on them, whatever inputs CI happens to generate; a changed one does; accepting replaces.

The fixture (`tests/servers/realistic.py`, on the real SDK) varies the way real servers do:
optional fields behind flags, values that are nearly always null, arrays that are usually
empty, list items with different keys, a map keyed by the environment, and a type that
varies from the start (a bug). Each pytester run costs seconds, so a handful of CI seeds
runs here; bench/README.md ("Measured by hand") gives the measurement over many more.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ..conftest import NO_SEQUENCES, RunMcp

FOLDER = Path("mcp-contracts") / "realistic"
# CI with other inputs than the recording: the CI profile derandomizes (the same inputs every
# run) and ignores --hypothesis-seed, so the default profile lets each seed count.
CI_RERUN = ("--hypothesis-profile=default", "--mcp-max-examples=10")


@pytest.fixture
def run_mcp(run_inprocess: RunMcp) -> RunMcp:
    """In-process (--mcp-app): what this file checks is the plugin's, not the transport's
    (tests/e2e/test_transports.py runs the checks over every transport)."""
    return run_inprocess


def _files(root: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((root / FOLDER).glob("*.json"))}


def _output(root: Path, tool: str) -> dict[str, object]:
    data = json.loads((root / FOLDER / f"{tool}.json").read_text(encoding="utf-8"))
    output = data["output"]
    assert isinstance(output, dict)
    return output


def _record(
    run_mcp: RunMcp, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> pytest.RunResult:
    """The realistic server recorded once, locally, with the default number of inputs, in an
    environment that CI will not have."""
    monkeypatch.setenv("MCP_FIXTURE_VARIANT", "v1")
    monkeypatch.setenv("OLDPWD", "/home/dev/previous")
    monkeypatch.setenv("DEV_ONLY_TOKEN_PATH", "/home/dev/.token")
    exports = pytester.path / "proposals"
    result = run_mcp(
        "realistic.py",
        args=(
            NO_SEQUENCES,
            "--hypothesis-seed=0",
            f"--mcp-export-schemas={exports}",
            f"--mcp-report={pytester.path / 'report.json'}",
        ),
    )
    result.assert_outcomes(passed=23, skipped=1)
    return result


def test_recorded_once_a_correct_server_never_fails_ci_with_other_inputs(
    run_mcp: RunMcp, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # One recording serves both halves of the story (a recording is the costliest run here):
    # what it says it cannot trust, then CI runs against it.
    recorded = _record(run_mcp, pytester, monkeypatch)
    _says_what_cannot_be_trusted(recorded, pytester.path)
    before = _files(pytester.path)
    env = _output(pytester.path, "get_env")["schema"]
    assert isinstance(env, dict)
    # The environment is learned as a map, not as required properties.
    assert env["properties"]["env"] == {
        "type": "object",
        "additionalProperties": {"type": "string"},
    }
    # CI: another environment (OLDPWD gone, other variables there), other inputs, fewer.
    monkeypatch.setenv("CI", "true")
    monkeypatch.delenv("OLDPWD")
    monkeypatch.delenv("DEV_ONLY_TOKEN_PATH")
    monkeypatch.setenv("GITHUB_SHA", "0123abc")
    for seed in (1, 2, 3, 4):
        result = run_mcp(
            "realistic.py", args=(NO_SEQUENCES, *CI_RERUN, f"--hypothesis-seed={seed}")
        )
        assert result.ret == 0, f"seed {seed}:\n{result.stdout.str()}"
        result.assert_outcomes(passed=23, skipped=1)
        assert "breaking" not in result.stdout.str()
    assert _files(pytester.path) == before


def _says_what_cannot_be_trusted(recorded: pytest.RunResult, root: Path) -> None:
    """What cannot be trusted is said, and a varying type is never proposed."""
    recorded.stdout.fnmatch_lines(
        [
            "  contracts: 0 declared, 4 validated, 2 inferred, 0 unknown",
            "  types that vary from call to call (probably bugs; not validated, not exported):",
            "    quote $.total: integer | string",
            "  inferred but not validated:",
            "    list_tables: the tool takes no arguments, so every call was the same input",
            "proposals not exported:",
            "  quote: not exported: $.total is integer | string (make it one type, or declare it)",
        ]
    )
    quote = _output(root, "quote")
    assert quote["quality"] == "inferred"
    assert quote["basis"] == "not validated: a path takes different types from call to call"
    proposals = root / "proposals" / "realistic"
    assert sorted(p.name for p in proposals.iterdir()) == [
        "get_env.json",
        "get_order.json",
        "list_tables.json",
        "price.json",
        "search.json",
    ]
    report = json.loads((root / "report.json").read_text(encoding="utf-8"))
    tools = {tool["name"]: tool["output"] for tool in report["servers"][0]["tools"]}
    assert tools["quote"]["varying_types"] == [{"path": "$.total", "types": "integer | string"}]
    assert tools["quote"]["quality"] == "inferred"
    assert tools["get_order"]["varying_types"] == []
    assert tools["get_order"]["quality"] == "validated"


def test_rename_accept_remove_fails_at_the_removal(
    run_mcp: RunMcp, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    only_price = ("-k", "price")
    monkeypatch.setenv("MCP_FIXTURE_VARIANT", "v1")
    run_mcp("realistic.py", args=(NO_SEQUENCES, *only_price)).assert_outcomes(passed=4)
    monkeypatch.setenv("MCP_FIXTURE_VARIANT", "renamed")
    monkeypatch.setenv("CI", "true")
    renamed = run_mcp("realistic.py", args=(NO_SEQUENCES, *only_price))
    renamed.assert_outcomes(passed=3, failed=1)
    renamed.stdout.fnmatch_lines(["  $.unit_price: missing (was always present)"])
    # The summary lists the inferred contract's breaking drift with the rest, in CI...
    drift = [
        "    breaking: price $.unit_price: missing (was always present)",
        "    additive: price $.unit: new field: integer",
    ]
    renamed.stdout.fnmatch_lines(["  drift (accept it locally *--mcp-snapshot-update):", *drift])
    monkeypatch.delenv("CI")
    accept = run_mcp("realistic.py", args=(NO_SEQUENCES, *only_price, "--mcp-snapshot-update"))
    accept.assert_outcomes(passed=4)
    # ...and among what the update accepted.
    accept.stdout.fnmatch_lines(["  drift accepted by --mcp-snapshot-update:", *drift])
    schema = _output(pytester.path, "price")["schema"]
    assert isinstance(schema, dict)
    assert sorted(schema["properties"]) == ["currency", "sku", "unit"]
    assert schema["required"] == ["currency", "sku", "unit"]
    run_mcp("realistic.py", args=(NO_SEQUENCES, *only_price)).assert_outcomes(passed=4)
    monkeypatch.setenv("MCP_FIXTURE_VARIANT", "removed")
    removed = run_mcp("realistic.py", args=(NO_SEQUENCES, *only_price))
    removed.assert_outcomes(passed=3, failed=1)
    removed.stdout.fnmatch_lines(["  $.unit: missing (was always present)"])


def test_an_update_with_no_change_writes_nothing(
    run_mcp: RunMcp, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MCP_FIXTURE_VARIANT", "v1")
    only = ("-k", "get_order or search or get_env")
    run_mcp("realistic.py", args=(NO_SEQUENCES, *only, "--hypothesis-seed=0")).assert_outcomes(
        passed=12
    )
    before = _files(pytester.path)
    mtimes = {p: p.stat().st_mtime_ns for p in (pytester.path / FOLDER).iterdir()}
    # Other inputs and fewer of them, another environment: the same server.
    monkeypatch.setenv("SOME_NEW_VARIABLE", "1")
    update = run_mcp(
        "realistic.py",
        args=(
            NO_SEQUENCES,
            *only,
            "--mcp-snapshot-update",
            "--hypothesis-seed=5",
            "--mcp-max-examples=30",
        ),
    )
    update.assert_outcomes(passed=12)
    assert "recorded" not in update.stdout.str()
    assert _files(pytester.path) == before
    assert {p: p.stat().st_mtime_ns for p in (pytester.path / FOLDER).iterdir()} == mtimes
