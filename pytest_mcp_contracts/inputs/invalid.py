"""Unambiguously invalid tool inputs, derived from a tool's inputSchema and one valid input.

The ``rejects_invalid`` check sends a tool arguments that it must refuse. "Unambiguously
invalid" means here that no reasonable reading of the schema accepts them:

- each case is ONE small, named mutation of an input that is valid for the schema (so the
  mutation, and nothing else, is what makes it invalid): a required property removed; a
  declared property given a value of a JSON type its ``type`` excludes (never a look-alike
  a lenient server might coerce, such as ``"5"`` for 5: a word like ``"not a number"``);
  a numeric bound, length, size, ``enum``, ``const``, ``multipleOf``, ``uniqueItems`` or
  ``pattern`` constraint broken; an undeclared property where ``additionalProperties`` (or
  ``unevaluatedProperties``) is false;
- the violation holds by construction (a string one character shorter than ``minLength``,
  a value of a type outside ``type``), so the ``why`` text is true whatever else the value
  breaks. Nothing relies on keywords that implementations legitimately treat differently:
  ``format`` is never the thing broken, patterns are probed with plain ASCII strings only,
  and integers are sent where the schema wants integers;
- every case is then judged by a real validator for the schema's own dialect
  (``schemas.make_validator``) and kept only when that validator refuses it, so dialect
  details (draft-04's boolean ``exclusiveMinimum``, ``$ref`` siblings being ignored before
  2019-09, ``unevaluatedProperties``) are settled by the validator, not guessed.

Pure and bounded: nothing is fetched (only local ``$ref``s are followed, at most
``REF_HOPS`` deep), nested objects are followed at most ``MUTATION_DEPTH`` levels, at most
``MAX_ATTEMPTS`` candidates are judged, and huge ``enum``s are searched through a set.
"""

from __future__ import annotations

import copy
import json
import math
import re
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, TypeGuard

from jsonschema.protocols import Validator

from pytest_mcp_contracts.schema.budgets import MUTATION_DEPTH, REF_HOPS
from pytest_mcp_contracts.schema.dialects import dialect_of, make_validator
from pytest_mcp_contracts.schema.document import SchemaDocument, declared_types, json_type

EXTRA_PROPERTY: Final = "__unexpected_property"
EXTRA_VALUE: Final = "x"
MAX_VIEWS: Final = 32  # schema objects that apply to one value, at most
MAX_NODES: Final = 256  # objects (root and nested) whose properties are mutated
MAX_ATTEMPTS: Final = 512  # candidates built and judged per call, at most
MAX_STRING: Final = 100_000  # longest string built to break a length bound
MAX_ITEMS: Final = 1_000  # longest array built to break a size bound

_KINDS: Final = 4  # missing required, wrong type, constraint, extra property
LOOK_ALIKES: Final = 3  # lax look-alikes sent besides (kind 5), outside the limit
_UNEVALUATED: Final = frozenset({"2019-09", "2020-12"})

# "type" names as sets of atoms, so that "number" contains "integer".
_ATOMS: Final[dict[str, frozenset[str]]] = {
    "null": frozenset({"null"}),
    "boolean": frozenset({"boolean"}),
    "string": frozenset({"string"}),
    "array": frozenset({"array"}),
    "object": frozenset({"object"}),
    "integer": frozenset({"integer"}),
    "number": frozenset({"integer", "fraction"}),
}
# The order wrong-type messages name the allowed types in ("string or integer"): their own,
# not ``document.TYPE_ORDER``, since those messages are quoted as they are.
_TYPE_ORDER: Final = ("object", "array", "string", "number", "integer", "boolean", "null")
_WRONG_FOR: Final[dict[str, Any]] = {
    "integer": "not a number",
    "number": "not a number",
    "string": 12345,
    "boolean": "not a boolean",
    "array": "not a list",
    "object": "not an object",
    "null": "not null",
}
_WRONG_FALLBACKS: Final[tuple[Any, ...]] = (
    "not a valid value",
    12345,
    True,
    ["not", "valid"],
    {"not": "valid"},
    None,
)
_PATTERN_PROBES: Final = ("zz-not-matching-pattern", "", "!", "0", "A", " ", "zz_!@#")

Path = tuple[str, ...]


@dataclass(frozen=True)
class InvalidInput:
    """One input the tool must refuse."""

    arguments: dict[str, Any]  # what to send as tools/call arguments (always a JSON object)
    why: str  # e.g. "required property 'sku' is missing"
    path: str  # dotted path of the mutated field ("address.city"); "" for the root object
    # A look-alike that lenient validators coerce ("true" for a boolean, "3" for an integer:
    # pydantic's lax mode): accepting it is counted, not held against the tool.
    lax: bool = False


@dataclass(frozen=True)
class _Mutation:
    parent: Path  # the object that changes
    key: str  # the property of it that is removed or set
    delete: bool
    value: Any
    why: str
    path: str
    lax: bool = False


@dataclass(frozen=True)
class _Context:
    """The schema document the invalid inputs are derived from."""

    doc: SchemaDocument

    def views(self, schema: Any) -> list[Mapping[str, Any]]:
        """The schema objects whose keywords all apply to a value of ``schema``: itself,
        its local ``$ref`` targets and its ``allOf`` members (bounded). Before 2019-09 a
        ``$ref`` hides its siblings, so such a schema contributes only its target."""
        out: list[Mapping[str, Any]] = []
        seen: set[int] = set()
        queue: deque[tuple[Any, int]] = deque([(schema, 0)])
        while queue and len(out) < MAX_VIEWS:
            node, hops = queue.popleft()
            if not isinstance(node, Mapping) or hops > REF_HOPS or id(node) in seen:
                continue
            seen.add(id(node))
            if "$ref" in node:
                # Remote and dangling refs add nothing: never fetched, never guessed.
                target = self.doc.refs.find(node["$ref"], node)
                if target is not None:
                    queue.append((target.schema, hops + 1))
                if self.doc.legacy:
                    continue
            out.append(node)
            members = node.get("allOf")
            if isinstance(members, list):
                queue.extend((member, hops + 1) for member in members[:MAX_VIEWS])
        return out


@dataclass(frozen=True)
class _InputObject:
    """An object in the valid input, with the schema objects that apply to it."""

    path: Path
    views: list[Mapping[str, Any]]
    value: Mapping[str, Any]
    properties: list[tuple[str, list[Mapping[str, Any]]]]  # declared AND present


def invalid_inputs(
    schema: Mapping[str, Any], valid: Mapping[str, Any], *, limit: int = 12
) -> list[InvalidInput]:
    """Up to ``limit`` inputs derived from ``valid`` that ``schema`` refuses.

    Cases come in this order of kinds: required properties removed, declared properties
    given a wrong JSON type, constraints violated, an undeclared property added where
    additional properties are forbidden; within a kind, top-level fields come before
    nested ones. When there are more cases than ``limit``, the kinds take turns, so every
    kind that has a case is represented. Each case is judged by the schema's own validator
    and kept only if it is invalid. Returns [] when the schema cannot be used (invalid,
    unknown dialect) or ``valid`` is not actually valid for it.
    """
    if limit <= 0 or not isinstance(schema, Mapping) or not isinstance(valid, Mapping):
        return []
    try:
        dialect = dialect_of(schema)
        validator = make_validator(schema)
    except Exception:  # unsupported dialect, a validator that cannot be built
        return []
    try:
        validator.check_schema(dict(schema))
    except RecursionError:
        pass  # too deep for the meta-schema; each case is still judged by the validator
    except Exception:  # SchemaError: invalid for its own dialect, nothing can be promised
        return []
    try:
        base = copy.deepcopy(dict(valid))
    except RecursionError:
        return []
    if _judge(validator, base) is not True:
        return []

    ctx = _Context(SchemaDocument(schema, dialect))
    nodes = _nodes(ctx, base)
    makers: tuple[Callable[[_Context, _InputObject], Iterator[_Mutation]], ...] = (
        _missing_required,
        _wrong_types,
        _constraints,
        _extra_property,
    )
    streams = [_each_node(maker, ctx, nodes) for maker in makers]
    seen = {_key(base)}
    chosen: list[tuple[int, int, InvalidInput]] = []
    active = list(range(_KINDS))
    attempts = 0
    while active and len(chosen) < limit and attempts < MAX_ATTEMPTS:
        for kind in list(active):
            if len(chosen) >= limit or attempts >= MAX_ATTEMPTS:
                break
            while attempts < MAX_ATTEMPTS:
                mutation = next(streams[kind], None)
                if mutation is None:
                    active.remove(kind)
                    break
                attempts += 1
                arguments = _apply(base, mutation)
                key = _key(arguments)
                if key in seen:
                    continue
                seen.add(key)
                if _judge(validator, arguments) is False:
                    case = InvalidInput(arguments, mutation.why, mutation.path, mutation.lax)
                    chosen.append((kind, len(chosen), case))
                    break
    chosen.sort(key=lambda entry: (entry[0], entry[1]))
    return [case for _, _, case in chosen] + _look_alike_cases(validator, base, ctx, nodes, seen)


def _look_alike_cases(
    validator: Validator,
    base: dict[str, Any],
    ctx: _Context,
    nodes: list[_InputObject],
    seen: set[str],
) -> list[InvalidInput]:
    # Outside the limit and after the rest: they say how lenient a server is, not whether
    # it validates, so they never take the place of a structural case.
    cases: list[InvalidInput] = []
    for mutation in _each_node(_look_alikes, ctx, nodes):
        if len(cases) >= LOOK_ALIKES:
            break
        arguments = _apply(base, mutation)
        key = _key(arguments)
        if key not in seen and _judge(validator, arguments) is False:
            seen.add(key)
            cases.append(InvalidInput(arguments, mutation.why, mutation.path, lax=True))
    return cases


# -- walking the schema and the valid input --------------------------------------------------


def _nodes(ctx: _Context, base: dict[str, Any]) -> list[_InputObject]:
    """The root and the nested objects of ``base`` that have declared properties, in
    breadth-first order (so top-level fields come first), at most MUTATION_DEPTH levels deep."""
    root = _node(ctx, (), ctx.views(ctx.doc.root), base)
    out = [root]
    queue = deque([root])
    while queue and len(out) < MAX_NODES:
        node = queue.popleft()
        if len(node.path) >= MUTATION_DEPTH:
            continue
        for name, views in node.properties:
            value = node.value[name]
            if isinstance(value, dict) and any(
                isinstance(view.get("properties"), Mapping) for view in views
            ):
                child = _node(ctx, (*node.path, name), views, value)
                out.append(child)
                queue.append(child)
                if len(out) >= MAX_NODES:
                    break
    return out


def _node(
    ctx: _Context, path: Path, views: list[Mapping[str, Any]], value: Mapping[str, Any]
) -> _InputObject:
    found: dict[str, list[Mapping[str, Any]]] = {}
    for view in views:
        properties = view.get("properties")
        if not isinstance(properties, Mapping):
            continue
        for name, subschema in properties.items():
            if isinstance(name, str) and name in value:
                found.setdefault(name, []).extend(ctx.views(subschema))
    return _InputObject(path, views, value, list(found.items()))


def _each_node(
    maker: Callable[[_Context, _InputObject], Iterator[_Mutation]],
    ctx: _Context,
    nodes: list[_InputObject],
) -> Iterator[_Mutation]:
    for node in nodes:
        yield from maker(ctx, node)


def _dotted(path: Path) -> str:
    return ".".join(path)


def _apply(base: dict[str, Any], mutation: _Mutation) -> dict[str, Any]:
    arguments = copy.deepcopy(base)
    target: Any = arguments
    for part in mutation.parent:
        target = target[part]
    if mutation.delete:
        del target[mutation.key]
    else:
        target[mutation.key] = copy.deepcopy(mutation.value)
    return arguments


def _judge(validator: Validator, instance: Any) -> bool | None:
    """True valid, False invalid, None when the validator cannot decide (it raised)."""
    try:
        return bool(validator.is_valid(instance))
    except Exception:  # a $ref loop, an unresolvable $ref, a broken regex deep down
        return None


def _key(arguments: dict[str, Any]) -> str:
    try:
        return json.dumps(arguments, sort_keys=True)
    except (TypeError, ValueError, RecursionError):
        return repr(arguments)


def _show(value: Any) -> str:
    if isinstance(value, str):
        text = repr(value if len(value) <= 40 else value[:37] + "...")
    else:
        try:
            text = json.dumps(value)
        except (TypeError, ValueError):
            text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


# -- types --------------------------------------------------------------------------------


def _known_declared_types(view: Mapping[str, Any]) -> list[str] | None:
    """The view's ``type`` names, when it has one and every name in it is a JSON type."""
    names = declared_types(view)
    if names is None:
        return None
    known = [name for name in names if isinstance(name, str) and name in _ATOMS]
    return known if len(known) == len(names) else None


def _first_declared_types(views: Sequence[Mapping[str, Any]]) -> list[str]:
    for view in views:
        names = _known_declared_types(view)
        if names is not None:
            return names
    return []


def _allowed_atoms(views: Sequence[Mapping[str, Any]]) -> frozenset[str] | None:
    """What every applicable ``type`` allows, as atoms; None when no view restricts it."""
    allowed: frozenset[str] | None = None
    for view in views:
        names = _known_declared_types(view)
        if names is None:
            continue
        atoms = frozenset().union(*(_ATOMS[name] for name in names))
        allowed = atoms if allowed is None else allowed & atoms
    return allowed


def _atoms_of(value: Any) -> frozenset[str]:
    if value is None:
        return _ATOMS["null"]
    if isinstance(value, bool):
        return _ATOMS["boolean"]
    if isinstance(value, int):
        return _ATOMS["integer"]
    if isinstance(value, float):
        return frozenset({"fraction"})
    if isinstance(value, str):
        return _ATOMS["string"]
    if isinstance(value, list):
        return _ATOMS["array"]
    return _ATOMS["object"]


def _type_names(atoms: frozenset[str]) -> str:
    names = [name for name in _TYPE_ORDER if _ATOMS[name] <= atoms]
    if "number" in names:
        names.remove("integer")
    return " or ".join(names) if names else "no type at all"


def _allows(atoms: frozenset[str] | None, *names: str) -> bool:
    return atoms is None or any(_ATOMS[name] & atoms for name in names)


# -- kind 1: required properties removed ----------------------------------------------------


def _missing_required(ctx: _Context, node: _InputObject) -> Iterator[_Mutation]:
    done: set[str] = set()
    for view in node.views:
        required = view.get("required")
        if not isinstance(required, list):
            continue
        for name in required:
            if isinstance(name, str) and name in node.value and name not in done:
                done.add(name)
                path = _dotted((*node.path, name))
                why = f"required property '{path}' is missing"
                yield _Mutation(node.path, name, True, None, why, path)


# -- kind 2: wrong JSON types -------------------------------------------------------------


def _wrong_types(ctx: _Context, node: _InputObject) -> Iterator[_Mutation]:
    for name, views in node.properties:
        allowed = _allowed_atoms(views)
        if not allowed:  # no "type" (anything goes) or unsatisfiable
            continue
        preferred = [_WRONG_FOR[t] for t in _first_declared_types(views)]
        for candidate in (*preferred, *_WRONG_FALLBACKS):
            if not _atoms_of(candidate) & allowed:
                path = _dotted((*node.path, name))
                why = (
                    f"'{path}' has the wrong type ({json_type(candidate)}, "
                    f"the schema wants {_type_names(allowed)})"
                )
                yield _Mutation(node.path, name, False, candidate, why, path)
                break


# -- kind 5: look-alikes a lenient validator coerces ----------------------------------------


def _look_alikes(ctx: _Context, node: _InputObject) -> Iterator[_Mutation]:
    """The valid value written as a string ("true", "3", "2.5"): refused by the schema, but
    accepted by pydantic's lax mode and by zod.coerce, so it tells apart a lenient server
    from one that accepts anything."""
    for name, views in node.properties:
        allowed = _allowed_atoms(views)
        value = node.value.get(name) if isinstance(node.value, dict) else None
        if not allowed or "string" in allowed:
            continue
        if isinstance(value, bool):
            text = "true" if value else "false"
        elif _is_number(value) and math.isfinite(value):
            text = json.dumps(value)
        else:
            continue
        path = _dotted((*node.path, name))
        why = f"'{path}' is the string {text!r}, a look-alike of {_type_names(allowed)}"
        yield _Mutation(node.path, name, False, text, why, path, lax=True)


# -- kind 3: constraints violated ---------------------------------------------------------


def _is_number(value: object) -> TypeGuard[int | float]:
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return True
    return isinstance(value, float) and math.isfinite(value)


def _count(value: Any) -> int | None:
    """A non-negative integer keyword value (2.0 counts as 2), else None."""
    if isinstance(value, bool) or not _is_number(value):
        return None
    if isinstance(value, float) and not value.is_integer():
        return None
    count = int(value)
    return count if count >= 0 else None


def _below(bound: float, integral: bool) -> float:
    """A value strictly below ``bound`` (an integer when ``integral``)."""
    if integral:
        return math.ceil(bound) - 1
    lower = bound - 1
    return lower if lower < bound else math.nextafter(bound, -math.inf)


def _above(bound: float, integral: bool) -> float:
    if integral:
        return math.floor(bound) + 1
    higher = bound + 1
    return higher if higher > bound else math.nextafter(bound, math.inf)


def _at_or_below(bound: float, integral: bool) -> float:
    return math.floor(bound) if integral else bound


def _at_or_above(bound: float, integral: bool) -> float:
    return math.ceil(bound) if integral else bound


def _constraints(ctx: _Context, node: _InputObject) -> Iterator[_Mutation]:
    """Each property's first violation, then each one's second, ...: a small ``limit``
    still reaches several properties rather than every bound of the first one."""
    streams = deque(
        _property_constraints(ctx, node, name, views) for name, views in node.properties
    )
    while streams:
        stream = streams.popleft()
        mutation = next(stream, None)
        if mutation is not None:
            yield mutation
            streams.append(stream)


def _property_constraints(
    ctx: _Context, node: _InputObject, name: str, views: list[Mapping[str, Any]]
) -> Iterator[_Mutation]:
    path = _dotted((*node.path, name))
    current = node.value[name]
    allowed = _allowed_atoms(views)
    for view in views:
        for value, why in _violations(ctx, view, allowed, current, path):
            yield _Mutation(node.path, name, False, value, why, path)


def _violations(
    ctx: _Context,
    view: Mapping[str, Any],
    allowed: frozenset[str] | None,
    current: Any,
    path: str,
) -> Iterator[tuple[Any, str]]:
    if _allows(allowed, "integer", "number"):
        yield from _numeric(ctx, view, allowed, path)
    if _allows(allowed, "string"):
        yield from _string(view, path)
    if _allows(allowed, "array") and isinstance(current, list):
        yield from _array(view, current, path)
    yield from _enum_const(view, path)


def _numeric(
    ctx: _Context, view: Mapping[str, Any], allowed: frozenset[str] | None, path: str
) -> Iterator[tuple[Any, str]]:
    integral = allowed is not None and "fraction" not in allowed
    minimum, maximum = view.get("minimum"), view.get("maximum")
    ex_min, ex_max = view.get("exclusiveMinimum"), view.get("exclusiveMaximum")
    draft4 = ctx.doc.dialect == "draft-04"
    if _is_number(minimum):
        if draft4 and ex_min is True:
            value = _at_or_below(minimum, integral)
            yield (
                value,
                f"'{path}' is {_show(value)}, not above minimum {_show(minimum)} "
                "(exclusiveMinimum is true)",
            )
        else:
            value = _below(minimum, integral)
            yield value, f"'{path}' is {_show(value)}, below minimum {_show(minimum)}"
    if _is_number(maximum):
        if draft4 and ex_max is True:
            value = _at_or_above(maximum, integral)
            yield (
                value,
                f"'{path}' is {_show(value)}, not below maximum {_show(maximum)} "
                "(exclusiveMaximum is true)",
            )
        else:
            value = _above(maximum, integral)
            yield value, f"'{path}' is {_show(value)}, above maximum {_show(maximum)}"
    if not draft4 and _is_number(ex_min):
        value = _at_or_below(ex_min, integral)
        yield value, f"'{path}' is {_show(value)}, not above exclusiveMinimum {_show(ex_min)}"
    if not draft4 and _is_number(ex_max):
        value = _at_or_above(ex_max, integral)
        yield value, f"'{path}' is {_show(value)}, not below exclusiveMaximum {_show(ex_max)}"
    step = view.get("multipleOf")
    if _is_number(step) and step > 0:
        if isinstance(step, int) and step >= 2:
            value = step + 1
        elif not integral:
            value = step * 1.5
        else:
            return
        yield value, f"'{path}' is {_show(value)}, not a multiple of {_show(step)}"


def _string(view: Mapping[str, Any], path: str) -> Iterator[tuple[Any, str]]:
    shortest = _count(view.get("minLength"))
    if shortest is not None and 1 <= shortest <= MAX_STRING + 1:
        yield "x" * (shortest - 1), f"'{path}' is shorter than minLength {shortest}"
    longest = _count(view.get("maxLength"))
    if longest is not None and longest < MAX_STRING:
        yield "x" * (longest + 1), f"'{path}' is longer than maxLength {longest}"
    pattern = view.get("pattern")
    if isinstance(pattern, str):
        try:
            compiled = re.compile(pattern)
        except (re.error, RecursionError, OverflowError):
            return
        for probe in _PATTERN_PROBES:
            if compiled.search(probe) is None:
                yield (
                    probe,
                    f"'{path}' is {_show(probe)}, which does not match pattern {_show(pattern)}",
                )
                return


def _array(view: Mapping[str, Any], current: list[Any], path: str) -> Iterator[tuple[Any, str]]:
    fewest = _count(view.get("minItems"))
    if fewest is not None and 1 <= fewest <= len(current):
        yield current[: fewest - 1], f"'{path}' has fewer items than minItems {fewest}"
    most = _count(view.get("maxItems"))
    if most is not None and most < MAX_ITEMS:
        filler = current if current else [None]
        items = (filler * (most // len(filler) + 1))[: most + 1]
        yield items, f"'{path}' has more items than maxItems {most}"
    if view.get("uniqueItems") is True and current:
        yield [*current, current[0]], f"'{path}' has duplicate items where uniqueItems is true"


def _enum_const(view: Mapping[str, Any], path: str) -> Iterator[tuple[Any, str]]:
    allowed = view.get("enum")
    if isinstance(allowed, list) and allowed:
        value = _not_in(allowed)
        yield value, f"'{path}' is {_show(value)}, not one of the enum values"
    if "const" in view:
        const = view["const"]
        value = _not_const(const)
        yield value, f"'{path}' is {_show(value)}, not the const value {_show(const)}"


def _not_in(values: list[Any]) -> Any:
    """A value outside ``values``: an integer when they are all integers, else a string.
    One pass and a set: linear in the size of the enum."""
    if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return max(values) + 1
    strings = {v for v in values if isinstance(v, str)}
    candidate, n = "zz-not-in-enum", 1
    while candidate in strings:
        n += 1
        candidate = f"zz-not-in-enum-{n}"
    return candidate


def _not_const(const: Any) -> Any:
    if isinstance(const, bool):
        return not const
    if isinstance(const, int):
        return const + 1
    if isinstance(const, float) and math.isfinite(const):
        return _above(const, integral=False)
    if isinstance(const, str):
        return const + "-not-the-const"
    return "zz-not-the-const"


# -- kind 4: an undeclared property where none is allowed ----------------------------------


def _extra_property(ctx: _Context, node: _InputObject) -> Iterator[_Mutation]:
    if EXTRA_PROPERTY in node.value:
        return
    keywords = ["additionalProperties"]
    if ctx.doc.dialect in _UNEVALUATED:
        keywords.append("unevaluatedProperties")
    where = f" in '{_dotted(node.path)}'" if node.path else ""
    for keyword in keywords:
        for view in node.views:
            if view.get(keyword) is False and not _covers(view, EXTRA_PROPERTY):
                why = f"extra property '{EXTRA_PROPERTY}'{where} where {keyword} is false"
                yield _Mutation(
                    node.path, EXTRA_PROPERTY, False, EXTRA_VALUE, why, _dotted(node.path)
                )
                return


def _covers(view: Mapping[str, Any], name: str) -> bool:
    """Whether ``view`` declares ``name`` by ``properties`` or a matching
    ``patternProperties`` (a pattern that cannot be compiled counts as matching)."""
    properties = view.get("properties")
    if isinstance(properties, Mapping) and name in properties:
        return True
    patterns = view.get("patternProperties")
    if not isinstance(patterns, Mapping):
        return False
    for pattern in patterns:
        try:
            if not isinstance(pattern, str) or re.search(pattern, name):
                return True
        except (re.error, RecursionError, OverflowError):
            return True
    return False
