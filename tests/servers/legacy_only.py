"""Speaks only the pre-2026 `initialize` handshake: `server/discover` is "Method not found".

Hand-written JSON-RPC over stdio, standard library only (starts in milliseconds).
Until `notifications/initialized` has arrived, every request except `initialize` and
`ping` is refused with -32600 "Server not initialized" (a strict reading of the
lifecycle rules: a client must finish the handshake before using the server).
"""

import json

from _legacy import RpcError, serve, text_result

TOOLS = [
    {
        "name": "word_count",
        "description": "Count the words and characters of a text.",
        "inputSchema": {  # declares draft-07 explicitly
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"],
            "additionalProperties": False,
        },
        "outputSchema": {
            "type": "object",
            "properties": {
                "words": {"type": "integer", "minimum": 0},
                "characters": {"type": "integer", "minimum": 0},
            },
            "required": ["words", "characters"],
        },
    },
    {
        "name": "repeat",
        "description": "Repeat a text 1 to 5 times.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "text": {"type": "string"},
                "times": {"type": "integer", "minimum": 1, "maximum": 5},
            },
            "required": ["text", "times"],
        },
        "outputSchema": {
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"],
        },
    },
]


def call_tool(name, args):
    """Return (structuredContent, None) on success or (None, error text) for bad arguments."""
    text = args.get("text")
    if not isinstance(text, str):
        return None, f"{name}: `text` must be a string"
    if name == "word_count":
        if set(args) - {"text"}:
            return None, "word_count: unexpected arguments"
        return {"words": len(text.split()), "characters": len(text)}, None
    times = args.get("times")
    if type(times) is not int or not 1 <= times <= 5:
        return None, "repeat: `times` must be an integer from 1 to 5"
    return {"text": text * times}, None


def call(name, args):
    if name not in ("word_count", "repeat"):
        raise RpcError(-32602, f"Unknown tool: {name}")
    structured, error = call_tool(name, args)
    if error is not None:
        return text_result(error, is_error=True)
    # structuredContent mirrored into a text block as JSON, as the spec recommends
    return text_result(json.dumps(structured), structured=structured)


if __name__ == "__main__":
    serve("legacy-only", TOOLS, call, strict_lifecycle=True)
