"""Tools whose outputSchema declares one JSON Schema dialect each (docs/clients.md): what
Claude Desktop and the TypeScript SDK 2.x client refuse, and what they take.

- `draft04`: draft-04, refused by both (claude/output-dialect, typescript-sdk/output-dialect).
- `draft07`: draft-07, refused by Claude Desktop only (what every TypeScript-SDK 1.x server
  with a zod outputSchema declares).
- `plain`: no $schema (2020-12), taken by both.
"""

from _legacy import serve, text_result

ARGS = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
DOUBLED = {"type": "object", "properties": {"double": {"type": "integer"}}, "required": ["double"]}
DIALECTS = {
    "draft04": "http://json-schema.org/draft-04/schema#",
    "draft07": "http://json-schema.org/draft-07/schema#",
    "plain": None,
}
TOOLS = [
    {
        "name": name,
        "description": f"Double n ({name} outputSchema).",
        "inputSchema": ARGS,
        "outputSchema": {**DOUBLED, **({"$schema": uri} if uri else {})},
    }
    for name, uri in DIALECTS.items()
]


def call(name, args):
    return text_result(str(args["n"] * 2), structured={"double": args["n"] * 2})


serve("output-dialects", TOOLS, call)
