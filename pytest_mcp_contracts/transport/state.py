"""State that outlives a server process: the files a started server may keep between starts.

A restart gives a fresh server only when the server keeps its state in its process. One that
keeps it in a file (a memory server's JSON file, a SQLite database) reads back at its next
start what the run stored, so a failure replayed "alone on a freshly started server" may
fail only because of the calls that filled the file. ``StateWatch`` fingerprints, at the
server's first start, the files under its working directory and every path its command line
or its environment names (an existing file or folder, or a data file whose folder exists: a
state file the server will create), and says later which of them changed since
(``runs/reproduce`` asks before it claims a fresh server).

Under pytest-xdist every worker starts its own process of each server, and a state file
named on the command line would be one file for all of them (they corrupt it, and each
fails on what another stored). ``for_worker`` gives each worker its own: ``{worker}`` in the
command or its environment becomes the worker's id (``gw0``, ``gw1``; ``main`` in a serial
run), and where the command names no ``{worker}``, each state file it names is replaced by
the worker's own copy, in a folder of its own that is also the server's ``TMPDIR``
(docs/how-to/state.md).
"""

from __future__ import annotations

import hashlib
import os
import shlex
import shutil
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from stat import S_ISDIR, S_ISREG
from typing import Final

from pytest_mcp_contracts.transport.stdio import ServerCommand

WORKER_PLACEHOLDER: Final = "{worker}"
# The client's root folder (the roots sandbox), for a server whose allowed folder is named
# on its command line: the run then owns the folder beside it, where the security probes
# lay what a path must not reach (docs/security.md).
ROOTS_PLACEHOLDER: Final = "{roots}"
SERIAL_WORKER: Final = "main"  # what {worker} is without xdist

# The walk of a folder is bounded (depth and entries): a server started in a large tree
# costs no scan of the disk. Folders that tools, not servers, write to during a run
# (hypothesis's database, caches, bytecode) are left out.
MAX_DEPTH: Final = 3
MAX_ENTRIES: Final = 2000
SKIPPED_DIRS: Final = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        ".venv",
        "venv",
        ".tox",
        ".nox",
        "node_modules",
        "__pycache__",
        ".pytest_cache",
        ".mypy_cache",
        ".ruff_cache",
        ".hypothesis",
        ".cache",
    }
)
# A server's log is no state it reads back: a log file under the working directory changes
# with every call, and would make every restart look stale.
LOG_SUFFIX: Final = ".log"
# A shared state file larger than this is not copied for each worker (the run warns instead).
COPY_LIMIT: Final = 64 << 20
# A named file up to this size is compared by its content (a server that rewrites the same
# bytes at start changed nothing); a larger one, and every file of a walked folder, by size
# and modification time.
HASH_LIMIT: Final = 1 << 20

# A path that does not exist yet counts as a state file the server may create only with one
# of these suffixes: any word whose folder exists ("main", "1.5") would otherwise be a path.
DATA_SUFFIXES: Final = frozenset(
    {
        ".json",
        ".jsonl",
        ".ndjson",
        ".db",
        ".sqlite",
        ".sqlite3",
        ".duckdb",
        ".yaml",
        ".yml",
        ".toml",
        ".txt",
        ".csv",
        ".md",
        ".dat",
        ".bin",
        ".pkl",
        ".pickle",
        ".xml",
        ".state",
    }
)
# Files that are the program, not its state: never copied per worker.
PROGRAM_SUFFIXES: Final = frozenset(
    {
        ".py",
        ".pyc",
        ".pyz",
        ".js",
        ".mjs",
        ".cjs",
        ".ts",
        ".mts",
        ".cts",
        ".jar",
        ".sh",
        ".rb",
        ".exe",
        ".so",
        ".dll",
        ".dylib",
        ".whl",
    }
)

# (size, mtime_ns, sha256 of the content or None); None for a path that does not exist.
Fingerprint = tuple[int, int, str | None]


def _value_path(value: str, cwd: Path) -> Path | None:
    """The path an argument or environment value names, or None: ``--opt=PATH`` names
    PATH; an option, a URL or a multi-line value names none."""
    if value.startswith("-"):
        if "=" not in value:
            return None
        value = value.split("=", 1)[1]
    if not value or "://" in value or "\n" in value or "\0" in value:
        return None
    try:
        path = Path(value).expanduser()
        return path if path.is_absolute() else cwd / path
    except (RuntimeError, ValueError):  # "~nobody": no such user
        return None


def _is_state_place(path: Path) -> bool:
    """An existing file or folder, or a data file whose folder exists."""
    try:
        if path.exists():
            return path.is_file() or path.is_dir()
        return path.suffix.lower() in DATA_SUFFIXES and path.parent.is_dir()
    except OSError:
        return False


def named_paths(argv: Iterable[str], env: Mapping[str, str], cwd: Path) -> list[Path]:
    """The state places a server command names: in its arguments (not the program itself)
    and in the environment the plugin gives it (not the whole inherited environment, whose
    files belong to the shell and the CI runner)."""
    values = [*list(argv)[1:], *env.values()]
    found: dict[Path, None] = {}
    for value in values:
        path = _value_path(value, cwd)
        if path is not None and _is_state_place(path):
            found[Path(os.path.normpath(path))] = None
    return list(found)


def _digest(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def _fingerprint(path: Path, *, content: bool) -> Fingerprint | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    digest = _digest(path) if content and stat.st_size <= HASH_LIMIT else None
    return (stat.st_size, stat.st_mtime_ns, digest)


def scan(
    folder: Path, *, depth: int | None = None, skip: frozenset[str] = frozenset()
) -> Iterator[tuple[str, os.stat_result]]:
    """Every entry under ``folder`` (not itself) with its ``lstat``, depth first: symlinks
    are not followed, a folder ``depth`` levels down or named in ``skip`` is not entered,
    an entry that cannot be read is passed over. A caller bounds it by how much it takes."""
    pending = [(str(folder), 0)]
    while pending:
        here, level = pending.pop()
        try:
            listing = os.scandir(here)
        except OSError:
            continue
        with listing:
            for entry in listing:
                try:
                    status = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                yield entry.path, status
                deeper = depth is None or level + 1 < depth
                if S_ISDIR(status.st_mode) and deeper and entry.name not in skip:
                    pending.append((entry.path, level + 1))


def _walk(folder: Path, into: dict[Path, Fingerprint | None], budget: list[int]) -> None:
    """Fingerprint the files under ``folder``: ``MAX_DEPTH`` levels, ``budget[0]`` entries."""
    for path, status in scan(folder, depth=MAX_DEPTH, skip=SKIPPED_DIRS):
        budget[0] -= 1
        if budget[0] < 0:
            return
        name = os.path.basename(path)
        if S_ISREG(status.st_mode) and not (
            name.startswith(".coverage") or name.endswith(LOG_SUFFIX)
        ):
            into[Path(path)] = (status.st_size, status.st_mtime_ns, None)


def _written_by_this_process() -> frozenset[Path]:
    """The files this pytest process has open (its output redirected to a file, a log):
    they change while the run goes on, and none is the server's state. Read from /proc;
    empty where there is none."""
    folder = Path("/proc/self/fd")
    found = set()
    try:
        descriptors = list(folder.iterdir())
    except OSError:
        return frozenset()
    for descriptor in descriptors[:10_000]:
        try:
            target = os.readlink(descriptor)
        except OSError:
            continue
        if target.startswith("/"):
            found.add(Path(os.path.normpath(target)))
    return frozenset(found)


def _changed(before: Fingerprint | None, after: Fingerprint | None) -> bool:
    if before is None or after is None:
        return before is not after
    if before[2] is not None and after[2] is not None:
        return before[2] != after[2]  # same bytes rewritten: no change
    return before[:2] != after[:2]


@dataclass
class StateWatch:
    """What a server could carry over a restart, as it was at its first start."""

    cwd: Path
    named: tuple[Path, ...]
    baseline: dict[Path, Fingerprint | None] = field(default_factory=dict)
    # What read-only tools without arguments answered at the first start, the same twice
    # (a tool whose answer changes by itself says nothing about state); None: not asked yet.
    answers_at_start: dict[str, str] | None = None
    cut: bool = False  # the first walk stopped at MAX_ENTRIES

    @classmethod
    def take(cls, command: ServerCommand, cwd: Path | None = None) -> StateWatch:
        # A command that starts in its own folder names its paths from there.
        cwd = Path.cwd() / (command.cwd or "") if cwd is None else cwd
        watch = cls(cwd, tuple(named_paths(command.argv, command.env, cwd)))
        watch.baseline, watch.cut = watch.fingerprints()
        return watch

    def fingerprints(self) -> tuple[dict[Path, Fingerprint | None], bool]:
        """Each watched file now: the named files by content, the files of the named folders
        and of the working directory by size and time; and whether a walk stopped at
        ``MAX_ENTRIES``."""
        found: dict[Path, Fingerprint | None] = {}
        budget = [MAX_ENTRIES]
        for path in self.named:
            if path.is_dir():
                _walk(path, found, budget)
        _walk(self.cwd, found, budget)
        for path in self.named:  # by content, also where a walk found it first
            if not path.is_dir():
                found[path] = _fingerprint(path, content=True)
        return found, budget[0] <= 0

    def changed(self) -> list[Path]:
        """The watched files that changed, appeared or went away since the first start.
        Where a walk stopped at ``MAX_ENTRIES``, which files it reached may differ from one
        walk to the next: a walked file found by one walk only is then no evidence."""
        now, cut_now = self.fingerprints()
        cut = self.cut or cut_now
        named = set(self.named)

        ours = _written_by_this_process()

        def evidence(path: Path) -> bool:
            if path in ours and path not in named:
                return False
            return not cut or path in named or (path in self.baseline and path in now)

        return sorted(
            path
            for path in self.baseline.keys() | now.keys()
            if evidence(path) and _changed(self.baseline.get(path), now.get(path))
        )

    def carried(self, answers: Mapping[str, str] | None = None) -> Carried | None:
        """What changed since the first start, with how to reset it; None: nothing did.
        ``answers``: what the tools of ``answers_at_start`` answer now."""
        paths = self.changed()
        before = self.answers_at_start or {}
        tools = tuple(
            name for name, now in (answers or {}).items() if name in before and before[name] != now
        )
        if not paths and not tools:
            return None
        shown = tuple(self.shown(p) for p in paths)
        return Carried(shown, self.reset_hint(paths) if paths else "", tools)

    def shown(self, path: Path) -> str:
        """``path`` as a report shows it: relative to the working directory when under it."""
        try:
            return str(path.relative_to(self.cwd))
        except ValueError:
            return str(path)

    def reset_hint(self, paths: list[Path]) -> str:
        """How to give the server a fresh state before each restart: remove the files the
        run created, put back those it changed."""
        created = [p for p in paths if self.baseline.get(p) is None]
        changed = [p for p in paths if self.baseline.get(p) is not None]
        parts = []
        if created:
            files = " ".join(shlex.quote(self.shown(p)) for p in created[:5])
            parts.append(f"--mcp-reset-command={shlex.quote(f'rm -f {files}')}")
        if changed:
            files = ", ".join(self.shown(p) for p in changed[:5])
            verb = "also put back" if created else "a command that puts back"
            parts.append(f"{verb} {files} as the run found it (e.g. from a copy saved before)")
        return "; ".join(parts)


@dataclass(frozen=True)
class Carried:
    """What a restarted server carried over from the run: the files that changed since its
    first start, shown as a report shows them (``paths``), a command that would reset them
    (``reset``), and the read-only tools without arguments that answer otherwise than at
    the first start (``tools``)."""

    paths: tuple[str, ...]
    reset: str = ""
    tools: tuple[str, ...] = ()

    def words(self) -> str:
        """What outlived the restart and how to reset it, for a replay's note."""
        said = []
        if self.paths:
            more = len(self.paths) - 5
            files = ", ".join(self.paths[:5]) + (f" and {more} more" if more > 0 else "")
            said.append(
                f"{files} changed during the run and outlived the restart, so the restarted "
                "server read back what the run stored there"
            )
        if self.tools:
            said.append(
                f"{', '.join(self.tools)} (read-only, without arguments) answered otherwise "
                "after the restart than at the first start: the server keeps state outside "
                "its process (or that answer changes by itself)"
            )
        how = self.reset or (
            "--mcp-reset-command with a command that empties what the server keeps (its "
            "files, its database)"
        )
        restart = "To replay on a really fresh server, reset it before each restart"
        return f"{'; '.join(said)}. {restart}: {how}"


@dataclass(frozen=True)
class WorkerPlace:
    """A worker's own copy of a server command: ``copies`` are the shared state files
    replaced by the worker's own, original and copy (none when the command chose its own
    with ``{worker}``)."""

    command: ServerCommand
    copies: tuple[tuple[str, str], ...] = ()
    shared: tuple[str, ...] = ()  # too large to copy: every worker's server uses it

    def warning(self) -> str | None:
        said = []
        if self.copies:
            names = ", ".join(original for original, _ in self.copies)
            said.append(
                "under pytest-xdist each worker starts its own process of this server, and its "
                f"command names a state file that all of them would share ({names}): each "
                "worker's server was given its own copy instead"
            )
        if self.shared:
            said.append(
                f"{', '.join(self.shared)}, named by its command, is too large to copy for each "
                "pytest-xdist worker: every worker's server shares it"
            )
        if not said:
            return None
        fix = (
            "Put {worker} in the path (e.g. state-{worker}.json) to choose the files yourself "
            "(docs/how-to/state.md)"
        )
        return f"{'; '.join(said)}. {fix}"

    def as_named(self, carried: Carried) -> Carried:
        """``carried`` with the worker's copies named as the command names the originals:
        a reset command names those (``text`` makes it the worker's own)."""

        def named(text: str) -> str:
            for original, copy in self.copies:
                text = text.replace(copy, original)
            return text

        return Carried(tuple(named(p) for p in carried.paths), named(carried.reset), carried.tools)

    def text(self, text: str, worker: str) -> str:
        """``text`` (a reset command) with the same places as the worker's command."""
        text = text.replace(WORKER_PLACEHOLDER, worker)
        for original, copy in self.copies:
            text = text.replace(original, copy)
        return text


def _is_program(path: Path) -> bool:
    return path.suffix.lower() in PROGRAM_SUFFIXES or (path.is_file() and os.access(path, os.X_OK))


def option_value(word: str) -> tuple[str, str]:
    """A command's word split where a value it names starts: ``--flag=VALUE`` as
    ``("--flag=", "VALUE")``, any other word as ``("", word)``."""
    if word.startswith("-") and "=" in word:
        flag, value = word.split("=", 1)
        return f"{flag}=", value
    return "", word


def with_roots(command: ServerCommand, roots: Path) -> ServerCommand:
    """``command`` with ``{roots}`` in its arguments and environment made ``roots``."""
    if not any(ROOTS_PLACEHOLDER in v for v in (*command.argv, *command.env.values())):
        return command
    argv = tuple(a.replace(ROOTS_PLACEHOLDER, str(roots)) for a in command.argv)
    env = {k: v.replace(ROOTS_PLACEHOLDER, str(roots)) for k, v in command.env.items()}
    return replace(command, argv=argv, env=env)


def for_worker(
    command: ServerCommand, worker: str, private: Path | None, cwd: Path | None = None
) -> WorkerPlace:
    """``command`` as worker ``worker`` starts it. ``private`` is the worker's own folder
    (under xdist; None in a serial run, where nothing is shared): the server's ``TMPDIR``, and
    where its copies of shared state files go, unless the command chose with ``{worker}``."""
    argv, env = command.argv, dict(command.env)
    if any(WORKER_PLACEHOLDER in v for v in (*argv, *env.values())):
        argv = tuple(a.replace(WORKER_PLACEHOLDER, worker) for a in argv)
        env = {k: v.replace(WORKER_PLACEHOLDER, worker) for k, v in env.items()}
        return WorkerPlace(_with_tmpdir(replace(command, argv=argv, env=env), private))
    if private is None:
        return WorkerPlace(command)
    # A command that starts in its own folder names its paths from there.
    cwd = Path.cwd() / (command.cwd or "") if cwd is None else cwd
    copies: dict[str, str] = {}
    shared: dict[str, None] = {}

    def own(word: str) -> str:
        prefix, value = option_value(word)
        path = _value_path(value, cwd)
        if path is None or not _is_state_place(path) or path.is_dir() or _is_program(path):
            return prefix + value
        if path.is_file() and path.stat().st_size > COPY_LIMIT:
            shared[value] = None
            return prefix + value
        if value not in copies:
            copy = private / f"{len(copies)}-{path.name}"
            if path.is_file():
                shutil.copy2(path, copy)
            copies[value] = str(copy)
        return prefix + copies[value]

    argv = (argv[0], *(own(a) for a in argv[1:]))
    env = {k: own(v) for k, v in env.items()}
    command = _with_tmpdir(replace(command, argv=argv, env=env), private)
    return WorkerPlace(command, tuple(copies.items()), tuple(shared))


def _with_tmpdir(command: ServerCommand, private: Path | None) -> ServerCommand:
    """A server's temporary files in the worker's own folder: a state file under
    ``/tmp`` with a fixed name is one per worker too. The user's own TMPDIR wins."""
    if private is None or "TMPDIR" in command.env:
        return command
    place = str(private)
    return replace(command, env={**command.env, "TMPDIR": place, "TMP": place, "TEMP": place})
