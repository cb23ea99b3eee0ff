"""Keep hypothesis-jsonschema working with the installed hypothesis.

Why this exists: hypothesis 6.170.10 turned ``hypothesis.internal.conjecture.utils.many``
into a context manager (``with many(...) as elements: for _ in elements: ...``) and
dropped its ``more()`` method.  hypothesis-jsonschema 0.23.1, the latest release, still
drives it the old way (``while elements.more(): ...``) in
``_from_schema.from_object_schema``, so with hypothesis >= 6.170.10 every object schema
fails with ``AttributeError: 'many' object has no attribute 'more'``.

Rather than patch hypothesis, which other code relies on, we give only
hypothesis-jsonschema's ``_from_schema`` module (which calls the utils module ``cu``) a
stand-in whose ``many`` speaks the old protocol.  With an older hypothesis, whose
``many`` still has ``more()``, nothing is changed.

And one more adaptation, of hypothesis itself: its "local constants" (since 6.131) mix the
string and number literals of every loaded module outside site-packages and the standard
library into what it draws.  Installed editable (``pip install -e``, as in this project's
CI and any contributor's checkout), this plugin's own modules count as local, so the
inputs sent to a server depended on how the plugin was installed, and each new process
with an empty ``.hypothesis/`` parsed the plugin's modules first.  ``install`` leaves the
plugin's own files out; a user's local modules (a ``--mcp-app`` server's source among them)
still count.

And its Unicode table: importing hypothesis-jsonschema (its regex strategies) makes
hypothesis sort every code point by category, unless ``.hypothesis/`` holds
the table from an earlier run in that folder. In CI, whose checkout is new each time, and
in every new project, no run had. The table depends only on the interpreter's Unicode
version, so the package ships it for the versions of the Pythons it was made with
(``unicode/<version>.json.gz``, by ``.ci/unicode-tables``: the same computation and format
as hypothesis's own cache file) and hands it to hypothesis before anything imports
hypothesis-jsonschema. For another Unicode version hypothesis makes its own, as before.
This module is the one way into hypothesis-jsonschema, so that the table comes first.

All of this stands on names neither library promises to keep, and the dependency ranges have
no cap: so the names are probed once, when this module is imported, and a release that
lacks one fails with a message naming it and the supported ranges rather than with an
AttributeError in the middle of a check.
"""

from __future__ import annotations

import gzip
import importlib
import json
import os
import re
import sys
import types
import unicodedata
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, Final

# The private names inputs/ uses, by module. Those of hypothesis come first: the Unicode
# table has to be given before hypothesis-jsonschema is imported.
HYPOTHESIS_NAMES: Final[Mapping[str, tuple[str, ...]]] = {
    "hypothesis.internal.charmap": ("_charmap", "charmap_file"),
    "hypothesis.internal.conjecture.utils": ("many",),
    "hypothesis.internal.intervalsets": ("IntervalSet",),
    "hypothesis.control": ("current_build_context",),
    "hypothesis.database": ("InMemoryExampleDatabase", "choices_to_bytes"),
}
JSONSCHEMA_NAMES: Final[Mapping[str, tuple[str, ...]]] = {
    "hypothesis_jsonschema._from_schema": (
        "CharStrategy",
        "JSON_STRATEGY",
        "STRING_FORMATS",
        "from_js_regex",
        "from_schema",
    ),
    "hypothesis_jsonschema._canonicalise": (
        "FALSEY",
        "HypothesisRefResolutionError",
        "canonicalish",
    ),
    "hypothesis_jsonschema._encode": ("encode_canonical_json",),
}


class UnsupportedRelease(ImportError):
    """The installed hypothesis or hypothesis-jsonschema lacks a name inputs/ relies on."""


def probe(names: Mapping[str, tuple[str, ...]]) -> None:
    """Raise UnsupportedRelease for the first module or name of ``names`` that is missing."""
    for module_name, attributes in names.items():
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            raise UnsupportedRelease(_unsupported(module_name)) from exc
        for attribute in attributes:
            if not hasattr(module, attribute):
                raise UnsupportedRelease(_unsupported(f"{module_name}.{attribute}"))


def _unsupported(name: str) -> str:
    from importlib import metadata

    dist = "hypothesis-jsonschema" if name.startswith("hypothesis_jsonschema") else "hypothesis"
    try:
        installed = f"{dist} {metadata.version(dist)}"
    except metadata.PackageNotFoundError:  # pragma: no cover - imported, so installed
        installed = dist
    return (
        f"{installed} has no {name}, which pytest-mcp-contracts generates inputs with: it "
        f"supports {_supported_ranges()}; install an earlier {dist} in that range, or a newer "
        "pytest-mcp-contracts"
    )


def _supported_ranges() -> str:
    """The ranges the package declares for both libraries (pyproject.toml is their one home)."""
    from importlib import metadata

    try:
        declared = metadata.requires("pytest-mcp-contracts") or []
    except metadata.PackageNotFoundError:  # run from a checkout that is not installed
        return "the hypothesis and hypothesis-jsonschema ranges of its pyproject.toml"
    ranges = [
        re.sub(r"\s+", "", spec.split(";")[0])
        for spec in declared
        if re.match(r"hypothesis(-jsonschema)?\s*[<>=!~]", spec) and "extra ==" not in spec
    ]
    return ", ".join(ranges) or "the ranges its metadata declares"


probe(HYPOTHESIS_NAMES)

from hypothesis.internal import charmap  # noqa: E402

UNICODE_TABLES = Path(__file__).with_name("unicode")


def seed_unicode_table() -> bool:
    """Give hypothesis its Unicode table from the package when it has none yet (not built
    in this process, no cache file in ``.hypothesis/``) and the package has this Python's.
    True when it was given."""
    if charmap._charmap is not None:
        return False
    try:
        if charmap.charmap_file().exists():
            return False  # hypothesis reads its own cache
    except OSError:  # a storage folder it cannot read: hypothesis would build the table
        pass
    try:
        with gzip.open(UNICODE_TABLES / f"{unicodedata.unidata_version}.json.gz") as table:
            pairs = json.load(table)
    except (OSError, ValueError):  # another Unicode version, or a damaged file
        return False
    charmap._charmap = {name: tuple(tuple(pair) for pair in spans) for name, spans in pairs}
    return True


seed_unicode_table()  # before hypothesis-jsonschema: importing it needs the table
probe(JSONSCHEMA_NAMES)

from hypothesis.internal.intervalsets import IntervalSet  # noqa: E402
from hypothesis_jsonschema import _from_schema  # noqa: E402
from hypothesis_jsonschema._canonicalise import (  # noqa: E402
    FALSEY,
    HypothesisRefResolutionError,
    canonicalish,
)
from hypothesis_jsonschema._encode import encode_canonical_json  # noqa: E402


def probe_many() -> None:
    """``many`` in one of the two protocols ``install`` knows: ``more()``, or a context manager
    that ``install`` can adapt only where hypothesis-jsonschema calls the utils module ``cu``."""
    from hypothesis.internal.conjecture import utils

    if hasattr(utils.many, "more"):
        return
    if not hasattr(utils.many, "__enter__"):
        raise UnsupportedRelease(_unsupported("hypothesis.internal.conjecture.utils.many.more"))
    cu = vars(_from_schema).get("cu")
    if cu is not utils and not isinstance(cu, _UtilsProxy):
        raise UnsupportedRelease(_unsupported("hypothesis_jsonschema._from_schema.cu"))


__all__ = [
    "FALSEY",
    "HypothesisRefResolutionError",
    "IntervalSet",
    "UnsupportedRelease",
    "_from_schema",
    "canonicalish",
    "encode_canonical_json",
    "install",
    "probe",
    "probe_many",
    "seed_unicode_table",
]


class _OldStyleMany:
    """Drives a context-manager ``many`` through the old ``more()``/``reject()`` protocol."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self._elements: Iterator[None] | None = None

    def more(self) -> bool:
        if self._elements is None:
            self._elements = iter(self._inner.__enter__())
        try:
            next(self._elements)
        except StopIteration:
            # The old protocol has no explicit end, so close the span when the loop stops.
            self._inner.__exit__(None, None, None)
            return False
        return True

    def reject(self, why: str | None = None) -> None:
        self._inner.reject(why)


class _UtilsProxy(types.ModuleType):
    """Stands in for ``hypothesis.internal.conjecture.utils`` inside hypothesis-jsonschema."""

    def __init__(self, utils: types.ModuleType) -> None:
        super().__init__(utils.__name__, utils.__doc__)
        self._utils = utils

    def __getattr__(self, name: str) -> Any:
        return getattr(self._utils, name)

    def many(self, *args: Any, **kwargs: Any) -> _OldStyleMany:
        return _OldStyleMany(self._utils.many(*args, **kwargs))


def install() -> None:
    """Adapt hypothesis-jsonschema to the installed hypothesis, if it needs it, and keep
    this plugin's modules out of hypothesis's local constants.  Idempotent."""
    from hypothesis.internal.conjecture import utils

    _leave_own_modules_out()
    if hasattr(utils.many, "more"):
        return
    namespace = vars(_from_schema)
    if namespace.get("cu") is utils:
        namespace["cu"] = _UtilsProxy(utils)


def _leave_own_modules_out() -> None:
    """hypothesis's test of whether a module is local (``is_local_module_file``, which its
    provider module calls by that global name), made to say no for this plugin's files.

    And to say no at once for a file under the standard library's or site-packages'
    folders as hypothesis names them (``scrutineer``): it resolves each path first (a
    system call per folder of it) for every module of a run, once per process."""
    try:
        from hypothesis.internal.conjecture import providers
    except ImportError:  # pragma: no cover - a hypothesis without the provider module
        return
    namespace = vars(providers)
    local = namespace.get("is_local_module_file")
    if local is None or getattr(local, "leaves_out", None) is not None:
        return
    own = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
    try:
        from hypothesis.internal.scrutineer import SITE_PACKAGES_DIRS, STDLIB_DIRS
    except ImportError:  # pragma: no cover - a hypothesis that names no such folders
        SITE_PACKAGES_DIRS = STDLIB_DIRS = set()
    # Not local by hypothesis's own reading too (it reads the resolved path; a path that
    # lies there only through a link is left to it).
    folders = (*SITE_PACKAGES_DIRS, *STDLIB_DIRS)
    not_local = (own, *(os.path.join(str(folder), "") for folder in folders))
    # Nor the script that started the process: ``pytest``'s console script (in the
    # environment's bin/, local to hypothesis) under a plain ``pytest``, nothing under
    # ``python -m pytest`` or in an xdist worker (whose ``__main__`` has no file). Its
    # strings made the same seed draw other inputs in each of those.
    script = getattr(sys.modules.get("__main__"), "__file__", None)
    started_by = os.path.abspath(script) if isinstance(script, str) else None

    def is_local_module_file(path: str) -> bool:
        where = os.path.abspath(path)
        return where != started_by and not where.startswith(not_local) and bool(local(path))

    is_local_module_file.leaves_out = own  # type: ignore[attr-defined]
    namespace["is_local_module_file"] = is_local_module_file


probe_many()
