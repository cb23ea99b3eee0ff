"""Tools that a large input drives to gigabytes, as file-backed servers were seen to:

- `render(pages)` builds a document in memory, one megabyte a page (up to 1500 pages), and
  works on it for a second before it answers (the memory is held during the call);
- `append(pages)` adds pages to the open document and answers at once: the memory stays
  with the server after the call (the growth is only seen once the call has ended);
- `status` is a cheap tool that comes after them, to show that the run goes on once the
  server is restarted.

With MCP_FIXTURE_BUGS=0 the bug-free twin works ten pages at a time and keeps only the
last ten appended pages in memory (the rest would be on disk): never more than ten
megabytes for a document, whatever the input.

Standard library only (tests/servers/_legacy.py), with an outputSchema per tool as an SDK
server derives it from its return type: the cap is about the server's memory, and the
tests about it start the server cold (the cap reads the process group the plugin started),
once more after every call the cap kills. The SDK's imports made each start 0.7 s of CPU
and its memory 60 MB; this server starts in 0.1 s of CPU with about 23 MB.
"""

import os
import time

from _legacy import serve, text_result

BUGS = os.environ.get("MCP_FIXTURE_BUGS", "1") != "0"


def _object(properties, required=None):
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties) if required is None else required,
    }


PAGES = _object({"pages": {"type": "integer", "minimum": 0, "maximum": 1500}})
TOOLS = [
    {
        "name": "render",
        "description": "Renders a document of `pages` pages.",
        "inputSchema": PAGES,
        "outputSchema": _object(
            {"pages": {"type": "integer"}, "peak_megabytes": {"type": "integer"}}
        ),
    },
    {
        "name": "append",
        "description": "Appends `pages` pages to the open document.",
        "inputSchema": PAGES,
        "outputSchema": _object(
            {"pages": {"type": "integer"}, "held_megabytes": {"type": "integer"}}
        ),
    },
    {
        "name": "status",
        "description": "Whether the server is up.",
        "inputSchema": _object({}),
        "outputSchema": _object({"ok": {"type": "boolean"}}),
    },
]
document = []


def call(name, arguments):
    if name == "render":
        pages = arguments["pages"]
        held = pages if BUGS else min(pages, 10)
        rendered = b"x" * (held << 20)  # written, so every page is resident
        if held > 50:
            time.sleep(1.0)  # the work on a large document takes a while
        return structured({"pages": pages, "peak_megabytes": len(rendered) >> 20})
    if name == "append":
        pages = arguments["pages"]
        document.append(b"x" * ((pages if BUGS else min(pages, 10)) << 20))
        if not BUGS:
            del document[:-1]
        held = sum(len(page) for page in document) >> 20
        return structured({"pages": pages, "held_megabytes": held})
    return structured({"ok": True})


def structured(value):
    import json

    return text_result(json.dumps(value), structured=value)


serve("memory-hog", TOOLS, call)
