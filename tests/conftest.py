"""Shared helpers: run pytest (as users do) against the fixture servers in tests/servers/."""

from __future__ import annotations

import contextlib
import gc
import json
import os
import re
import shlex
import subprocess
from collections.abc import Callable, Generator, Iterator
from pathlib import Path
from typing import IO, Any

import pytest

from tests import fixture_builds, warm_servers

SERVERS = Path(__file__).parent / "servers"


def server_command(name: str | Path) -> str:
    """The shell command that starts fixture server `name` (a file in tests/servers/, or a
    script a test wrote, by its absolute path): a warm start where the session's zygote runs
    (tests/warm_servers.py), else ``python SCRIPT``."""
    return shlex.join(warm_servers.command(str(SERVERS / name)))


RunMcp = Callable[..., pytest.RunResult]


def pytest_configure(config: pytest.Config) -> None:
    """Parse what is installed once in this process, for all its in-process runs
    (``warm_servers.remember_installed``), and let the processes this suite starts cache
    their bytecode.

    Most tests here start a fresh pytest process and a server process or two. Where
    PYTHONDONTWRITEBYTECODE is set (as on this project's CI machines), no process may cache
    bytecode, and pytest then re-rewrites the assertions of every module of every plugin
    distribution it loads (hypothesis, anyio, xdist, ...: some 130 modules) in each process:
    0.7 s of CPU, a third of a short run. A user's machine caches them once. The controller
    drops the variable before pytest-xdist starts its workers, so every process started
    from here on inherits that; caches are written by atomic rename, so parallel writers
    are safe."""
    warm_servers.remember_installed()
    if not hasattr(config, "workerinput"):
        os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
        _start_warm_servers(config)


_ZYGOTES = pytest.StashKey[dict[str, subprocess.Popen[bytes]]]()


def _start_warm_servers(config: pytest.Config) -> None:
    """Zygotes for the whole session (tests/warm_servers.py): the fixture servers built on
    the SDK start from one in milliseconds instead of 0.7 s of CPU each, the pytest runs
    under test (``runpytest_subprocess``, ``record_once``) and the first xdist worker of each
    from another instead of 0.5 s each, the second worker from a third. Started here, before
    pytest-xdist starts its workers, so that every process of the session (workers, the
    pytest runs under test, their workers) finds them in the environment.
    MCP_TEST_COLD_SERVERS=1 turns the first off (every server a cold ``python SCRIPT``),
    MCP_TEST_COLD_PYTEST=1 the others (every run and its workers cold)."""
    kinds = [kind for kind in ("servers", "pytest", "workers") if zygote_wanted(kind)]
    config.stash[_ZYGOTES] = warm_servers.start(*kinds)


# What turns each kind of zygote off (the old SDK's is started by old_sdk_command).
_COLD = {
    "servers": "MCP_TEST_COLD_SERVERS",
    "old_sdk": "MCP_TEST_COLD_SERVERS",
    "pytest": "MCP_TEST_COLD_PYTEST",
    "workers": "MCP_TEST_COLD_PYTEST",  # the second xdist worker of a run under test
}


def zygote_wanted(kind: str) -> bool:
    """Neither turned off, nor already running: a session under test inherits the zygote of
    the one running it. An SDK stack's servers (``warm_servers.STACK``) are servers."""
    cold = "servers" if kind.startswith(warm_servers.STACK) else kind
    return not os.environ.get(_COLD[cold]) and not os.environ.get(warm_servers.socket_env(kind))


# The files that hold the longest tests, the file of the longest single test first (by
# bench/suite_cpu.py's table for the whole suite under -n auto). They run first:
# pytest-xdist hands out tests in collection order and steals from the end of a worker's
# queue, so a long test collected late would hold the last worker alone while the others
# have nothing left. Only the order changes; a file missing here is merely not moved.
SLOW_FIRST = (
    "test_xdist.py",
    "test_memory_cap.py",
    "test_eras.py",
    "test_latency.py",
    "test_protocol.py",
    "test_sdk_generations.py",
    "test_state_outlives.py",
    "test_app.py",
    "test_shrink_corners.py",
    "test_in_flight.py",
    "test_node_names.py",
    "test_reach_typescript.py",
    "test_action.py",
    "test_slow_tools.py",
    "test_surface_typescript.py",
    "test_query_tool.py",
    "test_hostile.py",
    "test_reproduce.py",
    "test_concurrency.py",
    "test_stdout.py",
    "test_disguised_errors.py",
    "test_pytest_integration.py",
    "test_error_results.py",
    "test_sequences.py",
    "test_roots_sandbox.py",
    "test_export.py",
)


@pytest.hookimpl(wrapper=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> Generator[None, int, int]:
    """``-n auto`` (the README's test command): one worker more than pytest-xdist counts CPUs.
    Much of the suite's test time is spent waiting, not computing (tools that sleep to test
    budgets and deadlines, servers that hang on purpose, timeouts), and a spare worker
    computes meanwhile; a second spare one costs more in contention than it wins.
    PYTEST_XDIST_AUTO_NUM_WORKERS still decides when set (pytest-xdist's own rule)."""
    workers = yield
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return workers
    return workers + 1


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {name: i for i, name in enumerate(SLOW_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))


def pytest_unconfigure(config: pytest.Config) -> None:
    for kind, zygote in config.stash.get(_ZYGOTES, {}).items():
        warm_servers.stop(zygote, kind)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, object, object]:
    """Each test collects only its own garbage: what the process holds when the test
    starts (the suite's modules, what earlier tests left) is frozen out of the collections
    the test triggers. The heap grows over a session, and each full collection walks all of
    it: run in one process after the unit tests, test_no_flaps.py's recording spent 3.6 of
    its 6.2 s collecting (1.6 s with this). Under -n auto, where the slowest files run first
    on small heaps, it saves nothing measurable (bench/README.md). In-process runs freeze
    again at their start (_as_in_a_fresh_process)."""
    _HEAP.freeze()
    try:
        return (yield)
    finally:
        _HEAP.after_a_test()


class _Heap:
    """What stays frozen and when it is collected. After each test, what it made and left
    (all that is not frozen) is collected, then frozen with the rest: that collection walks
    the test's objects only, not the heap. What dies later among frozen objects (a cycle a
    module-scoped fixture dropped) is collected by a full collection, made between tests
    once the heap has grown by half since the last (a bound on the memory).

    The growth is counted as objects are frozen: those of the young generations, which hold
    only what was made since the last freeze. Not the frozen heap's size
    (``gc.get_freeze_count`` walks the whole of it: 13 ms at the 800,000 objects a worker
    holds late in a session). Asking it before each test and thawing the heap after each
    (so that the interpreter's own full collections, due between tests, walked all of it)
    took about a quarter of the suite's CPU: 510 s against 390 s (bench/README.md). Freezing
    what a test left uncollected, and walking the whole heap for it every few tests, took a
    tenth of what was left (tests/unit and three e2e files in one process: 105-110 s of
    CPU, 363 MB, against 95-103 s, 322 MB)."""

    def __init__(self) -> None:
        self.collected = 0  # objects frozen after the last full collection made here
        self.grown = 0  # objects frozen since

    def freeze(self) -> None:
        self.grown += sum(len(gc.get_objects(generation)) for generation in range(3))
        gc.freeze()

    def after_a_test(self) -> None:
        gc.collect()  # only what is not frozen: what the test made and left
        self.freeze()
        if self.grown > 0.5 * max(self.collected, 100_000):
            gc.unfreeze()
            gc.collect()
            gc.freeze()
            self.collected = gc.get_freeze_count()
            self.grown = 0


_HEAP = _Heap()


@pytest.fixture
def cold_servers(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fixture servers started as ``python SCRIPT``, not forked from the zygote: for tests
    about the server process itself (its memory, as the cap reads it from its process group;
    how long its start takes)."""
    monkeypatch.delenv(warm_servers.SOCKET_ENV, raising=False)


@pytest.fixture
def cold_pytest(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pytest runs under test started as ``python -m pytest``, not forked from the zygote:
    for tests about the pytest process itself (which modules a run imports). Their xdist
    workers start cold too."""
    monkeypatch.delenv(warm_servers.PYTEST_SOCKET_ENV, raising=False)
    monkeypatch.delenv(warm_servers.WORKERS_SOCKET_ENV, raising=False)


@pytest.fixture(scope="session", autouse=True)
def _warm_xdist_workers() -> Generator[None]:
    """The xdist workers of the in-process runs (``inprocess_pytest`` and others with -n 2)
    fork from the zygotes, as those of the runs in a subprocess do
    (warm_servers.warm_xdist_workers). A fixture, not a configure hook: only the processes
    that run tests have it, never the controller of this suite's own -n run, whose workers
    are this suite's."""
    undo = warm_servers.warm_xdist_workers()
    yield
    undo()


@pytest.fixture(autouse=True)
def _local_mode(monkeypatch: pytest.MonkeyPatch) -> None:
    """Runs under test are local runs unless a test sets CI itself: CI mode never writes
    contracts and fails on missing ones, which only the tests about it should meet."""
    monkeypatch.delenv("CI", raising=False)


# The fixture servers are small servers written to show one behaviour each; their listings are
# not written to satisfy any client's own rules, nor to carry descriptions and annotations.
# Runs under test apply the spec's rules only and no lints, unless a test chooses client
# profiles or lints itself (a later --mcp-clients / --mcp-lints wins): tests/e2e/
# test_profiles.py and tests/e2e/test_lints.py run them.
SPEC_RULES_ONLY = "--mcp-clients=none --mcp-lints=all:off"
# Nor are they written to be probed for injections: the security check, and the poisoned
# descriptions' security findings (lint_targets.py has one), run where a test chooses them
# (tests/e2e/test_security.py, test_lints.py; a later --mcp-security wins).
PROBES_OFF = "--mcp-security=off"
# Nor to be held to the protocol's rules by a conversation of their own: the protocol item
# runs where a test chooses it (tests/e2e/test_protocol.py; a later --mcp-protocol wins),
# so that every other test's outcome counts and cost stay about what it tests.
PROTOCOL_OFF = "--mcp-protocol=off"
# The pytest plugins of this virtualenv that no run under test is about stay out of it
# (pytest-asyncio, anyio's, syrupy: 0.11 s of imports in each of the 150 or so pytest
# processes the suite starts); test_pytest_integration.py loads each beside this plugin.
NEIGHBOURS_OFF = "-p no:asyncio -p no:anyio -p no:syrupy"


@pytest.fixture(autouse=True)
def _spec_rules_only(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    if "pytester" not in request.fixturenames:
        return
    pytester = request.getfixturevalue("pytester")  # it clears PYTEST_ADDOPTS when it starts
    addopts = f"{SPEC_RULES_ONLY} {PROBES_OFF} {PROTOCOL_OFF} {NEIGHBOURS_OFF}"
    monkeypatch.setenv("PYTEST_ADDOPTS", addopts)
    # runpytest_subprocess's `python -mpytest`, warm where the zygote runs (cold_pytest).
    monkeypatch.setattr(pytester, "_getpytestargs", warm_servers.pytest_command)


@pytest.fixture
def run_mcp(pytester: pytest.Pytester) -> RunMcp:
    """Run pytest in a subprocess against fixture servers; extra args pass through."""

    def run(
        *servers: str, args: tuple[str, ...] = (), timeout: float | None = None
    ) -> pytest.RunResult:
        argv = [f"--mcp-server={server_command(s)}" for s in servers]
        # randomly would reorder items; the order is part of what some tests read.
        return pytester.runpytest_subprocess(*argv, "-p", "no:randomly", *args, timeout=timeout)

    return run


RunPytest = Callable[..., pytest.RunResult]


def untimed_file(text: bytes) -> bytes:
    """A snapshot file's bytes without its latency figures (p50_ms, p95_ms: timings, which
    any two runs differ in): what two runs of the same checks must write exactly. Whether a
    tool has figures, and over how many calls, stays. The rest is compared byte for byte: the
    plugin writes it with sorted keys and this indent, so a JSON round trip changes nothing."""
    data = json.loads(text)
    latency = data.get("latency")
    if not isinstance(latency, dict):
        return text
    data["latency"] = {"calls": latency.get("calls")}
    return (json.dumps(data, sort_keys=True, indent=2, ensure_ascii=False) + "\n").encode()


# A run report's timings: what two runs of the same checks need not agree on.
# A tool's latencies are timings too.
TIMINGS = frozenset({"duration", "phase_seconds", "latency_ms", "latencies_ms"})


def without_durations(value: Any) -> Any:
    """A run report (or any part of one) without its timings (``TIMINGS``): what two runs of
    the same checks (serial and -n 2, one call at a time and several in flight) must agree
    on exactly."""
    if isinstance(value, dict):
        return {k: without_durations(v) for k, v in value.items() if k not in TIMINGS}
    if isinstance(value, list):
        return [without_durations(v) for v in value]
    return value


def untimed(lines: list[str]) -> list[str]:
    """A run's output lines without the summary's line of where the time went and the
    tools' latencies (timings: two runs of the same checks need not agree on them)."""
    return [
        re.sub(r"; latency p50 .* calls\)", "", line)
        for line in lines
        if not line.startswith("  where the time went:")
    ]


def summary_section(stdout: str) -> list[str]:
    """The "MCP contracts" section of a run's terminal output, ``untimed``."""
    lines = stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if "MCP contracts" in line and "=" in line)
    end = next(i for i, line in enumerate(lines[start + 1 :], start + 1) if line.startswith("="))
    return untimed(lines[start:end])


def record_once(folder: Path, *servers: str, args: tuple[str, ...] = (), **env: str) -> Path:
    """Run pytest against fixture servers in ``folder``, as ``run_mcp`` runs it but outside
    any test (spec rules only, not CI, without randomly; ``env`` added), and return the
    contracts it wrote (``folder/mcp-contracts``). For a recording several tests start from:
    a module- or session-scoped fixture makes it once, each test copies it."""
    addopts = f"{SPEC_RULES_ONLY} {PROBES_OFF} {PROTOCOL_OFF} {NEIGHBOURS_OFF}"
    environ = {**os.environ, "PYTEST_ADDOPTS": addopts, **env}
    environ.pop("CI", None)
    argv = [*warm_servers.pytest_command(), "-p", "no:randomly", "-p", "no:cacheprovider"]
    argv += [f"--mcp-server={server_command(s)}" for s in servers]
    done = subprocess.run(
        [*argv, *args], cwd=folder, env=environ, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return folder / "mcp-contracts"


@pytest.fixture
def inprocess_pytest(pytester: pytest.Pytester, _imported_for_good: None) -> RunPytest:
    """``pytester.runpytest_inprocess`` as a new pytest process would run: with hypothesis's
    process-wide state as a new process has it, and without randomly (as run_mcp).

    No new interpreter, no server process, and mcp, hypothesis and this plugin are imported
    once for the whole suite: a run costs a fraction of a subprocess run. For behaviour that
    needs no real transport (a server that exits, hangs in synchronous code or writes to
    stderr needs a subprocess). pytester restores ``sys.modules`` after each run, so a
    fixture module is imported afresh (it reads its environment again); what a fresh
    process would also reset, hypothesis's profile and seed, is reset here
    (test_inprocess.py checks that no run leaks into the next)."""

    def run(*args: str) -> pytest.RunResult:
        # The plugin was imported by this process before the run asks to rewrite it, and
        # pytest-asyncio is off here as in the suite (pyproject.toml): neither warning is
        # about the run under test.
        quiet = ("-p", "no:asyncio", "-W", "ignore::pytest.PytestAssertRewriteWarning")
        with _as_in_a_fresh_process():
            return pytester.runpytest_inprocess("-p", "no:randomly", *quiet, *args)

    return run


@pytest.fixture(scope="session")
def surface_v1(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The contracts of tests/servers/surface.py v1 recorded by a first, local run (-k drift),
    once for the session: the drift tests (test_drift.py, test_xdist.py) start from copies."""
    return record_once(
        tmp_path_factory.mktemp("surface-v1"),
        "surface.py",
        args=(NO_SEQUENCES, "-k", "drift"),
        MCP_FIXTURE_VARIANT="v1",
    )


@pytest.fixture
def run_inprocess(inprocess_pytest: RunPytest) -> RunMcp:
    """``run_mcp`` in this process (``inprocess_pytest``): fixture servers as in-process
    apps (``--mcp-app=tests/servers/<name>``); extra args pass through."""

    def run(*servers: str, args: tuple[str, ...] = ()) -> pytest.RunResult:
        # Without ":attribute", the module's one server object: not every fixture names it app.
        return inprocess_pytest(*[f"--mcp-app={SERVERS / s}" for s in servers], *args)

    return run


@pytest.fixture
def run_mcp_inprocess(inprocess_pytest: RunPytest) -> RunMcp:
    """``run_mcp`` with pytest in this process (``inprocess_pytest``) and the servers still
    real subprocesses over stdio: about half the cost of a subprocess run. For tests about
    what a run finds and reports, not about the pytest process itself (its imports, its
    plugins, -n, a bound on its run time)."""

    def run(*servers: str, args: tuple[str, ...] = ()) -> pytest.RunResult:
        return inprocess_pytest(*[f"--mcp-server={server_command(s)}" for s in servers], *args)

    return run


@pytest.fixture(scope="session")
def _imported_for_good() -> None:
    """Import, before any pytester's sys.modules snapshot, what an in-process run imports
    (session scope: set up before the function-scoped pytester takes its snapshot).

    pytester drops every module a test or a run imported when it ends. For this plugin and
    hypothesis that is only a cost (imported again by every run); for cryptography it is a
    failure: the SDK's MCPServer derives a key on construction, and a second import of
    cryptography's Python classes no longer matches its Rust bindings ("Expected instance
    of hashes.HashAlgorithm"). Building one server (and one HTTP client) here imports all of
    that for good."""
    import hypothesis_jsonschema  # noqa: F401
    import jsonschema  # noqa: F401
    from mcp.server import MCPServer

    warm_servers.import_the_plugin()
    MCPServer("warm-up")
    # httpx2 (kept above) imports its connection layer, httpcore2, when a client is first
    # built: imported afresh by each run, its errors would be classes the kept httpx2 does
    # not map, and a timeout over --mcp-url would surface as a raw httpcore2.ReadTimeout.
    import httpx2

    httpx2.Client().close()


@contextlib.contextmanager
def _as_in_a_fresh_process() -> Iterator[None]:
    """Hypothesis's process-wide state as a new pytest process has it, restored afterwards:
    the profile hypothesis loads on import ("ci" when it sees a CI variable) and no forced
    seed (its pytest plugin sets both from --hypothesis-profile/--hypothesis-seed, for good).

    And the garbage collector's work as a new process has it: what this worker held when
    the run started is left out of the collections the run triggers (collected between
    tests: _Heap, above)."""
    from hypothesis import core, settings
    from hypothesis._settings import is_in_ci

    profile, seed = settings.get_current_profile_name(), core.global_force_seed
    settings.load_profile("ci" if is_in_ci() else "default")
    core.global_force_seed = None
    _HEAP.freeze()  # what earlier runs of the test left (collected between tests: _Heap)
    try:
        yield
    finally:
        settings.load_profile(profile)
        core.global_force_seed = seed


@pytest.fixture(scope="session")
def ts_server_command(ts_servers: Callable[[str], str]) -> str:
    """The TypeScript-SDK fixture server with the legacy handshake (ts_legacy/server.mjs)."""
    return ts_servers("server.mjs")


@pytest.fixture(scope="session")
def ts_servers() -> Callable[[str], str]:
    """The command for a TypeScript-SDK fixture server in tests/servers/ts_legacy/: its
    bundle, built with the folder's node_modules (installed from its lock file) once, and
    again when a server changes (tests/fixture_builds.py)."""
    import shutil

    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.skip("Node.js and npm are needed for the TypeScript-SDK fixture server")
    try:
        bundles = fixture_builds.ts_bundles(npm)
    except fixture_builds.BuildError as exc:
        pytest.fail(str(exc))
    return lambda name: shlex.join([node, str(bundles / name)])


@pytest.fixture(scope="session")
def old_sdk_command() -> Iterator[Callable[[str], str]]:
    """The command for a fixture server in tests/servers/old_sdk/, run by the old Python SDK
    its requirements.txt pins, in a virtualenv built once per checkout (in the folder's
    .venv/, which git ignores) and rebuilt when the pins change (tests/fixture_builds.py).
    Warm, from a zygote on that virtualenv's interpreter (tests/warm_servers.py), started
    here, by the first test that needs it: 0.7 s of CPU a start cold, about 20 starts."""
    try:
        python = str(fixture_builds.sdk_python("old_sdk"))
    except fixture_builds.BuildError as exc:
        pytest.fail(str(exc))
    zygotes = warm_servers.start("old_sdk", python=python) if zygote_wanted("old_sdk") else {}
    yield lambda name: shlex.join(
        warm_servers.command(str(fixture_builds.OLD_SDK / name), python=python, kind="old_sdk")
    )
    for kind, zygote in zygotes.items():
        warm_servers.stop(zygote, kind)


HttpServer = Callable[..., str]


@pytest.fixture
def refused_port() -> Iterator[int]:
    """A local port that refuses connections for the whole test: bound, never listening, and
    held, so no parallel test (pytest-xdist) can start listening on it meanwhile."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield int(sock.getsockname()[1])


@pytest.fixture
def http_server() -> Iterator[HttpServer]:
    """Start fixture servers over Streamable HTTP (tests/servers/http_serve.py): call it with a
    fixture file name (and extra environment); it returns the URL once the server listens.
    Every server started is killed at teardown."""
    import select
    import subprocess
    import tempfile

    started: list[tuple[subprocess.Popen[bytes], IO[bytes]]] = []

    def start(name: str, env: dict[str, str] | None = None) -> str:
        # The server binds port 0 and prints the port it got: no free-port look-up that a
        # parallel test could race. Its stderr goes to a file: a pipe nobody reads during
        # the test would fill up with a chatty server's log and block it.
        errors = tempfile.TemporaryFile()  # noqa: SIM115 (closed at teardown, below)
        command = warm_servers.command(str(SERVERS / "http_serve.py"), str(SERVERS / name))
        proc = subprocess.Popen(
            command,
            env={**os.environ, **(env or {})},
            stdout=subprocess.PIPE,
            stderr=errors,
        )
        started.append((proc, errors))
        assert proc.stdout is not None
        with proc.stdout:
            ready, _, _ = select.select([proc.stdout], [], [], 30)
            line = proc.stdout.readline() if ready else b""
        if line.strip().isdigit():
            return f"http://127.0.0.1:{int(line)}/mcp"
        proc.kill()
        proc.wait()
        errors.seek(0)
        pytest.fail(
            f"{name} over HTTP printed no port within 30 s (exit status {proc.returncode}): "
            + errors.read().decode(errors="replace")
        )

    yield start
    for proc, errors in started:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        errors.close()


# The sequences check is on by default and adds an item (and a restart) per server. Tests
# about another check pass this, so that their outcome counts and their cost stay about
# what they test; tests/e2e/test_sequences.py and the default-run tests keep it on.
NO_SEQUENCES = "--mcp-sequences=off"


@pytest.fixture
def run_checks(run_mcp: RunMcp) -> RunMcp:
    """``run_mcp`` with the sequences item off (NO_SEQUENCES, which a test's own
    ``--mcp-sequences=on`` overrides): for test modules about one check, so that their
    outcome counts and their cost are that check's."""

    def run(
        *servers: str, args: tuple[str, ...] = (), timeout: float | None = None
    ) -> pytest.RunResult:
        return run_mcp(*servers, args=(NO_SEQUENCES, *args), timeout=timeout)

    return run


def replay_argv(output: str) -> list[str]:
    """The `mcp-contracts call` command a failure report gives ("or with one command:")."""
    lines = output.splitlines()
    at = lines.index("or with one command:")
    return shlex.split(lines[at + 1].strip())


def run_call(argv: list[str], cwd: Path) -> tuple[int, list[dict[str, Any]]]:
    """Run an `mcp-contracts call` command line (as printed) with this interpreter: its exit
    status and the answers it printed, one JSON object a line."""
    import json
    import subprocess

    assert argv[:2] == ["mcp-contracts", "call"]
    done = subprocess.run(
        [*warm_servers.module_command("pytest_mcp_contracts"), *argv[1:]],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    return done.returncode, answers


@pytest.fixture
def run_mcp_inprocess_checks(run_mcp_inprocess: RunMcp) -> RunMcp:
    """``run_mcp_inprocess`` with the sequences item off, as ``run_checks`` is ``run_mcp``'s."""

    def run(*servers: str, args: tuple[str, ...] = ()) -> pytest.RunResult:
        return run_mcp_inprocess(*servers, args=(NO_SEQUENCES, *args))

    return run


@pytest.fixture
def run_inprocess_checks(run_inprocess: RunMcp) -> RunMcp:
    """``run_inprocess`` with the sequences item off, as ``run_checks`` is ``run_mcp``'s."""

    def run(*servers: str, args: tuple[str, ...] = ()) -> pytest.RunResult:
        return run_inprocess(*servers, args=(NO_SEQUENCES, *args))

    return run
