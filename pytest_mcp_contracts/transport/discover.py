"""Discover: read a server's whole tool list and turn each entry into an ``Entry``; when the
server declares them, its prompts, resources and resource templates too. Tools, prompts,
resources and templates are one kind of thing, an ``Entry`` of some ``EntryKind``: what
differs between kinds is data (``LISTINGS``: how each is listed and addressed), so that
every stage after this one (items, drift, contracts, reports) handles an entry once.

The listings are kept raw: a malformed tool becomes an Entry with ``problems`` (reported by
its schema item) instead of breaking the listing for every other tool, and a malformed
resource, template or prompt is judged by its own schema item (``judges/content_listing``).
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final

from pytest_mcp_contracts.schema.synthetic import object_schema, prompt_schema, template_schema
from pytest_mcp_contracts.transport.errors import ProtocolViolation, RpcError, ServerError
from pytest_mcp_contracts.transport.jsonrpc import RpcConnection
from pytest_mcp_contracts.transport.stdio import command_label as command_label  # re-exported
from pytest_mcp_contracts.vocabulary import BESIDE_TOOLS, EntryKind

MAX_PAGES: Final = 1000
#: Deepest nesting (in JSON levels; an object schema under ``properties`` costs two) of a
#: listing entry that is kept as it is. Deeper entries would exhaust the recursion limits of
#: validators, the drift comparison and the snapshot writer: they are cut at this depth,
#: reported by the tool's schema item, and never called.
MAX_ENTRY_DEPTH: Final = 256
CUT_MARKER: Final = f"<cut: nested deeper than {MAX_ENTRY_DEPTH} levels>"
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")
# File names Windows refuses whatever their extension: a snapshot folder is committed and
# checked out everywhere.
_WINDOWS_DEVICES: Final = frozenset(
    {"CON", "PRN", "AUX", "NUL"} | {f"{port}{n}" for port in ("COM", "LPT") for n in range(1, 10)}
)


@dataclass(frozen=True)
class Listing:
    """How one kind of entry is listed and addressed."""

    method: str  # the listing's JSON-RPC method
    array: str  # the listing's array in a page
    key_field: str  # the entry's member it is addressed by: called, got or read by
    capability: str  # the server capability that offers the listing
    node_limit: int  # the longest node name (a URI says more than a name)
    definition: str  # the entry's definition in the protocol's schema (schema/spec)


LISTINGS: Final = {
    EntryKind.TOOL: Listing("tools/list", "tools", "name", "tools", 64, "Tool"),
    EntryKind.PROMPT: Listing("prompts/list", "prompts", "name", "prompts", 96, "Prompt"),
    EntryKind.RESOURCE: Listing("resources/list", "resources", "uri", "resources", 96, "Resource"),
    EntryKind.TEMPLATE: Listing(
        "resources/templates/list",
        "resourceTemplates",
        "uriTemplate",
        "resources",
        96,
        "ResourceTemplate",
    ),
}


@dataclass(frozen=True)
class Entry:
    """One tool, prompt, resource or resource template as the server listed it, plus what is
    wrong with the listing entry itself.

    ``key`` is what the entry is addressed by (a tool's or prompt's name, a resource's URI,
    a template's URI template; "" when it has none that is a string), ``listed`` how many
    entries of the listing share that key: only the first is kept, and its schema item says
    the key is not unique."""

    kind: EntryKind
    key: str
    node_name: str
    raw: dict[str, Any]
    problems: tuple[str, ...] = ()  # a tool's: what its schema item reports
    cut: bool = False  # nested deeper than MAX_ENTRY_DEPTH: ``raw`` was cut there
    # The node name earlier versions gave it, where its contract may be recorded ("" when
    # the same: former_node_names).
    former_name: str = ""
    listed: int = 1

    @property
    def name(self) -> str:
        """The key, in the words of tools (a tool is called by its name)."""
        return self.key

    @property
    def listing(self) -> Listing:
        return LISTINGS[self.kind]

    @property
    def node(self) -> str:
        """Its collector's name under its server's: a tool's node name, ``<kind>:<node
        name>`` for the others (a ":" no tool's node name has: ``safe_name``)."""
        if self.kind is EntryKind.TOOL:
            return self.node_name
        return f"{self.kind}:{self.node_name}"

    @functools.cached_property
    def input_schema(self) -> Any:
        """What its calls take: a tool's inputSchema as listed (any value: ``malformed``
        says whether it is one), a prompt's arguments and a template's variables as a
        synthetic schema (``schema/synthetic``), nothing for a resource."""
        if self.kind is EntryKind.TOOL:
            return self.raw.get("inputSchema")
        if self.kind is EntryKind.PROMPT:
            return prompt_schema(self.raw.get("arguments"))
        if self.kind is EntryKind.TEMPLATE:
            return template_schema(self.key)
        return object_schema({}, [])

    @property
    def malformed(self) -> bool:
        """Whether the entry cannot be called as it says: problems its schema item reports,
        or an inputSchema that is no object. No check calls such a tool."""
        return bool(self.problems) or not isinstance(self.input_schema, dict)

    @property
    def output_schema(self) -> Any:
        """A tool's outputSchema as listed; the other kinds declare none."""
        return self.raw.get("outputSchema") if self.kind is EntryKind.TOOL else None

    @property
    def annotations(self) -> dict[str, Any]:
        value = self.raw.get("annotations")
        return value if isinstance(value, dict) else {}


@dataclass(frozen=True)
class ListingFailure:
    """A listing the server declared but did not answer, or answered garbled: its own
    failure (``mcp:<server>::listing:<kind>s::schema``), not one that hides the tools."""

    kind: str
    method: str
    message: str  # naming the method: "prompts/list failed: JSON-RPC error -32601: ..."
    code: int | None = None  # the JSON-RPC error's code, when the server answered one

    @property
    def node(self) -> str:
        # A ":" no tool's node name has (safe_name): a tool named "prompts" keeps its own.
        return f"listing:{self.kind}s"


@dataclass(frozen=True)
class ServerSurface:
    """What a server said about itself at start-up."""

    name: str
    node_name: str
    version: str
    protocol_version: str
    tools: tuple[Entry, ...] = field(default_factory=tuple)
    capabilities: dict[str, Any] = field(default_factory=dict)  # the server's, as declared
    prompts: tuple[Entry, ...] = ()
    resources: tuple[Entry, ...] = ()
    templates: tuple[Entry, ...] = ()
    listing_failures: tuple[ListingFailure, ...] = ()
    former_node_name: str = ""  # as Entry's former_name: its snapshot folder's

    @property
    def listed(self) -> tuple[Entry, ...]:
        """Prompts, resources and templates, in the order their items are collected."""
        return (*self.prompts, *self.resources, *self.templates)

    @property
    def entries(self) -> tuple[Entry, ...]:
        """Every entry it listed: its tools, then ``listed``."""
        return (*self.tools, *self.listed)


def safe_name(text: str, *, limit: int = 64) -> str:
    """A node-id and file-name safe rendering of one name a server chose, alone: anything
    outside ``A-Z a-z 0-9 _ . -`` replaced (a run by one ``_``), dots and underscores at
    either end dropped. A short hash of the original is appended where that is not enough:
    nothing was left, the name is longer than ``limit``, or it is a Windows device name
    (``CON``). Two names can render alike (``a b``, ``a/b``): ``node_names`` names the
    entries of a listing, which never meet."""
    cleaned = _cleaned(text, limit)
    return _hashed(text, limit) if cleaned is None else cleaned


def _cleaned(text: str, limit: int) -> str | None:
    """``text`` made safe without a hash, or None when that cannot name it."""
    cleaned = _UNSAFE.sub("_", text).strip("._")
    reserved = cleaned.split(".")[0].upper() in _WINDOWS_DEVICES
    return cleaned if cleaned and len(cleaned) <= limit and not reserved else None


def _hashed(text: str, limit: int) -> str:
    cleaned = _UNSAFE.sub("_", text).strip("._") or "unnamed"
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"{cleaned[: limit - 9]}-{digest}"


def node_names(names: Sequence[str], *, limit: int = 64) -> list[str]:
    """The node names of a listing's entries (or of a run's servers), in order, each safe for
    node ids and file names: a name as it is when it is safe, else its safe rendering
    (``safe_name``). A hash of the name is kept only where the rendering could be taken for
    another entry's (``a b`` beside ``a_b`` or ``a/b``, case aside): the entry whose name
    the rendering is keeps it, the others get their hash, whatever the order. Names equal
    but for case get ``-2``, ``-3``… (``_unique``)."""
    rendered = [safe_name(name, limit=limit) for name in names]
    counts = Counter(name.lower() for name in rendered)
    out = []
    for name, safe in zip(names, rendered, strict=True):
        if safe != name and counts[safe.lower()] > 1:
            safe = _hashed(name, limit)
        out.append(safe)
    return _unique(out)


def former_node_names(names: Sequence[str], *, limit: int = 64) -> list[str]:
    """The node names earlier versions gave these entries (a hash on every name that had
    to change): where their recorded contracts were written, still read."""
    return _unique(
        name if _cleaned(name, limit) == name else _hashed(name, limit) for name in names
    )


def _unique(names: Iterable[str]) -> list[str]:
    """Node names that differ even case-insensitively (Foo and foo never share a file on
    macOS or Windows): a later clash gets ``-2``, ``-3``…, skipping every name some tool
    already has, so that a suffix never takes the name of a tool listed after it."""
    names = list(names)
    taken = {name.lower() for name in names}
    used: set[str] = set()
    out = []
    for name in names:
        candidate, n = name, 1
        while candidate.lower() in used or (n > 1 and candidate.lower() in taken):
            n += 1
            candidate = f"{name}-{n}"
        used.add(candidate.lower())
        taken.add(candidate.lower())
        out.append(candidate)
    return out


def _too_deep(value: Any, limit: int) -> bool:
    """Whether ``value`` nests more than ``limit`` levels, found without recursion."""
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        children = node.values() if isinstance(node, dict) else node
        if depth > limit:
            return True
        stack += [(c, depth + 1) for c in children if isinstance(c, (dict, list))]
    return False


def _cut(value: dict[str, Any], limit: int) -> dict[str, Any]:
    """A copy of ``value`` with every container deeper than ``limit`` replaced by a marker."""
    out: dict[str, Any] = {}
    stack: list[tuple[Any, Any, int]] = [(value, out, 1)]
    while stack:
        source, target, depth = stack.pop()
        for key, child in source.items() if isinstance(source, dict) else enumerate(source):
            copied = child
            if isinstance(child, (dict, list)):
                if depth >= limit:
                    copied = CUT_MARKER
                else:
                    copied = {} if isinstance(child, dict) else []
                    stack.append((child, copied, depth + 1))
            if isinstance(target, dict):
                target[key] = copied
            else:
                target.append(copied)
    return out


def list_pages(
    conn: RpcConnection, method: str, field: str, *, timeout: float
) -> list[dict[str, Any]]:
    """Read a listing (``tools/list``, ``prompts/list``...) to the end of its pagination
    (only a missing cursor ends it); an entry that is not an object is kept as a marker."""
    entries: list[dict[str, Any]] = []
    cursor: str | None = None
    seen_cursors: set[str] = set()
    for _ in range(MAX_PAGES):
        params = {} if cursor is None else {"cursor": cursor}
        try:
            page = conn.request(method, params, timeout=timeout)
        except RpcError as exc:
            # The RpcError stays the cause: a listing's reader may judge its code.
            raise ServerError(f"{method} failed: {exc}", stderr_tail=conn.stderr_tail()) from exc
        found = page.get(field) if isinstance(page, dict) else None
        if not isinstance(found, list):
            raise ProtocolViolation(
                f"{method} returned no {field!r} array", stderr_tail=conn.stderr_tail()
            )
        entries.extend(e if isinstance(e, dict) else {"__not_an_object__": e} for e in found)
        next_cursor = page.get("nextCursor")
        if next_cursor is None:
            return entries
        if not isinstance(next_cursor, str):
            raise ProtocolViolation(f"{method} returned a non-string nextCursor {next_cursor!r}")
        if next_cursor in seen_cursors:
            raise ProtocolViolation(
                f"{method} pagination loops: cursor {next_cursor!r} came back a second time"
            )
        seen_cursors.add(next_cursor)
        cursor = next_cursor
    raise ProtocolViolation(f"{method} did not end after {MAX_PAGES} pages")


def list_tools(conn: RpcConnection, *, timeout: float) -> list[dict[str, Any]]:
    listing = LISTINGS[EntryKind.TOOL]
    return list_pages(conn, listing.method, listing.array, timeout=timeout)


def tool_list_changes(first: Sequence[Entry], again: Sequence[Entry]) -> list[str]:
    """How a tool list read again differs from the first (up to 20 names a line): the spec
    says a server's tool set must not vary."""
    before = {t.name: t.raw for t in first}
    after = {t.name: t.raw for t in again}
    changes = []
    for label, names in (
        ("now lists", after.keys() - before.keys()),
        ("no longer lists", before.keys() - after.keys()),
        ("changed", {n for n in before.keys() & after.keys() if before[n] != after[n]}),
    ):
        if names:
            changes.append(f"{label}: {', '.join(sorted(names)[:20])}")
    return changes


def _problems(
    kind: EntryKind, raw: dict[str, Any], key: str, listed: int, cut: bool
) -> tuple[str, ...]:
    """What a tool's schema item reports of its listing entry (the other kinds' schema items
    judge the entry itself: judges/content_listing)."""
    if kind is not EntryKind.TOOL:
        return ()
    found = []
    if "__not_an_object__" in raw:
        found.append(f"the listing entry is not an object: {raw['__not_an_object__']!r}")
    else:
        if not isinstance(raw.get("name"), str) or not raw.get("name"):
            found.append("the tool has no name")
        if not isinstance(raw.get("inputSchema"), dict):
            found.append("inputSchema is missing or not an object")
        if "outputSchema" in raw and not isinstance(raw["outputSchema"], dict):
            found.append("outputSchema is not an object")
    if listed > 1:
        found.append(
            f"the name {key!r} is listed {listed} times: names must be unique "
            "(only its first entry is tested)"
        )
    if cut:
        found.append(
            f"the listing entry nests deeper than {MAX_ENTRY_DEPTH} levels, so it was "
            "not checked and the tool is not called (JSON Schema implementations must "
            "bound schema depth). Flatten the schema; recursive structures belong in "
            "$defs with $ref"
        )
    return tuple(found)


def _key(value: Any) -> str:
    return value if isinstance(value, str) else ""


def build_entries(kind: EntryKind, raw_entries: list[dict[str, Any]]) -> tuple[Entry, ...]:
    """Each entry of one listing as an ``Entry`` of ``kind``. Entries are addressed by their
    key (a tool is called by name), so a key listed twice is one entry: its first listing
    entry is the one tested (and recorded), counted in ``listed``."""
    listing = LISTINGS[kind]
    keys = [_key(e.get(listing.key_field)) for e in raw_entries]
    counts = Counter(keys)
    entries, seen = [], set()
    for key, raw in zip(keys, raw_entries, strict=True):
        if not key or key not in seen:
            entries.append((key, raw))
            seen.add(key)
    named = [k or "unnamed" for k, _ in entries]
    names = node_names(named, limit=listing.node_limit)
    formers = former_node_names(named, limit=listing.node_limit)
    out = []
    for (key, raw), node_name, former in zip(entries, names, formers, strict=True):
        listed = counts[key] if key else 1
        cut = _too_deep(raw, MAX_ENTRY_DEPTH)
        problems = _problems(kind, raw, key, listed, cut)
        out.append(
            Entry(
                kind,
                key,
                node_name,
                _cut(raw, MAX_ENTRY_DEPTH) if cut else raw,
                problems,
                cut,
                _if_other(former, node_name),
                listed,
            )
        )
    return tuple(out)


def build_surface(conn: RpcConnection, raw_tools: list[dict[str, Any]]) -> ServerSurface:
    info = conn.server_info
    server_name = str(info.get("name") or "") or _name_from_command(conn)
    node_name = node_names([server_name])[0]
    return ServerSurface(
        name=server_name,
        node_name=node_name,
        former_node_name=_if_other(former_node_names([server_name])[0], node_name),
        version=str(info.get("version") or ""),
        protocol_version=conn.protocol_version or "",
        tools=build_entries(EntryKind.TOOL, raw_tools),
        capabilities=conn.capabilities,
    )


def _if_other(former: str, node_name: str) -> str:
    return "" if former == node_name else former


def read_listings(conn: RpcConnection, surface: ServerSurface, *, timeout: float) -> ServerSurface:
    """``surface`` with the prompts, resources and templates the server declares. A server
    that declares neither capability is not asked (old SDKs crash on methods they do not
    know); a declared listing that fails or is garbled becomes a ``ListingFailure``."""
    failures: list[ListingFailure] = []

    def read(kind: EntryKind) -> tuple[Entry, ...]:
        listing = LISTINGS[kind]
        if not isinstance(surface.capabilities.get(listing.capability), dict):
            return ()
        try:
            raw = list_pages(conn, listing.method, listing.array, timeout=timeout)
            return build_entries(kind, raw)
        except ServerError as exc:
            cause = exc.__cause__
            code = cause.code if isinstance(cause, RpcError) else None
            failures.append(ListingFailure(kind, listing.method, exc.message, code))
        except Exception as exc:  # the listing is the server's words: nothing in it may crash us
            message = f"{listing.method} could not be read: {exc!r}"
            failures.append(ListingFailure(kind, listing.method, message))
        return ()

    # In the order of the items (ServerSurface.listed), failures too.
    prompts, resources, templates = (read(kind) for kind in BESIDE_TOOLS)
    return replace(
        surface,
        prompts=prompts,
        resources=resources,
        templates=templates,
        listing_failures=tuple(failures),
    )


def _name_from_command(conn: RpcConnection) -> str:
    # 2026 servers may stay anonymous: name them by their command (or URL).
    return str(conn.command.label)


def discover(conn: RpcConnection, *, timeout: float) -> ServerSurface:
    try:
        surface = build_surface(conn, list_tools(conn, timeout=timeout))
    except ServerError:
        raise
    except Exception as exc:  # the listing is the server's words: nothing in it may crash us
        raise ProtocolViolation(f"could not read the tool list: {exc!r}") from None
    return read_listings(conn, surface, timeout=timeout)
