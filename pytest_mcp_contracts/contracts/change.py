"""One drift change: how a tool's surface or its output moved from what was recorded.

Both the surface diff (``contracts/drift``) and the learned output shapes
(``contracts/infer``) report in this one type, ordered by one scale of gravity.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pytest_mcp_contracts.vocabulary import GRAVITY

# The static type of vocabulary.DriftSeverity's values (tests/unit keep the two equal), so that
# the diff can write a change's severity as its literal. In order of gravity: breaking fails,
# review fails until a human accepts it, description warns (and fails where descriptions are
# pinned), additive and cosmetic are listed (they fail only under --mcp-strict).
Severity = Literal["breaking", "review", "description", "additive", "cosmetic"]


def gravity(severity: str) -> int:
    """The place of ``severity`` on the scale, gravest first (an unknown one sorts last)."""
    return GRAVITY.index(severity) if severity in GRAVITY else len(GRAVITY)


@dataclass(frozen=True)
class Change:
    """One difference between what was recorded and what the server shows now."""

    severity: Severity
    path: str
    change: str

    def __str__(self) -> str:
        return f"{self.path}: {self.change}"
