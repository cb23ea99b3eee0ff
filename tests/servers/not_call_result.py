"""Results that are not a CallToolResult, one way each; `ok` is right, for contrast.

- `string_result`: `"result": "hello"`.
- `content_not_list`: `{"content": "not a list"}`.
- `untyped_block`: a content block without `type`.
- `block_not_object`: a content block that is not an object.
- `text_without_text`: a `type: text` block with no `text`.
"""

from _legacy import serve, text_result

OBJ = {"type": "object", "additionalProperties": False}
RESULTS = {
    "string_result": "hello",
    "content_not_list": {"content": "not a list"},
    "untyped_block": {"content": [{"text": "no type here"}]},
    "block_not_object": {"content": ["just a string"]},
    "text_without_text": {"content": [{"type": "text", "value": "wrong key"}]},
    "ok": text_result("fine"),
}
TOOLS = [{"name": name, "inputSchema": OBJ} for name in RESULTS]


def call(name, args):
    return RESULTS[name]


serve("not-call-result", TOOLS, call)
