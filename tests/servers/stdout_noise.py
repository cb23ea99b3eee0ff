"""Tools that write to stdout mid-run what is not JSON-RPC; `echo` is right, for contrast.

- `chatty`: prints two log lines to stdout, then answers correctly.
- `babble`: prints a line to stdout instead of answering at all (only a timeout ends it).
- `echo`: answers correctly and writes nothing else.
"""

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


serve("stdout-noise", TOOLS, call)
