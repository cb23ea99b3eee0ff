"""The drift of one entry of any kind: its recorded listing against its current one
(``diff_listing``), and the change an entry removed or new makes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_mcp_contracts.contracts.change import Change
from pytest_mcp_contracts.contracts.drift.content_listing import listing_changes
from pytest_mcp_contracts.contracts.drift.tool_listing import tool_changes
from pytest_mcp_contracts.vocabulary import EntryKind, Impact


def removed(kind: EntryKind) -> Change:
    """A recorded entry the server no longer lists: breaking, whatever its kind."""
    return Change(Impact.BREAKING, str(kind), "removed")


def added(kind: EntryKind) -> Change:
    return Change(Impact.ADDITIVE, str(kind), "new")


def diff_listing(kind: EntryKind, old: Mapping[str, Any], new: Mapping[str, Any]) -> list[Change]:
    """Every change from ``old`` to ``new`` (recorded listings of one entry of ``kind``:
    ``record.listing_of``), gravest first, then by path. A tool's are its schemas'; a
    prompt's, resource's or template's its members' (``content_listing``'s classes)."""
    if kind is EntryKind.TOOL:
        return tool_changes(old, new)
    return listing_changes(old, new)
