"""Bundled example MCP server: a small bookshop/orders service (`python -m example_server`).

Kept import-light on purpose: the server itself lives in `example_server.server`.
"""
