"""Refusals in words no list holds, without isError (issue 43, class 4), standard library only.
Both tools take one required integer `limit` from 1 to 50 and validate nothing themselves
before they explain it:

- `list_items(limit)`: a JSON list of `limit` items; any other input is answered, as an
  ordinary result, with a sentence that explains the argument back ("limit should be a
  whole number from 1 to 50, like 10"): a refusal in words, not an acceptance;
- `echo_limit(limit)`: answers "You asked for <limit>." whatever it gets: it really takes
  the invalid input and runs on it (an acceptance).
"""

import json

from _legacy import serve, text_result

SCHEMA = {
    "type": "object",
    "properties": {"limit": {"type": "integer", "minimum": 1, "maximum": 50}},
    "required": ["limit"],
    "additionalProperties": False,
}
TOOLS = [{"name": name, "inputSchema": SCHEMA} for name in ("list_items", "echo_limit")]


def call(name, args):
    limit = args.get("limit")
    if name == "echo_limit":
        return text_result(f"You asked for {limit}.")
    if set(args) != {"limit"} or type(limit) is not int or not 1 <= limit <= 50:
        return text_result("limit should be a whole number from 1 to 50, like 10")
    items = [{"id": n, "name": f"item {n}"} for n in range(limit)]
    return text_result(json.dumps({"items": items}), structured={"items": items})


serve("wordy-refusals", TOOLS, call, validate=False)
