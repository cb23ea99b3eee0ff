"""The disk around each call: the engine looks at the watched folders before and after every
call of a check and hands the difference to ``judges/writes`` (annotations and boundary).

While explicit inputs fly (several calls at once: ``runs/contract.in_flight_width``), a
change cannot be told to one call: the engine looks around the whole window instead, and
when something changed sends them again one at a time on a fresh server.
"""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_mcp_contracts.judges.writes import (
    Boundary,
    Changes,
    Tree,
    compare,
    look,
    write_finding,
)

if TYPE_CHECKING:
    from pytest_mcp_contracts.judges.failures import Finding
    from pytest_mcp_contracts.transport.discover import Entry
    from pytest_mcp_contracts.transport.managed import ManagedServer


@dataclass
class Watch:
    """One check's watch over one tool's calls. Under ``--mcp-security=warn`` (``warn``)
    what it finds is kept in ``warned`` (each problem once) instead of failing the call."""

    check: str
    annotations: Mapping[str, object]
    boundary: Boundary
    folders: list[Path]
    laid: Callable[[Path], bool]
    warn: bool = False
    warned: list[Finding] = field(default_factory=list)
    # Folders past the bounds, left unwatched for the rest of the run (one set per server).
    unwatched: set[Path] = field(default_factory=set)
    # Folders the run does not own, where what a call made appear is removed after it when
    # it broke nothing (the security probes': "DIR/.; touch C" given to a tool that creates
    # what it is named makes an entry of that name in the user's folder).
    tidy: tuple[Path, ...] = ()
    # What brings a fresh server with the watched folders laid anew, when the run can.
    fresh: Callable[[], None] | None = None
    # A change seen while calls flew together that no call made again alone.
    unattributed: bool = False

    def look(self) -> Tree:
        tree = look(folder for folder in self.folders if folder not in self.unwatched)
        self.unwatched.update(folder for folder, entries in tree.items() if entries is None)
        return tree

    def changed(self, before: Tree) -> bool:
        """Whether a change since ``before`` breaks a rule (nothing kept, nothing removed)."""
        return self._finding(compare(before, self.look())) is not None

    def judge(self, before: Tree) -> Finding | None:
        """What the call since ``before`` broke, or None (also when only warned)."""
        changes = compare(before, self.look())
        finding = self._finding(changes)
        if finding is None:
            self._tidy(changes)
        elif self.warn:
            if all(kept.message != finding.message for kept in self.warned):
                self.warned.append(finding)
            return None
        return finding

    def _finding(self, changes: Changes) -> Finding | None:
        return write_finding(self.check, self.annotations, changes, self.boundary, self.laid)

    def _tidy(self, changes: Changes) -> None:
        made = set(changes.created)
        for path in changes.created:
            if path.parent in made or not any(f in path.parents for f in self.tidy):
                continue  # removed with its folder, or in the run's own space
            with contextlib.suppress(OSError):
                if path.is_dir() and not path.is_symlink():
                    shutil.rmtree(path)
                else:
                    path.unlink()


def replay_watched(
    server: ManagedServer,
    tool: Entry,
    arguments: dict[str, Any],
    watch: Watch,
    fresh: Callable[[], None],
) -> str:
    """Send ``arguments`` once more on a fresh server (``fresh`` lays the watched folders
    anew), watched: what that showed, as a note for the failure."""
    from pytest_mcp_contracts.transport.errors import ServerError

    try:
        fresh()
        before = watch.look()
        server.call(tool.name, arguments)
    except ServerError as exc:
        return f"not replayed: the server could not be started again ({exc.message})"
    if watch.judge(before) is not None:
        return "replayed alone on a fresh server: the same files changed again"
    return (
        "replayed alone on a fresh server: no file changed this time (the earlier calls of "
        "this check, or the program's timing, may be needed)"
    )


def watched_folders(boundary: Boundary, extra: Sequence[Path] = ()) -> list[Path]:
    """The folders to look at: the boundary's, the client's roots folder, and ``extra``."""
    folders = [*boundary.folders, *([boundary.roots] if boundary.roots else []), *extra]
    unique = list(dict.fromkeys(folders))
    # A folder inside another is looked at with it, once.
    return [folder for folder in unique if not any(other in folder.parents for other in unique)]
