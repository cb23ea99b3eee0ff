"""The corners of a numeric schema (its bounds, exactly at them or just inside exclusive
ones, ``multipleOf`` respected; 0, a negative and a large value where allowed) and its
simplest value: 0 if allowed, else the allowed value nearest to it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["NumberCorners", "is_number", "number_corners", "round_to_step"]

#: Large values sent where the schema sets no upper bound: what an int32 or a float64 mantissa
#: holds at most (a count of 2147483647 has hung a real server) and a float near the top of
#: its range. Nothing in the schema refuses them, so a client may send them; a server that
#: hangs or dies on one fails like on any other input.
LARGE_INTEGERS = (2**31 - 1, 2**53)
LARGE_NUMBER = 1e300


@dataclass
class NumberCorners:
    corners: list[tuple[str, str, float | int]]  # (kind, label, value)
    simplest: float | int | None


def number_corners(schema: Mapping[str, Any], kind: str) -> NumberCorners:
    integer = kind == "integer"
    step = schema.get("multipleOf")
    step = (
        step if isinstance(step, int | float) and not isinstance(step, bool) and step > 0 else None
    )
    low, low_exclusive = _bound(schema, "minimum", "exclusiveMinimum")
    high, high_exclusive = _bound(schema, "maximum", "exclusiveMaximum")

    def fits(value: float | int) -> bool:
        if low is not None and (value < low or (low_exclusive and value == low)):
            return False
        if high is not None and (value > high or (high_exclusive and value == high)):
            return False
        if integer and not float(value).is_integer():
            return False
        return step is None or _is_multiple(value, step)

    def up_from(value: float | int, exclusive: bool) -> float | int | None:
        """The smallest allowed value at or just above a lower bound."""
        if step is not None:
            found = math.ceil(value / step) * step
            if exclusive and found <= value:
                found += step
            found = round_to_step(found, step)
        elif integer:
            found = math.floor(value) + 1 if exclusive else math.ceil(value)
        else:
            found = math.nextafter(value, math.inf) if exclusive else value
        return found if fits(found) else None

    def down_from(value: float | int, exclusive: bool) -> float | int | None:
        if step is not None:
            found = math.floor(value / step) * step
            if exclusive and found >= value:
                found -= step
            found = round_to_step(found, step)
        elif integer:
            found = math.ceil(value) - 1 if exclusive else math.floor(value)
        else:
            found = math.nextafter(value, -math.inf) if exclusive else value
        return found if fits(found) else None

    corners: list[tuple[str, str, float | int]] = []
    if low is not None:
        at_low = up_from(low, low_exclusive)
        if at_low is not None:
            label = f"just above {low!r}: {at_low!r}" if low_exclusive else f"{at_low!r}"
            corners.append(("minimum", label, at_low))
    if high is not None:
        at_high = down_from(high, high_exclusive)
        if at_high is not None:
            label = f"just below {high!r}: {at_high!r}" if high_exclusive else f"{at_high!r}"
            corners.append(("maximum", label, at_high))
    zero: float | int = 0 if integer else 0.0
    if fits(zero):
        corners.append(("zero", "0", zero))
    negative = -(step if step is not None else 1)
    negative = int(negative) if integer else float(negative)
    if fits(negative):
        corners.append(("negative", f"{negative!r}", negative))
    if high is None:
        for large in LARGE_INTEGERS if integer else (LARGE_NUMBER,):
            at_large: float | int | None
            if integer and isinstance(step, int):  # exact: 2**53 / 3 as a float is not
                at_large = large - large % step if fits(large - large % step) else None
            else:
                at_large = down_from(large, False)
            if at_large is not None and at_large > 0:
                corners.append(("large", f"{at_large!r}", at_large))
    # The simplest value: 0 if allowed, else the allowed value nearest to it.
    if fits(zero):
        best: float | int | None = zero
    elif low is not None and low >= 0:
        best = up_from(low, low_exclusive)
    elif high is not None and high <= 0:
        best = down_from(high, high_exclusive)
    else:
        best = next((v for _, _, v in corners), None)
    if integer and best is not None:
        best = int(best)
    corners = [(k, lbl, int(v) if integer else v) for k, lbl, v in corners]
    return NumberCorners(corners, best)


def _bound(schema: Mapping[str, Any], inclusive: str, exclusive: str) -> tuple[Any, bool]:
    """A bound and whether it is exclusive (draft-04 booleans and draft-06+ numbers)."""
    value = schema.get(inclusive)
    other = schema.get(exclusive)
    value = value if is_number(value) else None
    if other is True and value is not None:
        return value, True
    if is_number(other):
        # Both given: the tighter one wins.
        tighter = value is None or (other >= value if "min" in inclusive else other <= value)
        if tighter:
            return other, True
    return value, False


def is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _is_multiple(value: float | int, step: float | int) -> bool:
    if isinstance(value, int) and isinstance(step, int):
        return value % step == 0
    quotient = value / step
    return math.isfinite(quotient) and abs(quotient - round(quotient)) < 1e-9


def round_to_step(value: float | int, step: float | int) -> float | int:
    # Multiples of a float step pick up rounding noise (0.1 * 3); round to the step's digits.
    if isinstance(step, int):
        return int(value)
    digits = max(0, -math.floor(math.log10(abs(step)))) + 6
    return round(value, digits)
