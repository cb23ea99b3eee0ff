"""Which calls the plugin makes: tools with every kind of safety annotation, and one whose
inputSchema suggests its own inputs. Each call appends `<tool> <arguments as JSON>` to the file
named by MCP_FIXTURE_CALL_LOG, so a test can see what was really called, in order.

- `wipe`: destructiveHint true; `read`: readOnlyHint true; `bare`: no annotations;
- `touch`: readOnlyHint false, destructiveHint false (changes state, not destructively);
- `hinted`: read-only; its inputSchema has `examples` and a property `default`.
"""

import json
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
    {
        "name": "hinted",
        "annotations": {"readOnlyHint": True},
        "inputSchema": {
            "type": "object",
            "examples": [{"n": 7}],
            "properties": {"n": {"type": "integer", "default": 3}},
        },
    },
]


def call(name, args):
    with open(os.environ["MCP_FIXTURE_CALL_LOG"], "a") as log:
        log.write(f"{name} {json.dumps(args, sort_keys=True)}\n")
    return text_result("done")


serve("annotated", TOOLS, call)
