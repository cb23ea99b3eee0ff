"""The Unicode tables the package ships for hypothesis (inputs/hypothesis_compat.py)."""

from __future__ import annotations

import gzip
import itertools
import json
import os
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest
from hypothesis.internal import charmap

from pytest_mcp_contracts.inputs import hypothesis_compat
from pytest_mcp_contracts.inputs.hypothesis_compat import UNICODE_TABLES, seed_unicode_table

HERE = unicodedata.unidata_version


def shipped(version: str) -> list[tuple[str, list[list[int]]]]:
    with gzip.open(UNICODE_TABLES / f"{version}.json.gz") as table:
        pairs: list[tuple[str, list[list[int]]]] = json.load(table)
    return pairs


def test_the_table_shipped_for_this_python_is_the_one_hypothesis_computes(tmp_path: Path) -> None:
    """hypothesis builds its own table in a process with an empty storage folder; ours for
    this interpreter's Unicode version must be that table, item for item."""
    code = (
        "import json; from hypothesis.internal import charmap;"
        "print(json.dumps(sorted(charmap.charmap().items())))"
    )
    env = {**os.environ, "HYPOTHESIS_STORAGE_DIRECTORY": str(tmp_path / "storage")}
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert json.loads(done.stdout) == shipped(HERE)


def test_every_shipped_table_is_named_by_a_unicode_version_and_covers_every_code_point() -> None:
    names = sorted(path.name for path in UNICODE_TABLES.iterdir())
    assert f"{HERE}.json.gz" in names
    for name in names:
        version = name.removesuffix(".json.gz")
        assert [int(part) for part in version.split(".")], name
        spans = sorted(tuple(span) for _, spans in shipped(version) for span in spans)
        assert spans[0][0] == 0 and spans[-1][1] == sys.maxunicode
        assert all(a[1] + 1 == b[0] for a, b in itertools.pairwise(spans)), name


def test_hypothesis_is_given_the_table_only_when_it_has_none(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    cache = tmp_path / "unicode_data" / HERE / "charmap.json.gz"
    monkeypatch.setattr(charmap, "charmap_file", lambda fname="charmap": cache)
    monkeypatch.setattr(charmap, "_charmap", None)
    assert seed_unicode_table()
    assert charmap._charmap is not None
    assert charmap._charmap["Lu"][0] == (65, 90)  # A-Z: the pairs are tuples, as its own
    assert not seed_unicode_table()  # already given

    monkeypatch.setattr(charmap, "_charmap", None)
    cache.parent.mkdir(parents=True)
    cache.write_bytes(b"")  # hypothesis's own cache file: it reads that one
    assert not seed_unicode_table()
    assert charmap._charmap is None


def test_an_unshipped_unicode_version_leaves_hypothesis_to_compute_its_own(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(charmap, "charmap_file", lambda fname="charmap": tmp_path / "none")
    monkeypatch.setattr(charmap, "_charmap", None)
    monkeypatch.setattr(hypothesis_compat.unicodedata, "unidata_version", "99.0.0")
    assert not seed_unicode_table()
    assert charmap._charmap is None


def test_hypothesis_jsonschema_is_imported_only_through_the_compat_module() -> None:
    """Importing hypothesis-jsonschema builds hypothesis's Unicode table: a module that
    imported it directly could come first and build it again."""
    import re

    import pytest_mcp_contracts

    package = Path(pytest_mcp_contracts.__file__).parent
    statement = re.compile(r"^\s*(?:from|import)\s+hypothesis_jsonschema\b", re.M)
    direct = [
        str(path.relative_to(package))
        for path in package.rglob("*.py")
        if path != Path(hypothesis_compat.__file__)
        and statement.search(path.read_text(encoding="utf-8"))
    ]
    assert direct == []
    assert statement.search(Path(hypothesis_compat.__file__).read_text(encoding="utf-8"))


def test_a_storage_folder_that_cannot_be_read_still_gets_the_table(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class Unreadable:
        def exists(self) -> bool:
            raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(charmap, "charmap_file", lambda fname="charmap": Unreadable())
    monkeypatch.setattr(charmap, "_charmap", None)
    assert seed_unicode_table()
    assert charmap._charmap is not None
