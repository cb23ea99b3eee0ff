"""What the schemas of one field allow, as a summary reads them: one ``FieldView`` (types,
properties and which are required, whether other keys are allowed, items, enum values,
formats and limits), ``allOf`` conjuncts met and ``anyOf``/``oneOf`` alternatives joined
(``merge_views``). The walker (``schema/field_walker``) makes the views as it follows refs.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from pytest_mcp_contracts.schema.document import json_type

ENUM_SHOWN: Final = 5


@dataclass(frozen=True, eq=False)
class SubSchema:
    """One subschema, or several that together describe one field."""

    schema: Any = None
    chain: tuple[str, ...] = ()  # local $refs followed to reach it: a repeat is recursion
    parts: tuple[SubSchema, ...] = ()
    alternatives: bool = False  # parts are anyOf/oneOf branches rather than allOf conjuncts


def combined(subs: list[SubSchema], alternatives: bool) -> SubSchema:
    return subs[0] if len(subs) == 1 else SubSchema(parts=tuple(subs), alternatives=alternatives)


@dataclass
class FieldView:
    """What the schemas of one field allow, their combinators and refs merged."""

    types: list[str] = field(default_factory=list)
    is_object: bool = False
    props: dict[str, SubSchema] = field(default_factory=dict)
    required: set[str] = field(default_factory=set)
    open: bool = False
    extra: SubSchema | None = None
    items: SubSchema | None = None
    enum: list[Any] = field(default_factory=list)
    enum_count: int = 0
    formats: list[str] = field(default_factory=list)
    limits: dict[str, Any] = field(default_factory=dict)  # LIMITS keywords and their values
    capped: bool = False


# The keywords that bound a value, as a summary shows them; for each bound, which value of
# two conjuncts (allOf) is the tighter.
LIMITS: Final = {
    "minimum": max,
    "exclusiveMinimum": max,
    "maximum": min,
    "exclusiveMaximum": min,
    "multipleOf": None,
    "minLength": max,
    "maxLength": min,
    "pattern": None,
    "minItems": max,
    "maxItems": min,
    "uniqueItems": None,
    "minProperties": max,
    "maxProperties": min,
}


def own_limits(schema: Mapping[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for keyword in LIMITS:
        value = schema.get(keyword)
        if keyword == "pattern":
            usable = isinstance(value, str)
        elif keyword == "uniqueItems":
            usable = value is True
        else:
            usable = isinstance(value, int | float) and not isinstance(value, bool)
        if usable:
            found[keyword] = value
    # Draft-04: a boolean exclusiveMinimum (exclusiveMaximum) makes minimum (maximum) strict.
    for bound, strict in (("minimum", "exclusiveMinimum"), ("maximum", "exclusiveMaximum")):
        if schema.get(strict) is True and bound in found:
            found[strict] = found.pop(bound)
    return found


def _merged_limits(views: list[FieldView], *, alternatives: bool) -> dict[str, Any]:
    """Conjuncts (allOf) hold every bound, the tighter where both set one; alternatives
    (anyOf, oneOf) only a bound every branch sets alike."""
    if alternatives:
        first, *others = [view.limits for view in views]
        return {k: v for k, v in first.items() if all(o.get(k) == v for o in others)}
    out: dict[str, Any] = {}
    for view in views:
        for keyword, value in view.limits.items():
            tighter = LIMITS[keyword]
            held = out.get(keyword)
            out[keyword] = value if held is None or tighter is None else tighter(held, value)
    return out


def view_types(view: FieldView) -> list[str]:
    if view.types:
        return view.types
    if view.is_object:
        return ["object"]
    if view.items is not None:
        return ["array"]
    if view.enum:
        return unique(_kind(value) for value in view.enum)
    return ["any"]


def _kind(value: Any) -> str:
    try:
        return json_type(value)
    except TypeError:
        return "any"


def unique(names: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(names))


def _meet(a: list[str], b: list[str]) -> list[str]:
    """Types allowed by both (allOf); an unconstrained side allows anything."""
    if not a or "any" in a:
        return b or a
    if not b or "any" in b:
        return a
    return [t for t in a if t in b] or a + [t for t in b if t not in a]  # contradiction: show all


def merge_views(views: list[FieldView], *, alternatives: bool) -> FieldView:
    if len(views) == 1:
        return views[0]
    out = FieldView()
    props: dict[str, list[SubSchema]] = {}
    extras: list[SubSchema] = []
    items: list[SubSchema] = []
    for view in views:
        if alternatives:
            out.types += [t for t in view_types(view) if t not in out.types]
        else:
            out.types = _meet(out.types, view.types)
        for key, sub in view.props.items():
            props.setdefault(key, []).append(sub)
        extras += [view.extra] if view.extra else []
        items += [view.items] if view.items else []
        out.enum += view.enum[: ENUM_SHOWN - len(out.enum)]
        out.enum_count += view.enum_count
        out.formats += [f for f in view.formats if f not in out.formats]
        out.capped |= view.capped
    out.limits = _merged_limits(views, alternatives=alternatives)
    out.props = {key: combined(subs, alternatives) for key, subs in props.items()}
    out.extra = combined(extras, alternatives) if extras else None
    out.items = combined(items, alternatives) if items else None
    objects = [view for view in views if view.is_object]
    if objects:
        out.is_object = True
        # A branch of a union need not have a field its sibling requires; a conjunct must.
        if alternatives:
            out.required = set.intersection(*(view.required for view in objects))
            out.open = any(view.open for view in objects)
        else:
            out.required = set().union(*(view.required for view in objects))
            out.open = all(view.open for view in objects)
    return out
