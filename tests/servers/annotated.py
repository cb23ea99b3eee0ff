"""Tools with every kind of safety annotation. Each call appends the tool's name to the file
named by MCP_FIXTURE_CALL_LOG, so a test can see which tools were really called.

- `wipe`: destructiveHint true; `read`: readOnlyHint true; `bare`: no annotations;
- `touch`: readOnlyHint false, destructiveHint false (changes state, not destructively).
"""

import os

from _legacy import serve, text_result

NO_INPUT = {"type": "object", "properties": {"n": {"type": "integer"}}}
TOOLS = [
    {
        "name": "wipe",
        "inputSchema": NO_INPUT,
        "annotations": {"readOnlyHint": False, "destructiveHint": True},
    },
    {"name": "read", "inputSchema": NO_INPUT, "annotations": {"readOnlyHint": True}},
    {"name": "bare", "inputSchema": NO_INPUT},
    {
        "name": "touch",
        "inputSchema": NO_INPUT,
        "annotations": {"readOnlyHint": False, "destructiveHint": False},
    },
]


def call(name, args):
    with open(os.environ["MCP_FIXTURE_CALL_LOG"], "a") as log:
        log.write(f"{name}\n")
    return text_result("done")


serve("annotated", TOOLS, call)
