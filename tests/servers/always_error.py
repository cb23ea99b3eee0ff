"""`lookup` refuses every input with an `isError: true` result (as a tool guarding a real
data store does when given random ids); `echo` is correct. Shows the "barely exercised"
warning: error results are the tool's own answer, not a failure."""

from _legacy import serve, text_result

SCHEMA = {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}
TOOLS = [
    {
        "name": "lookup",
        "inputSchema": SCHEMA,
        "outputSchema": {
            "type": "object",
            "properties": {"name": {"type": "string"}},
            "required": ["name"],
        },
    },
    {"name": "echo", "inputSchema": SCHEMA},
]


def call(name, args):
    if name == "lookup":
        return text_result(f"no record with id {args['id']!r}", is_error=True)
    return text_result(args["id"])


serve("always-error", TOOLS, call)
