"""Entry point: `python -m example_server` (or `python path/to/example_server`) runs it on stdio."""

import os
import sys

if not __package__:
    # Run as `python path/to/example_server`: make the package importable from any cwd.
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from example_server.server import main

main()
