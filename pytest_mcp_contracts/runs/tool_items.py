"""The calling checks of one tool as its items run them: ``contract``, ``rejects_invalid``,
``security`` and ``latency``.

Each takes the server's ``RunContext`` and makes every decision its item used to: whether the
tool is called at all, its strategy, examples and coverage plan, the recorder's start and
finish, the replay of a failure on a fresh server, and the verdicts around the calls (a
contract missing in CI, invalid inputs accepted: a failure or a warning). A failure is raised
as ``ContractFailure``; a skip as ``context.Skipped``; warnings go through ``warn``; numbers,
user properties and report sections into ``ItemFacts``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from pytest_mcp_contracts.judges.failures import ContractFailure, FailureKind, entry_failure
from pytest_mcp_contracts.runs.context import (
    ItemFacts,
    RunContext,
    Skipped,
    Warn,
)
from pytest_mcp_contracts.runs.stats import CheckStats, ToolStats
from pytest_mcp_contracts.runs.watch import replay_watched
from pytest_mcp_contracts.text import short_json, shown
from pytest_mcp_contracts.vocabulary import Check, RejectsInvalidMode, SecurityMode

if TYPE_CHECKING:
    from pytest_mcp_contracts.contracts.observe import EntryObservations
    from pytest_mcp_contracts.inputs.coverage import CoveragePlan
    from pytest_mcp_contracts.inputs.sandbox import SandboxPaths
    from pytest_mcp_contracts.runs.context import InputCache
    from pytest_mcp_contracts.runs.contract import ContractStats
    from pytest_mcp_contracts.runs.rejects_invalid import Refusals
    from pytest_mcp_contracts.runs.watch import Watch
    from pytest_mcp_contracts.transport.discover import Entry

# The failures a watch finds (runs/watch): replayed watched, not by their answer.
WRITE_KINDS = frozenset({FailureKind.BROKEN_ANNOTATION, FailureKind.PATH_TRAVERSAL})


def check_contract(context: RunContext, tool: Entry, facts: ItemFacts, warn: Warn) -> None:
    """Generated inputs, real calls, every result checked against the declared or the
    recorded contract; what was learned goes to the recorder when the check passes."""
    from pytest_mcp_contracts.contracts.snapshot import SnapshotError
    from pytest_mcp_contracts.inputs.coverage import coverage_line
    from pytest_mcp_contracts.runs.contract import run_contract

    server, settings, check = context.server, context.settings, Check.CONTRACT.value
    tool_config = context.callable_settings(tool)
    if tool.malformed:
        raise entry_failure(
            server,
            tool,
            check,
            "the tool cannot be called: its listing entry is malformed (see its schema check)",
            kind=FailureKind.INVALID_LISTING,
        )
    recorder = context.recorder
    try:
        observations = recorder.start(server.node_name, tool)
    except SnapshotError as exc:
        raise entry_failure(server, tool, check, exc.render()) from None
    run = None
    plan = None
    passed = False
    facts.stats = CheckStats(uses_sandbox=context.sandbox_test())
    tally = facts.stats.tool(tool.name)
    try:
        plan, inputs = _contract_inputs(context, tool, check, warn)
        watch = context.watch(tool, check)
        run = run_contract(
            server,
            tool,
            **inputs,
            observations=observations,
            drift_hint=context.drift_hint,
            warn_only=tool_config.warn_only,
            tally=tally,
            lints=settings.lint_levels,
            in_flight=settings.in_flight,
            watch=watch,
        )
        context.timed[tool.name] = run.stats.timed
        if run.failure is not None:
            raise replayed(context, tool, check, run.failure, watch, tally)
        warn_watched(watch, warn)
        _report(context, tool, run.stats, observations, facts, warn)  # -W error raises here
        missing = missing_record(context, tool, has_record=observations.has_record)
        if missing is not None:
            raise missing
        _gate_latency(context, tool, tally.latencies_ms, warn)
        passed = True
    finally:
        # Only a check that passed teaches the recorder an output contract.
        recorder.finish(context.surface, server.node_name, observations, passed=passed)
        if plan is not None:
            # No run: the check failed before it, or it raised an error of ours; no call is
            # known to have been sent.
            sent = run.stats.distinct_inputs if run is not None else set()
            timed_out = run is not None and run.stats.out_of_time is not None
            stopped_by = "the tool's time budget" if timed_out else "a failure"
            report = plan.report(lambda arguments: repr(arguments) in sent, stopped_by)
            tally.input_coverage = report
            facts.section("mcp coverage", coverage_line(report))


def _gate_latency(context: RunContext, tool: Entry, latencies_ms: list[float], warn: Warn) -> None:
    """The drift gate's latency record of a passing contract check: its answered calls' p50
    and p95, when there are as many as a latency limit is judged over (--mcp-latency-calls);
    a p95 grown well past the recorded one is a warning, never a failure."""
    from pytest_mcp_contracts.contracts.latency import LatencyRecord
    from pytest_mcp_contracts.judges.drift_gate import gate_latency
    from pytest_mcp_contracts.runs.stats import latency_figures

    figures = latency_figures(latencies_ms)
    current = None
    if figures is not None and len(latencies_ms) >= context.settings.latency_calls:
        current = LatencyRecord.measured(len(latencies_ms), figures["p50"], figures["p95"])
    server = context.server.node_name
    note = gate_latency(
        context.recorder, server, context.surface, tool, current, accept=context.accept_command
    )
    if note is not None:
        warn(note)


def _contract_inputs(
    context: RunContext, tool: Entry, check: str, warn: Warn
) -> tuple[CoveragePlan, dict[str, Any]]:
    """What the contract check sends a tool (``run_contract``'s inputs and budget): the
    configured and schema examples first, then the coverage phase, then random inputs."""
    from pytest_mcp_contracts.inputs.coverage import random_share
    from pytest_mcp_contracts.inputs.generate import input_strategy
    from pytest_mcp_contracts.inputs.input_schema import GenerationError
    from pytest_mcp_contracts.inputs.user_strategies import UserStrategyError

    server, settings = context.server, context.settings
    tool_config = context.tool_settings(tool)
    user = _user_strategies(context, tool, check)
    sandbox = context.laid_sandbox(tool)
    try:
        strategy = input_strategy(tool.input_schema, user, sandbox=sandbox)
    except UserStrategyError as exc:
        raise entry_failure(
            server, tool, check, "pytest_mcp_tool_strategy cannot be used here", (str(exc),)
        ) from None
    except GenerationError as exc:
        raise entry_failure(
            server,
            tool,
            check,
            f"no inputs can be generated from the inputSchema at {shown(exc.pointer, 120)}",
            (str(exc),),
        ) from None
    max_examples = tool_config.max_examples or settings.max_examples
    plan = coverage_plan(tool, max_examples, settings.coverage, user is not None, sandbox)
    return plan, {
        "repeat": settings.repeat,
        "strategy": strategy,
        "examples": _examples(context, tool, check, warn),
        "configured": len(tool_config.examples),
        "coverage": plan,
        "budget": context.budget(
            max_examples=random_share(max_examples, len(plan.inputs)),
            tool_time=settings.time_budget(tool_config),
        ),
    }


#: How many of the slowest inputs a latency failure shows.
SLOWEST_SHOWN: Final = 5


def check_latency(context: RunContext, tool: Entry, facts: ItemFacts, warn: Warn) -> None:
    """The p95 of the tool's answered contract calls against its limit (--mcp-max-p95-ms,
    max_p95_ms): the contract item's calls when it ran in this process before (it does
    whenever both items run in one process, in collection order); else (deselected, or
    under xdist on another worker) this item sends the contract's inputs itself, timed and
    not judged: the contract item judges its answers."""
    from pytest_mcp_contracts.runs.contract import run_contract
    from pytest_mcp_contracts.runs.stats import percentile

    server, settings, check = context.server, context.settings, Check.LATENCY.value
    tool_config = context.callable_settings(tool)
    limit = settings.latency_limit(tool_config)
    assert limit is not None  # the item is collected only for a tool with a limit
    timed = context.timed.get(tool.name)
    own = ""
    if timed is None:
        _, inputs = _contract_inputs(context, tool, check, warn)
        # Its failures are the contract item's to find and shrink: none is shrunk here.
        inputs["budget"] = dataclasses.replace(inputs["budget"], shrink_time=0.0)
        # A ToolStats of its own, on no report: the contract item counts the tool's calls.
        timed = run_contract(server, tool, **inputs, in_flight=settings.in_flight).stats.timed
        own = " (timed by this item: the contract item did not run in this process)"
    if len(timed) < settings.latency_calls:
        raise Skipped(
            f"{len(timed)} answered calls, fewer than the {settings.latency_calls} a p95 is "
            f"judged over (--mcp-latency-calls){own}"
        )
    p95 = round(percentile([ms for ms, _ in timed], 95), 1)
    facts.section(
        "mcp latency",
        f"p95 {p95:g} ms of {len(timed)} answered calls, limit {limit:g} ms{own}",
    )
    if p95 <= limit:
        return
    slowest = sorted(timed, key=lambda pair: -pair[0])[:SLOWEST_SHOWN]
    raise entry_failure(
        server,
        tool,
        check,
        f"p95 latency {p95:g} ms is above the limit of {limit:g} ms, over {len(timed)} "
        f"answered calls{own}",
        (
            "the slowest inputs:",
            *(f"  {round(ms, 1):g} ms: {short_json(arguments)}" for ms, arguments in slowest),
            "limit: --mcp-max-p95-ms, or max_p95_ms under [tool.mcp-contracts.tools.<name>]",
        ),
        kind=FailureKind.SLOW,
    )


def _say_whose_folders(context: RunContext, tool: Entry, folders: list[Path], warn: Warn) -> None:
    """Once per server: path escapes are laid beside the run's own roots folder only, so a
    server kept to a folder of the user's is not probed for escapes beside it; the
    placeholder {roots} in its command puts the run's folder in its place."""
    from pytest_mcp_contracts.inputs.probes import probed
    from pytest_mcp_contracts.inputs.sandbox import path_kind

    roots = context.sandbox.root if context.sandbox is not None else None
    properties = tool.input_schema.get("properties")
    paths = [
        name
        for name in probed(tool.input_schema)
        if isinstance(properties, dict) and path_kind(name, properties[name]) is not None
    ]
    if not folders or roots in folders or not paths or "whose-folders" in context.said:
        return
    context.said.add("whose-folders")
    warn(
        f"path escapes beside {', '.join(map(str, folders))} are not probed: the run lays "
        "files only beside a folder it owns. Put {roots} in the server's command in place "
        "of the folder to probe them (docs/security.md)"
    )


def warn_watched(watch: Watch | None, warn: Warn) -> None:
    """What the watch found under --mcp-security=warn, as warnings, and a change it could
    tell to no one call."""
    if watch is None:
        return
    for finding in watch.warned:
        warn(f"{finding.message} (--mcp-security=warn): {'; '.join(finding.details)}")
    if watch.unattributed:
        warn(
            "files changed while the tool's explicit inputs were in flight together "
            "(--mcp-in-flight), in a way its annotations or the server's boundary rule out; "
            "sent again one at a time, no single call did it. Run with --mcp-in-flight=1 to "
            "see which call does (docs/security.md)"
        )


def missing_record(context: RunContext, tool: Entry, *, has_record: bool) -> ContractFailure | None:
    """In CI, a tool must have its contract recorded: none is written there."""
    recorder = context.recorder
    if not recorder.missing_in_ci(has_record):
        return None
    path = recorder.path(context.server.node_name, tool.node_name)
    return entry_failure(
        context.server,
        tool,
        Check.CONTRACT.value,
        f"no contract is recorded for this tool ({path}), and CI is set, so none is written",
        (f"record it locally with: {context.record_command}  and commit the file",),
        FailureKind.MISSING_RECORD,
    )


def coverage_plan(
    tool: Entry, max_examples: int, enabled: bool, user: bool, sandbox: SandboxPaths | None
) -> CoveragePlan:
    """The coverage phase's inputs, or an empty plan saying why there are none."""
    from pytest_mcp_contracts.inputs.coverage import CoveragePlan, coverage_budget
    from pytest_mcp_contracts.inputs.generate import coverage_plan as plan_for
    from pytest_mcp_contracts.inputs.input_schema import GenerationError

    if not enabled:
        return CoveragePlan(note="the coverage phase is off (--mcp-coverage=off)")
    if user:
        return CoveragePlan(note="inputs come from pytest_mcp_tool_strategy")
    try:
        budget = coverage_budget(max_examples)
        return plan_for(tool.input_schema, budget, sandbox=sandbox)
    except GenerationError as exc:  # input_strategy said it already; say why here
        return CoveragePlan(note=f"no coverage inputs: {str(exc).splitlines()[0]}")


def _report(
    context: RunContext,
    tool: Entry,
    stats: ContractStats,
    observations: EntryObservations,
    facts: ItemFacts,
    warn: Warn,
) -> None:
    facts.properties.append(("mcp_calls", stats.calls))
    facts.properties.append(("mcp_error_results", stats.error_results))
    # A plain str: user_properties cross to an xdist controller, and execnet refuses enums.
    facts.properties.append(("mcp_output_quality", str(observations.quality)))
    facts.section("mcp", stats.summary())
    from pytest_mcp_contracts.runs.contract import error_result_notes
    from pytest_mcp_contracts.runs.engine import budget_words
    from pytest_mcp_contracts.runs.sequences.feeding import ways_to_reach

    sequences = context.settings.sequences
    ways = ways_to_reach(tool, context.surface.tools, sequences=sequences)
    notes = observations.warnings() + error_result_notes(tool, stats, ways)
    if stats.out_of_time is not None:
        notes.append(budget_words(stats.out_of_time, stats.calls, stats.planned))
    if stats.unstable:
        from pytest_mcp_contracts.runs.repeat import unstable_words

        notes.append(unstable_words(stats.unstable, stats.tally.repeated_inputs))
    for note in notes:
        warn(note)
    for finding, arguments in stats.lint_warnings.values():
        warn(
            f"{finding.headline}, e.g. for the input {short_json(arguments)}; fix: {finding.fix}",
            lint=True,
        )


def check_rejects_invalid(context: RunContext, tool: Entry, facts: ItemFacts, warn: Warn) -> None:
    """Inputs the inputSchema refuses must be refused (isError or -32602), and must never
    crash, hang or break the server. Every input is sent past a failing one, and each
    distinct failure is replayed and shown with its own input."""
    from pytest_mcp_contracts.inputs.invalid import invalid_inputs
    from pytest_mcp_contracts.runs.rejects_invalid import run_rejects_invalid

    server, settings, check = context.server, context.settings, Check.REJECTS_INVALID.value
    tool_config = context.callable_settings(tool)
    mode = tool_config.rejects_invalid or settings.rejects_invalid
    if mode == RejectsInvalidMode.OFF:
        raise Skipped("--mcp-rejects-invalid=off")
    if tool.malformed:
        raise Skipped("the listing entry is malformed (see its schema check)")
    base = valid_input(context, tool)
    cases = invalid_inputs(tool.input_schema, base)
    if not cases:
        raise Skipped(
            "no input is certainly invalid: the inputSchema requires, types and constrains "
            "nothing that a mutation of a valid input could break"
        )
    facts.stats = CheckStats(uses_sandbox=context.sandbox_test())
    refusals = run_rejects_invalid(
        server,
        tool,
        cases,
        context.budget(max_examples=0, tool_time=settings.time_budget(tool_config)),
        facts.stats.tool(tool.name),
    )
    facts.properties.append(("mcp_invalid_sent", refusals.sent))
    facts.properties.append(("mcp_invalid_accepted", len(refusals.accepted)))
    facts.properties.append(("mcp_invalid_coerced", len(refusals.coerced)))
    facts.section("mcp", refusals.summary())
    # Each distinct failure replayed on a fresh server before it is shown, so that each
    # keeps a reproduction of its own; the first met is the check's headline.
    tally = facts.stats.tool(tool.name)
    failures = [
        replayed(context, tool, check, failure, tally=tally) for failure in refusals.failures
    ]
    notes = []
    if refusals.out_of_time is not None:
        from pytest_mcp_contracts.runs.engine import budget_words

        budget, planned = refusals.out_of_time, refusals.planned
        notes.append(budget_words(budget, refusals.sent, planned, "invalid inputs"))
    accepted = accepts_invalid(context, tool, refusals, mode)
    if isinstance(accepted, ContractFailure):
        failures.append(accepted)
    elif accepted is not None:
        notes.append(accepted)
    try:
        for note in notes:
            warn(note)
    finally:
        # A warning made an error (-W error) does not hide the failures.
        if failures:
            from pytest_mcp_contracts.judges.failures import combined_failure

            raise combined_failure(failures)


def check_security(context: RunContext, tool: Entry, facts: ItemFacts, warn: Warn) -> None:
    """Probes that prove a break by evidence the run laid (``runs/security``): a proven one
    fails the item (``--mcp-security=on``) or warns (``warn``), replayed alone on a fresh
    server."""
    from pytest_mcp_contracts.inputs.probes import (
        EscapeSpace,
        Listener,
        boundary_folders,
        listened,
        probes,
    )
    from pytest_mcp_contracts.runs.security import run_security

    server, settings, canaries = context.server, context.settings, context.canaries
    if canaries is None:
        raise Skipped("--mcp-security=off")
    tool_config = context.callable_settings(tool)
    if tool.malformed:
        raise Skipped("the listing entry is malformed (see its schema check)")
    description = str(tool.raw.get("description") or "")
    command = server.command
    # The folders the server was given on its command line or in the environment its
    # command sets: path-like arguments point into them, so that a probe reaches the code.
    folders = boundary_folders(getattr(command, "argv", ()), getattr(command, "env", {}))
    base = valid_input(context, tool, Check.SECURITY)  # lays the roots sandbox
    escapes = None if context.sandbox is None else EscapeSpace(context.sandbox.root)
    _say_whose_folders(context, tool, folders, warn)

    def fresh() -> None:
        context.fresh(Check.SECURITY)  # lays the sandbox anew, without the links
        if escapes is not None:
            escapes.links()

    listener = Listener() if listened(tool.input_schema, tool.annotations) else None
    try:
        if escapes is not None:
            escapes.lay()
        planned = list(
            probes(
                tool.name,
                description,
                tool.input_schema,
                base,
                canaries,
                folders,
                escapes,
                listener,
            )
        )
        if not planned:
            raise Skipped("not probed: the tool says it runs code or commands by design")
        budget = context.budget(max_examples=0, tool_time=settings.time_budget(tool_config))
        watch = context.watch(tool, Check.SECURITY, escapes.laid() if escapes else (), tidy=True)
        again = fresh if context.fresh_possible else None
        run = run_security(server, tool, planned, budget, again, watch)
        # No call of a probe is counted (they are no valid inputs): only where its time went.
        facts.stats = CheckStats()
        facts.stats.tool(tool.name).phase_seconds.update(run.phase_seconds)
        warn_watched(watch, warn)
    finally:
        if escapes is not None:
            escapes.remove()
        if listener is not None:
            listener.close()
    facts.properties.append(("mcp_probes_sent", run.sent))
    found = "evidence found" if run.failure is not None else "no evidence"
    facts.section("mcp", f"security: {run.sent} of {run.planned} probes sent, {found}")
    for argument in sorted(run.unbounded):
        warn(
            f"{argument}: the plain outside path the run laid was served: the tool reads or "
            "writes anywhere, and has no boundary for a path probe to escape"
        )
    if run.out_of_time:
        from pytest_mcp_contracts.runs.engine import budget_words

        warn(budget_words(budget.stop_time or 0.0, run.sent, run.planned, "probes"))
    if run.failure is None:
        return
    canaries.kept = True  # the reproduction writes into it again
    if settings.security == SecurityMode.WARN:
        report = run.failure.report
        warn(f"{report.problem} (--mcp-security=warn): {report.details[0]}")
        return
    raise run.failure


def accepts_invalid(
    context: RunContext, tool: Entry, refusals: Refusals, mode: str
) -> ContractFailure | str | None:
    """The verdict on the invalid inputs the tool took as valid: a failure under
    ``--mcp-rejects-invalid=fail``, the words of a warning under ``warn``, None when it
    refused them all."""
    from pytest_mcp_contracts.runs.rejects_invalid import HOW_TO_REFUSE, accepted_lines

    if not refusals.accepted:
        return None
    problem = (
        f"accepts invalid input: {len(refusals.accepted)} of {refusals.sent} inputs the "
        "inputSchema refuses returned a success result"
    )
    lines = tuple(accepted_lines(refusals.accepted))
    if mode == RejectsInvalidMode.FAIL:
        return entry_failure(
            context.server,
            tool,
            Check.REJECTS_INVALID.value,
            problem,
            (*lines, HOW_TO_REFUSE),
            FailureKind.ACCEPTS_INVALID,
        )
    return f"{problem} (first: {lines[0]}); --mcp-rejects-invalid=fail makes this a failure"


def valid_input(
    context: RunContext, tool: Entry, check: str = Check.REJECTS_INVALID
) -> dict[str, Any]:
    """The valid input ``check`` starts from (rejects_invalid derives invalid ones from it,
    security probes one argument at a time): a configured or schema example when there is
    one, else a small generated input with as many properties as it gets; Skipped when there
    is none."""
    from hypothesis.errors import HypothesisException

    from pytest_mcp_contracts.inputs.examples import simplest_example
    from pytest_mcp_contracts.inputs.generate import input_strategy
    from pytest_mcp_contracts.inputs.input_schema import GenerationError

    try:
        user = _user_strategies(context, tool, check)
        sandbox = context.laid_sandbox(tool)
        strategy = input_strategy(tool.input_schema, user, sandbox=sandbox)
        examples = _examples(context, tool, check)
        if examples:
            return examples[0]
        # Without the user's strategies, the schema alone makes this input, and hypothesis
        # finds the same one on every run (derandomized, then shrunk): it is remembered,
        # unless it names a sandbox path.
        sandboxed = sandbox.all if sandbox is not None else frozenset()
        remembered = (
            RememberedInput(context.cache, tool.input_schema, sandboxed, context.version)
            if user is None
            else None
        )
        if remembered is not None and remembered.value is not None:
            return remembered.value
        declared = tool.input_schema.get("properties")
        wanted = set(declared) if isinstance(declared, dict) else set()
        try:
            found: dict[str, Any] = simplest_example(strategy, lambda v: wanted <= v.keys())
        except HypothesisException:  # no input has every property at once
            found = simplest_example(strategy)
        if remembered is not None:
            remembered.keep(found)
        return found
    except (GenerationError, HypothesisException) as exc:
        raise Skipped(
            f"no valid input to start from (see the contract check): {str(exc).splitlines()[0]}"
        ) from None


class RememberedInput:
    """The simplest valid input of an inputSchema, kept across runs in ``cache`` (pytest's
    ``.pytest_cache``; none with ``-p no:cacheprovider``): by the schema's content and the
    versions that find it, and used only while the schema still accepts it."""

    _DIRECTORY = "mcp-contracts/simplest-input"

    def __init__(
        self,
        cache: InputCache | None,
        schema: dict[str, Any],
        sandboxed: frozenset[str],
        version: str,  # the plugin's
    ) -> None:
        import hashlib

        import hypothesis

        self.cache = cache
        self.schema = schema
        self.sandboxed = sandboxed  # a path in the sandbox is this run's, not the next one's
        # A run with a sandbox finds another input (a real file) than one without: an input
        # kept by a run without one (a bare "a" for a path) is not for a run with one.
        text = json.dumps(
            [schema, bool(sandboxed), hypothesis.__version__, version], sort_keys=True
        )
        digest = hashlib.sha256(text.encode()).hexdigest()[:32]
        self.key = f"{self._DIRECTORY}/{digest}"
        self.value = self._read()

    def _read(self) -> dict[str, Any] | None:
        if self.cache is None:
            return None
        from pytest_mcp_contracts.schema.dialects import validator_for_schema

        value = self.cache.get(self.key, None)
        if not isinstance(value, dict) or not validator_for_schema(self.schema).is_valid(value):
            return None
        return None if self._in_sandbox(value) else value

    def _in_sandbox(self, value: dict[str, Any]) -> bool:
        from pytest_mcp_contracts.inputs.sandbox import uses_sandbox

        return uses_sandbox(value, self.sandboxed)

    def keep(self, value: dict[str, Any]) -> None:
        import contextlib

        if self.cache is None or self._in_sandbox(value):
            return
        with contextlib.suppress(TypeError, ValueError):  # not JSON: not kept
            self.cache.set(self.key, value)


def replayed(
    context: RunContext,
    tool: Entry,
    check: str,
    error: ContractFailure,
    watch: Watch | None = None,
    tally: ToolStats | None = None,
) -> ContractFailure:
    """``error`` with what replaying its call on a fresh server showed (runs/reproduce; a
    write its ``watch`` found: runs/watch), and where its input's paths point (the sandbox
    kept for a replay); the time it took goes to ``tally``'s replay phase."""
    with tally.timed("replay") if tally is not None else contextlib.nullcontext():
        return _replayed(context, tool, check, error, watch)


def _replayed(
    context: RunContext,
    tool: Entry,
    check: str,
    error: ContractFailure,
    watch: Watch | None,
) -> ContractFailure:
    from pytest_mcp_contracts.runs.reproduce import note_sandbox, replay_failure

    server = context.server
    if watch is not None and error.outcome is not None and error.report.kind in WRITE_KINDS:
        if context.fresh_possible:
            note = replay_watched(
                server, tool, error.outcome.arguments, watch, lambda: context.fresh(check)
            )
            error.report.notes.append(note)
        return note_sandbox(error, context.sandbox)
    error = replay_failure(
        server,
        tool,
        error,
        lambda: context.fresh(check),
        warn_only=context.tool_settings(tool).warn_only,
        fresh_possible=context.fresh_possible,
        lints=context.lints,
    )
    return note_sandbox(error, context.sandbox)


def _user_strategies(context: RunContext, tool: Entry, check: str) -> Any:
    from pytest_mcp_contracts.inputs.user_strategies import UserStrategyError

    try:
        return context.user_strategies(tool)
    except UserStrategyError as exc:
        raise entry_failure(context.server, tool, check, str(exc)) from None


def _examples(
    context: RunContext, tool: Entry, check: str, warn: Warn | None = None
) -> list[dict[str, Any]]:
    """Inputs that run before generated ones: the configured examples (which must be
    valid), then the schema's own `examples` and `default`s (left out, with a warning
    through ``warn``, when the schema refuses them)."""
    given = context.given(tool)
    if given.refused_configured is not None:
        number, example, why = given.refused_configured
        raise entry_failure(
            context.server,
            tool,
            check,
            f"configured example {number} is not valid for the inputSchema",
            (f"{example!r}: {why}", "fix it under [tool.mcp-contracts.tools]"),
        )
    if warn is not None:  # said by the contract check alone, once per tool
        for example in given.refused_from_schema:
            warn(
                f"the input {example!r}, from the inputSchema's own examples or defaults, "
                "is not valid for it; it was not sent"
            )
    return given.inputs
