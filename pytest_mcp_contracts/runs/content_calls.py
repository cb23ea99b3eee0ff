"""The calls of prompts and resources: every listed resource read, every resource template
expanded with generated values and read, every prompt got with generated arguments.

The inputs are a tool's, from a synthetic schema (``inputs/listed``): the values the server
offers through ``completion/complete`` and those mined from listed resource URIs first, then
the coverage phase (every required argument present, each optional one present and
absent, the empty and a large string), then random strings from hypothesis. A prompt with
required arguments is also got without each of them (at most MAX_MISSING_PROBES): the spec
asks for a refusal (-32602).

Each answer is judged by the evidence a tool call is judged by (``judge.judge_call`` for a
hang, a death, a broken protocol; ``error_results`` for an SDK's crash wording and a
traceback on stderr during the call), then its result by ``judges/content_results``. A prompt or a
resource has no ``isError``, so a refusal is a JSON-RPC error: -32602 (invalid params) and
-32002 (resource not found) refuse a generated value; -32603 is the spec's "internal error"
and fails, as does any error whose message or stderr shows an exception. A listed resource
must be readable: any error reading it fails. A failing input is shrunk (hypothesis for a
random one, ``inputs/shrink`` for an explicit one) within the shrink time and the restart
budget, and replayed once on a fresh server (``runs/reproduce.replay_request``).
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from pytest_mcp_contracts.contracts.content import read_observable
from pytest_mcp_contracts.inputs.listed import (
    described_values,
    expand,
    mined_values,
    prompt_schema,
    required_arguments,
    template_schema,
)
from pytest_mcp_contracts.judges.call import INVALID_PARAMS, judge_call
from pytest_mcp_contracts.judges.content_results import check_prompt_result, check_read_result
from pytest_mcp_contracts.judges.error_results import (
    judge_error_message,
    judge_success_result,
    sdk_missing_argument_refusal,
)
from pytest_mcp_contracts.judges.failures import (
    ContractFailure,
    FailureKind,
    Finding,
    call_failure,
    unavailable,
)
from pytest_mcp_contracts.judges.spec_messages import call_finding
from pytest_mcp_contracts.runs.engine import (
    Budget,
    Engine,
    Given,
    Judgement,
    Search,
    Sent,
    StopCalling,
)
from pytest_mcp_contracts.runs.stats import ToolStats
from pytest_mcp_contracts.text import short_json, shown
from pytest_mcp_contracts.transport.client import URL_ELICITATION_REQUIRED
from pytest_mcp_contracts.transport.errors import METHOD_NOT_FOUND, ServerError
from pytest_mcp_contracts.vocabulary import Check, Level

if TYPE_CHECKING:
    from pytest_mcp_contracts.contracts.change import Change
    from pytest_mcp_contracts.inputs.coverage import CoveragePlan
    from pytest_mcp_contracts.transport.discover import Entry
    from pytest_mcp_contracts.transport.managed import CallOutcome, ManagedServer

RESOURCE_NOT_FOUND: Final = -32002
INTERNAL_ERROR: Final = -32603
# A variable named like a number or an id: "id", "userId", "user_ID", "item-id", "page",
# "index"; not a word that merely ends in the letters ("valid", "grid", "android").
_ID_LIKE: Final = re.compile(
    r"(?i:(?:^|[_-])id)$|[a-z0-9](?:Id|ID)$|(?i:^(?:page|index|num|number|n))$"
)
#: The JSON-RPC errors that refuse a generated template value or prompt argument.
REFUSALS: Final = {INVALID_PARAMS: "invalid params", RESOURCE_NOT_FOUND: "resource not found"}
#: A prompt's required arguments each left out once, at most this many.
MAX_MISSING_PROBES: Final = 3
#: Values per template variable or prompt argument asked of completion/complete (two
#: requests each: the prefix "", then the first letter of a value it offered), for at most
#: MAX_COMPLETED_NAMES of them.
MAX_COMPLETION_VALUES: Final = 5
MAX_COMPLETED_NAMES: Final = 8
#: Known inputs (completions, mined) sent per template or prompt, before the coverage phase.
MAX_KNOWN_INPUTS: Final = 5
#: Generated inputs per template or prompt, at most (below --mcp-max-examples): the schema
#: is strings only, whose corners (empty, large, each optional present and absent) the
#: coverage phase sends in a few calls, so random strings add little after 20; a server
#: with 50 prompts and templates then makes about 1,000 calls, not 2,500.
LISTED_MAX_EXAMPLES: Final = 20
#: Warnings one read or get item says (each rule once).
MAX_NOTES: Final = 5
MAX_OBSERVED: Final = 100  # results kept for the content contract of one entry
# The headings of a failing request: as it was sent (a listed resource, a probe), or shrunk.
REQUEST_LABEL: Final = "request:"
SMALLEST_LABEL: Final = "smallest arguments found:"


@dataclass
class ContentRun:
    """What the calls of one resource, template or prompt came to."""

    stats: ToolStats = field(default_factory=ToolStats)
    notes: list[str] = field(default_factory=list)  # warnings for the item to say
    failure: ContractFailure | None = None
    # The results that passed, for the content contract (contracts/content), bounded.
    results: list[tuple[dict[str, Any], dict[str, Any]]] = field(default_factory=list)
    evidence: str = ""  # why the first result counted as refused was one (its words)

    def count(self, outcome: CallOutcome, judged: Judged) -> None:
        self.stats.count_call(outcome)
        self.take(outcome, judged)

    def take(self, outcome: CallOutcome, judged: Judged) -> None:
        """Count a call's verdict (the call itself is counted already)."""
        self.stats.refused += judged.refused
        if judged.disguised is not None:
            self.stats.count_disguised(judged.disguised[0])
            self.evidence = self.evidence or judged.disguised[1]
        passed = judged.finding is None and not judged.refused
        if passed and outcome.result is not None and len(self.results) < MAX_OBSERVED:
            self.results.append((outcome.arguments, outcome.result))
        for warning in judged.warnings:
            # Said once per rule for the item, with the first request that showed it.
            note = f"{warning.headline} ({outcome.method} {short_json(outcome.arguments)})"
            if len(self.notes) < MAX_NOTES and not any(
                n.startswith(warning.headline) for n in self.notes
            ):
                self.notes.append(note)

    def summary(self) -> str:
        stats = self.stats
        return f"{stats.calls} calls, {stats.refused} refused, {stats.real_results} results"

    def note_unreached(self, entry: Entry) -> None:
        """Say so when no call returned a real result: the item passes, but nothing of the
        entry's contents was checked, and a green item must not read as a tested one."""
        stats = self.stats
        if self.failure is not None or not stats.calls or stats.real_results:
            return
        calls = "gets" if entry.kind == "prompt" else "reads"
        words = sum(stats.disguised_errors.values())
        how = f"; {words} answered with a result that says so: {self.evidence}" if words else ""
        sources = "its completions, its descriptions"
        sources += ", listed resource URIs" if entry.kind == "template" else ""
        table = f"[tool.mcp-contracts.{entry.kind}s.{json.dumps(entry.key)}] skip = true"
        self.notes.append(
            f"none of its {stats.calls} {calls} returned a real result ({stats.refused} "
            f"refused{how}), so its contents were never checked. The values came from "
            f'{sources}, ids as "1" and generated strings: offer real ones through '
            f"completion/complete or name them in the description, or leave it out with "
            f"{table}"
        )


# -- judging one answer ------------------------------------------------------------------------


@dataclass(frozen=True)
class Judged:
    """One read's or get's answer, judged: what fails it (None: nothing), whether it was a
    refusal, and the contents checks' warnings about its result."""

    finding: Finding | None = None
    refused: bool = False
    warnings: tuple[Finding, ...] = ()
    # A result whose text says it is an error (judge_success_result's class and evidence):
    # counted as refused, not as a real result, and not learned by the content contract.
    disguised: tuple[str, str] | None = None


def judge_answer(
    outcome: CallOutcome, protocol_version: str, *, check: str, must_succeed: bool = False
) -> Judged:
    """One read's or get's answer judged. ``must_succeed``: a listed resource, which any
    error fails."""
    error = outcome.rpc_error
    url_required = error is not None and error.code == URL_ELICITATION_REQUIRED
    if outcome.failure is not None or url_required:
        found = judge_call(outcome, protocol_version)
        return Judged(dataclasses.replace(found, check=check) if found else None)
    if error is not None:
        said = f"JSON-RPC error {error.code} ({shown(error.message, 200)})"
        if error.code == METHOD_NOT_FOUND:
            return Judged(
                Finding(
                    check,
                    f"the server lists {outcome.method.split('/')[0]} but does not answer "
                    f"{outcome.method}: {said}",
                    details=("a server that declares the capability answers its methods",),
                    kind=FailureKind.PROTOCOL_VIOLATION,
                )
            )
        verdict = judge_error_message(error.message, outcome.stderr, outcome.arguments)
        evidence, exception = verdict.evidence, verdict.exception
        sdk_refusal = sdk_missing_argument_refusal(outcome.stderr)
        crash = verdict.certain and not sdk_refusal
        if crash:
            details = [f"evidence: {evidence}"] if evidence else []
            if exception and exception not in error.message:
                details.append(f"exception: {exception}")
            details.append(
                "a resource or prompt that cannot serve a request refuses it with -32602 "
                "(invalid params) or -32002 (resource not found); -32603 is an internal error"
            )
            return Judged(
                Finding(
                    check,
                    f"the server failed on this request: {said}",
                    details=tuple(details),
                    kind=FailureKind.UNEXPECTED_EXCEPTION,
                )
            )
        if must_succeed:
            return Judged(
                Finding(
                    check,
                    f"a listed resource cannot be read: {said}",
                    details=("a resource the server lists is one a client will read",),
                    kind=FailureKind.RPC_ERROR,
                )
            )
        if error.code != INTERNAL_ERROR or sdk_refusal:
            return Judged(refused=True)
        # Nothing shows a crash: a refusal sent with the internal-error code, as the
        # TypeScript SDK sends any thrown Error and the Python SDK 2.x a ResourceError.
        return Judged(
            refused=True,
            warnings=(
                Finding(
                    check,
                    "refused with JSON-RPC error -32603 (internal error), which a client "
                    "shows as a server failure",
                    level=Level.WARNING,
                    kind=FailureKind.RPC_ERROR,
                    rule="mcp/refusal-code",
                    fix="refuse with -32602 (invalid params) or -32002 (resource not found): "
                    "TypeScript `throw new McpError(ErrorCode.InvalidParams, ...)`",
                ),
            ),
        )
    result = outcome.result or {}
    if check == Check.GET:
        findings = check_prompt_result(result, protocol_version=protocol_version)
    else:
        uri = str(outcome.request.get("params", {}).get("uri", ""))
        findings = check_read_result(result, uri, protocol_version=protocol_version)
    errors = [f for f in findings if f.level is Level.ERROR]
    warnings = tuple(f for f in findings if f.level is not Level.ERROR)
    if not errors:
        broken = call_finding(check, outcome, protocol_version)
        errors = [broken] if broken is not None else []
    in_words = None
    if not errors and not must_succeed:
        in_words = judge_success_result(_as_text_result(result), outcome.arguments)
    disguised = (str(in_words.kind), in_words.evidence) if in_words is not None else None
    return Judged(
        errors[0] if errors else None,
        refused=disguised is not None,
        warnings=warnings,
        disguised=disguised,
    )


def _as_text_result(result: Mapping[str, Any]) -> dict[str, Any]:
    """A read's contents or a get's messages as the text blocks of a tool result, for
    ``judge_success_result``: a template or prompt that answers "Failed to fetch ..." or
    ``{"error": "note 7 not found"}`` refused, in words (mcp-server-fetch's prompt says a
    failed fetch so, by design)."""
    texts = []
    for item in result.get("contents") or result.get("messages") or ():
        if isinstance(item, Mapping):
            block = item.get("content", item)
            if isinstance(block, Mapping) and isinstance(block.get("text"), str):
                texts.append({"type": "text", "text": block["text"]})
    return {"content": texts}


# -- a listed resource -------------------------------------------------------------------------


def run_read(server: ManagedServer, resource: Entry, budget: Budget) -> ContentRun:
    """Read a listed resource; it must succeed. One that holds JSON is read until its shape
    rests on ESTABLISHED reads (contracts/infer), so that its content contract can hold a
    member as always present: a resource takes no input, and a later read may still differ
    (a status document, a feed)."""
    from pytest_mcp_contracts.contracts.infer import ESTABLISHED

    run = ContentRun()
    subject = _EntryCalls(
        server,
        resource,
        Check.READ,
        lambda _, limit: read_resource(server, resource.key, {"uri": resource.key}, limit),
        run,
        must_succeed=True,
    )
    reads = [Given({"uri": resource.key}, as_sent=REQUEST_LABEL)] * ESTABLISHED
    search = Engine(server, subject, dataclasses.replace(budget, max_examples=0)).search(
        reads, None
    )
    run.stats.phase_seconds.update(search.phase_seconds)
    if search.found is not None and search.calls > 1:
        search.found.notes.append(f"(read {search.calls} of the resource; the earlier ones passed)")
    run.failure = _search_failure(server, resource, search)
    return run


def read_resource(
    server: ManagedServer, uri: str, arguments: dict[str, Any], limit: float | None = None
) -> CallOutcome:
    """One ``resources/read``; ``arguments`` are what the URI was made of (a template's
    values, or the URI itself), for the report and the shrinker; ``limit`` caps its time
    below the usual timeouts (the check's time budget)."""
    return server.request(
        "resources/read", {"uri": uri}, subject=uri, arguments=arguments, limit=limit
    )


# -- templates and prompts: generated values ----------------------------------------------------


@dataclass(frozen=True)
class ContentTarget:
    """What a generated run calls: the entry, its synthetic schema, and how one input
    becomes a request."""

    entry: Entry
    check: str
    schema: dict[str, Any]
    send: Callable[[dict[str, Any], float | None], CallOutcome]  # an input, a time limit


def template_target(server: ManagedServer, template: Entry) -> ContentTarget:
    def send(values: dict[str, Any], limit: float | None) -> CallOutcome:
        # A value that makes an invalid URI is still sent: the server must refuse it.
        return read_resource(server, expand(template.key, values), values, limit)

    return ContentTarget(template, Check.READ, template_schema(template.key), send)


def prompt_target(server: ManagedServer, prompt: Entry) -> ContentTarget:
    def send(arguments: dict[str, Any], limit: float | None) -> CallOutcome:
        params = {"name": prompt.key, "arguments": arguments}
        return server.request(
            "prompts/get", params, subject=prompt.key, arguments=arguments, limit=limit
        )

    return ContentTarget(prompt, Check.GET, prompt_schema(prompt.raw.get("arguments")), send)


@dataclass
class _EntryCalls:
    """A resource's, template's or prompt's requests as the engine's subject: each answer
    judged by ``judge_answer`` and counted in the entry's ``ContentRun``. A resource that
    holds no JSON is read once: there is no content contract to learn."""

    server: ManagedServer
    entry: Entry
    check: str
    request: Callable[[dict[str, Any], float | None], CallOutcome]
    run: ContentRun
    must_succeed: bool = False

    @property
    def key(self) -> str:
        return f"{self.server.command.display}::{self.entry.node}"

    def send(self, arguments: dict[str, Any], limit: float | None) -> Sent:
        return Sent(self.request(arguments, limit))

    def count(self, outcome: CallOutcome) -> None:
        self.run.stats.count_call(outcome)

    def judge(self, sent: Sent, *, shrinking: bool) -> Judgement:
        outcome = sent.outcome
        judged = judge_answer(
            outcome, self.server.protocol_version, check=self.check, must_succeed=self.must_succeed
        )
        self.run.take(outcome, judged)
        if judged.finding is not None:
            return Judgement(judged.finding)
        if self.must_succeed and read_observable(outcome.result or {}) is None:
            raise StopCalling  # no JSON: no content contract to learn from more reads
        return Judgement()


def run_generated(
    server: ManagedServer,
    subject: ContentTarget,
    budget: Budget,
    known: Sequence[dict[str, str]] = (),
    *,
    coverage: bool = True,
) -> ContentRun:
    """Call the subject with the known inputs, the coverage phase's and random ones through
    the engine (``runs/engine``); the first failure ends the run, shrunk to the smallest
    input that fails the same way."""
    from pytest_mcp_contracts.inputs.coverage import coverage_budget, random_share
    from pytest_mcp_contracts.inputs.generate import coverage_plan, input_strategy

    run = ContentRun()
    max_examples = max(1, min(budget.max_examples, LISTED_MAX_EXAMPLES))
    plan: CoveragePlan | None = (
        coverage_plan(subject.schema, coverage_budget(max_examples)) if coverage else None
    )
    corners = [item.arguments for item in plan.inputs] if plan is not None else []
    given = [Given(dict(values)) for values in known] + [Given(values) for values in corners]
    calls = _EntryCalls(server, subject.entry, subject.check, subject.send, run)
    spend = dataclasses.replace(budget, max_examples=random_share(max_examples, len(corners)))
    search = Engine(server, calls, spend).search(given, input_strategy(subject.schema), plan)
    run.stats.phase_seconds.update(search.phase_seconds)
    run.failure = _search_failure(server, subject.entry, search)
    run.note_unreached(subject.entry)
    return run


def _search_failure(server: ManagedServer, entry: Entry, search: Search) -> ContractFailure | None:
    """The entry's failure that the engine's search came to, or None."""
    if search.gone is not None:
        return unavailable(server, entry, search.gone)
    found = search.found
    if found is None:
        return None
    label = found.label or SMALLEST_LABEL
    failure = call_failure(
        server, entry, found.outcome, found.finding, notes=found.notes, label=label
    )
    if search.first is not None and found.outcome is not search.first:
        failure.first_outcome = search.first
    return failure


# -- the missing-argument probe ----------------------------------------------------------------


def probe_missing_arguments(
    server: ManagedServer, prompt: Entry, run: ContentRun
) -> ContractFailure | None:
    """Get the prompt without each of its required arguments in turn (the others given
    "a"): the spec asks for -32602. Any error that shows no crash is a refusal (the Python
    SDK answers -32603 from its own argument check: a refusal all the same); a crash fails;
    a success is a warning, since a prompt may have a fallback for what it calls required."""
    names = required_arguments(prompt.raw.get("arguments"))
    subject = prompt_target(server, prompt)
    for name in names[:MAX_MISSING_PROBES]:
        arguments = {other: "a" for other in names if other != name}
        try:
            outcome = subject.send(arguments, None)
        except ServerError as exc:
            return unavailable(server, prompt, exc)
        judged = judge_answer(outcome, server.protocol_version, check=Check.GET)
        run.count(outcome, judged)
        finding = judged.finding
        if finding is not None and finding.kind is not FailureKind.MALFORMED_RESULT:
            message = f"without its required argument {name!r}: {finding.message}"
            failure = call_failure(
                server,
                prompt,
                outcome,
                dataclasses.replace(finding, message=message),
                label=REQUEST_LABEL,
            )
            failure.replay_problem = finding.problem
            return failure
        if outcome.result is not None:
            run.notes.append(
                f"prompts/get without the required argument {name!r} succeeded; the spec "
                "asks a server to refuse it with JSON-RPC error -32602 (invalid params), and "
                "a client relies on 'required' to know what to ask its user for"
            )
    return None


# -- known values ------------------------------------------------------------------------------


def known_inputs(
    server: ManagedServer,
    entry: Entry,
    names: Sequence[str],
    required: Sequence[str],
    resources: Sequence[str] = (),
) -> list[dict[str, str]]:
    """Inputs made of values the server knows: a template's variables mined from listed
    resource URIs it matches; then values ``completion/complete`` offers (only when the
    server declares the ``completions`` capability), else those its description names
    (``status: open / done``); then each of those inputs again with its id-like variables or
    arguments (``resourceId``, ``page``) set to "1": ids are mostly numbers, and a string
    strategy seldom draws one (server-everything's dynamic resources and its resource-prompt
    were never served without it). At most MAX_KNOWN_INPUTS."""
    found: list[dict[str, str]] = []
    if entry.kind == "template":
        found += mined_values(entry.key, resources)
    # The server's own completions win over what its description says.
    offered = {**_described(entry, names), **_completions(server, entry, names)}
    if offered:
        base = dict(found[0]) if found else dict.fromkeys(required, "a")
        for n in range(max(len(values) for values in offered.values())):
            inputs = dict(base)
            for name, values in offered.items():
                inputs[name] = values[n % len(values)]
            if inputs not in found:
                found.append(inputs)
    numbered = {name: "1" for name in names if _ID_LIKE.search(name) and name not in offered}
    if numbered:
        # Each known input followed by its numbered twin, so that the cap keeps pairs.
        paired: list[dict[str, str]] = []
        for inputs in found or [dict.fromkeys(required, "a")]:
            for candidate in (*([inputs] if found else []), {**inputs, **numbered}):
                if candidate not in paired:
                    paired.append(candidate)
        found = paired
    return found[:MAX_KNOWN_INPUTS]


def _described(entry: Entry, names: Sequence[str]) -> dict[str, list[str]]:
    """The values descriptions name for each variable or argument: a prompt argument's own
    description, else the entry's description where it speaks of the name."""
    own: dict[str, Any] = {}
    if entry.kind == "prompt":
        for argument in entry.raw.get("arguments") or ():
            if isinstance(argument, Mapping) and isinstance(argument.get("name"), str):
                own[argument["name"]] = argument.get("description")
    found = {}
    for name in names:
        values = described_values(own.get(name)) or described_values(
            entry.raw.get("description"), name
        )
        if values:
            found[name] = values
    return found


def _completions(server: ManagedServer, entry: Entry, names: Sequence[str]) -> dict[str, list[str]]:
    """The values completion/complete offers for each name: for the prefix "", then for the
    first letter of the first value offered (or "a"). Its errors are not judged here."""
    capabilities = server.surface.capabilities if server.surface else {}
    if "completions" not in capabilities:
        return {}
    ref = (
        {"type": "ref/resource", "uri": entry.key}
        if entry.kind == "template"
        else {"type": "ref/prompt", "name": entry.key}
    )
    offered: dict[str, list[str]] = {}
    for name in names[:MAX_COMPLETED_NAMES]:
        values: list[str] = []
        for prefix in ("", None):
            value = prefix if prefix is not None else (values[0][:1] if values else "a")
            params = {"ref": ref, "argument": {"name": name, "value": value}}
            try:
                outcome = server.request("completion/complete", params, subject=entry.key)
            except ServerError:
                return offered
            completion = (outcome.result or {}).get("completion")
            listed = completion.get("values") if isinstance(completion, Mapping) else None
            for item in listed if isinstance(listed, list) else []:
                if isinstance(item, str) and item not in values:
                    values.append(item)
        if values:
            offered[name] = values[:MAX_COMPLETION_VALUES]
    return offered


# -- failures ----------------------------------------------------------------------------------


def content_drift_finding(
    check: str, drift: Sequence[Change], arguments: Mapping[str, Any], hint: str
) -> Finding | None:
    """A result's drift from its entry's recorded content contract (contracts/content), as
    the finding that fails its read or get; None without drift."""
    if not drift:
        return None
    return Finding(
        check,
        f"the content drifted from the recorded contract: {drift[0]}",
        details=(
            *(str(change) for change in drift),
            f"for the arguments {short_json(arguments)}",
            hint,
        ),
        kind=FailureKind.OUTPUT_DRIFT,
    )


def replay_request(
    server: ManagedServer, error: ContractFailure, fresh: Callable[[], None]
) -> ContractFailure:
    """``error`` with what sending its request again alone on a fresh server showed, and
    the ``mcp-contracts call`` command that sends it (``reproduce.replay_alone``)."""
    from pytest_mcp_contracts.runs.reproduce import replay_alone

    outcome, report = error.outcome, error.report
    if outcome is None:
        return error
    listed = report.check == Check.READ and outcome.arguments.keys() == {"uri"}
    must_succeed = listed and outcome.arguments["uri"] == report.tool

    def problem_of(answer: CallOutcome) -> Finding | None:
        protocol, check = server.protocol_version, report.check
        return judge_answer(answer, protocol, check=check, must_succeed=must_succeed).finding

    problem = error.replay_problem or report.problem
    report.notes = [*report.notes, replay_alone(server, outcome, problem_of, fresh, problem)]
    report.replay_command = request_command(server, outcome)
    return error


def request_command(server: ManagedServer, outcome: CallOutcome) -> str:
    """The ``mcp-contracts call`` command that sends a read or a get again."""
    import shlex

    params = dict(outcome.request.get("params") or {})
    words = ["mcp-contracts", "call", *server.command.call_flags]
    if outcome.method == "resources/read":
        words += ["--read", str(params.get("uri", ""))]
    else:
        arguments = json.dumps(params.get("arguments") or {}, ensure_ascii=False, sort_keys=True)
        words += ["--prompt", str(params.get("name", "")), "--arguments", arguments]
    return shlex.join(words)
