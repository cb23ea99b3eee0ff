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


# -- the probe of the private names: ranges without a cap ------------------------------------


@pytest.mark.parametrize(
    ("module", "name"),
    [
        ("hypothesis.internal.conjecture.utils", "many"),
        ("hypothesis.database", "choices_to_bytes"),
        ("hypothesis_jsonschema._from_schema", "from_js_regex"),
        ("hypothesis_jsonschema._canonicalise", "canonicalish"),
    ],
)
def test_a_release_without_a_private_name_fails_naming_it_and_the_range(
    monkeypatch: pytest.MonkeyPatch, module: str, name: str
) -> None:
    import importlib
    from importlib import metadata

    monkeypatch.delattr(importlib.import_module(module), name)
    names = {**hypothesis_compat.HYPOTHESIS_NAMES, **hypothesis_compat.JSONSCHEMA_NAMES}
    with pytest.raises(hypothesis_compat.UnsupportedRelease) as caught:
        hypothesis_compat.probe(names)
    message = str(caught.value)
    dist = "hypothesis-jsonschema" if module.startswith("hypothesis_jsonschema") else "hypothesis"
    assert f"{dist} {metadata.version(dist)} has no {module}.{name}, " in message
    # The ranges, read from the installed package's metadata (pyproject.toml is their one home).
    assert "supports hypothesis" in message and ", hypothesis-jsonschema" in message
    assert f"install an earlier {dist} in that range, or a newer pytest-mcp-contracts" in message
    assert "\n" not in message


def test_a_missing_module_is_named_too(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(hypothesis_compat.UnsupportedRelease, match=r"has no hypothesis\.gone,"):
        hypothesis_compat.probe({"hypothesis.gone": ()})
    assert issubclass(hypothesis_compat.UnsupportedRelease, ImportError)


def test_the_names_in_use_are_all_present_here() -> None:
    hypothesis_compat.probe(hypothesis_compat.HYPOTHESIS_NAMES)
    hypothesis_compat.probe(hypothesis_compat.JSONSCHEMA_NAMES)
    hypothesis_compat.probe_many()  # also after install() replaced the utils module's name


def test_a_many_of_neither_protocol_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    from hypothesis.internal.conjecture import utils

    monkeypatch.setattr(utils, "many", object)
    with pytest.raises(hypothesis_compat.UnsupportedRelease, match=r"no hypothesis\.internal\."):
        hypothesis_compat.probe_many()


def test_a_context_manager_many_is_adaptable_only_through_cu(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from hypothesis.internal.conjecture import utils

    class NewMany:
        def __enter__(self) -> None: ...

    monkeypatch.setattr(utils, "many", NewMany)
    monkeypatch.delitem(vars(hypothesis_compat._from_schema), "cu")
    with pytest.raises(hypothesis_compat.UnsupportedRelease, match=r"_from_schema\.cu,"):
        hypothesis_compat.probe_many()


def test_importing_the_module_under_a_release_that_lacks_a_name_fails_with_the_message() -> None:
    """In a fresh interpreter, as a run meets it: the import itself fails, naming the name."""
    code = (
        "import hypothesis.database as d; del d.choices_to_bytes\n"
        "import pytest_mcp_contracts.inputs.hypothesis_compat\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=60
    )
    assert done.returncode == 1
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("pytest_mcp_contracts.inputs.hypothesis_compat.UnsupportedRelease: ")
    assert "has no hypothesis.database.choices_to_bytes, " in last
