"""Split an input of the GitHub Action (action.yml) into words as a shell would, and write
each NUL-terminated for bash's ``read -d ''``: quotes keep a word whole, and nothing in the
value is run. A value that cannot be split is an error that names the input."""

import shlex
import sys

name, value = sys.argv[1:3]
try:
    words = shlex.split(value)
except ValueError as exc:
    sys.exit(
        f"the action's {name} input cannot be split into words as a shell would ({exc}): {value!r}"
    )
sys.stdout.write("".join(word + "\0" for word in words))
