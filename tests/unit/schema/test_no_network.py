"""No schema a server sends makes the run fetch a URL: every validator is made by
``schema/dialects.offline``, whose registry retrieves nothing. jsonschema's default would
fetch an http(s) ``$ref``: a listener on 127.0.0.1 says whether a request came."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import jsonschema
import pytest
from referencing.exceptions import Unresolvable

from pytest_mcp_contracts.inputs import direct, elicitation
from pytest_mcp_contracts.inputs.probes import Listener
from pytest_mcp_contracts.schema.dialects import make_validator, offline


@pytest.fixture
def listener() -> Iterator[Listener]:
    opened = Listener()
    yield opened
    opened.close()


def _validate(make: Callable[[dict[str, Any]], Any], schema: dict[str, Any]) -> None:
    with contextlib.suppress(Unresolvable):  # what a remote $ref is, offline
        make(schema).is_valid(1)


VALIDATORS: dict[str, Callable[[dict[str, Any]], Any]] = {
    "make_validator": make_validator,
    "offline draft-07": lambda schema: offline(jsonschema.Draft7Validator, schema),
    "direct inputs": direct._draft07_validator,
}


@pytest.mark.parametrize("make", VALIDATORS.values(), ids=VALIDATORS.keys())
def test_a_remote_ref_is_never_fetched(
    make: Callable[[dict[str, Any]], Any], listener: Listener
) -> None:
    _validate(make, {"$ref": listener.url("validator-canary")})
    assert not listener.heard("validator-canary")


def test_the_default_would_have_fetched_it(listener: Listener) -> None:
    """The control: the same schema through jsonschema's default registry is fetched."""
    with pytest.warns(DeprecationWarning):
        _validate(jsonschema.Draft7Validator, {"$ref": listener.url("default-canary")})
    assert listener.heard("default-canary")


def test_an_elicitation_answer_is_judged_without_the_network(listener: Listener) -> None:
    schema = {"type": "object", "properties": {"x": {"$ref": listener.url("elicit-canary")}}}
    elicitation._valid(schema, {"x": 1})
    assert not listener.heard("elicit-canary")
