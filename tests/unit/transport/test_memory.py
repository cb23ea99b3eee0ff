"""transport/memory.py: sizes, and the watchdog against a real process group."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pytest_mcp_contracts.transport.errors import MemoryCapExceeded
from pytest_mcp_contracts.transport.memory import (
    MemoryWatch,
    can_watch,
    default_cap,
    format_size,
    group_rss,
    parse_size,
)
from pytest_mcp_contracts.transport.stdio import ServerCommand, open_stdio


@pytest.mark.parametrize(
    ("text", "size"),
    [
        ("2G", 2 << 30),
        ("512M", 512 << 20),
        ("1.5g", 3 << 29),
        ("300MB", 300 << 20),
        ("64KiB", 64 << 10),
        ("1000000", 1_000_000),
        ("0", None),
        ("off", None),
        ("None", None),
    ],
)
def test_sizes_are_read_in_binary_units(text: str, size: int | None) -> None:
    assert parse_size(text) == size


@pytest.mark.parametrize("text", ["", "lots", "-1G", "2X", "1e9"])
def test_what_is_no_size_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="not a size"):
        parse_size(text)


def test_sizes_are_shown_as_written() -> None:
    assert [format_size(n) for n in (300 << 20, 3 << 29, 2 << 30, 1000)] == [
        "300M",
        "1.5G",
        "2G",
        "1000B",
    ]


def test_the_default_cap_is_a_quarter_of_physical_memory() -> None:
    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    assert default_cap() == total // 4


# A leader that spawns a child; the child holds MB megabytes (touched, so resident).
FAMILY = """
import subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c",
    "import sys, time; block = b'x' * (MB << 20); print('ready', flush=True); time.sleep(60)"])
time.sleep(60)
"""


@pytest.mark.skipif(not can_watch(), reason="no /proc on this system")
def test_the_cap_covers_the_whole_process_group_and_kills_it() -> None:
    leader = subprocess.Popen(
        [sys.executable, "-c", FAMILY.replace("MB", "200")], start_new_session=True
    )
    try:
        deadline = time.monotonic() + 30
        while group_rss(leader.pid) < 200 << 20 and time.monotonic() < deadline:
            time.sleep(0.05)
        used = group_rss(leader.pid)
        # The leader alone holds a few megabytes: the rest is its child's.
        assert used >= 200 << 20
        seen: list[int] = []
        watch = MemoryWatch(leader.pid, 150 << 20, seen.append).start()
        assert leader.wait(timeout=10) == -9
        watch.stop()
        assert seen and seen[0] > 150 << 20
        deadline = time.monotonic() + 5
        while group_rss(leader.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert group_rss(leader.pid) == 0  # the child went with it
    finally:
        if leader.poll() is None:
            os.killpg(leader.pid, 9)
            leader.wait()


@pytest.mark.skipif(not can_watch(), reason="no /proc on this system")
def test_a_group_under_the_cap_is_left_alone() -> None:
    leader = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(2)"], start_new_session=True
    )
    # The group is really measured (a freshly exec'd process may show no pages yet).
    deadline = time.monotonic() + 5
    while group_rss(leader.pid) == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert 0 < group_rss(leader.pid) < 1 << 30
    seen: list[int] = []
    watch = MemoryWatch(leader.pid, 1 << 30, seen.append).start()
    try:
        assert leader.wait(timeout=10) == 0
    finally:
        watch.stop()
    assert seen == []


def _the_peak_is_caught() -> None:
    """A leader that holds 200 MB for one second, watched under a 150 MB cap, is killed, and
    the watch told what it saw over the cap."""
    peak = "import time; time.sleep(0.6); held = b'x' * (200 << 20); time.sleep(1); print('done')"
    leader = subprocess.Popen([sys.executable, "-c", peak], start_new_session=True)
    seen: list[int] = []
    watch = MemoryWatch(leader.pid, 150 << 20, seen.append).start()
    try:
        assert leader.wait(timeout=10) == -9
        assert seen and seen[0] > 150 << 20
    finally:
        watch.stop()
        if leader.poll() is None:
            os.killpg(leader.pid, 9)
            leader.wait()


@pytest.mark.skipif(not can_watch(), reason="no /proc on this system")
def test_a_busy_machine_does_not_slow_the_watch_past_a_short_peak(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each scan made to wait 50 ms for a core, as on a busy machine: the watch still scans
    about every 0.1 s (its own CPU decides, not the wall time), and catches 200 MB held for
    one second. Timed by the wall, the next scan came 2.5 s later, after the peak."""
    from pytest_mcp_contracts.transport import memory

    scan = memory._scan

    def waited_for_a_core(pgid: int) -> tuple[list[int], int]:
        time.sleep(0.05)
        return scan(pgid)

    monkeypatch.setattr(memory, "_scan", waited_for_a_core)
    _the_peak_is_caught()


@pytest.mark.skipif(not can_watch(), reason="no /proc on this system")
def test_a_costly_scan_of_proc_comes_seldom_and_the_known_processes_are_still_measured(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each scan made to cost 50 ms of CPU (a machine of several thousand processes): the
    next comes 10 s later, at its share of a core, yet the leader, found by the first, is
    measured every 0.1 s in between and caught holding 200 MB for one second. Spaced at
    2 % of a core with nothing measured between, the next scan came 2.5 s later: after
    the peak."""
    from pytest_mcp_contracts.transport import memory

    scan = memory._scan
    scans: list[float] = []

    def costly(pgid: int) -> tuple[list[int], int]:
        scans.append(time.monotonic())
        started = time.thread_time()
        while time.thread_time() - started < 0.05:
            pass
        return scan(pgid)

    monkeypatch.setattr(memory, "_scan", costly)
    _the_peak_is_caught()
    assert len(scans) == 1


@pytest.mark.skipif(not can_watch(), reason="no /proc on this system")
def test_the_watch_ends_when_its_group_is_gone() -> None:
    leader = subprocess.Popen([sys.executable, "-c", "pass"], start_new_session=True)
    leader.wait()  # reaped: nothing is left in the group
    watch = MemoryWatch(leader.pid, 1 << 30, lambda used: None).start()
    watch._thread.join(timeout=5)
    assert not watch._thread.is_alive()


RETAINS = """
import json, sys
kept = []
for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("method") == "server/discover":
        result = {"supportedVersions": ["2026-07-28"], "capabilities": {}}
    else:
        kept.append(b"x" * (200 << 20))  # kept after the answer, as a growing document is
        result = {"content": []}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}) + "\\n")
    sys.stdout.flush()
"""


@pytest.mark.skipif(not can_watch(), reason="no /proc on this system")
def test_a_call_that_leaves_the_server_over_the_cap_is_caught_as_it_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # No scan comes during the test: only the check at the end of the call can see it.
    monkeypatch.setattr("pytest_mcp_contracts.transport.memory.MIN_INTERVAL", 60.0)
    script = tmp_path / "retains.py"
    script.write_text(RETAINS)
    conn = open_stdio(
        ServerCommand((sys.executable, str(script))),
        startup_timeout=10,
        max_message_bytes=1 << 20,
        max_memory=100 << 20,
    )
    try:
        assert conn.over_memory_cap() is None
        assert conn.request("tools/call", {"name": "grow"}, timeout=10) == {"content": []}
        over = conn.over_memory_cap()
        assert isinstance(over, MemoryCapExceeded)
        assert "more than the 100M allowed (--mcp-max-server-memory)" in over.message
        assert not conn.alive
    finally:
        conn.close()
