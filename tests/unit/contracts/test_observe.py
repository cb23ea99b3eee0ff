"""contracts/observe.py: what a run's observations vouch for ("validated" means evidence), and what
is proposed for export."""

from __future__ import annotations

import json
from typing import Any

from pytest_mcp_contracts.contracts.observe import (
    CONSISTENT,
    FEW_INPUTS,
    NEVER_VARIED,
    NO_ARGUMENTS,
    UNION,
    EntryObservations,
    RecordedContract,
)
from pytest_mcp_contracts.contracts.record import proposed_output_schema
from pytest_mcp_contracts.transport.discover import Entry
from pytest_mcp_contracts.vocabulary import EntryKind, Quality

NO_ARGS = {"type": "object", "properties": {}}
BY_ID = {"type": "object", "properties": {"id": {"type": "integer"}}, "additionalProperties": True}


def _tool(input_schema: dict[str, Any]) -> Entry:
    return Entry(EntryKind.TOOL, "t", "t", {"name": "t", "inputSchema": input_schema})


def _run(
    input_schema: dict[str, Any],
    calls: list[tuple[dict[str, Any], Any]],
    recorded: RecordedContract | None = None,
) -> EntryObservations:
    obs = EntryObservations(
        entry=_tool(input_schema), recorded=recorded, checking=recorded is not None
    )
    for arguments, value in calls:
        obs.observe(arguments, {"content": [{"type": "text", "text": json.dumps(value)}]})
    return obs


def test_a_tool_without_arguments_is_never_validated() -> None:
    obs = _run(NO_ARGS, [({}, [])] * 10)  # an empty database's tables, ten times over
    assert obs.assessment == (Quality.INFERRED, NO_ARGUMENTS)
    assert obs.learned().quality == Quality.INFERRED and obs.learned().basis == NO_ARGUMENTS


def test_output_that_never_varied_is_not_validated() -> None:
    obs = _run(BY_ID, [({"id": n}, {"ok": True}) for n in range(10)])
    assert obs.assessment == (Quality.INFERRED, NEVER_VARIED)


def test_inputs_that_differ_only_in_undeclared_arguments_are_one_input() -> None:
    calls = [({"id": 1, "extra": n}, {"id": n}) for n in range(10)]
    assert _run(BY_ID, calls).assessment == (Quality.INFERRED, FEW_INPUTS)


def test_varied_declared_inputs_and_outputs_validate() -> None:
    obs = _run(BY_ID, [({"id": n}, {"id": n}) for n in range(3)])
    assert obs.assessment == (Quality.VALIDATED, CONSISTENT)
    schema, refused = proposed_output_schema(obs)
    assert refused is None and schema is not None
    assert schema["properties"] == {"id": {"type": "integer"}}


def test_a_type_that_varies_is_flagged_not_validated_and_not_proposed() -> None:
    calls = [({"id": n}, {"total": n if n < 5 else f"{n:,}"}) for n in range(10)]
    obs = _run(BY_ID, calls)
    assert obs.unions() == [("$.total", "integer | string")]
    assert obs.assessment == (Quality.INFERRED, UNION)
    assert any(
        w.startswith("$.total is integer | string from call to call") for w in obs.warnings()
    )
    schema, refused = proposed_output_schema(obs)
    assert schema is None
    assert refused == (
        "t: not exported: $.total is integer | string (make it one type, or declare it)"
    )


def test_a_short_ci_run_that_contradicts_nothing_keeps_the_recorded_evidence() -> None:
    accepted = _run(BY_ID, [({"id": n}, {"id": n, "name": "x"}) for n in range(30)]).learned()
    assert accepted.quality == Quality.VALIDATED
    recorded = RecordedContract.from_data(json.loads(json.dumps(accepted.to_data())))
    short = _run(BY_ID, [({"id": 1}, {"id": 1, "name": "y"})], recorded=recorded)
    assert short.assessment == (Quality.VALIDATED, CONSISTENT)
    # The proposal is the accepted contract, not what two calls happened to show.
    schema, _ = proposed_output_schema(short)
    assert schema is not None and schema["required"] == ["id", "name"]
    broken = _run(BY_ID, [({"id": 1}, {"id": "1", "name": "y"})], recorded=recorded)
    assert broken.quality == Quality.INFERRED and broken.breaking


def test_whether_a_result_would_fail_is_known_without_observing_it() -> None:
    """What calls in flight ask before they commit to an answer (runs/contract): the same
    verdict as observing the result, and nothing folded in."""
    accepted = _run(BY_ID, [({"id": n}, {"id": n, "name": "x"}) for n in range(30)]).learned()
    recorded = RecordedContract.from_data(json.loads(json.dumps(accepted.to_data())))

    def result(value: Any) -> dict[str, Any]:
        return {"content": [{"type": "text", "text": json.dumps(value)}]}

    checking = _run(BY_ID, [], recorded=recorded)
    fine, broken, prose = result({"id": 1, "name": "y"}), result({"id": "1"}), result("hi")
    prose["content"][0]["text"] = "just words"
    for answer in (fine, broken, prose):
        before = (checking.observations, dict(checking.breaking), dict(checking.kinds))
        would = checking.would_fail_on(answer)
        assert (checking.observations, dict(checking.breaking), dict(checking.kinds)) == before
        assert would == bool(checking.observe({"id": 1}, answer))
    assert not checking.would_fail_on(fine) and checking.would_fail_on(broken)
    assert checking.would_fail_on(prose)  # another output kind than recorded
    assert not _run(BY_ID, []).would_fail_on(broken)  # nothing recorded: nothing to drift from
