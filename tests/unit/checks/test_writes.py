"""What a call changed on disk, and the three rules that judge it (judges/writes), with the
watch that removes what a probe made in a folder the run does not own (runs/watch)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pytest_mcp_contracts.judges.failures import FailureKind
from pytest_mcp_contracts.judges.writes import (
    MAX_ENTRIES,
    OUTSIDE,
    Boundary,
    Changes,
    compare,
    look,
    write_finding,
)
from pytest_mcp_contracts.runs.watch import Watch, watched_folders

READ_ONLY = {"readOnlyHint": True}
NOT_DESTRUCTIVE = {"readOnlyHint": False, "destructiveHint": False}


def changes_of(folder: Path, act: object) -> Changes:
    before = look([folder])
    assert callable(act)
    act()
    return compare(before, look([folder]))


def nothing_laid(path: Path) -> bool:
    return False


def test_created_deleted_and_modified_entries_are_told_apart(tmp_path: Path) -> None:
    (tmp_path / "kept.txt").write_text("a")
    (tmp_path / "gone.txt").write_text("b")
    (tmp_path / "sub").mkdir()

    def act() -> None:
        (tmp_path / "new" / "deep").mkdir(parents=True)
        (tmp_path / "gone.txt").unlink()
        (tmp_path / "kept.txt").write_text("longer")

    changes = changes_of(tmp_path, act)
    assert changes.created == (tmp_path / "new", tmp_path / "new/deep")
    assert changes.deleted == (tmp_path / "gone.txt",)
    # A folder's own times move with its entries: only what is in it counts.
    assert changes.modified == (tmp_path / "kept.txt",)


def test_a_file_renamed_over_is_a_change_not_a_deletion(tmp_path: Path) -> None:
    """How a database saved whole is written (server-memory: a temporary file renamed over
    its file): destructiveHint: false allows it."""
    target = tmp_path / "memory.jsonl"
    target.write_text("{}\n")

    def act() -> None:
        temporary = tmp_path / "memory.jsonl.1234.tmp"
        temporary.write_text('{"a": 1}\n')
        os.replace(temporary, target)

    changes = changes_of(tmp_path, act)
    assert changes.deleted == () and changes.modified == (target,)
    none = Boundary()
    assert write_finding("contract", NOT_DESTRUCTIVE, changes, none, nothing_laid) is None


def test_a_read_only_tool_may_not_create_or_delete_or_change_what_the_run_laid(
    tmp_path: Path,
) -> None:
    laid = tmp_path / "notes.txt"
    laid.write_text("hello")
    cache = tmp_path / "index"
    cache.write_text("stat data")

    def created() -> None:
        (tmp_path / ".access.log").write_text("read notes\n")

    found = write_finding(
        "contract", READ_ONLY, changes_of(tmp_path, created), Boundary(), nothing_laid
    )
    assert found is not None and found.kind is FailureKind.BROKEN_ANNOTATION
    assert found.message == "the tool is annotated readOnlyHint: true, yet the call wrote files"
    assert found.details[0] == f"evidence: created: {tmp_path / '.access.log'}, during the call"

    def rewrote_laid() -> None:
        laid.write_text("hello again")

    changed = changes_of(tmp_path, rewrote_laid)
    assert write_finding("contract", READ_ONLY, changed, Boundary(), lambda p: p == laid)

    def refreshed_cache() -> None:
        cache.write_text("fresher stat data")  # git status rewriting .git/index

    refreshed = changes_of(tmp_path, refreshed_cache)
    assert refreshed.modified == (cache,)
    assert write_finding("contract", READ_ONLY, refreshed, Boundary(), lambda p: p == laid) is None


def test_a_non_destructive_tool_may_add_but_not_delete(tmp_path: Path) -> None:
    note = tmp_path / "hello.txt"
    note.write_text("hi")

    def copied() -> None:
        (tmp_path / "archive").mkdir()
        (tmp_path / "archive/hello.txt").write_text("hi")

    added = changes_of(tmp_path, copied)
    assert write_finding("contract", NOT_DESTRUCTIVE, added, Boundary(), nothing_laid) is None

    def moved() -> None:
        note.rename(tmp_path / "archive/moved.txt")

    deleted = changes_of(tmp_path, moved)
    found = write_finding("contract", NOT_DESTRUCTIVE, deleted, Boundary(), nothing_laid)
    assert found is not None and found.kind is FailureKind.BROKEN_ANNOTATION
    assert "destructiveHint: false, yet the call deleted files" in found.message
    # A tool with no annotations promises nothing.
    assert write_finding("contract", {}, deleted, Boundary(), nothing_laid) is None


def test_a_write_outside_every_folder_the_server_was_given_breaks_its_boundary(
    tmp_path: Path,
) -> None:
    given, roots = tmp_path / "repo", tmp_path / "roots"
    given.mkdir()
    roots.mkdir()
    adopted = False
    boundary = Boundary((given,), roots, lambda: adopted)
    before = look([given, roots])
    (roots / "new").mkdir()
    changes = compare(before, look([given, roots]))
    found = write_finding("contract", {}, changes, boundary, nothing_laid)
    assert found is not None and found.kind is FailureKind.PATH_TRAVERSAL
    assert found.message == f"{OUTSIDE} (CWE-22)"
    assert f"folders it was given: {given}" in found.details[1]
    assert "offered, never asked for" in found.details[1]
    # Once the server asked for the client's roots, they are its own too.
    adopted = True
    assert write_finding("contract", {}, changes, boundary, nothing_laid) is None
    # A server given no folder declares no boundary: where it writes is its business.
    assert write_finding("contract", {}, changes, Boundary((), roots), nothing_laid) is None


def test_a_tree_past_its_bound_is_not_judged(tmp_path: Path) -> None:
    for number in range(MAX_ENTRIES + 1):
        (tmp_path / f"f{number}").touch()
    before = look([tmp_path])
    assert before[tmp_path] is None
    (tmp_path / "f0").unlink()
    assert not compare(before, look([tmp_path]))


def test_the_watch_removes_what_a_call_made_in_a_folder_the_run_does_not_own(
    tmp_path: Path,
) -> None:
    theirs, ours = tmp_path / "repo", tmp_path / "roots"
    theirs.mkdir()
    ours.mkdir()
    (theirs / "a.txt").write_text("kept")
    boundary = Boundary((theirs,), ours, lambda: True)
    folders = watched_folders(boundary)
    watch = Watch("security", {}, boundary, folders, nothing_laid, tidy=(theirs,))
    before = watch.look()
    (theirs / ".; touch x" / "deep").mkdir(parents=True)
    (ours / "made.txt").write_text("")
    assert watch.judge(before) is None
    assert sorted(p.name for p in theirs.iterdir()) == ["a.txt"]
    assert (ours / "made.txt").exists()  # the roots folder is laid anew by the run itself


def test_a_folder_inside_another_is_watched_once(tmp_path: Path) -> None:
    inner = tmp_path / "inner"
    inner.mkdir()
    assert watched_folders(Boundary((tmp_path,), inner)) == [tmp_path]


@pytest.mark.parametrize("warn", [False, True])
def test_under_warn_a_finding_is_kept_once_not_raised(tmp_path: Path, warn: bool) -> None:
    watch = Watch("contract", READ_ONLY, Boundary(), [tmp_path], nothing_laid, warn=warn)
    for number in range(2):
        before = watch.look()
        (tmp_path / f"log{number}").touch()
        found = watch.judge(before)
        assert (found is None) is warn
    assert len(watch.warned) == (1 if warn else 0)
