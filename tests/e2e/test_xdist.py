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


# What each tool's numbers are in a run report, without what depends on the process layout
# (restarts, durations): serial and -n 2 must agree on all of it.
_COUNTED = (
    "calls",
    "error_results",
    "real_results",
    "error_classes",
    "disguised_errors",
    "sandbox_calls",
    "invalid_calls",
    "coercions_accepted",
    "protocol_refusals",
    "input_coverage",
    "output",
)


def _numbers(root: Path) -> dict[str, Any]:
    report = json.loads((root / "report.json").read_text(encoding="utf-8"))
    assert report["partial"] is False
    found: dict[str, Any] = {}
    for server in report["servers"]:
        found[server["name"]] = {k: server[k] for k in ("calls", "error_results")}
        for tool in server["tools"]:
            entry = {key: tool.get(key) for key in _COUNTED}
            entry["checks"] = {name: c["outcome"] for name, c in tool["checks"].items()}
            found[f"{server['name']}::{tool['name']}"] = entry
        found[f"{server['name']}::sequences"] = (server.get("sequences") or {}).get("outcome")
    return found


def _run_both(pytester: pytest.Pytester, servers: tuple[str, ...], *args: str) -> tuple[Any, Any]:
    runs = []
    for name, extra in (("serial", ()), ("parallel", ("-n", "2"))):
        cwd = pytester.path / name
        cwd.mkdir()
        argv = [sys.executable, "-m", "pytest", "-p", "no:randomly", "-p", "no:cacheprovider"]
        argv += [f"--mcp-server={server_command(s)}" for s in servers]
        argv += ["--hypothesis-seed=5", "--mcp-report=report.json", *args, *extra]
        runs.append(subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=300))
    return runs[0], runs[1]


def test_isError_classes_coverage_and_sequences_count_the_same_under_xdist(
    pytester: pytest.Pytester,
) -> None:
    """Every behaviour that counts (isError classes, real results, input coverage, sequences,
    contracts written) reaches the controller: the -n 2 report equals the serial one. Before,
    an isError class (a StrEnum key) made every worker's results unsendable: "0 calls",
    nothing recorded, exit 0."""
    servers = ("sdk_failures.py", "notes_store.py")
    serial, parallel = _run_both(pytester, servers, "--mcp-max-examples=10")
    assert serial.returncode == parallel.returncode == 1, parallel.stdout  # sdk_failures' bugs
    assert "DumpError" not in parallel.stdout + parallel.stderr
    serial_numbers = _numbers(pytester.path / "serial")
    assert serial_numbers["sdk-failures::health"]["error_classes"] == {"unexpected-exception": 1}
    assert serial_numbers["sdk-failures::lookup"]["error_classes"]["refusal"] > 0
    assert serial_numbers["notes-store::create_note"]["real_results"] > 0
    assert serial_numbers["notes-store::create_note"]["input_coverage"]["corners"]["visited"] > 0
    assert _numbers(pytester.path / "parallel") == serial_numbers
    _assert_same_files(pytester.path / "parallel", pytester.path / "serial")


def test_a_worker_that_cannot_send_its_results_fails_the_run(pytester: pytest.Pytester) -> None:
    """A worker whose results never reach the controller (here: something unsendable in its
    workeroutput, as the isError classes once were) leaves calls, counts and contracts out.
    The run must fail and say so, never exit 0 with a partial report."""
    (pytester.path / "conftest.py").write_text(
        "import pytest\n\n"
        "@pytest.hookimpl(trylast=True)\n"
        "def pytest_sessionfinish(session):\n"
        "    if hasattr(session.config, 'workeroutput'):\n"
        "        session.config.workeroutput['unsendable'] = object()\n",
        encoding="utf-8",
    )
    result = pytester.runpytest_subprocess(
        f"--mcp-server={server_command('typed_ok.py')}",
        "-p",
        "no:randomly",
        "-n",
        "2",
        "--mcp-max-examples=5",
        "--mcp-report=report.json",
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stdout.str()
    result.stdout.fnmatch_lines(["*xdist worker*its MCP results*the run fails*"])
    report = json.loads((pytester.path / "report.json").read_text(encoding="utf-8"))
    assert report["partial"] is True
