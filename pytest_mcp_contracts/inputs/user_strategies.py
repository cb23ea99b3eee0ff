"""The user's strategies (the ``pytest_mcp_tool_strategy`` hook): for some top-level
properties, checked against what the inputSchema declares, or for the whole arguments
object; either way a value the inputSchema refuses is the user's to fix, a
``UserStrategyError`` that names it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, cast

import jsonschema.exceptions
from hypothesis.strategies import SearchStrategy

from pytest_mcp_contracts.inputs.input_schema import GenerationError
from pytest_mcp_contracts.schema.paths import json_path
from pytest_mcp_contracts.schema.refs import escape

if TYPE_CHECKING:
    from jsonschema.protocols import Validator

__all__ = ["UserStrategyError", "checked", "leave_to_user"]


class UserStrategyError(GenerationError):
    """A strategy from the ``pytest_mcp_tool_strategy`` hook produced an invalid input."""


def leave_to_user(prepared: dict[str, Any], fields: Mapping[str, Any]) -> None:
    """Drop the properties the user supplies from what the schema generates (in place)."""
    declared = prepared.get("properties")
    declared = declared if isinstance(declared, dict) else {}
    for name, strategy in fields.items():
        if name not in declared:
            known = ", ".join(sorted(declared)) or "none"
            raise UserStrategyError(
                f"pytest_mcp_tool_strategy supplies a strategy for {name!r}, which the "
                f"inputSchema does not declare (its properties: {known})",
                pointer="#/properties",
            )
        if not isinstance(strategy, SearchStrategy):
            raise UserStrategyError(
                f"pytest_mcp_tool_strategy supplies {strategy!r} for {name!r}: expected a "
                "hypothesis strategy (e.g. st.just(value) or st.sampled_from([...]))",
                pointer=f"#/properties/{escape(name)}",
            )
        del declared[name]
    if fields and isinstance(prepared.get("required"), list):
        prepared["required"] = [r for r in prepared["required"] if r not in fields]


def checked(
    validator: Validator, source: str, only: frozenset[str] | None = None
) -> Callable[[Any], dict[str, Any]]:
    """Raise UserStrategyError for a refused value (with ``only``: refused in those fields)."""

    def check(value: Any) -> dict[str, Any]:
        errors = validator.iter_errors(value)
        if only is not None:
            errors = (e for e in errors if e.absolute_path and e.absolute_path[0] in only)
        error = jsonschema.exceptions.best_match(errors)
        if error is not None:
            where = json_path(error.absolute_path)
            raise UserStrategyError(
                f"{source} produced {value!r}, which the inputSchema refuses: {where}: "
                f"{error.message}. Make the strategy produce valid values only.",
                pointer="#",
            )
        return cast("dict[str, Any]", value)

    return check
