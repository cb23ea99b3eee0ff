"""The search that shrinks a failing coverage input (inputs/shrink.py), with pure oracles in
place of calls: each oracle is a bug, and the search must end at its boundary."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_mcp_contracts.inputs.generate import coverage_plan
from pytest_mcp_contracts.inputs.shrink import SearchStopped, Shrunk, shrink_input


def _shrink(
    schema: dict[str, Any],
    start: dict[str, Any],
    bug: Callable[[dict[str, Any]], bool],
    **kwargs: Any,
) -> tuple[Shrunk, list[dict[str, Any]]]:
    """Shrink ``start`` against ``bug``; also returns every input sent."""
    plan = coverage_plan(schema, 40)  # the schema and validator the coverage phase uses
    assert plan.is_valid is not None and plan.is_valid(start) and bug(start)
    sent: list[dict[str, Any]] = []

    def fails(arguments: dict[str, Any]) -> bool:
        sent.append(arguments)
        return bug(arguments)

    return shrink_input(start, plan.schema, plan.is_valid, fails, **kwargs), sent


def _obj(properties: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": list(required)}


def test_a_number_is_bisected_to_the_boundary_of_its_bug() -> None:
    schema = _obj(
        {"n": {"type": "integer", "minimum": 0, "maximum": 1000}, "q": {"type": "string"}}, ("q",)
    )
    shrunk, sent = _shrink(schema, {"q": "", "n": 1000}, lambda a: a.get("n", 0) > 100)
    assert shrunk == Shrunk({"q": "", "n": 101}, len(sent))
    assert shrunk.stopped is None
    assert len(sent) <= 25  # a galloping search and bisection, not a walk


def test_large_integers_shrink_in_few_calls_and_every_attempt_is_valid() -> None:
    schema = _obj({"size": {"type": "integer", "minimum": 1}}, ("size",))
    shrunk, sent = _shrink(schema, {"size": 2**53}, lambda a: a["size"] >= 2**31 - 1)
    assert shrunk.value == {"size": 2**31 - 1}
    assert all(a["size"] >= 1 for a in sent)  # never below the minimum
    assert len(sent) <= 70


def test_multiple_of_and_exclusive_bounds_are_respected() -> None:
    schema = _obj(
        {"step": {"type": "integer", "multipleOf": 5, "exclusiveMinimum": 10, "maximum": 1000}},
        ("step",),
    )
    shrunk, sent = _shrink(schema, {"step": 1000}, lambda a: a["step"] > 100)
    assert shrunk.value == {"step": 105}
    assert all(a["step"] % 5 == 0 and a["step"] > 10 for a in sent)


def test_a_negative_corner_shrinks_toward_zero_from_below() -> None:
    schema = _obj({"n": {"type": "integer"}}, ("n",))
    shrunk, _ = _shrink(schema, {"n": -1000}, lambda a: a["n"] < -7)
    assert shrunk.value == {"n": -8}


def test_a_number_typed_value_shrinks_to_a_whole_number() -> None:
    schema = _obj({"x": {"type": "number"}}, ("x",))
    shrunk, _ = _shrink(schema, {"x": 1e300}, lambda a: a["x"] > 100.5)
    assert shrunk.value == {"x": 101.0}


def test_a_string_naming_a_place_that_exists_is_kept_whole(tmp_path: Path) -> None:
    """A shorter path names another place, perhaps outside the run's own: a tool that makes
    what it is named would make it there."""
    folder = str(tmp_path)
    schema = _obj({"repo_path": {"type": "string"}, "note": {"type": "string"}}, ("repo_path",))
    start = {"repo_path": folder, "note": "long text"}
    shrunk, sent = _shrink(schema, start, lambda value: True)
    assert shrunk.value == {"repo_path": folder}
    assert all(attempt["repo_path"] == folder for attempt in sent)
    uri = {"repo_path": tmp_path.as_uri()}
    assert _shrink(schema, uri, lambda value: True)[0].value == uri
    # A path to nothing is text like any other.
    missing = {"repo_path": folder + "/missing"}
    assert _shrink(schema, missing, lambda value: True)[0].value == {"repo_path": ""}


def test_strings_and_arrays_keep_the_shortest_failing_prefix() -> None:
    schema = _obj(
        {
            "label": {"type": "string", "minLength": 2},
            "tags": {"type": "array", "items": {"type": "string"}},
        },
        ("label",),
    )
    shrunk, sent = _shrink(schema, {"label": "a" * 65536}, lambda a: len(a["label"]) > 40)
    assert shrunk.value == {"label": "a" * 41}
    assert all(len(a["label"]) >= 2 for a in sent)
    start = {"label": "aa", "tags": [""] * 1000}
    shrunk, _ = _shrink(schema, start, lambda a: len(a.get("tags", [])) > 12)
    assert shrunk.value == {"label": "aa", "tags": [""] * 13}


def test_optional_properties_are_dropped_and_nested_objects_shrunk_likewise() -> None:
    options = _obj({"depth": {"type": "integer", "maximum": 50}, "verbose": {"type": "boolean"}})
    schema = _obj(
        {"name": {"type": "string"}, "options": options, "limit": {"type": "integer"}}, ("name",)
    )
    start = {"name": "", "limit": 7, "options": {"depth": 50, "verbose": True}}
    shrunk, _ = _shrink(schema, start, lambda a: a.get("options", {}).get("depth", 0) > 10)
    assert shrunk.value == {"name": "", "options": {"depth": 11}}


def test_an_input_that_is_already_a_boundary_stays_as_it_is() -> None:
    schema = _obj({"mode": {"enum": ["a", "b", "c"]}, "verbose": {"type": "boolean"}}, ("mode",))
    bug: Callable[[dict[str, Any]], bool] = lambda a: a["mode"] == "c"  # noqa: E731
    shrunk, sent = _shrink(schema, {"mode": "c"}, bug)
    assert shrunk.value == {"mode": "c"} and shrunk.stopped is None
    assert sent == [{"mode": "a"}]  # the enum's simplest value: it passes, nothing else to try
    shrunk, _ = _shrink(schema, {"mode": "a", "verbose": True}, lambda a: a.get("verbose") is True)
    assert shrunk.value == {"mode": "a", "verbose": True}


def test_an_attempt_the_schema_refuses_is_never_sent() -> None:
    # anyOf of a range and null: the number moves inside its branch only; a cross-field
    # rule the rewrite cannot see (not) is caught by the original schema's re-check.
    schema = _obj(
        {
            "n": {
                "anyOf": [{"type": "integer", "minimum": 1, "maximum": 100}, {"type": "null"}],
                "not": {"const": 64},
            }
        }
    )
    shrunk, sent = _shrink(schema, {"n": 100}, lambda a: (a.get("n") or 0) > 70)
    assert shrunk.value == {"n": 71}
    assert {"n": 64} not in sent and all(a.get("n") is None or 1 <= a["n"] <= 100 for a in sent)


def test_a_stop_from_the_oracle_returns_the_smallest_so_far_and_why() -> None:
    schema = _obj({"n": {"type": "integer"}}, ("n",))
    calls = 0

    def bug(arguments: dict[str, Any]) -> bool:
        nonlocal calls
        calls += 1
        if calls > 12:
            raise SearchStopped("shrinking took 1 s, --mcp-shrink-time")
        return bool(arguments["n"] > 100)

    plan = coverage_plan(schema, 40)
    assert plan.is_valid is not None
    shrunk = shrink_input({"n": 2**53}, plan.schema, plan.is_valid, bug)
    assert shrunk.stopped == "shrinking took 1 s, --mcp-shrink-time"
    # 0, 1, 3, ... 63 pass, 127 fails (the gallop), then bisection: 95 passes, 111 and 103
    # fail, 99 passes; the 13th call is stopped
    assert shrunk.value == {"n": 103} and shrunk.attempts == 12
    shrunk = shrink_input(
        {"n": 2**53}, plan.schema, plan.is_valid, lambda a: a["n"] > 10**12, max_attempts=5
    )
    assert shrunk.stopped == "the search made 5 calls" and shrunk.value["n"] > 10**12


@pytest.mark.parametrize("threshold", [0, 1, 2, 3, 99, 100, 2**31 - 2])
def test_the_boundary_is_exact_wherever_the_bug_starts(threshold: int) -> None:
    schema = _obj({"n": {"type": "integer", "minimum": 0}}, ("n",))
    shrunk, _ = _shrink(schema, {"n": 2**31 - 1}, lambda a: a["n"] > threshold)
    assert shrunk.value == {"n": threshold + 1}


def test_what_counts_as_failing_the_same_way() -> None:
    """runs/contract._failure_kind: the kind a shrinking attempt must keep."""
    from pytest_mcp_contracts.judges.error_results import ErrorVerdict
    from pytest_mcp_contracts.runs.contract import _failure_kind, judge
    from pytest_mcp_contracts.transport.discover import Entry
    from pytest_mcp_contracts.transport.errors import CallTimeout, ServerDied
    from pytest_mcp_contracts.transport.managed import CallOutcome
    from pytest_mcp_contracts.vocabulary import EntryKind, ErrorClass

    tool = Entry(EntryKind.TOOL, "t", "t", {"name": "t", "inputSchema": {"type": "object"}})

    def kind(failure: Any = None, result: Any = None, verdict: ErrorVerdict | None = None) -> str:
        outcome = CallOutcome({}, {}, result=result, failure=failure)
        finding = judge(tool, outcome, "2026-07-28", verdict)
        assert finding is not None
        return _failure_kind(outcome, finding, verdict)

    silent = kind(CallTimeout("no answer to tools/call within 10 s"))
    after_progress = kind(
        CallTimeout("no answer to tools/call within 10 s of its last progress notification (3)")
    )
    assert silent == after_progress
    # A call still reporting progress at --mcp-max-call-time is no failure at all (warned
    # about), so never a kind that shrinking could slide into.
    past_max = CallTimeout(
        "no answer to tools/call within the maximum of 120 s (--mcp-max-call-time), "
        "though it sent 9 progress notification(s)"
    )
    assert judge(tool, CallOutcome({}, {}, failure=past_max), "2026-07-28") is None
    assert kind(ServerDied("exited (exit status 3)")) != silent
    error = {"content": [{"type": "text", "text": "Error executing tool t"}], "isError": True}
    index = ErrorVerdict(ErrorClass.UNEXPECTED_EXCEPTION, "x", "IndexError: out of range")
    other_index = ErrorVerdict(ErrorClass.UNEXPECTED_EXCEPTION, "x", "IndexError: no item 3")
    key = ErrorVerdict(ErrorClass.UNEXPECTED_EXCEPTION, "x", "KeyError: 'a'")
    output = ErrorVerdict(ErrorClass.OUTPUT_INVALID, "x", "ValidationError: 1 error")
    assert kind(result=error, verdict=index) == kind(result=error, verdict=other_index)
    assert len({kind(result=error, verdict=v) for v in (index, key, output)}) == 3
