"""Slow tools, for the per-tool time budget (--mcp-tool-time). SLOW_SECONDS (default 1.5)
is how long a slow call takes. Standard library only (tests/servers/_legacy.py): the tools
see every input, valid or not, and refuse invalid ones themselves (isError) after the wait.

* ``slow_total(values)``: every call takes SLOW_SECONDS, invalid ones too.
* ``slow_check(n)``: answers with structured content its outputSchema refuses for n >= 10.
  Its calls take SLOW_SECONDS / 3, except for the bounds 0 and 1000, the coverage phase's
  first two inputs, which answer at once: the failure at 1000 is found at once, and
  shrinking it to 10 then takes many slow calls.
"""

import os
import time

from _legacy import invalid_params, serve, text_result

SLOW = float(os.environ.get("SLOW_SECONDS", "1.5"))
TOTAL = {
    "name": "slow_total",
    "inputSchema": {
        "type": "object",
        "properties": {"values": {"type": "array", "items": {"type": "integer"}}},
        "required": ["values"],
        "additionalProperties": False,
    },
}
CHECK = {
    "name": "slow_check",
    "inputSchema": {
        "type": "object",
        "properties": {"n": {"type": "integer", "minimum": 0, "maximum": 1000}},
        "required": ["n"],
        "additionalProperties": False,
    },
    "outputSchema": {
        "type": "object",
        "properties": {"n": {"type": "integer", "maximum": 9}},
        "required": ["n"],
    },
}
TOOLS = {tool["name"]: tool for tool in (TOTAL, CHECK)}


def call(name, arguments):
    tool = TOOLS[name]
    if name == "slow_total":
        time.sleep(SLOW)
    elif arguments.get("n") not in (0, 1000):
        time.sleep(SLOW / 3)
    problem = invalid_params(tool, arguments)
    if problem is not None:
        return text_result(f"invalid arguments: {problem}", is_error=True)
    if name == "slow_total":
        total = sum(arguments["values"])
        return text_result(str(total), structured={"total": total})
    return text_result(str(arguments["n"]), structured={"n": arguments["n"]})


serve("slow", list(TOOLS.values()), call, validate=False)
