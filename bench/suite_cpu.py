"""Where the test suite's CPU goes, test by test: a pytest plugin for the suite, not a figure.

    PYTHONPATH=bench pytest -p suite_cpu -n auto --dist worksteal -q
    python bench/suite_cpu.py                 # the table, from the file the run wrote

The suite is CPU-bound on 2 cores (its wall time is about its CPU time over two), so CPU,
not duration, says what a change to it saves: a test that sleeps costs wall time on one
worker while the others compute. Each test's CPU is its worker's own (the in-process runs)
plus that of the processes it started and reaped (pytest runs under test, their xdist
workers, servers: ``RUSAGE_CHILDREN``). Not counted: the servers and pytest runs forked by
the zygotes (tests/warm_servers.py), which are their children, not the test's (the
suite's whole CPU: ``/usr/bin/time`` around it, which reaps the zygotes). Rows go to
``$SUITE_CPU_FILE`` (default: suite-cpu.tsv in the temporary folder), appended by every
worker.
"""

from __future__ import annotations

import collections
import os
import resource
import sys
import tempfile
import time
from collections.abc import Generator
from pathlib import Path

import pytest

OUT = Path(os.environ.get("SUITE_CPU_FILE", Path(tempfile.gettempdir()) / "suite-cpu.tsv"))


def _children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, object, object]:
    own, children, wall = time.process_time(), _children(), time.monotonic()
    try:
        return (yield)
    finally:
        own, children = time.process_time() - own, _children() - children
        with OUT.open("a", encoding="utf-8") as out:
            out.write(f"{own:.3f}\t{children:.3f}\t{time.monotonic() - wall:.3f}\t{item.nodeid}\n")


def main(path: Path = OUT, top: int = 30) -> None:
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        own, children, wall, nodeid = line.split("\t", 3)
        rows.append((float(own) + float(children), float(own), float(wall), nodeid))
    by_file: collections.Counter[str] = collections.Counter()
    for cpu, _, _, nodeid in rows:
        by_file[nodeid.split("::")[0]] += cpu
    print(f"{len(rows)} tests, {sum(r[0] for r in rows):.0f} s of CPU in all\n")
    print("CPU s  file")
    for name, cpu in by_file.most_common(top):
        print(f"{cpu:6.1f} {name}")
    print("\nCPU s  own s  wall s  test")
    for cpu, own, wall, nodeid in sorted(rows, reverse=True)[:top]:
        print(f"{cpu:6.1f} {own:6.1f} {wall:6.1f}  {nodeid}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT)
