"""Reproductions that reproduce: a failing call replayed on a freshly started server.

A failure that depends on what earlier calls left behind (a counter pushed past a limit, an
item stored by another tool) passes when its one ``tools/call`` line is sent to a fresh
server. So before a ``contract`` or ``rejects_invalid`` failure is shown, its call is sent
again on a fresh server: alone first, then after the earlier calls made on the same server
process; the shortest prefix of those that still makes it fail is found by the sequences
shrinker (``sequence_shrink.shrink``), each attempt on a fresh server. The report then shows the
call alone, that sequence, or says plainly that nothing reproduced it.

A restarted server is fresh only when its state lived in its process: one that keeps it in a
file reads back what the run stored. Before a replay is called fresh, the files its server
could carry over (``transport/state``) are compared with what they were at its first start;
when some changed, the report says which, replays the calls its server process made before
the failing one, and says how to reset them (``--mcp-reset-command``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from pytest_mcp_contracts.judges.call import judge_invalid, judged
from pytest_mcp_contracts.judges.failures import (
    ContractFailure,
    FailureReport,
    Finding,
    call_command_line,
    same_problem_key,
)
from pytest_mcp_contracts.runs.sequences.calls import (
    Planned,
    SequenceFound,
    Sequencer,
    Step,
    handshake_of,
    real_result,
    replay_lines,
    step_lines,
    step_of,
)
from pytest_mcp_contracts.runs.sequences.shrink import shrink
from pytest_mcp_contracts.text import short_json

if TYPE_CHECKING:
    from pytest_mcp_contracts.inputs.sandbox import Sandbox
    from pytest_mcp_contracts.judges.lints import LintLevels
    from pytest_mcp_contracts.transport.discover import Entry
    from pytest_mcp_contracts.transport.managed import CallOutcome, ManagedServer, PastCall
    from pytest_mcp_contracts.transport.state import Carried

# Each attempt restarts the server (about a second for a Python server): at most this many,
# and none started after REPLAY_SECONDS.
REPLAY_ATTEMPTS: Final = 20
REPLAY_SECONDS: Final = 60.0

# What is wrong with one call's answer, as the failing check judges it (None: nothing).
ProblemOf = Callable[["CallOutcome"], Finding | None]


@dataclass
class Reproduction:
    """How a failure replayed on a fresh server: ``steps`` end with the failing call (the
    call alone, or after the earlier calls it needs); None when nothing reproduced it."""

    steps: list[Step] | None
    earlier: int  # earlier calls of the server process that were tried in front of it
    notes: list[str] = field(default_factory=list)
    replayed: bool = True  # False: no fresh server could be had
    # The restarted servers read back state the run left (transport/state): no replay was on
    # a fresh server. ``calls`` are then the calls before the failing one and it, to replay.
    carried: Carried | None = None
    calls: list[tuple[str, dict[str, Any]]] | None = None

    def apply(self, server: ManagedServer, report: FailureReport) -> None:
        """Put what the replay showed into the failure's report."""
        report.notes = [*report.notes, *self.notes]
        if self.calls is not None:
            report.earlier_calls = ()  # the replay command holds them
            report.replay_command = call_command_line(server.command, self.calls)
            return
        if self.steps is None:  # the call as it was made, to try by hand
            report.replay_command = call_command_line(
                server.command, [(report.tool, report.arguments)]
            )
            return
        report.earlier_calls = ()  # the reproduction says which earlier calls matter
        calls = [(step.tool, step.arguments) for step in self.steps]
        report.replay_command = call_command_line(server.command, calls)
        if len(self.steps) > 1:
            report.sequence = step_lines(self.steps)
            report.replay = replay_lines(self.steps, handshake_of(server))
            report.replay_from = "a freshly started server"


class _Replayer(Sequencer):
    """A Sequencer whose replays judge only the failing call, as its own check judges it:
    the calls before it are what they were in the run (invalid inputs included), not
    verdicts to stop at."""

    def __init__(
        self,
        server: ManagedServer,
        tools: Mapping[str, Entry],
        target: int,
        problem_of: ProblemOf,
        invalid: frozenset[int],
    ) -> None:
        super().__init__(server, tools, {})
        self.target = target
        self.problem_of = problem_of
        self.invalid = invalid

    def call(
        self, planned: Planned, index: int
    ) -> tuple[Step, Finding | None, dict[str, Any] | None]:
        outcome = self.server.call(
            planned.tool, planned.arguments, invalid=planned.index in self.invalid
        )
        finding = self.problem_of(outcome) if planned.index == self.target else None
        return step_of(planned, index, outcome), finding, real_result(outcome)


def _position(calls: Sequence[PastCall], tool: str, arguments: dict[str, Any]) -> int | None:
    for index in range(len(calls) - 1, -1, -1):
        if calls[index].tool == tool and calls[index].arguments == arguments:
            return index
    return None


def reproduce(
    server: ManagedServer,
    tool: Entry,
    failing: CallOutcome,
    problem_of: ProblemOf,
    fresh: Callable[[], None],
    *,
    invalid: bool = False,
    fresh_possible: bool = True,
) -> Reproduction | None:
    """Replay ``failing`` on fresh servers (``fresh``: the reset command, then a restart),
    alone and then after the earlier calls of its server process; None when the failure is
    not one of a single call's answer (drift, a tool that always refuses). ``invalid``: the
    call was sent by rejects_invalid. ``fresh_possible`` False: no fresh server can be had
    (a URL's server, an in-process app's module), so nothing is replayed."""
    first = problem_of(failing)
    if first is None:
        return None
    message = first.headline
    if not fresh_possible:
        return Reproduction(
            None,
            0,
            [
                "(not replayed: no fresh server can be started for "
                f"{server.command.restart_caveat}, so whether this call fails alone or only after "
                "earlier calls is not known; --mcp-reset-command can reset its state)"
            ],
            replayed=False,
        )
    past = list(server.recent_calls)
    position = _position(past, tool.name, failing.arguments)
    earlier = past[:position] if position is not None else []
    tools = {t.name: t for t in (server.surface.tools if server.surface else [tool])}
    earlier = [call for call in earlier if call.tool in tools]
    target = len(earlier)
    plan = [Planned(i, call.tool, call.arguments) for i, call in enumerate(earlier)]
    plan.append(Planned(target, tool.name, failing.arguments))
    marked = {i for i, call in enumerate(earlier) if call.invalid} | (
        {target} if invalid else set()
    )
    replayer = _Replayer(
        server,
        {name: tools[name] for name in {p.tool for p in plan}},
        target,
        problem_of,
        frozenset(marked),
    )
    replayer.history = [(planned, None) for planned in plan]
    started = time.monotonic()
    fresh()
    carried = server.carried_state()
    steps, finding = replayer.replay(plan[-1:])
    if finding is not None and finding.problem == same_problem_key(message):
        if carried is not None:
            return _not_fresh(plan, earlier, position, carried)
        return Reproduction(steps, 0, ["(it fails alone on a freshly started server too)"])
    found = _after_earlier(
        replayer, plan, failing, earlier, position, first, fresh, marked, started
    )
    if carried is not None:
        found.carried = carried
        found.notes.append(
            f"(the restarted servers it was replayed on were not fresh: {carried.words()})"
        )
    return found


def _not_fresh(
    plan: list[Planned], earlier: list[PastCall], position: int | None, carried: Carried
) -> Reproduction:
    """The failing call failed again alone on a restarted server that read back state the
    run left: not shown to fail on a fresh one. The calls its server process made before it
    are the ones known to have stored that state: the replay command sends them first."""
    if earlier:
        made = (
            f"the command below replays {_calls(len(earlier), 'the')} its server "
            "process made before it, then it (calls of its earlier processes in the run, "
            "which the files kept too, are not known)"
        )
    elif position is not None:
        made = (
            "its server process made no call before it; calls of its earlier processes in the "
            "run did, and they are not known"
        )
    else:
        made = "the calls before it are not known: its server process was restarted since"
    note = (
        "(it failed again alone on a restarted server, but that server was not fresh, so "
        f"whether it fails alone is not known: {carried.words()}. The calls that "
        f"stored that state: {made})"
    )
    calls = [(p.tool, p.arguments) for p in plan]
    return Reproduction(None, len(earlier), [note], carried=carried, calls=calls)


def alone(
    server: ManagedServer,
    tool: Entry,
    failing: CallOutcome,
    problem_of: ProblemOf,
    fresh: Callable[[], None],
    message: str,
) -> list[Step] | None:
    """``failing``'s call alone on a fresh server: its step when it fails as ``message``
    says (measurements aside), else None."""
    planned = Planned(0, tool.name, failing.arguments)
    replayer = _Replayer(server, {tool.name: tool}, 0, problem_of, frozenset())
    replayer.history = [(planned, None)]
    fresh()
    steps, finding = replayer.replay([planned])
    if finding is not None and finding.problem == same_problem_key(message):
        return steps
    return None


def _after_earlier(
    replayer: _Replayer,
    plan: list[Planned],
    failing: CallOutcome,
    earlier: list[PastCall],
    position: int | None,
    first: Finding,
    fresh: Callable[[], None],
    marked: set[int],
    started: float,
) -> Reproduction:
    """The failing call (last of ``plan``) after the earlier calls of its server process,
    shrunk to those it needs; or the plain word that nothing reproduced it."""
    if not earlier:
        why = (
            "and no earlier call was made on its server process"
            if position is not None
            else "and the calls before it are not known: its server process was restarted since"
        )
        return Reproduction(
            None,
            0,
            [
                f"(did not fail again on a freshly started server, {why}: "
                "it may depend on timing or outside state)"
            ],
        )
    found = SequenceFound(0, [step_of(p, p.index, failing) for p in plan], first)
    shrunk = shrink(
        replayer,
        found,
        fresh,
        lambda _name: None,  # the calls as they were made: their inputs are the state
        budget=REPLAY_ATTEMPTS - 1,
        seconds=REPLAY_SECONDS - (time.monotonic() - started),
    )
    if not shrunk.from_fresh:
        return Reproduction(
            None,
            len(earlier),
            [
                "(did not fail again on a freshly started server, alone or after the "
                f"{len(earlier)} earlier calls of its server process: it may depend on timing "
                "or outside state)"
            ],
        )
    needed = len(shrunk.steps) - 1
    notes = [
        f"(it does not fail alone on a freshly started server; it fails there after "
        f"{_calls(needed, 'the')} before it above: what is left of the {len(earlier)} calls "
        "made before it on its server process once the shrinker dropped those it could)",
    ]
    sent_invalid = [n for n, step in enumerate(shrunk.steps[:-1], 1) if step.index in marked]
    if sent_invalid:
        numbers = ", ".join(str(n) for n in sent_invalid)
        notes.append(
            f"(call {numbers}: an invalid input, sent by rejects_invalid; a tool that took it "
            "may have stored it)"
        )
    notes += shrunk.notes
    return Reproduction(shrunk.steps, len(earlier), notes)


def replay_failure(
    server: ManagedServer,
    tool: Entry,
    error: ContractFailure,
    fresh: Callable[[], None],
    *,
    warn_only: frozenset[str],
    fresh_possible: bool,
    lints: LintLevels | None = None,
) -> ContractFailure:
    """``error`` (of the contract or rejects_invalid check) with what replaying its call on
    fresh servers showed: the call alone, the earlier calls it needs, or that nothing
    reproduced it. The replays are not counted in the run's numbers."""
    from pytest_mcp_contracts.transport.errors import ServerError

    outcome, report = error.outcome, error.report
    if outcome is None:
        return error
    protocol = server.protocol_version
    invalid = report.check == "rejects_invalid"

    def problem_of(answer: CallOutcome) -> Finding | None:
        if invalid:
            return judge_invalid(answer, tool.name, protocol)
        return judged(tool, answer, protocol, warn_only, lints)[0]

    judged_again = problem_of(outcome)
    if judged_again is None or judged_again.headline != report.problem:
        return error  # not a verdict on this call's answer alone (drift)
    why_not = None
    try:
        with server.uncounted():
            reproduction = reproduce(
                server,
                tool,
                outcome,
                problem_of,
                fresh,
                invalid=invalid,
                fresh_possible=fresh_possible,
            )
        first = error.first_outcome
        if (
            reproduction is not None
            and reproduction.replayed
            and reproduction.steps is None
            and reproduction.carried is None  # a retry would be on no fresher server
            and first is not None
        ):
            # Shrinking may have walked up to a limit (a time or a memory cap) that the
            # smallest input only just crossed: the first input that failed may fail again.
            with server.uncounted():
                steps = alone(server, tool, first, problem_of, fresh, report.problem)
            if steps is not None:
                shrunk = short_json(report.arguments)
                report.arguments = first.arguments
                report.request_json = first.request_json()
                report.input_label = "input (the first that failed; the smallest did not again):"
                reproduction = Reproduction(
                    steps,
                    0,
                    [
                        f"(the smallest input found, {shrunk}, did not fail again on a freshly "
                        "started server; this one, the first that failed, does: the failure "
                        "lies near a limit, a time or a memory cap, that the smaller one only "
                        "just crossed)"
                    ],
                )
    except ContractFailure as reset_failed:  # --mcp-reset-command failed: it says why
        why_not = reset_failed.report.problem
    except ServerError as exc:
        why_not = f"a fresh server did not start: {exc.message}"
    if why_not is not None:
        report.notes = [*report.notes, f"(not replayed: {why_not})"]
    elif reproduction is not None:
        reproduction.apply(server, report)
    return error


def _calls(count: int, article: str) -> str:
    return f"{article} call" if count == 1 else f"{article} {count} calls"


def replay_alone(
    server: ManagedServer,
    failing: CallOutcome,
    problem_of: ProblemOf,
    fresh: Callable[[], None],
    problem: str,
) -> str:
    """``failing``'s request (any method: a read, a get) sent again alone on a fresh server,
    uncounted; the note for its report. Reads and gets change no state by the spec, so no
    earlier call is replayed before it."""
    from pytest_mcp_contracts.transport.errors import ServerError

    params = {k: v for k, v in dict(failing.request.get("params") or {}).items() if k != "_meta"}
    try:
        with server.uncounted():
            fresh()
            carried = server.carried_state()
            again = server.request(
                failing.method,
                params,
                subject=failing.client.tool,
                arguments=failing.arguments,
            )
    except ContractFailure as reset_failed:  # --mcp-reset-command failed: it says why
        return f"(not replayed: {reset_failed.report.problem})"
    except ServerError as exc:
        return f"(not replayed: a fresh server did not start: {exc.message})"
    finding = problem_of(again)
    failed = finding is not None and finding.problem == same_problem_key(problem)
    said = finding.headline if finding is not None else "no failure"
    if carried is not None:
        how = "it failed the same way" if failed else f"it did not fail the same way: {said}"
        return (
            f"(replayed alone on a restarted server, {how}; but that server was not fresh: "
            f"{carried.words()})"
        )
    where = server.command.fresh_start
    if failed:
        return f"(replayed alone on {where}: it failed the same way)"
    return f"(replayed alone on {where}, it did not fail the same way: {said})"


def note_sandbox(error: ContractFailure, sandbox: Sandbox | None) -> ContractFailure:
    """Say where a failing input's paths point: the sandbox is gone after the run, unless a
    failure's input uses it (then it is kept, and the replay command offers it as its root)."""
    import shlex

    from pytest_mcp_contracts.inputs.sandbox import uses_sandbox

    arguments = error.report.arguments
    if sandbox is None or not isinstance(arguments, dict):
        return error
    if uses_sandbox(arguments, sandbox.paths.all):
        held = "a copy of --mcp-roots" if sandbox.source else "the built-in sample files"
        sandbox.kept = True
        error.report.notes.append(
            f"(its paths lie in the run's roots sandbox {sandbox.root}, which held "
            f"{held}: the folder is left after the run, laid afresh, so that the replay "
            "can offer it as its root with --roots)"
        )
        command = error.report.replay_command
        if command:
            flag = shlex.quote(f"--roots={sandbox.root}")
            error.report.replay_command = command.replace(
                "mcp-contracts call ", f"mcp-contracts call {flag} ", 1
            )
    return error
