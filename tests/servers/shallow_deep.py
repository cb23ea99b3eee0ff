"""A memory store whose shallow failure stands in front of a deeper one (issue 43, class 7),
standard library only. An older release of a published memory server crashed on an unknown
id (JSON-RPC -32603), and a lookup crashed only once the store held a second memory; a
tester that stops at its first failure reports the first and never reaches the second.

- `store_memory(text)`: stores a memory, returns it with its new `memory_id` (a hash of a
  counter: deterministic from a fresh start, never guessed by a generator);
- `get_memory(memory_id)`: the memory.

The bugs (MCP_FIXTURE_BUGS unset or "1"):

- shallow: `get_memory` of an unknown id crashes on the missing entry (JSON-RPC -32603
  "Cannot read properties of undefined (reading 'text')") instead of refusing;
- deep: once two memories are stored, `get_memory` of a stored one kills the process (its
  index thread died with the second entry; exit status 5, a traceback on stderr).

With MCP_FIXTURE_BUGS=0 an unknown id is refused with isError and lookups work.
"""

import hashlib
import itertools
import os
import sys

from _legacy import RpcError, serve, text_result

BUGS = os.environ.get("MCP_FIXTURE_BUGS", "1") != "0"

TOOLS = [
    {
        "name": "store_memory",
        "description": "Store a memory; returns it with its id.",
        "inputSchema": {
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"],
        },
    },
    {
        "name": "get_memory",
        "description": "One stored memory, by its id.",
        "inputSchema": {
            "type": "object",
            "properties": {"memory_id": {"type": "string"}},
            "required": ["memory_id"],
        },
        "annotations": {"readOnlyHint": True},
    },
]
memories = {}
counter = itertools.count(1)


def call(name, args):
    if name == "store_memory":
        memory_id = "m-" + hashlib.sha256(str(next(counter)).encode()).hexdigest()[:10]
        memories[memory_id] = {"memory_id": memory_id, "text": args["text"]}
        return text_result(str(memories[memory_id]), structured=memories[memory_id])
    memory_id = args["memory_id"]
    if memory_id not in memories:
        if BUGS:
            # The TypeScript SDK 1.0 sends a TypeError as -32603 with its message alone.
            raise RpcError(-32603, "Cannot read properties of undefined (reading 'text')")
        return text_result(f"memory {memory_id!r} not found", is_error=True)
    if BUGS and len(memories) >= 2:
        sys.stderr.write(
            "Exception in thread index-1:\nTraceback (most recent call last):\n"
            '  File "memory_index.py", line 88, in lookup\n'
            "    return self.slots[self.positions[key]]\n"
            "IndexError: list index out of range\n"
        )
        sys.stderr.flush()
        os._exit(5)
    return text_result(str(memories[memory_id]), structured=memories[memory_id])


serve("shallow-deep", TOOLS, call)
