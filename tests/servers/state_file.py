"""A server that keeps its state in a JSON file named on its command line (`--state PATH`,
else by STATE_FILE_PATH in its environment), as published memory servers do, with one bug
that only remember -> recall reaches. Standard library only (tests/servers/_legacy.py).

- `remember(key, value)`: stores `value` under `key` ("alpha" or "beta") in the file: it
  reads the file, changes it and writes it back, so two processes given one file lose each
  other's writes or read it half written;
- `recall(key)`: the stored value; a key never stored is refused (isError, "no such key");
- `keys()`: read-only, no arguments: the stored keys.

The bug (MCP_FIXTURE_BUGS unset or "1"): `remember` does not store when it stored the value,
and `recall` of a stored key reads it: a KeyError, logged with its traceback on stderr and
answered with isError as the SDKs answer an exception. So on a fresh server `recall` fails
only after `remember`; but a restarted server reads back the file the run filled, and there
`recall` fails alone. With MCP_FIXTURE_BUGS=0 `remember` stores the time too.
"""

import json
import os
import sys
import time
import traceback

from _legacy import serve, text_result

BUGS = os.environ.get("MCP_FIXTURE_BUGS", "1") != "0"
# Its file: `--state PATH`, else the environment's STATE_FILE_PATH (a path no command line names).
STATE = (
    sys.argv[sys.argv.index("--state") + 1]
    if "--state" in sys.argv
    else os.environ["STATE_FILE_PATH"]
)
KEY = {"type": "string", "enum": ["alpha", "beta"]}

TOOLS = [
    {
        "name": "remember",
        "annotations": {"destructiveHint": False},
        "inputSchema": {
            "type": "object",
            "properties": {"key": KEY, "value": {"type": "string", "maxLength": 20}},
            "required": ["key", "value"],
        },
    },
    {
        "name": "recall",
        "annotations": {"readOnlyHint": True},
        "inputSchema": {"type": "object", "properties": {"key": KEY}, "required": ["key"]},
    },
    {
        "name": "keys",
        "annotations": {"readOnlyHint": True},
        "inputSchema": {"type": "object", "properties": {}},
    },
]


def load():
    if not os.path.exists(STATE):
        return {}
    with open(STATE, encoding="utf-8") as file:
        return json.load(file)


def call(name, args):
    try:
        stored = load()
        if name == "remember":
            entry = {"value": args["value"]}
            if not BUGS:
                entry["when"] = time.time()
            stored[args["key"]] = entry
            with open(STATE, "w", encoding="utf-8") as file:
                json.dump(stored, file)
            return text_result("stored")
        if name == "recall":
            if args["key"] not in stored:
                return text_result(f"no such key: {args['key']}", is_error=True)
            entry = stored[args["key"]]
            return text_result(f"{entry['value']} (stored at {entry['when']})")
        return text_result(json.dumps(sorted(stored)))
    except Exception as exc:  # as an SDK answers a tool's exception
        traceback.print_exc()
        return text_result(f"Error executing tool {name}: {exc}", is_error=True)


if __name__ == "__main__":
    serve("state-file", TOOLS, call)
