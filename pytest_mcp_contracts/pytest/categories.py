"""The warning categories the plugin issues, importable as ``pytest_mcp_contracts.X`` for
``-W`` and ``filterwarnings`` without loading the collectors."""

from __future__ import annotations

import pytest


class McpContractWarning(pytest.PytestWarning):
    """Something a server author should look at that does not fail the run, unless the run
    says so: ``-W error::pytest_mcp_contracts.McpContractWarning``."""


class McpLintWarning(pytest.PytestWarning):
    """A lint (judges/lints) at its default level. Not a McpContractWarning: a run that
    makes those errors with -W does not turn every lint into a collection error; a lint
    becomes a failure of its item with ``--mcp-lints=<id>:error``."""
