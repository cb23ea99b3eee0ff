"""Fails at start-up: prints an ImportError traceback to stderr and exits with status 1."""

import sys

TRACEBACK = """\
Traceback (most recent call last):
  File "/srv/app/server.py", line 3, in <module>
    from mcp.server.fastmcp import FastMCP
ImportError: cannot import name 'FastMCP' from 'mcp.server.fastmcp'
"""

sys.stderr.write(TRACEBACK)
sys.stderr.flush()
sys.exit(1)
