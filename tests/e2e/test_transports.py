"""One fixture suite, three transports: every behaviour below runs over stdio (--mcp-server),
Streamable HTTP (--mcp-url, the fixture served by tests/servers/http_serve.py) and in-process
(--mcp-app), and must come out the same."""

from __future__ import annotations

import filecmp
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from ..conftest import NO_SEQUENCES, SERVERS, HttpServer, RunPytest, server_command
from ..warm_servers import module_command

TRANSPORTS = ("stdio", "http", "app")
NOUN = {"stdio": "command", "http": "url", "app": "app"}


@dataclass
class Reach:
    """How a run reaches a fixture server over one transport. pytest runs in this process
    (``inprocess_pytest``) over every transport: what differs is how it reaches the server,
    and the servers run as they do for users (a process over stdio, a process behind a URL,
    an app in the pytest process)."""

    transport: str
    pytester: pytest.Pytester
    inprocess: RunPytest
    http_server: HttpServer
    monkeypatch: pytest.MonkeyPatch
    url: str = ""  # the last URL served, over HTTP

    def args(self, name: str, env: dict[str, str] | None = None) -> list[str]:
        if self.transport == "http":
            self.url = self.http_server(name, env=env)
            return [f"--mcp-url={self.url}"]
        for key, value in (env or {}).items():
            self.monkeypatch.setenv(key, value)  # the pytest subprocess inherits it
        if self.transport == "app":  # no attribute: the module's one server object
            return [f"--mcp-app={SERVERS / name}"]
        return [f"--mcp-server={server_command(name)}"]

    def run(
        self, name: str, *args: str, env: dict[str, str] | None = None, examples: int = 10
    ) -> pytest.RunResult:
        return self.inprocess(
            *self.args(name, env), NO_SEQUENCES, f"--mcp-max-examples={examples}", *args
        )

    @property
    def noun(self) -> str:
        return NOUN[self.transport]


@pytest.fixture(params=TRANSPORTS)
def reach(
    request: pytest.FixtureRequest,
    pytester: pytest.Pytester,
    inprocess_pytest: RunPytest,
    http_server: HttpServer,
    monkeypatch: pytest.MonkeyPatch,
) -> Reach:
    return Reach(request.param, pytester, inprocess_pytest, http_server, monkeypatch)


def test_correct_server_passes_and_writes_only_in_its_snapshot_folder(
    reach: Reach, pytester: pytest.Pytester
) -> None:
    before = set(os.listdir(pytester.path))
    result = reach.run("typed_ok.py", "-v", "--mcp-snapshot-dir=out")
    result.assert_outcomes(passed=12)
    result.stdout.fnmatch_lines(
        [
            "*mcp:typed-ok::inventory::schema PASSED*",
            "*mcp:typed-ok::inventory::contract PASSED*",
            "*mcp:typed-ok::add::rejects_invalid PASSED*",
            "*MCP contracts*",
            "typed-ok (protocol 2026-07-28): 3 tools, * calls, 0 returned isError",
        ]
    )
    pytesters_own = {"stdout", "stderr", "runpytest-0", "runpytest-current"}
    created = set(os.listdir(pytester.path)) - before - pytesters_own
    assert created <= {"out", ".hypothesis", ".pytest_cache"}, created
    assert sorted(p.name for p in (pytester.path / "out").rglob("*.json")) == [
        "add.json",
        "find_user.json",
        "inventory.json",
    ]


def test_handshake_era_server_is_reached_through_initialize(reach: Reach) -> None:
    result = reach.run("handshake_era.py")
    result.assert_outcomes(passed=4)
    result.stdout.fnmatch_lines(["handshake-era (protocol 2025-11-25): 1 tools, * calls*"])


REPRODUCE_WHEN = {
    "stdio": "one line on the server's stdin",
    "http": "POST it to the URL",
    "app": "the server ran in-process; over stdio this is one line on its stdin",
}


def test_output_schema_violation_is_found_and_shrunk(reach: Reach) -> None:
    result = reach.run("broken_output.py", examples=100)
    result.assert_outcomes(passed=7, failed=1)
    target = reach.url if reach.transport == "http" else "*broken_output.py*"
    request = (
        [
            '    {"id":1,"jsonrpc":"2.0","method":"tools/call","params":{"name":"price_quote",'
            '"arguments":{"quantity":101,"sku":""}*'
        ]
        if reach.transport == "stdio"
        else []
    )
    result.stdout.fnmatch_lines(
        [
            "structuredContent does not match the outputSchema (2020-12)",
            "  $.price: '*' is not of type 'number'",
            f"server: broken-output  ({reach.noun}: {target})",
            "smallest input found:",
            '    {"quantity": 101, "sku": ""}',
            f"reproduce with this tools/call request ({REPRODUCE_WHEN[reach.transport]}):",
            *request,
        ]
    )
    assert "FAILED mcp:broken-output::price_quote::contract" in result.stdout.str()


def test_missing_structured_content_fails(reach: Reach) -> None:
    result = reach.run("missing_structured.py")
    text = result.stdout.str()
    assert "FAILED mcp:missing-structured::summarize::contract" in text
    result.stdout.fnmatch_lines(
        ["the tool declares an outputSchema but the result has no structuredContent"]
    )
    assert result.parseoutcomes()["failed"] == 1


def test_json_rpc_error_instead_of_a_result_fails(reach: Reach) -> None:
    result = reach.run("rpc_error.py", examples=100)
    text = result.stdout.str()
    assert "FAILED mcp:rpc-error::lookup::contract" in text
    result.stdout.fnmatch_lines(
        ["a schema-valid input was answered with JSON-RPC error -32603: *", "smallest input found:"]
    )
    result.assert_outcomes(passed=7, failed=1)
    # The shrunk key is the shortest string that triggers the error: four characters.
    match = re.search(r'^    \{"key": "(.*)"\}$', text, re.MULTILINE)
    assert match is not None and len(match.group(1)) == 4


def test_a_hanging_call_times_out_and_the_run_goes_on(reach: Reach) -> None:
    result = reach.run("hang.py", "--mcp-call-timeout=1", "--mcp-max-restarts=1", examples=100)
    result.assert_outcomes(passed=7, failed=1)
    result.stdout.fnmatch_lines(
        ["*the call did not return: no answer to tools/call within 1 s*", "smallest input found:"]
    )
    assert "FAILED mcp:hang::slow::contract" in result.stdout.str()
    assert re.search(r'"n": -\d+', result.stdout.str())


def test_a_call_that_ends_the_server_fails_with_its_input(reach: Reach) -> None:
    result = reach.run("crash.py", examples=100)
    text = result.stdout.str()
    assert "FAILED mcp:crash::divide::contract" in text
    result.stdout.fnmatch_lines(["*the call killed the server*"])
    assert '"b": 0' in text
    how = {
        "stdio": "exit status 3",
        "http": "cannot be restarted",
        "app": "its run ended with SystemExit: 3",
    }[reach.transport]
    assert how in text
    summary = text.split("short test summary")[-1]
    if reach.transport == "stdio":
        # ping_tool takes no arguments: no input is invalid, its rejects_invalid is skipped.
        # divide's invalid inputs derive from the smallest valid one, {"a": 0, "b": 0}: the
        # look-alike "0" for `a` is coerced by the SDK and the division by zero kills the
        # server again, but what a coerced input does is the contract check's finding (on
        # the valid {"a": 0, "b": 0}), so rejects_invalid passes.
        result.assert_outcomes(passed=6, failed=1, skipped=1)
        assert "FAILED mcp:crash::divide::rejects_invalid" not in text
        result.stdout.fnmatch_lines(
            [
                "the call killed the server: *exit status 3*",
                "smallest input found:",
                '*"b": 0*',
                "server stderr while this call ran:",
                "*fatal: division by zero*",
            ]
        )
        result.stdout.fnmatch_lines(["crash (protocol *): 2 tools, * calls, *restarted*"])
    if reach.transport == "http":
        # The HTTP server process died with the call, and broke the connection. A server
        # behind a URL is not ours to restart: later calls say so.
        result.stdout.fnmatch_lines(["*the call killed the server: *connection*"])
        assert (
            "FAILED mcp:crash::ping_tool::contract - the server could not be restarted" in summary
        )
    else:
        # Restarted (a new process, or a new run of the server object): the run went on.
        assert "mcp:crash::ping_tool::contract" not in summary


def test_inferred_contract_is_recorded_then_enforced(
    reach: Reach, pytester: pytest.Pytester
) -> None:
    recorded = reach.run("undeclared.py")
    recorded.assert_outcomes(passed=8)
    stock = pytester.path / "mcp-contracts" / "undeclared" / "stock.json"
    assert stock.is_file()
    # A CI run against the same server passes against the committed files.
    reach.monkeypatch.setenv("CI", "true")
    reach.run("undeclared.py").assert_outcomes(passed=8)
    # The server changes: a new required argument and `count` now a string.
    changed = reach.run("undeclared.py", env={"UNDECLARED_VARIANT": "2"})
    text = changed.stdout.str()
    assert "FAILED mcp:undeclared::stock::drift" in text
    assert "FAILED mcp:undeclared::stock::contract" in text
    changed.stdout.fnmatch_lines(["*warehouse*"])
    assert "$.count" in text or "count" in text


@pytest.fixture
def snapshots_by_transport(
    pytester: pytest.Pytester,
    inprocess_pytest: RunPytest,
    http_server: HttpServer,
    monkeypatch: pytest.MonkeyPatch,
) -> Callable[[str], dict[str, Path]]:
    def run_all(name: str) -> dict[str, Path]:
        folders = {}
        for transport in TRANSPORTS:
            snaps = pytester.path / f"snaps-{transport}"
            Reach(transport, pytester, inprocess_pytest, http_server, monkeypatch).run(
                name, f"--mcp-snapshot-dir={snaps.name}", "--hypothesis-seed=7"
            )
            folders[transport] = snaps
        return folders

    return run_all


@pytest.mark.parametrize("name", ["typed_ok.py", "undeclared.py"])
def test_every_transport_writes_the_same_files(
    snapshots_by_transport: Callable[[str], dict[str, Path]], name: str
) -> None:
    folders = snapshots_by_transport(name)
    files = {
        t: sorted(p.relative_to(f) for p in f.rglob("*") if p.is_file()) for t, f in folders.items()
    }
    assert files["stdio"], "the stdio run wrote no snapshot files"
    assert files["http"] == files["stdio"] == files["app"]
    for relative in files["stdio"]:
        for transport in ("http", "app"):
            assert filecmp.cmp(
                folders["stdio"] / relative, folders[transport] / relative, shallow=False
            ), (
                f"{relative} differs between stdio and {transport}:\n"
                + (folders["stdio"] / relative).read_text()
                + "\n---\n"
                + (folders[transport] / relative).read_text()
            )


def test_inspect_shows_the_same_tools(reach: Reach) -> None:
    import json
    import subprocess

    flag, value = reach.args("typed_ok.py")[0].removeprefix("--mcp-").split("=", 1)
    option = {"server": "--server", "url": "--url", "app": "--app"}[flag]
    done = subprocess.run(
        [*module_command("pytest_mcp_contracts"), "inspect", option, value, "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=reach.pytester.path,
    )
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["server"] == "typed-ok"
    assert [t["name"] for t in answer["tools"]] == ["inventory", "add", "find_user"]
    assert {t["contractSource"] for t in answer["tools"]} == {"declared"}


def test_arguments_mirrored_into_headers_reach_the_tool(reach: Reach) -> None:
    """Over HTTP, a 2026-07-28 server refuses a tools/call whose Mcp-Param-* headers do not
    mirror its x-mcp-header arguments; every generated input must get through."""
    result = reach.run("param_headers.py", "-v", examples=25)
    result.assert_outcomes(passed=4)
    result.stdout.fnmatch_lines(["*mcp:param-headers::weather::contract PASSED*"])
