"""The run report: facts and outcomes in, the published document out (validated against the
schema in docs/), and its Markdown summary."""

from __future__ import annotations

import copy
import json
from collections import Counter
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from pytest_mcp_contracts.contracts.change import Change
from pytest_mcp_contracts.contracts.observe import EntryObservations
from pytest_mcp_contracts.contracts.record import Recorder
from pytest_mcp_contracts.contracts.snapshot import SnapshotStore, dumps, write_atomic
from pytest_mcp_contracts.options import DEFAULT_CLIENTS
from pytest_mcp_contracts.reporting.facts import FAILURE_KEY, STATS_KEY, RunFacts, fold
from pytest_mcp_contracts.reporting.findings import FindingRecord
from pytest_mcp_contracts.reporting.model import CheckResult, Failure, Run
from pytest_mcp_contracts.reporting.runreport import (
    build_report,
    step_summary,
)
from pytest_mcp_contracts.reporting.worker import (
    EntryName,
    OutputFacts,
    ServerFacts,
    Snapshots,
    ToolFacts,
    WorkerFacts,
)
from pytest_mcp_contracts.runs.stats import CheckStats, ToolStats
from pytest_mcp_contracts.transport.discover import (
    Entry,
    ServerSurface,
)
from pytest_mcp_contracts.transport.managed import ManagedServer
from pytest_mcp_contracts.transport.stdio import ServerCommand
from pytest_mcp_contracts.vocabulary import EntryKind

SCHEMA_PATH = Path(__file__).parents[3] / "docs" / "run-report.schema.json"


@pytest.fixture(scope="module")
def validator() -> Draft202012Validator:
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


QUOTE_COVERAGE: dict[str, Any] = {
    "inputs": 7,
    "sent": 3,
    "budget": 40,
    "corners": {"derived": 6, "visited": 3},
    "pairs": {"possible": 1, "visited": 0},
    "visited": ['currency: enum "EUR"', "qty: minimum 1", "qty: maximum 99"],
    "not_visited": [
        {"corner": 'currency: enum "USD"', "why": "not reached: the phase stopped at a failure"},
        {"corner": "1 pairs", "why": "not reached: the phase stopped at a failure"},
    ],
    "not_visited_count": 2,
    "note": "",
}

# Findings of the schema check, as reporting/findings records them: a client profile's rule,
# a lint, and one of the spec's listing rules (no rule, no client).
ARRAY_ITEMS = {
    "rule": "gemini/array-items",
    "client": "gemini",
    "severity": "error",
    "kind": "client_schema",
    "where": "inputSchema $.properties.tags",
    "message": "an array schema without items",
    "details": [],
    "fix": "add `items`",
}
NAME_RULE = {
    "rule": None,
    "client": None,
    "severity": "warning",
    "kind": "invalid_listing",
    "where": None,
    "message": "tool name 'quote!' does not follow the spec's naming rules",
    "details": ["Allowed characters are: A-Z, a-z, 0-9"],
    "fix": None,
}
DUPLICATE = {
    "rule": "mcp/duplicate",
    "client": "mcp",
    "severity": "error",
    "kind": "invalid_listing",
    "where": "name",
    "message": "name 'greet' is listed 2 times in prompts/list",
    "details": [],
    "fix": "list each prompt once",
}
NO_DESCRIPTION = {
    "rule": "missing-description",
    "client": None,
    "severity": "warning",
    "kind": "lint",
    "where": "inputSchema $.properties.id",
    "message": "the property has no description",
    "details": [],
    "fix": "describe it",
}


def _output(quality: str, kinds: dict[str, int], observations: int, **drift: Any) -> OutputFacts:
    return OutputFacts(
        quality=quality,
        basis=f"{observations} observations",
        varying_types=[],
        kinds=kinds,
        observations=observations,
        breaking=drift.get("breaking", []),
        additive=drift.get("additive", []),
    )


# What the workers sent, folded: a server that started and one that did not.
SHOP = ServerFacts(
    command="python -m shop",
    transport="stdio",
    node_name="shop",
    started=True,
    name="shop",
    version="1.2.0",
    protocol="2026-07-28",
    restarts=1,
    handwritten_calls=7,
    boundary="folders it was given: /srv/shop",
    tools=[
        ToolFacts("quote", "quote", declared=True),
        ToolFacts(
            "get_order",
            "get_order",
            output=_output(
                "validated",
                {"json-text": 47},
                47,
                breaking=[("breaking", "$.total: number -> string")],
                additive=[("additive", "$.note: new")],
            ),
            surface_drift=[("cosmetic", "description: 'a' -> 'b'")],
        ),
        ToolFacts("describe", "describe", output=_output("unknown", {"prose": 5}, 0)),
    ],
    removed=[ToolFacts("old", "old", surface_drift=[("breaking", "tool: removed")])],
    listed=[
        EntryName("prompt", "greet", "prompt:greet"),
        EntryName("listing", "resources/list", "listing:resources"),
    ],
)
BROKEN = ServerFacts(
    "python broken.py",
    "stdio",
    "broken.py",
    False,
    "MCP server did not start: python broken.py\n  exit status 1\n\nstderr",
)
WORKER = WorkerFacts([SHOP, BROKEN], Snapshots(written=["mcp-contracts/shop/get_order.json"]))
# What the items' reports carried: each entry's numbers and findings.
STATS = {
    ("shop", "quote"): ToolStats(
        calls=70,
        error_results=3,
        real_results=65,
        input_coverage=QUOTE_COVERAGE,
        # Sent to the millisecond; a phase under half of one is left out.
        phase_seconds=Counter({"coverage": 1.25, "random": 0.5004, "replay": 0.0001}),
        run_time_cut=1,
    ),
    ("shop", "get_order"): ToolStats(calls=50, disguised_errors=Counter({"disguised-refusal": 3})),
    ("shop", "prompt:greet"): ToolStats(
        calls=3, refused=1, real_results=2, phase_seconds=Counter({"get": 0.2})
    ),
}
FINDINGS = {
    ("shop", "quote"): [ARRAY_ITEMS, NAME_RULE],
    ("shop", "get_order"): [NO_DESCRIPTION],
    ("shop", "prompt:greet"): [DUPLICATE],
}


def facts(
    outcomes: dict[str, CheckResult] | None = None,
    worker: WorkerFacts = WORKER,
    *,
    partial: bool = False,
) -> Run:
    """The run of these facts, folded with the outcomes of its reports."""
    findings = {
        key: [FindingRecord.from_json(record) for record in records]
        for key, records in FINDINGS.items()
    }
    return fold(
        copy.deepcopy(worker),
        copy.deepcopy(STATS),
        findings,
        copy.deepcopy(OUTCOMES if outcomes is None else outcomes),
        partial=partial,
    )


OUTCOMES = {
    "mcp:shop::quote::schema": CheckResult("passed", 0.0012),
    "mcp:shop::quote::drift": CheckResult("passed", 0.0004),
    "mcp:shop::quote::contract": CheckResult(
        "failed", 1.23456, "structuredContent does not match the outputSchema (2020-12)"
    ),
    "mcp:shop::get_order::schema": CheckResult("passed", 0.001),
    "mcp:shop::get_order::drift": CheckResult("passed", 0.001),
    "mcp:shop::get_order::contract": CheckResult(
        "failed", 0.5, "drift from the recorded output contract"
    ),
    "mcp:shop::describe::schema": CheckResult("skipped", 0.0, "why"),
    "mcp:shop::sequences": CheckResult(
        "failed", 2.5, "the tool raised an unexpected exception (call 3 of a sequence)"
    ),
    "mcp:shop::prompt:greet::schema": CheckResult("failed", 0.001, "dup"),
    "mcp:shop::old::drift": CheckResult(
        "failed", 0.002, "tool 'old' is recorded but the server no longer lists it"
    ),
    "tests/test_other.py::test_x": CheckResult("passed", 0.1),
}

EXPECTED: dict[str, Any] = {
    "format": "pytest-mcp-contracts/run-report",
    "version": 1,
    "pytest_exit_status": 1,
    "partial": False,
    "mode": "ci",
    "servers": [
        {
            "name": "shop",
            "node_name": "shop",
            "command": "python -m shop",
            "transport": "stdio",
            "started": True,
            "version": "1.2.0",
            "protocol": "2026-07-28",
            "boundary": "folders it was given: /srv/shop",
            "tools_listed": 3,
            "prompts_listed": 1,
            "resources_listed": 0,
            "templates_listed": 0,
            "calls": 120,
            "listed_calls": 3,  # greet's gets
            "error_results": 3,
            "restarts": 1,
            "own_test_calls": 7,
            "startup_stdout": {"lines": 0, "sample": []},
            "between_calls_stdout": {"lines": 0, "sample": []},
            "checks": {"passed": 4, "failed": 5, "skipped": 1, "not_run": 7},
            "sequences": {
                "outcome": "failed",
                "duration": 2.5,
                "message": "the tool raised an unexpected exception (call 3 of a sequence)",
            },
            "stdout": None,  # collected only for a server that printed while it started
            "protocol_check": None,  # --mcp-protocol=off
            "protocol_findings": [],
            "coverage": {
                "output_schema": 0.3333,
                "contract": 0.6667,
                "declared": 1,
                "validated": 1,
                "inferred": 0,
                "unknown": 1,
            },
            "drift": {
                "breaking": ["get_order $.total: number -> string", "old tool: removed"],
                "review": [],
                "description": [],
                "additive": ["get_order $.note: new"],
                "cosmetic": ["get_order description: 'a' -> 'b'"],
            },
            "findings": {
                "errors": 2,
                "warnings": 2,
                "by_client": {"gemini": 1, "mcp": 1},
                "by_rule": {
                    "gemini/array-items": 1,
                    "invalid_listing": 1,
                    "mcp/duplicate": 1,
                    "missing-description": 1,
                },
            },
            "tools": [
                {
                    "name": "quote",
                    "node_name": "quote",
                    "listed": True,
                    "checks": {
                        "schema": {"outcome": "passed", "duration": 0.001},
                        "drift": {"outcome": "passed", "duration": 0.0},
                        "contract": {
                            "outcome": "failed",
                            "duration": 1.235,
                            "message": "structuredContent does not match the outputSchema "
                            "(2020-12)",
                        },
                        "rejects_invalid": {"outcome": "not_run"},
                    },
                    "calls": 70,
                    "error_results": 3,
                    "real_results": 65,
                    "unanswered": 0,
                    "sandbox_calls": 0,
                    "client_requests": {},
                    "invalid_calls": 0,
                    "error_classes": {},
                    "disguised_errors": {},
                    "coercions_accepted": 0,
                    "protocol_refusals": 0,
                    "refused": 0,
                    "out_of_time": 0,
                    "repeated_inputs": 0,
                    "unstable_inputs": 0,
                    "latency_ms": None,
                    "run_time_cut": 1,
                    "run_time_skipped": 0,
                    "phase_seconds": {"coverage": 1.25, "random": 0.5},
                    "latencies_ms": [],
                    "input_coverage": QUOTE_COVERAGE,
                    "output": {
                        "source": "declared",
                        "quality": "declared",
                        "kinds": {},
                        "observations": 0,
                    },
                    "findings": [ARRAY_ITEMS, NAME_RULE],
                },
                {
                    "name": "get_order",
                    "node_name": "get_order",
                    "listed": True,
                    "checks": {
                        "schema": {"outcome": "passed", "duration": 0.001},
                        "drift": {"outcome": "passed", "duration": 0.001},
                        "contract": {
                            "outcome": "failed",
                            "duration": 0.5,
                            "message": "drift from the recorded output contract",
                        },
                        "rejects_invalid": {"outcome": "not_run"},
                    },
                    "calls": 50,
                    "error_results": 0,
                    "real_results": 0,
                    "unanswered": 0,
                    "sandbox_calls": 0,
                    "client_requests": {},
                    "invalid_calls": 0,
                    "error_classes": {},
                    "disguised_errors": {"disguised-refusal": 3},
                    "coercions_accepted": 0,
                    "protocol_refusals": 0,
                    "refused": 0,
                    "out_of_time": 0,
                    "repeated_inputs": 0,
                    "unstable_inputs": 0,
                    "latency_ms": None,
                    "run_time_cut": 0,
                    "run_time_skipped": 0,
                    "latencies_ms": [],
                    "phase_seconds": {},
                    "input_coverage": None,
                    "output": {
                        "source": "inferred",
                        "quality": "validated",
                        "kinds": {"json-text": 47},
                        "observations": 47,
                        "basis": "47 observations",
                        "varying_types": [],
                    },
                    "findings": [NO_DESCRIPTION],
                },
                {
                    "name": "describe",
                    "node_name": "describe",
                    "listed": True,
                    "checks": {
                        "schema": {"outcome": "skipped", "duration": 0.0, "message": "why"},
                        "drift": {"outcome": "not_run"},
                        "contract": {"outcome": "not_run"},
                        "rejects_invalid": {"outcome": "not_run"},
                    },
                    "calls": 0,
                    "error_results": 0,
                    "real_results": 0,
                    "unanswered": 0,
                    "sandbox_calls": 0,
                    "client_requests": {},
                    "invalid_calls": 0,
                    "error_classes": {},
                    "disguised_errors": {},
                    "coercions_accepted": 0,
                    "protocol_refusals": 0,
                    "refused": 0,
                    "out_of_time": 0,
                    "repeated_inputs": 0,
                    "unstable_inputs": 0,
                    "latency_ms": None,
                    "run_time_cut": 0,
                    "run_time_skipped": 0,
                    "latencies_ms": [],
                    "phase_seconds": {},
                    "input_coverage": None,
                    "output": {
                        "source": None,
                        "quality": "unknown",
                        "kinds": {"prose": 5},
                        "observations": 0,
                        "basis": "0 observations",
                        "varying_types": [],
                    },
                    "findings": [],
                },
                {
                    "name": "old",
                    "node_name": "old",
                    "listed": False,
                    "checks": {
                        "drift": {
                            "outcome": "failed",
                            "duration": 0.002,
                            "message": "tool 'old' is recorded but the server no longer lists it",
                        }
                    },
                    "calls": 0,
                    "error_results": 0,
                    "real_results": 0,
                    "unanswered": 0,
                    "sandbox_calls": 0,
                    "client_requests": {},
                    "invalid_calls": 0,
                    "error_classes": {},
                    "disguised_errors": {},
                    "coercions_accepted": 0,
                    "protocol_refusals": 0,
                    "refused": 0,
                    "out_of_time": 0,
                    "repeated_inputs": 0,
                    "unstable_inputs": 0,
                    "latency_ms": None,
                    "run_time_cut": 0,
                    "run_time_skipped": 0,
                    "latencies_ms": [],
                    "phase_seconds": {},
                    "input_coverage": None,
                    "output": None,
                    "findings": [],
                },
            ],
            "listed": [
                {
                    "kind": "prompt",
                    "name": "greet",
                    "node_name": "prompt:greet",
                    "listed": True,
                    "checks": {
                        "schema": {"outcome": "failed", "duration": 0.001, "message": "dup"},
                        "get": {"outcome": "not_run"},
                    },
                    "findings": [DUPLICATE],
                    "calls": 3,
                    "refused": 1,
                    "real_results": 2,
                    "unanswered": 0,
                    "phase_seconds": {"get": 0.2},
                    "run_time_cut": 0,
                    "run_time_skipped": 0,
                },
                {
                    "kind": "listing",
                    "name": "resources/list",
                    "node_name": "listing:resources",
                    "listed": True,
                    "checks": {"schema": {"outcome": "not_run"}},
                    "findings": [],
                    "calls": 0,
                    "refused": 0,
                    "real_results": 0,
                    "unanswered": 0,
                    "phase_seconds": {},
                    "run_time_cut": 0,
                    "run_time_skipped": 0,
                },
            ],
        },
        {
            "name": "broken.py",
            "node_name": "broken.py",
            "command": "python broken.py",
            "transport": "stdio",
            "started": False,
            "error": "MCP server did not start: python broken.py\n  exit status 1\n\nstderr",
        },
    ],
    "snapshots": {"written": ["mcp-contracts/shop/get_order.json"], "pruned": [], "exported": []},
}


def test_build_report_gives_the_exact_document(validator: Draft202012Validator) -> None:
    document = build_report(facts(), exit_status=1, mode="ci")
    assert document == EXPECTED
    assert list(validator.iter_errors(document)) == []


def test_the_schema_refuses_what_the_format_does_not_have(
    validator: Draft202012Validator,
) -> None:
    document = json.loads(json.dumps(EXPECTED))
    document["servers"][0]["tools"][0]["checks"]["contract"]["outcome"] = "error"
    document["servers"][1]["calls"] = 3
    document["surprise"] = True
    errors = {tuple(e.absolute_path) for e in validator.iter_errors(document)}
    assert () in errors and ("servers", 1) in errors and ("servers", 0) in errors
    document = json.loads(json.dumps(EXPECTED))
    del document["servers"][0]["tools"][0]["input_coverage"]["pairs"]
    assert not validator.is_valid(document)
    del document["servers"][0]["tools"][0]["input_coverage"]
    assert not validator.is_valid(document)


def test_no_tools_means_no_ratio(validator: Draft202012Validator) -> None:
    worker = WorkerFacts([replace(SHOP, tools=[], removed=[]), BROKEN], WORKER.snapshots)
    document = build_report(facts({}, worker, partial=True), exit_status=5, mode="record")
    coverage = document["servers"][0]["coverage"]
    assert coverage["output_schema"] is None and coverage["contract"] is None
    assert document["partial"] is True
    assert list(validator.iter_errors(document)) == []


def test_dumps_is_deterministic() -> None:
    document = build_report(facts(), exit_status=1, mode="ci")
    text = dumps(document)
    assert text.endswith("}\n") and text == dumps(json.loads(text))
    assert text.index('"format"') < text.index('"servers"') < text.index('"version"')
    assert '\n  "format"' in text  # indent 2


def test_write_atomic_leaves_no_temporary_file(tmp_path: Path) -> None:
    target = tmp_path / "out" / "report.json"
    write_atomic(target, "{}\n")
    write_atomic(target, '{"a": 1}\n')
    assert target.read_text(encoding="utf-8") == '{"a": 1}\n'
    assert [p.name for p in target.parent.iterdir()] == ["report.json"]


def _report(nodeid: str, stats: dict[str, ToolStats] | None = None, **failure: str) -> Any:
    """A test report as the plugin's makereport hook leaves it (or as xdist sends it)."""
    report = SimpleNamespace(
        nodeid=nodeid,
        when="call",
        duration=0.5,
        outcome="failed" if failure else "passed",
        passed=not failure,
        failed=bool(failure),
        longrepr="the first line\nand more" if failure else None,
    )
    if stats is not None:
        report.__dict__[STATS_KEY] = CheckStats(stats).to_json()
    if failure:
        report.__dict__[FAILURE_KEY] = failure
    return report


def test_merge_sums_calls_and_takes_each_tool_from_the_worker_that_ran_it() -> None:
    def worker(ran: bool, written: list[str]) -> dict[str, Any]:
        output = OutputFacts("inferred", "", [], {"json-text": 2}, 2, [], [])
        tool = ToolFacts(
            "get_order",
            "get_order",
            declared=False,
            output=output if ran else None,
            surface_drift=[] if ran else None,
        )
        shop = replace(SHOP, restarts=0, tools=[tool], removed=[])
        return WorkerFacts([shop, BROKEN], Snapshots(written=written)).to_json()

    def calls(n: int, coverage: dict[str, Any] | None = None) -> ToolStats:
        asked = Counter({"roots/list": n, "progress": 1})
        return ToolStats(calls=n, client_requests=asked, input_coverage=coverage)

    run = RunFacts()
    # Two items of the same tool, each in its own worker; their reports arrive in any order.
    run.pytest_runtest_logreport(
        _report("mcp:shop::get_order::contract", {"get_order": calls(5, QUOTE_COVERAGE)})
    )
    run.pytest_runtest_logreport(_report("mcp:shop::sequences", {"get_order": calls(2)}))
    run.add_worker("gw1", worker(True, ["a", "b"]))
    run.add_worker("gw0", worker(False, ["b"]))
    merged = run.fold()
    server = merged.servers[0]
    assert server.calls == 7
    assert server.tools[0].stats.calls == 7
    assert server.tools[0].output is not None and server.tools[0].output.observations == 2
    assert server.tools[0].surface_drift == []
    assert server.tools[0].stats.input_coverage == QUOTE_COVERAGE
    assert server.tools[0].stats.client_requests == {"progress": 2, "roots/list": 7}
    assert merged.servers[1].started is False
    assert merged.snapshots.written == ["a", "b"]
    assert RunFacts().fold().servers == []


def test_a_failed_check_carries_its_kind_and_severity_into_the_report() -> None:
    run = RunFacts()
    run.pytest_runtest_logreport(
        _report("mcp:shop::quote::contract", kind="contract", severity="error")
    )
    check = build_report(facts(run.outcomes), exit_status=1, mode="ci")["servers"][0]["tools"][0][
        "checks"
    ]["contract"]
    assert check == {
        "outcome": "failed",
        "duration": 0.5,
        "message": "the first line",
        "failure": {"kind": "contract", "severity": "error"},
    }


def test_tool_stats_round_trip_through_json() -> None:
    stats = ToolStats(
        calls=5,
        error_results=2,
        real_results=2,
        sandbox_calls=1,
        invalid_calls=4,
        coercions_accepted=1,
        protocol_refusals=3,
        client_requests=Counter({"sampling/createMessage": 2, "logs": 0}),
        error_classes=Counter({"refusal": 2}),
        disguised_errors=Counter({"error-as-result": 1}),
        input_coverage=QUOTE_COVERAGE,
    )
    wired = json.loads(json.dumps(CheckStats({"quote": stats}).to_json()))
    back = CheckStats.from_json(wired).tools["quote"]
    del stats.client_requests["logs"]  # a zero count is not sent
    assert back == stats
    assert type(next(iter(wired["quote"]["error_classes"]))) is str


def test_stats_fold_the_same_in_any_order() -> None:
    parts = [
        ("mcp:shop::quote::contract", ToolStats(calls=3, error_classes=Counter({"refusal": 1}))),
        ("mcp:shop::quote::rejects_invalid", ToolStats(invalid_calls=4, protocol_refusals=2)),
        ("mcp:shop::sequences", ToolStats(calls=2, disguised_errors=Counter({"refusal": 1}))),
    ]
    folds = []
    for order in (parts, parts[::-1]):
        run = RunFacts()
        for nodeid, stats in order:
            run.pytest_runtest_logreport(_report(nodeid, {"quote": stats}))
        folds.append(run.stats[("shop", "quote")].to_json())
    assert folds[0] == folds[1]
    assert folds[0]["calls"] == 5 and folds[0]["invalid_calls"] == 4
    assert folds[0]["error_classes"] == {"refusal": 1}
    assert folds[0]["disguised_errors"] == {"refusal": 1}


def test_server_facts_from_the_live_objects(tmp_path: Path) -> None:
    declared = Entry(
        EntryKind.TOOL, "quote", "quote", {"name": "quote", "outputSchema": {"type": "object"}}
    )
    learned = Entry(
        EntryKind.TOOL, "get", "get", {"name": "get", "inputSchema": {"type": "object"}}
    )
    surface = ServerSurface("shop", "shop", "1.0", "2026-07-28", (declared, learned))
    server = ManagedServer(ServerCommand(("python", "-m", "shop")), 1.0, 1.0, 1024)
    server.surface, server.node_name = surface, "shop"
    failed = ManagedServer(ServerCommand(("python", "bad.py")), 1.0, 1.0, 1024)
    recorder = Recorder(SnapshotStore(tmp_path / "mcp-contracts"), "record")
    obs = EntryObservations(entry=learned, ran=True)
    obs.kinds["prose"] = 3
    obs.additive["x"] = Change("additive", "$.x", "new")
    recorder.observed[("shop", "get")] = obs
    recorder.written.append(tmp_path / "mcp-contracts" / "shop" / "get.json")
    run = RunFacts()
    run.pytest_runtest_logreport(_report("mcp:shop::quote::contract", {"quote": ToolStats(1)}))
    stats = ToolStats(calls=3, input_coverage=QUOTE_COVERAGE)
    run.pytest_runtest_logreport(_report("mcp:shop::get::contract", {"get": stats}))

    worker = WorkerFacts.collect(
        [server, failed], recorder, {1: ("bad.py", "did not start")}, {"shop": 2}
    )
    wired = json.loads(json.dumps(worker.to_json()))  # what an xdist worker sends
    assert WorkerFacts.from_json(wired) == worker
    run.add_worker("serial", wired)
    folded = run.fold()

    shop, bad = folded.servers
    assert (bad.command, bad.transport, bad.started, bad.node_name, bad.error) == (
        "python bad.py",
        "stdio",
        False,
        "bad.py",
        "did not start",
    )
    assert [(t.name, t.declared, t.stats.calls) for t in shop.tools] == [
        ("quote", True, 1),
        ("get", False, 3),
    ]
    assert shop.calls == 4
    assert shop.handwritten_calls == 2  # a hand-written test's requests: not in calls
    assert [t.stats.input_coverage for t in shop.tools] == [None, QUOTE_COVERAGE]
    assert shop.tools[1].output == OutputFacts(
        quality="unknown",
        basis="nothing to learn from: no JSON result was observed",
        varying_types=[],
        kinds={"prose": 3},
        observations=0,
        breaking=[],
        additive=[("additive", "$.x: new")],
    )
    document = build_report(folded, exit_status=0, mode="record", rootdir=tmp_path)
    assert document["snapshots"]["written"] == ["mcp-contracts/shop/get.json"]
    assert document["servers"][0]["own_test_calls"] == 2


def test_step_summary_has_a_row_per_server_and_the_failing_checks() -> None:
    text = step_summary(facts(), DEFAULT_CLIENTS)
    lines = text.splitlines()
    assert lines[0] == "### MCP contracts"
    assert "| shop | 3 | 1 / 0 / 0 | 3 | 4 | 5 | 33% | 67% | 2 |" in lines
    assert "- `mcp:shop::prompt:greet::schema`: dup" in lines
    assert (
        "- `mcp:shop::sequences`: the tool raised an unexpected exception (call 3 of a "
        "sequence)" in lines
    )
    assert "| broken.py | did not start | | | | | | | |" in lines
    assert (
        "- `mcp:shop::quote::contract`: structuredContent does not match the outputSchema "
        "(2020-12)" in lines
    )
    assert "- `mcp:shop::old::drift`: tool 'old' is recorded but the server no longer lists it" in (
        lines
    )
    assert "- `mcp:broken.py`: MCP server did not start: python broken.py: exit status 1" in lines
    assert "**Input coverage**: 3 of 6 schema corners visited" in lines
    assert (
        '- `mcp:shop::quote`: currency: enum "USD" (not reached: the phase stopped at a '
        "failure) and 1 more" in lines
    )
    start = lines.index("**Listing findings** of shop: 2 error(s), 2 warning(s)")
    assert lines[start + 2 : start + 6] == [
        "- error gemini/array-items (gemini): 1 tool (quote): an array schema without items; "
        "fix: add `items`",
        "- error mcp/duplicate (mcp): 1 entry (prompt greet): name 'greet' is listed 2 times in "
        "prompts/list; fix: list each prompt once",
        "- warning invalid_listing: 1 tool (quote): tool name 'quote!' does not follow the "
        "spec's naming rules",
        "- warning missing-description: 1 tool (get_order): the property has no description; "
        "fix: describe it",
    ]
    assert text.endswith("\n")


def test_facts_for_the_wire_are_builtins_only() -> None:
    """execnet carries builtins only: a StrEnum key once made every worker's results
    unsendable. Enums become their values, tuples and sets lists; anything else is named."""
    from enum import StrEnum

    from pytest_mcp_contracts.reporting.runreport import for_the_wire

    class Kind(StrEnum):
        REFUSAL = "refusal"

    wired = for_the_wire({"classes": {Kind.REFUSAL: 3}, "stdout": (2, ["a"]), "ok": True})
    assert wired == {"classes": {"refusal": 3}, "stdout": [2, ["a"]], "ok": True}
    key = next(iter(wired["classes"]))
    assert type(key) is str and wired["ok"] is True
    with pytest.raises(TypeError, match=r"facts\.servers\[0\]: object cannot be sent"):
        for_the_wire({"servers": [object()]})


@pytest.mark.parametrize(
    "number",
    [-9007199254740991, 9007199254740991, -(2**31) - 1, -(2**31), 2**31 - 1, 2**31, -(10**40)],
)
def test_ints_beyond_four_bytes_cross_execnet_and_come_back(number: int) -> None:
    """execnet 2.1 packs an int below -2**31 into four bytes and fails: zod's `.int()`
    bounds (-9007199254740991) in a recorded schema once dropped a worker's results."""
    execnet = pytest.importorskip("execnet")
    from pytest_mcp_contracts.reporting.runreport import for_the_wire, from_the_wire

    facts = {"schema": {"minimum": number, "enum": [number, 1]}, "calls": 3, "ok": True}
    sent = execnet.loads(execnet.dumps(for_the_wire(facts)))
    assert from_the_wire(sent) == facts
    assert type(from_the_wire(sent)["schema"]["minimum"]) is int


def test_a_servers_stdout_check_is_its_own_and_counted(validator: Draft202012Validator) -> None:
    """mcp:<server>::stdout is the server's own item, like sequences: not taken for a tool
    the server no longer lists, counted in its checks, listed among the failing checks."""
    banner = (
        "the server wrote 2 line(s) on stdout while it started (before its tool list) that "
        "are not JSON-RPC messages"
    )
    failure = {"kind": "stdout_noise", "severity": "high"}
    outcomes = {
        **OUTCOMES,
        "mcp:shop::stdout": CheckResult("failed", 0.0, banner, Failure(**failure)),
    }
    run = facts(outcomes)
    document = build_report(run, exit_status=1, mode="ci")
    validator.validate(document)
    shop = document["servers"][0]
    assert shop["stdout"] == {
        "outcome": "failed",
        "duration": 0.0,
        "message": banner,
        "failure": failure,
    }
    assert shop["checks"]["failed"] == EXPECTED["servers"][0]["checks"]["failed"] + 1
    assert [tool["name"] for tool in shop["tools"]] == [
        tool["name"] for tool in EXPECTED["servers"][0]["tools"]
    ]
    assert f"- `mcp:shop::stdout`: {banner}" in step_summary(run, DEFAULT_CLIENTS).splitlines()


def test_listed_entries_carry_their_drift_and_the_removed_ones_come_last(
    validator: Draft202012Validator,
) -> None:
    listed_drift = [
        ToolFacts(
            "greet",
            "prompt:greet",
            surface_drift=[("breaking", "arguments.style: optional -> required")],
        ),
        ToolFacts(
            "config://app",
            "resource:config_app-1",
            surface_drift=[("breaking", "resource: removed")],
        ),
    ]
    worker = WorkerFacts([replace(SHOP, listed_drift=listed_drift), BROKEN], WORKER.snapshots)
    outcomes = {
        **OUTCOMES,
        "mcp:shop::prompt:greet::drift": CheckResult("failed", 0.001, "m"),
        "mcp:shop::resource:config_app-1::drift": CheckResult("failed", 0.001),
        # A removed template whose drift item ran in another worker: known by its node id.
        "mcp:shop::template:users-1::drift": CheckResult("passed", 0.001),
    }
    document = build_report(facts(outcomes, worker), exit_status=1, mode="record")
    assert list(validator.iter_errors(document)) == []
    server = document["servers"][0]
    assert server["drift"]["breaking"] == sorted(
        [
            "get_order $.total: number -> string",
            "old tool: removed",
            "prompt greet arguments.style: optional -> required",
            "resource config://app resource: removed",
        ]
    )
    listed = {
        e["node_name"]: (e["listed"], {k: c["outcome"] for k, c in e["checks"].items()})
        for e in server["listed"]
    }
    assert listed == {
        "prompt:greet": (True, {"schema": "failed", "drift": "failed", "get": "not_run"}),
        "listing:resources": (True, {"schema": "not_run"}),
        "resource:config_app-1": (False, {"drift": "failed"}),
        "template:users-1": (False, {"drift": "passed"}),
    }
    # Never taken for removed tools.
    assert [t["node_name"] for t in server["tools"] if not t["listed"]] == ["old"]
    # Their checks are counted with the server's.
    before = build_report(facts(), exit_status=1, mode="record")["servers"][0]["checks"]
    assert (server["checks"]["failed"], server["checks"]["passed"]) == (
        before["failed"] + 2,
        before["passed"] + 1,
    )


def test_merge_takes_each_listed_entrys_drift_from_the_worker_that_ran_it() -> None:
    drifted = {"name": "greet", "node_name": "prompt:greet", "surface_drift": [["additive", "x"]]}

    def worker(listed_drift: list[ToolFacts]) -> WorkerFacts:
        return WorkerFacts([replace(SHOP, tools=[], removed=[], listed_drift=listed_drift)])

    merged = WorkerFacts.merge(
        [
            worker([]),
            worker([ToolFacts("greet", "prompt:greet", surface_drift=[("additive", "x")])]),
        ]
    )
    (server,) = merged.to_json()["servers"]
    assert server["listed_drift"] == [drifted]


def test_a_listed_entrys_surface_and_content_drift_are_its_drift_lines(tmp_path: Path) -> None:
    from pytest_mcp_contracts.contracts.observe import EntryObservations
    from pytest_mcp_contracts.judges.drift_gate import Attributed
    from pytest_mcp_contracts.transport.discover import Entry

    resource = Entry(
        EntryKind.RESOURCE, "config://app", "config_app-1", {"uri": "config://app", "name": "a"}
    )
    surface = ServerSurface("shop", "shop", "1.0", "2026-07-28", resources=(resource,))
    server = ManagedServer(ServerCommand(("python", "-m", "shop")), 1.0, 1.0, 1024)
    server.surface, server.node_name = surface, "shop"
    recorder = Recorder(SnapshotStore(tmp_path / "mcp-contracts"), "record")
    file = "resources/config_app-1"
    recorder.surface_drift[("shop", file)] = [
        Attributed("config://app", Change("breaking", "mimeType", "removed (was 'a/b')"))
    ]
    content = EntryObservations(entry=resource, ran=True)
    content.additive["x"] = Change("additive", "$.x", "new")
    recorder.observed[("shop", file)] = content
    # The drift item ran in one worker, the read item in another: both reach the report.
    parts = []
    for kept in (("surface_drift",), ("observed",)):
        alone = Recorder(recorder.store, "record")
        for attribute in kept:
            setattr(alone, attribute, getattr(recorder, attribute))
        parts.append(WorkerFacts.collect([server], alone, {}))
    for facts in (WorkerFacts.collect([server], recorder, {}), WorkerFacts.merge(parts)):
        (shop,) = facts.to_json()["servers"]
        assert shop["removed"] == []
        (drifted,) = shop["listed_drift"]
        assert drifted["node_name"] == "resource:config_app-1"
        assert sorted(map(tuple, drifted["surface_drift"])) == [
            ("additive", "$.x: new"),
            ("breaking", "mimeType: removed (was 'a/b')"),
        ]


def test_a_listed_entry_whose_surface_did_not_change_is_named_by_its_key(tmp_path: Path) -> None:
    """Its drift item ran and found nothing, its read item found content drift: the drift
    lines name the template, not its snapshot file."""
    from pytest_mcp_contracts.contracts.observe import EntryObservations
    from pytest_mcp_contracts.transport.discover import Entry

    raw = {"uriTemplate": "users://{id}/profile", "name": "profile"}
    template = Entry(EntryKind.TEMPLATE, "users://{id}/profile", "users_id_profile", raw)
    surface = ServerSurface("shop", "shop", "1.0", "2026-07-28", templates=(template,))
    server = ManagedServer(ServerCommand(("python", "-m", "shop")), 1.0, 1.0, 1024)
    server.surface, server.node_name = surface, "shop"
    recorder = Recorder(SnapshotStore(tmp_path / "mcp-contracts"), "ci")
    file = "templates/users_id_profile"
    recorder.surface_drift[("shop", file)] = []
    content = EntryObservations(entry=template, ran=True)
    content.breaking["kind"] = Change("breaking", "content kind", "json-text -> prose")
    recorder.observed[("shop", file)] = content
    (shop,) = WorkerFacts.collect([server], recorder, {}).to_json()["servers"]
    (drifted,) = shop["listed_drift"]
    assert (drifted["name"], drifted["node_name"]) == (
        "users://{id}/profile",
        "template:users_id_profile",
    )
