"""A tool whose invalid inputs fail two ways, the shallower one first (issue 43, rule 3),
standard library only: a tester that stops at its first failing input reports the -32603
and never sends the value that hangs the tool.

`pause(seconds)` takes an integer from 0 to 5 and answers at once (it does not really
sleep). Its invalid inputs, in the order rejects_invalid sends their kinds:

- `seconds` missing: refused (isError);
- `seconds` of a wrong type: the arithmetic raises TypeError, answered JSON-RPC -32603;
- `seconds` below 0: refused (isError); above 5: the tool sleeps for an hour (a hang);
- an undeclared property: refused with JSON-RPC -32602.
"""

import time

from _legacy import RpcError, serve, text_result

SCHEMA = {
    "type": "object",
    "properties": {"seconds": {"type": "integer", "minimum": 0, "maximum": 5}},
    "required": ["seconds"],
    "additionalProperties": False,
}
TOOLS = [{"name": "pause", "description": "Pause for a few seconds.", "inputSchema": SCHEMA}]


def call(name, args):
    if set(args) - {"seconds"}:
        raise RpcError(-32602, "Invalid params: unexpected argument")
    if "seconds" not in args:
        return text_result("seconds is required", is_error=True)
    until = args["seconds"] + 0  # a string or null raises TypeError: answered -32603
    if until < 0:
        return text_result("seconds must be at least 0", is_error=True)
    if until > 5:
        time.sleep(3600)  # the bug: no upper bound, so an out-of-range value hangs
    return text_result(f"paused {until} s", structured={"paused": until})


serve("deep-invalid", TOOLS, call, validate=False)
