"""A handshake-era server that stores what it is sent without checking it, and a listing that
breaks on what was stored: the listing's failure comes from an earlier call, not its own input.

- `add_tag(tag)`: the inputSchema wants lowercase letters; arguments are not validated, so
  whatever comes is stored;
- `list_tags()` (readOnlyHint): crashes (JSON-RPC -32603, a traceback on stderr) once a
  stored tag is not a string.
"""

import json

from _legacy import serve, text_result

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
    # The bug: a stored tag that is no string (a missing one: None) breaks the listing, an
    # AttributeError that the server answers with -32603 and its traceback on stderr.
    return text_result(json.dumps(sorted(tag.lower() for tag in tags)))


serve("stored-invalid", TOOLS, call, validate=False)
