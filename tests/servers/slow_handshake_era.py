"""handshake_era.py, slow to start: it reads nothing for 1.5 s, so the client's probe is
still unanswered when the client nudges it with a ping after a second. The ping must not
decide the connection's era: this dual-era SDK server behind a discover refusal takes its
first request (the ping) as the era's, and a ping in the 2026-07-28 envelope opened a modern
connection that then refused the initialize handshake."""

import time

time.sleep(1.5)

from handshake_era import app  # noqa: E402 (after the pause, as a slow import would be)

if __name__ == "__main__":
    app.run()
