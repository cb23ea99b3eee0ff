"""inputs/listed: prompt arguments and template variables as a JSON Schema, expansion,
values mined from listed resource URIs, and values their descriptions name."""

from __future__ import annotations

import pytest

from pytest_mcp_contracts.inputs.listed import (
    MAX_MINED,
    described_values,
    expand,
    mined_values,
    prompt_schema,
    required_arguments,
    template_pattern,
    template_schema,
    template_variables,
)


def test_a_prompts_arguments_become_string_properties_required_as_listed() -> None:
    arguments = [
        {"name": "code", "required": True},
        {"name": "style", "description": "optional"},
        {"description": "no name: the schema check's finding, left out"},
        {"name": "code", "required": False},  # a repeat keeps the first
        "not an object",
    ]
    assert prompt_schema(arguments) == {
        "type": "object",
        "properties": {"code": {"type": "string"}, "style": {"type": "string"}},
        "required": ["code"],
        "additionalProperties": False,
    }
    assert required_arguments(arguments) == ["code"]
    assert prompt_schema(None)["properties"] == {}


def test_a_templates_variables_are_all_required_strings_whatever_their_modifiers() -> None:
    template = "files://{root}/{+path}{?depth,tags*}{#part:3}"
    assert template_variables(template) == ["root", "path", "depth", "tags", "part"]
    schema = template_schema(template)
    assert schema["required"] == ["root", "path", "depth", "tags", "part"]
    assert set(map(str, schema["properties"].values())) == {str({"type": "string"})}
    assert template_variables("file://{path") == []  # invalid RFC 6570: no variables


def test_expansion_percent_encodes_what_the_operator_does_not_reserve() -> None:
    assert expand("users://{id}/profile", {"id": "a/b c"}) == "users://a%2Fb%20c/profile"
    assert expand("file:///{+path}", {"path": "a/b c"}) == "file:///a/b%20c"
    assert expand("users://{id}/profile", {"id": ""}) == "users:///profile"


def test_listed_uris_a_template_matches_give_values_for_its_variables() -> None:
    uris = [
        "users://alice/profile",
        "users://a%20b/profile",
        "users://alice/profile",  # the same values once
        "users://x/y/profile",  # a simple variable stops at "/"
        "other://alice/profile",
    ]
    assert mined_values("users://{user_id}/profile", uris) == [
        {"user_id": "alice"},
        {"user_id": "a b"},
    ]
    assert mined_values("file:///{+path}", ["file:///docs/a.md"]) == [{"path": "docs/a.md"}]
    many = [f"n://{n}" for n in range(50)]
    assert len(mined_values("n://{n}", many)) == MAX_MINED


@pytest.mark.parametrize(
    "template",
    [
        "search://{?q}",  # query operator: beyond the matcher
        "a://{x,y}",  # two variables in one expression
        "a://{x}/{x}",  # a repeated name
        "a://static",  # no variable at all
    ],
)
def test_a_template_beyond_the_matcher_mines_nothing_rather_than_wrong_values(
    template: str,
) -> None:
    assert template_pattern(template) is None
    assert mined_values(template, ["a://1/2", "search://?q=1"]) == []


@pytest.mark.parametrize(
    ("description", "name", "values"),
    [
        # todo-mcp-server-kit's todo://status/{status}: the words after the name, to the
        # end of its clause.
        (
            "Todos filtered by status: open / done (URI-templated resource).",
            "status",
            ["open", "done"],
        ),
        ("Sort order is asc, desc or none.", "order", ["asc", "desc", "none"]),
        ("Weather for a city. Units are metric or imperial.", "units", ["metric", "imperial"]),
        # A prompt argument's own description: all of it.
        ("One of: formal, casual", None, ["formal", "casual"]),
        ("either 'asc' or 'desc'", None, ["asc", "desc"]),
        ("The format (json|csv)", None, ["json", "csv"]),
        ("must be asc or desc", None, ["asc", "desc"]),
        (
            "Temperature units: celsius or fahrenheit. Default celsius",
            None,
            ["celsius", "fahrenheit"],
        ),
        ("Output format, e.g. json", None, ["json"]),
        ("The language, such as python, go or rust", None, ["python", "go", "rust"]),
        # Nothing named: prose, an apostrophe, a type rather than values, another name.
        ("Name of the city", None, []),
        ("The user's name", None, []),
        ("Fabricated from the {resourceId} variable, which must be an integer.", "resourceId", []),
        ("Todos filtered by status: open / done", "tag", []),
        (None, None, []),
    ],
)
def test_values_a_description_names_are_found(
    description: str | None, name: str | None, values: list[str]
) -> None:
    assert described_values(description, name) == values
