"""judges/call and judges/failures: one judge for every check's calls, typed verdicts."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_mcp_contracts.judges.call import judge, judge_call, judge_invalid
from pytest_mcp_contracts.judges.failures import (
    SEVERITY,
    SEVERITY_ORDER,
    ContractFailure,
    FailureKind,
    FailureReport,
    Severity,
)
from pytest_mcp_contracts.transport.discover import Entry
from pytest_mcp_contracts.transport.errors import (
    CallTimeout,
    ProtocolViolation,
    RpcError,
    ServerDied,
)
from pytest_mcp_contracts.transport.managed import CallOutcome
from pytest_mcp_contracts.transport.stdio import StdoutNoise
from pytest_mcp_contracts.vocabulary import EntryKind
from tests.conforming import conforming

MODERN = "2026-07-28"
TOOL = Entry(EntryKind.TOOL, "t", "t", {"name": "t", "inputSchema": {"type": "object"}})


def _outcome(**fields: Any) -> CallOutcome:
    if "result" in fields:
        fields["result"] = conforming(fields["result"])
    return CallOutcome({"n": 1}, {"method": "tools/call"}, **fields)


@pytest.mark.parametrize(
    ("fields", "kind", "valid_words", "invalid_words"),
    [
        (
            {"failure": CallTimeout("no answer within 10 s")},
            FailureKind.TIMEOUT,
            "the call did not return: no answer within 10 s",
            "an invalid input hung the tool: no answer within 10 s",
        ),
        (
            {"failure": ServerDied("exited (exit status 3)")},
            FailureKind.CRASH,
            "the call killed the server: exited (exit status 3)",
            "an invalid input killed the server: exited (exit status 3)",
        ),
        (
            {"failure": ProtocolViolation("not JSON")},
            FailureKind.PROTOCOL_VIOLATION,
            "the server broke the protocol: not JSON",
            "the server broke the protocol on an invalid input: not JSON",
        ),
        (
            {"failure": StdoutNoise("wrote 1 line", count=1, lines=["DEBUG x"])},
            FailureKind.STDOUT_NOISE,
            "the server wrote 1 line(s) on stdout while this call ran that are not JSON-RPC "
            "messages",
            "the server wrote 1 line(s) on stdout while an invalid input's call ran that are "
            "not JSON-RPC messages",
        ),
        (
            {"rpc_error": RpcError(-32603, "list index out of range")},
            FailureKind.RPC_ERROR,
            "a schema-valid input was answered with JSON-RPC error -32603: list index out of range",
            "an invalid input was answered with JSON-RPC error -32603 (list index out of range), "
            "an internal error, instead of a refusal",
        ),
    ],
)
def test_one_judge_words_a_call_for_valid_and_invalid_inputs(
    fields: dict[str, Any], kind: FailureKind, valid_words: str, invalid_words: str
) -> None:
    valid = judge_call(_outcome(**fields), MODERN)
    invalid = judge_call(_outcome(**fields), MODERN, invalid=True)
    assert valid is not None and invalid is not None
    assert (valid.kind, valid.message, valid.check) == (kind, valid_words, "contract")
    assert (invalid.kind, invalid.message, invalid.check) == (
        kind,
        invalid_words,
        "rejects_invalid",
    )
    # The full judges of each check reach the same verdict on an answer that is no result.
    assert judge(TOOL, _outcome(**fields), MODERN) == valid
    assert judge_invalid(_outcome(**fields), "t", MODERN) == invalid


def test_a_json_rpc_error_fails_a_valid_input_only_with_a_crashs_evidence() -> None:
    # A refusal sent on the wrong channel (-32602 before SEP-1303; the TypeScript SDK 1.0
    # sends every throw as -32603) is counted and warned about, not failed.
    for error in (RpcError(-32602, "Invalid params"), RpcError(-32603, "limit must be >= 1")):
        assert judge_call(_outcome(rpc_error=error), MODERN) is None
    crash = RpcError(-32603, "Cannot read properties of undefined (reading 'id')")
    found = judge_call(_outcome(rpc_error=crash), MODERN)
    assert found is not None and found.kind is FailureKind.RPC_ERROR
    assert "evidence: a language runtime's own error message" in found.details[0]
    # The low-level Python server: "Internal server error", the traceback on stderr decides.
    traceback = 'Traceback (most recent call last):\n  File "/srv/tools.py", line 9, in get\n'
    masked = RpcError(-32603, "Internal server error")
    crashed = _outcome(rpc_error=masked, stderr=traceback + "    return d[k]\nKeyError: 'k'\n")
    assert judge_call(crashed, MODERN) is not None
    refused = traceback + '    raise LookupError("no such note")\nLookupError: no such note\n'
    assert judge_call(_outcome(rpc_error=masked, stderr=refused), MODERN) is None
    # For an invalid input, -32602 is the refusal asked for; another code fails.
    assert judge_call(_outcome(rpc_error=RpcError(-32602, "x")), MODERN, invalid=True) is None


def test_still_working_at_the_maximum_is_no_failure_for_a_valid_input_only() -> None:
    past_max = CallTimeout("no answer within the maximum of 120 s (--mcp-max-call-time)")
    assert judge_call(_outcome(failure=past_max), MODERN) is None
    hung = judge_call(_outcome(failure=past_max), MODERN, invalid=True)
    assert hung is not None and hung.kind is FailureKind.TIMEOUT


def test_result_findings_have_their_own_kinds() -> None:
    not_a_result = _outcome(result={"content": "text"})
    found = judge(TOOL, not_a_result, MODERN)
    assert found is not None and found.kind is FailureKind.MALFORMED_RESULT
    declared = Entry(
        EntryKind.TOOL,
        "o",
        "o",
        {
            "name": "o",
            "inputSchema": {"type": "object"},
            "outputSchema": {"type": "object", "properties": {"n": {"type": "integer"}}},
        },
    )
    wrong = _outcome(result={"content": [], "structuredContent": {"n": "x"}})
    found = judge(declared, wrong, MODERN)
    assert found is not None and found.kind is FailureKind.OUTPUT_SCHEMA
    assert (
        judge(declared, _outcome(result={"content": [], "structuredContent": {"n": 1}}), MODERN)
        is None
    )


def test_every_kind_has_a_severity_and_crashes_are_gravest() -> None:
    assert set(SEVERITY) == set(FailureKind)
    assert SEVERITY_ORDER[0] is Severity.CRITICAL
    assert SEVERITY[FailureKind.CRASH] is Severity.CRITICAL
    assert SEVERITY_ORDER.index(SEVERITY[FailureKind.OUTPUT_SCHEMA]) < SEVERITY_ORDER.index(
        SEVERITY[FailureKind.MISSING_RECORD]
    )


class _Target:
    noun = "command"
    display = "python -m server"
    output_source = "stderr"

    def reproduce_where(self, *, after_handshake: bool) -> str:
        return "after the handshake" if after_handshake else "on a fresh server"

    def output_block(self, tail: str | None, *, call_output_shown: bool) -> str:
        return ""

    def start_failure(self, problem: str, stderr_tail: str) -> str:
        return problem


def test_a_failure_carries_its_kind_and_severity_for_the_run_report() -> None:
    report = FailureReport(
        "srv", _Target(), "t", "contract", "the call killed the server", FailureKind.CRASH
    )
    error = ContractFailure(report)
    assert (error.kind, error.severity) == ("crash", "critical")
    assert str(error) == "the call killed the server"
    assert report.render().splitlines()[0] == "the call killed the server"


def _answer(text: str, **extra: object) -> CallOutcome:
    result = {"content": [{"type": "text", "text": text}], **extra}
    return CallOutcome({"limit": "many"}, {"method": "tools/call"}, result=result)


@pytest.mark.parametrize(
    ("text", "extra"),
    [
        ("limit should be a positive whole number", {}),  # words no list holds
        ("The value given for 'limit' cannot be used.", {}),
        ("Error: something is off", {}),
        ("{}", {"structuredContent": {"result": {"error": "nothing is open"}}}),
    ],
)
def test_an_answer_to_an_invalid_input_that_explains_the_input_is_a_refusal(
    text: str, extra: dict[str, object]
) -> None:
    from pytest_mcp_contracts.judges.call import refused_in_words

    why = "property 'limit' must be integer, got a string"
    assert refused_in_words(_answer(text, **extra), TOOL, "limit", why) is not None


@pytest.mark.parametrize(
    ("text", "extra"),
    [
        ("Hello, many!", {}),  # the tool ran on it
        ('{"items": [], "limit": "many"}', {}),  # data that names the field: a result
        ("3 notes found", {"structuredContent": {"count": 3}}),
        ("Listed with a limit of many. " * 20, {}),  # a long text is content
    ],
)
def test_an_answer_to_an_invalid_input_that_uses_it_is_an_acceptance(
    text: str, extra: dict[str, object]
) -> None:
    from pytest_mcp_contracts.judges.call import refused_in_words

    why = "property 'limit' must be integer, got a string"
    assert refused_in_words(_answer(text, **extra), TOOL, "limit", why) is None
