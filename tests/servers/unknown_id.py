"""Responses to request ids the client never used; `ok` is right, for contrast.

- `stray_first`: answers id 999999 first, then the real id (correct result both times).
- `wrong_id_only`: answers only id 999999, never the real one (the call must time out).
"""

import json

from _legacy import Raw, serve, text_result

OBJ = {"type": "object", "additionalProperties": False}
TOOLS = [{"name": name, "inputSchema": OBJ} for name in ("stray_first", "wrong_id_only", "ok")]
GOOD = text_result("fine")


def response(msg_id):
    return (json.dumps({"jsonrpc": "2.0", "id": msg_id, "result": GOOD}) + "\n").encode()


def call(name, args):
    if name == "stray_first":
        return Raw(lambda msg_id, out: out.write(response(999999) + response(msg_id)))
    if name == "wrong_id_only":
        return Raw(lambda _id, out: out.write(response(999999)))
    return GOOD


serve("unknown-id", TOOLS, call)
