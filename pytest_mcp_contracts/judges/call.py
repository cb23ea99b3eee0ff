"""The one judge of a call's answer, for every check that makes calls (contract,
rejects_invalid, sequences, and the replays of runs/reproduce).

``judge_call`` judges what came back when no result did: a timeout, a dead server, a broken
reply, a JSON-RPC error (a URL elicitation among them). Its words depend only on whether the
input was a valid one (contract, sequences) or an invalid one (rejects_invalid), so a
crash reads the same whichever check found it. ``judge`` adds, for a valid input's result,
the isError verdict and the result's own checks.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Final

from pytest_mcp_contracts.contracts.classify import parse_json_text
from pytest_mcp_contracts.judges.error_results import (
    ErrorVerdict,
    judge_error_message,
    judge_error_result,
    judge_success_result,
    result_text,
)
from pytest_mcp_contracts.judges.failures import FailureKind, Finding
from pytest_mcp_contracts.judges.spec_messages import call_finding
from pytest_mcp_contracts.judges.stdout import noise_finding
from pytest_mcp_contracts.judges.tool_result import check_result, empty_content_finding
from pytest_mcp_contracts.transport.client import URL_ELICITATION_REQUIRED, url_elicitation_problem
from pytest_mcp_contracts.transport.errors import CallTimeout, ServerDied
from pytest_mcp_contracts.transport.stdio import StdoutNoise
from pytest_mcp_contracts.vocabulary import ErrorClass, Level

if TYPE_CHECKING:
    from pytest_mcp_contracts.judges.lints import LintLevels
    from pytest_mcp_contracts.transport.discover import Entry
    from pytest_mcp_contracts.transport.managed import CallOutcome

INVALID_PARAMS: Final = -32602
_TIMEOUT_HINT: Final = "raise --mcp-call-timeout if the tool is just slow"


def judge_call(
    outcome: CallOutcome, protocol_version: str, *, invalid: bool = False
) -> Finding | None:
    """What is wrong with an answer that is not a result (``outcome.result`` is None), or
    None: a call still at work when --mcp-max-call-time ran out (valid inputs only), a URL
    elicitation the spec allows, or, for an ``invalid`` input, the refusal -32602."""
    check = "rejects_invalid" if invalid else "contract"
    failure = outcome.failure
    if isinstance(failure, CallTimeout):
        if invalid:
            return Finding(
                check,
                f"an invalid input hung the tool: {failure.message}",
                kind=FailureKind.TIMEOUT,
            )
        if kept_reporting_progress(failure):
            # Still at work, and saying so, when the client's patience ran out: what an
            # unbounded input asked for (a sleep of 2^31 s, 1e300 steps), not a hang.
            # The contract check counts it and warns (still_working_note).
            return None
        message = f"the call did not return: {failure.message}"
        return Finding(check, message, details=(_TIMEOUT_HINT,), kind=FailureKind.TIMEOUT)
    if isinstance(failure, ServerDied):
        message = (
            f"an invalid input killed the server: {failure.message}"
            if invalid
            else f"the call killed the server: {failure.message}"
        )
        return Finding(check, message, kind=FailureKind.CRASH)
    if isinstance(failure, StdoutNoise):
        when = "while an invalid input's call ran" if invalid else "while this call ran"
        return noise_finding(check, failure.count, failure.lines, when, failure.before_call)
    if failure is not None:
        message = (
            f"the server broke the protocol on an invalid input: {failure.message}"
            if invalid
            else f"the server broke the protocol: {failure.message}"
        )
        return Finding(check, message, kind=FailureKind.PROTOCOL_VIOLATION)
    error = outcome.rpc_error
    if error is None:
        return None
    which = "an invalid input" if invalid else "a schema-valid input"
    if error.code == URL_ELICITATION_REQUIRED:
        problem = url_elicitation_problem(error.data, protocol_version)
        if problem is None:
            return None  # the spec's answer: the user must open a URL first
        return Finding(
            check,
            f"{which} was answered with JSON-RPC error {error.code} (URL elicitation "
            f"required) that the protocol does not allow here: {problem}",
            details=() if invalid else (f"message: {error.message}",),
            kind=FailureKind.PROTOCOL_VIOLATION,
        )
    if invalid:
        if error.code == INVALID_PARAMS:
            return None  # refused: what rejects_invalid asks for
        verdict = rpc_error_verdict(outcome)
        if verdict is not None and not verdict.certain:
            return None  # refused on another code, with no crash's evidence: a refusal
        return Finding(
            check,
            f"an invalid input was answered with JSON-RPC error {error.code} ({error.message}), "
            "an internal error, instead of a refusal",
            kind=FailureKind.RPC_ERROR,
        )
    verdict = rpc_error_verdict(outcome)
    if verdict is not None and not verdict.certain:
        # A refusal sent on the wrong channel (the TypeScript SDK 1.0 sends every throw as
        # -32603, older servers refuse arguments with -32602): the contract check counts it
        # and warns once (rpc_refusal_note), the author's refusal is no crash.
        return None
    evidence = (
        (f"evidence: {verdict.evidence}",) if verdict is not None and verdict.evidence else ()
    )
    return Finding(
        check,
        f"a schema-valid input was answered with JSON-RPC error {error.code}: {error.message}",
        details=(
            *evidence,
            "tool failures belong in a result with isError: true; JSON-RPC errors are for "
            "protocol problems",
        ),
        kind=FailureKind.RPC_ERROR,
    )


def rpc_error_verdict(outcome: CallOutcome) -> ErrorVerdict | None:
    """What a JSON-RPC error answering a tool call says of the tool, judged as an isError
    text is (its message and the call's stderr: where the exception came from); None when
    the answer is no JSON-RPC error."""
    error = outcome.rpc_error
    if error is None:
        return None
    return judge_error_message(error.message, outcome.stderr, outcome.arguments)


def judge(
    tool: Entry,
    outcome: CallOutcome,
    protocol_version: str,
    verdict: ErrorVerdict | None = None,
    warn_only: frozenset[str] = frozenset(),
    lints: LintLevels | None = None,
) -> Finding | None:
    """The first thing wrong with one call of a valid input, or None. ``verdict`` judges the
    result's text, isError or not (certain evidence of a failure fails, unless its class is
    in ``warn_only``); with ``lints``, a result lint the user made an error fails too."""
    if outcome.result is None:
        return judge_call(outcome, protocol_version)
    if verdict is not None and verdict.certain and verdict.kind not in warn_only:
        return wrapped_failure_finding(verdict, result_text(outcome.result))
    findings = check_result(tool, outcome.result, protocol_version=protocol_version)
    if not findings and lints is not None:
        lint = empty_content_finding(outcome.result, lints)
        findings = [lint] if lint is not None and lint.level is Level.ERROR else []
    return findings[0] if findings else call_finding("contract", outcome, protocol_version)


def judged(
    tool: Entry,
    outcome: CallOutcome,
    protocol_version: str,
    warn_only: frozenset[str],
    lints: LintLevels | None = None,
) -> tuple[Finding | None, str | None]:
    """The first thing wrong with one call's answer, as the contract check judges it, and
    the class of an error the answer gave without isError (None when it gave none)."""
    verdict = error_verdict(tool, outcome)
    disguised = str(verdict.kind) if verdict is not None and not outcome.is_error_result else None
    return judge(tool, outcome, protocol_version, verdict, warn_only, lints), disguised


def error_verdict(tool: Entry, outcome: CallOutcome) -> ErrorVerdict | None:
    """What a result's text says of a failure: for an isError result, whether it is a
    refusal or a crash; for a success, whether it is an error in disguise (None: no result,
    or a success that shows nothing)."""
    if outcome.result is None:
        return None
    if outcome.is_error_result:
        return judge_error_result(tool.name, outcome.result, outcome.stderr, outcome.arguments)
    declared = tool.output_schema if isinstance(tool.output_schema, dict) else None
    return judge_success_result(outcome.result, outcome.arguments, output_schema=declared)


def judge_invalid(outcome: CallOutcome, tool_name: str, protocol_version: str) -> Finding | None:
    """What is wrong with the answer to an invalid input beyond accepting it, or None."""
    if outcome.result is None:
        return judge_call(outcome, protocol_version, invalid=True)
    if outcome.is_error_result:
        verdict = judge_error_result(tool_name, outcome.result, outcome.stderr, outcome.arguments)
        if verdict.kind is ErrorClass.UNEXPECTED_EXCEPTION:
            # Refused, but by crashing: the same input, slightly different, may not be caught.
            found = f" ({verdict.exception})" if verdict.exception else ""
            return Finding(
                "rejects_invalid",
                f"an invalid input made the tool raise an unexpected exception{found} instead "
                f"of a refusal; evidence: {verdict.evidence}",
                kind=FailureKind.UNEXPECTED_EXCEPTION,
            )
    return call_finding("rejects_invalid", outcome, protocol_version)


def refused_in_words(outcome: CallOutcome, tool: Entry, path: str, why: str) -> str | None:
    """Why a success answer to an invalid input is a refusal in words (None: it is evidence
    that the tool ran on the input, so the tool accepted it).

    A refusal says what is wrong with the input; a result speaks of the tool's subject. So an
    answer is a refusal when the judge finds it no real result (an error-shaped structure,
    refusal words, a crash's text: ``judge_success_result``), or when it is short prose, not
    data, whose first line names the argument that was made invalid or another of the tool's
    arguments ("limit should be a positive whole number"): the server explained the input
    back instead of using it."""
    result = outcome.result
    if result is None:
        return None
    verdict = judge_success_result(result, outcome.arguments)
    if verdict is not None:
        return verdict.evidence or str(verdict.kind)
    text = result_text(result).strip()
    if result.get("structuredContent") is not None or not text or len(text) > _SHORT_PROSE:
        return None
    if parse_json_text(text) is not None:
        return None  # data: the tool answered with what it does
    first = text.splitlines()[0].lower()
    properties = (
        tool.input_schema.get("properties") if isinstance(tool.input_schema, dict) else None
    )
    arguments = properties if isinstance(properties, dict) else {}
    names = {path.rsplit(".", 1)[-1], *re.findall(r"'([^']+)'", why), *arguments}
    for name in sorted(names, key=len, reverse=True):
        if len(name) >= 2 and re.search(rf"(?<![\w-]){re.escape(name.lower())}(?![\w-])", first):
            return f"a short answer that names the argument made invalid ({name!r})"
    return None


_SHORT_PROSE: Final = 400


def kept_reporting_progress(timeout: CallTimeout) -> bool:
    """Whether a call ran out of --mcp-max-call-time while it kept reporting progress
    (transport/client.CallClock.expired says so), rather than going silent."""
    return "--mcp-max-call-time" in timeout.message


_WRAPPED_KIND: Final = {
    ErrorClass.OUTPUT_INVALID: FailureKind.OUTPUT_SCHEMA,
    ErrorClass.ERROR_AS_RESULT: FailureKind.ERROR_AS_RESULT,
}


def wrapped_failure_finding(verdict: ErrorVerdict, text: str) -> Finding:
    """A server failure that an SDK wrapped into an isError result, as a finding."""
    said = text.strip().splitlines()[0][:300] if text.strip() else "(no text)"
    if verdict.kind is ErrorClass.OUTPUT_INVALID:
        message = (
            "the tool's output breaks its own output schema: the server refused to send it "
            "and answered isError instead"
        )
        details = [f"{field}  (from the server's validation error)" for field in verdict.paths]
    elif verdict.kind is ErrorClass.ERROR_AS_RESULT:
        message = "the tool returned an error as a successful result (isError is not set)"
        details = [
            "a client, and the model behind it, takes this text for the tool's output; "
            "a failure belongs in a result with isError: true"
        ]
    else:
        message = "the tool raised an unexpected exception (the server answered isError)"
        details = []
    if verdict.exception and verdict.exception != said:
        details.append(f"exception: {verdict.exception}")
    label = "text" if verdict.kind is ErrorClass.ERROR_AS_RESULT else "isError text"
    details += [f"{label}: {said}", f"evidence: {verdict.evidence}"]
    kind = _WRAPPED_KIND.get(verdict.kind, FailureKind.UNEXPECTED_EXCEPTION)
    return Finding("contract", message, details=tuple(details), kind=kind)
