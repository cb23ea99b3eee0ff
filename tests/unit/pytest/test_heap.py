"""pytest/heap.py: what a run imported is frozen once per phase, not after every item."""

from __future__ import annotations

import gc
import sys
import types
from collections.abc import Iterator

import pytest

from pytest_mcp_contracts.pytest.heap import LongLived


@pytest.fixture
def thawed() -> Iterator[None]:
    gc.unfreeze()
    yield
    gc.unfreeze()


def test_what_exists_after_an_import_is_frozen_and_later_objects_are_not(
    thawed: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    heap = LongLived()
    heap.pytest_collection_finish()
    frozen = gc.get_freeze_count()
    assert frozen > 0

    made_after = [[] for _ in range(1000)]  # noqa: F841 - held while the item "runs"
    heap.pytest_runtest_logfinish()  # no module was imported: nothing more is frozen
    assert gc.get_freeze_count() == frozen

    monkeypatch.setitem(sys.modules, "imported_by_an_item", types.ModuleType("x"))
    heap.pytest_runtest_logfinish()
    assert gc.get_freeze_count() > frozen


def test_bulk_imports_run_without_collections_and_are_frozen_after(thawed: None) -> None:
    from pytest_mcp_contracts.pytest.heap import importing

    assert gc.isenabled()
    with importing():
        assert not gc.isenabled()
        made = [[] for _ in range(1000)]
    assert gc.isenabled()
    assert gc.get_freeze_count() >= len(made)

    gc.disable()  # a process that had turned it off keeps it off
    try:
        with importing():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
