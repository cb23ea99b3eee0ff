"""pytest-xdist: the workers run the tools, the controller writes the contracts once, and a
run with -n 2 writes exactly what a serial run writes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ..conftest import server_command

pytest.importorskip("xdist")

SERVERS = ("inferred.py", "typed_ok.py")
ARGS = ("--hypothesis-seed=3", "--mcp-max-examples=20", "--mcp-report=report.json")


def _run(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    cwd.mkdir(exist_ok=True)
    argv = [sys.executable, "-m", "pytest", "-p", "no:randomly", "-p", "no:cacheprovider"]
    argv += [f"--mcp-server={server_command(s)}" for s in SERVERS]
    return subprocess.run(
        [*argv, *ARGS, *args], cwd=cwd, capture_output=True, text=True, timeout=300
    )


def _files(root: Path) -> dict[str, bytes]:
    folder = root / "mcp-contracts"
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*.json")}


def _assert_same_files(parallel: Path, serial: Path) -> None:
    """File for file; on a difference, show the first differing file of each run."""
    mine, theirs = _files(parallel), _files(serial)
    assert sorted(mine) == sorted(theirs)
    for name in sorted(theirs):
        assert mine[name].decode() == theirs[name].decode(), name


def _checks(root: Path) -> dict[str, Any]:
    report = json.loads((root / "report.json").read_text(encoding="utf-8"))
    found = {}
    for server in report["servers"]:
        for tool in server["tools"]:
            for check, result in tool["checks"].items():
                found[f"{server['name']}::{tool['name']}::{check}"] = result["outcome"]
    return {"checks": found, "snapshots": report["snapshots"]}


def test_a_parallel_run_writes_what_a_serial_run_writes(pytester: pytest.Pytester) -> None:
    serial = _run(pytester.path / "serial")
    parallel = _run(pytester.path / "parallel", "-n", "2")
    assert serial.returncode == 0, serial.stdout
    assert parallel.returncode == 0, parallel.stdout
    files = _files(pytester.path / "serial")
    assert len(files) == 7  # 4 inferred tools + 3 typed ones
    _assert_same_files(pytester.path / "parallel", pytester.path / "serial")
    assert _checks(pytester.path / "parallel") == _checks(pytester.path / "serial")
    assert "recorded 7 file(s):" in parallel.stdout
    assert "inferred (protocol 2025-11-25): 4 tools," in parallel.stdout


def test_a_parallel_update_prunes_like_a_serial_one(pytester: pytest.Pytester) -> None:
    for name in ("serial", "parallel"):
        stale = pytester.path / name / "mcp-contracts" / "inferred" / "removed_tool.json"
        stale.parent.mkdir(parents=True)
        stale.write_text(json.dumps({"format_version": 1, "tool": "removed_tool"}))
    serial = _run(pytester.path / "serial", "--mcp-snapshot-update")
    parallel = _run(pytester.path / "parallel", "--mcp-snapshot-update", "-n", "2")
    assert serial.returncode == 0 and parallel.returncode == 0, parallel.stdout
    assert not (
        pytester.path / "parallel" / "mcp-contracts" / "inferred" / "removed_tool.json"
    ).exists()
    _assert_same_files(pytester.path / "parallel", pytester.path / "serial")
    assert "pruned 1 file(s):" in parallel.stdout
