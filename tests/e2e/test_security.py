"""The security check: a probe proves an injection only by the file it makes appear in a
folder the run owns. The seeded servers of tests/servers/security/ (real SDK, real `git`,
a real shell) are found with their evidence and CWE; their fixed twins, which quote every
probe back in their refusals, pass on several seeds, in CI mode and under -n 2."""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Callable
from pathlib import Path

import pytest

from pytest_mcp_contracts.inputs.probes import commit_folder

from ..conftest import NO_SEQUENCES, RunPytest, server_command
from .test_inspect import cli_command

# Only the security items; a later --mcp-security wins over the suite's default (off).
SECURITY_ONLY = ("--mcp-security=on", NO_SEQUENCES, "-k", "security", "-rA")


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    """A git repository with one commit, as the git servers serve."""
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "a.txt").write_text("one\n")
    assert commit_folder(repo, "first")
    return repo


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    allowed = tmp_path / "allowed"
    allowed.mkdir()
    (allowed / "notes.txt").write_text("a\nb\n")
    return allowed


def git_refs(repository: Path) -> str:
    return f"--mcp-server={server_command('security/git_refs.py')} --repository {repository}"


def git_repo(repository: Path) -> str:
    return f"--mcp-server={server_command('security/git_repo.py')} --repository {repository}"


def shell_exec(folder: Path) -> str:
    return f"--mcp-server={server_command('security/shell_exec.py')} {folder}"


def ts_files_shell(ts_servers: Callable[[str], str], folder: Path) -> str:
    return f"--mcp-server={ts_servers('security_files_shell.mjs')} {folder}"


def outcomes(result: pytest.RunResult) -> dict[str, str]:
    found = {}
    for line in result.stdout.lines:
        outcome = r"(PASSED|FAILED|SKIPPED) (?:\[\d+\] )?(?:\S+:\d+: )?"
        match = re.match(outcome + r"(mcp:[^\s:]+::[^\s:]+::\w+)", line)
        if match:
            found[match[2]] = match[1]
    return found


def test_a_ref_read_as_a_git_option_is_argument_injection_with_its_file_as_evidence(
    inprocess_pytest: RunPytest, repository: Path, pytester: pytest.Pytester
) -> None:
    result = inprocess_pytest(git_refs(repository), *SECURITY_ONLY, "--mcp-sarif=out.sarif")
    assert outcomes(result) == {
        "mcp:git-refs::git_diff::security": "FAILED",
        "mcp:git-refs::git_show::security": "FAILED",
    }
    text = result.stdout.str()
    assert "argument injection: the value was read as a program's option (CWE-88)" in text
    assert "in argument 'target'" in text and "in argument 'revision'" in text
    # The evidence is the file, in the run's own folder, and the annotation it contradicts.
    evidence = re.findall(r"evidence: (\S+) appeared during the call", text)
    assert len(evidence) == 2 and all("pytest-mcp-canaries-" in path for path in evidence)
    assert "annotated readOnlyHint: true, yet this call wrote a file" in text
    assert text.count("replayed alone on a fresh server: the evidence showed again") == 2
    # One command reproduces it, and it does: the folder is kept (emptied) for it, and the
    # file appears in it again.
    command = next(line.strip() for line in result.stdout.lines if "mcp-contracts call" in line)
    words = shlex.split(command)
    canary = Path(re.findall(r"--output=([^\"]+)", words[-1])[0])
    assert not canary.exists() and canary.parent.is_dir()
    done = cli_command(*words[1:])
    assert done.returncode == 0, done
    assert canary.is_file()
    sarif = json.loads((pytester.path / "out.sarif").read_text())
    rules = {rule["id"]: rule for rule in sarif["runs"][0]["tool"]["driver"]["rules"]}
    assert rules["argument_injection"]["properties"]["security-severity"] == "9.1"
    assert "external/cwe/cwe-88" in rules["argument_injection"]["properties"]["tags"]
    assert {r["ruleId"] for r in sarif["runs"][0]["results"]} == {"argument_injection"}


def test_shell_syntax_that_runs_is_command_injection_and_a_run_anything_tool_is_left_alone(
    inprocess_pytest: RunPytest, folder: Path
) -> None:
    result = inprocess_pytest(shell_exec(folder), *SECURITY_ONLY, "--mcp-call=all")
    # run_command runs what it is given by design (its one argument is "The shell command
    # to run"): it has no security item, even when it may be called.
    assert outcomes(result) == {"mcp:shell-exec::count_lines::security": "FAILED"}
    text = result.stdout.str()
    assert "OS command injection: a shell ran the command in the value (CWE-78)" in text
    assert "in argument 'filename'" in text
    assert sorted(p.name for p in folder.iterdir()) == ["notes.txt"]  # its folder untouched
    # The folder is the user's: nothing is laid beside it, and the run says how to probe it.
    assert f"path escapes beside {folder} are not probed" in text


def files(name: str, folder: Path) -> str:
    """A file server of tests/servers/security/, its allowed folder the run's roots folder
    ({roots}), beside which the run lays what a path must not reach."""
    return f"--mcp-server={server_command(f'security/{name}.py')} {{roots}} {folder}"


@pytest.mark.parametrize(
    ("name", "cwe"), [("files_prefix", 22), ("files_symlink", 59)], ids=["prefix", "symlink"]
)
def test_a_path_that_escapes_a_boundary_the_server_keeps_is_found_by_what_came_back(
    inprocess_pytest: RunPytest, folder: Path, name: str, cwe: int
) -> None:
    result = inprocess_pytest(files(name, folder), *SECURITY_ONLY)
    server = name.replace("_", "-")
    assert outcomes(result) == {
        f"mcp:{server}::{tool}::security": "FAILED"
        for tool in ("read_text_file", "list_directory", "write_file")
    }
    text = result.stdout.str()
    assert text.count(f"(CWE-{cwe}) in argument 'path'") == 3
    # The evidence: a token the run laid outside came back (read, listed), or a file appeared
    # there (written); the plain outside path was refused first.
    assert text.count("came back during the call") == 2
    # (the write probe's file, or the laid secret a read probe's path let write_file overwrite)
    assert re.search(r"evidence: /\S+ (?:appeared|changed) during the call", text)
    assert text.count("the same run's plain outside path was refused") == 3
    # What the run laid beside its roots folder is gone.
    laid = set(re.findall(r"/\S*?(?:pytest-mcp-outside-[0-9a-f]+|pytest-mcp-roots-\w+_evil)", text))
    assert laid and not [path for path in laid if Path(path).exists()]


def test_a_repository_outside_the_one_the_server_was_given_is_read_and_written(
    inprocess_pytest: RunPytest, repository: Path
) -> None:
    """CVE-2025-68145 and CVE-2025-68143 (mcp-server-git before 2025.12.18): repo_path never
    compared with --repository. The run's outside folder is a repository whose commit is a
    token: its log comes back. git_init writes there, and the contract check's own
    generated paths (in the client's roots folder, which the server never asked for) make
    repositories outside --repository: every call is watched, a write is never shrunk."""
    result = inprocess_pytest(
        git_repo(repository),
        "--mcp-security=on",
        NO_SEQUENCES,
        "-k",
        "security or (git_init and contract)",
        "-rA",
    )
    assert outcomes(result) == {
        "mcp:git-repo::git_status::security": "FAILED",
        "mcp:git-repo::git_log::security": "FAILED",
        "mcp:git-repo::git_init::security": "FAILED",
        "mcp:git-repo::git_init::contract": "FAILED",
    }
    text = result.stdout.str()
    served = "a path outside the boundary the server declared was served (CWE-22)"
    # Read (its log: the token), and written (git_init there: the watch saw it).
    assert text.count(f"{served} in argument 'repo_path'") == 3
    assert text.count("a commit's message) came back during the call") == 2
    assert f"the boundary: folders it was given: {repository}" in text
    assert f"  boundary: folders it was given: {repository}" in text  # the summary's line
    # git_init: what it made outside, seen on disk, reported as sent and replayed.
    assert text.count("a write outside the boundary the server declared (CWE-22)") == 1
    assert re.search(r"evidence: /\S+/\.git, ", text)
    assert "input (not shrunk):" in text and "a write is not shrunk" in text
    assert text.count("replayed alone on a fresh server: the same files changed again") == 2


NOTES_EXAMPLES = """
[tool.mcp-contracts.tools.get_note]
examples = [{name = "notes"}]
[tool.mcp-contracts.tools.archive_note]
examples = [{name = "notes"}]
"""


@pytest.mark.parametrize(
    ("fixed", "seed"),
    [(False, "1"), (True, "1"), (True, "2"), (True, "ci")],
    ids=["lying", "fixed-1", "fixed-2", "fixed-ci"],
)
def test_annotations_are_held_to_what_each_call_changed_on_disk(
    inprocess_pytest: RunPytest,
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    fixed: bool,
    seed: str,
) -> None:
    """A tool annotated readOnlyHint: true that writes, one annotated destructiveHint: false
    that deletes: the contract check's calls are watched (the notes folder is the run's
    roots folder, whose sample files include notes.txt: the note "notes"). The fixed twin
    passes on two seeds and in CI mode."""
    if fixed:
        monkeypatch.setenv("MCP_FIXTURE_FIXED", "1")
    pytester.makepyprojecttoml(NOTES_EXAMPLES)
    server = f"--mcp-server={server_command('security/readonly_writes.py')} {{roots}}"
    options = ("--mcp-security=on", NO_SEQUENCES, "-k", "contract", "-rA")
    if seed == "ci":  # CI writes no contract: a local run records them first
        inprocess_pytest(server, *options).assert_outcomes(passed=3)
        monkeypatch.setenv("CI", "true")
    result = inprocess_pytest(server, *options, f"--hypothesis-seed={seed.replace('ci', '3')}")
    verdict = "PASSED" if fixed else "FAILED"
    assert outcomes(result) == {
        "mcp:readonly-writes::get_note::contract": verdict,
        "mcp:readonly-writes::archive_note::contract": verdict,
        "mcp:readonly-writes::list_notes::contract": "PASSED",
    }
    if fixed:  # archive_note still writes its copy: a write its annotations allow
        return
    text = result.stdout.str()
    assert "the tool is annotated readOnlyHint: true, yet the call wrote files" in text
    assert re.search(r"evidence: created: /\S+/\.access\.log, during the call", text)
    assert "the tool is annotated destructiveHint: false, yet the call deleted files" in text
    assert re.search(r"evidence: deleted: /\S+/notes\.txt, during the call", text)
    assert text.count("replayed alone on a fresh server: the same files changed again") == 2


@pytest.mark.parametrize("fixed", [False, True], ids=["online", "fixed"])
def test_a_tool_annotated_offline_that_reaches_the_network_breaks_its_annotation(
    inprocess_pytest: RunPytest, monkeypatch: pytest.MonkeyPatch, fixed: bool
) -> None:
    """openWorldHint: false, and a URL naming a listener the run opened on 127.0.0.1: only a
    request carrying the probe's token counts, never the URL quoted in a refusal."""
    if fixed:
        monkeypatch.setenv("MCP_FIXTURE_FIXED", "1")
    server = f"--mcp-server={server_command('security/open_world.py')}"
    result = inprocess_pytest(server, *SECURITY_ONLY)
    verdict = "PASSED" if fixed else "FAILED"
    assert outcomes(result) == {"mcp:open-world::preview::security": verdict}
    if fixed:  # it refused every URL, quoting each back
        return
    text = result.stdout.str()
    assert "the tool is annotated openWorldHint: false, yet the call reached the network" in text
    assert re.search(
        r"evidence: a request for http://127\.0\.0\.1:\d+/mcp-canary-\w+ reached", text
    )
    assert "replayed alone on a fresh server: the evidence showed again" in text


ANY_PATH = '''
from mcp.server import MCPServer

app = MCPServer("any-path")


@app.tool()
def read_text_file(path: str) -> str:
    """The text of any file."""
    with open(path) as handle:
        return handle.read()


app.run()
'''


def test_a_server_that_serves_any_path_has_no_boundary_to_escape(
    inprocess_pytest: RunPytest, tmp_path: Path
) -> None:
    """The plain outside path served: information, not a failure, and no path probe after
    it counts (the shell and flag probes still would)."""
    script = tmp_path / "any_path.py"
    script.write_text(ANY_PATH)
    result = inprocess_pytest(f"--mcp-server={server_command(script)}", *SECURITY_ONLY)
    assert outcomes(result) == {"mcp:any-path::read_text_file::security": "PASSED"}
    assert "the plain outside path the run laid was served" in result.stdout.str()


def test_the_typescript_sdks_shell_is_found_the_same_way(
    inprocess_pytest: RunPytest, ts_servers: Callable[[str], str], folder: Path
) -> None:
    result = inprocess_pytest(ts_files_shell(ts_servers, folder), *SECURITY_ONLY)
    assert outcomes(result) == {
        "mcp:ts-files-shell::count_lines::security": "FAILED",
        "mcp:ts-files-shell::read_text_file::security": "PASSED",
    }
    assert "(CWE-78) in argument 'filename'" in result.stdout.str()


@pytest.mark.parametrize("seed", ["1", "2", "3"])
def test_the_fixed_twins_pass_though_they_quote_every_probe_back(
    inprocess_pytest: RunPytest,
    repository: Path,
    folder: Path,
    seed: str,
    monkeypatch: pytest.MonkeyPatch,
    ts_servers: Callable[[str], str],
) -> None:
    monkeypatch.setenv("MCP_FIXTURE_FIXED", "1")
    if seed == "3":
        monkeypatch.setenv("CI", "true")
    servers = (
        git_refs(repository),
        git_repo(repository),
        shell_exec(folder),
        ts_files_shell(ts_servers, folder),
        files("files_prefix", folder),
        files("files_symlink", folder),
    )
    result = inprocess_pytest(*servers, *SECURITY_ONLY, f"--hypothesis-seed={seed}")
    assert outcomes(result) == {
        "mcp:git-refs::git_diff::security": "PASSED",
        "mcp:git-refs::git_show::security": "PASSED",
        **{
            f"mcp:git-repo::{tool}::security": "PASSED"
            for tool in ("git_status", "git_log", "git_init")
        },
        "mcp:shell-exec::count_lines::security": "PASSED",
        "mcp:ts-files-shell::count_lines::security": "PASSED",
        "mcp:ts-files-shell::read_text_file::security": "PASSED",
        **{
            f"mcp:files-{bug}::{tool}::security": "PASSED"
            for bug in ("prefix", "symlink")
            for tool in ("read_text_file", "list_directory", "write_file")
        },
    }
    # They refused the probes in words that quote them: no words count, only files.
    assert "probes sent, no evidence" in result.stdout.str()
    # What the probes made git_init create inside --repository (a folder named
    # ".; touch ...") is removed after each call: the repository holds what it held.
    assert sorted(p.name for p in repository.iterdir()) == [".git", "a.txt"]


def test_under_xdist_each_worker_probes_into_its_own_folder(
    pytester: pytest.Pytester, repository: Path, folder: Path
) -> None:
    """Each worker lays its own escapes and watches its own roots folder: the outside
    repository's token and the writes are found by every worker that runs an item."""
    servers = (git_refs(repository), shell_exec(folder), git_repo(repository))
    result = pytester.runpytest_subprocess(*servers, *SECURITY_ONLY, "-p", "no:randomly", "-n", "2")
    result.assert_outcomes(failed=6)
    text = result.stdout.str()
    assert "CWE-88" in text and "CWE-78" in text
    assert text.count("a path outside the boundary the server declared was served (CWE-22)") == 3
