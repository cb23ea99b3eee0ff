"""How servers answer input their schema refuses, one tool per way. Every tool takes one
required integer `n` >= 0 and answers valid input correctly.

- `refuses`: JSON-RPC -32602 for invalid input (a correct refusal);
- `error_result`: a result with isError: true (a correct refusal);
- `internal`: no validation, so invalid input raises and is answered with -32603;
- `dies`: invalid input kills the process (exit status 4, a line on stderr);
- `hangs`: invalid input never gets an answer;
- `accepts`: invalid input gets a success result.
"""

import os
import sys
import time

from _legacy import RpcError, serve, text_result

SCHEMA = {
    "type": "object",
    "properties": {"n": {"type": "integer", "minimum": 0}},
    "required": ["n"],
    "additionalProperties": False,
}
NAMES = ("refuses", "error_result", "internal", "dies", "hangs", "accepts")
TOOLS = [{"name": name, "inputSchema": SCHEMA} for name in NAMES]


def valid(args):
    n = args.get("n")
    return set(args) == {"n"} and type(n) is int and n >= 0


def call(name, args):
    if valid(args) or name == "accepts":
        return text_result(str(args.get("n")))
    if name == "refuses":
        raise RpcError(-32602, "Invalid params: n must be an integer >= 0")
    if name == "error_result":
        return text_result("n must be an integer >= 0", is_error=True)
    if name == "internal":
        return text_result(str(args["n"] + 1))  # KeyError / TypeError -> -32603
    if name == "dies":
        sys.stderr.write("fatal: cannot handle that input\n")
        sys.stderr.flush()
        os._exit(4)
    time.sleep(3600)  # hangs
    return None


serve("fragile-validation", TOOLS, call, validate=False)
