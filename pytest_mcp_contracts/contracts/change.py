"""One drift change: how a tool's surface or its output moved from what was recorded.

Both the surface diff (``contracts/drift``) and the learned output shapes
(``contracts/infer``) report in this one type, ordered by one scale, ``vocabulary.Impact``.
"""

from __future__ import annotations

from dataclasses import dataclass

from pytest_mcp_contracts.vocabulary import IMPACT_ORDER, Impact


def impact_rank(impact: str) -> int:
    """The place of ``impact`` on the scale, gravest first (an unknown one sorts last)."""
    return IMPACT_ORDER.index(impact) if impact in IMPACT_ORDER else len(IMPACT_ORDER)


@dataclass(frozen=True)
class Change:
    """One difference between what was recorded and what the server shows now."""

    impact: Impact
    path: str
    change: str

    def __str__(self) -> str:
        return f"{self.path}: {self.change}"
