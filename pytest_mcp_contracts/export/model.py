"""A tool's output contract as types: the one reading of a JSON Schema that every target
language renders (``export/python``: pydantic models and TypedDicts; ``export/zod``: zod
objects; ``export/jsonschema``: the outputSchema to declare).

The reading is decided once, here, so the four targets agree on what a contract means:

- **Strictness follows the quality** (``Strictness``). A declared schema is read *exactly*
  (objects are closed only where it says ``additionalProperties: false``). A validated
  contract is read *strictly*: its objects are closed and its required fields required. An
  inferred one *permissively*: objects stay open, a field is required only where the plugin
  itself would call its absence breaking (its object was seen ``ESTABLISHED`` times, with it
  every time), a whole number is read as a number (whole numbers alone are not evidence of
  an integer: ``contracts/infer``), and no format is claimed.
- **Objects are named models**, named from the tool and the path (``GetOrderOutput``,
  ``GetOrderCustomer``, ``GetOrderItemsItem``), or from a ``$defs`` entry; every name is an
  ASCII identifier, claimed once per document (a clash gets ``2``, ``3``... in the order the
  tools, sorted, are read), so the same snapshot always gives the same names.
- **``$ref``s** are followed through ``schema/refs`` (never fetched): a reference to an object
  is its model (so recursion is a reference back to a model being built), one to anything
  else is read in place, and a cycle that no object breaks is cut (``Unknown``), as is a
  schema deeper than ``DOCUMENT_DEPTH`` or larger than ``EXPORT_NODES``.
- What a target cannot hold is never dropped silently: each keyword not expressed becomes a
  note on the tool (``ToolModel.notes``) that the file prints.
"""

from __future__ import annotations

import json
import re
import zlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Final, Literal

from pytest_mcp_contracts.contracts.infer import ESTABLISHED
from pytest_mcp_contracts.schema.budgets import DOCUMENT_DEPTH, EXPORT_NODES
from pytest_mcp_contracts.schema.document import (
    SchemaDocument,
    declared_types,
    implied_types,
    with_branch,
)
from pytest_mcp_contracts.schema.paths import child_path, items_path, values_path
from pytest_mcp_contracts.schema.refs import Unresolvable


class Strictness(StrEnum):
    """How closely a model holds a tool to its contract; chosen by the contract's quality."""

    EXACT = "exact"  # declared: what the declared outputSchema accepts
    STRICT = "strict"  # validated: closed objects, required fields required
    PERMISSIVE = "permissive"  # inferred: open objects, thin fields optional


Scalar = Literal["string", "integer", "number", "boolean", "null"]
JsonScalar = str | int | float | bool | None
SCALARS: Final = ("string", "integer", "number", "boolean", "null")

#: Constraints a target can hold, by the JSON Schema keyword (draft-04's boolean
#: ``exclusiveMinimum`` is read into the 2020-12 spelling first).
STRING_CHECKS: Final = ("minLength", "maxLength", "pattern")
NUMBER_CHECKS: Final = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")
ARRAY_CHECKS: Final = ("minItems", "maxItems")

#: Keywords read as documentation or bookkeeping: nothing to express.
_ANNOTATIONS: Final = frozenset(
    {
        "$schema",
        "$id",
        "id",
        "$anchor",
        "$dynamicAnchor",
        "$comment",
        "$defs",
        "definitions",
        "title",
        "description",
        "default",
        "examples",
        "deprecated",
        "readOnly",
        "writeOnly",
        "contentEncoding",
        "contentMediaType",
        "nullable",  # OpenAPI's, not JSON Schema's: meaningless to a JSON Schema validator
        "discriminator",
    }
)
#: Keywords this reading expresses (the others become notes).
_EXPRESSED: Final = frozenset(
    {
        "type",
        "enum",
        "const",
        "format",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "prefixItems",
        "additionalItems",
        "anyOf",
        "oneOf",
        "allOf",
        "$ref",
        *STRING_CHECKS,
        *NUMBER_CHECKS,
        *ARRAY_CHECKS,
    }
)


# -- the types ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Unknown:
    """Any JSON value: nothing was learned, or the schema says nothing a target can hold."""


@dataclass(frozen=True)
class Primitive:
    kind: Scalar
    format: str | None = None
    checks: tuple[tuple[str, Any], ...] = ()  # (keyword, value), in keyword order


@dataclass(frozen=True)
class Literals:
    """One of these JSON scalars (an ``enum`` or a ``const``)."""

    values: tuple[JsonScalar, ...]


@dataclass(frozen=True)
class ArrayOf:
    items: Type
    checks: tuple[tuple[str, Any], ...] = ()


@dataclass(frozen=True)
class TupleOf:
    """A fixed sequence of positions (``prefixItems``, draft-07's array ``items``), closed
    (``rest`` None) or followed by any number of ``rest`` values."""

    positions: tuple[Type, ...]
    rest: Type | None


@dataclass(frozen=True)
class MapOf:
    """An object whose keys are data: every value of one type."""

    values: Type


@dataclass(frozen=True)
class OneOf:
    """A union (``anyOf``, ``oneOf``, a list of types); ``null`` last when it is a member."""

    members: tuple[Type, ...]


@dataclass(frozen=True)
class ModelRef:
    """A reference to a named object model of the document."""

    name: str


Type = Unknown | Primitive | Literals | ArrayOf | TupleOf | MapOf | OneOf | ModelRef

UNKNOWN: Final = Unknown()
NULL: Final = Primitive("null")


@dataclass(frozen=True)
class FieldSpec:
    """One property of a model: its key on the wire, its type, whether it must be there."""

    key: str
    type: Type
    required: bool
    description: str | None = None


Extra = Literal["forbid", "allow"]


@dataclass
class Model:
    """A named object: filled in after its name is claimed, so recursion can refer to it."""

    name: str
    fields: list[FieldSpec] = field(default_factory=list)
    extra: Extra | Type = "allow"  # a Type: extra keys allowed, each value of that type
    description: str | None = None


@dataclass
class ToolModel:
    """Everything a target renders for one tool's output."""

    tool: str
    name: str  # what the tool's output is declared as: its model, or an alias of its type
    root: Type  # a ModelRef for an object output
    models: list[Model]  # definition order: dependencies first, except along a cycle
    strictness: Strictness
    notes: list[str] = field(default_factory=list)

    @property
    def wrapped(self) -> bool:
        """Whether the output is no object, so that a declared outputSchema must wrap it as
        ``{"result": ...}`` (MCP 2025-11-25 wants an object root; MCPServer wraps so)."""
        return not isinstance(self.root, (ModelRef, MapOf))

    def model(self, name: str) -> Model:
        return next(m for m in self.models if m.name == name)


def references(kind: Type) -> Iterator[str]:
    """The model names a type refers to directly (not through those models)."""
    if isinstance(kind, ModelRef):
        yield kind.name
    elif isinstance(kind, ArrayOf):
        yield from references(kind.items)
    elif isinstance(kind, MapOf):
        yield from references(kind.values)
    elif isinstance(kind, OneOf):
        for member in kind.members:
            yield from references(member)
    elif isinstance(kind, TupleOf):
        for position in kind.positions:
            yield from references(position)
        if kind.rest is not None:
            yield from references(kind.rest)


def model_references(model: Model) -> Iterator[str]:
    for spec in model.fields:
        yield from references(spec.type)
    if not isinstance(model.extra, str):
        yield from references(model.extra)


# -- names --------------------------------------------------------------------------------------

#: Longest name part taken from a key or a tool name; a longer one is cut and keeps a hash.
NAME_PART_LIMIT: Final = 40
_WORDS: Final = re.compile(r"[A-Za-z0-9]+")
#: Names every target's generated code uses or its language keeps for itself: a model never
#: takes them (a class called ``BaseModel`` would shadow pydantic's).
RESERVED_NAMES: Final = frozenset(
    {
        # Python: the names the generated modules import, and builtins their annotations use
        "Annotated",
        "Any",
        "BaseModel",
        "ConfigDict",
        "Field",
        "Literal",
        "MISSING",
        "NotRequired",
        "Strict",
        "TypedDict",
        "with_config",
        "None",
        "True",
        "False",
        # JavaScript: zod's import and the globals a reader would expect to mean themselves
        "z",
        "Array",
        "Boolean",
        "Date",
        "Error",
        "Function",
        "Infinity",
        "JSON",
        "Map",
        "Math",
        "NaN",
        "Number",
        "Object",
        "Promise",
        "Proxy",
        "Reflect",
        "RegExp",
        "Set",
        "String",
        "Symbol",
    }
)


def _digest(text: str) -> str:
    return f"{zlib.crc32(text.encode('utf-8', 'surrogatepass')):08x}"


def pascal(text: str, *, fallback: str) -> str:
    """``get_order`` -> ``GetOrder``, ``first-name`` -> ``FirstName``, ``userID`` -> ``UserID``:
    the ASCII letters and digits of ``text``, each word capitalised. A text with none (or
    one cut for length) keeps a hash of itself, so two texts never share a name part."""
    words = _WORDS.findall(text)
    joined = "".join(word[0].upper() + word[1:] for word in words)
    if not joined:
        return f"{fallback}{_digest(text)}"
    if len(joined) > NAME_PART_LIMIT:
        return f"{joined[:NAME_PART_LIMIT]}{_digest(text)}"
    return joined


def tool_prefix(tool: str) -> str:
    """The name part of a tool: its models are ``<prefix>Output`` and ``<prefix><Path>``."""
    prefix = pascal(tool, fallback="Tool")
    return prefix if prefix[0].isalpha() else f"Tool{prefix}"


class Namer:
    """Model names claimed in one document, in claim order: a clash gets ``2``, ``3``..."""

    def __init__(self) -> None:
        self._taken: set[str] = set(RESERVED_NAMES)

    def claim(self, wanted: str) -> str:
        name, n = wanted, 1
        while name in self._taken:
            n += 1
            name = f"{wanted}{n}"
        self._taken.add(name)
        return name


# -- reading a schema ---------------------------------------------------------------------------


def _json_key(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def _is_scalar(value: Any) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))


def _checks(node: Mapping[str, Any], keywords: tuple[str, ...]) -> tuple[tuple[str, Any], ...]:
    found: list[tuple[str, Any]] = []
    for keyword in keywords:
        value = node.get(keyword)
        if keyword == "pattern":
            if isinstance(value, str):
                found.append((keyword, value))
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            found.append((keyword, value))
    return tuple(found)


def _number_checks(node: Mapping[str, Any]) -> tuple[tuple[str, Any], ...]:
    """The bounds of a number, draft-04's boolean ``exclusiveMinimum`` read as 2020-12's."""
    node = dict(node)
    for bound, exclusive in (("minimum", "exclusiveMinimum"), ("maximum", "exclusiveMaximum")):
        # draft-04: a boolean beside its bound; true makes the bound exclusive.
        if isinstance(node.get(exclusive), bool) and node.pop(exclusive) and bound in node:
            node[exclusive] = node.pop(bound)
    return _checks(node, NUMBER_CHECKS)


def _python_regex(pattern: str) -> bool:
    try:
        re.compile(pattern)
    except (re.error, RecursionError, OverflowError):
        return False
    return True


def _union(members: list[Type]) -> Type:
    """One type for several: nested unions flattened, repeats dropped, ``null`` last, an
    ``Unknown`` member swallowing the rest."""
    flat: list[Type] = []
    for member in members:
        for one in member.members if isinstance(member, OneOf) else (member,):
            if repr(one) not in map(repr, flat):  # repr: Literals((1,)) is not Literals((True,))
                flat.append(one)
    if any(isinstance(m, Unknown) for m in flat):
        return UNKNOWN
    if NULL in flat:
        flat = [m for m in flat if m != NULL] + [NULL]
    if len(flat) == 1:
        return flat[0]
    return OneOf(tuple(flat))


class _Builder:
    """Reads one tool's output schema into models (see the module's docstring)."""

    def __init__(
        self,
        tool: str,
        schema: Mapping[str, Any],
        strictness: Strictness,
        seen: Mapping[str, int],
        namer: Namer,
    ) -> None:
        self.tool = tool
        self.strictness = strictness
        self.seen = seen
        self.namer = namer
        self.doc = SchemaDocument.lenient(schema)
        self.prefix = tool_prefix(tool)
        # Claimed first: the output's name never depends on what its fields are called.
        self.root_name = namer.claim(f"{self.prefix}Output")
        self.root_used = False  # taken by the object at the root
        self.models: list[Model] = []
        self.by_pointer: dict[str, str] = {}  # a $ref target (an object) -> its model name
        self.inline_refs: list[str] = []  # non-object $ref targets being read, innermost last
        self.notes: list[str] = []
        self.work = 0

    @property
    def learned(self) -> bool:
        """A contract this plugin learned (validated or inferred), not a declared one."""
        return self.strictness is not Strictness.EXACT

    def note(self, path: str, text: str) -> None:
        line = f"{path}: {text}"
        if line not in self.notes:
            self.notes.append(line)

    # -- the walk -------------------------------------------------------------------------

    def read(self, node: Any, path: str, name: str, depth: int, pointer: str = "") -> Type:
        """The type of the value at ``path`` that ``node`` describes. ``name`` is the model
        name an object here gets; ``pointer`` is ``node``'s own JSON pointer when a ``$ref``
        led here (an object there is one model, however often it is referred to)."""
        self.work += 1
        if self.work > EXPORT_NODES or depth > DOCUMENT_DEPTH:
            limit = "too large" if self.work > EXPORT_NODES else "nested too deeply"
            self.note(path, f"the schema is {limit} to read further: any value is accepted here")
            return UNKNOWN
        if node is True or node == {}:
            return UNKNOWN
        if not isinstance(node, Mapping):
            self.note(path, f"a schema that is not an object ({str(node)[:40]}): any value")
            return UNKNOWN
        self._unexpressed(node, path)
        if "$ref" in node:
            return self._ref(node, path, name, depth)
        if isinstance(node.get("allOf"), list):
            return self.read(self._conjunction(node, path), path, name, depth + 1, pointer)
        for keyword in ("anyOf", "oneOf"):
            branches = node.get(keyword)
            if isinstance(branches, list) and branches:
                if keyword == "oneOf":
                    self.note(path, "oneOf is read as anyOf: a value matching two branches passes")
                return _union(
                    [
                        self.read(
                            with_branch(node, b, keyword), path, f"{name}Option{i}", depth + 1
                        )
                        for i, b in enumerate(branches, 1)
                    ]
                )
        if "const" in node or isinstance(node.get("enum"), list):
            values = [node["const"]] if "const" in node else list(node["enum"])
            if values and all(_is_scalar(v) for v in values):
                # Repeats dropped by their JSON text: 1 == True in Python, not in JSON.
                return Literals(tuple({_json_key(v): v for v in values}.values()))
            self.note(path, "an enum or const with values that are no scalars: read as its type")
        types = [t for t in implied_types(node) if t in (*SCALARS, "array", "object")]
        if not types:
            return UNKNOWN
        if len(types) > 1:
            return _union([self._typed(node, t, path, name, depth, pointer) for t in types])
        return self._typed(node, types[0], path, name, depth, pointer)

    def _typed(
        self, node: Mapping[str, Any], kind: str, path: str, name: str, depth: int, pointer: str
    ) -> Type:
        if kind == "object":
            return self._object(node, path, name, depth, pointer)
        if kind == "array":
            return self._array(node, path, name, depth)
        if kind == "null" and self.learned and declared_types(node) == ["null"]:
            # A path seen only as null says nothing of its type (contracts/infer widens it).
            self.note(path, "only null was seen here: any value is accepted")
            return UNKNOWN
        if kind == "integer" and self.strictness is Strictness.PERMISSIVE:
            kind = "number"  # whole numbers alone are no evidence of an integer
        fmt = node.get("format") if kind == "string" else None
        if self.strictness is Strictness.PERMISSIVE or not isinstance(fmt, str):
            fmt = None
        if kind == "string":
            checks = _checks(node, STRING_CHECKS)
            if not all(_python_regex(v) for k, v in checks if k == "pattern"):
                # The Python models validate it with re; a pattern re cannot read is left out
                # of every target, so that the four formats keep to one reading.
                self.note(path, "a pattern Python's re cannot read is not expressed")
                checks = tuple((k, v) for k, v in checks if k != "pattern")
        elif kind in ("integer", "number"):
            checks = _number_checks(node)
        else:
            checks = ()
        scalar: Scalar = kind  # type: ignore[assignment]  # one of SCALARS here
        return Primitive(scalar, fmt, checks)

    def _array(self, node: Mapping[str, Any], path: str, name: str, depth: int) -> Type:
        prefix = node.get("prefixItems")
        items = node.get("items")
        if not isinstance(prefix, list) and isinstance(items, list):  # draft-07 tuples
            prefix, items = items, node.get("additionalItems")
        element = f"{self._base(name)}Item"
        if isinstance(prefix, list) and prefix:
            positions = tuple(
                self.read(p, f"{path}[{i}]", f"{element}{i}", depth + 1)
                for i, p in enumerate(prefix)
            )
            if items is False:
                return TupleOf(positions, None)
            rest = self.read(True if items is None else items, items_path(path), element, depth + 1)
            return TupleOf(positions, rest)
        items = self.read(True if items is None else items, items_path(path), element, depth + 1)
        return ArrayOf(items, _checks(node, ARRAY_CHECKS))

    def _object(
        self, node: Mapping[str, Any], path: str, name: str, depth: int, pointer: str
    ) -> Type:
        properties = node.get("properties")
        properties = properties if isinstance(properties, Mapping) else {}
        extra = node.get("additionalProperties", True)
        if not properties and (isinstance(extra, Mapping) or self._open_map(node, extra)):
            values = extra if isinstance(extra, Mapping) else True
            value = f"{self._base(name)}Value"
            return MapOf(self.read(values, values_path(path), value, depth + 1))
        if name == self.root_name and not self.root_used:
            self.root_used = True
        else:
            name = self.namer.claim(name)
        model = Model(name, description=self._description(node))
        if pointer:
            self.by_pointer[pointer] = model.name
        listed = node.get("required")
        required = {r for r in listed if isinstance(r, str)} if isinstance(listed, list) else set()
        # Permissive: required only where a missing value would break the recorded contract.
        if required and self.strictness is Strictness.PERMISSIVE and self._thin(path):
            self.note(
                path,
                f"seen {self.seen.get(path, 0)} time(s), fewer than {ESTABLISHED}: "
                "every field of it is optional",
            )
            required = set()
        base = self._base(name)
        for key, sub in properties.items():
            where = child_path(path, str(key))
            kind = self.read(sub, where, f"{base}{pascal(str(key), fallback='Field')}", depth + 1)
            model.fields.append(FieldSpec(str(key), kind, key in required, self._description(sub)))
        model.extra = self._extra(extra, path, f"{base}Extra", depth)
        self.models.append(model)
        return ModelRef(model.name)

    def _base(self, name: str) -> str:
        """What the names of the types inside a type called ``name`` start with: the tool's
        prefix for the output itself (``GetOrderItemsItem``, not ``GetOrderOutputItemsItem``)."""
        return self.prefix if name == self.root_name else name

    def _thin(self, path: str) -> bool:
        return self.seen.get(path, 0) < ESTABLISHED

    def _open_map(self, node: Mapping[str, Any], extra: Any) -> bool:
        """An object that names no property and does not close itself: a free-form map,
        unless a strict reading closes it (an object always seen empty stays empty)."""
        if extra is False:
            return False
        return not (self.strictness is Strictness.STRICT and "additionalProperties" not in node)

    def _extra(self, extra: Any, path: str, name: str, depth: int) -> Extra | Type:
        if self.strictness is Strictness.STRICT:
            return "forbid"
        if self.strictness is Strictness.PERMISSIVE or extra is True:
            return "allow"
        if extra is False:
            return "forbid"
        if isinstance(extra, Mapping):
            kind = self.read(extra, values_path(path), name, depth + 1)
            return "allow" if isinstance(kind, Unknown) else kind
        return "allow"

    def _description(self, node: Any) -> str | None:
        if self.learned or not isinstance(node, Mapping):
            return None
        text = node.get("description")
        return text if isinstance(text, str) and text.strip() else None

    # -- references and combinators -------------------------------------------------------

    def _ref(self, node: Mapping[str, Any], path: str, name: str, depth: int) -> Type:
        try:
            target = self.doc.refs.lookup(node["$ref"], node)
        except Unresolvable as exc:
            self.note(path, f"{exc.explain()}: any value is accepted here")
            return UNKNOWN
        siblings = set(node) - {"$ref"} - _ANNOTATIONS
        if siblings and not self.doc.legacy:
            self.note(path, f"keywords beside $ref not expressed: {', '.join(sorted(siblings))}")
        if target.pointer in self.by_pointer:
            return ModelRef(self.by_pointer[target.pointer])
        if target.pointer in self.inline_refs:
            self.note(path, f"a $ref cycle through {target.pointer} no object breaks: cut here")
            return UNKNOWN
        # The root keeps its name when it is a reference (pydantic writes a recursive model
        # so); a definition elsewhere is named after its $defs entry.
        defined = target.pointer.rsplit("/", 1)[-1]
        wanted = name if path == "$" else f"{self.prefix}{pascal(defined, fallback='Def')}"
        self.inline_refs.append(target.pointer)
        try:
            return self.read(target.schema, path, wanted, depth + 1, target.pointer)
        finally:
            self.inline_refs.pop()

    def _conjunction(self, node: Mapping[str, Any], path: str) -> dict[str, Any]:
        """``allOf`` merged into its schema: properties and required lists joined, other
        keywords taken from the last member that has them (noted when two disagree)."""
        merged: dict[str, Any] = {k: v for k, v in node.items() if k != "allOf"}
        for branch in node["allOf"]:
            if isinstance(branch, Mapping) and "$ref" in branch:
                found = self.doc.refs.find(branch["$ref"], branch)
                branch = found.schema if found is not None else branch
            if not isinstance(branch, Mapping):
                continue
            for key, value in branch.items():
                if key == "properties" and isinstance(value, Mapping):
                    merged["properties"] = {**merged.get("properties", {}), **value}
                elif key == "required" and isinstance(value, list):
                    merged["required"] = [*merged.get("required", []), *value]
                elif key in merged and merged[key] != value and key not in _ANNOTATIONS:
                    self.note(path, f"allOf members disagree on {key}: the last one is used")
                    merged[key] = value
                else:
                    merged[key] = value
        return merged

    def _unexpressed(self, node: Mapping[str, Any], path: str) -> None:
        left = sorted(k for k in node if k not in _EXPRESSED and k not in _ANNOTATIONS)
        if left:
            self.note(path, f"not expressed by the model: {', '.join(left)}")


def build(
    tool: str,
    schema: Mapping[str, Any],
    strictness: Strictness,
    *,
    seen: Mapping[str, int] | None = None,
    namer: Namer | None = None,
) -> ToolModel:
    """The models of one tool's output schema. ``seen`` holds the recorded per-path counts
    of an inferred contract (``contracts/infer.Shape.seen``); ``namer`` the names the other
    tools of the same document already took."""
    namer = namer or Namer()
    builder = _Builder(tool, schema, strictness, seen or {}, namer)
    root = builder.read(schema, "$", builder.root_name, 0, "#")
    name = builder.root_name
    if not isinstance(root, ModelRef) and builder.root_used:
        # An object at the root inside a union ({"type": ["object", "null"]}) took the
        # output's name: the alias of the union gets another.
        name = namer.claim(f"{builder.prefix}Result")
    return ToolModel(tool, name, root, builder.models, strictness, builder.notes)
