"""pytest/settings.py: command line over ini over default, and clear errors for bad values."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pytest_mcp_contracts.options import (
    DEFAULT_IN_FLIGHT,
    DEFAULT_MAX_EXAMPLES,
    DEFAULT_TOOL_TIME,
)
from pytest_mcp_contracts.pytest.settings import SettingsError, resolve

ROOT = Path("/repo")


def settings(cli: dict[str, Any], ini: dict[str, Any], env: dict[str, str] | None = None) -> Any:
    return resolve(
        lambda flag: cli.get(flag), lambda key: ini.get(key), rootdir=ROOT, environ=env or {}
    )


def test_defaults_and_inactive_without_servers() -> None:
    resolved = settings({}, {})
    assert not resolved.active
    assert resolved.max_examples == DEFAULT_MAX_EXAMPLES


def test_command_line_wins_over_ini() -> None:
    resolved = settings(
        {"--mcp-server": ["python -m a"], "--mcp-max-examples": "7"},
        {"mcp_server": ["python -m b"], "mcp_max_examples": "9", "mcp_call_timeout": "2.5"},
    )
    assert [s.argv for s in resolved.servers] == [("python", "-m", "a")]
    assert resolved.max_examples == 7
    assert resolved.call_timeout == 2.5


def test_ini_server_list_with_shell_quoting() -> None:
    resolved = settings({}, {"mcp_server": ['node "my dir/server.js"', "  "]})
    assert [s.argv for s in resolved.servers] == [("node", "my dir/server.js")]


@pytest.mark.parametrize(
    ("cli", "message"),
    [
        ({"--mcp-max-examples": "0"}, "--mcp-max-examples (ini mcp_max_examples) must be a whole"),
        ({"--mcp-call-timeout": "soon"}, "--mcp-call-timeout (ini mcp_call_timeout) must be a"),
        ({"--mcp-server": ['"unclosed']}, "--mcp-server '\"unclosed'"),
        ({"--mcp-sequences-time": "0"}, "--mcp-sequences-time (ini mcp_sequences_time) must be a"),
        ({"--mcp-sequences": "yes"}, "--mcp-sequences (ini mcp_sequences) must be one of on, off"),
    ],
)
def test_bad_values_say_what_is_allowed(cli: dict[str, Any], message: str) -> None:
    with pytest.raises(SettingsError, match=message.replace("(", r"\(").replace(")", r"\)")):
        settings(cli, {})


def test_snapshot_folder_defaults_under_the_rootdir_and_follows_the_option() -> None:
    assert settings({}, {}).snapshot_dir == ROOT / "mcp-contracts"
    assert settings({}, {"mcp_snapshot_dir": "contracts"}).snapshot_dir == ROOT / "contracts"
    assert settings({"--mcp-snapshot-dir": "/abs"}, {}).snapshot_dir == Path("/abs")


def test_the_html_report_is_written_only_where_asked_relative_to_the_rootdir() -> None:
    assert settings({}, {}).html_path is None
    assert settings({}, {"mcp_html": "out/mcp.html"}).html_path == ROOT / "out" / "mcp.html"
    assert settings({"--mcp-html": "/abs/r.html"}, {"mcp_html": "x"}).html_path == Path(
        "/abs/r.html"
    )


@pytest.mark.parametrize(
    ("cli", "env", "mode"),
    [
        ({}, {}, "record"),
        ({}, {"CI": "true"}, "ci"),
        ({}, {"CI": "false"}, "record"),
        ({}, {"CI": ""}, "record"),
        ({"--mcp-snapshot-update": True}, {}, "update"),
    ],
)
def test_mode(cli: dict[str, Any], env: dict[str, str], mode: str) -> None:
    assert settings(cli, {}, env).mode == mode


def test_update_under_ci_is_refused() -> None:
    with pytest.raises(SettingsError, match="never written in CI"):
        settings({"--mcp-snapshot-update": True}, {}, {"CI": "true"})


@pytest.mark.parametrize(
    ("cli", "expected"),
    [
        ({"--mcp-server": ["python -m a"]}, ["python -m a"]),
        ({"--mcp-url": ["http://127.0.0.1:1/mcp"]}, ["http://127.0.0.1:1/mcp"]),
    ],
)
def test_targets_on_the_command_line_replace_every_ini_target_list(
    cli: dict[str, Any], expected: list[str]
) -> None:
    ini = {"mcp_server": ["python -m b"], "mcp_url": ["http://127.0.0.1:2/mcp"]}
    resolved = settings(cli, ini)
    assert [s.display for s in resolved.servers] == expected


def test_ini_targets_of_every_kind_run_when_the_command_line_names_none() -> None:
    ini = {"mcp_server": ["python -m b"], "mcp_url": ["http://127.0.0.1:2/mcp"]}
    resolved = settings({"--mcp-max-examples": "3"}, ini)
    assert [s.display for s in resolved.servers] == ["python -m b", "http://127.0.0.1:2/mcp"]


def test_tool_tables_are_judged_against_every_server_and_its_own_name() -> None:
    from pytest_mcp_contracts.project import ToolConfig
    from pytest_mcp_contracts.pytest.settings import unknown_tool_tables

    listed = [("lookup", "get_order"), ("files", "read"), ("files", "a/b")]
    fine = {k: ToolConfig() for k in ("get_order", "files/read", "a/b", "files/a/b")}
    assert unknown_tool_tables(fine, listed) is None
    # A tool of another server is not this server's tool.
    problem = unknown_tool_tables({"lookup/read": ToolConfig(skip=True)}, listed)
    assert problem is not None
    assert problem.startswith('[tool.mcp-contracts.tools."lookup/read"] names no tool')
    problem = unknown_tool_tables({"files/raed": ToolConfig(skip=True)}, listed)
    assert problem is not None
    assert 'did you mean "files/read"' in problem.splitlines()[0]


def test_client_settings_defaults_and_precedence(tmp_path: Path) -> None:
    resolved = settings({}, {})
    assert (resolved.roots, resolved.elicitation, resolved.max_call_time) == (None, "vary", 120)
    resolved = settings(
        {"--mcp-elicitation": "cancel", "--mcp-roots": str(tmp_path)},
        {"mcp_elicitation": "accept", "mcp_sampling_text": "hi", "mcp_max_call_time": "30"},
    )
    assert (resolved.elicitation, resolved.sampling_text) == ("cancel", "hi")
    assert (resolved.roots, resolved.max_call_time) == (tmp_path, 30)
    assert resolved.sandbox


def test_roots_none_turns_the_sandbox_off_and_a_folder_named_none_is_dot_none() -> None:
    default, off = settings({}, {}), settings({"--mcp-roots": "none"}, {"mcp_roots": "x"})
    assert (default.roots, default.sandbox) == (None, True)
    assert (off.roots, off.sandbox) == (None, False)
    assert not settings({}, {"mcp_roots": "none"}).sandbox
    with pytest.raises(SettingsError, match="is not a folder"):
        settings({"--mcp-roots": "./none"}, {})  # ROOT has no folder of that name


def test_max_call_time_is_never_below_the_call_timeout() -> None:
    resolved = settings({"--mcp-call-timeout": "50", "--mcp-max-call-time": "5"}, {})
    assert resolved.max_call_time == 50


@pytest.mark.parametrize(
    ("cli", "message"),
    [
        ({"--mcp-elicitation": "maybe"}, "must be one of vary, accept, decline, cancel"),
        ({"--mcp-max-call-time": "0"}, "--mcp-max-call-time (ini mcp_max_call_time) must be"),
        ({"--mcp-roots": "/no/such/folder"}, "--mcp-roots (ini mcp_roots): /no/such/folder is not"),
    ],
)
def test_bad_client_settings_say_what_is_allowed(cli: dict[str, Any], message: str) -> None:
    with pytest.raises(SettingsError, match=message.replace("(", r"\(").replace(")", r"\)")):
        settings(cli, {})


def test_sampling_text_per_tool_must_be_a_string(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        "[tool.mcp-contracts.tools.summarize]\nsampling_text = 3\n"
    )
    with pytest.raises(SettingsError, match="sampling_text must be a string"):
        resolve(lambda flag: None, lambda key: None, rootdir=tmp_path, environ={})
    (tmp_path / "pyproject.toml").write_text(
        '[tool.mcp-contracts.tools.summarize]\nsampling_text = "short"\n'
    )
    resolved = resolve(lambda flag: None, lambda key: None, rootdir=tmp_path, environ={})
    assert resolved.tool("any", "summarize").sampling_text == "short"


def test_the_server_memory_cap_defaults_to_a_quarter_of_physical_memory_shared() -> None:
    import os

    quarter = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 4
    server = {"--mcp-server": ["python -m s"]}
    assert settings(server, {}).max_server_memory == quarter
    assert settings(server, {"mcp_max_server_memory": "512M"}).max_server_memory == 512 << 20
    assert settings({**server, "--mcp-max-server-memory": "2G"}, {}).max_server_memory == 2 << 30
    for off in ("0", "off"):
        assert settings({**server, "--mcp-max-server-memory": off}, {}).max_server_memory is None
    # No server the plugin starts: nothing to cap.
    assert settings({}, {}).max_server_memory is None
    # Servers that run at once share the default: two servers on each of 2 xdist workers.
    two = {"--mcp-server": ["python -m a", "python -m b"]}
    workers = {"PYTEST_XDIST_WORKER_COUNT": "2"}
    assert settings(two, {}, workers).max_server_memory == quarter // 4
    # A cap given is per server, whatever runs beside it.
    two_capped = {**two, "--mcp-max-server-memory": "1G"}
    assert settings(two_capped, {}, workers).max_server_memory == 1 << 30


@pytest.mark.parametrize("value", ["lots", "-1G", "2X"])
def test_a_memory_cap_that_is_no_size_says_what_is_allowed(value: str) -> None:
    with pytest.raises(SettingsError) as raised:
        settings({"--mcp-max-server-memory": value}, {})
    assert str(raised.value) == (
        "--mcp-max-server-memory (ini mcp_max_server_memory) must be a size like 2G, 512M or "
        f"1.5G (bytes without a unit), or 0 or off for no cap; got {value!r}"
    )


def test_sequences_are_on_within_a_time_by_default_and_can_be_turned_off() -> None:
    resolved = settings({}, {})
    assert resolved.sequences and resolved.sequences_time == 20
    resolved = settings({"--mcp-sequences-time": "3.5"}, {"mcp_sequences": "off"})
    assert not resolved.sequences and resolved.sequences_time == 3.5
    assert settings({}, {"mcp_sequences_time": "7"}).sequences_time == 7


def test_client_profiles_default_list_all_none_and_ini() -> None:
    assert settings({}, {}).clients == ("claude", "openai", "vscode")
    assert settings({"--mcp-clients": "gemini, VSCode"}, {}).clients == ("gemini", "vscode")
    assert settings({}, {"mcp_clients": "openai-strict"}).clients == ("openai-strict",)
    assert settings({"--mcp-clients": "all"}, {}).clients == (
        "claude",
        "openai",
        "openai-strict",
        "gemini",
        "vscode",
        "mcp",
    )
    assert settings({"--mcp-clients": "none"}, {"mcp_clients": "gemini"}).clients == ()


def test_a_misspelled_client_is_a_usage_error_listing_the_known_ones() -> None:
    with pytest.raises(SettingsError) as raised:
        settings({"--mcp-clients": "claude,gemni"}, {})
    message = str(raised.value)
    assert (
        "--mcp-clients (ini mcp_clients): unknown client 'gemni' (did you mean gemini?)" in message
    )
    assert "known: claude, openai, openai-strict, gemini, vscode, mcp, or all or none" in message


def test_prompts_resources_and_templates_are_skipped_by_name_and_typos_are_errors(
    tmp_path: Path,
) -> None:
    from pytest_mcp_contracts.pytest.settings import unknown_listed_tables

    def load(text: str) -> Any:
        (tmp_path / "pyproject.toml").write_text(text)
        return resolve(lambda flag: None, lambda key: None, rootdir=tmp_path, environ={})

    resolved = load(
        "[tool.mcp-contracts.prompts.review]\nskip = true\n"
        '[tool.mcp-contracts.resources."file:///a.md"]\nskip = true\n'
        '[tool.mcp-contracts.templates."users://{id}"]\nskip = false\n'
    )
    assert resolved.listed_skips == {("prompt", "review"), ("resource", "file:///a.md")}
    with pytest.raises(SettingsError, match=r"prompts.\"review\"\]: unknown key\(s\) \['skpi'\]"):
        load("[tool.mcp-contracts.prompts.review]\nskpi = true\n")
    with pytest.raises(SettingsError, match="skip must be true or false"):
        load('[tool.mcp-contracts.templates."t://{x}"]\nskip = "yes"\n')
    listed = [("prompt", "review"), ("resource", "file:///a.md")]
    assert unknown_listed_tables({("prompt", "review")}, listed) is None
    problem = unknown_listed_tables({("prompt", "reveiw")}, listed)
    assert problem is not None
    assert problem.splitlines()[0] == (
        '[tool.mcp-contracts.prompts."reveiw"] names no prompt; did you mean "review"?'
    )


def test_the_tool_time_budget_defaults_to_a_minute_and_can_be_turned_off() -> None:
    assert settings({}, {}).tool_time == DEFAULT_TOOL_TIME == 60
    assert settings({"--mcp-tool-time": "2.5"}, {"mcp_tool_time": "9"}).tool_time == 2.5
    assert settings({}, {"mcp_tool_time": "9"}).tool_time == 9
    for off in ("0", "off", "OFF"):
        assert settings({"--mcp-tool-time": off}, {}).tool_time is None


@pytest.mark.parametrize("value", ["-1", "soon", "inf", "nan"])
def test_a_tool_time_that_is_no_number_of_seconds_says_what_is_allowed(value: str) -> None:
    with pytest.raises(
        SettingsError, match=r"--mcp-tool-time \(ini mcp_tool_time\) must be a number of seconds"
    ):
        settings({"--mcp-tool-time": value}, {})


def test_a_tools_own_time_budget_wins_and_zero_or_off_means_none(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        "[tool.mcp-contracts.tools.slow]\ntool_time = 300\n"
        '[tool.mcp-contracts.tools.endless]\ntool_time = "off"\n'
        "[tool.mcp-contracts.tools.zero]\ntool_time = 0\n"
        "[tool.mcp-contracts.tools.other]\nskip = false\n"
    )
    resolved = resolve(
        lambda flag: "5" if flag == "--mcp-tool-time" else None,
        lambda key: None,
        rootdir=tmp_path,
        environ={},
    )
    assert resolved.time_budget(resolved.tool("s", "slow")) == 300
    assert resolved.time_budget(resolved.tool("s", "endless")) is None
    assert resolved.time_budget(resolved.tool("s", "zero")) is None
    assert resolved.time_budget(resolved.tool("s", "other")) == 5
    (tmp_path / "pyproject.toml").write_text("[tool.mcp-contracts.tools.slow]\ntool_time = -3\n")
    with pytest.raises(
        SettingsError, match=r'tool_time must be a number of seconds > 0, or 0 or "off"'
    ):
        resolve(lambda flag: None, lambda key: None, rootdir=tmp_path, environ={})


def test_calls_in_flight_default_and_one_turns_them_off() -> None:
    assert settings({}, {}).in_flight == DEFAULT_IN_FLIGHT
    assert settings({}, {"mcp_in_flight": "1"}).in_flight == 1
    assert settings({"--mcp-in-flight": "8"}, {"mcp_in_flight": "1"}).in_flight == 8
    with pytest.raises(
        SettingsError, match=r"--mcp-in-flight \(ini mcp_in_flight\) must be a whole"
    ):
        settings({"--mcp-in-flight": "0"}, {})
