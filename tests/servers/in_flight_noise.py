"""A read-only tool whose calls the contract check sends several at a time, and one of whose
inputs makes the server print a line on stdout (noise: not a JSON-RPC message) before its
answer: `say(word)`, for word "loud". Standard library only (tests/servers/_legacy.py): an
MCPServer cannot write to stdout, the SDK diverts `print`. It answers one request at a
time, in the order they arrive.
"""

from _legacy import serve, text_result

WORDS = ["soft", "loud", "calm", "mild", "warm", "cool"]
SAY = {
    "name": "say",
    "inputSchema": {
        "type": "object",
        "properties": {"word": {"enum": WORDS}, "twice": {"type": "boolean"}},
        "required": ["word"],
        "additionalProperties": False,
    },
    "annotations": {"readOnlyHint": True},
}


def call(name, arguments):
    word = arguments["word"]
    if word == "loud":
        print("LOUD!", flush=True)  # stdout, by mistake
    return text_result(word * (2 if arguments.get("twice") else 1))


serve("in-flight-noise", [SAY], call)
