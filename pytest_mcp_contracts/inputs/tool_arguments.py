"""The draft-07 rewrite narrowed to what a client sends as a tool's arguments: a JSON
object, with only the properties an object declares, and ``{}`` for a tool that takes no
arguments. Each works in place on the rewrite (our own copy of the schema).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_mcp_contracts.inputs.input_schema import GenerationError
from pytest_mcp_contracts.inputs.rewrite import draft07_children

__all__ = ["as_tool_arguments", "declared_properties_only", "takes_no_arguments"]


def declared_properties_only(prepared: dict[str, Any]) -> None:
    """Generate only the properties an object schema declares (in place, on our own copy).

    JSON Schema allows undeclared properties unless they are refused, but no real client
    sends random extra keys, and servers built on zod or pydantic strip or refuse them: such
    inputs would test the validator, not the tool. Objects that declare no properties at all
    (free-form maps) keep their arbitrary keys; allOf branches are left alone, since closing
    one would refuse the properties its siblings declare.
    """
    pending = [prepared]
    while pending:
        schema = pending.pop()
        if (
            isinstance(schema.get("properties"), dict)
            and schema["properties"]
            and not {
                "additionalProperties",
                "patternProperties",
                "allOf",
                "anyOf",
                "oneOf",
                "dependencies",
                "if",
            }
            & schema.keys()
        ):
            schema["additionalProperties"] = False
        pending += (sub for key, sub in draft07_children(schema) if key != "allOf")


def as_tool_arguments(prepared: dict[str, Any]) -> dict[str, Any]:
    """MCP tool arguments are always a JSON object: narrow the root to that."""
    declared = prepared.get("type")
    types = [declared] if isinstance(declared, str) else declared
    if types is not None and "object" not in types:
        raise GenerationError(
            f"tool arguments are always a JSON object, but the schema allows only {types}. "
            'Declare "type": "object" in the inputSchema.',
            pointer="#/type",
        )
    return {**prepared, "type": "object"}


#: Keywords that make an object schema without properties a map whose keys matter.
_MAP_KEYWORDS = frozenset(
    {
        "additionalProperties",
        "patternProperties",
        "propertyNames",
        "required",
        "minProperties",
        "dependencies",
        "allOf",
        "anyOf",
        "oneOf",
        "not",
        "if",
        "enum",
        "const",
    }
)


def takes_no_arguments(prepared: Mapping[str, Any]) -> bool:
    """The root declares no properties and nothing else about keys (the usual shape of a
    no-argument tool: ``{"type": "object", "properties": {}}``)."""
    return not prepared.get("properties") and not (_MAP_KEYWORDS & prepared.keys())
