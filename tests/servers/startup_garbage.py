"""Writes non-JSON lines to stdout, never answers anything, and runs until killed."""

import sys
import time

sys.stdout.write("Starting server...\n")
sys.stdout.write("<html>\n")
sys.stdout.flush()
print("startup_garbage: now idling", file=sys.stderr)
while True:  # ignores stdin entirely, even when it closes
    time.sleep(3600)
