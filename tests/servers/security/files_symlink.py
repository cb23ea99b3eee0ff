"""A file server that checks the normalized path but opens it through symlinks: the class of
CVE-2025-53109 (@modelcontextprotocol/server-filesystem before 2025.7.1). The tools and
their allowed folders are _file_tools.py's.

Vulnerable (MCP_FIXTURE_FIXED unset): the path is made absolute and normalized
(`os.path.normpath`, so `..` cannot climb) and compared component by component
(`os.path.commonpath`, so the sibling-prefix path is refused), but symlinks are not resolved:
a link inside an allowed folder pointing at a file or folder outside is read, listed and
written through. Fixed (MCP_FIXTURE_FIXED=1): the same server, but the path is resolved
(`os.path.realpath`) before the same comparison.
"""

import os

from _file_tools import FIXED, serve


def inside(absolute: str, allowed: list[str]) -> tuple[bool, str]:
    # Normalized either way: `..` never climbs out, and components are compared, not strings.
    real = os.path.realpath(absolute) if FIXED else os.path.normpath(absolute)
    roots = [os.path.realpath(a) if FIXED else a for a in allowed]
    return any(os.path.commonpath([real, root]) == root for root in roots), real


if __name__ == "__main__":
    serve("files-symlink", inside)
