"""Hooks a ``conftest.py`` can implement to steer the plugin."""

from __future__ import annotations

from typing import Any

import pytest


def pytest_mcp_tool_strategy(
    server: str, tool: str, input_schema: dict[str, Any], config: pytest.Config
) -> Any:
    """Supply inputs for one tool, mixed with or instead of the generated ones.

    Return None to leave the tool alone, a dict of hypothesis strategies for some of its
    top-level properties (real ids, files that exist; the other properties are still
    generated from the inputSchema), or one strategy for the whole arguments object.
    ``server`` is the name the server reports (``serverInfo.name``), ``tool`` the tool's
    name. Every input is checked against the inputSchema before it is sent: a value the
    schema refuses fails the contract check and names the value.

    Example::

        from hypothesis import strategies as st

        def pytest_mcp_tool_strategy(tool):
            if tool == "get_order":
                return {"order_id": st.sampled_from(["A-1001", "A-1002"])}
            return None
    """


@pytest.hookspec(firstresult=True)
def pytest_mcp_sampling_reply(
    server: str, tool: str, params: dict[str, Any], config: pytest.Config
) -> Any:
    """Answer one ``sampling/createMessage`` a server sends during a call of ``tool``.

    Return None to leave it to the settings (``--mcp-sampling-text``, or ``sampling_text``
    in the tool's ``[tool.mcp-contracts.tools.<name>]`` table), a string (the assistant's
    text), or a whole ``CreateMessageResult`` object (``role``, ``content``, ``model``,
    ``stopReason``), sent as is. ``params`` is the request's params as the server sent them
    (``messages``, ``maxTokens``, ``systemPrompt``...). Called from the thread that reads
    the server's messages: keep it quick and deterministic.

    Example::

        def pytest_mcp_sampling_reply(tool, params):
            if tool == "summarize":
                return "A short summary."
            return None
    """
