"""Prints a banner on stdout before the handshake (as many framework servers do), then serves
one correct tool: the banner is blamed on no call, and the summary and run report count it."""

from _legacy import serve, text_result

print("Starting banner-server v1.0 on stdio", flush=True)
print("Ready.", flush=True)

OBJ = {"type": "object", "additionalProperties": False}
serve("banner", [{"name": "echo", "inputSchema": OBJ}], lambda name, args: text_result("echo"))
