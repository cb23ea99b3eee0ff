"""pytest/imports.py: the modules of the named packages are found as Python finds them, ahead
of pytest's assertion rewriting; nothing else is."""

from __future__ import annotations

import importlib.machinery
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_mcp_contracts.pytest.imports import PlainImports, load_plainly


@pytest.fixture
def package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A package ``plainpkg`` with a submodule, on sys.path, forgotten afterwards."""
    root = tmp_path / "plainpkg"
    root.mkdir()
    (root / "__init__.py").write_text("", encoding="utf-8")
    (root / "sub.py").write_text("VALUE = 1\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    # Without the finder the plugin installed in this process: the tests make their own.
    others = [f for f in sys.meta_path if not isinstance(f, PlainImports)]
    monkeypatch.setattr(sys, "meta_path", others)
    yield root
    for name in ("plainpkg", "plainpkg.sub"):
        sys.modules.pop(name, None)


def test_submodules_of_a_named_package_are_found_by_the_path_finder(package: Path) -> None:
    finder = PlainImports()
    finder.packages.add("plainpkg")
    path = [str(package)]
    spec = finder.find_spec("plainpkg.sub", path)
    assert spec is not None and spec.origin == str(package / "sub.py")
    assert isinstance(spec.loader, importlib.machinery.SourceFileLoader)
    # The package itself, other packages, and what the path does not hold: left to the
    # finders after this one.
    assert finder.find_spec("plainpkg", None) is None
    assert finder.find_spec("otherpkg.sub", path) is None
    assert finder.find_spec("plainpkg.missing", path) is None


def test_load_plainly_puts_one_finder_first_and_adds_packages(package: Path) -> None:
    load_plainly("plainpkg")
    first = sys.meta_path[0]
    assert isinstance(first, PlainImports) and "plainpkg" in first.packages
    # Another hook put first afterwards (as pytester's in-process runs do): moved back ahead.
    sys.meta_path.insert(0, importlib.machinery.PathFinder)  # type: ignore[arg-type]
    load_plainly("otherpkg")
    assert sys.meta_path[0] is first
    assert first.packages >= {"plainpkg", "otherpkg"}
    assert sum(isinstance(f, PlainImports) for f in sys.meta_path) == 1

    import plainpkg.sub

    assert type(plainpkg.sub.__spec__.loader) is importlib.machinery.SourceFileLoader
