"""A handshake-era server that stores what it is sent without checking it, and a listing that
breaks on what was stored: the listing's failure comes from an earlier call, not its own input.

- `add_tag(tag)`: the inputSchema wants lowercase letters; arguments are not validated, so
  whatever comes is stored;
- `list_tags()` (readOnlyHint): answers JSON-RPC -32603 once a stored tag is not a string of
  lowercase letters.
"""

import json
import re

from _legacy import RpcError, serve, text_result

TOOLS = [
    {
        "name": "add_tag",
        "annotations": {"readOnlyHint": False, "destructiveHint": False},
        "inputSchema": {
            "type": "object",
            "properties": {"tag": {"type": "string", "pattern": "^[a-z]+$"}},
            "required": ["tag"],
        },
    },
    {
        "name": "list_tags",
        "annotations": {"readOnlyHint": True},
        "inputSchema": {"type": "object", "properties": {}},
    },
]
tags = []


def call(name, args):
    if name == "add_tag":
        tags.append(args.get("tag"))
        return text_result("added")
    if any(not isinstance(t, str) or not re.fullmatch("[a-z]+", t) for t in tags):
        raise RpcError(-32603, "internal error: the tag store holds a malformed tag")
    return text_result(json.dumps(tags))


serve("stored-invalid", TOOLS, call, validate=False)
