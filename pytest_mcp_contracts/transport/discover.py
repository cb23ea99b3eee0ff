"""Discover: read a server's whole tool list and turn each entry into a ``ToolSpec``; when
the server declares them, its resources, resource templates and prompts too (``ListedSpec``).

The listings are kept raw: a malformed tool becomes a ToolSpec with ``problems`` (reported by
its schema item) instead of breaking the listing for every other tool, and a malformed
resource, template or prompt is judged by its own schema item (``checks/surface_listing``).
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, Final, TypeVar

from pytest_mcp_contracts.transport.errors import ProtocolViolation, RpcError, ServerError
from pytest_mcp_contracts.transport.jsonrpc import RpcConnection
from pytest_mcp_contracts.transport.stdio import command_label as command_label  # re-exported
from pytest_mcp_contracts.vocabulary import ListedKind

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
class ToolSpec:
    """One tool as the server listed it, plus what is wrong with the listing entry itself."""

    name: str
    node_name: str
    raw: dict[str, Any]
    problems: tuple[str, ...] = ()
    cut: bool = False  # nested deeper than MAX_ENTRY_DEPTH: ``raw`` was cut there
    # The node name earlier versions gave it, where its contract may be recorded ("" when
    # the same: former_node_names).
    former_name: str = ""

    @property
    def input_schema(self) -> Any:
        return self.raw.get("inputSchema")

    @property
    def malformed(self) -> bool:
        """Whether the entry cannot be called as it says: problems its schema item reports,
        or an inputSchema that is no object. No check calls such a tool."""
        return bool(self.problems) or not isinstance(self.input_schema, dict)

    @property
    def output_schema(self) -> Any:
        return self.raw.get("outputSchema")

    @property
    def annotations(self) -> dict[str, Any]:
        value = self.raw.get("annotations")
        return value if isinstance(value, dict) else {}


@dataclass(frozen=True)
class ListedSpec:
    """One resource, resource template or prompt as the server listed it.

    ``key`` is what the entry is addressed by (its URI, URI template or name; "" when it
    has none that is a string), ``listed`` how many entries of the listing share that key:
    only the first is kept, and its schema item says the key is not unique."""

    key: str
    node_name: str
    raw: dict[str, Any]
    listed: int = 1
    cut: bool = False  # nested deeper than MAX_ENTRY_DEPTH: ``raw`` was cut there
    former_name: str = ""  # as ToolSpec's

    kind: ClassVar[str]  # the node id's word: mcp:<server>::<kind>:<key>::<check>
    method: ClassVar[str]  # the listing's JSON-RPC method
    array: ClassVar[str]  # the listing's array in a page
    key_field: ClassVar[str]  # the entry's member that is its key
    capability: ClassVar[str]  # the server capability that offers the listing

    @property
    def node(self) -> str:
        return f"{self.kind}:{self.node_name}"


@dataclass(frozen=True)
class ResourceSpec(ListedSpec):
    kind = ListedKind.RESOURCE.value
    method = "resources/list"
    array = "resources"
    key_field = "uri"
    capability = "resources"


@dataclass(frozen=True)
class TemplateSpec(ListedSpec):
    kind = ListedKind.TEMPLATE.value
    method = "resources/templates/list"
    array = "resourceTemplates"
    key_field = "uriTemplate"
    capability = "resources"


@dataclass(frozen=True)
class PromptSpec(ListedSpec):
    kind = ListedKind.PROMPT.value
    method = "prompts/list"
    array = "prompts"
    key_field = "name"
    capability = "prompts"


_S = TypeVar("_S", bound=ListedSpec)


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
    tools: tuple[ToolSpec, ...] = field(default_factory=tuple)
    capabilities: dict[str, Any] = field(default_factory=dict)  # the server's, as declared
    prompts: tuple[PromptSpec, ...] = ()
    resources: tuple[ResourceSpec, ...] = ()
    templates: tuple[TemplateSpec, ...] = ()
    listing_failures: tuple[ListingFailure, ...] = ()
    former_node_name: str = ""  # as ToolSpec's former_name: its snapshot folder's

    @property
    def listed(self) -> tuple[ListedSpec, ...]:
        """Prompts, resources and templates, in the order their items are collected."""
        return (*self.prompts, *self.resources, *self.templates)


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
    """The node names versions before issue 26 gave these entries (a hash on every name
    that had to change): where their recorded contracts were written."""
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
    return list_pages(conn, "tools/list", "tools", timeout=timeout)


def tool_list_changes(first: Sequence[ToolSpec], again: Sequence[ToolSpec]) -> list[str]:
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


def _problems(raw: dict[str, Any]) -> tuple[str, ...]:
    if "__not_an_object__" in raw:
        return (f"the listing entry is not an object: {raw['__not_an_object__']!r}",)
    found = []
    if not isinstance(raw.get("name"), str) or not raw.get("name"):
        found.append("the tool has no name")
    if not isinstance(raw.get("inputSchema"), dict):
        found.append("inputSchema is missing or not an object")
    if "outputSchema" in raw and not isinstance(raw["outputSchema"], dict):
        found.append("outputSchema is not an object")
    return tuple(found)


def build_surface(conn: RpcConnection, raw_tools: list[dict[str, Any]]) -> ServerSurface:
    names = [str(t.get("name", "")) if isinstance(t.get("name"), str) else "" for t in raw_tools]
    counts: dict[str, int] = {}
    for name in names:
        counts[name] = counts.get(name, 0) + 1
    # Tools are called by name, so a name listed twice is one tool: its first entry is the
    # one tested (and recorded), and its schema item says the name is not unique.
    entries, seen = [], set()
    for name, raw in zip(names, raw_tools, strict=True):
        if not name or name not in seen:
            entries.append((name, raw))
            seen.add(name)
    listed_names = [n or "unnamed" for n, _ in entries]
    formers = former_node_names(listed_names)
    tools = []
    for (name, raw), node_name, former in zip(
        entries, node_names(listed_names), formers, strict=True
    ):
        problems = _problems(raw)
        if name and counts[name] > 1:
            problems += (
                f"the name {name!r} is listed {counts[name]} times: names must be unique "
                "(only its first entry is tested)",
            )
        cut = _too_deep(raw, MAX_ENTRY_DEPTH)
        if cut:
            raw = _cut(raw, MAX_ENTRY_DEPTH)
            problems += (
                f"the listing entry nests deeper than {MAX_ENTRY_DEPTH} levels, so it was "
                "not checked and the tool is not called (JSON Schema implementations must "
                "bound schema depth). Flatten the schema; recursive structures belong in "
                "$defs with $ref",
            )
        tools.append(ToolSpec(name, node_name, raw, problems, cut, _if_other(former, node_name)))
    info = conn.server_info
    server_name = str(info.get("name") or "") or _name_from_command(conn)
    node_name = node_names([server_name])[0]
    return ServerSurface(
        name=server_name,
        node_name=node_name,
        former_node_name=_if_other(former_node_names([server_name])[0], node_name),
        version=str(info.get("version") or ""),
        protocol_version=conn.protocol_version or "",
        tools=tuple(tools),
        capabilities=conn.capabilities,
    )


def _key(value: Any) -> str:
    return value if isinstance(value, str) else ""


def build_listed(spec: type[_S], raw_entries: list[dict[str, Any]]) -> tuple[_S, ...]:
    """Each entry of one listing as a ``spec``; an entry whose key repeats an earlier one's
    is counted on the first (a read or get addresses one of them only)."""
    keys = [_key(e.get(spec.key_field)) for e in raw_entries]
    counts: dict[str, int] = {}
    for key in keys:
        counts[key] = counts.get(key, 0) + 1
    entries, seen = [], set()
    for key, raw in zip(keys, raw_entries, strict=True):
        if not key or key not in seen:
            entries.append((key, raw))
            seen.add(key)
    keys_named = [k or "unnamed" for k, _ in entries]
    names = node_names(keys_named, limit=96)
    formers = former_node_names(keys_named, limit=96)
    out = []
    for (key, raw), node_name, former in zip(entries, names, formers, strict=True):
        cut = _too_deep(raw, MAX_ENTRY_DEPTH)
        out.append(
            spec(
                key,
                node_name,
                _cut(raw, MAX_ENTRY_DEPTH) if cut else raw,
                counts[key] if key else 1,
                cut,
                _if_other(former, node_name),
            )
        )
    return tuple(out)


def _if_other(former: str, node_name: str) -> str:
    return "" if former == node_name else former


def read_listings(conn: RpcConnection, surface: ServerSurface, *, timeout: float) -> ServerSurface:
    """``surface`` with the prompts, resources and templates the server declares. A server
    that declares neither capability is not asked (old SDKs crash on methods they do not
    know); a declared listing that fails or is garbled becomes a ``ListingFailure``."""
    failures: list[ListingFailure] = []

    def read(spec: type[_S]) -> tuple[_S, ...]:
        if not isinstance(surface.capabilities.get(spec.capability), dict):
            return ()
        try:
            return build_listed(spec, list_pages(conn, spec.method, spec.array, timeout=timeout))
        except ServerError as exc:
            cause = exc.__cause__
            code = cause.code if isinstance(cause, RpcError) else None
            failures.append(ListingFailure(spec.kind, spec.method, exc.message, code))
        except Exception as exc:  # the listing is the server's words: nothing in it may crash us
            message = f"{spec.method} could not be read: {exc!r}"
            failures.append(ListingFailure(spec.kind, spec.method, message))
        return ()

    # In the order of the items (ServerSurface.listed), failures too.
    prompts, resources, templates = read(PromptSpec), read(ResourceSpec), read(TemplateSpec)
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
