"""Tools that write to stdout mid-run what is not JSON-RPC; `echo` is right, for contrast.

- `chatty`: prints two log lines to stdout, then answers correctly.
- `babble`: prints a line to stdout instead of answering at all (only a timeout ends it).
- `echo`: answers correctly and writes nothing else.

Every `tools/list` prints a log line to stdout before its answer: at start-up (before the
first call), and again when the plugin lists the tools at the end of the run (while no call
runs).
"""

import json

from _legacy import Raw, serve, text_result

OBJ = {"type": "object", "additionalProperties": False}
TOOLS = [{"name": name, "inputSchema": OBJ} for name in ("chatty", "babble", "echo")]


def call(name, args):
    if name == "chatty":
        print("DEBUG chatty: handling a request", flush=True)  # stdout, by mistake
        print("<html><body>oops</body></html>", flush=True)
        return text_result("done")
    if name == "babble":
        return Raw(lambda _id, out: out.write(b"Processing request... please wait\n"))
    return text_result("echo")


def list_page(cursor):
    def write(msg_id, out):
        answer = {"jsonrpc": "2.0", "id": msg_id, "result": {"tools": TOOLS}}
        out.write(b"INFO listing tools again\n" + json.dumps(answer).encode() + b"\n")

    return Raw(write)


serve("stdout-noise", TOOLS, call, list_page=list_page)
