"""A tool's drift: compare its recorded listing with its current one and classify each change.

The listing is a raw listing entry (name, title, description, inputSchema, outputSchema,
annotations). Each difference becomes a ``Change`` of one impact (``vocabulary.Impact``):

- breaking: the input side refuses something the old schema accepted, or the output side
  may now send something a client written against the old schema does not expect, or a
  tool annotation hint flipped, either way: a hint that now promises *more* safety
  (``destructiveHint`` true -> false, ``readOnlyHint`` false -> true, ...) is what a client
  that skips confirmation for safe tools trusts, so a tool that starts claiming it is the
  privilege escalation of a rug pull, not an improvement; a hint left out means the spec's
  default (``HINT_DEFAULTS``);
- review: cannot be classified soundly (combinators, a changed dialect, output
  constraints, hostile or huge schemas): it fails until a human accepts it;
- description: the tool's description or a property's (``description`` anywhere in either
  schema) changed, shown as a word diff (``contracts/wording``): descriptions are
  instructions to the model, and a changed one is how tool poisoning arrives after review
  (Invariant Labs' "rug pull"; mcp-diff, https://pypi.org/project/mcp-diff/, warns on it;
  lurq's mcp_drift calls a tool that stops being read-only "privilege widening"). It warns,
  and fails where descriptions are pinned or under --mcp-strict;
- additive: accepts more on input, promises more on output;
- cosmetic: titles, whitespace of descriptions, examples, defaults, unknown keywords,
  custom annotations, and hints a client ignores (``destructiveHint``/``idempotentHint``
  where ``readOnlyHint`` is true: the spec gives them meaning only when it is false).

Its schemas are compared in ``schema_diff``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from pytest_mcp_contracts.contracts.change import Change, impact_rank
from pytest_mcp_contracts.contracts.drift.descriptions import description_change, text_change
from pytest_mcp_contracts.contracts.drift.json_values import MISSING, same, show
from pytest_mcp_contracts.contracts.drift.schema_diff import schema_changes
from pytest_mcp_contracts.contracts.drift.schema_normalize import Work
from pytest_mcp_contracts.schema.paths import child_path
from pytest_mcp_contracts.vocabulary import Impact

#: What a tool that leaves out an annotation hint means by it (the MCP spec's defaults).
HINT_DEFAULTS: Final = {
    "readOnlyHint": False,
    "destructiveHint": True,
    "idempotentHint": False,
    "openWorldHint": True,
}
# The value of each hint that promises the safer tool.
_SAFE_HINTS: Final = {
    "readOnlyHint": True,
    "destructiveHint": False,
    "idempotentHint": True,
    "openWorldHint": False,
}


def tool_changes(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[Change]:
    work = Work()
    changes = [
        Change(Impact.COSMETIC, key, text_change(old.get(key, MISSING), new.get(key, MISSING)))
        for key in sorted(
            (set(old) | set(new))
            - {"name", "inputSchema", "outputSchema", "annotations", "description"}
        )
        if not same(old.get(key, MISSING), new.get(key, MISSING))
    ]
    described = description_change(old.get("description", MISSING), new.get("description", MISSING))
    if described is not None:
        changes.append(Change(Impact(described[0]), "description", described[1]))
    changes += schema_changes("input", old.get("inputSchema"), new.get("inputSchema"), work)
    changes += schema_changes("output", old.get("outputSchema"), new.get("outputSchema"), work)
    changes += _annotation_changes(old.get("annotations"), new.get("annotations"))
    return sorted(set(changes), key=lambda c: (impact_rank(c.impact), c.path, c.change))


def _annotation_changes(old: Any, new: Any) -> list[Change]:
    old = {} if old is None else old
    new = {} if new is None else new
    if not (isinstance(old, Mapping) and isinstance(new, Mapping)):
        return [] if same(old, new) else [Change(Impact.REVIEW, "annotations", "changed")]
    read_only = "readOnlyHint"
    # The spec: destructiveHint and idempotentHint are "meaningful only when readOnlyHint
    # == false"; where it is true, a client ignores them (and a flip of readOnlyHint is
    # its own breaking change).
    ignored = old.get(read_only) is True or new.get(read_only) is True
    changes = []
    for key in sorted(set(old) | set(new)):
        path = child_path("annotations", key)
        if key not in HINT_DEFAULTS:
            was, now = old.get(key, MISSING), new.get(key, MISSING)
            if not same(was, now):
                changes.append(Change(Impact.COSMETIC, path, text_change(was, now)))
            continue
        was, now = old.get(key, HINT_DEFAULTS[key]), new.get(key, HINT_DEFAULTS[key])
        if not (isinstance(was, bool) and isinstance(now, bool)):
            if not same(was, now):
                changes.append(Change(Impact.REVIEW, path, f"{show(was)} -> {show(now)}"))
        elif was != now:
            text = f"{show(was)} -> {show(now)}"
            if ignored and key in ("destructiveHint", "idempotentHint"):
                changes.append(
                    Change(Impact.COSMETIC, path, f"{text} (ignored: readOnlyHint is true)")
                )
            elif now == _SAFE_HINTS[key]:
                # Breaking too: a client that runs "safe" tools without asking now would.
                changes.append(Change(Impact.BREAKING, path, f"{text} {_SAFER}"))
            else:
                changes.append(Change(Impact.BREAKING, path, text))
    return changes


_SAFER: Final = "(now claims a safer tool: clients that trust hints may stop asking first)"
