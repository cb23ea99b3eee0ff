"""Schemas as the TypeScript SDK's zod writes them for `z.number().int()`: every integer
bounded by -9007199254740991 and 9007199254740991 (JavaScript's safe integers), each schema
naming draft-07. Hand-written JSON-RPC over stdio, standard library only.

- `tally(count)`: returns `{"total": count}`, within the declared outputSchema.

What it shows: an int below -2**31 in a recorded schema, which execnet (pytest-xdist's
channel) cannot pack as it packs other ints, still reaches the controller of an `-n 2` run.
"""

import json

from _legacy import RpcError, serve, text_result

SAFE = {"type": "integer", "minimum": -9007199254740991, "maximum": 9007199254740991}
DRAFT = "http://json-schema.org/draft-07/schema#"
TOOLS = [
    {
        "name": "tally",
        "description": "Echo a count back as a total.",
        "inputSchema": {
            "$schema": DRAFT,
            "type": "object",
            "properties": {"count": SAFE},
            "required": ["count"],
            "additionalProperties": False,
        },
        "outputSchema": {
            "$schema": DRAFT,
            "type": "object",
            "properties": {"total": SAFE},
            "required": ["total"],
            "additionalProperties": False,
        },
    }
]


def call(name, args):
    if name != "tally":
        raise RpcError(-32602, f"Unknown tool: {name}")
    total = {"total": args["count"]}
    return text_result(json.dumps(total), structured=total)


if __name__ == "__main__":
    serve("zod-int-bounds", TOOLS, call)
