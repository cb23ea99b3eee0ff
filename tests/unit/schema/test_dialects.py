"""schema/dialects.py: which dialect a schema declares, and validators that honour it."""

from __future__ import annotations

import pytest

from pytest_mcp_contracts.schema import dialects
from pytest_mcp_contracts.schema.dialects import (
    UnsupportedDialect,
    dialect_of,
    make_validator,
    validator_for_schema,
)


@pytest.mark.parametrize(
    ("uri", "dialect"),
    [
        (None, "2020-12"),
        ("https://json-schema.org/draft/2020-12/schema", "2020-12"),
        ("http://json-schema.org/draft-07/schema#", "draft-07"),
        ("https://json-schema.org/draft-07/schema", "draft-07"),
        ("http://json-schema.org/draft-04/schema#", "draft-04"),
        ("https://json-schema.org/draft/2019-09/schema", "2019-09"),
    ],
)
def test_dialect_of(uri: str | None, dialect: str) -> None:
    schema = {} if uri is None else {"$schema": uri}
    assert dialect_of(schema) == dialect


def test_unknown_dialect_is_refused_by_name() -> None:
    with pytest.raises(UnsupportedDialect, match=r"http://example\.com/x"):
        dialect_of({"$schema": "http://example.com/x"})


def test_validator_uses_the_declared_dialect() -> None:
    # exclusiveMaximum is a boolean in draft-04 and a number from draft-06 on.
    draft4 = {
        "$schema": "http://json-schema.org/draft-04/schema#",
        "maximum": 5,
        "exclusiveMaximum": True,
    }
    assert not make_validator(draft4).is_valid(5)
    assert make_validator({"exclusiveMaximum": 5}).is_valid(4)
    assert not make_validator({"exclusiveMaximum": 5}).is_valid(5)


def test_validator_checks_formats() -> None:
    validator = make_validator({"type": "string", "format": "date-time"})
    assert validator.is_valid("2026-11-21T10:00:00Z")
    assert not validator.is_valid("yesterday")


def test_validator_never_fetches_a_network_ref() -> None:
    validator = make_validator({"$ref": "https://example.invalid/schema.json"})
    with pytest.raises(Exception, match=r"example\.invalid"):
        validator.is_valid(1)


def test_a_schema_object_finds_its_validator_without_being_encoded_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    schema = {"type": "object", "properties": {"sum": {"type": "integer"}}}
    first = validator_for_schema(schema)
    encoded: list[object] = []
    monkeypatch.setattr(dialects.json, "dumps", lambda *a, **k: encoded.append(a) or "{}")
    assert validator_for_schema(schema) is first
    assert encoded == []  # a call's lookup encodes nothing
    monkeypatch.undo()
    # An equal schema, another object: found by content, the same validator.
    assert validator_for_schema(dict(schema)) is first
    assert not first.is_valid({"sum": "x"})
