"""pytest-mcp-contracts: contract-test every tool of an MCP server with pytest.

The pipeline, a folder each: ``transport`` (start a server, list what it offers, call it) ->
``inputs`` (valid, invalid and corner-case inputs) -> ``judges`` (the verdict on a listing
and on each answer) -> ``runs`` (the one loop that draws, calls, judges and shrinks, and its
drivers) -> ``reporting`` (the run's facts, terminal summary, run report, SARIF);
``contracts`` infers, records and compares what entries return, ``schema`` holds the JSON
Schema machinery they share, ``pytest`` the collectors and items, ``cli`` the command.
ARCHITECTURE.md walks one call through them.
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
