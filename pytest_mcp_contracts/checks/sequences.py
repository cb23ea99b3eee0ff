"""The sequences check: chains of calls in which values from earlier outputs feed later inputs.

A lookup or an update takes an id that only a create makes: a random id never exists, so
alone such a tool answers "not found" on every call and its contract goes unexercised. Here a
run is a sequence of calls; the ids, names, paths, uris and keys found in each result's
structured content (or JSON text) go into a pool, and later inputs whose properties match
them by name and type take values from it (the idea of hypothesis's rule-based state machines
with bundles, and of tooltest's corpus mined from outputs). hypothesis drives the sequences,
so a bug reached by one is shrunk to the shortest sequence that still shows it.

The pure part (mining, matching, feeding) has no I/O; ``run_sequences`` does the calls.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from pytest_mcp_contracts.checks.classify import OutputKind, classify
from pytest_mcp_contracts.checks.stats import CheckStats, ToolStats

if TYPE_CHECKING:
    from pytest_mcp_contracts.checks.contract import ContractFailure
    from pytest_mcp_contracts.checks.listing import Finding
    from pytest_mcp_contracts.transport.discover import ToolSpec
    from pytest_mcp_contracts.transport.managed import CallOutcome, ManagedServer

# The names of values that identify something another tool can act on.
BASES: Final = ("id", "name", "path", "uri", "key")
POOL_LIMIT: Final = 64  # the newest values are kept: later steps act on what was just made
MINE_DEPTH: Final = 6
ITEM: Final = "[]"  # a path segment: every item of an array


def _normalized(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def base_of(name: str, *, plural: bool = False) -> str | None:
    """The identifying kind a property or output key names (``note_id`` -> ``id``,
    ``entityName`` -> ``name``; with ``plural``, ``entityNames`` -> ``name`` too), else None."""
    norm = _normalized(name)
    for base in BASES:
        if norm.endswith(base) or (plural and norm.endswith(base + "s")):
            return base
    return None


def names_match(key: str, prop: str, *, plural: bool = False) -> bool:
    """Whether a value found under output key ``key`` may feed input property ``prop``: the
    same name, or one of them is the bare kind (``id`` feeds ``note_id``, ``note_id`` feeds
    ``id``). ``plural``: ``prop`` names an array of them (``names``, ``note_ids``)."""
    base = base_of(key)
    if base is None or base_of(prop, plural=plural) != base:
        return False
    k, p = _normalized(key), _normalized(prop)
    if plural and not p.endswith(base):
        p = p[:-1]
    return k in (p, base) or p == base


@dataclass(frozen=True)
class Origin:
    """Where a value came from: the ``ordinal``-th value under ``key`` in the output of call
    ``step`` (its position in the run). A replay takes the value found there again, as a
    state machine's bundle reference would: ids a fresh server makes may differ."""

    step: int
    key: str
    ordinal: int


@dataclass(frozen=True)
class Mined:
    """A value found in a tool's output, under ``key``."""

    key: str
    value: str | int
    tool: str
    origin: Origin


def _walk(value: Any, key: str | None, depth: int) -> Iterator[tuple[str, str | int]]:
    if depth > MINE_DEPTH:
        return
    if isinstance(value, Mapping):
        for k in sorted(value, key=str):
            yield from _walk(value[k], str(k), depth + 1)
    elif isinstance(value, list):
        # "ids": [3, 4] holds ids; a list of objects holds whatever its objects hold.
        item_key = key[:-1] if key and key.endswith("s") and base_of(key[:-1]) else key
        for item in value:
            yield from _walk(item, item_key, depth + 1)
    elif key is not None and base_of(key) is not None:
        text = isinstance(value, str) and 0 < len(value) <= 500
        if text or (isinstance(value, int) and not isinstance(value, bool)):
            yield key, value


def mine(result: Mapping[str, Any]) -> list[tuple[str, str | int]]:
    """The identifying values a successful result holds: under keys named like BASES, in its
    structured content, else in JSON text; in a stable order, without repeats."""
    classified = classify(result)
    if classified.kind not in (OutputKind.STRUCTURED, OutputKind.JSON_TEXT, OutputKind.JSON_ITEMS):
        return []
    found: list[tuple[str, str | int]] = []
    seen: set[str] = set()
    for key, value in _walk(classified.value, None, 0):
        marker = json.dumps([key, value])
        if marker not in seen:
            seen.add(marker)
            found.append((key, value))
    return found


def mined_with_origins(step: int, result: Mapping[str, Any]) -> list[tuple[str, str | int, Origin]]:
    ordinals: dict[str, int] = {}
    out = []
    for key, value in mine(result):
        ordinal = ordinals.get(key, 0)
        ordinals[key] = ordinal + 1
        out.append((key, value, Origin(step, key, ordinal)))
    return out


def resolve(origin: Origin, outputs: Mapping[int, Mapping[str, Any]]) -> str | int | None:
    """The value at ``origin`` in the outputs of a replay, or None when that call is not part
    of it (or no longer returns it)."""
    result = outputs.get(origin.step)
    if result is None:
        return None
    for key, value, found in mined_with_origins(origin.step, result):
        if key == origin.key and found == origin:
            return value
    return None


@dataclass
class Pool:
    """What earlier calls of one sequence returned, newest last."""

    values: list[Mined] = field(default_factory=list)
    # The tools whose successful calls were sent or returned each value: a read after an
    # update of what a create made is another state than a read after the create alone.
    acted_on: dict[str | int, set[str]] = field(default_factory=dict)

    def add(self, step: int, tool: str, result: Mapping[str, Any]) -> None:
        for key, value, origin in mined_with_origins(step, result):
            # A value seen again (a listing shows what a create made) is fresh again, but
            # keeps its first origin: a replay finds it where it was made.
            first = next((m for m in self.values if (m.key, m.value) == (key, value)), None)
            if first is not None:
                self.values.remove(first)
            self.values.append(first or Mined(key, value, tool, origin))
        del self.values[:-POOL_LIMIT]

    def candidates(self, slot: Slot) -> list[Mined]:
        """Values that may fill ``slot``, newest first, each once."""
        out: list[Mined] = []
        for entry in reversed(self.values):
            if slot.accepts(entry) and all(entry.value != m.value for m in out):
                out.append(entry)
        return out


@dataclass(frozen=True)
class Slot:
    """A place in a tool's input that can take a mined value: a property (``path``, with
    ITEM for every item of an array) of one of ``types``."""

    path: tuple[str, ...]
    types: frozenset[str]  # empty: any

    @property
    def name(self) -> str:
        return next(p for p in reversed(self.path) if p != ITEM)

    def accepts(self, entry: Mined) -> bool:
        plural = self.path[-1] == ITEM
        if not names_match(entry.key, self.name, plural=plural):
            return False
        if not self.types:
            return True
        if isinstance(entry.value, str):
            return "string" in self.types
        return bool(self.types & {"integer", "number"})


def _types(schema: Mapping[str, Any]) -> frozenset[str]:
    declared = schema.get("type")
    if isinstance(declared, str):
        return frozenset([declared])
    if isinstance(declared, list):
        return frozenset(t for t in declared if isinstance(t, str))
    return frozenset()


_SCALARS: Final = frozenset({"string", "integer", "number"})


def feed_slots(schema: Any, path: tuple[str, ...] = (), depth: int = 0) -> list[Slot]:
    """The slots of an input schema whose names say they take an identifying value: string
    or integer properties (and arrays of them) named like BASES, also inside objects and
    arrays of objects. ``$ref``s are not followed: a value that misses is simply not fed."""
    if not isinstance(schema, Mapping) or depth > 4:
        return []
    properties = schema.get("properties")
    if not isinstance(properties, Mapping):
        return []
    slots = []
    for name, sub in properties.items():
        if not isinstance(sub, Mapping):
            continue
        types = _types(sub)
        here = (*path, str(name))
        if "array" in types and isinstance(sub.get("items"), Mapping):
            items = sub["items"]
            item_types = _types(items)
            if (item_types & _SCALARS or not item_types) and base_of(str(name), plural=True):
                slots.append(Slot((*here, ITEM), item_types & _SCALARS))
            slots += feed_slots(items, (*here, ITEM), depth + 1)
        elif "object" in types:
            slots += feed_slots(sub, here, depth + 1)
        elif (types & _SCALARS or not types) and base_of(str(name)):
            slots.append(Slot(here, types & _SCALARS))
    return slots


Location = tuple[str | int, ...]


def _locations(value: Any, path: tuple[str, ...], at: Location = ()) -> Iterator[Location]:
    """The concrete places (keys and array indices) ``path`` reaches in ``value``."""
    head, rest = path[0], path[1:]
    if head == ITEM:
        if isinstance(value, list):
            for index, item in enumerate(value):
                here = (*at, index)
                yield from [here] if not rest else _locations(item, rest, here)
    elif isinstance(value, dict) and head in value:
        here = (*at, head)
        yield from [here] if not rest else _locations(value[head], rest, here)


def _get(value: Any, location: Location) -> Any:
    for part in location:
        value = value[part]
    return value


def _set(value: Any, location: Location, new: Any) -> bool:
    """Put ``new`` at ``location`` if that place exists in ``value``."""
    for part in location[:-1]:
        if isinstance(part, int):
            if not isinstance(value, list) or part >= len(value):
                return False
        elif not isinstance(value, dict) or part not in value:
            return False
        value = value[part]
    last = location[-1]
    if isinstance(last, int):
        if not isinstance(value, list) or last >= len(value):
            return False
    elif not isinstance(value, dict) or last not in value:
        return False
    value[last] = new
    return True


def shown_location(location: Location) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in location).lstrip(".")


@dataclass(frozen=True)
class Fed:
    """A value put into an input: where, which value, and where it came from."""

    location: Location
    value: str | int
    origin: Origin


# A choice made for a slot: a value from the pool (by position: 0 is the newest candidate,
# larger ones wrap around) or None, keep the generated value.
Choice = int | None
Chooser = Callable[[Slot], Choice]


def feed(
    arguments: dict[str, Any],
    slots: Sequence[Slot],
    pool: Pool,
    choose: Chooser,
    valid: Callable[[dict[str, Any]], bool],
) -> tuple[dict[str, Any], list[Fed]]:
    """``arguments`` with pool values put into its slots as ``choose`` picks them. ``choose``
    is asked once for every place a slot reaches in the input, whatever the pool holds: the
    draws of a sequence then have the same shape on any server state, so that a seed gives
    the same run. A value that would make the input invalid for the schema is not put in."""
    fed: list[Fed] = []
    current = json.loads(json.dumps(arguments))
    for slot in slots:
        for location in list(_locations(current, slot.path)):
            pick = choose(slot)
            candidates = pool.candidates(slot)
            if pick is None or not candidates:
                continue
            entry = candidates[pick % len(candidates)]
            before = _get(current, location)
            _set(current, location, entry.value)
            if valid(current):
                fed.append(Fed(location, entry.value, entry.origin))
            else:
                _set(current, location, before)
    return current, fed


Names = dict[str | int, tuple[str | int, int]]


def renamed(before: Mapping[str, Any] | None, after: Mapping[str, Any], step: int) -> Names:
    """What a replayed call's output calls the things its first run's output named: the
    value under the same key at the same position (a fresh server's create makes the same
    note under another id), with the replayed call's position."""
    if before is None:
        return {}
    new = {(key, origin.ordinal): value for key, value, origin in mined_with_origins(0, after)}
    return {
        value: (new[(key, origin.ordinal)], step)
        for key, value, origin in mined_with_origins(0, before)
        if (key, origin.ordinal) in new
    }


def refeed(
    arguments: dict[str, Any],
    feeds: Sequence[Fed],
    outputs: Mapping[int, Mapping[str, Any]],
    valid: Callable[[dict[str, Any]], bool],
    names: Names | None = None,
) -> tuple[dict[str, Any], list[Fed]]:
    """A replayed call's input: each fed value under its new name (``names``: what the first
    call of the replay that returned it calls it now), else the value found at its origin in
    this replay's outputs, else as it was; as long as the input stays valid. The name comes
    first: a listing's n-th item is another thing once a create before it is dropped."""
    current = json.loads(json.dumps(arguments))
    fed = []
    for item in feeds:
        again, origin = None, item.origin
        if names and item.value in names:
            again, step = names[item.value]
            origin = Origin(step, origin.key, origin.ordinal)
        else:
            again = resolve(item.origin, outputs)
        value = item.value if again is None else again
        try:
            before = _get(current, item.location)
        except (KeyError, IndexError, TypeError):
            continue
        if _set(current, item.location, value) and not valid(current):
            _set(current, item.location, before)
        elif again is not None:
            fed.append(Fed(item.location, value, origin))
    return current, fed


# -- the sequence as it ran ---------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    """One call of a sequence: what it sent, what the pool gave it, what came back."""

    index: int  # the call's position in the run (what an Origin names)
    tool: str
    arguments: dict[str, Any]
    fed: tuple[Fed, ...]
    summary: str
    request: dict[str, Any]
    stderr: str | None = None  # what the server wrote while the call ran
    stderr_before: str = ""


def result_summary(outcome: CallOutcome, limit: int = 160) -> str:
    """A call's answer in one line: ok and its JSON, isError and its text, or the failure."""
    if outcome.failure is not None:
        return f"failed: {outcome.failure.message[:limit]}"
    if outcome.rpc_error is not None:
        return f"JSON-RPC error {outcome.rpc_error.code}: {outcome.rpc_error.message[:limit]}"
    result = outcome.result or {}
    texts = [
        str(block.get("text", ""))
        for block in (result.get("content") or [])
        if isinstance(block, Mapping) and block.get("type") == "text"
    ]
    if result.get("isError") is True:
        return "isError: " + (" ".join(texts).strip().replace("\n", " ")[:limit] or "(no text)")
    shown = result.get("structuredContent")
    text = json.dumps(shown, ensure_ascii=False, sort_keys=True) if shown is not None else ""
    text = text or " ".join(texts).strip().replace("\n", " ")
    return "ok: " + (text[:limit] + ("…" if len(text) > limit else "") if text else "(empty)")


def step_lines(steps: Sequence[Step]) -> list[str]:
    """The sequence as the failure report lists it, one call per line (and its answer)."""
    lines = []
    numbers = {step.index: number for number, step in enumerate(steps, 1)}
    for number, step in enumerate(steps, 1):
        args = json.dumps(step.arguments, ensure_ascii=False, sort_keys=True)
        if len(args) > 300:
            args = args[:300] + "…"
        sources = [
            f"{shown_location(f.location)} from call {numbers[f.origin.step]}"
            if f.origin.step in numbers
            else f"{shown_location(f.location)} from an earlier output"
            for f in step.fed
        ]
        fed = f"  ({', '.join(sources)})" if sources else ""
        lines += [f"{number}. {step.tool} {args}{fed}", f"   -> {step.summary}"]
    return lines


def replay_lines(steps: Sequence[Step], handshake: dict[str, Any] | None) -> list[str]:
    """The JSON-RPC lines that replay a sequence on a fresh server's stdin: the handshake
    (for a handshake-era server), then each tools/call, ids counting from 1."""
    lines = []
    number = 1
    if handshake is not None:
        lines.append(_line({"jsonrpc": "2.0", "id": number, **handshake}))
        lines.append(_line({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        number += 1
    for step in steps:
        lines.append(_line({"jsonrpc": "2.0", "id": number, **step.request}))
        number += 1
    return lines


def _line(message: Mapping[str, Any]) -> str:
    return json.dumps(message, ensure_ascii=False, separators=(",", ":"))


@dataclass
class SequenceStats:
    sequences: int = 0
    calls: int = 0
    fed_calls: int = 0  # calls that took at least one value from an earlier output
    real_results: dict[str, int] = field(default_factory=dict)  # by tool: success results
    # What the run has reached: (tool, answered for real, the tools that acted on its fed
    # values before it in the sequence). A sequence that adds none is no gain.
    reached: set[tuple[str, bool, frozenset[str]]] = field(default_factory=set)
    gained_at: int = 0  # the last sequence that reached something new
    stopped: str = ""  # why generation ended before its last sequence, if it did
    # The calls for the run report, each under the tool it called (shrinking's replays too).
    tally: CheckStats = field(default_factory=lambda: CheckStats())

    def summary(self) -> str:
        real = ", ".join(f"{t} {n}" for t, n in sorted(self.real_results.items()))
        stopped = f"; {self.stopped}" if self.stopped else ""
        return (
            f"{self.sequences} sequences, {self.calls} calls, {self.fed_calls} of them with "
            f"values from earlier outputs; real results by tool: {real or 'none'}{stopped}"
        )


def sequence_tools(
    tools: Sequence[ToolSpec], refusal: Callable[[ToolSpec], str | None]
) -> tuple[list[ToolSpec], list[str]]:
    """The tools a sequence may call (the call policy and the tool settings allow it, the
    listing entry is usable) and why each other one is left out."""
    usable, left_out = [], []
    for tool in tools:
        why = refusal(tool)
        if why is None and (tool.problems or not isinstance(tool.input_schema, dict)):
            why = "its listing entry is malformed"
        if why is None:
            usable.append(tool)
        else:
            left_out.append(f"{tool.name}: {why}")
    return usable, left_out


def real_result(outcome: CallOutcome, disguised: bool = False) -> dict[str, Any] | None:
    """The result of a call that answered for real (no isError, no failure, no error
    without isError: ``disguised``), else None."""
    real = outcome.failure is None and not outcome.is_error_result and not disguised
    return outcome.result if real else None


def step_of(planned: Planned, index: int, outcome: CallOutcome) -> Step:
    return Step(
        index,
        planned.tool,
        planned.arguments,
        planned.feeds,
        result_summary(outcome),
        outcome.request,
        outcome.stderr,
        outcome.stderr_before,
    )


@dataclass(frozen=True)
class Planned:
    """A call as it can be made again: its place in the run, the tool, the input as it was
    sent, and where its fed values came from."""

    index: int
    tool: str
    arguments: dict[str, Any]
    feeds: tuple[Fed, ...] = ()


@dataclass
class Sequencer:
    """Makes the calls of sequences against a server: feeds each input from the pool of the
    sequence's own earlier outputs, calls, judges, and keeps the run's history."""

    server: ManagedServer
    tools: Mapping[str, ToolSpec]
    warn_only: Mapping[str, frozenset[str]]
    stats: SequenceStats = field(default_factory=lambda: SequenceStats())
    history: list[tuple[Planned, dict[str, Any] | None]] = field(default_factory=list)

    def __post_init__(self) -> None:
        from pytest_mcp_contracts.schema.dialects import make_validator

        self.slots = {name: feed_slots(tool.input_schema) for name, tool in self.tools.items()}
        self.validators = {
            name: make_validator(tool.input_schema) for name, tool in self.tools.items()
        }

    def valid(self, tool: str) -> Callable[[dict[str, Any]], bool]:
        return self.validators[tool].is_valid

    def call(
        self, planned: Planned, index: int
    ) -> tuple[Step, Finding | None, dict[str, Any] | None]:
        """Call ``planned`` (its input already fed) as call ``index``; the step, the finding,
        and the result when it is a real one (no isError, no failure)."""
        tool = self.tools[planned.tool]
        outcome, finding, disguised = call_and_judge(
            self.server,
            tool,
            planned.arguments,
            self.warn_only.get(tool.name, frozenset()),
            self.stats.tally.tool(tool.name),
        )
        return step_of(planned, index, outcome), finding, real_result(outcome, disguised)

    def generated_step(
        self, pool: Pool, tool: str, generated: dict[str, Any], choose: Chooser
    ) -> tuple[Step, Finding | None]:
        """A call of the generation phase: fed from ``pool``, counted, kept in the history."""
        index = len(self.history)
        arguments, fed = feed(generated, self.slots[tool], pool, choose, self.valid(tool))
        planned = Planned(index, tool, arguments, tuple(fed))
        step, finding, real = self.call(planned, index)
        self.history.append((planned, real))
        self.stats.calls += 1
        self.stats.fed_calls += bool(fed)
        if real is not None:
            pool.add(index, tool, real)
            self.stats.real_results[tool] = self.stats.real_results.get(tool, 0) + 1
        touched = frozenset(t for f in fed for t in pool.acted_on.get(f.value, ()))
        if (tool, real is not None, touched) not in self.stats.reached:
            self.stats.reached.add((tool, real is not None, touched))
            self.stats.gained_at = self.stats.sequences
        if real is not None:
            for value in {f.value for f in fed} | {v for _, v in mine(real)}:
                pool.acted_on.setdefault(value, set()).add(tool)
        return step, finding

    def replay(self, plan: Sequence[Planned]) -> tuple[list[Step], Finding | None]:
        """Make the calls of ``plan`` again, in order, each fed from where its values came
        from in this replay; stop at the first failing call."""
        outputs: dict[int, dict[str, Any]] = {}
        names: Names = {}
        steps = []
        for planned in plan:
            arguments, fed = refeed(
                planned.arguments, planned.feeds, outputs, self.valid(planned.tool), names
            )
            step, finding, real = self.call(
                Planned(planned.index, planned.tool, arguments, tuple(fed)), planned.index
            )
            steps.append(step)
            if real is not None:
                outputs[planned.index] = real
                first_run = (
                    self.history[planned.index][1] if planned.index < len(self.history) else None
                )
                for old, new in renamed(first_run, real, planned.index).items():
                    names.setdefault(old, new)  # the first call that returned it made it
            if finding is not None:
                return steps, finding
        return steps, None


@dataclass
class SequenceFound:
    """A failing sequence as the generation phase met it: its calls, and where it started in
    the run's history."""

    start: int
    steps: list[Step]
    finding: Finding


class _Enough(BaseException):
    # Ends the generation phase between two sequences: its time is spent, or the last
    # sequences reached nothing new.
    pass


class _Found(BaseException):
    # A BaseException so hypothesis lets it through at once: the generation phase stops at
    # the first failing sequence, and shrinking happens on fresh servers (see shrink()).
    def __init__(self, found: SequenceFound) -> None:
        super().__init__(found.finding.message)
        self.found = found


def generate_sequences(
    sequencer: Sequencer,
    strategies: Mapping[str, Any],
    *,
    max_examples: int,
    max_steps: int,
    seed: Any = None,
    time_budget: float | None = None,
    patience: int | None = None,
) -> SequenceFound | None:
    """hypothesis's rule-based state machine draws sequences of calls (a tool, its input,
    and for each slot whether to feed it and with which pool value); the first sequence with
    a failing call is returned, unshrunk.

    No new sequence starts once ``time_budget`` seconds have passed, or once ``patience``
    sequences in a row reached nothing new (``SequenceStats.reached``): on a server whose
    tools take no ids the sequences stop early, and a slow server does not hold a run for
    long. ``stats.stopped`` says which ended it.

    The server's state is not reset between sequences (a restart per sequence costs about a
    second on a Python server), so hypothesis does not shrink here: its replays would meet
    another state. The draws never depend on the state, so the same seed from the same
    start makes the same run."""
    from hypothesis import HealthCheck, Phase, settings
    from hypothesis import strategies as st
    from hypothesis.errors import FlakyStrategyDefinition
    from hypothesis.stateful import RuleBasedStateMachine, rule, run_state_machine_as_test

    names = sorted(strategies)
    stats = sequencer.stats
    started = time.monotonic()

    class Sequences(RuleBasedStateMachine):
        def __init__(self) -> None:
            if time_budget is not None and time.monotonic() - started >= time_budget:
                stats.stopped = (
                    f"stopped after {stats.sequences} sequences: the time for them "
                    f"({time_budget:g} s, --mcp-sequences-time) is spent"
                )
                raise _Enough
            if patience is not None and stats.sequences - stats.gained_at >= patience:
                stats.stopped = (
                    f"stopped after {stats.sequences} sequences: the last {patience} reached "
                    "no tool, answer or chain of calls the earlier ones had not"
                )
                raise _Enough
            super().__init__()
            self.pool = Pool()
            self.start = len(sequencer.history)
            self.steps: list[Step] = []
            sequencer.stats.sequences += 1

        @rule(data=st.data())
        def call(self, data: Any) -> None:
            name = data.draw(st.sampled_from(names), label="tool")
            generated = data.draw(strategies[name], label="arguments")

            def choose(slot: Slot) -> Choice:
                # Fed 3 times in 4, with any of the pool's values (0 is the newest).
                keep = data.draw(st.integers(0, 3), label=f"{slot.name} generated") == 3
                index = data.draw(st.integers(0, POOL_LIMIT - 1), label=f"{slot.name} pool")
                return None if keep else index

            step, finding = sequencer.generated_step(self.pool, name, generated, choose)
            self.steps.append(step)
            if finding is not None:
                raise _Found(SequenceFound(self.start, list(self.steps), finding))

    Sequences.__name__ = Sequences.__qualname__ = "Sequences"
    run_settings = settings(
        max_examples=max_examples,
        stateful_step_count=max_steps,
        deadline=None,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    if seed is None and not run_settings.derandomize:
        # Our own random seed rather than hypothesis's: it would otherwise tell the user to
        # add @seed(...) to a test they did not write.
        import random

        seed = random.getrandbits(64)
    if seed is not None:
        # hypothesis's @seed works this way on a state machine class
        Sequences._hypothesis_internal_use_seed = seed
    try:
        run_state_machine_as_test(Sequences, settings=run_settings)
    except _Found as exc:
        return exc.found
    except _Enough:
        pass
    except FlakyStrategyDefinition:
        # hypothesis's record of the earlier sequences says a new one draws; one that ends
        # before its first draw is, to it, data generation that changed. Nothing was called
        # after the stop, so the sequences already run stand.
        if not stats.stopped:
            raise
    return None


@dataclass
class Shrunk:
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
) -> Shrunk:
    """The shortest sequence that still fails the same way, each attempt replayed on a
    freshly started server (``fresh``: the reset command, then a restart), so that what is
    reported fails from a fresh start. When the failing sequence alone does not fail there,
    the calls of earlier sequences that touched its values are put in front of it. Then calls
    are dropped one at a time (the newest first), and each input is replaced by its tool's
    simplest input. At most ``budget`` attempts (each costs a restart), and none started
    after ``seconds``."""
    target = (found.steps[-1].tool, found.finding.problem)
    history = sequencer.history
    attempts = 0
    until = None if seconds is None else time.monotonic() + seconds

    def spent() -> bool:
        return attempts >= budget or (until is not None and time.monotonic() >= until)

    def fails(plan: list[Planned]) -> tuple[list[Step], Finding] | None:
        nonlocal attempts
        attempts += 1
        fresh()
        steps, finding = sequencer.replay(plan)
        if finding is not None and (steps[-1].tool, finding.problem) == target:
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
        return Shrunk(
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
    return Shrunk(steps, finding, from_fresh=True, notes=notes, earlier=earlier)


def _as_step(entry: tuple[Planned, dict[str, Any] | None]) -> Step:
    planned, result = entry
    summary = "ok" if result is not None else "isError or failed"
    return Step(planned.index, planned.tool, planned.arguments, planned.feeds, summary, {})


def _fresh_words(server: ManagedServer) -> str:
    noun = server.command.noun
    if noun == "url":
        return "a new session (a server behind a URL keeps its state: reset it first)"
    if noun == "app":
        return "a restarted app (its module's state is kept: reset it first)"
    return "a freshly started server"


def handshake_of(server: ManagedServer) -> dict[str, Any] | None:
    """The request that opens a handshake-era session (None on 2026-07-28: no handshake)."""
    if server.protocol_version == "2026-07-28":
        return None
    from pytest_mcp_contracts.transport.jsonrpc import CLIENT_INFO

    return {
        "method": "initialize",
        "params": {
            "protocolVersion": server.protocol_version,
            "capabilities": {},
            "clientInfo": CLIENT_INFO,
        },
    }


def sequence_failure(server: ManagedServer, tool: ToolSpec, shrunk: Shrunk) -> ContractFailure:
    """The ContractFailure of a failing sequence: each call and its answer, and the lines
    that replay it."""
    from pytest_mcp_contracts.checks.contract import failure

    handshake = handshake_of(server)
    steps, finding = shrunk.steps, shrunk.finding
    return failure(
        server,
        tool,
        "sequences",
        f"{finding.message} (call {len(steps)} of a sequence)",
        details=finding.details,
        arguments=steps[-1].arguments,
        sequence=step_lines(steps),
        replay=replay_lines(steps, handshake),
        replay_from=_fresh_words(server) if shrunk.from_fresh else "the server",
        notes=shrunk.notes,
        earlier_calls=step_lines(shrunk.earlier),
        stderr_tail=server.stderr_tail(),
        call_stderr=steps[-1].stderr,
        stderr_before=steps[-1].stderr_before,
    )


EARLIER_CALLS_SHOWN: Final = 5


def earlier_state_lines(server: ManagedServer) -> list[str]:
    """The calls before the last one made on this server process that may have left state
    the last one ran in: invalid inputs that were accepted (a tool that took one may have
    stored it), and, on a server that declares readOnlyHint on some of its tools, successful
    calls of its other tools. A server that declares none would make every call a suspect,
    so there only accepted invalid inputs are listed."""
    surface = server.surface
    annotated = {
        tool.name: tool.annotations.get("readOnlyHint") is True
        for tool in (surface.tools if surface else [])
    }
    declares = any(annotated.values())
    calls = list(server.recent_calls)[:-1]  # the last call is the failing one
    suspects = [
        call
        for call in calls
        if call.succeeded and (call.invalid or (declares and not annotated.get(call.tool, False)))
    ]
    lines = []
    if len(suspects) > EARLIER_CALLS_SHOWN:
        lines.append(f"({len(suspects) - EARLIER_CALLS_SHOWN} earlier ones not shown)")
    for call in suspects[-EARLIER_CALLS_SHOWN:]:
        args = json.dumps(call.arguments, ensure_ascii=False, sort_keys=True)
        args = args if len(args) <= 200 else args[:200] + "…"
        why = "  (an invalid input, accepted: sent by rejects_invalid)" if call.invalid else ""
        lines.append(f"{call.tool} {args}{why}")
    return lines


def call_and_judge(
    server: ManagedServer,
    tool: ToolSpec,
    arguments: dict[str, Any],
    warn_only: frozenset[str],
    tally: ToolStats | None = None,
) -> tuple[CallOutcome, Finding | None, bool]:
    """One call of a sequence, the first thing wrong with it (judged as the contract check
    judges its calls), and whether it was an error without isError (no real result); the
    call is counted in ``tally``."""
    outcome = server.call(tool.name, arguments)
    if tally is not None:
        tally.count_call(outcome)
    finding, disguised = judged(tool, outcome, server.protocol_version, warn_only)
    if disguised is not None and tally is not None:
        tally.count_disguised(disguised)
    return outcome, finding, disguised is not None


def judge_outcome(
    tool: ToolSpec, outcome: CallOutcome, protocol_version: str, warn_only: frozenset[str]
) -> Finding | None:
    """The first thing wrong with one call's answer, as the contract check judges it."""
    return judged(tool, outcome, protocol_version, warn_only)[0]


def judged(
    tool: ToolSpec, outcome: CallOutcome, protocol_version: str, warn_only: frozenset[str]
) -> tuple[Finding | None, str | None]:
    """The first thing wrong with one call's answer, as the contract check judges it, and
    the class of an error the answer gave without isError (None when it gave none)."""
    from pytest_mcp_contracts.checks.contract import judge
    from pytest_mcp_contracts.checks.error_results import judge_error_result, judge_success_result

    verdict = None
    if outcome.is_error_result:
        assert outcome.result is not None
        verdict = judge_error_result(tool.name, outcome.result, outcome.stderr, outcome.arguments)
    elif outcome.result is not None:
        declared = isinstance(tool.output_schema, dict)
        verdict = judge_success_result(outcome.result, outcome.arguments, declared=declared)
    disguised = str(verdict.kind) if verdict is not None and not outcome.is_error_result else None
    return judge(tool, outcome, protocol_version, verdict, warn_only), disguised


def _output_keys(schema: Any, depth: int = 0) -> Iterator[str]:
    """The property names an output schema declares, nested ones too."""
    if not isinstance(schema, Mapping) or depth > MINE_DEPTH:
        return
    properties = schema.get("properties")
    if isinstance(properties, Mapping):
        for name, sub in properties.items():
            yield str(name)
            yield from _output_keys(sub, depth + 1)
    yield from _output_keys(schema.get("items"), depth + 1)


def _path_like(schema: Any) -> list[str]:
    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    if not isinstance(properties, Mapping):
        return []
    words = ("path", "file", "dir", "folder")
    return [str(n) for n in properties if any(w in _normalized(str(n)) for w in words)]


def ways_to_reach(tool: ToolSpec, tools: Sequence[ToolSpec], *, sequences: bool) -> list[str]:
    """How a tool whose calls were nearly all refused could get inputs it accepts: values
    another tool's declared output holds (sequences), a folder of real files (roots) for a
    path-like input, and inputs the user writes (examples)."""
    slots = feed_slots(tool.input_schema)
    makers = sorted(
        other.name
        for other in tools
        if other.name != tool.name
        and any(
            names_match(key, slot.name, plural=slot.path[-1] == ITEM)
            for key in _output_keys(other.raw.get("outputSchema"))
            for slot in slots
        )
    )
    names = ", ".join(sorted({slot.name for slot in slots}))
    ways = []
    if makers and sequences:
        ways.append(
            f"sequences: {', '.join(makers[:3])} return(s) what its {names} can take; the "
            "server's sequences item feeds them (its report section says what it reached)"
        )
    elif makers or (slots and not sequences):
        source = f" from what {', '.join(makers[:3])} return(s)" if makers else ""
        ways.append(f"sequences: --mcp-sequences=on feeds its {names}{source}")
    paths = _path_like(tool.input_schema)
    if paths:
        ways.append(
            f"roots: its {', '.join(paths)} look(s) like a path: --mcp-roots=DIR offers a "
            "folder holding files of the kind it reads"
        )
    ways.append(f"examples: inputs it accepts in [tool.mcp-contracts.tools.{tool.name}] examples")
    return ways
