"""Starts only when API_KEY is in its environment, as servers wrapping an API do.

Its one tool, `whoami`, returns the key's length, so a test can see the value arrived.
"""

import os
import sys

from _legacy import serve, text_result

if not os.environ.get("API_KEY"):
    print("needs-env: API_KEY is not set", file=sys.stderr)
    sys.exit(2)

TOOLS = [
    {
        "name": "whoami",
        "inputSchema": {"type": "object", "properties": {}},
        "outputSchema": {
            "type": "object",
            "properties": {"key_length": {"type": "integer"}},
            "required": ["key_length"],
        },
    }
]


def call(name, args):
    length = len(os.environ["API_KEY"])
    return text_result(f'{{"key_length": {length}}}', structured={"key_length": length})


serve("needs-env", TOOLS, call)
