"""pytest-xdist: the workers run the tools, the controller writes the contracts once, and a
run with -n 2 writes exactly what a serial run writes."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from .. import warm_servers
from ..conftest import server_command, summary_section, untimed_file, without_durations

pytest.importorskip("xdist")

SERVERS = ("inferred.py", "typed_ok.py")
ARGS = ("--hypothesis-seed=3", "--mcp-max-examples=20", "--mcp-report=report.json")


def _run(
    cwd: Path, *args: str, servers: tuple[str, ...] = SERVERS
) -> subprocess.CompletedProcess[str]:
    cwd.mkdir(exist_ok=True)
    argv = [*warm_servers.pytest_command(), "-p", "no:randomly", "-p", "no:cacheprovider"]
    argv += [f"--mcp-server={server_command(s)}" for s in servers]
    return subprocess.run(
        [*argv, *ARGS, *args], cwd=cwd, capture_output=True, text=True, timeout=300
    )


def _files(root: Path) -> dict[str, bytes]:
    """The snapshot files, without the timings two runs always differ in."""
    folder = root / "mcp-contracts"
    return {
        p.relative_to(folder).as_posix(): untimed_file(p.read_bytes())
        for p in folder.rglob("*.json")
    }


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


def test_a_parallel_run_writes_and_prunes_what_a_serial_run_does(
    pytester: pytest.Pytester,
) -> None:
    """One serial and one -n 2 run, each updating a folder that holds only the contract of a
    tool the server no longer has: both record the same seven files, prune the stale one and
    report the same outcomes. (Recording without the update flag is compared file for file
    in test_serial_and_parallel_runs_report_and_summarize_the_same.)"""
    for name in ("serial", "parallel"):
        stale = pytester.path / name / "mcp-contracts" / "inferred" / "removed_tool.json"
        stale.parent.mkdir(parents=True)
        stale.write_text(json.dumps({"format_version": 1, "tool": "removed_tool"}))
    serial = _run(pytester.path / "serial", "--mcp-snapshot-update")
    parallel = _run(pytester.path / "parallel", "--mcp-snapshot-update", "-n", "2")
    assert serial.returncode == 0, serial.stdout
    assert parallel.returncode == 0, parallel.stdout
    for name in ("serial", "parallel"):
        assert not (
            pytester.path / name / "mcp-contracts" / "inferred" / "removed_tool.json"
        ).exists()
    files = _files(pytester.path / "serial")
    assert len(files) == 7  # 4 inferred tools + 3 typed ones
    # Latency figures were written (their timings are left out of the comparison alone).
    assert any(b'"latency"' in text for text in files.values())
    _assert_same_files(pytester.path / "parallel", pytester.path / "serial")
    assert _checks(pytester.path / "parallel") == _checks(pytester.path / "serial")
    assert "recorded 7 file(s):" in parallel.stdout
    assert "pruned 1 file(s):" in parallel.stdout
    assert "inferred (protocol 2025-11-25): 4 tools," in parallel.stdout


def test_a_schema_with_zods_integer_bounds_reaches_the_controller(
    pytester: pytest.Pytester,
) -> None:
    """zod bounds every integer by -9007199254740991, below what execnet packs as an int:
    every worker of an -n 2 run on a TypeScript-SDK server once lost its results (the run
    failed, "ended without sending its MCP results"). Now it writes what a serial run does."""
    runs = {}
    for name, extra in (("serial", ()), ("parallel", ("-n", "2"))):
        runs[name] = _run(pytester.path / name, *extra, servers=("zod_int_bounds.py",))
        assert runs[name].returncode == 0, runs[name].stdout + runs[name].stderr
    assert "without sending" not in runs["parallel"].stdout
    assert (
        '"minimum": -9007199254740991'
        in _files(pytester.path / "serial")["zod-int-bounds/tally.json"].decode()
    )
    _assert_same_files(pytester.path / "parallel", pytester.path / "serial")
    assert _checks(pytester.path / "parallel") == _checks(pytester.path / "serial")


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
        # xdist takes a worker that cannot send its results for a crashed one and starts a
        # new one, up to 8 times (each fails the same way: 30 s of worker starts). One
        # crash per worker is the case under test.
        "--max-worker-restart=0",
        "--mcp-max-examples=5",
        "--mcp-report=report.json",
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stdout.str()
    result.stdout.fnmatch_lines(["*xdist worker*its MCP results*the run fails*"])
    report = json.loads((pytester.path / "report.json").read_text(encoding="utf-8"))
    assert report["partial"] is True


def test_serial_and_parallel_runs_report_and_summarize_the_same(
    pytester: pytest.Pytester, surface_v1: Path
) -> None:
    """One set of facts, one renderer: a clean server, one whose errors come as isError and
    in disguise, one whose tool surface drifted from its recording, one that prints a
    banner (each -n 2 worker starts its own process, which prints it again: counted once),
    one with isError classes, one whose bug only a sequence reaches, and one whose reads
    and gets crash give the same run report, minus timings, the same summary, verbose lines
    too, and the same files (the drift of prompts, resources and templates under -n 2:
    tests/e2e/test_listed_drift.py).

    Every behaviour that counts (isError classes, real results, input coverage, sequences,
    contracts written) reaches the controller. Before, an isError class (a StrEnum key)
    made every worker's results unsendable: "0 calls", nothing recorded, exit 0."""
    servers = (
        "typed_ok.py",
        "disguised.py",
        "surface.py",
        "banner.py",
        "sdk_failures.py",
        "notes_store.py",
        "surface_bugs.py",
    )
    base = [*warm_servers.pytest_command(), "-p", "no:randomly", "-p", "no:cacheprovider"]
    env = {**os.environ, "MCP_FIXTURE_VARIANT": "v2"}  # surface.py drifted from v1
    runs = {}
    for name, extra in (("serial", ()), ("parallel", ("-n", "2"))):
        cwd = pytester.path / name
        shutil.copytree(surface_v1, cwd / "mcp-contracts")
        argv = [*base, *(f"--mcp-server={server_command(s)}" for s in servers)]
        argv += ["--hypothesis-seed=5", "--mcp-max-examples=10", "--mcp-report=report.json"]
        argv += ["-v", *extra]
        runs[name] = subprocess.run(
            argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=600
        )
    serial, parallel = runs["serial"], runs["parallel"]
    assert serial.returncode == parallel.returncode == 1, serial.stdout
    assert "DumpError" not in parallel.stdout + parallel.stderr
    serial_numbers = _numbers(pytester.path / "serial")
    # health raises on purpose (a refusal, on every call), initial crashes on "".
    assert set(serial_numbers["sdk-failures::health"]["error_classes"]) == {"refusal"}
    assert serial_numbers["sdk-failures::initial"]["error_classes"]["unexpected-exception"] > 0
    assert serial_numbers["sdk-failures::lookup"]["error_classes"]["refusal"] > 0
    assert serial_numbers["notes-store::create_note"]["real_results"] > 0
    assert serial_numbers["notes-store::create_note"]["input_coverage"]["corners"]["visited"] > 0
    assert _numbers(pytester.path / "parallel") == serial_numbers
    # A failure names the snapshot file: each run has its own folder.
    reports = {
        name: json.loads(
            (pytester.path / name / "report.json")
            .read_text(encoding="utf-8")
            .replace(str(pytester.path / name), "<run>")
        )
        for name in runs
    }
    document = reports["serial"]
    by_name = {server["name"]: server for server in document["servers"]}
    assert by_name["disguised"]["checks"]["failed"] > 0
    assert any(t["disguised_errors"] for t in by_name["disguised"]["tools"])
    assert by_name["surface"]["drift"]["breaking"]
    assert by_name["banner"]["startup_stdout"]["lines"] == 2
    # Prompts, resources and templates: every worker lists them alike, each item ran once,
    # their reads and gets counted alike on the workers (the reports are compared below).
    surface_bugs = by_name["surface-bugs"]
    assert {e["checks"]["schema"]["outcome"] for e in surface_bugs["listed"]} == {"passed"}
    assert surface_bugs["listed_calls"] == sum(e["calls"] for e in surface_bugs["listed"]) > 4
    reads = {
        e["name"]: e["checks"].get("read", e["checks"].get("get")) for e in surface_bugs["listed"]
    }
    assert sorted(c["outcome"] for c in reads.values()) == ["failed"] * 4 + ["passed"] * 2
    failed = [
        check
        for server in document["servers"]
        for tool in server["tools"]
        for check in tool["checks"].values()
        if check["outcome"] == "failed"
    ]
    assert all(check["failure"]["severity"] for check in failed)
    assert without_durations(reports["parallel"]) == without_durations(document)
    _assert_same_files(pytester.path / "parallel", pytester.path / "serial")
    summary = summary_section(serial.stdout)
    assert any(line.startswith("  drift (") for line in summary), summary
    assert any("stdout before the first call" in line for line in summary), summary
    assert any(line.startswith("    inventory: declared") for line in summary), summary
    assert summary_section(parallel.stdout) == summary


def test_a_seed_draws_the_same_inputs_however_pytest_was_started(pytester: pytest.Pytester) -> None:
    """``pytest`` (the console script) and ``python -m pytest`` with one seed send the same
    calls, as an xdist worker does (the serial and -n 2 runs above start as the latter).

    hypothesis mixes the strings of every "local" module into what it draws, and the script
    that started the process is one: the console script in the environment's bin/ under a
    plain ``pytest``, none under ``python -m pytest`` or in an xdist worker (its
    ``__main__`` has no file). The same seed then drew other sequences under ``pytest``
    than under ``pytest -n 2``: 11/79/9 calls against 13/78/8 for this server's three tools."""
    script = shutil.which("pytest", path=os.path.dirname(sys.executable))
    assert script, f"no pytest console script beside {sys.executable}"
    env = {**os.environ, "MCP_FIXTURE_BUGS": "0"}
    args = [
        "-p",
        "no:randomly",
        "-p",
        "no:cacheprovider",
        f"--mcp-server={server_command('memory_hog.py')}",
        "--hypothesis-seed=1",
        "-k",
        "sequences",
        "--mcp-report=report.json",
    ]
    calls = {}
    for name, start in (("script", [script]), ("module", warm_servers.pytest_command())):
        cwd = pytester.path / name
        cwd.mkdir()
        run = subprocess.run(
            [*start, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
        )
        assert run.returncode == 0, run.stdout + run.stderr
        report = json.loads((cwd / "report.json").read_text(encoding="utf-8"))
        calls[name] = {t["name"]: t["calls"] for s in report["servers"] for t in s["tools"]}
    assert calls["script"]["append"] > 10, calls
    assert calls["module"] == calls["script"]
