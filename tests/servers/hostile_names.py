"""Tool names that try to escape the snapshot folder or clash inside it; `ok` is plain.

Path tricks (`../../x`, `/etc/x`, `a/b`), a Windows device name (`CON`), names equal but
for case (`Foo`, `foo`) and one equal to the suffix a clash gets (`foo-2`), a 10,000-character
name, control characters (tab, NUL, an ANSI escape that clears a terminal), and one name
listed twice (`dup`, with two different descriptions so the two entries can be told apart).
"""

from _legacy import serve, text_result

OBJ = {"type": "object", "additionalProperties": False}
NAMES = [
    "../../x",
    "/etc/x",
    "a/b",
    "CON",
    "Foo",
    "foo",
    "foo-2",
    "n" * 10_000,
    "tab\there",
    "nul\u0000",
    "esc\u001b[2Jcleared",
    "dup",
    "dup",
    "ok",
]
TOOLS = [
    {"name": name, "description": f"entry {index}", "inputSchema": OBJ}
    for index, name in enumerate(NAMES)
]


def call(name, args):
    return text_result(f"called {name[:20]}")


serve("hostile-names", TOOLS, call)
