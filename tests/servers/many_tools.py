"""3,000 tools (`tool_0000` … `tool_2999`), listed in pages of 500."""

from _legacy import RpcError, serve, text_result

COUNT, PAGE = 3000, 500
OBJ = {"type": "object", "additionalProperties": False}
NAMES = [f"tool_{n:04d}" for n in range(COUNT)]


def list_page(cursor):
    if cursor is not None and not (cursor.isdigit() and int(cursor) % PAGE == 0):
        raise RpcError(-32602, "Invalid cursor")
    start = 0 if cursor is None else int(cursor)
    page = {"tools": [{"name": n, "inputSchema": OBJ} for n in NAMES[start : start + PAGE]]}
    if start + PAGE < COUNT:
        page["nextCursor"] = str(start + PAGE)
    return page


def call(name, args):
    if name not in NAMES:
        raise RpcError(-32602, f"Unknown tool: {name}")
    return text_result(name)


serve("many-tools", [], call, list_page=list_page)
