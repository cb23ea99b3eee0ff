"""Snapshot: one reviewable JSON file per tool, under ``<snapshot dir>/<server>/<tool>.json``,
and one per prompt, resource and template in a folder of their own beside them
(``<server>/prompts/<name>.json``, ``resources/``, ``templates/``: see ``FOLDERS``).

Files are deterministic (sorted keys, 2-space indent, trailing newline, a format version)
and written atomically (a temporary file in the same folder, then a rename), so a run that
changes nothing rewrites nothing and an interrupted run never leaves half a file. Names
come from ``discover.safe_name``, so a hostile tool name cannot steer a path out of the
folder; every path is checked to be inside it all the same.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

from pytest_mcp_contracts.transport.discover import Entry
from pytest_mcp_contracts.vocabulary import EntryKind

# 2: inferred output sections keep capped per-path counts and a quality reason, not exact
# observation counts (which changed the file on every update run). Version 1 files are
# still read as they are; --mcp-snapshot-update rewrites them as version 2.
FORMAT_VERSION: Final = 2
READABLE_VERSIONS: Final = (1, 2)
SUFFIX: Final = ".json"
#: The folder of each kind of entry's files in its server's folder: a tool's file name is its
#: node name alone, the others' ``<folder>/<node name>``, so that no prompt, resource or
#: template is ever taken for a tool.
FOLDERS: Final = {
    EntryKind.TOOL: "",
    EntryKind.PROMPT: "prompts",
    EntryKind.RESOURCE: "resources",
    EntryKind.TEMPLATE: "templates",
}


def file_of(entry: Entry) -> str:
    """The file name of an entry in its server's folder."""
    return file_named(entry.kind, entry.node_name)


def file_named(kind: EntryKind, node_name: str) -> str:
    """The file name of an entry of ``kind`` named ``node_name``."""
    folder = FOLDERS[kind]
    return f"{folder}/{node_name}" if folder else node_name


def kind_of(file: str) -> EntryKind:
    """The kind of entry a file name is of."""
    folder = file.rpartition("/")[0]
    return next((kind for kind, name in FOLDERS.items() if name == folder), EntryKind.TOOL)


def node_of(file: str) -> str:
    """The collector name (``Entry.node``) of an entry's file: ``prompt:<node>`` for
    ``prompts/<node>``, a tool's node name for its own."""
    kind, node_name = kind_of(file), file.rpartition("/")[2]
    return node_name if kind is EntryKind.TOOL else f"{kind}:{node_name}"


def file_at(node: str) -> str | None:
    """The file of the entry whose collector is named ``node`` (``node_of`` read back);
    None for a collector that has none (``listing:prompts``: a listing that failed)."""
    word, colon, node_name = node.partition(":")
    if not colon:
        return node
    kind = next((kind for kind in FOLDERS if kind == word and kind is not EntryKind.TOOL), None)
    return None if kind is None else file_named(kind, node_name)


class SnapshotError(Exception):
    """A snapshot file exists but cannot be used; it is never silently replaced."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason

    def render(self) -> str:
        return (
            f"the recorded contract {self.path} cannot be read: {self.reason}\n"
            "  it was left as it is. Fix it by hand (git diff shows what changed), or delete "
            "it and record it again with --mcp-snapshot-update."
        )


def dumps(data: Any) -> str:
    return json.dumps(data, sort_keys=True, indent=2, ensure_ascii=False) + "\n"


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_atomic(path: Path, text: str) -> None:
    """Write through a temporary file in the same folder and a rename: never half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        # mkstemp makes the file private (0600); a snapshot is an ordinary repository file.
        if hasattr(os, "fchmod"):  # not on Windows before Python 3.13
            os.fchmod(fd, 0o666 & ~_umask())
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


class SnapshotStore:
    """Reads and writes the per-tool files of one snapshot folder.

    Files recorded under the names of earlier versions (``follow``) are found where they
    are: read there, listed under their names now, and moved when next written."""

    def __init__(self, root: Path) -> None:
        self.root = root
        # (server, file name now) -> (server, file name) where an earlier version wrote it.
        self.former: dict[tuple[str, str], tuple[str, str]] = {}

    def follow(self, server: str, former_server: str, renames: dict[str, str]) -> None:
        """Let ``server``'s files be found under their former names: ``renames`` maps a
        file's name now to its former one, in ``former_server``'s folder (a server whose
        folder was renamed brings every file of its former folder along)."""
        if former_server != server:
            moved = set(renames.values())
            for name in self._files(former_server):
                if name not in moved:
                    self.former.setdefault((server, name), (former_server, name))
        for name, former in renames.items():
            self.former[(server, name)] = (former_server, former)

    def located(self, server: str, tool: str) -> Path:
        """Where a file is: at its own path, else where an earlier version wrote it (its
        own path when it is nowhere)."""
        path = self.path_for(server, tool)
        former = self.former.get((server, tool))
        if former is not None and not path.is_file():
            old = self.path_for(*former)
            if old.is_file():
                return old
        return path

    def path_for(self, server: str, tool: str) -> Path:
        """The file of an entry (``tool`` its file name: ``file_of``)."""
        folder, _, node = tool.rpartition("/")
        path = self.root / server / folder / (node + SUFFIX)
        # Names are made safe upstream; this is the last line of defence: the file must sit
        # directly in its server's folder, or in one of that folder's listed-entry folders.
        root = self.root.resolve()
        resolved = path.resolve()
        if (
            root not in resolved.parents
            or node.startswith(".")
            or folder not in FOLDERS.values()
            or resolved.parent != (self.root / server / folder).resolve()
        ):
            raise ValueError(f"refusing a snapshot path outside {root}: {path}")
        return path

    def read(self, server: str, tool: str) -> dict[str, Any] | None:
        """The recorded data, None when there is none; SnapshotError when it is unusable."""
        path = self.located(server, tool)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except (OSError, UnicodeDecodeError) as exc:
            raise SnapshotError(path, f"unreadable ({exc})") from None
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise SnapshotError(path, f"not valid JSON ({exc})") from None
        if not isinstance(data, dict):
            raise SnapshotError(path, "not a JSON object")
        version = data.get("format_version")
        if type(version) is not int or version not in READABLE_VERSIONS:
            raise SnapshotError(
                path,
                f"format_version {version!r}; this plugin reads versions "
                f"{', '.join(map(str, READABLE_VERSIONS))}",
            )
        return data

    def write(self, server: str, tool: str, data: dict[str, Any]) -> bool:
        """Write atomically; return False (and touch nothing) when the bytes are unchanged.
        A file found under its former name moves to its name now."""
        path = self.path_for(server, tool)
        found = self.located(server, tool)
        text = dumps({**data, "format_version": FORMAT_VERSION})
        with contextlib.suppress(OSError):
            if found == path and path.read_text(encoding="utf-8") == text:
                return False
        write_atomic(path, text)
        if found != path:
            found.unlink(missing_ok=True)
            self._remove_if_empty(found.parent)
        return True

    def _remove_if_empty(self, folder: Path) -> None:
        """A former server folder (or its prompts/, resources/, templates/) left empty by
        the moves: removed, so that it is not taken for a recorded server."""
        while folder != self.root and self.root in folder.parents:
            try:
                folder.rmdir()
            except OSError:  # not empty (or not ours to remove): it stays
                return
            folder = folder.parent

    def recorded(self, server: str, *kinds: EntryKind) -> list[str]:
        """The file names (without suffix) recorded for a server, of entries of ``kinds``
        (of every kind when none is given)."""
        names = self._recorded(server)
        return [name for name in names if not kinds or kind_of(name) in kinds]

    def _recorded(self, server: str) -> list[str]:
        """Every file name recorded for a server, those under former names by their names
        now (``follow``)."""
        names = set(self._files(server))
        for (srv, name), (former_server, former) in self.former.items():
            if srv != server or not (self.root / former_server).is_dir():
                continue
            if former_server == server:
                names.discard(former)  # a former name in its own folder: listed as now
            if self.path_for(former_server, former).is_file():
                names.add(name)
        return sorted(names)

    def _files(self, server: str) -> list[str]:
        """The file names in a server's folder as they are on disk: tools', then
        ``<folder>/<name>`` for prompts, resources and templates."""
        folders = [
            (f"{name}/" if name else "", self.root / server / name) for name in FOLDERS.values()
        ]
        return [
            f"{prefix}{p.name.removesuffix(SUFFIX)}"
            for prefix, folder in folders
            if folder.is_dir()
            for p in sorted(folder.iterdir())
            if p.is_file() and p.name.endswith(SUFFIX) and not p.name.startswith(".")
        ]

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """Hold an exclusive lock on the folder (an flock on the directory itself, so no lock
        file is left in the repository) while reading, merging and writing files. Leftover
        temporary files of a writer that was killed are removed under it."""
        self.root.mkdir(parents=True, exist_ok=True)
        try:
            import fcntl
        except ImportError:  # pragma: no cover - Windows: no flock; writes stay atomic
            yield
            return
        fd = os.open(self.root, os.O_RDONLY)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            self._remove_leftovers()
            yield
        finally:
            os.close(fd)  # releases the lock

    def _remove_leftovers(self) -> None:
        # Every writer holds the lock, so a temporary file seen under it is an orphan.
        for tmp in [*self.root.glob("*/.*.tmp"), *self.root.glob("*/*/.*.tmp")]:
            with contextlib.suppress(OSError):
                tmp.unlink()

    def delete(self, server: str, tool: str) -> None:
        """Remove a file, under its former name too."""
        self.path_for(server, tool).unlink(missing_ok=True)
        former = self.former.get((server, tool))
        if former is not None:
            path = self.path_for(*former)
            path.unlink(missing_ok=True)
            self._remove_if_empty(path.parent)
