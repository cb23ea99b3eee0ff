"""transport/client_config.py: each client's config format read into targets under their
names, placeholders read from the environment (never shown), and one clear line for a file
that cannot be used."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_mcp_contracts.pytest.settings import SettingsError, resolve
from pytest_mcp_contracts.transport.client_config import (
    ClientConfigError,
    ConfiguredCommand,
    ConfiguredUrl,
    configured_name,
    input_variable,
    read_configs,
)
from pytest_mcp_contracts.transport.stdio import ServerCommand

SECRET = "s3cr3t-v4lue"
HOME = Path("/home/someone")


def write(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def read(
    path: Path, environ: dict[str, str] | None = None, picked: tuple[str, ...] = ()
) -> dict[str, Any]:
    return {t.name: t for t in read_configs([path], picked, environ or {}, home=HOME)}


def refused(path: Path, environ: dict[str, str] | None = None, picked: tuple[str, ...] = ()) -> str:
    with pytest.raises(ClientConfigError) as caught:
        read(path, environ, picked)
    message = str(caught.value)
    assert "\n" not in message and message.startswith(str(path) if not picked else "--mcp")
    assert SECRET not in message
    return message


def test_mcp_servers_json_of_claude_desktop_cursor_and_windsurf(tmp_path: Path) -> None:
    path = write(
        tmp_path / "claude_desktop_config.json",
        {
            "mcpServers": {
                "files": {
                    "command": "npx",
                    "args": ["-y", "server", "--token=${env:TOKEN}"],
                    "env": {"API_KEY": "${API_KEY}", "MODE": "${MODE:-test}", "N": 3},
                },
                "remote": {
                    "url": "https://example.com/mcp",
                    "headers": {"Authorization": "Bearer ${env:TOKEN}"},
                },
                "windsurf": {"serverUrl": "http://127.0.0.1:8000/mcp"},
                "off": {"command": "python", "disabled": True},
            }
        },
    )
    servers = read(path, {"TOKEN": SECRET, "API_KEY": SECRET})
    assert list(servers) == ["files", "remote", "windsurf"]  # "off" is switched off
    files = servers["files"]
    assert isinstance(files, ConfiguredCommand)
    assert files.argv == ("npx", "-y", "server", f"--token={SECRET}")
    assert files.env == {"API_KEY": SECRET, "MODE": "test", "N": "3"}
    # Shown as written: the placeholder, never the value; named by its key.
    assert files.display == "npx -y server '--token=${env:TOKEN}'"
    assert files.label == "files" == configured_name(files)
    remote = servers["remote"]
    assert isinstance(remote, ConfiguredUrl)
    # A header's value stays a reference, read by the transport when it connects.
    assert remote.headers == (("Authorization", "Bearer ${TOKEN}"),)
    assert remote.resolved_headers({"TOKEN": SECRET}) == {"Authorization": f"Bearer {SECRET}"}
    assert servers["windsurf"].url == "http://127.0.0.1:8000/mcp"
    # Picked by name, a server switched off in its file runs.
    assert list(read(path, {"TOKEN": "t", "API_KEY": "k"}, picked=("off",))) == ["off"]
    assert configured_name(ServerCommand(("python",))) == ""


def test_claude_code_mcp_json_with_types(tmp_path: Path) -> None:
    path = write(
        tmp_path / ".mcp.json",
        {
            "mcpServers": {
                "local": {"type": "stdio", "command": "python", "args": ["-m", "srv"]},
                "api": {"type": "http", "url": "http://localhost:3000/mcp"},
            }
        },
    )
    servers = read(path)
    assert servers["local"].argv == ("python", "-m", "srv")
    assert servers["api"].url == "http://localhost:3000/mcp"


def test_vs_code_servers_inputs_env_file_and_workspace_folder(tmp_path: Path) -> None:
    (tmp_path / "srv").mkdir()
    write(tmp_path / ".env", f"# secrets\nexport FROM_FILE='{SECRET}'\nPLAIN=1 # note\n")
    path = write(
        tmp_path / ".vscode" / "mcp.json",
        """{
          // VS Code allows comments and trailing commas
          "inputs": [
            {"type": "promptString", "id": "api-key", "description": "The API key",
             "password": true},
            {"type": "promptString", "id": "region", "default": "eu"},
          ],
          "servers": {
            "mine": {
              "type": "stdio",
              "command": "python",
              "args": ["${workspaceFolder}/srv/main.py"],
              "env": {"KEY": "${input:api-key}", "REGION": "${input:region}",
                      "HOME_DIR": "${userHome}", "PLAIN": "2"},
              "envFile": "${workspaceFolder}/.env",
              "cwd": "srv",
            },
            "web": {"type": "http", "url": "http://127.0.0.1:9/mcp",
                    "headers": {"X-Key": "${input:api-key}"}},
          },
        }""",
    )
    servers = read(path, {input_variable("api-key"): SECRET})
    mine = servers["mine"]
    assert input_variable("api-key") == "MCP_INPUT_API_KEY"
    assert mine.argv == ("python", f"{tmp_path.resolve()}/srv/main.py")
    assert mine.cwd == str(tmp_path.resolve() / "srv")
    assert mine.env == {
        "FROM_FILE": SECRET,
        "PLAIN": "2",  # env wins over envFile
        "KEY": SECRET,
        "REGION": "eu",  # the input's default
        "HOME_DIR": str(HOME),
    }
    assert servers["web"].headers == (("X-Key", "${MCP_INPUT_API_KEY}"),)


def test_an_input_without_an_answer_is_refused_naming_the_variable(tmp_path: Path) -> None:
    path = write(
        tmp_path / "mcp.json",
        {
            "inputs": [{"type": "promptString", "id": "token", "description": "GitHub token"}],
            "servers": {"gh": {"command": "gh-mcp", "env": {"T": "${input:token}"}}},
        },
    )
    message = refused(path)
    assert "servers.gh.env.T: ${input:token} (GitHub token)" in message
    assert "set the environment variable MCP_INPUT_TOKEN" in message


def test_codex_toml(tmp_path: Path) -> None:
    (tmp_path / "work").mkdir()
    path = write(
        tmp_path / "config.toml",
        """
model = "o4"

[mcp_servers.docs]
command = "npx"
args = ["-y", "docs-mcp"]
env = { "LEVEL" = "debug" }
env_vars = ["HOME"]
cwd = "work"

[mcp_servers.remote]
url = "https://api.example.com/mcp"
bearer_token_env_var = "REMOTE_TOKEN"
http_headers = { "X-Client" = "tests" }
env_http_headers = { "X-Org" = "ORG_ID" }

[mcp_servers.later]
command = "later-mcp"
enabled = false
""",
    )
    servers = read(path, {"REMOTE_TOKEN": SECRET, "ORG_ID": "o"})
    assert list(servers) == ["docs", "remote"]
    docs = servers["docs"]
    assert docs.argv == ("npx", "-y", "docs-mcp")
    assert docs.env == {"LEVEL": "debug"}
    assert docs.cwd == str(tmp_path / "work")
    assert servers["remote"].headers == (
        ("X-Client", "tests"),
        ("X-Org", "${ORG_ID}"),
        ("Authorization", "Bearer ${REMOTE_TOKEN}"),
    )
    assert refused(path, {"ORG_ID": "o"}).endswith(
        "mcp_servers.remote.bearer_token_env_var: the environment variable REMOTE_TOKEN is not set"
    )


@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        ("bad.json", "{not json", "not JSON (Expecting property name enclosed in double quotes"),
        ("list.json", "[]", "expected a JSON object at the top level"),
        ("other.json", {"servers2": {}}, 'expected a top-level "mcpServers" (Claude Desktop'),
        ("empty.json", {"mcpServers": {}}, "mcpServers: expected at least one server"),
        (
            "neither.json",
            {"mcpServers": {"x": {"args": ["a"]}}},
            "mcpServers.x: expected a command (a stdio server) or a url (an HTTP server); "
            "it has neither (its keys: args)",
        ),
        (
            "both.json",
            {"mcpServers": {"x": {"command": "a", "url": "http://h/mcp"}}},
            "mcpServers.x: expected either command",
        ),
        (
            "sse.json",
            {"servers": {"old one": {"type": "sse", "url": "http://h/sse"}}},
            'servers."old one".type: an SSE server (the deprecated HTTP+SSE transport) is not '
            "supported",
        ),
        (
            "sse-url.json",
            {"mcpServers": {"x": {"url": "http://h:1/sse"}}},
            "mcpServers.x.url: an SSE endpoint (its path ends in /sse) is not supported",
        ),
        (
            "type.json",
            {"servers": {"x": {"type": "ws", "command": "a"}}},
            'servers.x.type: expected one of stdio, http, streamable-http, sse, got "ws"',
        ),
        (
            "args.json",
            {"mcpServers": {"x": {"command": "a", "args": "b c"}}},
            "mcpServers.x.args: expected a list of strings",
        ),
        (
            "missing.json",
            {"mcpServers": {"x": {"command": "a", "env": {"K": "${env:NOT_SET_HERE}"}}}},
            "mcpServers.x.env.K: the environment variable NOT_SET_HERE is not set",
        ),
        (
            "unknown.json",
            {"mcpServers": {"x": {"command": "${command:pick}"}}},
            "mcpServers.x.command: unknown variable ${command:pick}",
        ),
        (
            "scheme.json",
            {"mcpServers": {"x": {"url": "ftp://h/mcp"}}},
            "mcpServers.x.url: expected an http:// or https:// URL with a host",
        ),
        ("codex.toml", "[profile]\nx = 1\n", "expected [mcp_servers.NAME] tables"),
        ("broken.toml", "[mcp_servers.x\n", "not TOML ("),
    ],
)
def test_a_wrong_file_is_one_line_naming_the_file_the_key_and_what_was_expected(
    tmp_path: Path, name: str, content: Any, expected: str
) -> None:
    path = write(tmp_path / name, content)
    message = refused(path, {"SET": SECRET})
    assert message.startswith(f"{path}: ")
    assert expected in message


def test_a_missing_file_and_an_unknown_server_name(tmp_path: Path) -> None:
    assert "cannot be read" in refused(tmp_path / "nowhere.json")
    path = write(
        tmp_path / "c.json", {"mcpServers": {"a": {"command": "x"}, "b": {"command": "y"}}}
    )
    assert refused(path, picked=("c",)) == (
        f"--mcp-config-server c: no server of that name in {path}; its servers: a, b"
    )
    assert list(read(path, picked=("b",))) == ["b"]


def test_values_never_reach_an_error_after_they_are_read(tmp_path: Path) -> None:
    path = write(
        tmp_path / "c.json",
        {"mcpServers": {"x": {"command": "a", "env": {"K": "${K}"}, "cwd": "${K}"}}},
    )
    message = refused(path, {"K": SECRET})
    assert message.endswith('mcpServers.x.cwd: "${K}" names no folder')


def test_settings_read_the_files_and_pick_servers(tmp_path: Path) -> None:
    write(
        tmp_path / ".mcp.json",
        {"mcpServers": {"a": {"command": "x"}, "b": {"url": "http://h/mcp"}}},
    )

    def settings(cli: dict[str, Any], ini: dict[str, Any] | None = None) -> Any:
        return resolve(
            lambda flag: cli.get(flag),
            lambda key: (ini or {}).get(key),
            rootdir=tmp_path,
            environ={},
        )

    both = settings({"--mcp-config": [".mcp.json"]})
    assert [configured_name(s) for s in both.servers] == ["a", "b"]
    assert both.active
    picked = settings({"--mcp-config": [".mcp.json"], "--mcp-config-server": ["b"]})
    assert [configured_name(s) for s in picked.servers] == ["b"]
    # A target on the command line replaces the ini's config files, as it replaces its servers.
    replaced = settings({"--mcp-server": ["python -m s"]}, {"mcp_config": [".mcp.json"]})
    assert [configured_name(s) for s in replaced.servers] == [""]
    with pytest.raises(SettingsError, match="--mcp-config-server picks servers of --mcp-config"):
        settings({"--mcp-config-server": ["a"]})
    with pytest.raises(SettingsError, match=r"\.mcp\.json: mcpServers: expected at least one"):
        write(tmp_path / ".mcp.json", {"mcpServers": {}})
        settings({"--mcp-config": [".mcp.json"]})


def test_only_the_servers_that_run_are_read_further(tmp_path: Path) -> None:
    path = write(
        tmp_path / "mcp.json",
        {
            "servers": {
                "mine": {"command": "python"},
                "theirs": {"command": "gh-mcp", "env": {"T": "${input:token}"}},
                "broken": {"args": []},
            }
        },
    )
    # Neither the other entry's input nor the broken entry stops a run that does not use them.
    assert list(read(path, picked=("mine",))) == ["mine"]
    assert "servers.broken: expected a command" in refused(path, {input_variable("token"): "t"})
