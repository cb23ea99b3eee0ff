"""client_features.py in the handshake era: the same server with `server/discover` refused
(as handshake_era.py does it), so the client falls back to `initialize` and every question
a tool asks is a server-to-client request during the call: on stdin/stdout, on the memory
streams in-process, and over HTTP on the call's own SSE stream."""

from client_features import app
from handshake_era import refuse_discover

REFUSES_DISCOVER = True  # for tests/servers/http_serve.py
refuse_discover(app)

if __name__ == "__main__":
    app.run()
