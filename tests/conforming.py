"""A result as a server of a protocol version sends it: what the unit tests' fake servers answer.

The plugin judges every result by the negotiated version's own schema (schema/spec). Since
2026-07-28 a server MUST say what each result is (``resultType``; "complete" for a final
one), and the results a client may cache (listings, reads, ``server/discover``) for how long
and for whom (``ttlMs``, ``cacheScope``). A fake that claims the version sends them too, so
that a test sees the verdict on what it is about rather than on what the fake left out.
"""

from __future__ import annotations

from typing import Any, Final

from pytest_mcp_contracts.vocabulary import MODERN_VERSION

# The methods whose 2026-07-28 results are a CacheableResult (the schema's ...Result
# definitions that require ttlMs and cacheScope).
CACHEABLE: Final = frozenset(
    {
        "server/discover",
        "tools/list",
        "prompts/list",
        "resources/list",
        "resources/templates/list",
        "resources/read",
    }
)


def conforming(
    result: dict[str, Any], method: str = "tools/call", version: str = MODERN_VERSION
) -> dict[str, Any]:
    """``result`` (answering ``method``) with the members ``version`` requires of every such
    result; a member the test gives is kept (an ``input_required`` result, a wrong value)."""
    if version < MODERN_VERSION:  # the versions are dates, in order
        return result
    required: dict[str, Any] = {"resultType": "complete"}
    if method in CACHEABLE:
        required |= {"ttlMs": 0, "cacheScope": "private"}
    return {**required, **result}
