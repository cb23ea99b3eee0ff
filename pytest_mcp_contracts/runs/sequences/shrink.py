"""Shrinking a failing sequence: replayed on fresh servers, the calls of earlier sequences it
needs put in front, then calls dropped and inputs simplified while it still fails.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pytest_mcp_contracts.runs.sequences.calls import Planned, SequenceFound, Sequencer, Step
from pytest_mcp_contracts.runs.sequences.feeding import mine

if TYPE_CHECKING:
    from pytest_mcp_contracts.judges.failures import Finding


@dataclass
class ShrunkSequence:
    steps: list[Step]
    finding: Finding
    from_fresh: bool  # the steps are a replay on a freshly started server
    notes: list[str]
    earlier: list[Step] = field(default_factory=list)  # calls of earlier sequences it needed


def _leaves(value: Any) -> Iterator[str | int]:
    if isinstance(value, Mapping):
        for item in value.values():
            yield from _leaves(item)
    elif isinstance(value, list):
        for item in value:
            yield from _leaves(item)
    elif isinstance(value, (str, int)) and not isinstance(value, bool) and value != "":
        yield value


def earlier_calls(
    history: Sequence[tuple[Planned, dict[str, Any] | None]],
    start: int,
    failing: Sequence[Step],
    read_only: Callable[[str], bool],
) -> list[int]:
    """Calls of earlier sequences that may have changed the state the failing sequence ran
    in: those of tools not declared read-only that were sent, or returned, a value the
    failing sequence acted on (the create that made an id, an update sent it), and the calls
    their fed values came from."""
    made_before = {
        value for _, result in history[:start] if result is not None for _, value in mine(result)
    }
    wanted = {f.value for step in failing for f in step.fed}
    wanted |= {v for step in failing for v in _leaves(step.arguments) if v in made_before}
    needed = {f.origin.step for step in failing for f in step.fed if f.origin.step < start}
    for planned, result in history[:start]:
        if read_only(planned.tool):
            continue
        sent = set(_leaves(planned.arguments))
        made = {value for _, value in mine(result)} if result is not None else set()
        if wanted & (sent | made):
            needed.add(planned.index)
    queue = list(needed)
    while queue:  # and where their fed values came from
        for f in history[queue.pop()][0].feeds:
            if f.origin.step < start and f.origin.step not in needed:
                needed.add(f.origin.step)
                queue.append(f.origin.step)
    return sorted(needed)


def shrink(
    sequencer: Sequencer,
    found: SequenceFound,
    fresh: Callable[[], None],
    simplest: Callable[[str], dict[str, Any] | None],
    *,
    budget: int,
    seconds: float | None = None,
) -> ShrunkSequence:
    """The shortest sequence that still fails the same way, each attempt replayed on a
    freshly started server (``fresh``: the reset command, then a restart), so that what is
    reported fails from a fresh start. When the failing sequence alone does not fail there,
    the calls of earlier sequences that touched its values are put in front of it. Then calls
    are dropped one at a time (the newest first), and each input is replaced by its tool's
    simplest input. At most ``budget`` attempts (each costs a restart), and none started
    after ``seconds``.

    A replay goes past other failures (a known shallow one on the way to a deeper one), as
    the generation phase did: only the failure shrunk ends it."""
    target = (found.steps[-1].tool, found.finding.problem)

    def is_target(step: Step, finding: Finding) -> bool:
        return (step.tool, finding.problem) == target

    history = sequencer.history
    attempts = 0
    until = None if seconds is None else time.monotonic() + seconds

    def spent() -> bool:
        return attempts >= budget or (until is not None and time.monotonic() >= until)

    def fails(plan: list[Planned]) -> tuple[list[Step], Finding] | None:
        nonlocal attempts
        attempts += 1
        fresh()
        steps, finding = sequencer.replay(plan, until=is_target)
        if finding is not None and is_target(steps[-1], finding):
            return steps, finding
        return None

    own = [history[step.index][0] for step in found.steps]
    plan, first = own, fails(own)
    earlier: list[Step] = []

    def read_only(tool: str) -> bool:
        return sequencer.tools[tool].annotations.get("readOnlyHint") is True

    needed = earlier_calls(history, found.start, found.steps, read_only)
    if first is None and needed:
        with_earlier = [history[i][0] for i in needed] + own
        first = fails(with_earlier)
        plan = with_earlier
    if first is None:
        return ShrunkSequence(
            found.steps,
            found.finding,
            from_fresh=False,
            notes=[
                "(this sequence did not fail again on a freshly started server, alone or after "
                "the earlier calls that touched its values: the failure depends on other state "
                "left by earlier calls of the run; the lines below replay what was sent)"
            ],
            earlier=[_as_step(history[i]) for i in needed][-10:],
        )
    steps, finding = first
    plan = plan[: len(steps)]
    size = max((len(plan) - 1) // 2, 1)
    while not spent():
        # Drop blocks of calls before the failing one, the newest first, halving the block
        # size down to single calls (a long sequence needs few attempts).
        end = len(plan) - 1
        while end - size >= 0 and not spent():
            candidate = plan[: end - size] + plan[end:]
            again = fails(candidate)
            if again is not None:
                steps, finding = again
                plan = candidate[: len(steps)]
                end = min(end - size, len(plan) - 1)
            else:
                end -= 1 if size == 1 else size
        if size == 1:
            break
        size = max(size // 2, 1)
    for position, planned in enumerate(plan):
        if spent():
            break
        simple = simplest(planned.tool)
        if simple is None or simple == planned.arguments:
            continue
        replaced = Planned(planned.index, planned.tool, simple, planned.feeds)
        candidate = [*plan[:position], replaced, *plan[position + 1 :]]
        again = fails(candidate)
        if again is not None and len(again[0]) == len(candidate):
            (steps, finding), plan = again, candidate
    notes = []
    if attempts >= budget:
        notes.append(
            f"(not shrunk further: each attempt restarts the server, and the budget of "
            f"{budget} attempts is spent)"
        )
    elif spent():
        notes.append(f"(not shrunk further: each attempt restarts the server; {seconds:g} s spent)")
    return ShrunkSequence(steps, finding, from_fresh=True, notes=notes, earlier=earlier)


def _as_step(entry: tuple[Planned, dict[str, Any] | None]) -> Step:
    planned, result = entry
    summary = "ok" if result is not None else "isError or failed"
    return Step(planned.index, planned.tool, planned.arguments, planned.feeds, summary, {})
