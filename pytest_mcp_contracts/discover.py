"""Discover: read a server's whole tool list and turn each entry into a ``ToolSpec``.

The listing is kept raw: a malformed tool becomes a ToolSpec with ``problems`` (reported by
its schema item) instead of breaking the listing for every other tool.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Final

from .connect import ProtocolViolation, RpcError, ServerError, StdioConnection

MAX_PAGES: Final = 1000
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


@dataclass(frozen=True)
class ToolSpec:
    """One tool as the server listed it, plus what is wrong with the listing entry itself."""

    name: str
    node_name: str
    raw: dict[str, Any]
    problems: tuple[str, ...] = ()

    @property
    def input_schema(self) -> Any:
        return self.raw.get("inputSchema")

    @property
    def output_schema(self) -> Any:
        return self.raw.get("outputSchema")

    @property
    def annotations(self) -> dict[str, Any]:
        value = self.raw.get("annotations")
        return value if isinstance(value, dict) else {}


@dataclass(frozen=True)
class ServerSurface:
    """What a server said about itself at start-up."""

    name: str
    node_name: str
    version: str
    protocol_version: str
    tools: tuple[ToolSpec, ...] = field(default_factory=tuple)


def safe_name(text: str, *, limit: int = 64) -> str:
    """A node-id and file-name safe rendering of a name a server chose.

    Anything outside ``A-Z a-z 0-9 _ . -`` is replaced, and a short hash of the original is
    appended whenever the name had to change, so two different names never meet.
    """
    cleaned = _UNSAFE.sub("_", text).strip("._") or "unnamed"
    if cleaned == text and len(text) <= limit:
        return text
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"{cleaned[: limit - 9]}-{digest}"


def _unique(names: Iterable[str]) -> list[str]:
    seen: dict[str, int] = {}
    out = []
    for name in names:
        # Case-insensitive, so that Foo and foo never share a file on macOS or Windows.
        key = name.lower()
        count = seen.get(key, 0)
        seen[key] = count + 1
        out.append(name if count == 0 else f"{name}-{count + 1}")
    return out


def list_tools(conn: StdioConnection, *, timeout: float) -> list[dict[str, Any]]:
    """Read ``tools/list`` to the end of its pagination (only a missing cursor ends it)."""
    tools: list[dict[str, Any]] = []
    cursor: str | None = None
    seen_cursors: set[str] = set()
    for _ in range(MAX_PAGES):
        params = {} if cursor is None else {"cursor": cursor}
        try:
            page = conn.request("tools/list", params, timeout=timeout)
        except RpcError as exc:
            raise ServerError(f"tools/list failed: {exc}", stderr_tail=conn.stderr_tail()) from None
        entries = page.get("tools")
        if not isinstance(entries, list):
            raise ProtocolViolation(
                "tools/list returned no 'tools' array", stderr_tail=conn.stderr_tail()
            )
        tools.extend(e if isinstance(e, dict) else {"__not_an_object__": e} for e in entries)
        next_cursor = page.get("nextCursor")
        if next_cursor is None:
            return tools
        if not isinstance(next_cursor, str):
            raise ProtocolViolation(f"tools/list returned a non-string nextCursor {next_cursor!r}")
        if next_cursor in seen_cursors:
            raise ProtocolViolation(
                f"tools/list pagination loops: cursor {next_cursor!r} came back a second time"
            )
        seen_cursors.add(next_cursor)
        cursor = next_cursor
    raise ProtocolViolation(f"tools/list did not end after {MAX_PAGES} pages")


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


def build_surface(conn: StdioConnection, raw_tools: list[dict[str, Any]]) -> ServerSurface:
    names = [str(t.get("name", "")) if isinstance(t.get("name"), str) else "" for t in raw_tools]
    node_names = _unique(safe_name(n or "unnamed") for n in names)
    counts: dict[str, int] = {}
    for name in names:
        counts[name] = counts.get(name, 0) + 1
    tools = []
    for name, node_name, raw in zip(names, node_names, raw_tools, strict=True):
        problems = _problems(raw)
        if counts[name] > 1 and name:
            problems += (f"the name {name!r} is listed {counts[name]} times: names must be unique",)
        tools.append(ToolSpec(name=name, node_name=node_name, raw=raw, problems=problems))
    info = conn.server_info
    server_name = str(info.get("name") or "") or _name_from_command(conn)
    return ServerSurface(
        name=server_name,
        node_name=safe_name(server_name),
        version=str(info.get("version") or ""),
        protocol_version=conn.protocol_version or "",
        tools=tuple(tools),
    )


def command_label(argv: tuple[str, ...]) -> str:
    """A short name for a server command: the module of ``-m``, else its last argument."""
    if "-m" in argv[:-1]:
        return argv[argv.index("-m") + 1]
    words = [a for a in argv[1:] if not a.startswith("-")] or [argv[0]]
    return words[-1].rstrip("/").rsplit("/", 1)[-1] or "server"


def _name_from_command(conn: StdioConnection) -> str:
    # 2026 servers may stay anonymous: name them by their command.
    return command_label(conn.command.argv)


def discover(conn: StdioConnection, *, timeout: float) -> ServerSurface:
    try:
        return build_surface(conn, list_tools(conn, timeout=timeout))
    except ServerError:
        raise
    except Exception as exc:  # the listing is the server's words: nothing in it may crash us
        raise ProtocolViolation(f"could not read the tool list: {exc!r}") from None
