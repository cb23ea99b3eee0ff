"""Reads stdin but never answers and never exits on its own (not even at end of input)."""

import sys
import time

for _line in sys.stdin:  # swallow every request
    pass
while True:  # stdin closed: keep running until killed
    time.sleep(3600)
