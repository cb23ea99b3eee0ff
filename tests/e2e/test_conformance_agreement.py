"""Where both apply, this plugin and the official conformance suite (@modelcontextprotocol/
conformance, which tests/servers/conformance pins with the Node.js 22 it needs) flag the same
violations: both run against tests/servers/protocol/raw_http.py over Streamable HTTP, clean
and with each violation it can plant, and each must flag what tests/e2e/conformance_table.py
says, no more and no less. Where only one of them can see a violation, the table says so
(and docs/explanation/conformance.md shows it).

The suite runs its whole active suite once per protocol version against the server with
every violation planted at once: it attributes each failure to a scenario, and each schema
violation to the message it was found in, and each scenario opens a session of its own, so a
violation shows only where its message is (test_suite_flags_each_violation_where_it_is
holds every failed check to one row). This plugin runs once per violation: a broken listing
hides what follows it (a resource not listed is not read).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests import fixture_builds
from tests.servers.protocol.raw_http import VIOLATIONS

from ..conftest import NO_SEQUENCES, HttpServer, RunPytest
from .conformance_table import AGREEMENT, PENDING, SERVED, SERVER, SUITE_VERSIONS, WIRE, Row

Checks = dict[tuple[str, str], dict[str, Any]]


@pytest.fixture(scope="module")
def conformance_suite() -> list[str]:
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("npm is needed to install the official conformance suite")
    try:
        return fixture_builds.conformance_suite(npm)
    except fixture_builds.BuildError as exc:
        pytest.fail(str(exc))


RunSuite = Callable[[str, str], Checks]


@pytest.fixture
def run_suite(conformance_suite: list[str], tmp_path: Path) -> RunSuite:
    """Run the suite's active server scenarios for a protocol version against a URL: every
    check of every scenario, by (scenario, check id), from the checks.json it writes per
    scenario."""

    def run(url: str, version: str) -> Checks:
        out = tmp_path / f"suite-{version}"
        argv = [*conformance_suite, "server", "--url", url, "--spec-version", version]
        done = subprocess.run([*argv, "-o", str(out)], capture_output=True, text=True, timeout=300)
        # Exit status 1 is "some check failed": the scenarios the server does not serve do.
        assert done.returncode in (0, 1), done.stdout + done.stderr
        checks: Checks = {}
        for file in out.glob("*/checks.json"):
            # server-<scenario>-<ISO timestamp with dashes>
            scenario = re.sub(r"^server-|-\d{4}-\d\d-\d\dT[\d-]+Z$", "", file.parent.name)
            for check in json.loads(file.read_text()):
                checks[scenario, check["id"]] = check
        return checks

    return run


def served(checks: Checks, version: str) -> Checks:
    """The checks of the scenarios the raw server serves, each of which must have run."""
    wanted = {name for name, since in SERVED.items() if since <= version}
    ran = {scenario for scenario, _ in checks}
    assert wanted <= ran, f"scenarios the suite no longer runs: {sorted(wanted - ran)}"
    return {key: check for key, check in checks.items() if key[0] in wanted}


def failed(checks: Checks) -> Checks:
    return {key: check for key, check in checks.items() if check["status"] == "FAILURE"}


def raw_server(http_server: HttpServer, version: str, *violations: str) -> str:
    env = {"MCP_FIXTURE_VERSION": version, "MCP_FIXTURE_VIOLATIONS": ",".join(violations)}
    return http_server("protocol/raw_http.py", env=env)


def test_the_table_names_every_violation_once() -> None:
    assert [row.violation for row in AGREEMENT] == list(VIOLATIONS)


@pytest.mark.parametrize("version", SUITE_VERSIONS)
def test_the_clean_server_passes_the_suite(
    http_server: HttpServer, run_suite: RunSuite, version: str
) -> None:
    checks = served(run_suite(raw_server(http_server, version), version), version)
    assert not failed(checks)
    wire = [check for (_, check_id), check in checks.items() if check_id == WIRE]
    # The suite validated the server's messages, scenario by scenario (not a scenario that
    # passed by sending nothing).
    assert len(wire) >= 10
    assert all(check["details"]["messagesValidated"] > 0 for check in wire)


@pytest.mark.parametrize("version", SUITE_VERSIONS)
def test_suite_flags_each_violation_where_it_is(
    http_server: HttpServer, run_suite: RunSuite, version: str
) -> None:
    url = raw_server(http_server, version, *VIOLATIONS)
    flagged = failed(served(run_suite(url, version), version))
    expected = {
        key: (row, words)
        for row in AGREEMENT
        if row.since <= version
        for key, words in row.suite.items()
    }
    assert set(flagged) == set(expected)
    for key, check in flagged.items():
        row, words = expected[key]
        if key[1] == WIRE:
            # Each schema violation it found is this row's, in this row's message: one check
            # per scenario holds them all.
            for violation in check["details"]["violations"]:
                assert any(words in error for error in violation["errors"]), (row, violation)
        else:
            assert words in check["errorMessage"], (row, check["errorMessage"])


def our_failures(result: pytest.RunResult) -> dict[str, str]:
    """Node id (after ``mcp:<server>::``) -> failure text of every item that failed or erred."""
    prefix = f"mcp:{SERVER}::"
    reports = result.reprec.getreports(  # type: ignore[attr-defined]
        ("pytest_runtest_logreport", "pytest_collectreport")
    )
    return {
        report.nodeid.removeprefix(prefix): report.longreprtext
        for report in reports
        if report.failed
    }


def run_ours(inprocess_pytest: RunPytest, url: str) -> pytest.RunResult:
    return inprocess_pytest(
        NO_SEQUENCES, f"--mcp-url={url}", "--mcp-max-examples=10", "--mcp-protocol=on"
    )


@pytest.mark.parametrize("version", SUITE_VERSIONS)
def test_the_clean_server_passes_ours(
    http_server: HttpServer, inprocess_pytest: RunPytest, version: str
) -> None:
    result = run_ours(inprocess_pytest, raw_server(http_server, version))
    assert our_failures(result) == {}
    # Three tools' four items, the resource's three: more once a check is added.
    assert result.ret == 0 and result.parseoutcomes()["passed"] >= 15
    result.stdout.fnmatch_lines([f"{SERVER} (protocol {version}):*"])


def ours_param(row: Row) -> Any:
    marks = [pytest.mark.xfail(strict=True, reason=PENDING)] if row.pending else []
    return pytest.param(row, id=row.violation, marks=marks)


@pytest.mark.parametrize("row", [ours_param(row) for row in AGREEMENT])
def test_ours_flags_each_violation(
    http_server: HttpServer, inprocess_pytest: RunPytest, row: Row
) -> None:
    # One version: the plugin's checks of these messages do not differ between the two, and
    # the suite's run covers both.
    result = run_ours(inprocess_pytest, raw_server(http_server, SUITE_VERSIONS[0], row.violation))
    failures = our_failures(result)
    assert set(failures) == set(row.ours), failures
    for node, words in row.ours.items():
        for word in words:
            assert word in failures[node], (node, word, failures[node])
