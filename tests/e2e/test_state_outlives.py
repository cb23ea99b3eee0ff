"""Fresh means fresh: a server that keeps its state in a file reads it back after a restart.

tests/servers/state_file.py keeps its keys in the JSON file `--state` names; `recall` of a
stored key crashes, so on a really fresh server it fails only after `remember`. Its replay
on a restarted server that read the file back must not be called "alone on a freshly
started server"; with `--mcp-reset-command` removing the file the replay is fresh and finds
`remember -> recall`. Under `-n 2` no two workers' servers share the file (issue 43, classes
5 and 6; docs/how-to/state.md).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests import warm_servers
from tests.conftest import NO_SEQUENCES, RunPytest, server_command

# The contract items of remember run before recall's and store "alpha" in the file; recall's
# first input is "alpha". The sequences item would find the bug by itself.
ARGS = (NO_SEQUENCES, "--mcp-max-examples=10", "--hypothesis-seed=1")
NOT_FRESH = "(it failed again alone on a restarted server, but that server was not fresh"
FRESH_CLAIM = "fails alone on a freshly started server too"


def _server(state: str) -> str:
    return f"--mcp-server={server_command('state_file.py')} --state {state}"


def test_a_replay_on_a_server_that_read_back_its_file_does_not_claim_fresh(
    pytester: pytest.Pytester, inprocess_pytest: RunPytest
) -> None:
    result = inprocess_pytest(_server(str(pytester.path / "state.json")), *ARGS)
    result.assert_outcomes(passed=10, failed=1, skipped=1)
    out = result.stdout.str()
    assert FRESH_CLAIM not in out
    result.stdout.fnmatch_lines(
        [
            "tool: recall    check: contract",
            "or with one command:",
            # The calls that stored the state, then the failing one.
            '    remember {"key": *',
            '    recall {"key": "alpha"}',
            f"{NOT_FRESH}, so whether it fails alone is not known: state.json changed during "
            "the run and outlived the restart, so the restarted server read back what the run "
            "stored there; keys (read-only, without arguments) answered otherwise after the "
            "restart than at the first start* To replay on a really fresh server, reset it "
            "before each restart: --mcp-reset-command='rm -f state.json'. The calls that "
            "stored that state: the command below replays the * calls its server process "
            "made before it, then it*",
        ]
    )


def test_with_the_reset_command_the_replay_is_fresh_and_needs_the_earlier_call(
    pytester: pytest.Pytester, inprocess_pytest: RunPytest
) -> None:
    result = inprocess_pytest(
        _server(str(pytester.path / "state.json")),
        *ARGS,
        "--mcp-reset-command=rm -f state.json",
    )
    result.assert_outcomes(passed=10, failed=1, skipped=1)
    out = result.stdout.str()
    assert "was not fresh" not in out
    result.stdout.fnmatch_lines(
        [
            "tool: recall    check: contract",
            "shortest sequence found (each call, then its answer):",
            '    1. remember {"key": "alpha", *}',
            '    2. recall {"key": "alpha"}',
            "(it does not fail alone on a freshly started server; it fails there after the "
            "call before it above*",
        ]
    )


def test_state_no_command_names_shows_in_what_read_only_tools_answer(
    pytester: pytest.Pytester,
    inprocess_pytest: RunPytest,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """The file lies outside the working directory, named only by an environment variable
    the shell set: no file is watched, and `keys` answering otherwise after the restart is
    what tells the replay apart from a fresh one."""
    elsewhere = tmp_path_factory.mktemp("elsewhere") / "state.json"
    monkeypatch.setenv("STATE_FILE_PATH", str(elsewhere))
    result = inprocess_pytest(f"--mcp-server={server_command('state_file.py')}", *ARGS)
    result.assert_outcomes(passed=10, failed=1, skipped=1)
    out = result.stdout.str()
    assert FRESH_CLAIM not in out
    assert "changed during the run" not in out
    result.stdout.fnmatch_lines(
        [
            f"{NOT_FRESH}, so whether it fails alone is not known: keys (read-only, without "
            "arguments) answered otherwise after the restart than at the first start: the "
            "server keeps state outside its process (or that answer changes by itself). To "
            "replay on a really fresh server, reset it before each restart: "
            "--mcp-reset-command with a command that empties what the server keeps*",
        ]
    )


def test_the_worker_placeholder_is_main_in_a_serial_run(
    pytester: pytest.Pytester, inprocess_pytest: RunPytest
) -> None:
    result = inprocess_pytest(_server(str(pytester.path / "state-{worker}.json")), *ARGS)
    result.assert_outcomes(passed=10, failed=1, skipped=1)
    assert sorted(p.name for p in pytester.path.glob("state*.json")) == ["state-main.json"]


def _parallel(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    argv = [*warm_servers.pytest_command(), "-p", "no:randomly", "-p", "no:cacheprovider"]
    return subprocess.run(
        [*argv, *ARGS, "-n", "2", *args], cwd=cwd, capture_output=True, text=True, timeout=300
    )


def _failed(output: str) -> set[str]:
    return {line.split()[1] for line in output.splitlines() if line.startswith("FAILED ")}


def test_under_xdist_each_worker_has_its_own_copy_of_the_state_file(
    pytester: pytest.Pytester,
) -> None:
    """Two workers' servers given one file would corrupt it and fail on each other's
    writes; each gets its own copy instead, and the run says so once."""
    pytest.importorskip("xdist")
    shared = pytester.path / "state.json"
    done = _parallel(pytester.path, _server(str(shared)))
    assert done.returncode in (0, 1), done.stdout + done.stderr
    assert not shared.exists()  # no worker's server wrote the file the command names
    # Only the bug can fail (on the worker that ran remember's items before recall's).
    assert _failed(done.stdout) <= {"mcp:state-file::recall::contract"}, done.stdout
    assert FRESH_CLAIM not in done.stdout
    assert done.stdout.count("each worker's server was given its own copy instead") == 1
    assert f"share ({shared})" in done.stdout


def test_under_xdist_the_worker_placeholder_names_each_workers_file(
    pytester: pytest.Pytester,
) -> None:
    pytest.importorskip("xdist")
    done = _parallel(pytester.path, _server(str(pytester.path / "state-{worker}.json")))
    assert done.returncode in (0, 1), done.stdout + done.stderr
    names = {p.name for p in pytester.path.glob("state*.json")}
    # The worker that ran remember's items wrote its own file, and no other was written.
    assert names and names <= {"state-gw0.json", "state-gw1.json"}, names
    assert "given its own copy" not in done.stdout
    assert _failed(done.stdout) <= {"mcp:state-file::recall::contract"}, done.stdout
