"""pytest hooks: translate pytest's events into calls on the pipeline modules.

Loading this module imports neither mcp, jsonschema nor hypothesis: a user who has the plugin
installed and passes no ``--mcp-*`` option pays nothing.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import pytest

from ._keys import SERVERS_KEY, SETTINGS_KEY
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
        else:
            group.addoption(option.flag, dest=dest, default=None, metavar="N", help=option.help)
            parser.addini(option.ini, option.help, default=None)


def pytest_configure(config: pytest.Config) -> None:
    def cli(flag: str) -> Any:
        return config.getoption(flag.removeprefix("--").replace("-", "_"))

    try:
        settings = resolve(cli, config.getini)
    except SettingsError as exc:
        raise pytest.UsageError(str(exc)) from None
    config.stash[SETTINGS_KEY] = settings
    config.stash[SERVERS_KEY] = []


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
    for server in session.config.stash.get(SERVERS_KEY, []):
        server.close()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    servers = terminalreporter.config.stash.get(SERVERS_KEY, [])
    if not servers:
        return
    from .report import server_summary_lines

    terminalreporter.section("MCP contracts")
    for line in server_summary_lines(servers):
        terminalreporter.write_line(line)
