"""Which tools a pytest run calls, as ``inspect`` reports it: the call policy of a plain
pytest run in the project (``project.configured_call_policy``, reading the ``--mcp-call``
option of ``options``) and the project's tool tables, decided as the plugin decides
(``transport/call_policy.tool_refusal``)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_mcp_contracts.cli.command import USAGE_ERROR, CommandError
from pytest_mcp_contracts.cli.views import EntryView
from pytest_mcp_contracts.options import CALL_OPTION
from pytest_mcp_contracts.project import (
    SettingsError,
    ToolConfig,
    configured_call_policy,
    load_project_table,
    project_root,
    tool_config,
)
from pytest_mcp_contracts.transport.call_policy import tool_refusal
from pytest_mcp_contracts.transport.discover import Entry


@dataclass(frozen=True)
class CallPlan:
    """Which tools pytest calls, decided as the plugin decides (``tool_refusal``): the run's
    call policy and where it was set, and the project's ``[tool.mcp-contracts.tools]``."""

    policy: str
    source: str  # "--call", "--mcp-call in addopts in <file>", "mcp_call in <file>", ...
    tools: dict[str, ToolConfig]

    def refusal(self, server: str, tool: Entry, capabilities: dict[str, Any]) -> str | None:
        config = tool_config(self.tools, server, tool.name)
        why = tool_refusal(
            tool, capabilities, policy=self.policy, tool_policy=config.call, skip=config.skip
        )
        if why is None and tool.malformed:
            why = "not called: its listing entry is malformed (see its findings)"
        return why

    def heading(self, views: Sequence[EntryView]) -> str:
        called = sum(1 for v in views if v.refusal is None)
        return (
            f"pytest calls {called} of {len(views)} tools under {CALL_OPTION.flag}={self.policy} "
            f"({self.source})"
        )


def call_plan(args: argparse.Namespace) -> CallPlan:
    """The call policy (--call, else what a plain pytest run there uses:
    ``project.configured_call_policy``) and the tool tables of the project pytest would run
    in (--rootdir, else found as pytest finds it)."""
    rootdir = args.rootdir or project_root(Path.cwd())
    try:
        tools, _, _ = load_project_table(rootdir)
        policy, source = (args.call, "--call") if args.call else configured_call_policy(rootdir)
    except SettingsError as exc:
        raise CommandError(str(exc), USAGE_ERROR) from None
    return CallPlan(policy, source, tools)
