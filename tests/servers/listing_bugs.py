"""Prompts, resources and templates whose listing entries break the spec, beside one tool.

`relative-doc` has a relative URI, `logs` an unclosed URI template (`file://{path`),
`summarize` a prompt argument without a name, `dup` is listed twice as a prompt name, and
`notes` has the mimeType `markdown` (no subtype: a warning). `ok-doc` and `ok` are correct.
With MCP_FIXTURE_VARIANT=broken-prompts, prompts/list answers a JSON-RPC error instead.
"""

import os

from _legacy import RpcError, serve, text_result

TOOLS = [
    {
        "name": "ok",
        "description": "A correct tool.",
        "inputSchema": {"type": "object", "properties": {}},
    }
]
LISTINGS = {
    "prompts/list": {
        "prompts": [
            {"name": "summarize", "arguments": [{"description": "the text"}]},
            {"name": "dup", "description": "first"},
            {"name": "dup", "description": "second"},
        ]
    },
    "resources/list": {
        "resources": [
            {"uri": "docs/relative.md", "name": "relative-doc"},
            {"uri": "file:///docs/notes.md", "name": "notes", "mimeType": "markdown"},
            {"uri": "file:///docs/ok.md", "name": "ok-doc", "mimeType": "text/markdown"},
        ]
    },
    "resources/templates/list": {
        "resourceTemplates": [{"uriTemplate": "file://{path", "name": "logs"}]
    },
}


def _refuse(params):
    raise RpcError(-32603, "Internal error: the prompt store is offline")


handlers = {method: (lambda params, page=page: page) for method, page in LISTINGS.items()}
if os.environ.get("MCP_FIXTURE_VARIANT") == "broken-prompts":
    handlers["prompts/list"] = _refuse

serve(
    "listing-bugs",
    TOOLS,
    lambda name, args: text_result("ok"),
    capabilities={"tools": {}, "prompts": {}, "resources": {}},
    handlers=handlers,
)
