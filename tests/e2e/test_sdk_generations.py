"""One verdict for every SDK generation: a refusal passes, a crash fails, an error returned as
a dict is a refusal and never a real result, whichever SDK built the server, whatever it
logs, and whether the plugin starts it as a subprocess or serves it in-process.

The fixtures serve the same tools on each generation (tests/servers/sdks/sdk_tools.py,
tests/servers/ts_legacy/sdk_tools.mjs; what each sends is docs/error-results.md's table):
`refuse_raise` (the tool's own `raise ValueError` / `throw new Error`), `refuse_sdk` (the
SDK's refusal type, or an `isError` result), `crash_key` and `crash_none` (a runtime error
escaping the tool), the `error_dict*` tools (`{"error": "nothing is open"}` returned, under
each return annotation), and `ok`. A `-logged` server is the same one started with
MCP_FIXTURE_LOG_TRACEBACKS=1: every exception's traceback goes to stderr, a deliberate raise's
too.

Each Python stack (tests/servers/sdks/) holds the plugin beside its SDK, as a server's own
repository would: the stack's own pytest runs its servers as subprocesses (``--mcp-server``)
and in-process (``--mcp-app``, through that SDK's own memory streams), so the same run also
shows that the plugin installed beside each SDK generation works both ways. One pytest run
per stack tests all of its servers at once (contract items only, few examples, no shrinking, no
sequences), and each test here reads its tool's verdict from that run's report: under
pytest-xdist, the first worker that needs a run makes it and the others read its report.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from tests import fixture_builds, warm_servers
from tests.conftest import (
    NEIGHBOURS_OFF,
    NO_SEQUENCES,
    PROTOCOL_OFF,
    SPEC_RULES_ONLY,
    zygote_wanted,
)

SUBPROCESS, IN_PROCESS = "stdio", "in-process"  # the run report's transport names


@dataclass(frozen=True)
class Generation:
    server: str  # the name it serves under: its node id is mcp:<server>::<tool>::contract
    run: str  # the run that tests it: its Python SDK stack (tests/servers/sdks/), or "ts"
    file: str  # its server, in tests/servers/sdks/ or tests/servers/ts_legacy/bundled/
    logged: bool = False  # started with MCP_FIXTURE_LOG_TRACEBACKS=1
    transport: str = SUBPROCESS

    @property
    def tools(self) -> tuple[str, ...]:
        return TS_TOOLS if self.run == "ts" else PYTHON_TOOLS

    @property
    def id(self) -> str:
        return self.server + ("" if self.transport == SUBPROCESS else f"-{self.transport}")


PYTHON_TOOLS = (
    "refuse_raise",
    "refuse_sdk",
    "crash_key",
    "crash_none",
    "error_dict",
    "error_dict_bare",
    "error_dict_typed",
    "error_dict_wrapped",
    "ok",
)
TS_TOOLS = ("refuse_raise", "refuse_sdk", "crash_key", "error_dict", "ok")

# The SDK versions each Python stack holds (its requirements.txt pins them), which the
# servers' names repeat: mcp 1.26.0 (FastMCP inside mcp, as most published Python servers
# are), fastmcp 2.12.5 (which needs mcp < 1.17), mcp 2.3.0 and the newest fastmcp are the
# pins a server repository holds most.
STACK_SDKS = {
    "mcp1.26": {"mcp": "1.26.0"},
    "mcp1-fastmcp3": {"mcp": "1.30.0", "fastmcp": "3.4.11"},
    "mcp1.16-fastmcp2": {"mcp": "1.16.0", "fastmcp": "2.12.5"},
    "mcp2-fastmcp4": {"mcp": "2.3.0", "fastmcp": "4.2.3"},
}

# fastmcp 2, 3, 4, MCPServer and the low-level Server of mcp 2.3 log every exception but
# their refusal type with its traceback themselves: they have no -logged twin.
PYTHON_SUBPROCESSES = (
    Generation("mcp1.26.0-fastmcp", "mcp1.26", "mcp1_fastmcp.py"),
    Generation("mcp1.30.0-fastmcp", "mcp1-fastmcp3", "mcp1_fastmcp.py"),
    Generation("mcp1.30.0-fastmcp-logged", "mcp1-fastmcp3", "mcp1_fastmcp.py", logged=True),
    Generation("mcp1.30.0-lowlevel", "mcp1-fastmcp3", "mcp1_lowlevel.py"),
    Generation("mcp1.30.0-lowlevel-logged", "mcp1-fastmcp3", "mcp1_lowlevel.py", logged=True),
    Generation("fastmcp3.4.11", "mcp1-fastmcp3", "fastmcp_server.py"),
    Generation("mcp1.16.0-fastmcp", "mcp1.16-fastmcp2", "mcp1_fastmcp.py"),
    Generation("fastmcp2.12.5", "mcp1.16-fastmcp2", "fastmcp_server.py"),
    Generation("mcp2.3.0-mcpserver", "mcp2-fastmcp4", "mcp2_mcpserver.py"),
    Generation("mcp2.3.0-lowlevel", "mcp2-fastmcp4", "mcp2_lowlevel.py"),
    Generation("fastmcp4.2.3", "mcp2-fastmcp4", "fastmcp_server.py"),
)
GENERATIONS = (
    *PYTHON_SUBPROCESSES,
    # Every Python server in-process too (--mcp-app): the same verdicts. A -logged twin
    # differs only in what it writes on stderr, which an in-process server has not.
    *(replace(each, transport=IN_PROCESS) for each in PYTHON_SUBPROCESSES if not each.logged),
    Generation("ts-sdk1.0.1", "ts", "sdk_1_0_1.mjs"),
    Generation("ts-sdk1.0.1-logged", "ts", "sdk_1_0_1.mjs", logged=True),
    Generation("ts-sdk1.32.2", "ts", "sdk_1_32.mjs"),
    Generation("ts-sdk1.32.2-logged", "ts", "sdk_1_32.mjs", logged=True),
    Generation("ts-server2.4.0", "ts", "sdk_2.mjs"),
    Generation("ts-server2.4.0-logged", "ts", "sdk_2.mjs", logged=True),
)

# The failure kinds of a crash: an exception the SDK wrapped into isError, or one it answered
# as a JSON-RPC error.
CRASHES = {"unexpected_exception", "rpc_error"}
# Arguments of each run: contract items only, and few examples (the coverage phase alone sends
# a limit of 0 and -1, and an empty word; one seed, so that every run draws the same words).
# No shrinking: a crash's verdict is judged on the first input that fails, and shrinking
# (the engine's, the same for every SDK: tests/e2e/test_shrink_corners.py) would only send
# more crashing calls, each logging its traceback through the SDK's rich handler, most of
# these runs' work. The replay on a fresh server still runs.
RUN_ARGS = (
    "-k",
    "contract",
    "--mcp-max-examples=10",
    "--hypothesis-seed=1",
    "--mcp-shrink-time=0.001",  # the least allowed: the first attempt finds no time left
    NO_SEQUENCES,
)


def _cases(*kinds: str) -> list[Any]:
    return [
        pytest.param(generation, tool, id=f"{generation.id}::{tool}")
        for generation in GENERATIONS
        for tool in generation.tools
        if any(tool.startswith(kind) for kind in kinds)
    ]


def _stack_python(stack: str) -> Path:
    try:
        return fixture_builds.sdk_python(stack)
    except fixture_builds.BuildError as exc:
        pytest.fail(str(exc))


def _argv(run: str, ts_servers: Callable[[str], str] | None) -> tuple[list[str], dict[str, str]]:
    """The pytest command of ``run`` and its environment. A Python stack's is its own
    virtualenv's pytest, the checkout's code first on the path (the plugin installed there
    is the checkout's at build time: it gives the entry point, the checkout the code); the
    TypeScript servers' is this session's (warm) pytest. A Python stack's servers start warm
    where its zygote runs (``_warm_stack``)."""
    environ = {
        **os.environ,
        "PYTEST_ADDOPTS": f"{SPEC_RULES_ONLY} {PROTOCOL_OFF} {NEIGHBOURS_OFF}",
    }
    environ.pop("CI", None)  # a local run: it records contracts, and none is missing
    generations = [each for each in GENERATIONS if each.run == run]
    if ts_servers is not None:
        argv = [*warm_servers.pytest_command()]
        server = ts_servers
    else:
        python = _stack_python(run)
        argv = [str(python), "-m", "pytest"]
        environ["PYTHONPATH"] = str(fixture_builds.REPO)
        for name in ("PYTEST_XDIST_WORKER", "PYTEST_PLUGINS"):
            environ.pop(name, None)
        server = lambda file: shlex.join(  # noqa: E731
            warm_servers.command(
                str(fixture_builds.SDKS / file), python=str(python), kind=warm_servers.STACK + run
            )
        )
    for each in generations:
        if each.transport == IN_PROCESS:
            argv.append(f"--mcp-app={fixture_builds.SDKS / each.file}")
        else:
            logged = "env MCP_FIXTURE_LOG_TRACEBACKS=1 " if each.logged else ""
            argv.append(f"--mcp-server={logged}{server(each.file)}")
    return argv, environ


def _run(folder: Path, argv: list[str], environ: dict[str, str]) -> dict[str, Any]:
    """Run pytest on the servers of ``argv``: each server's tools' reports, by server name and
    transport (``servers``), or what the run printed when it wrote no report (``failed``)."""
    argv = [*argv, "-p", "no:randomly", "-p", "no:cacheprovider", *RUN_ARGS]
    argv += ["--mcp-report=report.json", f"--rootdir={folder}"]
    done = subprocess.run(argv, cwd=folder, env=environ, capture_output=True, timeout=300)
    report = folder / "report.json"
    if not report.is_file():
        return {"failed": (done.stdout + done.stderr).decode(errors="replace")[-5000:]}
    return {
        "servers": {
            f"{server['name']} {server['transport']}": {
                tool["name"]: tool for tool in server["tools"]
            }
            for server in json.loads(report.read_text())["servers"]
        }
    }


@contextlib.contextmanager
def _warm_stack(run: str) -> Iterator[None]:
    """A zygote for the servers of Python stack ``run`` while its run lasts
    (tests/warm_servers.py): a crash costs a restart and a replay on a fresh server, some 15
    starts a run, each 0.9 to 1.6 s of CPU cold. The stack's own pytest still starts cold."""
    kind = warm_servers.STACK + run
    wanted = run != "ts" and zygote_wanted(kind)
    zygotes = warm_servers.start(kind, python=str(_stack_python(run))) if wanted else {}
    try:
        yield
    finally:
        for each, zygote in zygotes.items():
            warm_servers.stop(zygote, each)


@pytest.fixture(scope="module")
def _runs() -> dict[str, dict[str, Any]]:
    return {}


@pytest.fixture
def tool_report(
    generation: Generation,
    tool: str,
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    _runs: dict[str, dict[str, Any]],
) -> dict[str, Any]:
    """The run report's entry for ``tool`` of ``generation``, from its stack's one run."""
    if generation.run not in _runs:
        ts = request.getfixturevalue("ts_servers") if generation.run == "ts" else None
        # Shared by the xdist workers of this session (their base temps' parent), under a
        # lock: the first to need a run makes it, the others read its answer, a failed run's
        # too (it is not made again for each of its tests).
        worker = os.environ.get("PYTEST_XDIST_WORKER")
        base = tmp_path_factory.getbasetemp()
        folder = (base.parent if worker else base) / f"sdk-generations-{generation.run}"
        folder.mkdir(exist_ok=True)
        answer = folder / "tools.json"
        descriptor = os.open(folder, os.O_RDONLY)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX)
            if not answer.is_file():
                with _warm_stack(generation.run):
                    argv, environ = _argv(generation.run, ts)
                    answer.write_text(json.dumps(_run(folder, argv, environ)))
        finally:
            os.close(descriptor)  # releases the lock
        _runs[generation.run] = json.loads(answer.read_text())
    run = _runs[generation.run]
    if "failed" in run:
        pytest.fail(f"the run of {generation.run} wrote no report:\n{run['failed']}")
    server = f"{generation.server} {generation.transport}"
    assert server in run["servers"], sorted(run["servers"])
    return dict(run["servers"][server][tool])


def _verdict(report: dict[str, Any]) -> str:
    contract = report["checks"]["contract"]
    return f"{contract['outcome']}: {contract.get('message', '')} {json.dumps(contract)}"


@pytest.mark.parametrize(("generation", "tool"), _cases("refuse_", "error_dict"))
def test_a_refusal_passes(generation: Generation, tool: str, tool_report: dict[str, Any]) -> None:
    assert tool_report["checks"]["contract"]["outcome"] == "passed", _verdict(tool_report)
    assert tool_report["calls"] > 0


@pytest.mark.parametrize(("generation", "tool"), _cases("error_dict"))
def test_an_error_dict_is_never_a_real_result(
    generation: Generation, tool: str, tool_report: dict[str, Any]
) -> None:
    assert tool_report["calls"] > 0
    assert tool_report["real_results"] == 0, _verdict(tool_report)


@pytest.mark.parametrize(("generation", "tool"), _cases("crash_"))
def test_a_crash_fails_as_a_crash(
    generation: Generation, tool: str, tool_report: dict[str, Any]
) -> None:
    contract = tool_report["checks"]["contract"]
    assert contract["outcome"] == "failed", _verdict(tool_report)
    assert contract["failure"]["kind"] in CRASHES, _verdict(tool_report)


@pytest.mark.parametrize(("generation", "tool"), _cases("ok"))
def test_a_real_result_passes(
    generation: Generation, tool: str, tool_report: dict[str, Any]
) -> None:
    assert tool_report["checks"]["contract"]["outcome"] == "passed", _verdict(tool_report)
    assert tool_report["real_results"] == tool_report["calls"] > 0


def test_every_python_stack_holds_its_pins_the_sdks_it_names_and_the_plugin() -> None:
    """Each stack's virtualenv holds exactly the pins of its requirements.txt (the plugin's
    included) and the plugin, and pip finds every requirement met: installing the plugin
    changed none of the SDK's pins, and no dependency came in unpinned. Its SDKs are the
    versions the servers' names and docs/error-results.md give: a pin changed without them
    is caught here."""
    code = "import importlib.metadata as m, json; "
    code += "print(json.dumps({d.metadata['Name']: d.version for d in m.distributions()}))"
    for stack, sdks in STACK_SDKS.items():
        assert fixture_builds.holds_plugin(stack), stack
        python = _stack_python(stack)
        done = subprocess.run([python, "-c", code], capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        installed = {_normal(name): version for name, version in json.loads(done.stdout).items()}
        wanted = _pins(fixture_builds.STACKS[stack] / "requirements.txt")
        assert {name: installed.get(name) for name in wanted} == wanted, stack
        assert set(installed) - set(wanted) == {"pytest-mcp-contracts"}, stack
        assert {name: installed[name] for name in sdks} == sdks, stack
        # Every installed package's requirements hold, the plugin's ranges (from the
        # checkout's pyproject.toml) and the SDK's own: pip, resolving the plugin under the
        # SDK's pins as constraints, has this solution and moves no pin.
        check = [sys.executable, "-m", "pip", "--python", str(python), "check"]
        done = subprocess.run(check, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, (stack, done.stdout, done.stderr)


def _pins(requirements: Path) -> dict[str, str]:
    """Every ``name==version`` of a requirements file and of the files it includes."""
    pins: dict[str, str] = {}
    for line in requirements.read_text().splitlines():
        words = line.split("#", 1)[0].split()
        if words[:1] == ["-r"]:
            pins |= _pins(requirements.parent / words[1])
        elif words and "==" in words[0]:
            name, version = words[0].split("==")
            pins[_normal(name)] = version
    return pins


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def test_every_typescript_generation_is_the_sdk_it_names(ts_servers: Callable[[str], str]) -> None:
    """As above, for the TypeScript SDKs the lock file installs (ts_servers builds them)."""
    modules = fixture_builds.TS_LEGACY / "node_modules"
    installed = {
        package: json.loads((modules / package / "package.json").read_text())["version"]
        for package in ("sdk-1.0.1", "@modelcontextprotocol/sdk", "@modelcontextprotocol/server")
    }
    assert installed == {
        "sdk-1.0.1": "1.0.1",
        "@modelcontextprotocol/sdk": "1.32.2",
        "@modelcontextprotocol/server": "2.4.0",
    }
