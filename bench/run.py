"""Benchmark figures for pytest-mcp-contracts, each a ratio against a baseline measured in the
same run, on the same machine, in the same minutes.

    python bench/run.py                 # full run (several minutes)
    python bench/run.py --quick         # smoke run: one repetition, small sizes
    python bench/run.py --repeat 5 --json figures.json

Every measured pytest runs in a fresh project under one temporary directory (its own empty
pytest.ini makes that directory the rootdir, so snapshots, reports, caches and bytecode stay
there), with the plugin the current Python has installed. Nothing is written elsewhere,
except the --json file you name. See bench/README.md for what each figure means.

Exit status: 0 when every figure was measured (a missed target is a finding, not an error),
1 when a measurement failed (a pytest run that errored, a report that is missing, ...), 2 on
a usage error.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.metadata
import importlib.util
import json
import os
import platform
import resource
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
SERVERS = BENCH / "servers"
ENTRY_POINT = "mcp_contracts"  # [project.entry-points.pytest11] in pyproject.toml
PLUGIN_PATH_MARK = "pytest_mcp_contracts"  # how `pytest -VV` shows the plugin's module

# Variables that would change what a measured run does or where it writes.
DROPPED_ENV = (
    "CI",  # CI mode fails on missing contracts: every measured run here is a first run
    "GITHUB_STEP_SUMMARY",  # the plugin would append to that file
    "PYTEST_ADDOPTS",
    "PYTEST_PLUGINS",
    "PYTEST_XDIST_AUTO_NUM_WORKERS",
    "PYTHONDONTWRITEBYTECODE",  # bytecode is cached, under PYTHONPYCACHEPREFIX (temporary)
    "HYPOTHESIS_PROFILE",
)
RUN_TIMEOUT = 600.0  # seconds for any one measured process


class MeasurementError(Exception):
    """A measurement could not be taken: the figure has no value."""


@dataclass(frozen=True)
class Sizes:
    """How much work each figure does; --quick shrinks it."""

    repeat: int
    collect_tests: int = 200
    collect_pairs: int = 0  # enabled/disabled pairs for figure 1 (0: 4 x repeat)
    call_counts: tuple[int, int] = (50, 250)
    draws: int = 100
    scale_tools: int = 40
    scale_examples: int = 50  # the default --mcp-max-examples: a run as users run it
    scale_call_ms: float = 3.0  # each call's work on the server (BENCH_CALL_MS)
    scale_workers: tuple[int, ...] = (2, 1)
    memory_bytes: int = 10_000_000
    memory_small_bytes: int = 100
    memory_examples: int = 10
    in_flight_windows: tuple[int, ...] = (2, 8, 16)  # beside 1 and the default
    slow_budget: float = 0.0  # seconds; 0: the default --mcp-tool-time


def sizes_for(quick: bool, repeat: int | None) -> Sizes:
    if quick:
        return Sizes(
            repeat=repeat or 1,
            collect_pairs=3,
            call_counts=(20, 200),
            scale_examples=3,
            memory_examples=3,
            in_flight_windows=(),
            slow_budget=20.0,
        )
    return Sizes(repeat=repeat or 3)


@dataclass
class Figure:
    """One row of the table: measured against baseline, with its target if it has one."""

    key: str
    name: str
    unit: str
    measured: float | None = None
    baseline: float | None = None
    target: str = "-"
    met: bool | None = None
    error: str | None = None
    note: str | None = None  # printed under the table
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def ratio(self) -> float | None:
        if self.measured is None or self.baseline is None or self.baseline <= 0:
            return None
        if self.measured < 0:
            return None
        return self.measured / self.baseline

    def as_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "name": self.name,
            "unit": self.unit,
            "measured": self.measured,
            "baseline": self.baseline,
            "ratio": self.ratio,
            "target": self.target,
            "met": self.met,
            "error": self.error,
            "note": self.note,
            "details": self.details,
        }


@dataclass
class Run:
    """One finished process: its wall time and output."""

    argv: list[str]
    seconds: float
    cpu_seconds: float  # user + system, of the process and every descendant it reaped
    returncode: int
    stdout: str
    stderr: str

    def tail(self, lines: int = 25) -> str:
        text = (self.stdout.rstrip() + "\n" + self.stderr.rstrip()).strip()
        return "\n".join("    " + line for line in text.splitlines()[-lines:])


def median(values: Sequence[float]) -> float:
    return float(statistics.median(values))


def progress(message: str) -> None:
    print(f"[bench] {message}", file=sys.stderr, flush=True)


class Bench:
    """Runs processes in fresh projects under one temporary directory."""

    def __init__(self, root: Path, sizes: Sizes) -> None:
        self.root = root
        self.sizes = sizes
        self.projects = 0
        self.env = {k: v for k, v in os.environ.items() if k not in DROPPED_ENV}
        self.env["PYTHONPYCACHEPREFIX"] = str(root / "pycache")
        # One hypothesis storage for all runs, as on a developer's machine: its Unicode table
        # (about 1-2 s to build) is built by the first warm-up, not by every measured run.
        # The plugin sets database=None, so no examples are shared between runs.
        self.env["HYPOTHESIS_STORAGE_DIRECTORY"] = str(root / "hypothesis")

    def project(self, label: str, conftest: str | None = None) -> Path:
        """A new, empty pytest project (rootdir) for one run."""
        self.projects += 1
        path = self.root / "projects" / f"{self.projects:03d}-{label}"
        path.mkdir(parents=True)
        (path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
        if conftest is not None:
            (path / "conftest.py").write_text(conftest, encoding="utf-8")
        return path

    def run(
        self,
        argv: list[str],
        cwd: Path,
        *,
        expect: Sequence[int] = (0,),
        env: dict[str, str] | None = None,
    ) -> Run:
        """Run argv in cwd and time it; a run that ends otherwise than expected is an error."""
        environment = {**self.env, **(env or {})}
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        try:
            done = subprocess.run(
                argv,
                cwd=cwd,
                env=environment,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=RUN_TIMEOUT,
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise MeasurementError(
                f"timed out after {RUN_TIMEOUT:.0f} s: {shlex.join(argv)} (in {cwd})"
            ) from None
        seconds = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime - usage.ru_utime + after.ru_stime - usage.ru_stime
        run = Run(argv, seconds, cpu, done.returncode, done.stdout, done.stderr)
        if done.returncode not in expect:
            raise MeasurementError(
                f"exit status {done.returncode} (expected {', '.join(map(str, expect))}) from\n"
                f"    {shlex.join(argv)}\n  in {cwd}; last lines of its output:\n{run.tail()}"
            )
        return run

    def pytest(self, args: Sequence[str], cwd: Path, **kwargs: Any) -> Run:
        return self.run([sys.executable, "-m", "pytest", *args], cwd, **kwargs)

    def reported(self, args: Sequence[str], cwd: Path, **kwargs: Any) -> tuple[Run, Any]:
        """A quiet run of the plugin without pytest-randomly, and its run report's server
        (checked by ``read_report``)."""
        run = self.pytest([*args, *REPORTED], cwd, **kwargs)
        return run, read_report(cwd / "report.json", run)["servers"][0]


# The slowest CPU's time for cpu_speeds()'s loop over the fastest's beyond which the figures'
# footer warns: the same loop on the same CPU varies by about a tenth.
UNEVEN_CPUS = 1.2

# The -n 2 speed-up over a serial run that figure 4 aims at, on 2 cores (issue 48).
SCALE_SPEEDUP = 1.8

# What every measured run of the plugin adds to its arguments (Bench.reported).
REPORTED = ("--mcp-report=report.json", "-p", "no:randomly", "-q")


def server_command(script: str, *args: str) -> str:
    return shlex.join([sys.executable, str(SERVERS / script), *args])


def read_report(path: Path, run: Run) -> dict[str, Any]:
    """The plugin's JSON run report of a run, checked to describe one started server."""
    try:
        document: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        server = document["servers"][0]
    except (OSError, ValueError, KeyError, IndexError) as exc:
        raise MeasurementError(
            f"no usable run report at {path} ({exc!r}) after\n    {shlex.join(run.argv)}\n"
            f"{run.tail()}"
        ) from None
    if not server.get("started"):
        raise MeasurementError(f"the server did not start: {server.get('error')}\n{run.tail()}")
    if document.get("partial"):
        raise MeasurementError(f"the run report is partial (a worker was lost)\n{run.tail()}")
    return document


# -- 1. plugin load when unused --------------------------------------------------------


def write_plain_tests(path: Path, count: int) -> None:
    per_file = 10
    for start in range(0, count, per_file):
        body = "".join(
            f"\n\ndef test_plain_{n:04d}():\n    assert {n} + 1 == {n + 1}\n"
            for n in range(start, min(start + per_file, count))
        )
        (path / f"test_plain_{start // per_file:03d}.py").write_text(
            f'"""Plain tests, generated."""{body}', encoding="utf-8"
        )


def plugin_listed(run: Run) -> bool:
    return PLUGIN_PATH_MARK in run.stdout + run.stderr


def measure_load(bench: Bench) -> list[Figure]:
    sizes = bench.sizes
    project = bench.project("plain-tests")
    write_plain_tests(project, sizes.collect_tests)
    enabled: list[str] = ["--collect-only", "-q"]
    disabled = [*enabled, "-p", f"no:{ENTRY_POINT}"]
    # The toggle must really toggle: pytest -VV lists the registered third-party plugins.
    if not plugin_listed(bench.pytest(["-VV"], project)):
        raise MeasurementError(
            f"pytest does not load the plugin ({ENTRY_POINT}): is this checkout installed "
            f"in {sys.executable}? (pip install -e .)"
        )
    if plugin_listed(bench.pytest(["-VV", "-p", f"no:{ENTRY_POINT}"], project)):
        raise MeasurementError(f"-p no:{ENTRY_POINT} did not disable the plugin")
    expected = f"{sizes.collect_tests} tests collected"
    for argv in (enabled, disabled):  # warm-up: bytecode and rewritten-assert caches
        run = bench.pytest(argv, project)
        if expected not in run.stdout:
            raise MeasurementError(f"expected '{expected}' from pytest:\n{run.tail()}")
    pairs = sizes.collect_pairs or 4 * sizes.repeat
    on: list[Run] = []
    off: list[Run] = []
    for index in range(pairs):  # interleaved, alternating order: drift hits both sides
        order = [(enabled, on), (disabled, off)]
        for argv, runs in order if index % 2 == 0 else reversed(order):
            runs.append(bench.pytest(argv, project))
    # Each pair ran back to back: the median of the paired differences is what the plugin
    # adds, and it shrugs off a burst of load that would shift one side's median.
    back_to_back = list(zip(on, off, strict=True))
    wall_off = median([r.seconds * 1000 for r in off])
    added = median([(a.seconds - b.seconds) * 1000 for a, b in back_to_back])
    wall_on = wall_off + added
    cpu_off = median([r.cpu_seconds * 1000 for r in off])
    cpu_on = cpu_off + median([(a.cpu_seconds - b.cpu_seconds) * 1000 for a, b in back_to_back])
    figure = Figure(
        "load",
        f"load: --collect-only {sizes.collect_tests} tests, plugin on vs off",
        "ms",
        measured=wall_on,
        baseline=wall_off,
        target="< 3% and < 30 ms added",
        met=added < 30 and wall_on < 1.03 * wall_off,
        details={
            "added_ms": added,
            "runs_per_side": pairs,
            "enabled_wall_ms": [r.seconds * 1000 for r in on],
            "disabled_wall_ms": [r.seconds * 1000 for r in off],
            "command": f"pytest --collect-only -q [-p no:{ENTRY_POINT}]",
        },
    )
    added_row = Figure(
        "load_added",
        "  added by the plugin (on - off)",
        "ms",
        measured=added,
        target="< 30 ms",
        met=added < 30,
    )
    cpu_row = Figure(
        "load_cpu",
        "  CPU time (user+sys), on vs off",
        "ms",
        measured=cpu_on,
        baseline=cpu_off,
        details={"added_ms": cpu_on - cpu_off},
    )
    return [figure, added_row, cpu_row]


# -- 2. per-call cost ------------------------------------------------------------------


@dataclass(frozen=True)
class CallSample:
    """One process that made `calls` tool calls, `in_loop` seconds of them by its own clock."""

    wall: float
    cpu: float
    calls: int
    in_loop: float


def plugin_contract_run(
    bench: Bench, calls: int, *, in_process: bool = False, extra: Sequence[str] = ()
) -> CallSample:
    """One plugin run of `echo`'s contract check; real calls and duration from the report.
    ``in_process`` runs the same server object with --mcp-app instead of over stdio; ``extra``
    options are added to the command line."""
    label = "".join(arg.strip("-").replace("=", "-") for arg in extra)
    project = bench.project(f"echo-{'app-' if in_process else ''}{label}{calls}")
    target = (
        f"--mcp-app={SERVERS / 'echo.py'}:app"
        if in_process
        else f"--mcp-server={server_command('echo.py')}"
    )
    args = [
        target,
        f"--mcp-max-examples={calls}",
        "-k",
        "contract",
        *extra,
    ]
    run, server = bench.reported(args, project)
    contract = server["tools"][0]["checks"]["contract"]
    if contract.get("outcome") != "passed":
        raise MeasurementError(f"echo's contract check did not pass: {contract}\n{run.tail()}")
    duration = float(contract.get("duration", 0.0))
    return CallSample(run.seconds, run.cpu_seconds, int(server["calls"]), duration)


def raw_loop_run(bench: Bench, calls: int) -> CallSample:
    argv = [
        sys.executable,
        str(BENCH / "raw_client.py"),
        "--server",
        str(SERVERS / "echo.py"),
        "--calls",
        str(calls),
    ]
    run = bench.run(argv, bench.project(f"raw-{calls}"))
    try:
        facts: dict[str, Any] = json.loads(run.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        raise MeasurementError(f"raw_client.py printed no figures:\n{run.tail()}") from None
    return CallSample(run.seconds, run.cpu_seconds, int(facts["calls"]), facts["loop_seconds"])


def slope(samples: dict[int, list[CallSample]], what: Callable[[CallSample], float]) -> float:
    """Milliseconds per call between the two call counts: the median of the slopes of each
    repetition, whose two runs were made back to back (so a burst of load on the machine
    spoils one repetition, not the figure)."""
    low, high = sorted(samples)
    slopes = []
    for small, large in zip(samples[low], samples[high], strict=True):
        if large.calls <= small.calls:
            raise MeasurementError(f"the call count did not grow: {small.calls} -> {large.calls}")
        slopes.append((what(large) - what(small)) / (large.calls - small.calls) * 1000)
    return median(slopes)


def slope_figure(key: str, name: str, plugin: float, raw: float, target: bool) -> Figure:
    """A per-call figure; a slope that is not positive is noise, and says so."""
    figure = Figure(key, name, "ms/call", measured=plugin, baseline=raw)
    if target:
        figure.target = "<= 1.0x"
    if plugin <= 0 or raw <= 0:
        figure.note = (
            f"{name.strip()}: a slope that is not positive means the run-to-run noise "
            "(process start on a busy machine) is larger than the calls' cost; rerun with "
            "--repeat 5 or on a quieter machine"
        )
    elif target:
        figure.met = plugin <= raw
    return figure


def measure_calls(bench: Bench) -> list[Figure]:
    low, high = bench.sizes.call_counts
    plugin: dict[int, list[CallSample]] = {low: [], high: []}
    app: dict[int, list[CallSample]] = {low: [], high: []}
    raw: dict[int, list[CallSample]] = {low: [], high: []}
    plugin_contract_run(bench, low)  # warm-up, every side
    plugin_contract_run(bench, low, in_process=True)
    raw_loop_run(bench, low)
    for index in range(bench.sizes.repeat):
        for count in (low, high) if index % 2 == 0 else (high, low):
            plugin[count].append(plugin_contract_run(bench, count))
            app[count].append(plugin_contract_run(bench, count, in_process=True))
            raw[count].append(raw_loop_run(bench, count))
    per_call = slope_figure(
        "per_call",
        f"per call: slope {low}->{high} calls, plugin vs SDK loop",
        slope(plugin, lambda s: s.wall),
        slope(raw, lambda s: s.wall),
        target=True,
    )
    per_call.details = {
        "call_counts": [low, high],
        "plugin_calls_from_report": {str(c): [s.calls for s in plugin[c]] for c in (low, high)},
        "plugin": {str(c): [vars(s) for s in plugin[c]] for c in (low, high)},
        "raw": {str(c): [vars(s) for s in raw[c]] for c in (low, high)},
    }
    in_loop = slope_figure(
        "per_call_in_loop",
        "  in-loop slope (no process start)",
        slope(plugin, lambda s: s.in_loop),
        slope(raw, lambda s: s.in_loop),
        target=True,
    )
    in_loop.details = {
        "note": "plugin: the contract check's duration from the run report; raw: the loop's "
        "own clock; the slope between the two call counts removes hypothesis's and the "
        "strategy's fixed start-up from the plugin side"
    }
    cpu = slope_figure(
        "per_call_cpu",
        "  CPU slope (client + server processes)",
        slope(plugin, lambda s: s.cpu),
        slope(raw, lambda s: s.cpu),
        target=False,
    )
    total = Figure(
        "calls_total",
        f"  whole process, at {high} calls",
        "s",
        measured=median([s.wall for s in plugin[high]]),
        baseline=median([s.wall for s in raw[high]]),
    )
    in_process = slope_figure(
        "per_call_in_process",
        "  --mcp-app (in-process) vs --mcp-server, plugin slope",
        slope(app, lambda s: s.wall),
        slope(plugin, lambda s: s.wall),
        target=False,
    )
    app_total = Figure(
        "calls_total_in_process",
        f"  whole process at {high} calls, --mcp-app vs --mcp-server",
        "s",
        measured=median([s.wall for s in app[high]]),
        baseline=median([s.wall for s in plugin[high]]),
    )
    return [per_call, in_loop, cpu, total, in_process, app_total]


# -- 3. generation ---------------------------------------------------------------------


def generation_run(
    bench: Bench, schema: str, generator: str, draws: int, *, coverage: bool = False
) -> dict[str, Any]:
    argv = [
        sys.executable,
        str(BENCH / "generation.py"),
        "--schema",
        schema,
        "--generator",
        generator,
        "--draws",
        str(draws),
        *(["--coverage"] if coverage else []),
    ]
    run = bench.run(argv, bench.project(f"gen-{schema}-{generator}"))
    try:
        facts: dict[str, Any] = json.loads(run.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        raise MeasurementError(f"generation.py printed no figures:\n{run.tail()}") from None
    if facts["draws"] < draws:
        raise MeasurementError(
            f"{generator} drew only {facts['draws']} of {draws} examples from the {schema} "
            "schema (hypothesis stopped early)"
        )
    return facts


def measure_generation(bench: Bench) -> list[Figure]:
    draws = bench.sizes.draws
    figures: list[Figure] = []
    for schema, label in (
        ("flat", "flat 5-property"),
        ("nested", "nested order"),
    ):
        for generator in ("plugin", "stock"):  # warm-up: imports and bytecode
            generation_run(bench, schema, generator, 5)
        samples: dict[str, list[dict[str, Any]]] = {"plugin": [], "stock": []}
        for index in range(bench.sizes.repeat):
            order = ("plugin", "stock") if index % 2 == 0 else ("stock", "plugin")
            for generator in order:
                samples[generator].append(generation_run(bench, schema, generator, draws))
        figure = Figure(
            f"generation_{schema}",
            f"generate {draws}, {label}: plugin vs stock",
            "s",
            measured=median([s["total_seconds"] for s in samples["plugin"]]),
            baseline=median([s["total_seconds"] for s in samples["stock"]]),
        )
        if schema == "nested":
            figure.target = "< 1.5 s"
            figure.met = figure.measured is not None and figure.measured < 1.5
        figure.details = {
            side: {
                "build_s": [s["build_seconds"] for s in runs],
                "draw_s": [s["draw_seconds"] for s in runs],
                "valid_of_drawn": [f"{s['valid']}/{s['draws']}" for s in runs],
            }
            for side, runs in samples.items()
        }
        figures.append(figure)
    return figures


# -- 4. scale --------------------------------------------------------------------------

# What two runs of the same checks need not agree on in their run reports: timings, and the
# files a run wrote (each run is a project of its own, its paths its own).
REPORT_TIMINGS = frozenset({"duration", "phase_seconds", "latency_ms", "latencies_ms"})


def without_timings(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: without_timings(v) for k, v in value.items() if k not in REPORT_TIMINGS}
    if isinstance(value, list):
        return [without_timings(v) for v in value]
    return value


def scale_args(extra: Sequence[str] = ()) -> list[str]:
    """The arguments of a run over the many-tools server, ``extra`` last."""
    return [
        f"--mcp-server={server_command('many_tools.py')}",
        "--hypothesis-seed=1",  # the same inputs serial and under -n: the same reports
        # The figures are about the per-tool items; the sequences item (on by default since
        # issue 22) would add a restart and its own calls to every run compared.
        "--mcp-sequences=off",
        *extra,
    ]


def scale_env(sizes: Sizes) -> dict[str, str]:
    return {"BENCH_TOOLS": str(sizes.scale_tools), "BENCH_CALL_MS": str(sizes.scale_call_ms)}


def fixed_cost(bench: Bench, label: str, extra: list[str]) -> float:
    """Seconds of a run that starts every process and server and lists it, and runs no
    check (``-k`` selects none): what a run costs before and after its items."""
    project = bench.project(f"scale-fixed-{label}")
    args = scale_args([*extra, "-k", "no-such-item", "-p", "no:randomly", "-q"])
    no_tests_ran = 5  # pytest's exit status when every item was deselected
    return bench.pytest(args, project, env=scale_env(bench.sizes), expect=(no_tests_ran,)).seconds


def scale_run(bench: Bench, label: str, extra: list[str]) -> tuple[Run, int, Any]:
    """One full run over the many-tools server: (the run, tool calls valid and invalid, its
    run report's server without timings)."""
    sizes = bench.sizes
    project = bench.project(f"scale-{label}")
    args = scale_args([f"--mcp-max-examples={sizes.scale_examples}", *extra])
    run, server = bench.reported(args, project, env=scale_env(sizes))
    if server.get("tools_listed") != sizes.scale_tools or server["checks"].get("failed"):
        raise MeasurementError(
            f"scale run ({label}) listed {server.get('tools_listed')} tools, "
            f"checks {server.get('checks')}\n{run.tail()}"
        )
    invalid = sum(int(t.get("invalid_calls", 0)) for t in server.get("tools", []))
    return run, int(server.get("calls", 0)) + invalid, without_timings(server)


def bare_loops(bench: Bench, calls: int, loops: int) -> float:
    """Seconds for ``calls`` calls to the many-tools server by ``loops`` bare loops side by
    side (bare_loop.py, a process and a server each, ``calls // loops`` calls apiece), from
    the first call to the last answer."""
    sizes = bench.sizes
    env = {**bench.env, **scale_env(sizes)}
    at = time.time() + 3.0  # every server started and handshaken by then
    argv = [sys.executable, str(BENCH / "bare_loop.py"), f"--calls={calls // loops}", f"--at={at}"]
    processes = [
        subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True)
        for _ in range(loops)
    ]
    spans = []
    for process in processes:
        out, _ = process.communicate(timeout=RUN_TIMEOUT)
        if process.returncode != 0:
            raise MeasurementError(f"bare_loop.py exited with {process.returncode}:\n{out}")
        spans.append(json.loads(out))
    if min(span["start"] for span in spans) < at:
        raise MeasurementError("a bare loop's server took more than 3 s to start")
    return float(max(span["end"] for span in spans) - min(span["start"] for span in spans))


def measure_scale(bench: Bench) -> list[Figure]:
    sizes = bench.sizes
    name = (
        f"scale: {sizes.scale_tools} tools of {sizes.scale_call_ms:g} ms a call x "
        f"{sizes.scale_examples} examples, -n 2 vs serial"
    )
    if importlib.util.find_spec("xdist") is None:
        return [Figure("scale", name, "s", error="skipped: pytest-xdist is not installed")]
    configs: list[tuple[str, list[str]]] = [("serial", [])]
    configs += [(f"n{n}", ["-p", "xdist", "-n", str(n)]) for n in sizes.scale_workers]
    scale_run(bench, "warm-up", [])
    runs: dict[str, list[tuple[Run, int, Any]]] = {label: [] for label, _ in configs}
    for index in range(sizes.repeat):
        for label, extra in configs if index % 2 == 0 else list(reversed(configs)):
            runs[label].append(scale_run(bench, label, extra))
    # Identical verdicts and reports, serial or not (minus timings), or no figure at all.
    serial_report = runs["serial"][0][2]
    for label, done in runs.items():
        for _, _, report in done:
            if report != serial_report:
                raise MeasurementError(
                    f"the {label} run's report differs from the serial run's (timings aside)"
                )
    wall = {label: median([r.seconds for r, _, _ in done]) for label, done in runs.items()}
    serial = wall["serial"]
    # The ceiling: the serial run's number of calls by one bare loop, against two side by side.
    calls = runs["serial"][0][1]
    bare: dict[int, list[float]] = {1: [], 2: []}
    for index in range(sizes.repeat):
        for loops in (1, 2) if index % 2 == 0 else (2, 1):
            bare[loops].append(bare_loops(bench, calls, loops))
    ceiling = median(bare[1]) / median(bare[2])
    pair = [(label, extra) for label, extra in configs if label in ("serial", "n2")]
    fixed: dict[str, list[float]] = {label: [] for label, _ in pair}
    for index in range(sizes.repeat):
        for label, extra in pair if index % 2 == 0 else list(reversed(pair)):
            fixed[label].append(fixed_cost(bench, label, extra))
    fixed_serial, fixed_n2 = median(fixed["serial"]), median(fixed["n2"])
    # The most -n 2 could reach: the serial run's items divided by the ceiling, its fixed
    # costs paid as -n 2 pays them.
    items = serial - fixed_serial
    reachable = serial / (fixed_n2 + items / ceiling)
    figures: list[Figure] = []
    for label, _ in configs:
        if label == "serial":
            continue
        workers = int(label[1:])
        speedup = serial / wall[label]
        target = "-"
        met = None
        if workers == 2:
            target, met = f">= {SCALE_SPEEDUP:g}x speed-up", speedup >= SCALE_SPEEDUP
        title = name if workers == 2 else f"  -n {workers} vs serial"
        figures.append(
            Figure(
                f"scale_{label}",
                f"{title} (speed-up {speedup:.2f}x)",
                "s",
                measured=wall[label],
                baseline=serial,
                target=target,
                met=met,
                details={
                    "wall_s": [r.seconds for r, _, _ in runs[label]],
                    "cpu_s": [r.cpu_seconds for r, _, _ in runs[label]],
                    "baseline_wall_s": [r.seconds for r, _, _ in runs["serial"]],
                    "baseline_cpu_s": [r.cpu_seconds for r, _, _ in runs["serial"]],
                    "calls": [calls for _, calls, _ in runs[label]],
                },
            )
        )
    figures.insert(
        1,
        Figure(
            "scale_fixed",
            f"  fixed costs: no item run (-k), -n 2 vs serial; with the ceiling, -n 2 could "
            f"reach {reachable:.2f}x",
            "s",
            measured=fixed_n2,
            baseline=fixed_serial,
            details={"serial_s": fixed["serial"], "n2_s": fixed["n2"], "reachable": reachable},
        ),
    )
    figures.insert(
        1,
        Figure(
            "scale_bare",
            f"  the ceiling: {calls} calls by two bare loops side by side vs one "
            f"(speed-up {ceiling:.2f}x)",
            "s",
            measured=median(bare[2]),
            baseline=median(bare[1]),
            details={"loop_s": bare[1], "two_loops_s": bare[2], "calls": calls},
        ),
    )
    return figures


# -- 5. memory -------------------------------------------------------------------------

RSS_CONFTEST = '''"""Writes this pytest process's peak RSS (bytes) at the end of the session."""

import os
import resource
import sys


def pytest_unconfigure(config):
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    scale = 1 if sys.platform == "darwin" else 1024  # bytes on macOS, KiB on Linux
    with open(os.environ["BENCH_RSS_FILE"], "w", encoding="utf-8") as handle:
        handle.write(str(peak * scale))
'''


def memory_run(bench: Bench, result_bytes: int) -> tuple[int, int]:
    """(peak RSS of the pytest process in bytes, tool calls made)."""
    project = bench.project(f"memory-{result_bytes}", conftest=RSS_CONFTEST)
    rss_file = project / "peak_rss"
    args = [
        f"--mcp-server={server_command('big_results.py', str(result_bytes))}",
        f"--mcp-max-examples={bench.sizes.memory_examples}",
        "--mcp-sequences=off",  # as in scale_run
    ]
    run, server = bench.reported(args, project, env={"BENCH_RSS_FILE": str(rss_file)})
    if server["checks"].get("failed"):
        raise MeasurementError(f"memory run: checks failed {server['checks']}\n{run.tail()}")
    try:
        peak = int(rss_file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        raise MeasurementError(f"the conftest wrote no peak RSS\n{run.tail()}") from None
    return peak, int(server.get("calls", 0))


def measure_memory(bench: Bench) -> list[Figure]:
    sizes = bench.sizes
    big: list[int] = []
    small: list[int] = []
    calls: list[int] = []
    for _ in range(sizes.repeat):
        peak, count = memory_run(bench, sizes.memory_bytes)
        big.append(peak)
        calls.append(count)
        small.append(memory_run(bench, sizes.memory_small_bytes)[0])
    mb = 1_000_000
    return [
        Figure(
            "memory",
            f"memory: peak RSS, {sizes.memory_bytes / mb:g} MB vs "
            f"{sizes.memory_small_bytes} B results",
            "MB",
            measured=median(big) / mb,
            baseline=median(small) / mb,
            details={
                "peak_rss_bytes_big": big,
                "peak_rss_bytes_small": small,
                "added_mb_per_result_mb": (median(big) - median(small)) / sizes.memory_bytes,
                "calls_with_big_results": calls,
            },
        )
    ]


# -- table and main --------------------------------------------------------------------

# -- 6. the coverage phase -------------------------------------------------------------


def measure_coverage(bench: Bench) -> list[Figure]:
    """What the coverage phase costs per tool: deriving its inputs (beside building the
    strategy, in the same fresh process) and the contract check's time per call, on vs off."""
    figures: list[Figure] = []
    for schema, label in (("flat", "flat 5-property"), ("nested", "nested order")):
        generation_run(bench, schema, "plugin", 5, coverage=True)  # warm-up: bytecode, caches
        runs = [
            generation_run(bench, schema, "plugin", 5, coverage=True)
            for _ in range(bench.sizes.repeat)
        ]
        build = median([r["build_seconds"] for r in runs])
        figure = Figure(
            f"coverage_build_{schema}",
            f"coverage: strategy + plan vs strategy, {label}",
            "ms",
            measured=1000 * median([r["build_seconds"] + r["plan_seconds"] for r in runs]),
            baseline=1000 * build,
        )
        figure.details = {
            "plan_ms": [1000 * r["plan_seconds"] for r in runs],
            "build_ms": [1000 * r["build_seconds"] for r in runs],
            "plan_inputs": runs[0]["plan_inputs"],
        }
        figures.append(figure)
    calls = bench.sizes.call_counts[0]
    plugin_contract_run(bench, calls)  # warm-up
    samples: dict[str, list[CallSample]] = {"on": [], "off": []}
    for index in range(bench.sizes.repeat):
        for side in ("on", "off") if index % 2 == 0 else ("off", "on"):
            extra = [] if side == "on" else ["--mcp-coverage=off"]
            samples[side].append(plugin_contract_run(bench, calls, extra=extra))
    per_call = Figure(
        "coverage_per_call",
        f"coverage: contract check per call, on vs off ({calls} calls)",
        "ms/call",
        measured=median([1000 * s.in_loop / s.calls for s in samples["on"]]),
        baseline=median([1000 * s.in_loop / s.calls for s in samples["off"]]),
    )
    per_call.details = {side: [vars(s) for s in runs] for side, runs in samples.items()}
    return [*figures, per_call]


LOOKUPS = ("get", "rename")  # the store's tools that need an id a create made


def sequences_run(bench: Bench, extra: Sequence[str]) -> tuple[Run, dict[str, Any]]:
    """One whole run of the `store` server with defaults (plus ``extra``)."""
    label = "".join(arg.strip("-").replace("=", "-") for arg in extra) or "default"
    project = bench.project(f"store-{label}")
    args = [
        f"--mcp-server={server_command('store.py')}",
        "--hypothesis-seed=1",
        *extra,
    ]
    return bench.reported(args, project)


def measure_sequences(bench: Bench) -> list[Figure]:
    """What the sequences check, on by default, costs on a fast server whose lookups need ids
    only a create makes: a whole run with defaults vs the same run with --mcp-sequences=off,
    and the real results (calls without isError) it gains for those lookups."""
    sequences_run(bench, [])  # warm-up: bytecode, hypothesis caches
    runs: dict[str, list[tuple[Run, dict[str, Any]]]] = {"on": [], "off": []}
    for index in range(bench.sizes.repeat):
        for side in ("on", "off") if index % 2 == 0 else ("off", "on"):
            runs[side].append(sequences_run(bench, [] if side == "on" else ["--mcp-sequences=off"]))

    def real(server: dict[str, Any]) -> int:
        return sum(t.get("real_results", 0) for t in server["tools"] if t["name"] in LOOKUPS)

    whole = Figure(
        "sequences_whole_run",
        "sequences: whole run, defaults vs --mcp-sequences=off",
        "s",
        measured=median([run.seconds for run, _ in runs["on"]]),
        baseline=median([run.seconds for run, _ in runs["off"]]),
    )
    gained = Figure(
        "sequences_real_results",
        "  real results of get + rename, defaults vs off",
        "calls",
        measured=median([real(server) for _, server in runs["on"]]),
        baseline=median([real(server) for _, server in runs["off"]]),
    )
    whole.details = {
        side: [{"seconds": r.seconds, "calls": s["calls"]} for r, s in found]
        for side, found in runs.items()
    }
    return [whole, gained]


# -- 8. start-up: a whole run on a small server ----------------------------------------


def small_run(
    bench: Bench, project: Path | None = None, env: dict[str, str] | None = None
) -> tuple[Run, int, Path]:
    """One run of the plugin, with its defaults, over the small SDK-free server: (the run,
    its tool calls from the run report, sequences' included, and its project). In a new
    project unless ``project`` is given (a run again, with the snapshots and caches of the
    runs before)."""
    project = project or bench.project("small")
    args = [
        f"--mcp-server={server_command('small.py')}",
    ]
    run, server = bench.reported(args, project, env=env)
    if server["checks"].get("failed") or server["checks"].get("error"):
        raise MeasurementError(f"the small server's run failed: {server['checks']}\n{run.tail()}")
    return run, int(server.get("calls", 0)), project


def bare_collect_run(bench: Bench, label: str = "bare") -> Run:
    """`pytest --collect-only` in an empty project: what any pytest run costs on this
    machine with what is installed here (the plugin loaded, but given no --mcp-* option)."""
    args = ["--collect-only", "-q", "-p", "no:randomly"]
    return bench.pytest(args, bench.project(label), expect=(5,))


@dataclass(frozen=True)
class LoopRun:
    """The SDK client loop's own clock: start and handshake, the calls, the close."""

    calls: int
    connect: float
    loop: float
    close: float

    @property
    def session(self) -> float:
        return self.connect + self.loop + self.close


def sdk_loop_run(bench: Bench, server: str, calls: int) -> LoopRun:
    argv = [sys.executable, str(BENCH / "raw_client.py"), "--server", str(SERVERS / server)]
    run = bench.run([*argv, "--calls", str(calls)], bench.project(f"raw-{calls}"))
    try:
        facts: dict[str, Any] = json.loads(run.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        raise MeasurementError(f"raw_client.py printed no figures:\n{run.tail()}") from None
    return LoopRun(
        int(facts["calls"]),
        facts["connect_seconds"],
        facts["loop_seconds"],
        facts["close_seconds"],
    )


def measure_startup(bench: Bench) -> list[Figure]:
    """The whole run a user waits for on a small server, against what no tester can avoid:
    pytest itself (a bare --collect-only) and the same number of calls made by the SDK's
    own client (its session by its own clock: server start, handshake, calls, close; not its
    interpreter start or its imports)."""
    small_run(bench)  # warm-up: bytecode, assertion rewriting, hypothesis's caches
    bare_collect_run(bench)
    plugin: list[tuple[Run, int, Path]] = []
    again: list[Run] = []
    checkout: list[Run] = []
    bare: list[Run] = []
    loops: list[LoopRun] = []
    collect: list[Run] = []
    for index in range(bench.sizes.repeat):
        sides = ["plugin", "bare", "collect"]
        for side in sides if index % 2 == 0 else reversed(sides):
            if side == "plugin":
                plugin.append(small_run(bench))
                again.append(small_run(bench, plugin[-1][2])[0])
                checkout.append(small_run(bench, env=new_checkout(bench))[0])
            elif side == "bare":
                bare.append(bare_collect_run(bench))
            else:
                collect.append(small_run_collect(bench))
        # As many calls as the plugin's run just made, on the same server's `echo`.
        loops.append(sdk_loop_run(bench, "small.py", plugin[-1][1]))
    whole = median([run.seconds for run, _, _ in plugin])
    baseline = median([run.seconds for run in bare]) + median([loop.session for loop in loops])
    figure = Figure(
        "startup_whole_run",
        "whole run, small server: plugin vs collect-only + SDK calls",
        "s",
        measured=whole,
        baseline=baseline,
        target="<= 1.5x",
        met=whole <= 1.5 * baseline,
        details={
            "plugin_wall_s": [run.seconds for run, _, _ in plugin],
            "plugin_cpu_s": [run.cpu_seconds for run, _, _ in plugin],
            "plugin_calls": [calls for _, calls, _ in plugin],
            "again_wall_s": [run.seconds for run in again],
            "bare_collect_wall_s": [run.seconds for run in bare],
            "bare_collect_cpu_s": [run.cpu_seconds for run in bare],
            "sdk_session_s": [loop.session for loop in loops],
            "sdk_connect_s": [loop.connect for loop in loops],
            "sdk_loop_s": [loop.loop for loop in loops],
        },
    )
    absolute = Figure(
        "startup_absolute",
        f"  the same run, absolute ({median([c for _, c, _ in plugin]):.0f} calls)",
        "s",
        measured=whole,
        target="<= 1.0 s",
        met=whole <= 1.0,
    )

    def against_first(key: str, label: str, runs: list[Run]) -> Figure:
        seconds = [run.seconds for run in runs]
        details = {"wall_s": seconds}
        return Figure(key, f"  {label} vs first run", "s", median(seconds), whole, details=details)

    rerun = against_first("startup_again", "run again in its project (snapshots, caches)", again)
    first = against_first(
        "startup_new_checkout", "first run in a new checkout (no .hypothesis/)", checkout
    )
    parts = Figure(
        "startup_parts",
        "  of which: bare collect-only | SDK session",
        "s",
        measured=median([run.seconds for run in bare]),
        baseline=median([loop.session for loop in loops]),
    )
    collection = Figure(
        "startup_collect",
        "  --collect-only with --mcp-server vs bare --collect-only",
        "s",
        measured=median([run.seconds for run in collect]),
        baseline=median([run.seconds for run in bare]),
        details={"collect_wall_s": [run.seconds for run in collect]},
    )
    cpu = Figure(
        "startup_cpu",
        "  CPU (user+sys, with the server) vs bare collect-only",
        "s",
        measured=median([run.cpu_seconds for run, _, _ in plugin]),
        baseline=median([run.cpu_seconds for run in bare]),
    )
    return [figure, absolute, rerun, first, parts, collection, cpu]


def new_checkout(bench: Bench) -> dict[str, str]:
    """The environment of a run in a new checkout, as CI runs: hypothesis's storage (its
    Unicode table, its constants cache) empty, not the bench's shared one."""
    storage = bench.project("new-checkout-storage") / ".hypothesis"
    return {"HYPOTHESIS_STORAGE_DIRECTORY": str(storage)}


def small_run_collect(bench: Bench) -> Run:
    """--collect-only with the small server: the plugin's start-up (its imports for
    collection, the server's start and handshake, the listing) and no check."""
    args = [f"--mcp-server={server_command('small.py')}", "--collect-only", "-q"]
    args += ["-p", "no:randomly"]
    return bench.pytest(args, bench.project("small-collect"))


# -- 9. imports ------------------------------------------------------------------------

# What a whole run imports beyond the plugin itself (figure 1), by what needs it: the
# libraries first, then the plugin's own modules in the order of the phases that need them.
# Each group is timed as it adds to the groups before it (a module two groups need counts
# for the first), inside a pytest process whose plugins are all loaded. "module:function"
# imports the module and calls the function: jsonschema comes as a whole run imports it,
# two of its format checkers' libraries left for the first value that needs them.
IMPORT_GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("jsonschema", ("pytest_mcp_contracts.schema.formats:import_jsonschema",)),
    # hypothesis's own pytest plugin imports hypothesis at its terminal summary, in every
    # pytest run: the bare --collect-only pays for this one too.
    ("hypothesis", ("hypothesis",)),
    ("hypothesis-jsonschema", ("hypothesis_jsonschema",)),
    (
        "own: start-up and collection",
        (
            "pytest_mcp_contracts.contracts.record",
            "pytest_mcp_contracts.reporting.facts",
            "pytest_mcp_contracts.pytest.session",
            "pytest_mcp_contracts.pytest.items",
        ),
    ),
    (
        "own: schema and drift checks",
        (
            "pytest_mcp_contracts.judges.tool_listing",
            "pytest_mcp_contracts.judges.lints",
            "pytest_mcp_contracts.judges.clients",
            "pytest_mcp_contracts.judges.drift_gate",
        ),
    ),
    (
        "own: contract check",
        (
            "pytest_mcp_contracts.runs.contract",
            "pytest_mcp_contracts.judges.call",
            "pytest_mcp_contracts.inputs.coverage",
            "pytest_mcp_contracts.inputs.generate",
        ),
    ),
    (
        "own: rejects_invalid, sequences",
        (
            "pytest_mcp_contracts.runs.rejects_invalid",
            "pytest_mcp_contracts.inputs.invalid",
            "pytest_mcp_contracts.runs.sequences.check",
            "hypothesis.stateful",
        ),
    ),
    (
        "own: reporting",
        (
            "pytest_mcp_contracts.reporting.worker",
            "pytest_mcp_contracts.reporting.runreport",
            "pytest_mcp_contracts.reporting.summary",
        ),
    ),
)

IMPORTS_CONFTEST = '''"""Times imports inside a pytest process, as a run makes them (through
pytest's assertion rewriting of plugin modules), group by group; writes the seconds as JSON."""

import importlib
import json
import os
import time


def pytest_configure(config):
    groups = json.loads(os.environ["BENCH_IMPORT_GROUPS"])
    seconds = {}
    for name, modules in groups:
        start = time.perf_counter()
        for module in modules:
            module, _, function = module.partition(":")
            imported = importlib.import_module(module)
            if function:
                getattr(imported, function)()
        seconds[name] = time.perf_counter() - start
    with open(os.environ["BENCH_IMPORT_FILE"], "w", encoding="utf-8") as handle:
        json.dump(seconds, handle)
'''


def imports_run(bench: Bench) -> dict[str, float]:
    project = bench.project("imports", conftest=IMPORTS_CONFTEST)
    out = project / "imports.json"
    env = {
        "BENCH_IMPORT_GROUPS": json.dumps(IMPORT_GROUPS),
        "BENCH_IMPORT_FILE": str(out),
    }
    run = bench.pytest(["--collect-only", "-q", "-p", "no:randomly"], project, env=env, expect=(5,))
    try:
        seconds: dict[str, float] = json.loads(out.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        raise MeasurementError(f"the imports conftest wrote nothing\n{run.tail()}") from None
    return seconds


def measure_imports(bench: Bench) -> list[Figure]:
    """Each import a whole run makes, against a bare `pytest --collect-only` of the same
    (empty) folder: its share of what every pytest run costs anyway."""
    imports_run(bench)  # warm-up: bytecode
    bare_collect_run(bench, "imports-bare")
    samples: list[dict[str, float]] = []
    bare: list[Run] = []
    for index in range(3 * bench.sizes.repeat):  # short runs: more samples
        if index % 2 == 0:
            samples.append(imports_run(bench))
            bare.append(bare_collect_run(bench, "imports-bare"))
        else:
            bare.append(bare_collect_run(bench, "imports-bare"))
            samples.append(imports_run(bench))
    baseline = 1000 * median([run.seconds for run in bare])
    figures = []
    for name, modules in IMPORT_GROUPS:
        figures.append(
            Figure(
                f"import_{name}",
                f"  import: {name}",
                "ms",
                measured=1000 * median([s[name] for s in samples]),
                baseline=baseline,
                details={"modules": list(modules), "ms": [1000 * s[name] for s in samples]},
            )
        )
    total = Figure(
        "imports",
        "imports of a whole run vs bare --collect-only",
        "ms",
        measured=1000 * median([sum(s.values()) for s in samples]),
        baseline=baseline,
        details={"bare_collect_ms": [1000 * run.seconds for run in bare]},
    )
    return [total, *figures]


# -- 10. calls in flight ----------------------------------------------------------------

IN_FLIGHT_EXAMPLES = 100  # coverage inputs are up to 4/5 of them: 80 for catalog.py


@dataclass(frozen=True)
class PhaseSample:
    """One run of catalog.py's contract check: the coverage phase's wall time by the
    server's clock, the whole check's by the run report, and what was sent."""

    phase: float
    check: float
    coverage_inputs: int
    calls: int


def in_flight_run(
    bench: Bench,
    latency_ms: int,
    window: int,
    extra: Sequence[str] = (),
    conftest: tuple[str, str] | None = None,
) -> PhaseSample:
    """catalog.py's contract check with ``--mcp-in-flight=window`` (and ``extra`` options,
    and a ``conftest`` named by its first item). The coverage phase's inputs are the first
    calls the server starts (random ones come after the last of them is judged), so its
    time is from the first call's start to the last of them's end."""
    label = "".join(arg.strip("-").replace("=", "-") for arg in extra)
    label += f"-{conftest[0]}" if conftest else ""
    project = bench.project(
        f"catalog-{latency_ms}ms-w{window}{label}", conftest=conftest[1] if conftest else None
    )
    log = project / "calls.log"
    args = [
        f"--mcp-server={server_command('catalog.py', str(latency_ms))}",
        f"--mcp-max-examples={IN_FLIGHT_EXAMPLES}",
        f"--mcp-in-flight={window}",
        "--hypothesis-seed=1",
        "-k",
        "contract",
        *extra,
    ]
    run, server = bench.reported(args, project, env={"BENCH_CALL_LOG": str(log)})
    tool = server["tools"][0]
    contract = tool["checks"]["contract"]
    if contract.get("outcome") != "passed":
        raise MeasurementError(f"catalog's contract check did not pass: {contract}\n{run.tail()}")
    sent = int(tool["input_coverage"]["sent"])
    try:
        spans = sorted(
            (float(start), float(end))
            for start, end in (line.split() for line in log.read_text().splitlines())
        )
    except (OSError, ValueError) as exc:
        raise MeasurementError(f"catalog.py wrote no usable call log ({exc})") from None
    if len(spans) != int(tool["calls"]) or sent < 2:
        raise MeasurementError(
            f"catalog.py logged {len(spans)} calls, the report counts {tool['calls']} "
            f"({sent} coverage inputs): a call was sent twice, or the plan is empty"
        )
    phase = spans[:sent]
    return PhaseSample(
        max(end for _, end in phase) - phase[0][0],
        float(contract.get("duration", 0.0)),
        sent,
        int(tool["calls"]),
    )


def spread(values: Sequence[float], unit: str = "s") -> str:
    return f"{min(values):.2f}-{max(values):.2f} {unit}"


def measure_in_flight(bench: Bench) -> list[Figure]:
    """The coverage phase with calls in flight (the default --mcp-in-flight) against the same
    inputs sent one by one, on a read-only tool that answers at once and on one that waits
    20 ms a call (a database, a web service); the other windows show where the default sits."""
    from pytest_mcp_contracts.vocabulary import DEFAULT_IN_FLIGHT

    windows = sorted({1, DEFAULT_IN_FLIGHT, *bench.sizes.in_flight_windows})
    figures: list[Figure] = []
    for latency in (0, 20):
        in_flight_run(bench, latency, DEFAULT_IN_FLIGHT)  # warm-up: bytecode, caches
        samples: dict[int, list[PhaseSample]] = {w: [] for w in windows}
        for index in range(bench.sizes.repeat):
            for window in windows if index % 2 == 0 else list(reversed(windows)):
                samples[window].append(in_flight_run(bench, latency, window))
        sent = {s.coverage_inputs for runs in samples.values() for s in runs}
        calls = {s.calls for runs in samples.values() for s in runs}
        if len(sent) != 1 or len(calls) != 1:
            raise MeasurementError(
                f"the runs did not send the same inputs: coverage inputs {sorted(sent)}, "
                f"calls {sorted(calls)}"
            )
        alone = [s.phase for s in samples[1]]
        what = "answers at once" if latency == 0 else f"waits {latency} ms a call"
        others = [w for w in windows if w not in (1, DEFAULT_IN_FLIGHT)]
        for window in [DEFAULT_IN_FLIGHT, *others]:  # the default's row first
            flying = [s.phase for s in samples[window]]
            main = window == DEFAULT_IN_FLIGHT
            inputs = samples[1][0].coverage_inputs
            name = (
                f"in flight: coverage phase ({inputs} inputs), tool that {what}, {window} vs 1"
                if main
                else f"  --mcp-in-flight={window} vs 1"
            )
            figure = Figure(
                f"in_flight_{latency}ms_w{window}",
                name,
                "s",
                measured=median(flying),
                baseline=median(alone),
                details={
                    "window": window,
                    "latency_ms": latency,
                    "phase_s": flying,
                    "alone_phase_s": alone,
                    "check_s": [s.check for s in samples[window]],
                    "alone_check_s": [s.check for s in samples[1]],
                    "coverage_inputs": samples[window][0].coverage_inputs,
                    "calls": samples[window][0].calls,
                },
            )
            if main:
                figure.note = (
                    f"in flight, tool that {what}: coverage phase {spread(flying)} in flight, "
                    f"{spread(alone)} one by one; whole contract check (with "
                    f"{samples[window][0].calls - samples[window][0].coverage_inputs} random "
                    f"inputs, one by one) {spread([s.check for s in samples[window]])} vs "
                    f"{spread([s.check for s in samples[1]])} ({len(alone)} runs each)"
                )
            figures.append(figure)
    return figures


# -- 11. a slow tool within its budget -------------------------------------------------

EVERYTHING_TOOL = "trigger-long-running-operation"


def everything_command() -> str | None:
    """server-everything's command: MCP_EVERYTHING_BIN (as the tests take it), else its bin
    on PATH. Nothing is installed or downloaded here."""
    import shutil

    return os.environ.get("MCP_EVERYTHING_BIN") or shutil.which("mcp-server-everything")


def measure_slow_tool(bench: Bench) -> list[Figure]:
    """server-everything's long-running operation (it sleeps as long as asked, 10 s by
    default) under the default --mcp-tool-time: the contract check's time against the
    budget, and how many calls it judged in it."""
    from pytest_mcp_contracts.vocabulary import DEFAULT_TOOL_TIME

    budget = bench.sizes.slow_budget or DEFAULT_TOOL_TIME
    name = f"slow tool: {EVERYTHING_TOOL} contract check vs its {budget:g} s budget"
    command = everything_command()
    if command is None:
        return [
            Figure(
                "slow_tool",
                name,
                "s",
                error="skipped: server-everything is not installed (npm install "
                "@modelcontextprotocol/server-everything in a folder outside the repository, "
                "then set MCP_EVERYTHING_BIN=<folder>/node_modules/.bin/mcp-server-everything "
                "or put that bin on PATH)",
            )
        ]
    samples: list[tuple[Run, dict[str, Any]]] = []
    restarts: list[int] = []
    for _ in range(bench.sizes.repeat):
        project = bench.project("everything")
        args = [
            f"--mcp-server={command}",
            f"--mcp-tool-time={budget:g}",
            "--mcp-sequences=off",
            "-k",
            EVERYTHING_TOOL,
        ]
        run, server = bench.reported(args, project)
        tool = next((t for t in server["tools"] if t["name"] == EVERYTHING_TOOL), None)
        if tool is None or tool["checks"]["contract"].get("outcome") != "passed":
            raise MeasurementError(f"{EVERYTHING_TOOL}: {tool and tool['checks']}\n{run.tail()}")
        samples.append((run, tool))
        restarts.append(int(server.get("restarts", 0)))
    checks = [float(tool["checks"]["contract"]["duration"]) for _, tool in samples]
    figure = Figure(
        "slow_tool",
        name,
        "s",
        measured=median(checks),
        baseline=budget,
        target="<= 1.1x",
        met=median(checks) <= 1.1 * budget,
        details={
            "contract_s": checks,
            "whole_run_s": [run.seconds for run, _ in samples],
            "calls_judged": [tool["calls"] for _, tool in samples],
            "out_of_time": [tool["out_of_time"] for _, tool in samples],
            "restarts": restarts,  # a call the budget cuts short costs none
        },
    )
    figure.note = (
        f"slow tool: contract check {spread(checks)} for a {budget:g} s budget, "
        f"{', '.join(str(tool['calls']) for _, tool in samples)} calls judged; without a "
        "budget the default 50 examples take about 8 minutes (issue 27)"
    )
    whole = Figure(
        "slow_tool_run",
        "  whole run (4 items of the tool), vs the budget",
        "s",
        measured=median([run.seconds for run, _ in samples]),
        baseline=budget,
    )
    return [figure, whole]


# -- 12. the watch --------------------------------------------------------------------------


def per_call_on_off(
    bench: Bench, sides: dict[str, tuple[Sequence[str], tuple[str, str] | None]]
) -> tuple[int, dict[str, float]]:
    """catalog.py's contract check, one call at a time, on each side (its options and its
    conftest), warmed up, then interleaved: the calls and each side's median ms per call."""
    for extra, conftest in sides.values():
        in_flight_run(bench, 0, 1, extra, conftest)  # warm-up
    samples: dict[str, list[PhaseSample]] = {side: [] for side in sides}
    for index in range(bench.sizes.repeat):
        for side in sides if index % 2 == 0 else list(reversed(sides)):
            samples[side].append(in_flight_run(bench, 0, 1, *sides[side]))
    calls = {s.calls for runs in samples.values() for s in runs}
    if len(calls) != 1:
        raise MeasurementError(f"the runs did not send the same calls: {sorted(calls)}")
    (count,) = calls
    return count, {
        side: median([s.check for s in runs]) / count * 1000 for side, runs in samples.items()
    }


def measure_watch(bench: Bench) -> list[Figure]:
    """A read-only tool's contract check, every call watched on disk (--mcp-security=on, the
    default: judges/writes looks at the roots folder before and after each call) against
    the same check unwatched (off), one call at a time, on catalog.py answering at once:
    the whole check's time per call, where the watch's cost shows most."""
    count, per_call = per_call_on_off(
        bench, {"on": (("--mcp-security=on",), None), "off": (("--mcp-security=off",), None)}
    )
    return [
        Figure(
            "watch_per_call",
            f"watch: a read-only tool's contract check, per call ({count} calls), on vs off",
            "ms/call",
            measured=per_call["on"],
            baseline=per_call["off"],
            target="<= 1.15x",
            met=per_call["on"] <= 1.15 * per_call["off"],
        )
    ]


# Turns the protocol's schema off: every version reads as one the plugin has no schema of.
NO_SPEC_CONFTEST = '''"""The run without schema/spec: nothing is judged by the protocol's schema."""

from pytest_mcp_contracts.schema.spec import Spec

Spec.of = staticmethod(lambda version: None)
'''


def measure_spec(bench: Bench) -> list[Figure]:
    """A tool's contract check with every result and notification judged by the protocol's
    schema (schema/spec), against the same check with the schema turned off by a conftest,
    one call at a time on catalog.py answering at once: the check's time per call."""
    count, per_call = per_call_on_off(
        bench, {"on": ((), None), "off": ((), ("nospec", NO_SPEC_CONFTEST))}
    )
    return [
        Figure(
            "spec_per_call",
            f"the protocol's schema: a tool's contract check, per call ({count} calls), on vs off",
            "ms/call",
            measured=per_call["on"],
            baseline=per_call["off"],
            target="<= 1.05x",
            met=per_call["on"] <= 1.05 * per_call["off"],
        )
    ]


MEASUREMENTS: list[tuple[str, str, Callable[[Bench], list[Figure]]]] = [
    ("load", "plugin load when unused", measure_load),
    ("startup", "start-up: a whole run on a small server", measure_startup),
    ("imports", "imports of a whole run", measure_imports),
    ("calls", "per-call cost", measure_calls),
    ("generation", "generation", measure_generation),
    ("scale", "scale with pytest-xdist", measure_scale),
    ("memory", "memory", measure_memory),
    ("coverage", "the coverage phase", measure_coverage),
    ("sequences", "sequences on by default", measure_sequences),
    ("inflight", "calls in flight", measure_in_flight),
    ("slow", "a slow tool within its budget", measure_slow_tool),
    ("watch", "every call watched on disk", measure_watch),
    ("spec", "every message judged by the protocol's schema", measure_spec),
]


def number(value: float | None, unit: str) -> str:
    if value is None:
        return "-"
    if unit == "s":
        return f"{value:.2f} s"
    if unit in ("ms", "MB"):
        return f"{value:.1f} {unit}"
    if unit == "calls":
        return f"{value:.0f} calls"
    return f"{value:.2f} {unit}"


def table(figures: list[Figure]) -> str:
    header = ("figure", "measured", "baseline", "ratio", "target", "met?")
    rows: list[tuple[str, ...]] = []
    for f in figures:
        if f.error is not None:
            status = "skipped" if f.error.startswith("skipped") else "FAILED"
            rows.append((f.name, status, "", "", "", ""))
            continue
        ratio = "-" if f.ratio is None else f"{f.ratio:.2f}x"
        met = "-" if f.met is None else ("yes" if f.met else "NO")
        rows.append(
            (
                f.name,
                number(f.measured, f.unit),
                number(f.baseline, f.unit),
                ratio,
                f.target,
                met,
            )
        )
    widths = [max(len(r[i]) if i < len(r) else 0 for r in [header, *rows]) for i in range(6)]
    lines = []
    for i, row in enumerate([header, *rows]):
        cells = [
            cell.ljust(widths[j]) if j == 0 else cell.rjust(widths[j]) for j, cell in enumerate(row)
        ]
        lines.append("  ".join(cells).rstrip())
        if i == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def cpu_speeds() -> dict[int, float]:
    """Milliseconds of one fixed pure-Python loop on each CPU this process may use, the
    process pinned to each in turn (the fastest of three): on a shared virtual machine one
    CPU can run slower than another for minutes (a busy neighbour on its physical core),
    and a measured process is as fast as the CPU it lands on. Empty where Python cannot pin
    a process (not Linux)."""
    if not hasattr(os, "sched_setaffinity"):
        return {}
    allowed = os.sched_getaffinity(0)
    speeds = {}
    try:
        for cpu in sorted(allowed):
            os.sched_setaffinity(0, {cpu})
            times = []
            for _ in range(3):
                start = time.perf_counter()
                total = 0
                for number in range(400_000):
                    total += number * number
                times.append(time.perf_counter() - start)
            speeds[cpu] = 1000 * min(times)
    finally:
        os.sched_setaffinity(0, allowed)
    return speeds


def speeds_line(label: str, speeds: dict[int, float]) -> str:
    return f"{label}: " + ", ".join(f"cpu{cpu} {ms:.0f} ms" for cpu, ms in speeds.items())


def environment_facts(
    sizes: Sizes, loads: list[tuple[float, float, float]], speeds: list[dict[int, float]]
) -> dict[str, Any]:
    def version(name: str) -> str | None:
        try:
            return importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            return None

    packages = (
        "pytest-mcp-contracts",
        "pytest",
        "mcp",
        "hypothesis",
        "hypothesis-jsonschema",
        "pytest-xdist",
    )
    return {
        "python": sys.version.split()[0],
        "executable": sys.executable,
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "load_average_start": loads[0],
        "load_average_end": loads[-1],
        "cpu_loop_ms_start": speeds[0],
        "cpu_loop_ms_end": speeds[-1],
        "packages": {name: version(name) for name in packages},
        "sizes": dataclasses.asdict(sizes),
    }


def check_installation() -> None:
    """The plugin pytest will load must be this checkout's."""
    spec = importlib.util.find_spec("pytest_mcp_contracts")
    if spec is None or spec.origin is None:
        raise MeasurementError(
            f"pytest_mcp_contracts is not importable by {sys.executable}; "
            "install this checkout first: pip install -e ."
        )
    names = {ep.name for ep in importlib.metadata.entry_points(group="pytest11")}
    if ENTRY_POINT not in names:
        raise MeasurementError(f"no pytest11 entry point named {ENTRY_POINT!r} is installed")
    origin = Path(spec.origin).resolve()
    if REPO not in origin.parents:
        progress(f"note: measuring the installed plugin at {origin}, not this checkout")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Benchmark figures as ratios against baselines measured in the same run."
    )
    parser.add_argument("--quick", action="store_true", help="smoke run: 1 repetition, small sizes")
    parser.add_argument(
        "--repeat", type=int, default=None, help="repetitions per wall-clock figure (median)"
    )
    parser.add_argument("--json", type=Path, default=None, metavar="PATH", help="write figures")
    parser.add_argument(
        "--keep-temp",
        action="store_true",
        help="keep the temporary directory (projects, reports) and print where it is",
    )
    parser.add_argument(
        "--only",
        action="append",
        choices=[key for key, _, _ in MEASUREMENTS],
        help="measure only these (repeatable)",
    )
    args = parser.parse_args(argv)
    if args.repeat is not None and args.repeat < 1:
        parser.error("--repeat must be at least 1")
    sizes = sizes_for(args.quick, args.repeat)
    started = time.perf_counter()
    loads = [os.getloadavg()]
    speeds = [cpu_speeds()]
    figures: list[Figure] = []
    failures: list[str] = []
    try:
        check_installation()
    except MeasurementError as exc:
        print(f"bench: cannot measure: {exc}", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="mcp-contracts-bench-") as temp:
        if args.keep_temp:
            temp = tempfile.mkdtemp(prefix="mcp-contracts-bench-")
            progress(f"keeping the projects in {temp}")
        bench = Bench(Path(temp), sizes)
        for key, title, measure in MEASUREMENTS:
            if args.only and key not in args.only:
                continue
            progress(f"{title} ... ({time.perf_counter() - started:.0f} s so far)")
            try:
                figures.extend(measure(bench))
            except MeasurementError as exc:
                failures.append(f"{title}: {exc}")
                figures.append(Figure(key, f"{title}", "-", error=str(exc)))
    loads.append(os.getloadavg())
    speeds.append(cpu_speeds())
    elapsed = time.perf_counter() - started
    facts = environment_facts(sizes, loads, speeds)
    print()
    print(table(figures))
    print()
    for figure in figures:
        if figure.note:
            print(f"note: {figure.note}")
    cpus = os.cpu_count() or 1
    print(
        f"{sizes.repeat} repetition(s), medians; {elapsed:.0f} s in all; {cpus} CPUs, load "
        f"average {loads[0][0]:.2f} at start, {loads[-1][0]:.2f} at end; "
        f"{platform.python_implementation()} {facts['python']}"
    )
    if speeds[0]:
        print(
            f"the same loop on each CPU ({speeds_line('at start', speeds[0])}; "
            f"{speeds_line('at end', speeds[-1])})"
        )
    if max(loads[0][0], loads[-1][0]) > 0.5 * cpus:
        print("caution: the machine was busy with other work; wall-clock figures are noisy")
    uneven = [max(s.values()) / min(s.values()) for s in speeds if s]
    if uneven and max(uneven) > UNEVEN_CPUS:
        print(
            f"caution: one CPU ran the same loop {max(uneven):.1f}x slower than another: a "
            "run's wall time depends on the CPU it lands on; compare ratios, not seconds"
        )
    if args.json is not None:
        document = {
            "format": "pytest-mcp-contracts/bench",
            "version": 1,
            "quick": args.quick,
            "elapsed_seconds": elapsed,
            "environment": facts,
            "figures": [f.as_json() for f in figures],
            "failures": failures,
        }
        args.json.write_text(json.dumps(document, indent=2, sort_keys=True) + "\n")
    if failures:
        print(f"\nbench: {len(failures)} measurement(s) failed:", file=sys.stderr)
        for failure in failures:
            print(f"- {failure}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
