"""pytest hooks: translate pytest's events into calls on the pipeline modules.

Loading this module imports neither mcp, jsonschema nor hypothesis: a user who has the plugin
installed and passes no ``--mcp-*`` option pays nothing.
"""

from __future__ import annotations

import os
from collections.abc import Generator
from typing import Any

import pytest

from ._keys import RECORDER_KEY, SERVERS_KEY, SETTINGS_KEY
from .settings import OPTIONS, SettingsError, resolve


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("mcp-contracts", "MCP server contract testing")
    for option in OPTIONS:
        dest = option.flag.removeprefix("--").replace("-", "_")
        if option.kind == "servers":
            group.addoption(
                option.flag, action="append", dest=dest, metavar="CMD", help=option.help
            )
            parser.addini(option.ini, option.help, type="linelist", default=[])
        elif option.kind == "flag":
            group.addoption(
                option.flag, dest=dest, action="store_true", default=None, help=option.help
            )
        else:
            metavar = "DIR" if option.kind == "path" else "N"
            group.addoption(option.flag, dest=dest, default=None, metavar=metavar, help=option.help)
        if option.ini_too and option.kind != "servers":
            parser.addini(option.ini, option.help, default=None)


def pytest_configure(config: pytest.Config) -> None:
    def cli(flag: str) -> Any:
        return config.getoption(flag.removeprefix("--").replace("-", "_"))

    try:
        settings = resolve(cli, config.getini, rootdir=config.rootpath, environ=os.environ)
    except SettingsError as exc:
        raise pytest.UsageError(str(exc)) from None
    config.stash[SETTINGS_KEY] = settings
    config.stash[SERVERS_KEY] = []
    if settings.active:
        from .record import Recorder
        from .snapshot import SnapshotStore

        config.stash[RECORDER_KEY] = Recorder(
            SnapshotStore(settings.snapshot_dir), settings.mode, strict=settings.strict
        )


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Generator[None, Any, Any]:
    report = yield
    if isinstance(collector, pytest.Session) and report.passed:
        settings = collector.config.stash[SETTINGS_KEY]
        if settings.active:
            from .session import collect_servers

            report.result.extend(
                collect_servers(collector, settings, collector.config.stash[SERVERS_KEY])
            )
    return report


def pytest_sessionfinish(session: pytest.Session) -> None:
    servers = session.config.stash.get(SERVERS_KEY, [])
    for server in servers:
        server.close()
    recorder = session.config.stash.get(RECORDER_KEY, None)
    if recorder is not None:
        from .session import finish_recording

        finish_recording(recorder, servers, session.config.stash[SETTINGS_KEY])


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    servers = terminalreporter.config.stash.get(SERVERS_KEY, [])
    if not servers:
        return
    from .report import server_summary_lines

    terminalreporter.section("MCP contracts")
    recorder = terminalreporter.config.stash[RECORDER_KEY]
    command = " ".join(["pytest", *terminalreporter.config.invocation_params.args])
    verbose = terminalreporter.config.get_verbosity() > 0
    for line in server_summary_lines(servers, recorder, command, verbose=verbose):
        terminalreporter.write_line(line)
