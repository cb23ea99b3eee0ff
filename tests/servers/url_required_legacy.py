"""url_required.py in the handshake era (protocol 2025-11-25), where -32042 is defined."""

from handshake_era import refuse_discover
from url_required import app

REFUSES_DISCOVER = True  # for tests/servers/http_serve.py
refuse_discover(app)

if __name__ == "__main__":
    app.run()
