"""--mcp-config: a client's own config file, in each client's format and with two servers in
it, runs both under their names there; secrets read through it are never printed; a broken
file is one clear line. Only the schema items run: what is under test is which servers start
and how they are named, not the checks."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests import warm_servers

from ..conftest import NO_SEQUENCES, SERVERS, HttpServer, RunPytest

SECRET = "c0nf1g-s3cr3t"
# typed_ok lists three tools, needs_env one: each server's schema items pass.
SCHEMA_ONLY = (NO_SEQUENCES, "-k", "schema", "-v")


def argv(name: str) -> list[str]:
    return warm_servers.command(str(SERVERS / name))


def claude_desktop(folder: Path, url: str) -> Path:
    first, second = argv("typed_ok.py"), argv("needs_env.py")
    path = folder / "claude_desktop_config.json"
    servers = {
        "users": {"command": first[0], "args": first[1:]},
        "keyed": {"command": second[0], "args": second[1:], "env": {"API_KEY": "${env:KEY}"}},
    }
    path.write_text(json.dumps({"mcpServers": servers}))
    return path


def claude_code(folder: Path, url: str) -> Path:
    first = argv("needs_env.py")
    path = folder / ".mcp.json"
    servers = {
        "keyed": {
            "type": "stdio",
            "command": first[0],
            "args": first[1:],
            "env": {"API_KEY": "${KEY}"},
        },
        "users": {"type": "http", "url": url, "headers": {"Authorization": "Bearer ${KEY}"}},
    }
    path.write_text(json.dumps({"mcpServers": servers}))
    return path


def vs_code(folder: Path, url: str) -> Path:
    first = argv("needs_env.py")
    path = folder / ".vscode" / "mcp.json"
    path.parent.mkdir()
    body = {
        "inputs": [
            {"type": "promptString", "id": "key", "description": "API key", "password": True}
        ],
        "servers": {
            "keyed": {
                "type": "stdio",
                "command": first[0],
                "args": first[1:],
                "env": {"API_KEY": "${input:key}"},
                "cwd": "${workspaceFolder}",
            },
            "users": {
                "type": "http",
                "url": url,
                "headers": {"Authorization": "Bearer ${input:key}"},
            },
        },
    }
    path.write_text("// a comment, as VS Code allows\n" + json.dumps(body))
    return path


def codex(folder: Path, url: str) -> Path:
    first = argv("needs_env.py")
    path = folder / "config.toml"
    path.write_text(
        "[mcp_servers.keyed]\n"
        f"command = {json.dumps(first[0])}\n"
        f"args = {json.dumps(first[1:])}\n"
        "[mcp_servers.keyed.env]\n"
        f"API_KEY = {json.dumps(SECRET)}\n"
        "[mcp_servers.users]\n"
        f"url = {json.dumps(url)}\n"
        'bearer_token_env_var = "KEY"\n'
    )
    return path


FORMATS: dict[str, Callable[[Path, str], Path]] = {
    "claude-desktop": claude_desktop,
    "claude-code": claude_code,
    "vs-code": vs_code,
    "codex": codex,
}


@pytest.mark.parametrize("client", FORMATS)
def test_each_clients_file_runs_both_its_servers_under_their_names(
    client: str,
    inprocess_pytest: RunPytest,
    http_server: HttpServer,
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    url = http_server("typed_ok.py", env={"MCP_FIXTURE_TOKEN": SECRET})
    monkeypatch.setenv("KEY", SECRET)
    monkeypatch.setenv("MCP_INPUT_KEY", SECRET)
    path = FORMATS[client](pytester.path, url)
    result = inprocess_pytest(f"--mcp-config={path}", *SCHEMA_ONLY)
    result.assert_outcomes(passed=4)
    result.stdout.fnmatch_lines_random(
        ["*mcp:keyed::whoami::schema PASSED*", "*mcp:users::find_user::schema PASSED*"]
    )
    assert SECRET not in result.stdout.str() + result.stderr.str()
    # One of them, by its name.
    picked = inprocess_pytest(f"--mcp-config={path}", "--mcp-config-server=keyed", *SCHEMA_ONLY)
    picked.assert_outcomes(passed=1)


def test_a_broken_file_is_one_clear_line(
    inprocess_pytest: RunPytest, pytester: pytest.Pytester
) -> None:
    path = pytester.path / ".mcp.json"
    path.write_text(json.dumps({"mcpServers": {"old": {"type": "sse", "url": "http://h/sse"}}}))
    result = inprocess_pytest(f"--mcp-config={path}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [f"ERROR: {path}: mcpServers.old.type: an SSE server * is not supported*"]
    )
    path.write_text(json.dumps({"mcpServers": {"a": {"command": "x"}, "b": {"command": "y"}}}))
    unknown = inprocess_pytest(f"--mcp-config={path}", "--mcp-config-server=c")
    assert unknown.ret == pytest.ExitCode.USAGE_ERROR
    unknown.stderr.fnmatch_lines(
        [f"ERROR: --mcp-config-server c: no server of that name in {path}; its servers: a, b"]
    )


def test_inspect_and_call_take_one_server_of_a_config_file(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    from .test_inspect import inspect

    monkeypatch.setenv("KEY", SECRET)
    path = claude_desktop(pytester.path, "")
    several = inspect(f"--config={path}")
    assert several.returncode == 2
    assert "has 2 servers (users, keyed): name one with --config-server" in several.stderr
    done = inspect(f"--config={path}", "--config-server=keyed", cwd=pytester.path)
    assert done.returncode == 0, done.stderr
    assert "whoami" in done.stdout
    assert SECRET not in done.stdout + done.stderr
    alone = inspect("--config-server=keyed", "--server=x")
    assert alone.returncode == 2 and "--config-server picks a server of --config" in alone.stderr


def test_under_xdist_each_worker_starts_the_files_servers(
    http_server: HttpServer, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = http_server("typed_ok.py", env={"MCP_FIXTURE_TOKEN": SECRET})
    monkeypatch.setenv("KEY", SECRET)
    path = claude_code(pytester.path, url)
    result = pytester.runpytest_subprocess(
        f"--mcp-config={path}", *SCHEMA_ONLY, "-p", "no:randomly", "-n", "2"
    )
    result.assert_outcomes(passed=4)
    result.stdout.fnmatch_lines_random(
        ["*PASSED mcp:keyed::whoami::schema*", "*PASSED mcp:users::find_user::schema*"]
    )
    assert SECRET not in result.stdout.str() + result.stderr.str()


def test_a_failure_of_a_files_server_reproduces_by_the_files_name_for_it(
    inprocess_pytest: RunPytest, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reproduction command names the file and the entry, not the resolved command: its
    values may be secrets, and its placeholders only the file's own resolution answers."""
    from .test_inspect import cli_command

    monkeypatch.setenv("KEY", SECRET)
    monkeypatch.chdir(pytester.path)
    command = argv("crash.py")
    servers = {"calc": {"command": command[0], "args": command[1:], "env": {"TOKEN": "${KEY}"}}}
    (pytester.path / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))
    result = inprocess_pytest("--mcp-config=.mcp.json", NO_SEQUENCES, "-k", "divide and contract")
    result.assert_outcomes(failed=1)
    output = result.stdout.str()
    assert SECRET not in output + result.stderr.str()
    replay = "mcp-contracts call --config=.mcp.json --config-server=calc divide "
    line = next(line.strip() for line in output.splitlines() if replay in line)
    arguments = line.split(" divide ", 1)[1].strip("'")
    done = cli_command("call", "--config=.mcp.json", "--config-server=calc", "divide", arguments)
    assert done.returncode == 1 and "the server exited" in done.stdout, done
