"""The run's facts: what each worker sends, and how the controller folds it (reporting/worker,
reporting/facts). A serial run is one worker, folded by the same code."""

from __future__ import annotations

import json
from types import SimpleNamespace

from pytest_mcp_contracts.judges.failures import ContractFailure, FailureKind, FailureReport
from pytest_mcp_contracts.reporting.facts import FAILURE_KEY, RunFacts, failure_facts
from pytest_mcp_contracts.reporting.worker import (
    OutputFacts,
    ServerFacts,
    Snapshots,
    ToolFacts,
    WorkerFacts,
)
from pytest_mcp_contracts.transport.stdio import ServerCommand


def _server(**changes: object) -> ServerFacts:
    facts = ServerFacts(
        command="python -m shop",
        transport="stdio",
        node_name="shop",
        started=True,
        name="shop",
        version="1.0",
        protocol="2026-07-28",
        startup_stdout=(2, ["banner", "Ready."]),
        tools=[ToolFacts("quote", "quote"), ToolFacts("get", "get")],
    )
    for key, value in changes.items():
        setattr(facts, key, value)
    return facts


OUTPUT = OutputFacts(
    quality="inferred",
    basis="not validated: 3 observations",
    varying_types=[("$.total", "integer | string")],
    kinds={"json-text": 3},
    observations=3,
    breaking=[("breaking", "$.id: removed")],
    additive=[("additive", "$.note: new")],
)


def test_worker_facts_round_trip_through_json() -> None:
    worker = WorkerFacts(
        [
            _server(
                tools=[
                    ToolFacts("quote", "quote", True, None, [("review", "description changed")]),
                    ToolFacts("get", "get", False, OUTPUT, None),
                ],
                removed=[ToolFacts("old", "old", surface_drift=[("breaking", "tool removed")])],
                listing_changes=["now lists: extra"],
                stale=["/x/mcp-contracts/shop/old.json"],
                between_calls_stdout=(1, ["tick"]),
                restarts=2,
                handwritten_calls=5,
            ),
            ServerFacts("python bad.py", "stdio", "bad.py", False, "did not start"),
        ]
    )
    worker.snapshots = Snapshots(
        written=["/x/mcp-contracts/shop/get.json"], unwritten=["/x/a.json: changed meanwhile"]
    )
    wired = json.loads(json.dumps(worker.to_json()))
    assert WorkerFacts.from_json(wired) == worker


def test_the_fold_takes_what_every_process_says_alike_once_and_sums_the_rest() -> None:
    """Each -n 2 worker starts its own process of the server: its banner is printed twice but
    counted once; restarts and lines between calls are the workers' together; a tool's
    observations come from the worker that ran its contract item, whatever the order; the
    requests of hand-written tests are each worker's own, summed."""
    ran_quote = _server(
        tools=[ToolFacts("quote", "quote", False, OUTPUT, []), ToolFacts("get", "get")],
        restarts=1,
        between_calls_stdout=(0, []),
        handwritten_calls=4,
    )
    ran_get = _server(
        tools=[ToolFacts("quote", "quote"), ToolFacts("get", "get", False, None, [])],
        restarts=2,
        between_calls_stdout=(3, ["tick"]),
    )
    folds = []
    for order in (("gw0", "gw1"), ("gw1", "gw0")):
        run = RunFacts()
        for worker, server in zip(order, (ran_quote, ran_get), strict=True):
            run.add_worker(worker, WorkerFacts([server]).to_json())
        folds.append(run.fold())
    assert folds[0].servers[0].startup_stdout == (2, ["banner", "Ready."])
    for folded in folds:
        (server,) = folded.servers
        assert server.restarts == 3
        assert server.handwritten_calls == 4
        assert server.between_calls_stdout == (3, ["tick"])
        assert server.tools[0].quality == "inferred"
        assert server.tools[0].surface_drift == []
        assert server.tools[1].surface_drift == []
        assert server.calls == 0  # no report carried a number
    assert folds[0].servers[0].tools == folds[1].servers[0].tools


def test_a_serial_run_is_one_worker_through_json() -> None:
    run = RunFacts()
    run.add_worker("serial", WorkerFacts([_server()]))
    (server,) = run.fold().servers
    assert server.name == "shop" and server.startup_stdout == (2, ["banner", "Ready."])
    assert [tool.stats.calls for tool in server.tools] == [0, 0]


def test_a_failure_report_rides_on_its_test_report_in_pieces() -> None:
    report = FailureReport(
        "shop",
        ServerCommand(("python", "-m", "shop")),
        "quote",
        "contract",
        "structuredContent does not match the outputSchema",
        FailureKind.OUTPUT_SCHEMA,
        arguments={"qty": 101},
        call_stderr="Traceback (most recent call last):\nValueError: boom\n",
        stderr_tail="started\n",
        replay_command="mcp-contracts call --server='python -m shop' quote '{\"qty\": 101}'",
    )
    found = failure_facts(ContractFailure(report))
    assert found is not None
    assert (found["kind"], found["severity"]) == ("output_schema", "high")
    assert found["input"] == '{"qty": 101}'
    assert found["command"] == report.replay_command
    assert found["stderr"] == "Traceback (most recent call last):\nValueError: boom"  # the call's
    assert found["text"] == report.render()
    test_report = SimpleNamespace(
        nodeid="mcp:shop::quote::contract",
        when="call",
        outcome="failed",
        passed=False,
        failed=True,
        duration=0.5,
        longrepr="structuredContent does not match the outputSchema",
    )
    test_report.__dict__[FAILURE_KEY] = json.loads(json.dumps(found))  # as xdist carries it
    facts = RunFacts()
    facts.pytest_runtest_logreport(test_report)
    failure = facts.outcomes["mcp:shop::quote::contract"].failure
    assert failure is not None and failure.input == '{"qty": 101}'
    assert failure.stderr is not None and "ValueError: boom" in failure.stderr


def test_a_failure_without_a_call_shows_the_servers_last_stderr_and_another_error_none() -> None:
    report = FailureReport(
        "shop",
        ServerCommand(("python", "-m", "shop")),
        "quote",
        "drift",
        "drifted",
        FailureKind.SURFACE_DRIFT,
        stderr_tail="warming up\n",
    )
    found = failure_facts(ContractFailure(report))
    assert found is not None
    assert "input" not in found and found["command"] is None
    assert found["stderr"] == "warming up"
    assert failure_facts(ValueError("not a check's failure")) is None
