"""The input schema of an entry that declares none: a prompt's arguments and a resource
template's variables as a JSON Schema, so that every kind of entry is drawn for, covered and
shrunk as a tool's inputSchema is (``transport/discover.Entry.input_schema``).

A prompt's arguments and a template's variables are strings by the spec (``prompts/get``
takes ``arguments: {[key: string]: string}``; a URI template substitutes strings), so each
becomes a ``{"type": "string"}`` property. A template's variables are all required: a client
that reads a template fills each of them in. An RFC 6570 variable with an explode (``*``) or
prefix (``:3``) modifier is still given one string.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def prompt_schema(arguments: Any) -> dict[str, Any]:
    """The JSON Schema of a prompt's ``arguments`` listing: a string property per named
    argument, required when it says ``required: true``. Entries without a string name are
    the schema check's finding and are left out here."""
    properties: dict[str, Any] = {}
    required: list[str] = []
    for entry in arguments if isinstance(arguments, list) else []:
        name = entry.get("name") if isinstance(entry, Mapping) else None
        if not isinstance(name, str) or name in properties:
            continue
        properties[name] = {"type": "string"}
        if entry.get("required") is True:
            required.append(name)
    return object_schema(properties, required)


def template_variables(template: str) -> list[str]:
    """The variable names of a URI template, each once, in order ([] when it does not parse:
    the schema check reports that)."""
    import uri_template

    if not uri_template.validate(template):
        return []
    return list(dict.fromkeys(v.name for v in uri_template.URITemplate(template).variables))


def template_schema(template: str) -> dict[str, Any]:
    """The JSON Schema of a template's variables: all strings, all required."""
    names = template_variables(template)
    return object_schema({name: {"type": "string"} for name in names}, names)


def object_schema(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    """A closed object of ``properties`` (a resource's, which is read without arguments,
    has none)."""
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }
