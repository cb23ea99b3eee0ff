"""Generate tool inputs from an MCP tool's JSON ``inputSchema``: a hypothesis strategy for
random inputs (``input_strategy``) and the coverage phase's inputs (``coverage_plan``).

hypothesis-jsonschema only understands draft-04/06/07 and cannot follow recursive or
remote ``$ref``s, while MCP servers mostly publish 2020-12 schemas (pydantic, zod).  So
each schema is rewritten into one self-contained draft-07 schema (``inputs/rewrite``),
values are generated from that, and every value is re-checked against the original schema
(``inputs/input_schema``).  The rewrite may be loose; the re-check is what guarantees that
no invalid input is ever sent.

hypothesis-jsonschema is also slow (it rebuilds the strategies of object members on every
draw), so the sub-schemas that use only simple keywords get strategies built directly
(``inputs/direct.py``), and it handles the rest; strategies are cached per schema.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any, cast

import jsonschema.exceptions
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument
from hypothesis.strategies import SearchStrategy

from pytest_mcp_contracts.inputs.coverage import CoveragePlan, plan_coverage
from pytest_mcp_contracts.inputs.direct import mixed_strategy, utf8_alphabet
from pytest_mcp_contracts.inputs.examples import simplest_example
from pytest_mcp_contracts.inputs.format_strategies import custom_format_strategies
from pytest_mcp_contracts.inputs.hypothesis_compat import (
    HypothesisRefResolutionError,
    _from_schema,
    install,
)
from pytest_mcp_contracts.inputs.input_schema import (
    GenerationError,
    cache_key,
    check_schema,
    load_schema,
    original_validator,
)
from pytest_mcp_contracts.inputs.known import known_corners, known_slots, with_known_values
from pytest_mcp_contracts.inputs.rewrite import expand
from pytest_mcp_contracts.inputs.sandbox import SandboxPaths, path_slots, with_sandbox_values
from pytest_mcp_contracts.inputs.tool_arguments import (
    as_tool_arguments,
    declared_properties_only,
    takes_no_arguments,
)
from pytest_mcp_contracts.inputs.unsatisfiable import unsatisfiable_error
from pytest_mcp_contracts.inputs.user_strategies import checked, leave_to_user

__all__ = ["coverage_plan", "input_strategy"]


_BUILD_ERRORS: tuple[type[BaseException], ...] = (
    AssertionError,
    InvalidArgument,
    jsonschema.exceptions.SchemaError,
    HypothesisRefResolutionError,
    re.error,
    RecursionError,
    TypeError,
    ValueError,
)


def _generator_failed(err: BaseException) -> GenerationError:
    return GenerationError(
        "hypothesis-jsonschema cannot generate values for this schema "
        f"({type(err).__name__}: {err}). Simplify the schema, or test this tool by hand."
    )


def _build(
    prepared: dict[str, Any], custom_formats: dict[str, SearchStrategy[str]]
) -> SearchStrategy[Any]:
    # The public from_schema() turns errors into a strategy that raises them on every draw;
    # calling its implementation directly surfaces them here, while building.
    build = getattr(_from_schema, "__from_schema", None)
    if build is None:  # pragma: no cover - a future hypothesis-jsonschema
        return cast(
            "SearchStrategy[Any]", _from_schema.from_schema(prepared, custom_formats=custom_formats)
        )
    alphabet = utf8_alphabet()
    try:
        return cast(
            "SearchStrategy[Any]", build(prepared, alphabet=alphabet, custom_formats=custom_formats)
        )
    except _BUILD_ERRORS as err:
        raise _generator_failed(err) from err


def _strategy_for(prepared: dict[str, Any]) -> SearchStrategy[Any]:
    """Values for the prepared schema, not yet re-checked against the original.

    Simple sub-schemas get strategies built directly, once (``inputs/direct.mixed_strategy``);
    the others go to hypothesis-jsonschema, which is slow because it rebuilds the
    strategies of object members on every draw.
    """
    formats = custom_format_strategies(prepared)
    strategy, fallbacks = mixed_strategy(prepared, formats, lambda sub: _build(sub, formats))
    return _translating_errors(strategy) if fallbacks else strategy


def _translating_errors(strategy: SearchStrategy[Any]) -> SearchStrategy[Any]:
    # hypothesis-jsonschema builds the strategies for object members lazily, while drawing.
    @st.composite
    def draw_value(draw: st.DrawFn) -> Any:
        try:
            return draw(strategy)
        except _BUILD_ERRORS as err:
            raise _generator_failed(err) from err

    return draw_value()


Overrides = SearchStrategy[dict[str, Any]] | Mapping[str, SearchStrategy[Any]]


def input_strategy(
    schema: Mapping[str, Any],
    overrides: Overrides | None = None,
    *,
    sandbox: SandboxPaths | None = None,
) -> SearchStrategy[dict[str, Any]]:
    """A strategy for tool arguments that are valid for ``schema``, a tool's inputSchema.

    ``overrides`` come from the user (the ``pytest_mcp_tool_strategy`` hook): a strategy for
    the whole arguments object, or strategies for some top-level properties, the rest being
    generated from the schema. Either way every input is checked against the original
    schema, and one the schema refuses is a GenerationError that names the user's value.

    With a ``sandbox``, properties that take paths draw many of their values from it
    (``sandbox.with_sandbox_values``); the user's strategies replace those too.

    Without overrides the strategy is cached by the schema's content (and the sandbox's
    values), so asking again for the same schema is cheap.  Raises GenerationError when no
    generator can be built (invalid or unsupported schema, remote $ref, ...).
    """
    install()
    if overrides is None or (isinstance(overrides, Mapping) and not overrides):
        key = cache_key(schema)
        if key is not None:
            return _cached_input_strategy(key, sandbox)
    return _input_strategy(schema, overrides, sandbox)


#: How many schemas' strategies are kept (the plugin asks once or twice per tool).
CACHED_STRATEGIES = 256


@lru_cache(maxsize=CACHED_STRATEGIES)
def _cached_input_strategy(
    key: str, sandbox: SandboxPaths | None
) -> SearchStrategy[dict[str, Any]]:
    # Built from our own copy: a caller mutating its schema later cannot affect the strategy.
    return _input_strategy(json.loads(key), None, sandbox)


def _input_strategy(
    schema: Mapping[str, Any], overrides: Overrides | None, sandbox: SandboxPaths | None = None
) -> SearchStrategy[dict[str, Any]]:
    doc = load_schema(schema)
    check_schema(doc)
    validator = original_validator(doc)
    if isinstance(overrides, SearchStrategy):
        return overrides.map(checked(validator, "the strategy from pytest_mcp_tool_strategy"))
    prepared = expand(doc)
    if prepared is False:
        raise unsatisfiable_error(doc)
    prepared = as_tool_arguments({} if prepared is True else prepared)
    declared_properties_only(prepared)
    if takes_no_arguments(prepared) and validator.is_valid({}):
        # A no-argument tool: a client sends {}, never made-up keys (which would also count as
        # distinct inputs and inflate the tool's contract quality).
        return st.just({})
    fields = dict(overrides or {})
    leave_to_user(prepared, fields)
    generated = _strategy_for(prepared)
    if generated.is_empty:
        raise unsatisfiable_error(doc)
    if sandbox is not None:
        generated = with_sandbox_values(
            generated, path_slots(schema, prepared, sandbox), validator.is_valid
        )
    generated = with_known_values(generated, known_slots(prepared), validator.is_valid)
    if not fields:
        return generated.filter(validator.is_valid)
    names = ", ".join(sorted(fields))
    mixed = st.tuples(generated, st.fixed_dictionaries(fields)).map(lambda p: {**p[0], **p[1]})
    source = f"the strategies from pytest_mcp_tool_strategy (for {names})"
    # A refused user value is the user's to fix; anything else is the rewrite's, and dropped.
    check = checked(validator, source, only=frozenset(fields))
    return mixed.map(check).filter(validator.is_valid)


def coverage_plan(
    schema: Mapping[str, Any], budget: int, *, sandbox: SandboxPaths | None = None
) -> CoveragePlan:
    """The coverage phase's inputs for a tool's inputSchema (a ``coverage.CoveragePlan``):
    derived from the same draft-07 rewrite as the random inputs, each re-checked against the
    original schema; with a ``sandbox``, path properties start at a real file and visit its
    kinds of files and paths. Raises GenerationError like input_strategy."""
    from hypothesis.errors import HypothesisException

    doc = load_schema(schema)
    check_schema(doc)
    validator = original_validator(doc)
    prepared = expand(doc)
    if prepared is False:
        return CoveragePlan(budget=budget, note="no value satisfies the inputSchema")
    prepared = as_tool_arguments({} if prepared is True else prepared)
    declared_properties_only(prepared)
    if takes_no_arguments(prepared):
        prepared = {**prepared, "properties": {}}

    def fallback_base() -> dict[str, Any] | None:
        # The simplest input hypothesis finds, when the schema is beyond our own derivation.
        try:
            found: dict[str, Any] = simplest_example(input_strategy(schema, sandbox=sandbox))
        except (HypothesisException, GenerationError):
            return None
        return found

    paths = {}
    if sandbox is not None:
        slots = path_slots(schema, prepared, sandbox)
        paths = {name: slot.corners(sandbox) for name, slot in slots.items()}
    return plan_coverage(
        prepared,
        validator.is_valid,
        budget,
        fallback_base,
        original=schema,
        paths=paths,
        well_known=known_corners(known_slots(prepared)),
    )
