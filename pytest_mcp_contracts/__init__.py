"""pytest-mcp-contracts: contract-test every tool of an MCP server with pytest.

The pipeline, a folder each: ``transport`` (start a server, list its tools, call them) ->
``inputs`` (generate valid, invalid and corner-case inputs) -> ``checks`` (judge each listing
and result) -> ``contracts`` (infer, observe, record and compare what tools return) ->
``reporting`` (failure text, terminal summary, run report). ``schema`` holds the JSON Schema
machinery they share, ``pytest`` the collectors, items and settings, and ``plugin`` the hooks.
ARCHITECTURE.md walks one tool through them.
"""

from typing import Any

# What a hand-written test names (the mcp_server fixture's types), from runs/handwritten.
HANDWRITTEN_NAMES = (
    "ServerUnderTest",
    "ToolResult",
    "ResourceResult",
    "PromptResult",
    "McpRpcError",
    "CheckFailed",
)


def __getattr__(name: str) -> Any:
    if name == "__version__":
        from pytest_mcp_contracts.vocabulary import VERSION

        return VERSION
    # Loaded on first use (``-W error::pytest_mcp_contracts.McpContractWarning`` does), so
    # that importing the package stays free.
    if name in ("McpContractWarning", "McpLintWarning"):
        from pytest_mcp_contracts.pytest import categories

        return getattr(categories, name)
    if name in HANDWRITTEN_NAMES:
        from pytest_mcp_contracts.runs import handwritten

        return getattr(handwritten, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
