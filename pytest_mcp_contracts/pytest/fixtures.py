"""The fixtures a hand-written test asks for: ``mcp_server``, the one server of the run, and
``mcp_servers``, every server of the run by name. Each is the server the generated items of
this run call (started by ``pytest/session.collect_servers``; an ``--mcp-app`` in this
process), reached through ``runs/handwritten.ServerUnderTest``; under xdist, each worker's
own.

Both are session-scoped: the servers live for the whole run anyway, and a ``@given`` test
that draws from ``mcp_server.inputs(tool)`` then meets no function-scoped-fixture health
check. A test asking for a server when the run configures none errors (it does not skip):
its whole point is that server, and a CI job that lost its ``--mcp-server`` must not go
green on skips.

Loading this module (the plugin does, for every pytest run) imports nothing heavy.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

import pytest

from pytest_mcp_contracts.pytest.keys import CONTEXTS_KEY, SERVERS_KEY, SETTINGS_KEY

if TYPE_CHECKING:
    from pytest_mcp_contracts.runs.handwritten import ServerUnderTest

NO_SERVER = (
    "no MCP server is configured for this run, so there is none to test: pass "
    '--mcp-server="python -m my_server" (or --mcp-url=URL, or --mcp-app=module:app for '
    "an in-process app), or set it for every run under [tool.pytest.ini_options] in "
    'pyproject.toml: mcp_server = "python -m my_server" (mcp_url, mcp_app)'
)


class UnknownServer(KeyError):
    """``mcp_servers[name]`` names no server of the run (a KeyError, so ``in`` and ``get``
    work; shown as its message, not as a quoted key)."""

    def __str__(self) -> str:
        return str(self.args[0])


class ServerMap(Mapping[str, "ServerUnderTest"]):
    """The servers of the run that started, by name: the name in their node ids
    (``mcp:<name>``), which the terminal summary and the snapshot folder use too."""

    def __init__(self, started: dict[str, ServerUnderTest], not_started: list[str]) -> None:
        self._started = started
        self._not_started = not_started  # each the display of a server that did not start

    def __getitem__(self, name: str) -> ServerUnderTest:
        found = self._started.get(name)
        if found is None:
            names = ", ".join(repr(n) for n in self._started) or "none"
            raise UnknownServer(
                f"mcp_servers[{name!r}]: no server of this run is named so; the names are "
                f"those of their node ids (mcp:<name>): {names}{self._unstarted_note()}"
            )
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(self._started)

    def __len__(self) -> int:
        return len(self._started)

    def only(self) -> ServerUnderTest:
        """The one server of the run (``mcp_server``)."""
        if len(self._started) == 1:
            return next(iter(self._started.values()))
        if self._started:
            names = ", ".join(repr(n) for n in self._started)
            pytest.fail(
                f"mcp_server: this run has {len(self._started)} servers ({names}); ask for "
                f'mcp_servers instead and pick one by name: mcp_servers["{next(iter(self))}"]',
                pytrace=False,
            )
        pytest.fail(f"mcp_server: {self._unstarted_note().lstrip('; ')}", pytrace=False)

    def _unstarted_note(self) -> str:
        if not self._not_started:
            return ""
        from pytest_mcp_contracts.text import shown

        commands = ", ".join(shown(command, 120) for command in self._not_started)
        return f"; the server {commands} did not start (its collection error says why)"


# The servers as hand-written tests reach them, once a test asked for one.
HANDWRITTEN_KEY: pytest.StashKey[ServerMap] = pytest.StashKey()


def servers_under_test(config: pytest.Config) -> ServerMap:
    """The run's servers for hand-written tests, made once per session (kept on the stash:
    the run report counts their calls)."""
    found = config.stash.get(HANDWRITTEN_KEY, None)
    if found is not None:
        return found
    if not config.stash[SETTINGS_KEY].active:
        pytest.fail(NO_SERVER, pytrace=False)
    from pytest_mcp_contracts.runs.handwritten import ServerUnderTest

    # Each reached through the context its generated items ask (pytest/session.run_context).
    contexts = config.stash.get(CONTEXTS_KEY, {})
    started: dict[str, ServerUnderTest] = {}
    not_started: list[str] = []
    for server in config.stash[SERVERS_KEY]:
        context = contexts.get(server.node_name) if server.surface is not None else None
        if context is None:
            not_started.append(server.command.display)
        else:
            started[server.node_name] = ServerUnderTest(server, context)
    found = config.stash[HANDWRITTEN_KEY] = ServerMap(started, not_started)
    return found


def handwritten_calls(config: pytest.Config) -> dict[str, int]:
    """The requests hand-written tests sent each server, by node name (none: no test asked
    for a server), for the run's facts."""
    found = config.stash.get(HANDWRITTEN_KEY, None)
    return {name: server.calls for name, server in (found or {}).items()}


@pytest.fixture(scope="session")
def mcp_servers(request: pytest.FixtureRequest) -> ServerMap:
    """Every server of this run that started, by the name in its node ids (``mcp:<name>``):
    ``mcp_servers["weather"].check("forecast", {"city": "Oslo"})``."""
    return servers_under_test(request.config)


@pytest.fixture(scope="session")
def mcp_server(mcp_servers: ServerMap) -> ServerUnderTest:
    """The server of this run (the one ``--mcp-server``, ``--mcp-url`` or ``--mcp-app``),
    as the generated items call it: ``call``, ``check``, ``inputs``, ``read``,
    ``check_read``, ``get``, ``check_get``."""
    return mcp_servers.only()
