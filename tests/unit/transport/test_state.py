"""transport/state.py: which files a server could carry over a restart, whether they changed,
how to reset them, and each xdist worker's own copy of a server command."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from pytest_mcp_contracts.transport.managed import ManagedServer
from pytest_mcp_contracts.transport.state import (
    Carried,
    StateWatch,
    WorkerPlace,
    for_worker,
    named_paths,
)
from pytest_mcp_contracts.transport.stdio import ServerCommand

SERVER = Path(__file__).parents[2] / "servers" / "state_file.py"


def test_named_paths_are_files_folders_and_data_files_a_server_may_create(
    tmp_path: Path,
) -> None:
    (tmp_path / "seed.json").write_text("{}")
    (tmp_path / "data").mkdir()
    argv = [
        "python",  # the program: never its state
        "server.py",  # does not exist, and no data suffix
        "--state=seed.json",  # exists
        "--db",
        "new.sqlite",  # does not exist yet; its folder does
        "data",  # a folder
        "main",  # a word, not a path
        "1.5",
        "http://example.com/x.json",
        "missing/dir/x.json",  # its folder does not exist
    ]
    found = named_paths(argv, {"MEMORY_FILE_PATH": str(tmp_path / "memory.jsonl")}, tmp_path)
    assert found == [
        tmp_path / "seed.json",
        tmp_path / "new.sqlite",
        tmp_path / "data",
        tmp_path / "memory.jsonl",
    ]


def test_a_watch_sees_named_files_and_the_working_directory_change(tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    state.write_text('{"a": 1}')
    (tmp_path / ".hypothesis").mkdir()  # written by the run itself, not by a server
    watch = StateWatch.take(ServerCommand(("python", "s.py", "--state", str(state))), tmp_path)
    assert watch.carried() is None
    state.write_text('{"a": 1}')  # the same bytes written again: no state changed
    (tmp_path / ".hypothesis" / "db").write_text("x")
    assert watch.carried() is None
    state.write_text('{"a": 2}')
    (tmp_path / "made.db").write_text("x")
    carried = watch.carried()
    assert carried is not None
    assert carried.paths == ("made.db", "state.json")
    assert carried.reset == (
        "--mcp-reset-command='rm -f made.db'; also put back state.json as the run found it "
        "(e.g. from a copy saved before)"
    )


def test_a_file_the_run_created_is_reset_by_removing_it(tmp_path: Path) -> None:
    state = tmp_path / "sub" / "memory.json"
    state.parent.mkdir()
    watch = StateWatch.take(ServerCommand(("node", "index.js", str(state))), tmp_path)
    state.write_text("[]")
    carried = watch.carried()
    assert carried is not None
    assert carried.paths == ("sub/memory.json",)
    assert carried.reset == "--mcp-reset-command='rm -f sub/memory.json'"
    assert "sub/memory.json changed during the run and outlived the restart" in carried.words()


def test_answers_that_differ_from_the_first_start_are_carried_state(tmp_path: Path) -> None:
    watch = StateWatch.take(ServerCommand(("python", "s.py")), tmp_path)
    watch.answers_at_start = {"keys": "[]", "stats": "{}"}
    assert watch.carried({"keys": "[]", "stats": "{}"}) is None
    carried = watch.carried({"keys": '["alpha"]', "stats": "{}", "new": "x"})
    assert carried == Carried((), "", ("keys",))
    assert "keys (read-only, without arguments) answered otherwise" in carried.words()
    assert "--mcp-reset-command with a command that empties" in carried.words()


def test_the_worker_placeholder_is_the_worker_id_or_main(tmp_path: Path) -> None:
    command = ServerCommand(
        ("python", "s.py", "--state", "state-{worker}.json"), {"DB": "/tmp/{worker}.db"}
    )
    serial = for_worker(command, "main", None, tmp_path)
    assert serial.command.argv[-1] == "state-main.json"
    assert serial.command.env == {"DB": "/tmp/main.db"}
    worker = for_worker(command, "gw1", tmp_path / "own", tmp_path)
    assert worker.command.argv[-1] == "state-gw1.json"
    # The command chose its files: no copy, no warning; its temporary files are its own.
    assert worker.copies == ()
    assert worker.warning() is None
    assert worker.command.env["TMPDIR"] == str(tmp_path / "own")
    assert worker.text("rm -f state-{worker}.json", "gw1") == "rm -f state-gw1.json"


def test_a_serial_run_starts_the_command_as_named(tmp_path: Path) -> None:
    command = ServerCommand(("python", "s.py", "--state", "state.json"))
    assert for_worker(command, "main", None, tmp_path) == WorkerPlace(command)


def test_each_worker_gets_its_own_copy_of_a_shared_state_file(tmp_path: Path) -> None:
    (tmp_path / "seed.json").write_text('{"kept": true}')
    (tmp_path / "server.py").write_text("")
    own = tmp_path / "gw0"
    own.mkdir()
    command = ServerCommand(
        ("python", "server.py", "--seed=seed.json", "--memory", "memory.jsonl"),
        {"CONFIG_DIR": str(tmp_path)},  # a folder: not copied
    )
    place = for_worker(command, "gw0", own, tmp_path)
    argv = place.command.argv
    assert argv[:2] == ("python", "server.py")  # the program is no state
    assert argv[2] == f"--seed={own / '0-seed.json'}"
    assert (own / "0-seed.json").read_text() == '{"kept": true}'
    assert argv[3:] == ("--memory", str(own / "1-memory.jsonl"))
    assert not (own / "1-memory.jsonl").exists()  # the server creates it, in its folder
    assert place.command.env == {
        "CONFIG_DIR": str(tmp_path),
        "TMPDIR": str(own),
        "TMP": str(own),
        "TEMP": str(own),
    }
    warning = place.warning()
    assert warning is not None and "(seed.json, memory.jsonl)" in warning
    assert "{worker}" in warning
    # The reset command names the originals; each worker runs it on its own copies.
    assert place.text("rm -f memory.jsonl", "gw0") == f"rm -f {own / '1-memory.jsonl'}"
    # And a report names the originals again.
    copied = Carried((str(own / "1-memory.jsonl"),), f"rm -f {own / '1-memory.jsonl'}")
    assert place.as_named(copied) == Carried(("memory.jsonl",), "rm -f memory.jsonl")


def test_the_users_tmpdir_wins(tmp_path: Path) -> None:
    command = ServerCommand(("python", "s.py"), {"TMPDIR": "/var/mine"})
    assert for_worker(command, "gw0", tmp_path, tmp_path).command.env == {"TMPDIR": "/var/mine"}


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a real server process")
def test_a_restarted_server_that_reads_back_its_file_is_not_fresh(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fixture server of tests/e2e/test_state_outlives.py, started for real: after a
    call stored a key, a restart carries the file (changed) and what ``keys`` answers; with
    the file removed before the restart it carries nothing."""
    monkeypatch.chdir(tmp_path)
    state = tmp_path / "state.json"
    server = ManagedServer(
        command=ServerCommand((sys.executable, str(SERVER), "--state", str(state))),
        startup_timeout=30,
        call_timeout=10,
        max_message_bytes=1 << 20,
        state_tools=lambda surface: [t for t in surface.tools if t.name == "keys"],
    )
    try:
        server.start()
        assert server.carried_state() is None  # nothing asked yet: nothing compared
        server.call("remember", {"key": "alpha", "value": "x"})
        assert server.freshness.watch is not None and server.freshness.watch.answers_at_start == {
            "keys": '{"content": [{"text": "[]", "type": "text"}]}'
        }
        server.close()
        server.connection()
        carried = server.carried_state()
        assert carried == Carried(
            ("state.json",), "--mcp-reset-command='rm -f state.json'", ("keys",)
        )
        assert server.untouched  # asking keys sent no check's call
        server.close()
        os.remove(state)
        server.connection()
        assert server.carried_state() is None
    finally:
        server.close()


def test_a_log_under_the_working_directory_is_no_state(tmp_path: Path) -> None:
    watch = StateWatch.take(ServerCommand(("python", "s.py")), tmp_path)
    (tmp_path / "server.log").write_text("INFO called\n")
    assert watch.carried() is None


def test_a_state_file_too_large_to_copy_is_shared_and_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("pytest_mcp_contracts.transport.state.COPY_LIMIT", 4)
    (tmp_path / "big.db").write_text("more than four bytes")
    command = ServerCommand(("python", "s.py", "--db", "big.db"))
    place = for_worker(command, "gw0", tmp_path / "own", tmp_path)
    assert place.command.argv == command.argv
    assert place.copies == ()
    warning = place.warning()
    assert warning is not None
    assert warning.startswith("big.db, named by its command, is too large to copy")


def test_past_the_walks_bound_only_files_both_walks_reached_count(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("pytest_mcp_contracts.transport.state.MAX_ENTRIES", 3)
    for name in "abc":
        (tmp_path / f"{name}.txt").write_text(name)
    state = tmp_path / "state.json"
    watch = StateWatch.take(ServerCommand(("python", "s.py", str(state))), tmp_path)
    assert watch.cut
    (tmp_path / "d.txt").write_text("d")  # may push another file out of the walk
    assert watch.carried() is None
    state.write_text("{}")  # a named file counts however far the walk got
    carried = watch.carried()
    assert carried is not None and carried.paths == ("state.json",)
