"""Tools whose useful inputs a generator cannot guess: real order ids, real paths. Each call
appends `<tool> <arguments as JSON>` to the file named by MCP_FIXTURE_CALL_LOG.

- `get_order`: `order_id` (required, pattern `^A-[0-9]+$`) and an optional boolean `verbose`;
- `list_files`: one required `path`.

Arguments are not validated (`validate=False`): every call reaches the log.
"""

import json
import os

from _legacy import serve, text_result

TOOLS = [
    {
        "name": "get_order",
        "annotations": {"readOnlyHint": True},
        "inputSchema": {
            "type": "object",
            "properties": {
                "order_id": {"type": "string", "pattern": "^A-[0-9]+$"},
                "verbose": {"type": "boolean"},
            },
            "required": ["order_id"],
        },
    },
    {
        "name": "list_files",
        "annotations": {"readOnlyHint": True},
        "inputSchema": {
            "type": "object",
            "properties": {"path": {"type": "string"}},
            "required": ["path"],
        },
    },
]


def call(name, args):
    with open(os.environ["MCP_FIXTURE_CALL_LOG"], "a") as log:
        log.write(f"{name} {json.dumps(args, sort_keys=True)}\n")
    return text_result("found")


serve("lookup", TOOLS, call, validate=False)
