"""Lists 7 tools over 3 pages of `tools/list`; page 1 nextCursor is "" (only absence ends it).

Hand-written JSON-RPC over stdio, standard library only, legacy handshake only
(`server/discover` is "Method not found"). Requests are served whether or not
`notifications/initialized` has arrived. Cursors are opaque: "" leads to page 2,
"cGFnZS0z" to page 3, and anything else is -32602 "Invalid cursor".
"""

import json

from _legacy import RpcError, serve, text_result


def echo_tool(n):
    return {
        "name": f"echo_{n}",
        "description": f"Echo #{n}: returns its text unchanged.",
        "inputSchema": {
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"],
        },
        "outputSchema": {
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"],
        },
    }


# cursor received (None = no cursor) -> (tools on that page, nextCursor or None)
PAGES = {
    None: ([echo_tool(n) for n in (1, 2, 3)], ""),  # empty-string cursor: NOT the end
    "": ([echo_tool(n) for n in (4, 5)], "cGFnZS0z"),
    "cGFnZS0z": ([echo_tool(n) for n in (6, 7)], None),  # no nextCursor: the end
}
NAMES = {f"echo_{n}" for n in range(1, 8)}


def list_page(cursor):
    if cursor not in PAGES:
        raise RpcError(-32602, "Invalid cursor")
    tools, next_cursor = PAGES[cursor]
    return {"tools": tools} if next_cursor is None else {"tools": tools, "nextCursor": next_cursor}


def call(name, args):
    if name not in NAMES:
        raise RpcError(-32602, f"Unknown tool: {name}")
    text = args.get("text")
    if not isinstance(text, str):
        return text_result("`text` must be a string", is_error=True)
    return text_result(json.dumps({"text": text}), structured={"text": text})


if __name__ == "__main__":
    serve("paginated", [], call, list_page=list_page)
