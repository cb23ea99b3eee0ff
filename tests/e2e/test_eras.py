"""Every era, every server: a server on an old SDK that the 2026 `server/discover` probe
breaks is started again for the `initialize` handshake alone, fully tested (restarts
included, without the probe), and the run says once that probing clients cannot use it.

The old-SDK fixture (tests/servers/old_sdk/) is FastMCP on `mcp` 1.6 in its own virtualenv
(old_sdk_command). Each of its runs waits out the probe once per process that starts it (10
s, the probe time the SDK's own client uses): that wait is the behaviour under test."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from ..conftest import NO_SEQUENCES, HttpServer

WARNING = "cannot use this server"
PROBE_BROKE_IT = (
    "*old-sdk: clients that open with server/discover (protocol 2026-07-28) cannot use this "
    "server: the server exited while answering server/discover (exit status 1); its stderr "
    "ended with 'pydantic_core._pydantic_core."
    "ValidationError: * validation errors for ClientRequest'. It was started again and reached "
    "over the initialize handshake (protocol 2024-11-05)*"
)


@pytest.fixture
def run_old(
    pytester: pytest.Pytester, old_sdk_command: Callable[[str], str]
) -> Callable[..., pytest.RunResult]:
    def run(*args: str) -> pytest.RunResult:
        return pytester.runpytest_subprocess(
            f"--mcp-server={old_sdk_command('server.py')}",
            "-p",
            "no:randomly",
            "--mcp-max-examples=10",
            NO_SEQUENCES,  # about connecting and restarting; sequences restart it once more
            *args,
            timeout=300,
        )

    return run


def test_an_old_sdk_server_is_tested_fully_and_restarted_without_the_probe(
    run_old: Callable[..., pytest.RunResult],
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    starts = pytester.path / "starts.log"
    monkeypatch.setenv("MCP_FIXTURE_START_LOG", str(starts))
    result = run_old("-v", "--mcp-report=report.json")
    # fragile(loud=true) kills the server: its contract fails, and every other item passes.
    result.assert_outcomes(failed=1, passed=11)
    result.stdout.fnmatch_lines(
        [
            "*mcp:old-sdk::fragile::contract FAILED*",
            "*mcp:old-sdk::add::contract PASSED*",
            "*mcp:old-sdk::shout::contract PASSED*",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "the call killed the server: the server exited while answering tools/call (exit "
            "status 3)",
            "*",
            "tool: fragile    check: contract",
            "smallest input found:",
            '    {"loud": true, "word": ""}',
        ]
    )
    result.stdout.fnmatch_lines([PROBE_BROKE_IT])
    assert result.stdout.str().count(WARNING) == 1
    report = json.loads((pytester.path / "report.json").read_text())
    (server,) = report["servers"]
    assert server["protocol"] == "2024-11-05"
    assert {tool["name"]: tool["real_results"] > 0 for tool in server["tools"]} == {
        "fragile": True,
        "add": True,
        "shout": True,
    }
    # One start for the probe, one for the handshake, one per restart, and two for the
    # failure's replay (a fresh server, killed by the replayed call, then started again for
    # the next tool; neither counts as a restart): a restart that probed again would have
    # needed two.
    assert "(it fails alone on a freshly started server too)" in result.stdout.str()
    assert server["restarts"] >= 1
    assert len(starts.read_text().splitlines()) == 2 + server["restarts"] + 2


def test_the_old_sdk_twin_passes_in_ci_mode_serially_and_in_parallel(
    run_old: Callable[..., pytest.RunResult], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MCP_FIXTURE_BUGS", "0")
    run_old("--hypothesis-seed=1").assert_outcomes(passed=12)
    monkeypatch.setenv("CI", "true")
    # Three input sets in all (seed 1 locally, seed 2 and the derandomized CI profile under
    # -n 2): the inputs are ordinary Python tools' that other files run on many seeds; what
    # only this server has is its era, which every run here meets.
    for seed in ("2",):
        result = run_old(f"--hypothesis-seed={seed}")
        result.assert_outcomes(passed=12)
        result.stdout.fnmatch_lines([PROBE_BROKE_IT])
        assert result.stdout.str().count(WARNING) == 1
    # Both workers start the server and meet the probe's failure; it is said once.
    parallel = run_old("-n", "2")
    parallel.assert_outcomes(passed=12)
    assert parallel.stdout.str().count(WARNING) == 1


def test_a_server_that_dies_on_both_requests_is_named_for_each(
    run_old: Callable[..., pytest.RunResult], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MCP_FIXTURE_DIE_ON_INITIALIZE", "1")
    result = run_old()
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(
        [
            "MCP server did not start: *old_sdk/server.py",
            "  the server exited while answering initialize (exit status 4); on its first "
            "start, with the 2026 probe, the server exited while answering server/discover "
            "(exit status 1); its stderr ended with "
            "'pydantic_core._pydantic_core.ValidationError: * validation errors for "
            "ClientRequest'",
            "*fatal: no configuration found*",
        ]
    )
    assert WARNING not in result.stdout.str()


@pytest.mark.parametrize(
    ("answer", "warned"),
    [("drop", True), ("500", False), ("garbage", False)],
)
def test_a_server_that_fumbles_the_probe_over_http_gets_the_handshake(
    pytester: pytest.Pytester, http_server: HttpServer, answer: str, warned: bool
) -> None:
    url = http_server("handshake_era.py", env={"MCP_FIXTURE_DISCOVER": answer})
    result = pytester.runpytest_subprocess(
        f"--mcp-url={url}", "-p", "no:randomly", "--mcp-max-examples=5", NO_SEQUENCES, timeout=120
    )
    result.assert_outcomes(passed=4)
    result.stdout.fnmatch_lines(["handshake-era (protocol 2025-11-25): 1 tools, * calls*"])
    if warned:
        result.stdout.fnmatch_lines(
            [
                "*handshake-era: clients that open with server/discover (protocol 2026-07-28) "
                "cannot use this server: the server closed the event stream without answering "
                "server/discover. It was started again and reached over the initialize "
                "handshake (protocol 2025-11-25)*"
            ]
        )
    assert result.stdout.str().count(WARNING) == int(warned)
    if warned:  # made an error, the warning is the server's collection error, as its text
        strict = pytester.runpytest_subprocess(
            f"--mcp-url={url}",
            "-p",
            "no:randomly",
            "-W",
            "error::pytest_mcp_contracts.McpContractWarning",
            timeout=120,
        )
        assert strict.ret == pytest.ExitCode.INTERRUPTED
        strict.stdout.fnmatch_lines(
            [
                "*ERROR collecting mcp:handshake-era*",
                f"handshake-era: clients that open with server/discover*{WARNING}*",
                "(a warning, made an error by -W or filterwarnings)",
            ]
        )
        assert "Traceback" not in strict.stdout.str()


def test_the_fixture_venv_is_the_old_sdk(old_sdk_command: Callable[[str], str]) -> None:
    """The pins hold: the fixture runs mcp 1.6, whatever the suite itself runs on."""
    import shlex
    import subprocess

    python = shlex.split(old_sdk_command("server.py"))[0]
    version = subprocess.run(
        [python, "-c", "import importlib.metadata as m; print(m.version('mcp'))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert version == "1.6.0"
    assert Path(python).is_relative_to(Path(__file__).parents[1] / "servers" / "old_sdk" / ".venv")
