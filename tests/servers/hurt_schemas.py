"""Schemas built to hurt a client, one tool each; `tree` and `ok` are legitimate.

- `deep`: inputSchema properties nested 10,000 levels deep (written as text: json.dumps
  would hit the recursion limit here too).
- `huge_enum`: a property with a 100,000-value enum.
- `ref_loop`: `$ref` a -> b -> a, a loop that never moves into a property or item.
- `loop_output`: the same loop in an outputSchema; the tool returns structuredContent.
- `tree`: a recursive tree (children: items $ref node); legitimate.
- `remote_ref`: `$ref`s to https://example.com/schema.json and to REMOTE_REF_URL (a local
  listener a test may start to prove that nothing is fetched).
- `remote_output`: an outputSchema with a network `$ref`; the tool returns structuredContent.
- `odd_dialect`: a `$schema` nobody supports.
- `superscript_ref`: a `$ref` whose pointer indexes an array with `%C2%B2`, which decodes
  to "²": a digit to `str.isdigit()`, no number to `int()`.
- `superscript_output`: the same `$ref` in an outputSchema; the tool returns structuredContent.
- `ok`: plain and correct.
"""

import json
import os

from _legacy import Raw, serve, text_result

DEPTH = 10_000
LOCAL_URL = os.environ.get("REMOTE_REF_URL", "http://127.0.0.1:9/schema.json")
OBJ = {"type": "object", "additionalProperties": False}
LOOP = {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}
PAIR = {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}]}
SUPERSCRIPT = {
    "type": "object",
    "properties": {"pair": PAIR, "v": {"$ref": "#/properties/pair/prefixItems/%C2%B2"}},
}
TOOLS = [
    {
        "name": "huge_enum",
        "inputSchema": {
            "type": "object",
            "properties": {"color": {"enum": [f"c{i}" for i in range(100_000)]}},
            "required": ["color"],
        },
    },
    {
        "name": "ref_loop",
        "inputSchema": {
            "type": "object",
            "properties": {"x": {"$ref": "#/$defs/a"}},
            "required": ["x"],
            "$defs": LOOP,
        },
    },
    {
        "name": "loop_output",
        "inputSchema": OBJ,
        "outputSchema": {
            "type": "object",
            "properties": {"v": {"$ref": "#/$defs/a"}},
            "$defs": LOOP,
        },
    },
    {
        "name": "tree",
        "inputSchema": {
            "type": "object",
            "properties": {"root": {"$ref": "#/$defs/node"}},
            "required": ["root"],
            "$defs": {
                "node": {
                    "type": "object",
                    "properties": {
                        "value": {"type": "integer"},
                        "children": {"type": "array", "items": {"$ref": "#/$defs/node"}},
                    },
                    "required": ["value"],
                }
            },
        },
    },
    {
        "name": "remote_ref",
        "inputSchema": {
            "type": "object",
            "properties": {
                "cfg": {"$ref": "https://example.com/schema.json"},
                "local": {"$ref": LOCAL_URL},
            },
            "required": ["cfg", "local"],
        },
    },
    {
        "name": "remote_output",
        "inputSchema": OBJ,
        "outputSchema": {
            "type": "object",
            "properties": {"v": {"$ref": LOCAL_URL}},
            "required": ["v"],
        },
    },
    {"name": "superscript_ref", "inputSchema": {**SUPERSCRIPT, "required": ["v"]}},
    {"name": "superscript_output", "inputSchema": OBJ, "outputSchema": SUPERSCRIPT},
    {"name": "odd_dialect", "inputSchema": {"$schema": "http://example.com/my-dialect", **OBJ}},
    {
        "name": "ok",
        "inputSchema": {
            "type": "object",
            "properties": {"n": {"type": "integer"}},
            "required": ["n"],
        },
    },
]
DEEP = (
    '{"name": "deep", "inputSchema": '
    + '{"type": "object", "properties": {"a": ' * DEPTH
    + '{"type": "string"}'
    + "}}" * DEPTH
    + "}"
)


def list_page(cursor):
    tools = "[" + ", ".join([DEEP, *(json.dumps(tool) for tool in TOOLS)]) + "]"

    def write(msg_id, out):
        out.write(f'{{"jsonrpc": "2.0", "id": {json.dumps(msg_id)}, "result": {{"tools": '.encode())
        out.write(tools.encode() + b"}}\n")

    return Raw(write)


def call(name, args):
    if name in ("remote_output", "loop_output", "superscript_output"):
        return text_result('{"v": 1}', structured={"v": 1})
    return text_result("fine")


serve("hurt-schemas", [], call, list_page=list_page)
