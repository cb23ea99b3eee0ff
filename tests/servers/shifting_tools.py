"""The tool list changes between listings in one process: the first `tools/list` answers
tools a and b, every later one a and c (the spec says the set must not vary). All three
tools answer calls."""

from _legacy import serve, text_result

OBJ = {"type": "object", "additionalProperties": False}
listings = {"count": 0}


def list_page(cursor):
    listings["count"] += 1
    names = ("a", "b") if listings["count"] == 1 else ("a", "c")
    return {"tools": [{"name": name, "inputSchema": OBJ} for name in names]}


def call(name, args):
    return text_result(f"{name} ok")


serve("shifting-tools", [], call, list_page=list_page)
