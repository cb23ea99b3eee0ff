"""Keep what a run imports out of the garbage collector's work.

A run imports in phases (the plugin at start, jsonschema with the first validator,
hypothesis with the first random input), and every full collection after an import walks
all it created: modules, classes, compiled patterns, which live as long as the process. In
a small server's whole run that was a sizeable share of its time, pytest's own collections
at exit included (bench/README.md, figure 8). ``gc.freeze()`` moves what the process holds
into the permanent generation, which no collection walks; objects made afterwards are
collected as before.

What is frozen is never collected, so a cycle that was already garbage then stays. The
freezes are few (the plugin's configure, the checks' imports while the servers start,
which run with the collector off: ``importing``; the end of collection; then only after an
item that imported modules: once per phase) and the plugin's own items run between them,
so what stays is bounded by a handful of items' leftovers, not by the length of the run
(what that costs in memory, and what the freezes save: bench/README.md, figure 8).
"""

from __future__ import annotations

import contextlib
import gc
import sys
from collections.abc import Iterator


class LongLived:
    """Registered as a pytest plugin for a run that tests servers (at its configure: what
    pytest and the plugins imported until then is frozen at once)."""

    def __init__(self) -> None:
        self.modules = 0
        self.freeze_if_imported()

    def freeze_if_imported(self) -> None:
        if len(sys.modules) > self.modules:
            self.modules = len(sys.modules)
            gc.freeze()

    def pytest_collection_finish(self) -> None:
        self.freeze_if_imported()

    def pytest_runtest_logfinish(self) -> None:
        self.freeze_if_imported()


@contextlib.contextmanager
def importing() -> Iterator[None]:
    """No collection while modules are imported in bulk (what they create lives as long as
    the process; a collection in the middle walks it for nothing), then what they made is
    frozen."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
        gc.freeze()
