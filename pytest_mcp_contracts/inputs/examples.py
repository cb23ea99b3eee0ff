"""The simplest example a hypothesis strategy finds: derandomized, then shrunk.

Where reading a schema cannot tell its simplest valid value (``corners.simplest_value``:
a pattern beyond plain constructs, a schema beyond our derivation), the
value hypothesis shrinks to is the next best thing, and the same on every run.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

__all__ = ["simplest_example"]


def _anything(_value: Any) -> bool:
    return True


def simplest_example(
    strategy: SearchStrategy[Any], condition: Callable[[Any], bool] = _anything, *, tries: int = 50
) -> Any:
    """The simplest value of ``strategy`` that meets ``condition``, the same on every run
    (derandomized, then shrunk); hypothesis's exceptions when there is none."""
    from hypothesis import HealthCheck, Phase, find, settings

    quick = settings(
        max_examples=tries,
        database=None,
        derandomize=True,
        phases=[Phase.generate, Phase.shrink],
        suppress_health_check=list(HealthCheck),
    )
    return find(strategy, condition, settings=quick)
