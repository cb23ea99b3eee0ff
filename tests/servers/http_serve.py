"""Serve a fixture server over Streamable HTTP: ``http_serve.py FIXTURE.py PORT``.

The fixture module is imported (not run), and its ``app`` (MCPServer) or ``server``
(low-level Server) is served with the SDK's own Streamable HTTP app on 127.0.0.1:PORT, path
``/mcp``. With ``MCP_FIXTURE_TOKEN`` set, every request must carry
``Authorization: Bearer <token>``; others get 401 (what a gateway in front of a server does).
"""

import importlib.util
import os
import sys
from pathlib import Path
from typing import Any

import uvicorn


def load(path: Path) -> Any:
    sys.path.insert(0, str(path.parent))
    spec = importlib.util.spec_from_file_location(f"fixture_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    target = getattr(module, "app", None) or getattr(module, "server", None)
    if target is None:
        sys.exit(f"{path} has no `app` or `server` to serve")
    return target


def require_token(inner: Any, token: str) -> Any:
    expected = f"Bearer {token}".encode()

    async def app(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and dict(scope["headers"]).get(b"authorization") != expected:
            await send(
                {
                    "type": "http.response.start",
                    "status": 401,
                    "headers": [(b"content-type", b"application/json")],
                }
            )
            await send({"type": "http.response.body", "body": b'{"error":"unauthorized"}'})
            return
        await inner(scope, receive, send)

    return app


def main() -> None:
    fixture, port = Path(sys.argv[1]).resolve(), int(sys.argv[2])
    app = load(fixture).streamable_http_app()
    token = os.environ.get("MCP_FIXTURE_TOKEN")
    if token:
        app = require_token(app, token)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on")


if __name__ == "__main__":
    main()
