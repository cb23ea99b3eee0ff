"""Generate tool inputs from an MCP tool's JSON ``inputSchema``.

hypothesis-jsonschema only understands draft-04/06/07 and cannot follow recursive or
remote ``$ref``s, while MCP servers mostly publish 2020-12 schemas (pydantic, zod).  So
each schema is rewritten into one self-contained draft-07 schema, values are generated
from that, and every value is re-checked against the original schema.  The rewrite may
be loose; the re-check is what guarantees that no invalid input is ever sent.

hypothesis-jsonschema is also slow (it rebuilds the strategies of object members on every
draw), so the sub-schemas that use only simple keywords get strategies built directly
(``inputs/direct.py``), and it handles the rest; strategies are cached per schema.
"""

from __future__ import annotations

import copy
import json
import math
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Final, cast

import jsonschema
import jsonschema.exceptions
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument
from hypothesis.strategies import SearchStrategy

from pytest_mcp_contracts.inputs.coverage import CoveragePlan, plan_coverage
from pytest_mcp_contracts.inputs.direct import direct_strategy, mixed_strategy, utf8_alphabet
from pytest_mcp_contracts.inputs.examples import simplest_example
from pytest_mcp_contracts.inputs.hypothesis_compat import (
    FALSEY,
    HypothesisRefResolutionError,
    _from_schema,
    canonicalish,
    install,
)
from pytest_mcp_contracts.inputs.known import known_corners, known_slots, with_known_values
from pytest_mcp_contracts.inputs.sandbox import SandboxPaths, path_slots, with_sandbox_values
from pytest_mcp_contracts.schema import dialects
from pytest_mcp_contracts.schema.budgets import (
    DOCUMENT_DEPTH,
    EXPANDED_SUBSCHEMAS,
    RECURSION_UNROLL,
)
from pytest_mcp_contracts.schema.document import IN_PLACE_LISTS, IN_PLACE_SINGLES, SchemaDocument
from pytest_mcp_contracts.schema.paths import json_path
from pytest_mcp_contracts.schema.refs import (
    LEGACY_DIALECTS,
    SCHEMA_SINGLES,
    Unresolvable,
    escape,
    json_pointer,
    resolve_pointer,
)
from pytest_mcp_contracts.text import shorten_middle

if TYPE_CHECKING:
    from jsonschema.protocols import Validator

__all__ = [
    "GenerationError",
    "UserStrategyError",
    "coverage_plan",
    "explain_unsatisfiable",
    "given_inputs",
    "input_dialect",
    "input_strategy",
    "prepare_for_generation",
]

#: Longer required strings make hypothesis fail its ``large_base_example`` health check,
#: so they are built from a short repeated chunk instead (see ``_long_text``).
LONG_TEXT = 1_000
#: hypothesis-jsonschema checks each enum value against the whole schema, enum included,
#: which is quadratic: larger enums are generated from an evenly spread sample.
MAX_ENUM = 200

Schema = bool | dict[str, Any]

_REF_KEYWORDS = ("$ref", "$dynamicRef", "$recursiveRef")


class GenerationError(Exception):
    """Why no inputs can be generated for a schema.

    The message names the sub-schema (a JSON pointer like ``'#/properties/when'``) and
    the reason, in plain words, plus what to do; ``pointer`` holds the JSON pointer.
    """

    def __init__(self, message: str, *, pointer: str = "#") -> None:
        super().__init__(message)
        self.pointer = pointer


class UserStrategyError(GenerationError):
    """A strategy from the ``pytest_mcp_tool_strategy`` hook produced an invalid input."""


# --------------------------------------------------------------------------- dialects


def input_dialect(schema: Mapping[str, Any]) -> str:
    """The JSON Schema dialect a schema declares: "2020-12" (the default), "2019-09",
    "draft-07", "draft-06" or "draft-04"."""
    try:
        return dialects.dialect_of(schema)
    except dialects.UnsupportedDialect as exc:
        raise GenerationError(f"{exc}.", pointer="#/$schema") from None


# --------------------------------------------------------------------------- the document


def _load(schema: Mapping[str, Any]) -> SchemaDocument:
    if not isinstance(schema, Mapping):
        raise GenerationError(
            f"a tool's inputSchema must be a JSON object, not {type(schema).__name__}."
        )
    doc = SchemaDocument(schema, input_dialect(schema))
    too_deep = doc.refs.too_deep
    if too_deep is not None:
        raise GenerationError(
            f"the schema is nested deeper than {DOCUMENT_DEPTH} levels at {_short(too_deep)}. "
            "Deeper schemas exhaust the recursion limits of validators and generators; "
            "flatten the schema (recursive structures should use $ref).",
            pointer=too_deep,
        )
    return doc


def _short(pointer: str) -> str:
    return shorten_middle(pointer, 120)


# --------------------------------------------------------------------------- the rewrite


class _TooLarge(Exception):
    pass


@dataclass(frozen=True)
class _Trail:
    """Where the expansion is: how deep, which $refs it is inside, and which schemas it
    entered since it last moved into a member of the instance (a repeat there is a loop)."""

    depth: int
    refs: tuple[str, ...]
    in_place: tuple[str, ...]

    def member(self, ptr: str) -> _Trail:
        return _Trail(self.depth + 1, self.refs, (ptr,))

    def same_instance(self, ptr: str) -> _Trail:
        return _Trail(self.depth + 1, self.refs, (*self.in_place, ptr))

    def through_ref(self, target: str) -> _Trail:
        return _Trail(self.depth + 1, (*self.refs, target), (*self.in_place, target))


def _check_pattern(pattern: object, ptr: str) -> None:
    if not isinstance(pattern, str):
        return
    try:
        re.compile(pattern)
    except re.error as err:
        raise GenerationError(_pattern_message(pattern, ptr, err), pointer=ptr) from None


def _pattern_message(pattern: str, ptr: str, err: object) -> str:
    return (
        f"the pattern {pattern!r} at {_short(ptr)} cannot be used: Python's re module "
        f"rejects it ({err}). JSON Schema patterns are ECMA-262 regular expressions, and "
        "some of their syntax (such as \\p{L} Unicode property escapes) has no Python "
        "equivalent, so neither generation nor validation can run. Rewrite the pattern "
        "with portable syntax (e.g. [^\\W\\d_] for letters)."
    )


def _copy_value(value: Any) -> Any:
    # Keyword values are copied so that nothing downstream can mutate the caller's schema;
    # flat lists (a 100,000-value enum) do not need the cost of deepcopy.
    if isinstance(value, list) and not any(isinstance(v, (dict, list)) for v in value):
        return list(value)
    return copy.deepcopy(value)


class _Expander:
    """Turns (part of) a document into one self-contained draft-07 schema."""

    def __init__(self, doc: SchemaDocument, unroll: int) -> None:
        self.doc = doc
        self.unroll = unroll
        self.subschemas = 0

    def at(self, ptr: str) -> Schema:
        return self.schema(resolve_pointer(self.doc.root, ptr), ptr, _Trail(0, (), (ptr,)))

    def schema(self, node: object, ptr: str, trail: _Trail) -> Schema:
        if isinstance(node, bool):
            return node
        if not isinstance(node, Mapping):
            raise GenerationError(
                f"expected a schema (an object, true or false) at {_short(ptr)}, "
                f"found {node!r:.60}. Fix the tool's inputSchema.",
                pointer=ptr,
            )
        if trail.depth > DOCUMENT_DEPTH:
            return False  # only reachable through $refs: stop inlining them here
        self.subschemas += 1
        if self.subschemas > EXPANDED_SUBSCHEMAS:
            raise _TooLarge
        refs = [k for k in _REF_KEYWORDS if k in node and k in self.doc.keywords]
        if refs and self.doc.legacy:
            return self.follow(node, ptr, "$ref", trail)
        targets = [self.follow(node, ptr, k, trail) for k in refs]
        if any(target is False for target in targets):
            return False
        return self.keywords(node, ptr, trail, targets)

    def follow(self, node: Mapping[str, Any], at: str, keyword: str, trail: _Trail) -> Schema:
        """Inline the target of ``node[keyword]``, a ref written in the schema at ``at``."""
        ptr = f"{at}/{escape(keyword)}"
        target = self.locate(node[keyword], at, ptr)
        if target in trail.in_place:
            loop = [*trail.in_place[trail.in_place.index(target) :], target]
            raise GenerationError(
                f"the $ref at {_short(ptr)} is part of a loop ({' -> '.join(loop)}) that "
                "never moves into a property or item, so validating anything against it "
                "recurses forever. Break the loop: recursion must go through "
                "'properties', 'items' or similar.",
                pointer=ptr,
            )
        if trail.refs.count(target) >= self.unroll:
            # Past the bound, recursion stops: optional recursive members are left out
            # and anyOf [ref, null] picks null.
            return False
        return self.schema(
            resolve_pointer(self.doc.root, target), target, trail.through_ref(target)
        )

    def locate(self, ref: object, at: str, ptr: str) -> str:
        """The pointer a local reference leads to.  Never fetches anything."""
        try:
            return self.doc.refs.lookup(ref, at).pointer
        except Unresolvable as exc:
            raise GenerationError(_unresolvable_message(exc, ptr), pointer=ptr) from None

    def keywords(
        self, node: Mapping[str, Any], ptr: str, trail: _Trail, ref_targets: list[Schema]
    ) -> Schema:
        dialect = self.doc.dialect
        out: dict[str, Any] = {}
        dependencies: dict[str, Any] = {}
        unevaluated: dict[str, Schema] = {}
        for key, value in node.items():
            if key not in self.doc.keywords or key in _REF_KEYWORDS:
                continue  # annotations, unknown keywords, $defs: not needed once refs are inlined
            at = f"{ptr}/{escape(key)}"
            if key in ("properties", "patternProperties"):
                if not isinstance(value, Mapping):
                    raise GenerationError(f"{key} must be an object at {at}.", pointer=at)
                if key == "patternProperties":
                    for pattern in value:
                        _check_pattern(pattern, f"{at}/{escape(pattern)}")
                named = {name: f"{at}/{escape(name)}" for name in value}
                out[key] = {
                    name: self.schema(sub, named[name], trail.member(named[name]))
                    for name, sub in value.items()
                }
            elif key in IN_PLACE_LISTS or (
                key in ("items", "prefixItems") and isinstance(value, list)
            ):
                if not isinstance(value, list):
                    raise GenerationError(f"{key} must be an array at {at}.", pointer=at)
                step = trail.same_instance if key in IN_PLACE_LISTS else trail.member
                out[key] = [
                    self.schema(sub, f"{at}/{i}", step(f"{at}/{i}")) for i, sub in enumerate(value)
                ]
            elif key in IN_PLACE_SINGLES:
                out[key] = self.schema(value, at, trail.same_instance(at))
            elif key in ("unevaluatedProperties", "unevaluatedItems"):
                unevaluated[key] = self.schema(value, at, trail.member(at))
            elif key in SCHEMA_SINGLES:
                out[key] = self.schema(value, at, trail.member(at))
            elif key in ("dependencies", "dependentSchemas", "dependentRequired"):
                if not isinstance(value, Mapping):
                    raise GenerationError(f"{key} must be an object at {at}.", pointer=at)
                for name, dependency in value.items():
                    if isinstance(dependency, list):
                        merged: Any = list(dependency)
                    else:
                        sub_at = f"{at}/{escape(name)}"
                        merged = self.schema(dependency, sub_at, trail.same_instance(sub_at))
                    if name in dependencies:  # both dependentRequired and dependentSchemas
                        merged = {"allOf": [_as_schema(dependencies[name]), _as_schema(merged)]}
                    dependencies[name] = merged
            else:
                if key == "pattern":
                    _check_pattern(value, at)
                if key == "enum" and isinstance(value, list) and len(value) > MAX_ENUM:
                    value = value[:: math.ceil(len(value) / MAX_ENUM)]
                out[key] = _copy_value(value)

        if dependencies:
            out["dependencies"] = dependencies
        if dialect == "2020-12":
            # 2020-12 "prefixItems" + "items" are draft-07 array "items" + "additionalItems".
            prefix, rest = out.pop("prefixItems", None), out.pop("items", None)
            if prefix is not None:
                out["items"] = prefix
                if rest is not None:
                    out["additionalItems"] = rest
            elif rest is not None:
                out["items"] = rest
        if dialect not in LEGACY_DIALECTS and node.get("minContains") == 0:
            out.pop("contains", None)  # "contains" then asserts nothing; maxContains: re-check
        if ref_targets:
            out["allOf"] = [*ref_targets, *out.get("allOf", [])]
        if "unevaluatedProperties" in unevaluated:
            _rewrite_unevaluated_properties(out, unevaluated["unevaluatedProperties"])
        if "unevaluatedItems" in unevaluated:
            _rewrite_unevaluated_items(out, unevaluated["unevaluatedItems"])
        if list(out) == ["allOf"] and len(out["allOf"]) == 1:
            return cast(Schema, out["allOf"][0])
        return out


# What to do about each kind of unresolvable $ref (schema/refs.Unresolvable.reason).
_REF_ADVICE: Final = {
    "not-a-string": "Fix the tool's inputSchema.",
    "malformed": 'Fix the reference (a local one looks like "#/$defs/name").',
    "remote": "Inputs are generated offline: inline the referenced schema into the "
    'inputSchema (under $defs) and refer to it as "#/$defs/...".',
    "dangling": "Fix the reference or add the missing definition.",
}


def _unresolvable_message(exc: Unresolvable, ptr: str) -> str:
    return f"{exc.explain(_short(ptr))}. {_REF_ADVICE[exc.reason]}"


def _as_schema(dependency: Any) -> Schema:
    return {"required": dependency} if isinstance(dependency, list) else cast(Schema, dependency)


def _in_place_branches(schema: Mapping[str, Any]) -> Iterator[dict[str, Any]]:
    """Draft-07 sub-schemas applied to the same instance (whose properties count as evaluated)."""
    for key in ("allOf", "anyOf", "oneOf"):
        for branch in schema.get(key, ()):
            if isinstance(branch, dict):
                yield branch
                yield from _in_place_branches(branch)
    for key in ("if", "then", "else"):
        branch = schema.get(key)
        if isinstance(branch, dict):
            yield branch
            yield from _in_place_branches(branch)
    for dependency in schema.get("dependencies", {}).values():
        if isinstance(dependency, dict):
            yield dependency
            yield from _in_place_branches(dependency)


def _rewrite_unevaluated_properties(out: dict[str, Any], unevaluated: Schema) -> None:
    if "additionalProperties" in out:
        return  # every property is evaluated at this level already: a no-op
    branches = list(_in_place_branches(out))
    if any(b.get("additionalProperties", False) is not False for b in branches):
        return  # a branch evaluates arbitrary properties: leave it to the re-check
    # Allow exactly the properties some branch declares.  This may let through a property
    # whose branch fails (the re-check discards those), but unlike dropping the keyword it
    # does not fill most objects with extra properties for the re-check to reject.
    for key in ("properties", "patternProperties"):
        names = {name for b in branches for name in b.get(key, {})}
        if names - set(out.get(key, {})):
            out[key] = {**dict.fromkeys(sorted(names), True), **out.get(key, {})}
    out["additionalProperties"] = unevaluated


def _rewrite_unevaluated_items(out: dict[str, Any], unevaluated: Schema) -> None:
    items = out.get("items")
    if isinstance(items, (dict, bool)) or (isinstance(items, list) and "additionalItems" in out):
        return  # every item is evaluated at this level already: a no-op
    if "contains" in out or any(True for _ in _in_place_branches(out)):
        return  # which items those evaluate depends on the value: leave it to the re-check
    out["additionalItems" if isinstance(items, list) else "items"] = unevaluated


def _expand(doc: SchemaDocument, ptr: str = "#") -> Schema:
    for unroll in range(RECURSION_UNROLL, 0, -1):
        try:
            return _Expander(doc, unroll).at(ptr)
        except _TooLarge:
            continue
    raise GenerationError(
        f"inlining the $refs of the schema at {_short(ptr)} produces more than "
        f"{EXPANDED_SUBSCHEMAS} sub-schemas, even with recursion cut short. Simplify "
        "the schema's references.",
        pointer=ptr,
    )


def prepare_for_generation(schema: Mapping[str, Any]) -> dict[str, Any]:
    """Rewrite ``schema`` into a self-contained draft-07 schema for hypothesis-jsonschema.

    2019-09/2020-12 keywords become their draft-07 equivalents where that is sound (or a
    close approximation the re-check corrects), local ``$ref``s are inlined with recursion
    unrolled ``RECURSION_UNROLL`` times, annotations are dropped.  Pure: the input is not
    mutated and shares nothing with the result.  Raises GenerationError.
    """
    result = _expand(_load(schema))
    if isinstance(result, bool):
        return {} if result else {"not": {}}
    return result


# --------------------------------------------------------------------------- strategies


def _uuids() -> SearchStrategy[str]:
    return st.uuids().map(str)


def _iso_durations() -> SearchStrategy[str]:
    def render(parts: tuple[int | None, ...]) -> str:
        date = "".join(
            f"{n}{unit}" for n, unit in zip(parts[:3], "YMD", strict=True) if n is not None
        )
        time = "".join(
            f"{n}{unit}" for n, unit in zip(parts[3:], "HMS", strict=True) if n is not None
        )
        if not date and not time:
            return "P0D"
        return f"P{date}T{time}" if time else f"P{date}"

    part = st.none() | st.integers(0, 999)
    return st.tuples(*[part] * 6).map(render) | st.integers(0, 99).map("P{}W".format)


def _long_text(min_size: int, max_size: int | None) -> SearchStrategy[str]:
    upper = min_size + 100 if max_size is None else min(max_size, min_size + 100)

    def repeat(chunk: str, size: int) -> str:
        return (chunk * (size // len(chunk) + 1))[:size]

    return st.builds(repeat, st.text(min_size=1, max_size=16), st.integers(min_size, upper))


def _draft07_subschemas(schema: Mapping[str, Any]) -> Iterator[dict[str, Any]]:
    return (sub for _, sub in _draft07_children(schema))


def _custom_formats(prepared: dict[str, Any]) -> dict[str, SearchStrategy[str]]:
    """Strategies for formats hypothesis-jsonschema would fill with arbitrary strings, plus
    one pseudo-format per long string (rewritten in place in ``prepared``, our own copy)."""
    formats: dict[str, SearchStrategy[str]] = {"uuid": _uuids(), "duration": _iso_durations()}
    pending = [prepared]
    while pending:
        schema = pending.pop()
        min_length = schema.get("minLength", 0)
        if (
            isinstance(min_length, int)
            and min_length > LONG_TEXT
            and "pattern" not in schema
            and "format" not in schema
        ):
            max_length = schema.get("maxLength")
            name = f"x-pytest-mcp-contracts-long-text-{min_length}-{max_length}"
            formats[name] = _long_text(min_length, max_length)
            schema["format"] = name
        pending += _draft07_subschemas(schema)
    return formats


def _declared_properties_only(prepared: dict[str, Any]) -> None:
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
        pending += (sub for key, sub in _draft07_children(schema) if key != "allOf")


def _draft07_children(schema: Mapping[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    for key, value in schema.items():
        if key in ("properties", "patternProperties") or (
            key == "dependencies" and isinstance(value, dict)
        ):
            yield from ((key, v) for v in value.values() if isinstance(v, dict))
        elif key in ("allOf", "anyOf", "oneOf", "items") and isinstance(value, list):
            yield from ((key, v) for v in value if isinstance(v, dict))
        elif key in SCHEMA_SINGLES and isinstance(value, dict):
            yield key, value


def _as_tool_arguments(prepared: dict[str, Any]) -> dict[str, Any]:
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


def _check_schema(doc: SchemaDocument) -> None:
    """Reject schemas that are invalid for their own dialect, naming the offending spot."""
    key = _cache_key(doc.root)
    problem = _schema_problem(doc.dialect, key) if key is not None else _problem_of(doc)
    if problem is not None:
        message, pointer = problem
        raise GenerationError(message, pointer=pointer)


@lru_cache(maxsize=256)
def _schema_problem(dialect: str, schema_json: str) -> tuple[str, str] | None:
    # Validating against the metaschema walks the whole metaschema; a tool's inputSchema
    # is checked for its strategy and again for its coverage plan, so once is kept.
    return _problem_of(SchemaDocument(json.loads(schema_json), dialect))


def _problem_of(doc: SchemaDocument) -> tuple[str, str] | None:
    """(message, pointer) of what makes the schema invalid for its dialect, or None."""
    try:
        _metaschema_check(doc)
    except GenerationError as exc:
        return str(exc), exc.pointer
    return None


def _metaschema_check(doc: SchemaDocument) -> None:
    cls = dialects.validator_class(doc.dialect)
    meta = cls(cls.META_SCHEMA, format_checker=cls.FORMAT_CHECKER)
    try:
        error = jsonschema.exceptions.best_match(meta.iter_errors(doc.root))
    except RecursionError:  # pragma: no cover - depth is bounded by _scan
        raise GenerationError("the schema is too deeply nested to check.") from None
    if error is None:
        return
    ptr = json_pointer(list(error.absolute_path))
    if error.validator == "format" and error.validator_value == "regex":
        raise GenerationError(_pattern_message(str(error.instance), ptr, error.cause), pointer=ptr)
    hint = ""
    if error.absolute_path and error.absolute_path[-1] == "type":
        hint = " A type must be one of array, boolean, integer, null, number, object, string."
    raise GenerationError(
        f"the inputSchema is not a valid {doc.dialect} JSON Schema at {_short(ptr)}: "
        f"{error.message}.{hint} Fix the tool's inputSchema.",
        pointer=ptr,
    )


def _original_validator(doc: SchemaDocument) -> Validator:
    return dialects.make_validator(doc.root)


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
    formats = _custom_formats(prepared)
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
        key = _cache_key(schema)
        if key is not None:
            return _cached_input_strategy(key, sandbox)
    return _input_strategy(schema, overrides, sandbox)


#: How many schemas' strategies are kept (the plugin asks once or twice per tool).
CACHED_STRATEGIES = 256


def _cache_key(schema: object) -> str | None:
    """The schema as JSON text when that reads back as an equal schema, else None."""
    try:
        key = json.dumps(schema)
        return key if json.loads(key) == schema else None
    except (TypeError, ValueError, RecursionError):  # not JSON, or absurdly deep
        return None


@lru_cache(maxsize=CACHED_STRATEGIES)
def _cached_input_strategy(
    key: str, sandbox: SandboxPaths | None
) -> SearchStrategy[dict[str, Any]]:
    # Built from our own copy: a caller mutating its schema later cannot affect the strategy.
    return _input_strategy(json.loads(key), None, sandbox)


def _input_strategy(
    schema: Mapping[str, Any], overrides: Overrides | None, sandbox: SandboxPaths | None = None
) -> SearchStrategy[dict[str, Any]]:
    doc = _load(schema)
    _check_schema(doc)
    validator = _original_validator(doc)
    if isinstance(overrides, SearchStrategy):
        return overrides.map(_checked(validator, "the strategy from pytest_mcp_tool_strategy"))
    prepared = _expand(doc)
    if prepared is False:
        raise _unsatisfiable(doc)
    prepared = _as_tool_arguments({} if prepared is True else prepared)
    _declared_properties_only(prepared)
    if _takes_no_arguments(prepared) and validator.is_valid({}):
        # A no-argument tool: a client sends {}, never made-up keys (which would also count as
        # distinct inputs and inflate the tool's contract quality).
        return st.just({})
    fields = dict(overrides or {})
    _leave_to_user(prepared, fields)
    generated = _strategy_for(prepared)
    if generated.is_empty:
        raise _unsatisfiable(doc)
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
    check = _checked(validator, source, only=frozenset(fields))
    return mixed.map(check).filter(validator.is_valid)


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


def _takes_no_arguments(prepared: Mapping[str, Any]) -> bool:
    """The root declares no properties and nothing else about keys (the usual shape of a
    no-argument tool: ``{"type": "object", "properties": {}}``)."""
    return not prepared.get("properties") and not (_MAP_KEYWORDS & prepared.keys())


def coverage_plan(
    schema: Mapping[str, Any], budget: int, *, sandbox: SandboxPaths | None = None
) -> CoveragePlan:
    """The coverage phase's inputs for a tool's inputSchema (a ``coverage.CoveragePlan``):
    derived from the same draft-07 rewrite as the random inputs, each re-checked against the
    original schema; with a ``sandbox``, path properties start at a real file and visit its
    kinds of files and paths. Raises GenerationError like input_strategy."""
    from hypothesis.errors import HypothesisException

    doc = _load(schema)
    _check_schema(doc)
    validator = _original_validator(doc)
    prepared = _expand(doc)
    if prepared is False:
        return CoveragePlan(budget=budget, note="no value satisfies the inputSchema")
    prepared = _as_tool_arguments({} if prepared is True else prepared)
    _declared_properties_only(prepared)
    if _takes_no_arguments(prepared):
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


def _leave_to_user(prepared: dict[str, Any], fields: Mapping[str, Any]) -> None:
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


def _checked(
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


# --------------------------------------------------------------------------- diagnosis


def _unsatisfiable_pointers(doc: SchemaDocument, limit: int = 500) -> list[str]:
    """The innermost sub-schemas no value satisfies (best effort)."""
    found: list[str] = []
    for ptr in doc.refs.schema_pointers[:limit]:
        try:
            expanded = _expand(doc, ptr)
            if canonicalish(copy.deepcopy(expanded)) == FALSEY or _never_generated(expanded):
                found.append(ptr)
        except Exception:  # a diagnosis must not fail: skip what it cannot judge
            continue
    return [p for p in found if not any(q.startswith(p + "/") for q in found)]


def _never_generated(schema: Schema) -> bool:
    """The direct builder sees that no value satisfies ``schema`` (canonicalish misses some,
    such as minLength > maxLength)."""
    direct = direct_strategy(schema)
    return direct is not None and direct.is_empty


def _unsatisfiable(doc: SchemaDocument) -> GenerationError:
    pointers = _unsatisfiable_pointers(doc) or ["#"]
    where = ", ".join(_short(p) for p in pointers[:3])
    return GenerationError(
        f"no value satisfies the schema at {where}: its constraints contradict each other "
        "(or every choice leads to a recursive reference that had to be cut). Fix the "
        "inputSchema; as it stands, no call to this tool can be valid.",
        pointer=pointers[0],
    )


def _costly_constraints(doc: SchemaDocument) -> Iterator[str]:
    checked = set(dialects.validator_class(doc.dialect).FORMAT_CHECKER.checkers)
    generated = set(_from_schema.STRING_FORMATS) | {"uuid", "duration"}
    for ptr in doc.refs.schema_pointers:
        node = resolve_pointer(doc.root, ptr)
        if not isinstance(node, Mapping):
            continue
        where = _short(ptr)
        for key, limit in (("minItems", 50), ("minProperties", 20)):
            if isinstance(node.get(key), int) and node[key] > limit:
                yield (
                    f"{where}: {key} {node[key]} - every example must be this large, more "
                    "than hypothesis builds comfortably (HealthCheck.large_base_example)."
                )
        if "pattern" in node and "format" in node:
            yield f"{where}: pattern and format together - the pattern filters format values."
        long_text = isinstance(node.get("minLength"), int) and node["minLength"] > LONG_TEXT
        if long_text and ("pattern" in node or "format" in node):
            yield f"{where}: minLength {node['minLength']} with a pattern or format - rarely met."
        if node.get("format") in checked - generated:
            yield f"{where}: format {node['format']!r} is checked but not generated."
        if "oneOf" in node:
            yield f"{where}: oneOf - values matching several branches are discarded."
        if "not" in node:
            yield f"{where}: not - values are generated, then discarded when they match."
        for key in ("unevaluatedProperties", "unevaluatedItems", "minContains", "maxContains"):
            if key in node:
                yield f"{where}: {key} - approximated; the re-check discards the rest."
        if "dependentSchemas" in node:
            yield f"{where}: dependentSchemas - values violating them are discarded."


def explain_unsatisfiable(schema: Mapping[str, Any]) -> str:
    """Best-effort explanation for hypothesis reporting Unsatisfiable or
    FailedHealthCheck (filter_too_much, large_base_example) while drawing inputs."""
    try:
        doc = _load(schema)
        _check_schema(doc)
        _expand(doc)
    except GenerationError as err:
        return str(err)
    causes = [
        f"{_short(p)}: no value satisfies this sub-schema (its constraints contradict each other)."
        for p in _unsatisfiable_pointers(doc)
    ]
    causes += list(_costly_constraints(doc))[:10]
    if not causes:
        return (
            "No single sub-schema stands out. Inputs are generated from a draft-07 rewrite "
            "of the schema and discarded when the original schema rejects them; a schema "
            "whose constraints are rarely met by chance (patterns, formats, combined "
            "keywords) makes hypothesis give up."
        )
    return "Hypothesis could not generate enough valid inputs. Likely causes:\n" + "\n".join(
        f"- {cause}" for cause in causes
    )


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
