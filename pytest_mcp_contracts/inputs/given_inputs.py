"""A tool's inputs that are given rather than generated: the configured examples, then the
inputSchema's own examples and defaults, each checked against the inputSchema.

Needs neither hypothesis nor the rewrite: only a validator of the inputSchema.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import jsonschema.exceptions

from pytest_mcp_contracts.schema import dialects

__all__ = ["GivenInputs", "given_inputs", "schema_examples"]


@dataclass(frozen=True)
class GivenInputs:
    """A tool's inputs that are given rather than generated: the configured examples
    (``[tool.mcp-contracts.tools.<name>] examples``), then the inputSchema's own examples
    and defaults. The contract check sends them before any generated input; the sequences
    draw them beside generated ones."""

    inputs: list[dict[str, Any]]  # those the inputSchema accepts, configured ones first
    # The first configured example the inputSchema refuses: its number (from 1), the
    # example, and why. A mistake in the user's own table: the contract check fails on it.
    refused_configured: tuple[int, dict[str, Any], str] | None = None
    # The schema's own examples and defaults it refuses: not sent, and said.
    refused_from_schema: list[dict[str, Any]] = field(default_factory=list)


def given_inputs(
    schema: Mapping[str, Any], configured: Sequence[dict[str, Any]] = ()
) -> GivenInputs:
    """The inputs ``schema`` (a tool's inputSchema) is given, each checked against it."""
    validator = dialects.validator_for_schema(schema)
    accepted: list[dict[str, Any]] = []
    refused_configured = None
    for number, example in enumerate(configured, 1):
        error = jsonschema.exceptions.best_match(validator.iter_errors(example))
        if error is None:
            accepted.append(example)
        elif refused_configured is None:
            refused_configured = (number, example, error.message)
    refused: list[dict[str, Any]] = []
    for example in schema_examples(schema):
        (accepted if validator.is_valid(example) else refused).append(example)
    return GivenInputs(accepted, refused_configured, refused)


def schema_examples(schema: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Inputs a schema suggests itself: its ``examples`` objects, then one built from the
    properties' ``default``s (with the first of each property's ``examples`` filling a
    required property that has no default)."""
    found = [e for e in schema.get("examples", []) or [] if isinstance(e, dict)]
    properties = schema.get("properties")
    if isinstance(properties, dict):
        built: dict[str, Any] = {}
        for name, sub in properties.items():
            if not isinstance(sub, dict):
                continue
            if "default" in sub:
                built[name] = sub["default"]
            elif (
                name in (schema.get("required") or [])
                and isinstance(sub.get("examples"), list)
                and sub["examples"]
            ):
                built[name] = sub["examples"][0]
        required = schema.get("required") or []
        # Only a complete input: a partial one would be refused for a missing property.
        if built and built not in found and all(name in built for name in required):
            found.append(built)
    return found
