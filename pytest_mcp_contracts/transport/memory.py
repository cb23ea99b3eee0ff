"""The memory cap on a server process the plugin starts, and everything that process spawns.

A watchdog thread sums the resident memory (RSS) of the server's process group from
``/proc`` and kills the whole group when the sum goes over the cap. Why not the kernel's
limits: ``RLIMIT_AS`` caps *virtual* memory, and Node/V8 reserves far more address space
than it uses, so a healthy Node server cannot even start under a modest cap; it also binds
each process alone, while a server is often a chain (npx -> node, uv run -> python). cgroups
would be exact but need a delegated hierarchy that CI machines seldom grant. RSS summed
over the group counts pages two processes share twice: the cap errs on the safe side.

The watchdog measures the processes it knows of every ``MIN_INTERVAL`` (one small file read
each), so a server that grows is caught within a tenth of a second whatever the machine.
Finding the group's processes takes a scan of every ``/proc/<pid>/stat``, which costs in
proportion to the processes the machine runs (bench/README.md, "Measured by hand"). The
scans are spaced so that they take at most ``SCAN_SHARE`` of one core, and a process the
server spawns is counted from the next one: soon on a quiet machine, later on a busy one.
Scanning at a fixed short interval would cost a busy machine more the more processes it
runs, in every run, for every server. In the calls' path is only ``MemoryWatch.check`` as
each call ends: the known processes measured once more.
Where ``/proc`` does not exist (macOS) no cap applies.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import threading
import time
from collections.abc import Callable
from typing import Final

MIN_INTERVAL: Final = 0.1  # seconds between measures of the known processes
SCAN_SHARE: Final = 0.005  # of one core at most, for the scans of /proc that find them
_PROC: Final = "/proc"
_PAGE: Final = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
_UNITS: Final = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([KMGT]?)(?:I?B)?\s*$", re.IGNORECASE)
OFF_WORDS: Final = ("0", "off", "none")


def parse_size(text: str) -> int | None:
    """``"2G"``, ``"512M"``, ``"1.5G"``, ``"300000000"`` (bytes) -> bytes, binary units;
    ``"0"``, ``"off"`` or ``"none"`` -> None (no cap). ValueError for anything else."""
    if text.strip().lower() in OFF_WORDS:
        return None
    match = _SIZE.match(text)
    if match is None:
        raise ValueError(f"not a size: {text!r}")
    size = int(float(match.group(1)) * _UNITS[match.group(2).upper()])
    if size <= 0:
        return None
    return size


def format_size(size: int) -> str:
    """Bytes in the unit a person would write: ``300M``, ``1.5G``."""
    for unit in ("T", "G", "M", "K"):
        scaled = size / _UNITS[unit]
        if scaled >= 1:
            return f"{scaled:.1f}".removesuffix(".0") + unit
    return f"{size}B"


def physical_memory() -> int | None:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None


def default_cap() -> int | None:
    """A quarter of the machine's physical memory: a server that grows past it would
    starve everything else (the test run included) long before it ends."""
    total = physical_memory()
    return total // 4 if total else None


def can_watch() -> bool:
    return os.path.isfile(f"{_PROC}/self/stat")


def group_rss(pgid: int) -> int:
    """The resident memory, in bytes, of every process in the process group ``pgid``."""
    return _scan(pgid)[1]


def _scan(pgid: int) -> tuple[list[int], int]:
    """(the processes in the group ``pgid``, their resident memory in bytes)."""
    members: list[int] = []
    pages = 0
    with os.scandir(_PROC) as entries:
        for entry in entries:
            if not entry.name.isdigit():
                continue
            stat = _read(f"{_PROC}/{entry.name}/stat")
            if not stat:  # the process ended during the scan
                continue
            # The command name (field 2) may hold spaces and parentheses: fields are
            # counted from after its last ")". pgrp is field 5, rss (pages) field 24.
            fields = stat[stat.rindex(b")") + 2 :].split()
            if len(fields) > 21 and int(fields[2]) == pgid:
                members.append(int(entry.name))
                pages += int(fields[21])
    return members, pages * _PAGE


def _read(path: str) -> bytes:
    """A small /proc file's bytes (empty once its process is gone): through the descriptor
    alone, a third of the cost of a file object, which a scan pays per process."""
    try:
        descriptor = os.open(path, os.O_RDONLY)
    except OSError:
        return b""
    try:
        return os.read(descriptor, 4096)
    except OSError:
        return b""
    finally:
        os.close(descriptor)


class MemoryWatch:
    """Kills process group ``pgid`` (SIGKILL) once its resident memory goes over ``cap``
    bytes, after telling ``over(used)``; ends by itself once no process is left in the group
    (a server that crashed is replaced by a new process, with a watch of its own).

    Every ``MIN_INTERVAL`` it measures the processes the last scan of ``/proc`` found, and
    scans again when that is due (module docstring). ``check`` measures them at once: a call
    whose answer leaves the server over the cap is caught as it ends, not blamed on the call
    that happens to run at the next measure."""

    def __init__(self, pgid: int, cap: int, over: Callable[[int], None]) -> None:
        self.pgid = pgid
        self.cap = cap
        self._over = over
        self._members: list[int] = [pgid]
        self._fired = threading.Event()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="mcp-memory-cap", daemon=True)

    def start(self) -> MemoryWatch:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()

    def check(self) -> bool:
        """Whether the group is over the cap now, as far as its known processes show; if so
        it is killed. True also once the watch has killed it."""
        if self._fired.is_set():
            return True
        used = self._known_rss()
        return used > self.cap and self._kill(used)

    def _known_rss(self) -> int:
        return sum(_rss(pid) for pid in list(self._members))

    def _kill(self, used: int) -> bool:
        with self._lock:
            if not self._fired.is_set():
                self._over(used)
                self._fired.set()
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(self.pgid, signal.SIGKILL)
        return True

    def _run(self) -> None:
        scan_due = 0.0  # time.monotonic() of the next scan of /proc
        while not self._stop.wait(MIN_INTERVAL) and not self._fired.is_set():
            if time.monotonic() < scan_due:
                used = self._known_rss()
            else:
                # Spaced by the scan's own CPU, not its wall time: on a busy machine the wall
                # time grows with the wait for a core, and a watchdog that slowed down then
                # missed a peak of one second (tests/servers/memory_hog.py's render, replayed
                # under load: not seen).
                started = time.thread_time()
                try:
                    members, used = _scan(self.pgid)
                except (OSError, ValueError):  # /proc unreadable: nothing to measure with
                    return
                if not members:
                    return
                self._members = members
                scan_due = time.monotonic() + (time.thread_time() - started) / SCAN_SHARE
            if used > self.cap:
                self._kill(used)
                return


def _rss(pid: int) -> int:
    """One process's resident memory in bytes (0 once it is gone)."""
    try:
        return int(_read(f"{_PROC}/{pid}/statm").split()[1]) * _PAGE
    except (ValueError, IndexError):
        return 0
