"""Tools that take known times and answer alike or not, for latency limits, flaky tools and
hangs found fast. Standard library only (tests/servers/_legacy.py): a call is answered on the
one thread that reads stdin, so the transport adds only its own few milliseconds.

* ``nap(n)``: sleeps NAP_MS (default 40) milliseconds, then answers ``{"n": n}``.
* ``quick(n)``: answers ``{"n": n}`` at once.
* ``lookup(key)`` (readOnlyHint): the same answer for the same key, with a fresh request
  id and the time of the call beside it (fields a contract learns to vary).
* ``dice(sides)`` (readOnlyHint): a random number from 1 to ``sides``: the same input may
  answer otherwise (a flaky tool).
* ``stuck(n)``: answers at once, except for n from 10 to 19, which never answer (a planted
  hang; the server answers nothing else meanwhile: it is a one-thread server).
"""

import os
import random
import time
import uuid

from _legacy import serve, text_result

NAP = float(os.environ.get("NAP_MS", "40")) / 1000
_N = {
    "type": "object",
    "properties": {"n": {"type": "integer", "minimum": 0, "maximum": 100}},
    "required": ["n"],
    "additionalProperties": False,
}
_READ_ONLY = {"readOnlyHint": True}
TOOLS = [
    {"name": "nap", "inputSchema": _N},
    {"name": "quick", "inputSchema": _N},
    {
        "name": "lookup",
        "annotations": _READ_ONLY,
        "inputSchema": {
            "type": "object",
            "properties": {"key": {"type": "string", "enum": ["a", "b", "c"]}},
            "required": ["key"],
        },
    },
    {
        "name": "dice",
        "annotations": _READ_ONLY,
        "inputSchema": {
            "type": "object",
            "properties": {"sides": {"type": "integer", "minimum": 1000, "maximum": 10**6}},
            "required": ["sides"],
        },
    },
    {"name": "stuck", "inputSchema": _N},
]


def call(name, arguments):
    if name == "nap":
        time.sleep(NAP)
    if name in ("nap", "quick"):
        return text_result(str(arguments["n"]), structured={"n": arguments["n"]})
    if name == "lookup":
        found = {
            "key": arguments["key"],
            "value": ord(arguments["key"]) * 7,
            "request_id": str(uuid.uuid4()),
            "at": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime())
            + f".{time.time_ns() % 10**9:09d}Z",
        }
        return text_result(str(found["value"]), structured=found)
    if name == "dice":
        value = random.SystemRandom().randint(1, arguments["sides"])
        return text_result(str(value), structured={"value": value})
    if 10 <= arguments["n"] <= 19:
        while True:
            time.sleep(3600)
    return text_result(str(arguments["n"]), structured={"n": arguments["n"]})


serve("latency", TOOLS, call)
