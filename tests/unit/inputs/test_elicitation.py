"""inputs/elicitation.py: form content valid for the schemas servers really send."""

from __future__ import annotations

import pytest
from jsonschema import Draft202012Validator

from pytest_mcp_contracts.inputs.elicitation import form_content

# server-everything's trigger-elicitation-request form (abridged), and the spec's kinds.
SCHEMAS = [
    {
        "type": "object",
        "properties": {
            "name": {"type": "string", "minLength": 1},
            "check": {"type": "boolean"},
            "email": {"type": "string", "format": "email"},
            "homepage": {"type": "string", "format": "uri"},
            "birthdate": {"type": "string", "format": "date"},
            "integer": {"type": "integer", "minimum": 1, "maximum": 100, "default": 42},
            "number": {"type": "number", "minimum": 0, "maximum": 1000, "default": 3.14},
            "untitled": {"type": "string", "enum": ["a", "b"]},
            "titled": {"type": "string", "oneOf": [{"const": "x", "title": "X"}]},
            "multi": {
                "type": "array",
                "minItems": 1,
                "items": {"type": "string", "enum": ["p", "q"]},
            },
        },
        "required": ["name", "multi"],
    },
    {"type": "object", "properties": {"n": {"type": "integer", "exclusiveMinimum": 5}}},
    {"type": "object", "properties": {"s": {"type": "string", "minLength": 3, "maxLength": 3}}},
    {"type": "object", "properties": {}},
]


@pytest.mark.parametrize("schema", SCHEMAS)
def test_form_content_is_valid_for_the_schema(schema: dict) -> None:
    content = form_content(schema)
    assert Draft202012Validator(
        schema, format_checker=Draft202012Validator.FORMAT_CHECKER
    ).is_valid(content)
    assert set(content) == set(schema["properties"])  # every field answered


def test_defaults_and_first_choices_are_used() -> None:
    content = form_content(SCHEMAS[0])
    assert (content["integer"], content["untitled"], content["titled"]) == (42, "a", "x")
    assert content["multi"] == ["p"]
