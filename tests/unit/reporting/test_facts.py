"""The run's facts: what each worker sends, and how the controller folds it (reporting/worker,
reporting/facts). A serial run is one worker, folded by the same code."""

from __future__ import annotations

import json

from pytest_mcp_contracts.reporting.facts import RunFacts
from pytest_mcp_contracts.reporting.worker import (
    OutputFacts,
    ServerFacts,
    Snapshots,
    ToolFacts,
    WorkerFacts,
)


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
