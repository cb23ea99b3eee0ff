"""The plugin inside a server's own virtualenv: for each SDK pin set a server repository may
hold (the stacks of tests/servers/sdks/ that include the plugin's pins), the plugin is
installed beside the SDK without changing its pins, and that virtualenv's own pytest tests a
fixture server of the SDK both as a subprocess (``--mcp-server``) and in-process
(``--mcp-app``, through that SDK's own memory streams).

That the plugin's ranges accept every pin was shown once, by resolving them with pip under
the stack's pins as constraints (tests/servers/sdks/plugin-requirements.txt); here each
virtualenv is checked to hold exactly the pins its requirements name, and each run is read
from its report: the server started, every tool was called, the well-behaved tool passed and
the crashing one failed.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests import fixture_builds
from tests.conftest import NEIGHBOURS_OFF, NO_SEQUENCES, SPEC_RULES_ONLY


@dataclass(frozen=True)
class Install:
    stack: str  # a folder of tests/servers/sdks/ whose requirements include the plugin's pins
    file: str  # its fixture server, in tests/servers/sdks/
    server: str  # the name it serves under
    sdk: dict[str, str]  # its SDK's pins: package -> version
    # A server of a row of the issue (mcp 1.26.0, fastmcp 2.12.5, mcp 2.3.0, the newest
    # fastmcp) runs both ways; the other generations in-process only, as
    # test_sdk_generations.py runs each of them as a subprocess already.
    row: bool = True

    @property
    def transports(self) -> tuple[str, ...]:
        return ("stdio", "in-process") if self.row else ("in-process",)


INSTALLS = (
    Install("mcp1.26", "mcp1_fastmcp.py", "mcp1.26.0-fastmcp", {"mcp": "1.26.0"}),
    Install("mcp1.26", "mcp1_lowlevel.py", "mcp1.26.0-lowlevel", {"mcp": "1.26.0"}, row=False),
    Install(
        "mcp1.16-fastmcp2",
        "fastmcp_server.py",
        "fastmcp2.12.5",
        {"fastmcp": "2.12.5", "mcp": "1.16.0"},
    ),
    Install(
        "mcp1-fastmcp3", "fastmcp_server.py", "fastmcp3.4.11", {"fastmcp": "3.4.11"}, row=False
    ),
    Install("mcp2-fastmcp4", "mcp2_mcpserver.py", "mcp2.3.0-mcpserver", {"mcp": "2.3.0"}),
    Install("mcp2-fastmcp4", "mcp2_lowlevel.py", "mcp2.3.0-lowlevel", {"mcp": "2.3.0"}, row=False),
    Install("mcp2-fastmcp4", "fastmcp_server.py", "fastmcp4.2.3", {"fastmcp": "4.2.3"}),
)
STACKS = sorted({install.stack for install in INSTALLS})


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


def _python(stack: str) -> Path:
    try:
        return fixture_builds.sdk_python(stack)
    except fixture_builds.BuildError as exc:
        pytest.fail(str(exc))


@pytest.mark.parametrize("stack", STACKS)
def test_the_venv_holds_its_pins_and_the_plugin(stack: str) -> None:
    assert fixture_builds.holds_plugin(stack)
    python = _python(stack)
    script = (
        "import importlib.metadata as m, json; "
        "print(json.dumps({d.metadata['Name']: d.version for d in m.distributions()}))"
    )
    done = subprocess.run([python, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    installed = {_normal(name): version for name, version in json.loads(done.stdout).items()}
    wanted = _pins(fixture_builds.STACKS[stack] / "requirements.txt")
    assert {name: installed.get(name) for name in wanted} == wanted
    # Nothing but the pins and the plugin: no dependency came in unpinned.
    assert set(installed) - set(wanted) == {"pytest-mcp-contracts"}
    for install in INSTALLS:
        if install.stack == stack:
            assert {name: installed[name] for name in install.sdk} == install.sdk


def _run(stack: str, folder: Path) -> dict[tuple[str, str], dict[str, Any]]:
    """One run of the venv's own pytest on every fixture server of ``stack``, in-process and
    (a row's) as a subprocess (the ``ok`` and ``crash_none`` contract items only): each
    server's tools by its name and transport. The plugin is found by its entry point, the
    checkout's code first on the path (the venv's copy is the checkout's at build time)."""
    python = _python(stack)
    installs = [each for each in INSTALLS if each.stack == stack]
    environ = {**os.environ, "PYTHONPATH": str(fixture_builds.REPO)}
    environ["PYTEST_ADDOPTS"] = f"{SPEC_RULES_ONLY} {NEIGHBOURS_OFF} {NO_SEQUENCES}"
    for name in ("CI", "PYTEST_XDIST_WORKER", "PYTEST_PLUGINS"):
        environ.pop(name, None)
    argv = [str(python), "-m", "pytest", "-p", "no:cacheprovider", f"--rootdir={folder}"]
    for each in installs:
        file = fixture_builds.SDKS / each.file
        argv += [f"--mcp-app={file}"]
        argv += [f"--mcp-server={python} {file}"] if "stdio" in each.transports else []
    argv += ["--mcp-max-examples=3", "--mcp-report=report.json", "-q"]
    argv += ["--mcp-snapshot-dir=snapshots", "-k", "contract and (ok or crash_none)"]
    done = subprocess.run(argv, cwd=folder, env=environ, capture_output=True, timeout=120)
    report = folder / "report.json"
    output = (done.stdout + done.stderr).decode(errors="replace")[-5000:]
    assert report.is_file(), output
    return {
        (each["name"], each["transport"]): {tool["name"]: tool for tool in each.get("tools", [])}
        for each in json.loads(report.read_text())["servers"]
    }


@pytest.mark.parametrize("stack", STACKS)
def test_the_venvs_pytest_tests_its_sdk_servers(stack: str, tmp_path: Path) -> None:
    servers = _run(stack, tmp_path)
    for install in INSTALLS:
        for transport in install.transports if install.stack == stack else ():
            server = (install.server, transport)
            assert server in servers, sorted(servers)
            tools = servers[server]
            assert len(tools) == 9, (server, sorted(tools))
            ok = tools["ok"]["checks"]["contract"]
            crash = tools["crash_none"]["checks"]["contract"]
            assert ok["outcome"] == "passed", (server, ok)
            assert crash["outcome"] == "failed", (server, crash)
