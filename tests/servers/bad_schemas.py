"""Tools whose listings are wrong in one way each; `draft07_ok` is right, for contrast.

- `string_root`: inputSchema root is `type: string`, not an object schema.
- `bad_output`: outputSchema is not a valid schema (`type: 5`).
- `odd_dialect`: inputSchema names a `$schema` dialect nobody supports.
- `array_output`: outputSchema root is an array, which protocol 2025-11-25 forbids.
- `impossible`: a valid inputSchema no value satisfies (minimum above maximum).
- `bad name!`: a name outside the spec's characters (a warning, not a failure).
- `draft07_ok`: draft-07 input and output schemas, correct results.
"""

from _legacy import serve, text_result

OBJ = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
TOOLS = [
    {"name": "string_root", "inputSchema": {"type": "string"}},
    {"name": "bad_output", "inputSchema": OBJ, "outputSchema": {"type": 5}},
    {"name": "odd_dialect", "inputSchema": {"$schema": "http://example.com/my-dialect", **OBJ}},
    {
        "name": "array_output",
        "inputSchema": OBJ,
        "outputSchema": {"type": "array", "items": {"type": "integer"}},
    },
    {
        "name": "impossible",
        "inputSchema": {
            "type": "object",
            "properties": {"n": {"type": "integer", "minimum": 5, "maximum": 1}},
            "required": ["n"],
        },
    },
    {"name": "bad name!", "inputSchema": {"type": "object"}},
    {
        "name": "draft07_ok",
        "inputSchema": {"$schema": "http://json-schema.org/draft-07/schema#", **OBJ},
        "outputSchema": {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {"double": {"type": "integer"}},
            "required": ["double"],
        },
    },
]


def call(name, args):
    if name == "draft07_ok":
        return text_result(str(args["n"] * 2), structured={"double": args["n"] * 2})
    return text_result("ok")


serve("bad-schemas", TOOLS, call)
