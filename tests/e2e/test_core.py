"""The core flow, as a server author runs it: real server processes, pytest in this process
(``run_mcp_inprocess``) where nothing here is about the pytest process itself.

What every transport must do alike (a correct server passes; broken output, missing
structuredContent, a JSON-RPC error, a crash and a hang each fail one item) is in
test_transports.py, which runs it over stdio too; this file keeps what is about stdio or
about the run as a whole."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ..conftest import NO_SEQUENCES, RunMcp, RunPytest, server_command


def outcomes(result: pytest.RunResult) -> dict[str, int]:
    return result.parseoutcomes()


def test_correct_legacy_server_passes(run_mcp_inprocess: RunMcp) -> None:
    result = run_mcp_inprocess("legacy_only.py")
    result.assert_outcomes(passed=9)  # 2 tools x 4 checks, and the server's sequences item
    result.stdout.fnmatch_lines(["legacy-only (protocol 2025-*): 2 tools, * calls*"])


def test_collect_only_lists_stable_node_ids(run_mcp_inprocess: RunMcp) -> None:
    result = run_mcp_inprocess("paginated.py", args=("--collect-only", "-q"))
    ids = [line for line in result.stdout.lines if line.startswith("mcp:")]
    # The server's sequences item first (it needs no restart on a server nothing has
    # called), then seven tools over three pages, one reached through an empty-string cursor.
    assert ids == [
        "mcp:paginated::sequences",
        *(
            f"mcp:paginated::echo_{n}::{check}"
            for n in range(1, 8)
            for check in ("schema", "drift", "contract", "rejects_invalid")
        ),
    ]
    assert result.ret == 0
    assert "MCP contracts" not in result.stdout.str()  # nothing ran: nothing to summarize


@pytest.mark.parametrize(
    ("server", "timeout", "expected"),
    [
        # It exits (after importing mcp, which a loaded machine can take seconds over), so a
        # long timeout costs nothing.
        (
            "startup_crash.py",
            30,
            ["*exit status 1*", "*ImportError: cannot import name 'FastMCP'*"],
        ),
        # These two never answer: the run waits out the timeout. They print at once, or
        # nothing (standard library only), so a short one loses nothing.
        (
            "startup_garbage.py",
            1,
            ["*no answer to the handshake within 1 s*not JSON-RPC*'Starting server...'*"],
        ),
        ("startup_silent.py", 1, ["*no answer to the handshake within 1 s*"]),
    ],
)
def test_server_that_does_not_start_is_one_clear_collection_error(
    run_mcp_inprocess: RunMcp, server: str, timeout: int, expected: list[str]
) -> None:
    result = run_mcp_inprocess(
        server,
        args=(
            NO_SEQUENCES,
            f"--mcp-startup-timeout={timeout}",
        ),
    )
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(
        ["*ERROR collecting mcp:*", "MCP server did not start: *", *expected]
    )
    result.stdout.no_fnmatch_line("*Traceback (most recent call last)*pytest_mcp_contracts*")
    assert "_pytest" not in result.stdout.str()


def test_missing_command_is_a_clear_error(inprocess_pytest: RunPytest) -> None:
    result = inprocess_pytest(NO_SEQUENCES, "--mcp-server=no-such-server-binary --stdio")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(
        [
            "*ERROR collecting mcp:no-such-server-binary*",
            "*command not found: 'no-such-server-binary'*",
        ]
    )


def test_server_inherits_the_environment(
    run_mcp_inprocess: RunMcp, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("API_KEY", "secret-123")
    result = run_mcp_inprocess("needs_env.py", args=(NO_SEQUENCES,))
    result.assert_outcomes(passed=3, skipped=1)


def test_server_without_its_environment_says_why(
    run_mcp_inprocess: RunMcp, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("API_KEY", raising=False)
    result = run_mcp_inprocess("needs_env.py", args=(NO_SEQUENCES,))
    result.stdout.fnmatch_lines(["*exit status 2*", "*needs-env: API_KEY is not set*"])


def test_static_schema_checks(run_mcp_inprocess: RunMcp) -> None:
    result = run_mcp_inprocess(
        "bad_schemas.py", args=(NO_SEQUENCES, "-k", "not contract and not rejects_invalid", "-rfw")
    )
    result.assert_outcomes(passed=10, failed=4, warnings=1)
    result.stdout.fnmatch_lines_random(
        [
            "FAILED mcp:bad-schemas::string_root::schema - *",
            "FAILED mcp:bad-schemas::bad_output::schema - *",
            "FAILED mcp:bad-schemas::odd_dialect::schema - *",
            "FAILED mcp:bad-schemas::array_output::schema - *",
            "[[]mcp/root-object[]] inputSchema root must be an object schema (the spec "
            "requires it); it has type 'string'",
            "[[]mcp/valid-schema[]] outputSchema is not a valid 2020-12 schema",
            "  at $.type: 5 is not valid under any of the given schemas",
            "[[]mcp/dialect[]] inputSchema: unsupported JSON Schema dialect "
            "$schema='http://example.com/my-dialect'*",
            "[[]mcp/root-object[]] outputSchema root must be an object schema "
            "(protocol 2025-11-25 requires it)*",
            "*tool name 'bad name!' does not follow the spec's naming rules*",
        ]
    )


def test_unsatisfiable_input_schema_names_the_tool_and_why(run_mcp_inprocess: RunMcp) -> None:
    result = run_mcp_inprocess(
        "bad_schemas.py", args=(NO_SEQUENCES, "-k", "impossible or draft07_ok")
    )
    result.assert_outcomes(passed=6, failed=1, skipped=1)
    result.stdout.fnmatch_lines(
        ["FAILED mcp:bad-schemas::impossible::contract - no inputs can be*"]
    )


def test_ini_setting_names_the_server(
    pytester: pytest.Pytester, inprocess_pytest: RunPytest
) -> None:
    pytester.makepyprojecttoml(
        f"""
        [tool.pytest.ini_options]
        mcp_server = [{server_command("legacy_only.py")!r}]
        mcp_max_examples = "5"
        """
    )
    result = inprocess_pytest(NO_SEQUENCES)
    result.assert_outcomes(passed=8)
    result.stdout.fnmatch_lines(["legacy-only (protocol *): 2 tools, 10 calls, 0 returned isError"])


def test_bad_option_value_is_a_usage_error(inprocess_pytest: RunPytest) -> None:
    result = inprocess_pytest(
        NO_SEQUENCES, f"--mcp-server={server_command('legacy_only.py')}", "--mcp-max-examples=zero"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--mcp-max-examples (ini mcp_max_examples) must be a whole*"])


def test_two_servers_in_one_run(run_mcp_inprocess: RunMcp) -> None:
    result = run_mcp_inprocess(
        "legacy_only.py",
        "paginated.py",
        args=(
            NO_SEQUENCES,
            "--mcp-max-examples=5",
        ),
    )
    result.assert_outcomes(passed=36)


def test_typescript_sdk_server_falls_back_to_the_handshake(
    inprocess_pytest: RunPytest, ts_server_command: str
) -> None:
    result = inprocess_pytest(
        NO_SEQUENCES, f"--mcp-server={ts_server_command}", "--mcp-max-examples=20"
    )
    result.assert_outcomes(passed=8)
    # 20 inputs each, and the read-only tool's 2 coverage inputs sent again (runs/repeat).
    result.stdout.fnmatch_lines(["ts-legacy (protocol 2025-*): 2 tools, 42 calls*"])


def test_error_results_are_counted_and_a_barely_exercised_tool_warns(
    run_mcp_inprocess: RunMcp,
) -> None:
    result = run_mcp_inprocess(
        "always_error.py", args=(NO_SEQUENCES, "--mcp-max-examples=20", "-rw")
    )
    result.assert_outcomes(passed=8, warnings=1)
    result.stdout.fnmatch_lines(
        [
            "*always-error lookup: 20 of 20 calls returned isError, so the output contract was "
            "barely exercised*",
            "always-error (protocol *): 2 tools, 40 calls, 20 returned isError",
        ]
    )
    assert 'refuses them (the last said: "no record with id ' in result.stdout.str()


@pytest.mark.parametrize("servers", [1, 2])
def test_one_process_per_server_and_run_and_it_is_gone_afterwards(
    run_mcp_inprocess: RunMcp,
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    servers: int,
) -> None:
    pid_file = pytester.path / "pids.txt"
    monkeypatch.setenv("MCP_FIXTURE_PID_FILE", str(pid_file))
    result = run_mcp_inprocess(
        *["paginated.py"] * servers,
        args=(
            NO_SEQUENCES,
            "--mcp-max-examples=5",
        ),
    )
    result.assert_outcomes(passed=28 * servers)
    pids = [int(line) for line in pid_file.read_text().split()]
    assert len(pids) == servers, "every item must reuse its server's one process"
    for pid in pids:  # several servers are closed side by side, each waited for
        status = Path(f"/proc/{pid}/status")
        # Gone, or at most a zombie waiting for a reaper that is not ours.
        assert not status.exists() or "State:\tZ" in status.read_text()


LAST_SEQUENCES = """
def pytest_collection_modifyitems(items):
    items.sort(key=lambda item: item.name == "sequences")
"""


@pytest.mark.parametrize(
    ("conftest", "args", "starts"),
    [
        # The sequences item comes first, on the server as it started: nothing to restart.
        ("", (), 1),
        # Run after the tools' items, it starts from a fresh server, as it always did.
        (LAST_SEQUENCES, (), 2),
        # A reset command resets state a restart does not: it runs, and the restart follows.
        ("", ("--mcp-reset-command=true",), 2),
    ],
    ids=["first", "last", "reset-command"],
)
def test_the_sequences_item_restarts_only_a_server_something_called(
    run_mcp_inprocess: RunMcp,
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    conftest: str,
    args: tuple[str, ...],
    starts: int,
) -> None:
    pid_file = pytester.path / "pids.txt"
    monkeypatch.setenv("MCP_FIXTURE_PID_FILE", str(pid_file))
    pytester.makeconftest(conftest)
    result = run_mcp_inprocess("legacy_only.py", args=("--mcp-max-examples=5", "-v", *args))
    result.assert_outcomes(passed=9)
    names = [line.split()[0] for line in result.stdout.lines if " PASSED " in line]
    assert names[-1 if conftest else 0] == "mcp:legacy-only::sequences"
    assert len(pid_file.read_text().split()) == starts


def test_a_server_the_sequences_item_left_crashed_costs_the_tools_items_no_restart(
    run_mcp_inprocess: RunMcp, pytester: pytest.Pytester
) -> None:
    """The sequences item shrinks a crash on fresh servers, and the last attempt leaves the
    server dead. The tools' items after it get it back alive without a restart counted
    against them or in the summary: as many as when the item runs last, after them."""

    def restarts(conftest: str) -> int:
        pytester.makeconftest(conftest)
        result = run_mcp_inprocess(
            "crash.py", args=("--hypothesis-seed=1", "--mcp-report=report.json")
        )
        result.assert_outcomes(passed=6, failed=2, skipped=1)
        out = result.stdout.str()
        assert "FAILED mcp:crash::sequences - the call killed the server" in out
        assert "FAILED mcp:crash::divide::contract - the call killed the server" in out
        (server,) = json.loads((pytester.path / "report.json").read_text())["servers"]
        return int(server["restarts"])

    assert restarts("") == restarts(LAST_SEQUENCES)


def test_a_fixed_seed_makes_the_run_reproducible(run_mcp_inprocess: RunMcp) -> None:
    def calls() -> str:
        result = run_mcp_inprocess(
            "broken_output.py",
            args=(
                NO_SEQUENCES,
                "--hypothesis-seed=12345",
            ),
        )
        return next(line for line in result.stdout.lines if line.startswith("broken-output ("))

    assert calls() == calls()


def test_shrinking_stops_when_its_time_is_up_and_reports_a_real_failing_input(
    run_mcp_inprocess: RunMcp,
) -> None:
    # slow(n) never answers for n < 0: each shrinking attempt that hangs costs a call
    # timeout and a restart. With 1.5 s for shrinking, the report comes soon after the first
    # hang, with an input that did fail (a negative n), and says why it is not smaller.
    result = run_mcp_inprocess(
        "hang.py",
        args=(
            NO_SEQUENCES,
            "--mcp-call-timeout=1",
            "--mcp-shrink-time=1.5",
            "--mcp-coverage=off",  # its corner n = -1 would fail first, as it is, unshrunk
            "-k",
            "slow and contract",
        ),
    )
    text = result.stdout.str()
    assert "FAILED mcp:hang::slow::contract" in text, text
    assert "the call did not return: no answer to tools/call within 1 s" in text
    assert "(not shrunk further: shrinking took 1.5 s, --mcp-shrink-time" in text, text
    assert re.search(r'smallest input found:\n\s+\{"n": -\d+\}', text), text


def test_a_tool_that_must_be_called_as_a_task_is_not_called_and_says_why(
    run_mcp_inprocess: RunMcp,
) -> None:
    result = run_mcp_inprocess(
        "task_only.py",
        args=(
            NO_SEQUENCES,
            "-rs",
        ),
    )
    text = result.stdout.str()
    result.assert_outcomes(passed=6, skipped=2)
    for check in ("contract", "rejects_invalid"):
        assert f"mcp:task-only::research::{check}: not called: the tool declares " in text
    assert 'execution.taskSupport: "required", so a client must call it as a task' in text
    assert "task-only (protocol 2025-11-25): 2 tools, 50 calls" in text, text
