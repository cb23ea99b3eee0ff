"""pytest-mcp-contracts: contract-test every tool of an MCP server with pytest.

The pipeline, one module each: connect -> discover -> generate -> call -> check -> report;
``plugin`` holds the pytest hooks and ``items`` the collectors and items.
"""

__version__ = "0.1.0"
