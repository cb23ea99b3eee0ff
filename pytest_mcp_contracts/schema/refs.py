"""One resolver for ``$ref``s and JSON pointers inside one schema document.

Every module that follows a ``$ref`` (generation, invalid inputs, drift, summaries, the
listing check) asks a ``RefIndex``; each decides for itself what an unresolvable ref means
to it (an error, an opaque value, a note in a summary). It resolves what JSON Schema
validators resolve, and agrees with ``referencing`` (jsonschema's resolver) on it:

* local JSON pointers, ``#/$defs/a`` or ``#/definitions/a``: percent-decoded, then ``~1``
  and ``~0`` unescaped (RFC 3986, RFC 6901); array tokens must be ASCII digits;
* plain-name fragments, ``#node``: ``$anchor``, ``$dynamicAnchor``, and before 2019-09 an
  ``$id`` (draft-04: ``id``) of ``#node``;
* refs relative to the nearest enclosing ``$id``: a schema that embeds
  ``{"$id": "https://x/item.json"}`` resolves ``item.json#/a`` and
  ``https://x/item.json#/a`` inside itself.

It never fetches anything, from the network or the filesystem (the MCP spec: clients MUST
NOT dereference network ``$ref``s): a ref to a document not embedded in this one raises
``Unresolvable`` with ``reason == "remote"``. It is bounded: the document is scanned once,
without recursion, at most ``max_depth`` levels deep, and a lookup is one hop, so a ``$ref``
cycle costs a caller exactly the hops it chooses to follow.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal
from urllib.parse import unquote, urldefrag, urljoin

from pytest_mcp_contracts.schema.budgets import DOCUMENT_DEPTH

__all__ = [
    "LEGACY_DIALECTS",
    "RefIndex",
    "RefTarget",
    "Unresolvable",
    "array_index",
    "bad_array_index",
    "escape",
    "json_pointer",
    "resolve_pointer",
    "unescape",
]

#: Dialects before 2019-09: keywords next to ``$ref`` are ignored (``$id`` included), and an
#: ``$id`` of ``#name`` is an anchor.
LEGACY_DIALECTS: Final = frozenset({"draft-04", "draft-06", "draft-07"})

# Where sub-schemas sit, in any supported dialect.
SCHEMA_MAPS: Final = frozenset(
    {"properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"}
)
SCHEMA_LISTS: Final = frozenset({"allOf", "anyOf", "oneOf", "prefixItems", "items"})
SCHEMA_SINGLES: Final = frozenset(
    {
        "items",
        "additionalItems",
        "additionalProperties",
        "propertyNames",
        "contains",
        "not",
        "if",
        "then",
        "else",
        "unevaluatedItems",
        "unevaluatedProperties",
        "contentSchema",
    }
)

Reason = Literal["not-a-string", "malformed", "remote", "dangling"]


# -- JSON pointers (RFC 6901) ----------------------------------------------------------------


def escape(token: object) -> str:
    """One JSON pointer token: ``a/b~c`` becomes ``a~1b~0c``."""
    return str(token).replace("~", "~0").replace("/", "~1")


def unescape(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def json_pointer(path: Sequence[object]) -> str:
    """``#/properties/a~1b`` for ``("properties", "a/b")``."""
    return "#" + "".join("/" + escape(token) for token in path)


def array_index(token: str) -> int | None:
    """A JSON Pointer token read as an array index (RFC 6901: ASCII digits, no leading zero),
    else None. Never ``str.isdigit`` and ``int``: "²" (``%C2%B2`` in a $ref) is a digit to
    the one and no number to the other."""
    if token.isascii() and token.isdecimal() and (token == "0" or not token.startswith("0")):
        return int(token)
    return None


def bad_array_index(root: Any, pointer: str) -> str | None:
    """The first token of a (decoded) local JSON pointer that indexes an array but is no
    array index (validators built on ``referencing`` crash on it with a bare ValueError),
    else None."""
    node: Any = root
    for raw in pointer.split("/")[1:]:
        token = unescape(raw)
        if isinstance(node, Mapping) and token in node:
            node = node[token]
        elif isinstance(node, list):
            index = array_index(token)
            if index is None:
                return token
            if index >= len(node):
                return None
            node = node[index]
        else:
            return None
    return None


def resolve_pointer(root: Any, pointer: str) -> Any:
    """The value at a decoded JSON pointer ("#", "#/a/b", "" or "/a/b"); KeyError when
    there is none."""
    node: Any = root
    for raw in pointer.split("/")[1:]:
        token = unescape(raw)
        index = array_index(token) if isinstance(node, list) else None
        if isinstance(node, Mapping) and token in node:
            node = node[token]
        elif index is not None and index < len(node):
            node = node[index]
        else:
            raise KeyError(pointer)
    return node


# -- $ref resolution -------------------------------------------------------------------------


class Unresolvable(LookupError):
    """A ``$ref`` this document cannot resolve. ``reason``: "not-a-string", "malformed" (no
    URI reference), "remote" (another document: never fetched) or "dangling" (this document,
    but nothing there); ``uri`` is the absolute reference when one could be formed."""

    def __init__(self, ref: object, reason: Reason, uri: str = "") -> None:
        self.ref = ref
        self.reason = reason
        self.uri = uri
        super().__init__(self.explain())

    def explain(self, at: str = "") -> str:
        """Why, in words; ``at`` says where the ref is written (a pointer, a path)."""
        where = f" at {at}" if at else ""
        if self.reason == "not-a-string":
            return f"$ref must be a string, not {self.ref!r:.60}{where}"
        if self.reason == "malformed":
            return f"the $ref {self.ref!r}{where} is not a valid URI reference"
        if self.reason == "remote":
            return (
                f"the $ref {self.ref!r}{where} points to a remote schema ({self.uri}); "
                "remote schemas are never fetched"
            )
        return f"the $ref {self.ref!r}{where} points to nothing in this schema"

    @property
    def is_network(self) -> bool:
        """A remote ref to a network URI (``scheme://host/...``), not a bare relative one."""
        return self.reason == "remote" and "://" in self.uri


@dataclass(frozen=True)
class RefTarget:
    """Where a ref leads: the document-wide pointer ("#/$defs/a") and the value there."""

    pointer: str
    schema: Any


class RefIndex:
    """The ``$id``s and anchors of one document, scanned once; ``lookup`` resolves refs."""

    def __init__(
        self, root: Any, dialect: str = "2020-12", *, max_depth: int = DOCUMENT_DEPTH
    ) -> None:
        self.root = root
        self.legacy = dialect in LEGACY_DIALECTS
        self._id_keyword = "id" if dialect == "draft-04" else "$id"
        self._resources: dict[str, str] = {}  # absolute URI (no fragment) -> its pointer
        self._anchors: dict[tuple[str, str], str] = {}  # (resource URI, name) -> pointer
        self._bases: dict[str, str] = {}  # schema pointer -> the base URI inside it
        self._where: dict[int, str] = {}  # id() of a schema object -> its pointer
        self._schemas: list[tuple[str, Mapping[str, Any]]] = []  # (pointer, object), in order
        #: Every schema object's pointer, parents before children.
        self.schema_pointers: tuple[str, ...] = ()
        #: The first value nested deeper than ``max_depth`` levels, or None: deeper values
        #: are not indexed (their anchors and ``$id``s are not found).
        self.too_deep: str | None = None
        self._scan(max_depth)

    def _scan(self, max_depth: int) -> None:
        root_base = self._own_id(self.root, "") if isinstance(self.root, Mapping) else None
        base = root_base or ""
        self._resources[base] = "#"
        # (value, pointer, level, the base URI around it, is it in a schema position?)
        stack: list[tuple[Any, str, int, str, bool]] = [(self.root, "#", 1, base, True)]
        while stack:
            value, ptr, level, base, is_schema = stack.pop()
            if level > max_depth:
                self.too_deep = self.too_deep or ptr
                continue
            if is_schema and isinstance(value, Mapping):
                base = self._enter_schema(value, ptr, base)
                self._schemas.append((ptr, value))
                children: list[tuple[Any, str, int, str, bool]] = []
                for key, sub in value.items():
                    at = f"{ptr}/{escape(key)}"
                    if key in SCHEMA_MAPS and isinstance(sub, Mapping):
                        children += [
                            (s, f"{at}/{escape(name)}", level + 1, base, True)
                            for name, s in sub.items()
                        ]
                    elif key in SCHEMA_LISTS and isinstance(sub, list):
                        children += [
                            (s, f"{at}/{i}", level + 1, base, True) for i, s in enumerate(sub)
                        ]
                    elif key in SCHEMA_SINGLES:
                        children.append((sub, at, level + 1, base, True))
                    elif isinstance(sub, (Mapping, list)):
                        children.append((sub, at, level + 1, base, False))
                stack += reversed(children)
            elif isinstance(value, (Mapping, list)):
                items = value.items() if isinstance(value, Mapping) else enumerate(value)
                stack += [
                    (v, f"{ptr}/{escape(k)}", level + 1, base, False)
                    for k, v in items
                    if isinstance(v, (Mapping, list))
                ]
        self.schema_pointers = tuple(ptr for ptr, _ in self._schemas)

    def _own_id(self, node: Mapping[str, Any], base: str) -> str | None:
        """The absolute URI (without fragment) a schema's ``$id`` names, if it names one."""
        own = node.get(self._id_keyword)
        if not isinstance(own, str) or own.startswith("#"):
            return None
        if self.legacy and "$ref" in node:
            return None  # before 2019-09 "$ref" hides its siblings, "$id" included
        try:
            return urldefrag(urljoin(base, own)).url
        except ValueError:  # no URI (an unbalanced "[" in the host): not an id
            return None

    def _enter_schema(self, node: Mapping[str, Any], ptr: str, base: str) -> str:
        """Index a schema object; the base URI its members and refs resolve against."""
        if ptr != "#":
            own = self._own_id(node, base)
            if own is not None:
                base = own
                self._resources.setdefault(base, ptr)
        self._bases[ptr] = base
        self._where.setdefault(id(node), ptr)
        names = [node.get("$anchor"), node.get("$dynamicAnchor")]
        legacy_anchor = node.get(self._id_keyword)
        if self.legacy and isinstance(legacy_anchor, str) and legacy_anchor.startswith("#"):
            names.append(legacy_anchor[1:])
        for name in names:
            if isinstance(name, str):
                self._anchors.setdefault((base, name), ptr)
        return base

    def base_at(self, at: str | Mapping[str, Any]) -> str:
        """The base URI at a schema (its pointer, or the object itself): its nearest ``$id``.
        Objects not in the document (merged copies) get the root's."""
        if not isinstance(at, str):
            at = self._where.get(id(at), "#")
        return self._bases.get(at, self._bases.get("#", ""))

    def where(self, node: object) -> str | None:
        """The pointer of a schema object of this document (found by identity), or None."""
        return self._where.get(id(node))

    def lookup(self, ref: object, at: str | Mapping[str, Any] = "#") -> RefTarget:
        """Where ``ref``, written in the schema ``at`` (its pointer or the object), leads.
        Raises Unresolvable; never fetches."""
        if not isinstance(ref, str):
            raise Unresolvable(ref, "not-a-string")
        base = self.base_at(at)
        if ref.startswith("#"):
            uri, fragment = base, ref[1:]
        else:
            try:
                uri, fragment = urldefrag(urljoin(base, ref))
            except ValueError:
                raise Unresolvable(ref, "malformed") from None
        resource = self._resources.get(uri)
        if resource is None:
            raise Unresolvable(ref, "remote", uri)
        if fragment.startswith("/") or not fragment:
            ptr = resource + unquote(fragment)
        else:
            ptr = self._anchors.get((uri, fragment), "")
        try:
            if not ptr:
                raise KeyError(fragment)
            return RefTarget(ptr, resolve_pointer(self.root, ptr))
        except KeyError:
            raise Unresolvable(ref, "dangling", f"{uri}#{fragment}") from None

    def find(self, ref: object, at: str | Mapping[str, Any] = "#") -> RefTarget | None:
        """``lookup`` for callers to whom every unresolvable ref means the same: None."""
        try:
            return self.lookup(ref, at)
        except Unresolvable:
            return None

    def refs(self) -> Iterator[tuple[str, str]]:
        """Every string ``$ref`` of every schema object: (the object's pointer, the ref)."""
        for ptr, node in self._schemas:
            ref = node.get("$ref")
            if isinstance(ref, str):
                yield ptr, ref
