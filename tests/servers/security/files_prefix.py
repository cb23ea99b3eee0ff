"""A file server whose allowed-folder check compares strings, not path components: the
class of CVE-2025-53110 (@modelcontextprotocol/server-filesystem before 2025.7.1). The tools
and their allowed folders are _file_tools.py's.

Vulnerable (MCP_FIXTURE_FIXED unset): a path is allowed when
`os.path.abspath(path).startswith(allowed)`, so `/x/allowed_evil/secret.txt` passes for
`/x/allowed`: a sibling folder whose name extends the allowed one is readable, listable and
writable. Fixed (MCP_FIXTURE_FIXED=1): the same server, but the path is resolved
(`os.path.realpath`) and compared component by component (`os.path.commonpath`).
"""

import os

from _file_tools import FIXED, serve


def inside(absolute: str, allowed: list[str]) -> tuple[bool, str]:
    if FIXED:
        real = os.path.realpath(absolute)
        roots = [os.path.realpath(a) for a in allowed]
        return any(os.path.commonpath([real, root]) == root for root in roots), real
    return any(absolute.startswith(a) for a in allowed), absolute  # the bug: a string prefix


if __name__ == "__main__":
    serve("files-prefix", inside)
