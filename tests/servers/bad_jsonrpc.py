"""Tools whose responses are not valid JSON-RPC 2.0, one way each; `ok` is right.

- `neither`: a response with neither `result` nor `error`.
- `both`: a response with both `result` and `error`.
- `old_version`: `"jsonrpc": "1.0"` on an otherwise correct response.
- `array_line`: the line `[1,2]` instead of any response.
- `number_line`: the line `42`, then the correct response.
"""

import json

from _legacy import Raw, serve, text_result

OBJ = {"type": "object", "additionalProperties": False}
NAMES = ("neither", "both", "old_version", "array_line", "number_line", "ok")
TOOLS = [{"name": name, "inputSchema": OBJ} for name in NAMES]
GOOD = text_result("fine")


def line(obj):
    return (json.dumps(obj) + "\n").encode()


def reply(name, msg_id):
    if name == "neither":
        return line({"jsonrpc": "2.0", "id": msg_id})
    if name == "both":
        error = {"code": -32603, "message": "also an error"}
        return line({"jsonrpc": "2.0", "id": msg_id, "result": GOOD, "error": error})
    if name == "old_version":
        return line({"jsonrpc": "1.0", "id": msg_id, "result": GOOD})
    if name == "array_line":
        return b"[1,2]\n"
    return b"42\n" + line({"jsonrpc": "2.0", "id": msg_id, "result": GOOD})


def call(name, args):
    if name == "ok":
        return GOOD
    return Raw(lambda msg_id, out: out.write(reply(name, msg_id)))


serve("bad-jsonrpc", TOOLS, call)
