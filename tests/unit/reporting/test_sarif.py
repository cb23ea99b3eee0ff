"""SARIF for code scanning: the run report's failed checks as results, a rule per failure
kind, each result at the nearest real file; valid against the published SARIF 2.1.0 schema."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from pytest_mcp_contracts.judges.failures import KIND_TEXT, FailureKind, Severity, severity_of
from pytest_mcp_contracts.reporting.model import Failure, Run
from pytest_mcp_contracts.reporting.sarif import rules, sarif_log, source_root

from ...sarif import sarif_errors
from .test_runreport import OUTCOMES, facts

# The failed checks of test_runreport's run, with the kinds their items would carry.
KINDS = {
    "mcp:shop::quote::contract": "output_schema",
    "mcp:shop::get_order::contract": "output_drift",
    "mcp:shop::prompt:greet::schema": "invalid_listing",
    "mcp:shop::old::drift": "removed_tool",
    # mcp:shop::sequences failed without a kind: an error of the run itself
}


def _run() -> Run:
    outcomes = copy.deepcopy(OUTCOMES)
    for node, kind in KINDS.items():
        outcomes[node].failure = Failure(kind, severity_of(FailureKind(kind)).value)
    return facts(outcomes)


def _project(root: Path) -> Path:
    """A repository with the run's recorded files: quote has none (its contract failed
    before one was recorded), the others have theirs."""
    (root / ".git").mkdir(parents=True)
    snapshots = root / "mcp-contracts" / "shop"
    (snapshots / "prompts").mkdir(parents=True)
    for name in ("get_order.json", "old.json", "prompts/greet.json"):
        (snapshots / name).write_text('{\n  "format_version": 2\n}\n', encoding="utf-8")
    (root / "pyproject.toml").write_text("[tool.pytest.ini_options]\n", encoding="utf-8")
    return root


def _log(rootdir: Path, config: Path | None = None) -> dict[str, Any]:
    return sarif_log(
        _run(),
        rootdir=rootdir,
        snapshot_dir=rootdir / "mcp-contracts",
        config_file=config,
        tool_version="0.1.0",
    )


def _by_node(log: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {result["properties"]["nodeId"]: result for result in log["runs"][0]["results"]}


def _uri(result: dict[str, Any]) -> str | None:
    physical = result["locations"][0].get("physicalLocation")
    return None if physical is None else str(physical["artifactLocation"]["uri"])


def test_every_failure_kind_is_a_rule_with_the_words_code_scanning_requires() -> None:
    assert set(KIND_TEXT) == set(FailureKind)
    descriptors = rules()
    assert [rule["id"] for rule in descriptors] == [kind.value for kind in FailureKind]
    for rule in descriptors:
        for key in ("shortDescription", "fullDescription", "help"):
            assert rule[key]["text"].strip(), (rule["id"], key)
        assert len(rule["shortDescription"]["text"]) <= 1024  # code scanning's limit
    levels = {rule["id"]: rule["defaultConfiguration"]["level"] for rule in descriptors}
    assert levels["crash"] == "error"  # critical
    assert levels["output_schema"] == "error"  # high
    assert levels["output_drift"] == "warning"  # medium
    assert levels["missing_record"] == "note"  # low
    assert {severity_of(kind) for kind in FailureKind} == set(Severity)
    crash = descriptors[0]
    assert crash["name"] == "Crash"
    assert descriptors[[k.value for k in FailureKind].index("protocol_violation")]["name"] == (
        "ProtocolViolation"
    )


def test_each_failed_check_is_one_result_at_its_recorded_file(tmp_path: Path) -> None:
    root = _project(tmp_path)
    log = _log(root)
    assert sarif_errors(log) == []
    assert log["version"] == "2.1.0"
    (run,) = log["runs"]
    assert run["tool"]["driver"]["name"] == "pytest-mcp-contracts"
    assert run["originalUriBaseIds"] == {"%SRCROOT%": {"uri": root.resolve().as_uri() + "/"}}
    results = _by_node(log)
    assert sorted(results) == sorted(
        [*KINDS, "mcp:shop::sequences", "mcp:broken.py"]
    )  # one per failed check, and the server that did not start
    rule = {node: result["ruleId"] for node, result in results.items()}
    assert rule == {
        **KINDS,
        "mcp:shop::sequences": "setup",
        "mcp:broken.py": "server_unavailable",
    }
    for node, result in results.items():
        assert (
            log["runs"][0]["tool"]["driver"]["rules"][result["ruleIndex"]]["id"]
            == (result["ruleId"])
        )
        assert result["message"]["text"].startswith(f"{node}: ")
    assert results["mcp:shop::quote::contract"]["message"]["text"] == (
        "mcp:shop::quote::contract: structuredContent does not match the outputSchema (2020-12)"
    )
    assert results["mcp:shop::quote::contract"]["level"] == "error"
    assert results["mcp:shop::old::drift"]["level"] == "error"  # a removed tool: high
    assert results["mcp:shop::get_order::contract"]["level"] == "warning"
    assert results["mcp:broken.py"]["message"]["text"] == (
        "mcp:broken.py: MCP server did not start: python broken.py: exit status 1"
    )
    # A drift failure is shown at the file it drifted from; a check whose tool has no file
    # yet, and the server's own checks, at the file that configures the run.
    assert {node: _uri(result) for node, result in results.items()} == {
        "mcp:shop::quote::contract": "pyproject.toml",
        "mcp:shop::get_order::contract": "mcp-contracts/shop/get_order.json",
        "mcp:shop::prompt:greet::schema": "mcp-contracts/shop/prompts/greet.json",
        "mcp:shop::old::drift": "mcp-contracts/shop/old.json",
        "mcp:shop::sequences": "pyproject.toml",
        "mcp:broken.py": "pyproject.toml",
    }
    region = results["mcp:shop::old::drift"]["locations"][0]["physicalLocation"]["region"]
    assert region == {"startLine": 1, "startColumn": 1, "endLine": 1, "endColumn": 2}  # "{"
    # Two checks of one file stay two alerts: each result has its own fingerprint.
    fingerprints = [r["partialFingerprints"]["primaryLocationLineHash"] for r in results.values()]
    assert len(set(fingerprints)) == len(fingerprints)
    assert _log(root) == log  # and the same run gives the same file


def test_logical_locations_name_the_server_and_the_tool(tmp_path: Path) -> None:
    log = _log(_project(tmp_path))
    entries = log["runs"][0]["logicalLocations"]
    result = _by_node(log)["mcp:shop::quote::contract"]
    (logical,) = result["locations"][0]["logicalLocations"]
    tool = entries[logical["index"]]
    assert tool == {
        "name": "quote",
        "fullyQualifiedName": "mcp:shop::quote",
        "kind": "function",
        "parentIndex": entries.index(
            {"name": "shop", "fullyQualifiedName": "mcp:shop", "kind": "module"}
        ),
    }
    assert logical["fullyQualifiedName"] == "mcp:shop::quote"
    prompt = _by_node(log)["mcp:shop::prompt:greet::schema"]["locations"][0]["logicalLocations"]
    assert entries[prompt[0]["index"]]["kind"] == "member"
    assert len({e["fullyQualifiedName"] for e in entries}) == len(entries)  # each once


def test_paths_are_relative_to_the_repository_a_rootdir_below_it_is_in(tmp_path: Path) -> None:
    """Code scanning reads a relative path from the repository's root: a project in a
    subfolder of its repository has its files named from there."""
    (tmp_path / ".git").write_text("gitdir: /elsewhere\n", encoding="utf-8")  # a worktree
    rootdir = _project(tmp_path / "servers" / "shop")
    (rootdir / ".git").rmdir()
    assert source_root(rootdir) == tmp_path
    results = _by_node(_log(rootdir))
    assert _uri(results["mcp:shop::old::drift"]) == "servers/shop/mcp-contracts/shop/old.json"


def test_without_a_real_file_a_result_keeps_its_logical_location(tmp_path: Path) -> None:
    log = _log(tmp_path)  # no recorded files, no pyproject.toml, no ini file
    assert sarif_errors(log) == []
    for result in log["runs"][0]["results"]:
        (location,) = result["locations"]
        assert "physicalLocation" not in location
        assert location["logicalLocations"]


def test_the_ini_file_that_configures_the_run_is_the_fallback(tmp_path: Path) -> None:
    ini = tmp_path / "pytest.ini"
    ini.write_text("[pytest]\nmcp_server = python -m shop\n", encoding="utf-8")
    results = _by_node(_log(tmp_path, config=ini))
    assert _uri(results["mcp:shop::sequences"]) == "pytest.ini"
    region = results["mcp:shop::sequences"]["locations"][0]["physicalLocation"]["region"]
    assert region["endColumn"] == len("[pytest]") + 1


@pytest.mark.parametrize("kind", ["no_such_kind", None])
def test_a_failure_of_no_known_kind_is_the_run_s_own(tmp_path: Path, kind: str | None) -> None:
    run = _run()
    run.servers[0].tools[0].checks["contract"].failure = Failure(kind, "low")  # type: ignore[arg-type]
    log = sarif_log(
        run,
        rootdir=tmp_path,
        snapshot_dir=tmp_path / "mcp-contracts",
        config_file=None,
        tool_version="0.1.0",
    )
    assert _by_node(log)["mcp:shop::quote::contract"]["ruleId"] == "setup"


def test_schema_validation_catches_a_broken_log() -> None:
    """The validator is not a formality: a log without its version, or a result without a
    message, is refused."""
    assert sarif_errors({"runs": []})
    bad = {
        "version": "2.1.0",
        "runs": [{"tool": {"driver": {"name": "x"}}, "results": [{"ruleId": "crash"}]}],
    }
    assert any("message" in error for error in sarif_errors(bad))
