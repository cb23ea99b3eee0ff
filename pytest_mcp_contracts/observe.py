"""Observe: what one tool returned over a run, against the contract recorded for it.

For a tool that declares no outputSchema, the contract is learned: every non-error result is
classified (structured, JSON in text, prose, ...), its JSON is folded into a ``Shape``, and,
when a contract was recorded earlier, each observation is compared with it. Breaking drift
fails the call (so hypothesis shrinks it); additive drift is kept for the summary.
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from .classify import Classified, OutputKind, classify
from .discover import ToolSpec
from .infer import Drift, Shape

JSON_KINDS: Final = frozenset({OutputKind.STRUCTURED, OutputKind.JSON_TEXT, OutputKind.JSON_ITEMS})
VALIDATED_AT: Final = 3  # consistent observations on distinct inputs

DECLARED, VALIDATED, INFERRED, UNKNOWN = "declared", "validated", "inferred", "unknown"
QUALITIES: Final = (DECLARED, VALIDATED, INFERRED, UNKNOWN)


def quality_of(*, declared: bool, observations: int, distinct_inputs: int, broken: bool) -> str:
    if declared:
        return DECLARED
    if observations == 0:
        return UNKNOWN
    if distinct_inputs >= VALIDATED_AT and observations >= VALIDATED_AT and not broken:
        return VALIDATED
    return INFERRED


class RecordError(ValueError):
    """The ``output`` section of a snapshot is not one this plugin could have written."""


@dataclass
class RecordedContract:
    """The ``output`` section of a tool's snapshot file."""

    kinds: tuple[str, ...] = ()
    observations: int = 0
    distinct_inputs: int = 0
    shape: Shape | None = None

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> RecordedContract:
        try:
            kinds = tuple(str(OutputKind(k).value) for k in data.get("kinds", ()))
            observations = int(data.get("observations", 0))
            distinct = int(data.get("distinct_inputs", 0))
            schema, seen = data.get("schema"), data.get("seen")
            shape = None if schema is None else Shape.from_record(schema, seen or {})
        except (TypeError, ValueError) as exc:
            raise RecordError(f"its 'output' section is not usable: {exc}") from None
        return cls(kinds, observations, distinct, shape)

    def to_data(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "source": "inferred",
            "kinds": sorted(self.kinds),
            "observations": self.observations,
            "distinct_inputs": self.distinct_inputs,
            "quality": quality_of(
                declared=False,
                observations=self.observations if self.shape else 0,
                distinct_inputs=self.distinct_inputs,
                broken=False,
            ),
            "schema": None,
            "seen": {},
        }
        if self.shape is not None:
            data["schema"] = self.shape.to_schema()
            data["seen"] = self.shape.seen()
        return data


def combine(base: RecordedContract | None, learned: RecordedContract) -> RecordedContract:
    """``base`` with ``learned`` folded in; neither is changed."""
    if base is None:
        return learned
    shape = copy.deepcopy(base.shape)
    if learned.shape is not None:
        if shape is None:
            shape = copy.deepcopy(learned.shape)
        else:
            shape.merge(learned.shape)
    return RecordedContract(
        kinds=tuple(sorted(set(base.kinds) | set(learned.kinds))),
        observations=base.observations + learned.observations,
        distinct_inputs=base.distinct_inputs + learned.distinct_inputs,
        shape=shape,
    )


@dataclass
class ToolObservations:
    """One tool's results in this run, and how they compare with its recorded contract."""

    tool: ToolSpec
    recorded: RecordedContract | None = None
    checking: bool = False  # compare against `recorded` (not when accepting changes)
    strict: bool = False  # additive drift fails too (--mcp-strict)
    shape: Shape | None = None
    kinds: Counter[str] = field(default_factory=Counter)
    inputs: set[str] = field(default_factory=set)
    observations: int = 0
    unmirrored: int = 0
    structured: int = 0
    breaking: dict[str, Drift] = field(default_factory=dict)
    additive: dict[str, Drift] = field(default_factory=dict)
    has_record: bool = False  # a snapshot file exists for the tool
    ran: bool = False
    passed: bool = False

    @property
    def declared(self) -> bool:
        return isinstance(self.tool.output_schema, dict)

    def observe(self, arguments: Mapping[str, Any], result: Mapping[str, Any]) -> list[Drift]:
        """Fold one result in; return the drift it shows against the record that fails it
        (breaking drift, or any drift under --mcp-strict)."""
        seen = classify(result)
        if seen.kind is OutputKind.ERROR:
            return []
        self.kinds[seen.kind.value] += 1
        if seen.kind is OutputKind.STRUCTURED:
            self.structured += 1
            self.unmirrored += seen.mirrored is False
        if self.declared or seen.kind not in JSON_KINDS:
            return self._kind_drift(seen)
        self.observations += 1
        self.inputs.add(json.dumps(arguments, sort_keys=True, default=repr))
        if self.shape is None:
            self.shape = Shape()
        self.shape.observe(seen.value)
        return self._kind_drift(seen) + self._shape_drift(seen)

    def _kind_drift(self, seen: Classified) -> list[Drift]:
        if not self.checking or self.recorded is None or self.declared:
            return []
        recorded = set(self.recorded.kinds)
        if not recorded or seen.kind.value in recorded:
            return []
        drift = Drift(
            "breaking", "output kind", f"{'/'.join(sorted(recorded))} -> {seen.kind.value}"
        )
        self.breaking[str(drift)] = drift
        return [drift]

    def _shape_drift(self, seen: Classified) -> list[Drift]:
        if not self.checking or self.recorded is None or self.recorded.shape is None:
            return []
        found = self.recorded.shape.diff(seen.value)
        for drift in found:
            target = self.breaking if drift.severity == "breaking" else self.additive
            target[str(drift)] = drift
        return [d for d in found if self.strict or d.severity == "breaking"]

    # -- what the run learned --------------------------------------------------------------

    @property
    def quality(self) -> str:
        if self.declared:
            return DECLARED
        observations, distinct = self.observations, len(self.inputs)
        if self.recorded is not None and self.checking:
            observations += self.recorded.observations
            distinct += self.recorded.distinct_inputs
        return quality_of(
            declared=False,
            observations=observations,
            distinct_inputs=distinct,
            broken=bool(self.breaking),
        )

    def learned(self) -> RecordedContract:
        """This run's observations alone, as a contract to record."""
        return RecordedContract(
            kinds=tuple(sorted(self.kinds)),
            observations=self.observations,
            distinct_inputs=len(self.inputs),
            shape=self.shape,
        )

    def merged(self) -> RecordedContract:
        """The recorded contract with this run's observations folded in (accepting them)."""
        return combine(self.recorded, self.learned())

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
        return found
