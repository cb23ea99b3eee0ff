"""`huge` answers with one ~200 MB text block, streamed in 1 MB chunks: the server never
holds it. `small` is right, for contrast. HUGE_MB overrides the size (in MB)."""

import json
import os

from _legacy import Raw, serve, text_result

OBJ = {"type": "object", "additionalProperties": False}
TOOLS = [{"name": name, "inputSchema": OBJ} for name in ("huge", "small")]
CHUNK = b"x" * (1 << 20)
MEGABYTES = int(os.environ.get("HUGE_MB", "200"))


def stream(msg_id, out):
    head = {"jsonrpc": "2.0", "id": msg_id, "result": {"content": [{"type": "text", "text": ""}]}}
    prefix, suffix = json.dumps(head).split('""')
    out.write(prefix.encode() + b'"')
    for _ in range(MEGABYTES):
        out.write(CHUNK)
    out.write(b'"' + suffix.encode() + b"\n")


def call(name, args):
    return Raw(stream) if name == "huge" else text_result("small")


serve("oversized", TOOLS, call)
