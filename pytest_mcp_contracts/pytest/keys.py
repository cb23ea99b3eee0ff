"""Typed keys for the session state the plugin keeps on ``config.stash``.

The types are imported for the type checker only: loading the plugin must stay cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from pytest_mcp_contracts.contracts.record import Recorder
    from pytest_mcp_contracts.inputs.probes import CanarySpace
    from pytest_mcp_contracts.inputs.sandbox import Sandbox
    from pytest_mcp_contracts.pytest.settings import Settings
    from pytest_mcp_contracts.runs.context import RunContext
    from pytest_mcp_contracts.runs.run_time import RunTime
    from pytest_mcp_contracts.transport.managed import ManagedServer

SETTINGS_KEY: pytest.StashKey[Settings] = pytest.StashKey()
SERVERS_KEY: pytest.StashKey[list[ManagedServer]] = pytest.StashKey()
RECORDER_KEY: pytest.StashKey[Recorder] = pytest.StashKey()
# The client's root laid with sample files; absent under --mcp-roots=none.
SANDBOX_KEY: pytest.StashKey[Sandbox] = pytest.StashKey()
# The folder the security probes' files may appear in; absent under --mcp-security=off.
CANARIES_KEY: pytest.StashKey[CanarySpace] = pytest.StashKey()

# What the run decides for each started server's checks and hand-written calls, by the
# server's node name (made by pytest/session.collect_servers; read by items and fixtures).
CONTEXTS_KEY: pytest.StashKey[dict[str, RunContext]] = pytest.StashKey()

# The run's time budget (--mcp-run-time), shared by every server's context; absent: none.
RUN_TIME_KEY: pytest.StashKey[RunTime] = pytest.StashKey()

# (server node name, rule) pairs whose warning this process has raised: once per server.
WARNED_RULES_KEY: pytest.StashKey[set[tuple[str, str]]] = pytest.StashKey()

# xdist workeroutput: the contracts a worker leaves to the controller to write.
HAND_OVER_KEY = "mcp_contracts_hand_over"
