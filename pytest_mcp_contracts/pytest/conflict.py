"""Another pytest plugin registered one of this plugin's options first.

Other MCP plugins register ``--mcp-server`` too (pytest-mcptest as ``mcp``, mcp-pytest as
``mcp_test``), and pytest stops with argparse's "conflicting option string" traceback. This
says which option, which plugin owns it when it can be found, and how to run one of them.
Imported only on that error.
"""

from __future__ import annotations

import inspect
from typing import Any

THIS_PROJECT = "pytest-mcp-contracts"


def option_owner(flag: str, pluginmanager: Any) -> str | None:
    """The registered plugin whose module names ``flag`` in its source, as
    ``name (distribution version)`` or ``name``; None when none can be found.

    Nothing of the other plugin is run: its source is read. Only the error path pays."""
    distributions = {id(plugin): dist for plugin, dist in pluginmanager.list_plugin_distinfo()}
    for name, plugin in pluginmanager.list_name_plugin():
        module = inspect.getmodule(plugin)
        if module is None or module.__name__.split(".")[0] in ("_pytest", "pytest_mcp_contracts"):
            continue
        try:
            source = inspect.getsource(module)
        except (OSError, TypeError):
            continue
        if f'"{flag}"' not in source and f"'{flag}'" not in source:
            continue
        dist = distributions.get(id(plugin))
        if dist is None:
            return str(name)
        return f"{name} ({dist.project_name} {dist.version})"
    return None


def option_conflict(flag: str, pluginmanager: Any, ours: str) -> str:
    """One line: the option, its owner, and the ``-p no:NAME`` that runs either plugin."""
    owner = option_owner(flag, pluginmanager)
    if owner is None:
        return (
            f"{flag} is already registered by another installed pytest plugin, so "
            f"{THIS_PROJECT} cannot register it; run one of them: disable the other with "
            f"-p no:NAME (pytest --trace-config lists the plugins) or this one with "
            f"-p no:{ours}, or uninstall one"
        )
    name = owner.split(" ", 1)[0]
    return (
        f"{flag} is already registered by another pytest plugin, {owner}, so {THIS_PROJECT} "
        f"cannot register it; run one of them: -p no:{name} disables the other plugin, "
        f"-p no:{ours} this one (or uninstall one)"
    )
