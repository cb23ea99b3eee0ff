"""What a call changed on disk where the run looks, and whether its tool was allowed to.

Before and after each call of a check (every call: generated inputs, coverage corners,
probes), the folders the run watches are read as a tree of ``lstat`` entries: the folders
the server declared as its boundary, the client's roots folder the run laid, and, during the
security check, what it laid outside. The difference is the call's evidence; nothing an
answer says counts.

Three rules, each resting on what the server itself declared:

- **readOnlyHint: true** promises no change to the environment. A created or deleted entry
  breaks it, and so does a changed file whose purpose the run knows (one it laid itself).
  A change to some other existing file is not counted: the run cannot tell a user's data
  from a cache the program keeps for itself (``git status`` rewrites ``.git/index`` with
  fresh stat data, and the reference git server annotates it read-only).
- **destructiveHint: false** promises only additive updates: an entry present before the
  call and gone after it breaks it. A file rewritten in place or renamed over (a database
  saved whole) is still there: a change, not a deletion.
- **a declared boundary**: a change in a watched folder that lies outside every folder the
  server was given (its command line, its environment) and that it did not adopt (it never
  asked for the client's roots) is a write outside its boundary (CWE-22). A server given no
  folder declares no boundary: where it writes is its own business.

A tree that outgrows its bound (``MAX_ENTRIES``; symlinks are never followed, so the bound
on entries also bounds the depth) is not judged: past it an entry that was merely not read
would look deleted.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, NamedTuple

from pytest_mcp_contracts.inputs.probes import boundary_folders
from pytest_mcp_contracts.judges.failures import CWE, FailureKind, Finding
from pytest_mcp_contracts.transport.state import scan

__all__ = [
    "NONE_DECLARED",
    "OUTSIDE",
    "Boundary",
    "Changes",
    "Tree",
    "compare",
    "look",
    "write_finding",
]

MAX_ENTRIES: Final = 2000  # per watched folder
OUTSIDE: Final = "a write outside the boundary the server declared"
NONE_DECLARED: Final = "none declared (no folder given, the client's roots never asked for)"


class Stat(NamedTuple):
    mode: int
    size: int
    mtime_ns: int
    inode: int


# Entries by absolute path; None for a folder that outgrew the bounds (not judged).
Tree = dict[Path, dict[str, Stat] | None]


def _stat(status: os.stat_result) -> Stat:
    return Stat(status.st_mode, status.st_size, status.st_mtime_ns, status.st_ino)


def _read(folder: Path) -> dict[str, Stat] | None:
    """``folder``'s entries (itself as "") by relative path, or None past the bound."""
    try:
        entries = {"": _stat(os.lstat(folder))}
    except OSError:
        return {}
    prefix = len(str(folder)) + 1
    for path, status in scan(folder):
        entries[path[prefix:]] = _stat(status)
        if len(entries) > MAX_ENTRIES:
            return None
    return entries


def look(folders: Iterable[Path]) -> Tree:
    """The watched ``folders`` as they are now."""
    return {folder: _read(folder) for folder in folders}


@dataclass(frozen=True)
class Changes:
    """What differs between two looks: paths created, deleted and modified (a file's size,
    time or inode, a folder's type or mode)."""

    created: tuple[Path, ...] = ()
    deleted: tuple[Path, ...] = ()
    modified: tuple[Path, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.created or self.deleted or self.modified)

    def all(self) -> tuple[Path, ...]:
        return self.created + self.deleted + self.modified


def _changed(old: Stat, new: Stat) -> bool:
    if stat.S_IFMT(old.mode) != stat.S_IFMT(new.mode):
        return True
    if stat.S_ISDIR(old.mode):  # a folder's own times move with its entries: those count
        return old.mode != new.mode
    return old != new


def compare(before: Tree, after: Tree) -> Changes:
    created: list[Path] = []
    deleted: list[Path] = []
    modified: list[Path] = []
    for folder, old in before.items():
        new = after.get(folder)
        if old is None or new is None:
            continue
        for relative in sorted(old.keys() | new.keys()):
            path = folder / relative if relative else folder
            if relative not in old:
                created.append(path)
            elif relative not in new:
                deleted.append(path)
            elif _changed(old[relative], new[relative]):
                modified.append(path)
    return Changes(tuple(created), tuple(deleted), tuple(modified))


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


@dataclass
class Boundary:
    """Where a server says it works: the folders it was given (``folders``), and the
    client's roots folder when it asked for the client's roots (``roots_adopted``)."""

    folders: tuple[Path, ...] = ()
    roots: Path | None = None
    roots_adopted: Callable[[], bool] = field(default=lambda: False)

    @classmethod
    def of(cls, command: object, asked: Callable[[], bool], roots: Path | None = None) -> Boundary:
        """A server's boundary from its command (the folders in its arguments and in the
        environment it sets) and ``asked``: whether it asked for the client's roots yet."""
        argv, env = getattr(command, "argv", ()), getattr(command, "env", {})
        return cls(tuple(boundary_folders(argv, env)), roots, asked)

    @property
    def declared(self) -> bool:
        return bool(self.folders) or (self.roots is not None and self.roots_adopted())

    def holds(self, path: Path) -> bool:
        """Whether ``path`` lies inside the boundary (always, where none is declared)."""
        if not self.declared:
            return True
        inside = [*self.folders, *([self.roots] if self.roots_adopted() and self.roots else [])]
        return any(_inside(path, folder) for folder in inside)

    def words(self) -> str:
        """The boundary in one line, for the report and ``inspect``."""
        given = ", ".join(map(str, self.folders))
        parts = [f"folders it was given: {given}"] if self.folders else []
        if self.roots is not None:
            asked = "asked for and adopted" if self.roots_adopted() else "offered, never asked for"
            parts.append(f"the client's roots ({asked}): {self.roots}")
        elif self.roots_adopted():
            parts.append("it asks for the client's roots")
        if not parts:
            parts.append(NONE_DECLARED)
        return "; ".join(parts)


def _listed(paths: Sequence[Path], limit: int = 3) -> str:
    shown = ", ".join(str(path) for path in paths[:limit])
    return shown + (f" and {len(paths) - limit} more" if len(paths) > limit else "")


def write_finding(
    check: str,
    annotations: Mapping[str, object],
    changes: Changes,
    boundary: Boundary,
    laid: Callable[[Path], bool],
) -> Finding | None:
    """What ``changes`` (one call's) break of the tool's ``annotations`` and the server's
    ``boundary``, or None. ``laid``: whether the run laid a path itself (its content is
    data the run knows)."""
    if not changes:
        return None
    outside = [path for path in changes.all() if not boundary.holds(path)]
    if outside:
        cwe, _ = CWE[FailureKind.PATH_TRAVERSAL]
        return Finding(
            check,
            f"{OUTSIDE} (CWE-{cwe})",
            details=(
                f"evidence: {_listed(outside)} changed during the call, outside it",
                f"the boundary: {boundary.words()}",
            ),
            kind=FailureKind.PATH_TRAVERSAL,
        )
    if annotations.get("readOnlyHint") is True:
        wrote = [*changes.created, *changes.deleted, *filter(laid, changes.modified)]
        if wrote:
            return _broken(check, "readOnlyHint: true", "wrote", wrote, changes)
    elif annotations.get("destructiveHint") is False and changes.deleted:
        return _broken(check, "destructiveHint: false", "deleted", list(changes.deleted), changes)
    return None


def _broken(check: str, hint: str, did: str, paths: list[Path], changes: Changes) -> Finding:
    how = [
        f"{name}: {_listed(found)}"
        for name, found in (
            ("created", [p for p in paths if p in changes.created]),
            ("deleted", [p for p in paths if p in changes.deleted]),
            ("changed", [p for p in paths if p in changes.modified]),
        )
        if found
    ]
    return Finding(
        check,
        f"the tool is annotated {hint}, yet the call {did} files",
        details=(
            f"evidence: {'; '.join(how)}, during the call",
            "clients run a tool by its annotations without asking: see docs/security.md",
        ),
        kind=FailureKind.BROKEN_ANNOTATION,
    )
