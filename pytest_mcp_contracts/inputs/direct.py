"""Strategies built directly from hypothesis primitives for the simple schemas most tools use.

hypothesis-jsonschema canonicalises sub-schemas and rebuilds the strategies of object
members on every draw, so drawing from it costs far more than calling the tool.  Most
tool schemas only combine a few keywords (typed properties, arrays of objects, enums,
bounds, patterns, formats), and for those a strategy can be built once, directly.

This module maps the prepared draft-07 schema (``$ref``s inlined, objects closed, see
``generate``) to such a strategy, one sub-schema at a time.  A sub-schema using anything
it does not fully understand goes to the fallback (hypothesis-jsonschema) as a whole,
while its siblings and ancestors stay direct.  Mixing is sound because in draft-07 a
sub-schema constrains only its own instance, and every value is re-checked against the
original schema afterwards anyway (``generate.input_strategy``).

What is covered, and how it compares with hypothesis-jsonschema: the same string
alphabet (all of Unicode but surrogates, ``\\x00`` included), the same pattern and format
strategies, optional properties present or absent, empty strings and arrays when allowed,
bounds reachable; "number" draws integers as well as floats, and tuple-form ``items``
(2020-12 ``prefixItems``) may also end before the last positional item.
"""

from __future__ import annotations

import copy
import math
import operator
import re
import sys
from collections.abc import Callable, Mapping
from functools import cache, partial
from typing import TYPE_CHECKING, Any, cast

import jsonschema
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument
from hypothesis.strategies import SearchStrategy

from pytest_mcp_contracts.inputs.hypothesis_compat import (
    IntervalSet,
    _from_schema,
    encode_canonical_json,
)
from pytest_mcp_contracts.schema.dialects import offline

if TYPE_CHECKING:
    from jsonschema.protocols import Validator

__all__ = ["ANNOTATIONS", "SUPPORTED", "direct_strategy", "mixed_strategy", "utf8_alphabet"]

Fallback = Callable[[Any], SearchStrategy[Any]]

#: Keywords that never constrain a value.
ANNOTATIONS = frozenset(
    {
        "title",
        "description",
        "default",
        "examples",
        "$comment",
        "deprecated",
        "readOnly",
        "writeOnly",
        "$schema",
        "$id",
        "$defs",
        "definitions",
        "contentMediaType",
        "contentEncoding",
    }
)
#: The keywords the direct builder understands (draft-07, as ``generate`` prepares them).
#: ``allOf``/``anyOf``/``oneOf`` only when alone in their schema, ``allOf`` with one branch,
#: ``multipleOf`` only as an integer on integers; ``enum``/``const`` go with anything (the
#: listed values are checked against the rest).  Anything else (``not``, ``if``,
#: ``dependencies``, ``patternProperties``, ``propertyNames``, ``contains``,
#: ``minProperties``...) sends the sub-schema to the fallback.
SUPPORTED = frozenset(
    {
        "type",
        "enum",
        "const",
        "allOf",
        "anyOf",
        "oneOf",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "minLength",
        "maxLength",
        "pattern",
        "format",
        "items",
        "additionalItems",
        "minItems",
        "maxItems",
        "uniqueItems",
        "properties",
        "required",
        "additionalProperties",
    }
)
# The order a type union is drawn in, not ``document.TYPE_ORDER`` (the order types are shown
# in): hypothesis shrinks toward the first branch, so the simplest types come first.
_TYPES = ("null", "boolean", "integer", "number", "string", "array", "object")
_COMBINATORS = ("allOf", "anyOf", "oneOf")
# What building a hypothesis strategy may raise for arguments it refuses: the sub-schema
# then goes to the fallback, which has its own ways (and error messages) for those.
_REFUSED = (InvalidArgument, re.error, ValueError, TypeError, OverflowError)


class _NotDirect(Exception):
    """A sub-schema the direct builder does not handle."""


# Every code point UTF-8 encodes: all of Unicode but the surrogates, each one decoding back
# to itself.
UTF8_INTERVALS = ((0, 0xD7FF), (0xE000, sys.maxunicode))


@cache
def utf8_alphabet() -> _from_schema.CharStrategy:
    """The characters of every generated string, here and in hypothesis-jsonschema
    (``generate._build``): what ``CharStrategy.from_args(allow_x00=True, codec="utf-8")``
    gives, built from the intervals UTF-8 is known to encode. hypothesis finds a codec's
    characters by encoding each of the 1.1 million code points, seconds of CPU, and keeps
    the table in its storage folder, ``.hypothesis/``, which a CI checkout starts without:
    so every run in CI would pay them before its first string."""
    alphabet = _from_schema.CharStrategy(
        IntervalSet(UTF8_INTERVALS), force_repr="characters(codec='utf-8')"
    )
    alphabet.allow_x00 = True
    alphabet.codec = "utf-8"
    return alphabet


def _any_json() -> SearchStrategy[Any]:
    return cast("SearchStrategy[Any]", _from_schema.JSON_STRATEGY)


def direct_strategy(
    prepared: Any, custom_formats: Mapping[str, SearchStrategy[str]] | None = None
) -> SearchStrategy[Any] | None:
    """A strategy for the prepared draft-07 schema built without hypothesis-jsonschema, or
    None when some sub-schema uses a keyword the direct builder does not understand."""
    try:
        return _Builder(custom_formats or {}, None).build(prepared)
    except _NotDirect:
        return None


def mixed_strategy(
    prepared: Any, custom_formats: Mapping[str, SearchStrategy[str]], fallback: Fallback
) -> tuple[SearchStrategy[Any], int]:
    """A strategy for the prepared schema: direct wherever possible, ``fallback(sub)`` for
    each outermost sub-schema that is not.  Also returns how many sub-schemas fell back."""
    builder = _Builder(custom_formats, fallback)
    return builder.build(prepared), builder.fallbacks


def _integral(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _NotDirect
    return value


def _numeric(value: object) -> int | float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _NotDirect
    if isinstance(value, float) and not math.isfinite(value):
        raise _NotDirect
    return value


def _as_float(value: int | float) -> float:
    """``value`` as a float, if it is one exactly (hypothesis refuses inexact bounds)."""
    try:
        result = float(value)
    except OverflowError:
        raise _NotDirect from None
    if result != value or not math.isfinite(result):
        raise _NotDirect
    return result


def _draft07_validator(schema: dict[str, Any]) -> Validator:
    return offline(jsonschema.Draft7Validator, schema)


def _fresh(value: Any) -> Any:
    return copy.deepcopy(value)


def _no_negative_zero(number: float) -> float:
    return number if number != 0 else 0.0


def _merge(pair: tuple[dict[str, Any], dict[str, Any]]) -> dict[str, Any]:
    declared, extra = pair
    return {**extra, **declared}


def _concat(pair: tuple[tuple[Any, ...], list[Any]]) -> list[Any]:
    return [*pair[0], *pair[1]]


def _length_between(min_size: int, max_size: int | None) -> Callable[[str], bool]:
    def check(value: str) -> bool:
        return min_size <= len(value) and (max_size is None or len(value) <= max_size)

    return check


def _not_in(names: frozenset[str]) -> Callable[[str], bool]:
    return lambda name: name not in names


def _one_of(strategies: list[SearchStrategy[Any]]) -> SearchStrategy[Any]:
    possible = [s for s in strategies if not s.is_empty]
    return st.one_of(possible) if possible else st.nothing()


class _Builder:
    def __init__(
        self, custom_formats: Mapping[str, SearchStrategy[str]], fallback: Fallback | None
    ) -> None:
        self.formats: dict[str, Any] = {**_from_schema.STRING_FORMATS, **custom_formats}
        self.fallback = fallback
        self.fallbacks = 0

    def build(self, schema: Any) -> SearchStrategy[Any]:
        try:
            return self.direct(schema)
        except (_NotDirect, *_REFUSED):
            if self.fallback is None:
                raise _NotDirect from None
            self.fallbacks += 1
            return self.fallback(schema)

    def direct(self, schema: Any) -> SearchStrategy[Any]:
        if schema is True:
            return _any_json()
        if schema is False:
            return st.nothing()
        if not isinstance(schema, dict):
            raise _NotDirect
        keywords = schema.keys() - ANNOTATIONS
        if "enum" in keywords or "const" in keywords:
            return self.choice(schema, keywords)  # whatever else the schema says
        if keywords - SUPPORTED:
            raise _NotDirect
        for combinator in _COMBINATORS:
            if combinator in keywords:
                if keywords != {combinator}:
                    raise _NotDirect  # would need merging with its siblings
                return self.combination(combinator, schema)
        if not keywords:
            return _any_json()
        by_type: dict[str, Callable[[dict[str, Any]], SearchStrategy[Any]]] = {
            "null": lambda _: st.none(),
            "boolean": lambda _: st.booleans(),
            "integer": self.integer,
            "number": self.number,
            "string": self.string,
            "array": self.array,
            "object": self.object,
        }
        return _one_of([by_type[name](schema) for name in self.types(schema)])

    @staticmethod
    def types(schema: Mapping[str, Any]) -> list[str]:
        declared = schema.get("type", list(_TYPES))
        names = [declared] if isinstance(declared, str) else declared
        if not isinstance(names, list) or not set(names) <= set(_TYPES):
            raise _NotDirect
        if "number" in names and "integer" in names:
            names = [n for n in names if n != "integer"]  # "number" draws integers too
        return [t for t in _TYPES if t in names]

    # ---------------------------------------------------------------- choices, combinators

    def choice(self, schema: dict[str, Any], keywords: set[str]) -> SearchStrategy[Any]:
        """Enum or const: the listed values the rest of the schema accepts."""
        source = "enum" if "enum" in keywords else "const"
        values = schema["enum"] if source == "enum" else [schema["const"]]
        if not isinstance(values, list):
            raise _NotDirect
        rest = {k: v for k, v in schema.items() if k != source and k not in ANNOTATIONS}
        if rest:
            validator = _draft07_validator(rest)
            values = [v for v in values if validator.is_valid(v)]
        if not values:
            return st.nothing()
        strategy: SearchStrategy[Any] = st.sampled_from(values)
        if any(isinstance(v, (dict, list)) for v in values):
            strategy = strategy.map(_fresh)  # a caller mutating one must not change the next
        return strategy

    def combination(self, combinator: str, schema: dict[str, Any]) -> SearchStrategy[Any]:
        branches = schema[combinator]
        if not isinstance(branches, list) or not branches:
            raise _NotDirect
        if combinator == "allOf":
            if len(branches) != 1:
                raise _NotDirect  # would need merging
            return self.build(branches[0])
        strategy = _one_of([self.build(branch) for branch in branches])
        if combinator == "oneOf" and len(branches) > 1:
            # A value matching several branches is invalid: drop it here, where a retry is cheap.
            strategy = strategy.filter(_draft07_validator(schema).is_valid)
        return strategy

    # ---------------------------------------------------------------- numbers

    @staticmethod
    def integer_bounds(schema: Mapping[str, Any]) -> tuple[int | None, int | None]:
        lows: list[int] = []
        highs: list[int] = []
        if "minimum" in schema:
            lows.append(math.ceil(_numeric(schema["minimum"])))
        if "exclusiveMinimum" in schema:
            lows.append(math.floor(_numeric(schema["exclusiveMinimum"])) + 1)
        if "maximum" in schema:
            highs.append(math.floor(_numeric(schema["maximum"])))
        if "exclusiveMaximum" in schema:
            highs.append(math.ceil(_numeric(schema["exclusiveMaximum"])) - 1)
        return (max(lows) if lows else None), (min(highs) if highs else None)

    def integer(self, schema: Mapping[str, Any]) -> SearchStrategy[Any]:
        low, high = self.integer_bounds(schema)
        if "multipleOf" in schema:
            step = schema["multipleOf"]
            if isinstance(step, float) and step.is_integer():
                step = int(step)
            step = _integral(step)
            if step <= 0:
                raise _NotDirect
            low = None if low is None else -(-low // step)
            high = None if high is None else high // step
            if low is not None and high is not None and low > high:
                return st.nothing()
            return st.integers(low, high).map(partial(operator.mul, step))
        if low is not None and high is not None and low > high:
            return st.nothing()
        return st.integers(low, high)

    def number(self, schema: Mapping[str, Any]) -> SearchStrategy[Any]:
        if "multipleOf" in schema:
            raise _NotDirect
        bounds: dict[str, Any] = {}
        for side, inclusive, exclusive, tighter in (
            ("min", "minimum", "exclusiveMinimum", operator.gt),
            ("max", "maximum", "exclusiveMaximum", operator.lt),
        ):
            bound: tuple[int | float, bool] | None = None
            if inclusive in schema:
                bound = (_numeric(schema[inclusive]), False)
            if exclusive in schema:
                value = _numeric(schema[exclusive])
                if bound is None or value == bound[0] or tighter(value, bound[0]):
                    bound = (value, True)
            if bound is not None:
                bounds[f"{side}_value"] = _as_float(bound[0])
                bounds[f"exclude_{side}"] = bound[1]
        low, high = bounds.get("min_value"), bounds.get("max_value")
        floats: SearchStrategy[Any] = st.nothing()
        empty = (
            low is not None
            and high is not None
            and (low > high or (low == high and (bounds["exclude_min"] or bounds["exclude_max"])))
        )
        if not empty:
            floats = st.floats(allow_nan=False, allow_infinity=False, **bounds)
            floats.validate()  # InvalidArgument (no float in range): the fallback decides
            floats = floats.map(_no_negative_zero)  # JSON has no negative zero to speak of
        # Clients send integers for numbers all the time, so they are drawn too.
        return _one_of([floats, self.integer(schema)])

    # ---------------------------------------------------------------- strings

    def string(self, schema: Mapping[str, Any]) -> SearchStrategy[Any]:
        min_size = _integral(schema.get("minLength", 0))
        max_size = None if "maxLength" not in schema else _integral(schema["maxLength"])
        if max_size is not None and min_size > max_size:
            return st.nothing()
        pattern = schema.get("pattern")
        name = schema.get("format")
        if pattern is not None and not isinstance(pattern, str):
            raise _NotDirect
        if name is not None and not isinstance(name, str):
            raise _NotDirect
        strategy: SearchStrategy[str]
        if name in self.formats:  # unknown formats are annotations: generated as any text
            known = self.formats[name]
            strategy = known if isinstance(known, SearchStrategy) else known(utf8_alphabet())
            if pattern is not None:
                strategy = strategy.filter(re.compile(pattern).search)
        elif pattern is not None:
            # Not anchored, like JSON Schema's patterns: the match may sit inside the string.
            strategy = _from_schema.from_js_regex(pattern, alphabet=utf8_alphabet())
        else:
            return st.text(utf8_alphabet(), min_size=min_size, max_size=max_size)
        if min_size or max_size is not None:
            strategy = strategy.filter(_length_between(min_size, max_size))
        return strategy

    # ---------------------------------------------------------------- arrays

    def array(self, schema: Mapping[str, Any]) -> SearchStrategy[Any]:
        min_size = _integral(schema.get("minItems", 0))
        max_size = None if "maxItems" not in schema else _integral(schema["maxItems"])
        unique = schema.get("uniqueItems", False)
        if not isinstance(unique, bool):
            raise _NotDirect
        if max_size is not None and min_size > max_size:
            return st.nothing()
        items = schema.get("items", True)
        if isinstance(items, list):
            if unique:
                raise _NotDirect
            return self.positional(items, schema.get("additionalItems", True), min_size, max_size)
        elements = self.build(items)
        if elements.is_empty:
            return st.nothing() if min_size > 0 else st.builds(list)
        return st.lists(
            elements,
            min_size=min_size,
            max_size=max_size,
            unique_by=encode_canonical_json if unique else None,
        )

    def positional(
        self, items: list[Any], additional: Any, min_size: int, max_size: int | None
    ) -> SearchStrategy[Any]:
        """Tuple-form ``items`` (2020-12 ``prefixItems``): every positional item is
        optional, so all lengths from ``min_size`` on are drawn, the full tuple first."""
        heads = [self.build(item) for item in items]
        usable = next((i for i, s in enumerate(heads) if s.is_empty), len(heads))
        options: list[SearchStrategy[Any]] = []
        if usable == len(heads) and (max_size is None or max_size >= len(heads)):
            rest = self.build(additional)
            low = max(0, min_size - len(heads))
            high = None if max_size is None else max_size - len(heads)
            full = st.tuples(*heads)
            if not rest.is_empty and high != 0:
                options.append(
                    st.tuples(full, st.lists(rest, min_size=low, max_size=high)).map(_concat)
                )
            elif low == 0:
                options.append(full.map(list))
        top = min(usable, len(heads) - 1, len(heads) if max_size is None else max_size)
        options += [st.tuples(*heads[:n]).map(list) for n in range(min_size, top + 1)]
        return _one_of(options)

    # ---------------------------------------------------------------- objects

    def object(self, schema: Mapping[str, Any]) -> SearchStrategy[Any]:
        properties = schema.get("properties", {})
        required = schema.get("required", [])
        additional = schema.get("additionalProperties", True)
        if not isinstance(properties, dict) or not isinstance(required, list):
            raise _NotDirect
        if not all(isinstance(name, str) for name in required):
            raise _NotDirect
        if set(required) - properties.keys():
            raise _NotDirect  # a required name only additionalProperties can supply
        mandatory: dict[str, SearchStrategy[Any]] = {}
        optional: dict[str, SearchStrategy[Any]] = {}
        for name, sub in properties.items():
            strategy = self.build(sub)
            if name in required:
                if strategy.is_empty:
                    return st.nothing()
                mandatory[name] = strategy
            elif not strategy.is_empty:  # e.g. a recursion cut short: leave it out
                optional[name] = strategy
        declared = st.fixed_dictionaries(mandatory, optional=optional)
        extra_values = self.build(additional)
        if extra_values.is_empty:
            return declared
        names: SearchStrategy[str] = st.text(utf8_alphabet())
        if properties:
            names = names.filter(_not_in(frozenset(properties)))
        extra = st.dictionaries(names, extra_values)
        if not properties:
            return extra  # a free-form map
        return st.tuples(declared, extra).map(_merge)
