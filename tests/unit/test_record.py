"""Recorder and snapshot store: what reaches the folder when runs overlap or are killed."""

from __future__ import annotations

import fcntl
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from pytest_mcp_contracts.discover import ServerSurface, ToolSpec
from pytest_mcp_contracts.record import UPDATE, Recorder
from pytest_mcp_contracts.snapshot import SnapshotStore

SCHEMA = {"type": "object", "properties": {"id": {"type": "integer"}}}
TOOL = ToolSpec("get_item", "get_item", {"name": "get_item", "inputSchema": SCHEMA})
SURFACE = ServerSurface("shop", "shop", "1.0", "2026-07-28", (TOOL,))


def _run(store: SnapshotStore, ids: range, extra_field: str | None = None) -> Recorder:
    """One run of the tool that returned `{"id": n}` (plus an extra field) for each n."""
    recorder = Recorder(store, UPDATE)
    observations = recorder.start_tool("shop", TOOL)
    for n in ids:
        item: dict[str, object] = {"id": n}
        if extra_field:
            item[extra_field] = "x"
        result = {"content": [{"type": "text", "text": json.dumps(item)}]}
        observations.observe({"id": n}, result)
    observations.passed = True
    recorder.finish_tool(SURFACE, "shop", observations)
    return recorder


def _output(store: SnapshotStore) -> dict[str, object]:
    data = store.read("shop", "get_item")
    assert data is not None
    output = data["output"]
    assert isinstance(output, dict)
    return output


def test_two_overlapping_updates_lose_nothing(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path / "snaps")
    # Both runs start before either writes: each read an empty folder.
    first = _run(store, range(1, 6), extra_field="colour")
    second = _run(store, range(10, 13), extra_field="size")
    first.flush({"shop": {"get_item"}})
    second.flush({"shop": {"get_item"}})
    output = _output(store)
    assert output["observations"] == 8
    assert output["distinct_inputs"] == 8
    schema = output["schema"]
    assert isinstance(schema, dict)
    # What each run learned is in the file: neither overwrote the other.
    assert {"id", "colour", "size"} <= set(schema["properties"])


def test_flush_waits_for_a_writer_holding_the_folder_lock(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path / "snaps")
    store.root.mkdir()
    recorder = _run(store, range(1, 4))
    fd = os.open(store.root, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX)  # another process in the middle of its flush
    try:
        writer = threading.Thread(target=recorder.flush, args=({"shop": {"get_item"}},))
        writer.start()
        writer.join(timeout=0.5)
        assert writer.is_alive(), "the flush must wait for the lock"
        assert store.read("shop", "get_item") is None
    finally:
        os.close(fd)
    writer.join(timeout=10)
    assert not writer.is_alive()
    assert _output(store)["observations"] == 3


def test_leftover_temporary_files_are_removed_at_the_next_flush(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path / "snaps")
    leftover = store.root / "shop" / ".get_item.json.abc123.tmp"
    leftover.parent.mkdir(parents=True)
    leftover.write_text('{"half": ', encoding="utf-8")
    _run(store, range(1, 3)).flush({"shop": {"get_item"}})
    assert not leftover.exists()
    assert sorted(p.name for p in (store.root / "shop").iterdir()) == ["get_item.json"]


WRITER = """
import sys
from pathlib import Path
from pytest_mcp_contracts.snapshot import SnapshotStore

store = SnapshotStore(Path(sys.argv[1]))
big = {"blob": "a" * 4_000_000}
small = {"blob": "b"}
print("ready", flush=True)
while True:
    store.write("srv", "tool", big)
    store.write("srv", "tool", small)
"""


def test_a_writer_killed_mid_write_never_leaves_half_a_file(tmp_path: Path) -> None:
    root = tmp_path / "snaps"
    path = root / "srv" / "tool.json"
    for delay in (0.05, 0.11, 0.17, 0.23, 0.31):
        proc = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(root)], stdout=subprocess.PIPE, text=True
        )
        assert proc.stdout is not None and proc.stdout.readline() == "ready\n"
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        if path.exists():
            data = json.loads(path.read_text(encoding="utf-8"))
            assert data["blob"] in ("a" * 4_000_000, "b")
            assert data["format_version"] == 1
    # Whatever temporary file the kills left is hidden, and cleaned at the next flush.
    assert all(p.name.startswith(".") for p in root.glob("srv/*.tmp"))
    with SnapshotStore(root).locked():
        assert list(root.glob("srv/*.tmp")) == []


def test_snapshot_files_get_ordinary_permissions(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path / "snaps")
    store.write("srv", "tool", {"a": 1})
    mask = os.umask(0)
    os.umask(mask)
    assert (store.root / "srv" / "tool.json").stat().st_mode & 0o777 == 0o666 & ~mask


def test_a_file_that_is_json_but_no_contract_is_never_merged_into(tmp_path: Path) -> None:
    from pytest_mcp_contracts.record import contract_problem

    fine = {"format_version": 1, "tool": "t", "output": {"source": "declared"}}
    assert contract_problem(fine) is None
    assert contract_problem({"format_version": 1, "type": "bogus"}) is not None
    assert contract_problem({"tool": ["t"]}) == "'tool' must be a string, not ['t']"
    assert contract_problem({"output": {"source": "inferred", "kinds": "bogus"}}) is not None
    store = SnapshotStore(tmp_path)
    recorder = _run(store, range(1, 4))  # the file changes between the run and its flush
    path = store.path_for("shop", "get_item")
    path.parent.mkdir(parents=True)
    path.write_text('{"format_version": 1, "tool": "get_item", "output": {"type": "bogus"}}')
    before = path.read_bytes()
    recorder.flush({"shop": {"get_item"}})
    assert path.read_bytes() == before
    assert recorder.written == []
    assert recorder.unwritten == [
        f"{path}: {path}: not a contract: 'output' must be an object whose source is one of "
        "declared, inferred"
    ]
