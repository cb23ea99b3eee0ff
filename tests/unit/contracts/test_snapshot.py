"""contracts/snapshot.py: files recorded under the names earlier versions gave them are found
where they are, listed under their names now, and moved when next written."""

from __future__ import annotations

from pathlib import Path

from pytest_mcp_contracts.contracts.snapshot import SnapshotStore, dumps, write_atomic
from pytest_mcp_contracts.vocabulary import BESIDE_TOOLS, EntryKind

DATA = {"format_version": 2, "server": "Demo Server", "tool": "_lookup", "surface": {}}


def _store(tmp_path: Path, *files: tuple[str, str]) -> SnapshotStore:
    store = SnapshotStore(tmp_path / "mcp-contracts")
    for server, name in files:
        write_atomic(store.path_for(server, name), dumps(DATA))
    return store


def test_a_file_under_its_former_name_is_read_listed_and_moved_as_now(tmp_path: Path) -> None:
    store = _store(tmp_path, ("demo", "lookup-0123abcd"), ("demo", "gone-89abcdef"))
    store.follow("demo", "demo", {"lookup": "lookup-0123abcd"})
    assert store.read("demo", "lookup") == DATA
    assert store.located("demo", "lookup") == store.path_for("demo", "lookup-0123abcd")
    # Listed by its name now; a file no entry claims keeps its own (a removed tool's).
    assert store.recorded("demo", EntryKind.TOOL) == ["gone-89abcdef", "lookup"]
    assert store.write("demo", "lookup", DATA) is True
    assert sorted(p.name for p in (store.root / "demo").iterdir()) == [
        "gone-89abcdef.json",
        "lookup.json",
    ]
    assert store.write("demo", "lookup", DATA) is False  # moved once, then unchanged


def test_a_renamed_server_folder_brings_every_file_along(tmp_path: Path) -> None:
    former = "Demo_Server-4c2f8e1a"
    store = _store(
        tmp_path,
        (former, "lookup-0123abcd"),
        (former, "plain"),
        (former, "resources/config_app_settings-d97dca3f"),
    )
    renames = {
        "lookup": "lookup-0123abcd",
        "resources/config_app_settings": "resources/config_app_settings-d97dca3f",
    }
    store.follow("Demo_Server", former, renames)
    assert store.recorded("Demo_Server", EntryKind.TOOL) == ["lookup", "plain"]
    assert store.recorded("Demo_Server", *BESIDE_TOOLS) == ["resources/config_app_settings"]
    assert store.read("Demo_Server", "plain") == DATA
    for name in ("lookup", "plain", "resources/config_app_settings"):
        store.write("Demo_Server", name, DATA)
    # Every file moved: the former folder, left empty, is gone.
    assert not (store.root / former).exists()
    assert sorted(p.relative_to(store.root).as_posix() for p in store.root.rglob("*.json")) == [
        "Demo_Server/lookup.json",
        "Demo_Server/plain.json",
        "Demo_Server/resources/config_app_settings.json",
    ]


def test_deleting_a_file_removes_it_under_its_former_name_too(tmp_path: Path) -> None:
    store = _store(tmp_path, ("demo", "lookup-0123abcd"))
    store.follow("demo", "demo", {"lookup": "lookup-0123abcd"})
    store.delete("demo", "lookup")
    assert store.recorded("demo", EntryKind.TOOL) == []
    assert not (store.root / "demo").exists()
