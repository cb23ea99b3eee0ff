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

import pytest

from pytest_mcp_contracts.contracts.record import Recorder
from pytest_mcp_contracts.contracts.snapshot import FORMAT_VERSION, SnapshotError, SnapshotStore
from pytest_mcp_contracts.transport.discover import (
    Entry,
    ServerSurface,
)
from pytest_mcp_contracts.vocabulary import BESIDE_TOOLS, EntryKind, SnapshotMode

SCHEMA = {"type": "object", "properties": {"id": {"type": "integer"}}}
TOOL = Entry(EntryKind.TOOL, "get_item", "get_item", {"name": "get_item", "inputSchema": SCHEMA})
SURFACE = ServerSurface("shop", "shop", "1.0", "2026-07-28", (TOOL,))


def _run(
    store: SnapshotStore,
    ids: range,
    extra_field: str | None = None,
    *,
    mode: str = SnapshotMode.UPDATE,
    id_field: str = "id",
) -> Recorder:
    """One run of the tool that returned `{"id": n}` (plus an extra field) for each n."""
    recorder = Recorder(store, mode)
    observations = recorder.start("shop", TOOL)
    for n in ids:
        item: dict[str, object] = {id_field: n}
        if extra_field:
            item[extra_field] = "x"
        result = {"content": [{"type": "text", "text": json.dumps(item)}]}
        observations.observe({"id": n}, result)
    # As the contract item: breaking drift fails a checking run; an update accepts it.
    failed = observations.checking and bool(observations.breaking)
    recorder.finish(SURFACE, "shop", observations, passed=not failed)
    return recorder


def _output(store: SnapshotStore) -> dict[str, object]:
    data = store.read("shop", "get_item")
    assert data is not None
    output = data["output"]
    assert isinstance(output, dict)
    return output


def _properties(store: SnapshotStore) -> set[str]:
    schema = _output(store)["schema"]
    assert isinstance(schema, dict)
    return set(schema["properties"])


LISTED = {"shop": {"get_item"}}


def test_an_update_replaces_the_contract_with_what_it_observed(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path / "snaps")
    _run(store, range(1, 20), "unit_price", mode=SnapshotMode.RECORD).flush(LISTED)
    assert _properties(store) == {"id", "unit_price"}
    # Renamed and accepted: the old name is gone, the new one is simply there.
    accepted = _run(store, range(1, 20), "unit")
    # The update still tells what it accepted (the summary lists it).
    observed = accepted.observed[("shop", "get_item")]
    assert [str(d) for d in observed.breaking.values()] == [
        "$.unit_price: missing (was always present)"
    ]
    assert [str(d) for d in observed.additive.values()] == ["$.unit: new field: string"]
    accepted.flush(LISTED)
    assert _properties(store) == {"id", "unit"}
    assert _output(store)["schema"]["required"] == ["id", "unit"]  # type: ignore[index]
    # Removed: a checking run now fails on it.
    removed = _run(store, range(1, 20), mode=SnapshotMode.RECORD)
    observed = removed.observed[("shop", "get_item")]
    assert [str(d) for d in observed.breaking.values()] == ["$.unit: missing (was always present)"]


def test_an_update_with_no_change_writes_nothing(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path / "snaps")
    first = _run(store, range(1, 40), "colour")
    first.flush(LISTED)
    assert first.written
    path = store.path_for("shop", "get_item")
    before, mtime = path.read_bytes(), path.stat().st_mtime_ns
    # Other inputs, another count of them: the same contract, so the same bytes.
    for ids in (range(100, 107), range(5, 200)):
        again = _run(store, ids, "colour")
        again.flush(LISTED)
        assert again.written == [] and again.unwritten == []
    assert path.read_bytes() == before and path.stat().st_mtime_ns == mtime
    assert "observations" not in _output(store)


def test_two_overlapping_updates_never_mix_and_the_second_says_so(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path / "snaps")
    # Both runs start before either writes: each read an empty folder.
    first = _run(store, range(1, 6), extra_field="colour")
    second = _run(store, range(10, 13), extra_field="size")
    first.flush(LISTED)
    second.flush(LISTED)
    # Replacing the file the first run just accepted would silently undo that acceptance.
    assert _properties(store) == {"id", "colour"}
    assert second.written == []
    assert len(second.unwritten) == 1
    assert "another run changed it since this run read it" in second.unwritten[0]
    # Run again, it reads what is there now and replaces it (with the evidence to drop
    # `colour`: 15 objects without it).
    third = _run(store, range(10, 25), extra_field="size")
    third.flush(LISTED)
    assert _properties(store) == {"id", "size"} and third.unwritten == []


def test_two_overlapping_updates_that_agree_are_both_fine(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path / "snaps")
    first, second = _run(store, range(1, 30)), _run(store, range(40, 90))
    first.flush(LISTED)
    second.flush(LISTED)
    assert first.written and second.written == [] and second.unwritten == []


def test_two_overlapping_local_runs_keep_the_first_recording(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path / "snaps")
    first = _run(store, range(1, 6), extra_field="colour", mode=SnapshotMode.RECORD)
    second = _run(store, range(10, 13), extra_field="size", mode=SnapshotMode.RECORD)
    first.flush(LISTED)
    second.flush(LISTED)
    assert _properties(store) == {"id", "colour"}  # a local run never overwrites a contract


def test_version_1_files_are_read_and_rewritten_only_by_an_update(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path / "snaps")
    path = store.path_for("shop", "get_item")
    path.parent.mkdir(parents=True)
    v1 = {
        "format_version": 1,
        "server": "shop",
        "tool": "get_item",
        "output": {
            "source": "inferred",
            "kinds": ["json-text"],
            "observations": 50,
            "distinct_inputs": 50,
            "quality": "validated",
            "schema": {
                "type": "object",
                "properties": {"id": {"type": "integer"}},
                "required": ["id"],
            },
            "seen": {"$": 50, "$.id": 50},
        },
    }
    text = json.dumps(v1, sort_keys=True, indent=2) + "\n"
    path.write_text(text, encoding="utf-8")
    checked = _run(store, range(1, 20), mode=SnapshotMode.RECORD)
    assert checked.observed[("shop", "get_item")].breaking == {}
    checked.flush(LISTED)
    assert path.read_text(encoding="utf-8") == text
    missing = _run(store, range(1, 20), id_field="key", mode=SnapshotMode.RECORD)
    assert "$.id: missing (was always present)" in missing.observed[("shop", "get_item")].breaking
    _run(store, range(1, 20)).flush(LISTED)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["format_version"] == FORMAT_VERSION == 2
    assert "observations" not in data["output"] and data["output"]["quality"] == "validated"


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
    assert _properties(store) == {"id"}


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
from pytest_mcp_contracts.contracts.snapshot import SnapshotStore

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
            assert data["format_version"] == FORMAT_VERSION
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
    from pytest_mcp_contracts.contracts.record import contract_problem

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


def test_listed_entries_have_their_own_folders_and_are_never_taken_for_tools(
    tmp_path: Path,
) -> None:
    from pytest_mcp_contracts.contracts.snapshot import file_of, kind_of
    from pytest_mcp_contracts.transport.discover import (
        build_entries,
    )

    store = SnapshotStore(tmp_path)
    (resource,) = build_entries(
        EntryKind.RESOURCE, [{"uri": "file:///../../etc/passwd", "name": "x"}]
    )
    (prompt,) = build_entries(EntryKind.PROMPT, [{"name": "../../tool"}])
    for entry in (resource, prompt):
        path = store.path_for("shop", file_of(entry))
        assert path.parent == tmp_path / "shop" / f"{entry.kind}s"
        store.write("shop", file_of(entry), {"surface": {}})
    store.write("shop", "get_item", {"surface": {}})
    assert store.recorded("shop", EntryKind.TOOL) == ["get_item"]
    assert store.recorded("shop", *BESIDE_TOOLS) == sorted(file_of(e) for e in (resource, prompt))
    assert [kind_of(file_of(prompt)), kind_of("get_item")] == ["prompt", "tool"]


@pytest.mark.parametrize(
    "hostile",
    ["prompts/../../x", "prompts/../get_item", "tools/x", "prompts/.hidden", "../x", "a/b/c"],
)
def test_a_listed_file_name_cannot_leave_its_folder(tmp_path: Path, hostile: str) -> None:
    with pytest.raises(ValueError, match="refusing a snapshot path"):
        SnapshotStore(tmp_path).path_for("shop", hostile)


def test_a_listed_entry_file_is_checked_as_a_contract_in_its_own_words(tmp_path: Path) -> None:
    from pytest_mcp_contracts.contracts.record import contract_problem

    fine = {"format_version": 2, "server": "s", "prompt": "p", "surface": {}, "content": None}
    assert contract_problem(fine, "prompt") is None
    assert contract_problem({"tool": "t"}, "prompt") == (
        "unknown key(s) ['tool']; a contract file has format_version, server, prompt, surface, "
        "content"
    )
    assert contract_problem({"content": {"source": "x"}}, "resource") == (
        "'content' must be an object whose source is one of declared, inferred"
    )
    # A file that records another entry than the one listed is never read as its own.
    store = SnapshotStore(tmp_path)
    store.write("shop", "prompts/p", {"server": "s", "prompt": "q", "surface": {}})
    with pytest.raises(SnapshotError, match="it records prompt 'q', not 'p'"):
        Recorder(store, SnapshotMode.RECORD).load("shop", "prompts/p", "p")


def test_entries_of_a_listing_that_failed_are_unknown_not_removed(tmp_path: Path) -> None:
    from pytest_mcp_contracts.transport.discover import ListingFailure

    store = SnapshotStore(tmp_path)
    for file in ("prompts/greet", "resources/app-1", "templates/users-1"):
        store.write("shop", file, {"surface": {}})
    failed = ListingFailure("prompt", "prompts/list", "prompts/list failed: offline")
    surface = ServerSurface("shop", "shop", "1", "2025-11-25", listing_failures=(failed,))
    recorder = Recorder(store, SnapshotMode.UPDATE)
    assert recorder.stale("shop", surface) == ["resources/app-1", "templates/users-1"]
