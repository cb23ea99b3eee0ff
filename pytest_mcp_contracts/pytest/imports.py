"""Load the plugin's modules, and hypothesis's in a run that tests servers, from the bytecode
Python compiled for them, not through pytest's assertion rewriting.

pytest rewrites the asserts of every module of every installed distribution that has a
pytest plugin: this plugin's (when installed as users install it, not in editable mode)
and hypothesis's (its pytest plugin is a module of the hypothesis distribution). A
rewritten module is never loaded from the bytecode pip compiled at install time: pytest
compiles it from source on first import and caches the result beside it
(``__pycache__/*-pytest-*.pyc``). Where that cache cannot be written
(``PYTHONDONTWRITEBYTECODE``, which many container images set; a read-only
site-packages), every run compiles them all again, a large share of a small server's whole
run. Where the cache can be written, the first run after an install pays that, and later
runs read the cache by a slower path than Python's own (both measured: bench/README.md,
"Measured by hand").

Nothing here is a test helper: the asserts in these modules state the plugin's own
invariants, and rewriting them only changes the message should one fail. A user's test
files, conftest files and their own plugins are rewritten as before. hypothesis is left
alone in a run that tests no server, so that having the plugin installed changes nothing
in other runs.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
from collections.abc import Sequence
from types import ModuleType

PLUGIN_PACKAGE = __name__.partition(".")[0]


class PlainImports(importlib.abc.MetaPathFinder):
    """Ahead of pytest's rewriting hook in ``sys.meta_path``: finds the modules in the given
    top-level packages as Python's own path finder does (the rewriting hook, which would
    otherwise take them, finds them that way too), and nothing else.

    Not the top-level packages themselves (their ``__init__``): pytest marks those names
    again in a run inside the run (pytester's in-process runs) and warns, for each one
    already imported, that it was imported without it."""

    def __init__(self) -> None:
        self.packages: set[str] = set()

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None = None,
        target: ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        package, dot, _ = fullname.partition(".")
        if not dot or package not in self.packages:
            return None
        # None (not found on that path) hands the name on to the finders after this one.
        return importlib.machinery.PathFinder.find_spec(fullname, path, target)


def load_plainly(*packages: str) -> None:
    """The modules of ``packages`` not yet imported load without assertion rewriting from
    now on (first in ``sys.meta_path``; one finder per process, whoever asks)."""
    finder = next((f for f in sys.meta_path if isinstance(f, PlainImports)), None)
    if finder is None:
        finder = PlainImports()
    if sys.meta_path[0] is not finder:
        # Also after another hook was put first: pytester's in-process runs install one.
        if finder in sys.meta_path:
            sys.meta_path.remove(finder)
        sys.meta_path.insert(0, finder)
    finder.packages.update(packages)
