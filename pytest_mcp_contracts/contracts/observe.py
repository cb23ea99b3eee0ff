"""Observe: what one entry (a tool, prompt, resource or template) returned over a run,
against the contract recorded for it.

For a tool that declares no outputSchema, and for every prompt, JSON resource and template,
the contract is learned (what a read or get returns becomes JSON as ``contracts/content``
says): every non-error result is
classified (structured, JSON in text, prose, ...), its JSON is folded into a ``Shape``, and,
when a contract was recorded earlier, each observation is compared with it. Breaking drift
fails the call (so hypothesis shrinks it); additive drift is kept for the summary.

A learned contract is "validated" only on evidence (``Evidence.assess``): inputs that differ
in the arguments the tool declares, outputs that varied, no path whose type varies.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Final

from pytest_mcp_contracts.contracts.agreement import mirrors
from pytest_mcp_contracts.contracts.change import Change
from pytest_mcp_contracts.contracts.classify import Classified, OutputKind, classify
from pytest_mcp_contracts.contracts.content import prompt_observable, read_classified
from pytest_mcp_contracts.contracts.infer import Shape
from pytest_mcp_contracts.transport.discover import Entry
from pytest_mcp_contracts.vocabulary import EntryKind, Impact, Quality

JSON_KINDS: Final = frozenset({OutputKind.STRUCTURED, OutputKind.JSON_TEXT, OutputKind.JSON_ITEMS})
VALIDATED_AT: Final = 3  # consistent observations on inputs that differ in declared arguments


# Why a contract is not validated. Fixed sentences, no counts: they are written to the
# snapshot file, which must not change when the server did not.
NOTHING_OBSERVED: Final = "nothing to learn from: no JSON result was observed"
NO_ARGUMENTS: Final = "not validated: the tool takes no arguments, so every call was the same input"
FEW_INPUTS: Final = (
    f"not validated: fewer than {VALIDATED_AT} inputs that differ in the arguments the tool "
    "declares"
)
NEVER_VARIED: Final = "not validated: its output never varied, so it shows one value, not a shape"
UNION: Final = "not validated: a path takes different types from call to call"
BROKEN: Final = "not validated: this run broke the recorded contract"
CONSISTENT: Final = (
    f"consistent over {VALIDATED_AT} or more inputs that differ in declared arguments, "
    "with outputs that varied"
)


@dataclass(frozen=True)
class Evidence:
    """What one run's JSON observations of a tool can vouch for."""

    observations: int
    distinct_inputs: int  # inputs that differ in the arguments the tool declares
    distinct_outputs: int
    takes_arguments: bool
    unions: bool
    broken: bool = False

    def assess(self) -> tuple[str, str]:
        """(quality, the reason for it), validated only where the evidence says so."""
        if self.observations == 0:
            return Quality.UNKNOWN, NOTHING_OBSERVED
        for failed, reason in (
            (self.broken, BROKEN),
            (self.unions, UNION),
            (not self.takes_arguments, NO_ARGUMENTS),
            (self.distinct_inputs < VALIDATED_AT, FEW_INPUTS),
            (self.distinct_outputs < 2, NEVER_VARIED),
        ):
            if failed:
                return Quality.INFERRED, reason
        return Quality.VALIDATED, CONSISTENT


class RecordError(ValueError):
    """The ``output`` section of a snapshot is not one this plugin could have written."""


@dataclass
class RecordedContract:
    """The ``output`` section of a tool's snapshot file.

    It holds only what changes when the contract changes: the output kinds, the quality and
    its reason, the schema and the capped per-path counts (``seen``). Version 1 files also
    had exact ``observations`` and ``distinct_inputs``; they are read and ignored.
    """

    kinds: tuple[str, ...] = ()
    quality: str = Quality.UNKNOWN
    basis: str = NOTHING_OBSERVED
    shape: Shape | None = None

    @classmethod
    def from_data(cls, data: Mapping[str, Any], section: str = "output") -> RecordedContract:
        try:
            kinds = tuple(str(OutputKind(k).value) for k in data.get("kinds", ()))
            quality = str(data.get("quality", Quality.INFERRED))
            if quality not in (Quality.VALIDATED, Quality.INFERRED, Quality.UNKNOWN):
                raise ValueError(f"quality {quality!r}")
            basis = str(data.get("basis", ""))
            schema, seen = data.get("schema"), data.get("seen")
            shape = None if schema is None else Shape.from_record(schema, seen or {})
        except (TypeError, ValueError) as exc:
            raise RecordError(f"its {section!r} section is not usable: {exc}") from None
        return cls(kinds, quality, basis, shape)

    def to_data(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "source": "inferred",
            "kinds": sorted(self.kinds),
            "quality": self.quality,
            "basis": self.basis,
            "schema": None,
            "seen": {},
        }
        if self.shape is not None:
            data["schema"] = self.shape.to_schema()
            data["seen"] = self.shape.seen()
        return data


def same_contract(recorded: Mapping[str, Any], learned: Mapping[str, Any]) -> bool:
    """Whether two ``output`` sections state the same contract.

    ``seen`` is left out: it is the evidence, and it moves with the inputs a run happened
    to generate (a field seen 4 times in one run and 6 in another). Replacing a file only
    for that would make every acceptance a noisy diff.
    """
    return {k: v for k, v in recorded.items() if k != "seen"} == {
        k: v for k, v in learned.items() if k != "seen"
    }


@dataclass
class Observations:
    """What a run observed of one thing's JSON results, and how they compare with its
    recorded contract (``EntryObservations``: a tool's outputs, a prompt's or JSON
    resource's content). One set of quality levels and flap rules for all of them."""

    recorded: RecordedContract | None = None
    # Fail on drift from `recorded` (not when accepting changes). Either way the drift is
    # found and kept in `breaking` and `additive`: an update lists what it accepted.
    checking: bool = False
    strict: bool = False  # additive drift fails too (--mcp-strict)
    shape: Shape | None = None
    kinds: Counter[str] = field(default_factory=Counter)
    inputs: set[str] = field(default_factory=set)  # projected on the declared arguments
    outputs: set[str] = field(default_factory=set)
    observations: int = 0
    breaking: dict[str, Change] = field(default_factory=dict)
    additive: dict[str, Change] = field(default_factory=dict)
    has_record: bool = False  # a snapshot file exists for it
    ran: bool = False

    @property
    def kind_label(self) -> str:
        """The path its kind drift is reported at."""
        return "output kind"

    @property
    def declared(self) -> bool:
        """Whether its results have a declared contract (then nothing is learned)."""
        return False

    @property
    def declared_arguments(self) -> frozenset[str]:
        """The arguments its calls declare: inputs that differ only elsewhere are one."""
        return frozenset()

    def fold(self, arguments: Mapping[str, Any], seen: Classified) -> list[Change]:
        """Fold one classified result in (its kind counted by the caller); return the drift
        it shows against the record that fails it (breaking drift, or any drift under
        --mcp-strict; none when accepting)."""
        if not self.declared and seen.kind in JSON_KINDS:
            self.observations += 1
            # Inputs that differ only in arguments the tool does not declare are one input
            # to it: they cannot vouch for a contract any more than the same call repeated.
            declared = self.declared_arguments
            projected = {k: v for k, v in arguments.items() if k in declared}
            self.inputs.add(json.dumps(projected, sort_keys=True, default=repr))
            if len(self.outputs) < 2:  # only "did it ever vary" matters
                self.outputs.add(json.dumps(seen.value, sort_keys=True))
            if self.shape is None:
                self.shape = Shape()
            self.shape.observe(seen.value)
        changes = self._changes(seen)
        for change in changes:
            target = self.breaking if change.impact is Impact.BREAKING else self.additive
            target[str(change)] = change
        return self._failing(changes) if self.checking else []

    def would_fail(self, seen: Classified) -> bool:
        """Whether ``fold`` would return drift for this result; nothing is folded in or kept
        (a check that must know before it commits to an answer: transport/inflight)."""
        return self.checking and bool(self._failing(self._changes(seen)))

    def _changes(self, seen: Classified) -> list[Change]:
        """Every change one classified result shows against the record: its kind, and for a
        JSON result its shape. It depends on the record alone, not on what was folded in."""
        if self.recorded is None or self.declared:
            return []
        changes = []
        recorded = set(self.recorded.kinds)
        if recorded and seen.kind.value not in recorded:
            changes.append(
                Change(
                    Impact.BREAKING,
                    self.kind_label,
                    f"{'/'.join(sorted(recorded))} -> {seen.kind.value}",
                )
            )
        if seen.kind in JSON_KINDS and self.recorded.shape is not None:
            changes += self.recorded.shape.diff(seen.value)
        return changes

    def _failing(self, changes: list[Change]) -> list[Change]:
        return [c for c in changes if self.strict or c.impact is Impact.BREAKING]

    # -- what the run learned --------------------------------------------------------------

    def unions(self) -> list[tuple[str, str]]:
        """Paths that took different non-null types in this run's results."""
        return self.shape.unions() if self.shape is not None else []

    def evidence(self) -> Evidence:
        return Evidence(
            observations=self.observations,
            distinct_inputs=len(self.inputs),
            distinct_outputs=len(self.outputs),
            takes_arguments=bool(self.declared_arguments),
            unions=bool(self.unions()),
            broken=self.checking and bool(self.breaking),  # accepted drift breaks nothing
        )

    @property
    def assessment(self) -> tuple[str, str]:
        """(quality, reason) of the output contract after this run."""
        if self.declared:
            return Quality.DECLARED, "the server declares an outputSchema"
        quality, reason = self.evidence().assess()
        recorded = self.recorded if self.checking else None
        # A run with fewer inputs (CI) that contradicts nothing leaves the recorded evidence
        # standing; one that learned nothing keeps the recorded word.
        short = quality == Quality.UNKNOWN or (quality == Quality.INFERRED and reason == FEW_INPUTS)
        if recorded is not None and recorded.quality == Quality.VALIDATED and short:
            return Quality.VALIDATED, recorded.basis or CONSISTENT
        if quality == Quality.UNKNOWN and recorded is not None and recorded.shape is not None:
            return recorded.quality, recorded.basis
        return quality, reason

    @property
    def quality(self) -> str:
        return self.assessment[0]

    def learned(self) -> RecordedContract:
        """This run's observations alone, as the contract to record: accepting replaces."""
        quality, reason = replace(self.evidence(), broken=False).assess()
        return RecordedContract(
            kinds=tuple(sorted(self.kinds)), quality=quality, basis=reason, shape=self.shape
        )


@dataclass
class EntryObservations(Observations):
    """One entry's results in this run, and how they compare with its recorded contract: a
    tool's outputs, or what a prompt's gets and a resource's or template's reads return
    (its content). The items call ``observe`` per result."""

    entry: Entry = field(kw_only=True)
    unmirrored: int = 0
    structured: int = 0

    @property
    def kind_label(self) -> str:
        return "output kind" if self.entry.kind is EntryKind.TOOL else "content kind"

    @property
    def declared(self) -> bool:
        return isinstance(self.entry.output_schema, dict)

    @property
    def declared_arguments(self) -> frozenset[str]:
        schema = self.entry.input_schema
        properties = schema.get("properties") if isinstance(schema, dict) else None
        return frozenset(properties) if isinstance(properties, dict) else frozenset()

    def _classified(self, result: Mapping[str, Any]) -> Classified | None:
        """One result as the JSON its contract is learned from, by the entry's kind: a tool
        result's (None: an error result), a read's, or a prompt's messages (None: it has
        none)."""
        if self.entry.kind is EntryKind.TOOL:
            seen = classify(result)
            return None if seen.kind is OutputKind.ERROR else seen
        if self.entry.kind is EntryKind.PROMPT:
            value = prompt_observable(result)
            return None if value is None else Classified(OutputKind.STRUCTURED, value)
        return read_classified(result)

    def would_fail_on(self, result: Mapping[str, Any]) -> bool:
        """Whether ``observe`` would return drift for this result, without observing it."""
        if not self.checking or self.recorded is None:
            return False  # nothing to drift from: no need to classify the result
        seen = self._classified(result)
        return seen is not None and self.would_fail(seen)

    def observe(self, arguments: Mapping[str, Any], result: Mapping[str, Any]) -> list[Change]:
        """Fold one result in (``arguments``: a tool's or prompt's arguments, a template's
        variables, {} for a resource); return the drift it shows against the record that
        fails it (breaking drift, or any drift under --mcp-strict)."""
        seen = self._classified(result)
        if seen is None:
            return []
        if self.entry.kind is EntryKind.PROMPT:
            # No kind is counted: a prompt result is always messages; its shape says it all.
            return self.fold(arguments, seen)
        self.kinds[seen.kind.value] += 1
        if seen.kind is OutputKind.STRUCTURED:
            self.structured += 1
            # The same rules as the contract check's: a text without the defaults the
            # SDK filled in still mirrors the structured content.
            self.unmirrored += seen.mirrored is False and not mirrors(
                result, self.entry.output_schema
            )
        return self.fold(arguments, seen)

    def warnings(self) -> list[str]:
        """Output-format consistency: what a reader of this tool's results would trip on."""
        found = []
        if self.structured and not self.declared:
            found.append(
                "returns structuredContent but declares no outputSchema: declare one so clients "
                "can rely on it (--mcp-export-schemas writes a proposal)"
            )
        if self.unmirrored:
            found.append(
                f"{self.unmirrored} of {self.structured} results with structuredContent did not "
                "mirror it as JSON in a text block, which the spec recommends for clients "
                "that read only text"
            )
        if len(self.kinds) > 1:
            mix = ", ".join(f"{kind} x{n}" for kind, n in sorted(self.kinds.items()))
            found.append(f"its output kind changes from call to call: {mix}")
        found += [union_warning(path, types) for path, types in self.unions()]
        return found


def union_warning(path: str, types: str) -> str:
    return (
        f"{path} is {types} from call to call: more often a bug than a contract; the "
        "contract is not validated and --mcp-export-schemas will not propose it"
    )
