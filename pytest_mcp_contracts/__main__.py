"""``python -m pytest_mcp_contracts inspect ...``: the same as the ``mcp-contracts`` command."""

import sys

from pytest_mcp_contracts.cli import main

sys.exit(main())
