"""Runs that overlap or are interrupted: contracts are never half-written and never lost."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from ..conftest import server_command, untimed_file

FOLDER = Path("mcp-contracts") / "inferred"


def _pytest(cwd: Path, *args: str) -> subprocess.Popen[str]:
    argv = [sys.executable, "-m", "pytest", "-p", "no:randomly", "-p", "no:cacheprovider"]
    argv += [f"--mcp-server={server_command('inferred.py')}", "-k", "get_item", *args]
    return subprocess.Popen(
        argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )


def test_two_concurrent_updates_never_leave_a_mix(pytester: pytest.Pytester) -> None:
    """Two updates of one contract at once: under replace semantics each run's contract is
    whole; the file holds one of them, and a run that finds the file changed since it read
    it either writes the same contract or leaves the file and says so."""
    alone = pytester.path / "alone"
    alone.mkdir()
    one = _pytest(alone, "--mcp-snapshot-update", "--hypothesis-seed=7")
    assert one.wait(timeout=120) == 0, one.communicate()[0]
    expected = untimed_file((alone / FOLDER / "get_item.json").read_bytes())

    together = pytester.path / "together"
    together.mkdir()
    runs = [_pytest(together, "--mcp-snapshot-update", f"--hypothesis-seed={s}") for s in (7, 8)]
    outputs = []
    for run in runs:
        assert run.wait(timeout=120) == 0, run.communicate()[0]
        outputs.append(run.communicate()[0])
    # Both learned the same contract from different inputs: one wrote, the other had
    # nothing to change.
    assert untimed_file((together / FOLDER / "get_item.json").read_bytes()) == expected
    assert sum("recorded 1 file(s):" in out for out in outputs) == 1, outputs
    assert not any("not written" in out for out in outputs), outputs
    assert list((together / FOLDER).glob(".*")) == []


def test_an_interrupted_run_leaves_only_whole_files(pytester: pytest.Pytester) -> None:
    """SIGINT while a tool hangs: pytest stops, what was finished is written whole."""
    argv = [sys.executable, "-m", "pytest", "-p", "no:randomly", "-p", "no:cacheprovider"]
    argv += [
        f"--mcp-server={server_command('inferred.py')}",
        f"--mcp-server={server_command('hang.py')}",
        "--mcp-call-timeout=600",
        "--mcp-max-examples=100",
    ]
    run = subprocess.Popen(
        argv,
        cwd=pytester.path,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        # Under xdist this test runs in a worker that ignores SIGINT, and a Python started
        # with SIGINT ignored never raises KeyboardInterrupt: give the run the default.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        _interrupt_and_check(run, pytester.path)
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()


def _interrupt_and_check(run: subprocess.Popen[str], root: Path) -> None:
    stdout = run.stdout
    assert stdout is not None
    seen: list[str] = []
    reader = threading.Thread(target=lambda: seen.extend(iter(lambda: stdout.read(1), "")))
    reader.start()
    # Wait until the hang server's items run (pytest has printed its node id, no newline yet).
    deadline = time.monotonic() + 120
    while "mcp:hang " not in "".join(seen) and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(1.0)
    run.send_signal(signal.SIGINT)
    run.wait(timeout=60)
    reader.join(timeout=10)
    output = "".join(seen)
    assert run.returncode == pytest.ExitCode.INTERRUPTED, output
    assert "KeyboardInterrupt" in output
    files = [p for p in (root / "mcp-contracts").rglob("*") if p.is_file()]
    assert files, "the inferred server's contracts were finished before the interrupt"
    for path in files:
        assert not path.name.startswith("."), f"temporary file left behind: {path}"
        data = json.loads(path.read_text(encoding="utf-8"))
        assert data["format_version"] == 2
