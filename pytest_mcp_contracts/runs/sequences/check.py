"""The sequences check: chains of calls in which values from earlier outputs feed later inputs.

A lookup or an update takes an id that only a create makes: alone such a tool answers "not
found" on every call and its contract goes unexercised. Here a run is a sequence of calls
whose inputs are fed from earlier outputs (``runs/sequences/feeding``), made and judged by a
``Sequencer`` that hypothesis drives (``runs/sequences/calls``); a failing sequence is shrunk to
the shortest that still shows it, on fresh servers (``runs/sequences/shrink``).
``check_sequences`` runs all of it for one server.

One finding does not end the search: a failure met again on the same tool (same kind, same
exception type) is counted, and a failing call is a refusal for chaining, so the sequences
go on to the deeper failures a shallow one stood in front of. Each distinct failure is
shrunk to its own shortest sequence (at most ``MAX_SHRUNK``), and the item's one failure
shows them all, the first met first.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from pytest_mcp_contracts.judges.failures import (
    USER_STRATEGY_REFUSED,
    ContractFailure,
    FailureKind,
    FailureReport,
    combined_failure,
)
from pytest_mcp_contracts.runs.engine import Budget
from pytest_mcp_contracts.runs.sequences.calls import (
    BadUserStrategy,
    KnownFailure,
    SequenceFound,
    Sequencer,
    SequenceStats,
    generate_sequences,
    handshake_of,
    replay_lines,
    sequence_tools,
    step_lines,
)
from pytest_mcp_contracts.runs.sequences.shrink import ShrunkSequence, shrink
from pytest_mcp_contracts.runs.stats import CheckStats
from pytest_mcp_contracts.vocabulary import Check

if TYPE_CHECKING:
    from pytest_mcp_contracts.inputs.sandbox import SandboxPaths
    from pytest_mcp_contracts.transport.discover import Entry
    from pytest_mcp_contracts.transport.managed import ManagedServer


def sequence_failure(server: ManagedServer, tool: Entry, shrunk: ShrunkSequence) -> ContractFailure:
    """The ContractFailure of a failing sequence: each call and its answer, and the lines
    that replay it."""
    handshake = handshake_of(server)
    steps, finding = shrunk.steps, shrunk.finding
    return ContractFailure(
        FailureReport.for_tool(
            server,
            tool.name,
            Check.SEQUENCES.value,
            f"{finding.headline} (call {len(steps)} of a sequence)",
            finding.kind,
            details=finding.all_details,
            arguments=steps[-1].arguments,
            sequence=step_lines(steps),
            replay=replay_lines(steps, handshake),
            replay_from=server.command.fresh_start if shrunk.from_fresh else "the server",
            notes=shrunk.notes,
            earlier_calls=step_lines(shrunk.earlier),
            stderr_tail=server.stderr_tail(),
            call_stderr=steps[-1].stderr,
            stderr_before=steps[-1].stderr_before,
        )
    )


SEQUENCE_STEPS: Final = 20  # calls per sequence at most
# Sequences in a row that reach nothing new before the check stops drawing more: on
# notes_store (seeds 1 to 5), create -> update -> read showed up within the first 6.
SEQUENCE_PATIENCE: Final = 5
# The same when no tool takes an id-like value (no slot to feed): nothing can flow from one
# call to the next, so a new sequence can only reach a tool or an answer (real or isError)
# not met before, which the first sequences' random calls reach as the contract check's do.
# The sequences still interleave the tools on one server state (counter_state's bug).
UNFED_PATIENCE: Final = 2
SHRINK_ATTEMPTS: Final = 30  # replays of a failing sequence while shrinking it: a restart each
# Distinct failures shrunk and reported at most: each costs up to SHRINK_ATTEMPTS restarts.
MAX_SHRUNK: Final = 3
_NOT_RESET: Final = (
    "(a restart did not reset this server's state (an --mcp-url server, or an --mcp-app "
    "module), and no --mcp-reset-command is set: the sequence may rely on what earlier calls "
    "of the run stored)"
)


@dataclass
class SequencesPlan:
    """What a server's sequences may call: the tools, an input strategy for each, why each
    other tool is left out; and the run's numbers, filled in as it goes."""

    sequencer: Sequencer
    strategies: dict[str, Any]
    left_out: list[str]

    @property
    def stats(self) -> SequenceStats:
        return self.sequencer.stats

    def summary_lines(self) -> list[str]:
        met = [
            f"{tool}: {kind}{f' ({exception})' if exception else ''}, {known.count}x"
            for (tool, kind, exception), known in self.sequencer.failures.items()
        ]
        return [
            self.stats.summary(),
            *([f"failures met: {'; '.join(met)}"] if met else []),
            *(f"not called: {why}" for why in self.left_out),
        ]


def plan_sequences(
    server: ManagedServer,
    refusal: Callable[[Entry], str | None],
    warn_only: Callable[[Entry], frozenset[str]],
    sandbox: SandboxPaths | None,
    tally: CheckStats,
    given: Callable[[Entry], tuple[Any, list[dict[str, Any]]]] = lambda _: (None, []),
) -> SequencesPlan | str:
    """The tools a server's sequences may call and their strategies; or, when no tool can
    be called, why not. The sequences' calls are counted in ``tally``, each under the tool
    it called.

    ``given`` says what the user gave a tool, as its contract check gets it: the
    ``pytest_mcp_tool_strategy`` strategies, and the examples its inputSchema accepts. The
    examples are drawn beside generated inputs, and first when hypothesis looks for the
    simplest input (the realistic values they are reach a tool's real data)."""
    from hypothesis import strategies as st

    from pytest_mcp_contracts.inputs.generate import input_strategy
    from pytest_mcp_contracts.inputs.input_schema import GenerationError
    from pytest_mcp_contracts.inputs.user_strategies import UserStrategyError

    surface = server.surface
    assert surface is not None
    tools, left_out = sequence_tools(surface.tools, refusal)
    argv = tuple(getattr(server.command, "argv", ()))
    strategies = {}
    for tool in list(tools):
        try:
            # The paths the tool's contract check draws: its kinds, then the server's folders.
            own = None if sandbox is None else sandbox.for_listed_tool(tool, argv)
            user, examples = given(tool)
            generated = input_strategy(tool.input_schema, user, sandbox=own)
        except UserStrategyError as exc:
            tools.remove(tool)
            left_out.append(f"{tool.name}: {str(exc).splitlines()[0]}")
            continue
        except GenerationError as exc:
            tools.remove(tool)
            left_out.append(f"{tool.name}: no inputs can be generated ({exc.pointer})")
            continue
        strategies[tool.name] = (
            st.one_of(st.sampled_from(examples), generated) if examples else generated
        )
    if not tools:
        return f"no tool can be called ({'; '.join(left_out)})"
    sequencer = Sequencer(
        server,
        {tool.name: tool for tool in tools},
        {tool.name: warn_only(tool) for tool in tools},
        SequenceStats(tally=tally),
    )
    return SequencesPlan(sequencer, strategies, left_out)


def check_sequences(
    plan: SequencesPlan,
    fresh: Callable[[], None],
    simplest: Callable[[Any], dict[str, Any] | None],
    budget: Budget,
    *,
    resets: bool,
) -> None:
    """Run the sequences of ``plan`` from a fresh server (``fresh``: the sandbox laid anew,
    the reset command, a restart) and raise one ContractFailure for every distinct failure
    they met, each shrunk to its shortest sequence, the first met as the headline.
    ``simplest`` gives a strategy's simplest input; ``resets``: a restart or the reset
    command resets the server's state. The ``budget``: as many sequences as half its
    examples, its time (--mcp-sequences-time), and its restarts: the sequences stop once
    failing calls killed or hung the server that many times."""
    sequencer, strategies = plan.sequencer, plan.strategies
    server = sequencer.server
    fresh()  # a restart between phases: sequences start from a clean state
    try:
        found = generate_sequences(
            sequencer,
            strategies,
            # Half as many sequences as a tool's inputs, each up to 20 calls: long enough for
            # a create to come before the lookups, about as many calls as a tool's contract
            # item.
            dataclasses.replace(budget, max_examples=max(budget.max_examples // 2, 1)),
            max_steps=SEQUENCE_STEPS,
            patience=SEQUENCE_PATIENCE if sequencer.feeds_any else UNFED_PATIENCE,
            max_failures=MAX_SHRUNK,
        )
    except BadUserStrategy as exc:
        raise ContractFailure(
            FailureReport.for_tool(
                server,
                exc.tool,
                Check.SEQUENCES.value,
                USER_STRATEGY_REFUSED,
                FailureKind.SETUP,
                details=(str(exc.error),),
            )
        ) from None
    if found is None:
        return
    errors = []
    for known in list(sequencer.failures.values())[:MAX_SHRUNK]:
        # Each attempt on a fresh server; the items after this one (it is the server's
        # first) get the server back alive if the last attempt crashed it, without a
        # restart to count.
        with server.uncounted():
            shrunk = _shrunk(sequencer, known.found, fresh, lambda name: simplest(strategies[name]))
        error = sequence_failure(server, sequencer.tools[shrunk.steps[-1].tool], shrunk)
        error.report.notes.extend(_repeats(known))
        if not resets:
            error.report.notes.append(_NOT_RESET)
        errors.append(error)
    raise combined_failure(errors)


def _shrunk(
    sequencer: Sequencer,
    found: SequenceFound,
    fresh: Callable[[], None],
    simplest: Callable[[str], dict[str, Any] | None],
) -> ShrunkSequence:
    """``found`` shrunk on fresh servers; as it was met when no fresh server starts."""
    from pytest_mcp_contracts.transport.errors import ServerError

    try:
        return shrink(sequencer, found, fresh, simplest, budget=SHRINK_ATTEMPTS)
    except ServerError as exc:
        note = f"(not shrunk: a fresh server did not start: {exc.message}; the calls as sent)"
        return ShrunkSequence(found.steps, found.finding, from_fresh=False, notes=[note])


def _repeats(known: KnownFailure) -> list[str]:
    if known.count == 1:
        return []
    return [
        f"(the sequences met this failure {known.count} times; after the first, each was "
        "counted and passed as a refusal, and the search went on)"
    ]
