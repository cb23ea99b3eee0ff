"""The annotations the security fixtures declare, one place for all: the promises a client
trusts to run a tool without asking, which the fixtures keep or break on purpose."""

from mcp.types import ToolAnnotations

# Reads only, stays on the machine: the hints of every reading tool here.
READ_ONLY = ToolAnnotations(
    readOnlyHint=True, destructiveHint=False, idempotentHint=True, openWorldHint=False
)
# Writes, but only adds: the hints of the tools that create or copy.
WRITES = ToolAnnotations(
    readOnlyHint=False, destructiveHint=False, idempotentHint=True, openWorldHint=False
)
