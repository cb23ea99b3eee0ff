"""Prompts, resources and templates whose listing entries break the spec, beside one tool.

`relative-doc` has a relative URI, `logs` an unclosed URI template (`file://{path`),
`summarize` a prompt argument without a name, `dup` is listed twice as a prompt name, and
`notes` has the mimeType `markdown` (no subtype: a warning). `ok-doc` and `ok` are correct.
"""

from _legacy import serve, text_result

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


serve(
    "listing-bugs",
    TOOLS,
    lambda name, args: text_result("ok"),
    capabilities={"tools": {}, "prompts": {}, "resources": {}},
    handlers={method: (lambda params, page=page: page) for method, page in LISTINGS.items()},
)
