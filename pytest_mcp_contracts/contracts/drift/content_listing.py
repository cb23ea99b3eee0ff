"""The drift of a prompt, resource or template listing.

A prompt, resource or template is recorded by its key (name, URI, URI template), so a
changed key is the old entry removed and a new one added; ``moved`` says what the
removed one became when a listed entry of the same kind keeps its name. The classes
(docs/prompts-resources.md):

- breaking: an entry removed; a prompt argument removed (a client that sends it is
  refused by the Python SDK, "Error rendering prompt", and has its value silently dropped
  by the TypeScript SDK, whose zod object strips unknown keys) or newly required (a
  client that leaves it out is refused), a new required argument; a resource's or
  template's mimeType changed
  or removed (a client parses by it); a resource that moved to another URI; a template
  whose variables changed (a client fills the old names);
- review: a template with the same variables whose text changed (their order, or the
  literal parts): a client that expands the listed template by variable name is
  unaffected, but a URI it built from the old one may no longer resolve, which only a
  person can judge (so it fails until accepted, as tools' unclassifiable changes do);
- description: the description or title of an entry or of a prompt argument, and a
  resource's or template's name, as a word diff: what a model or a user reads to choose it;
- additive: a new entry, a new optional argument, a required argument made optional, a
  mimeType declared where there was none;
- cosmetic: the order of prompt arguments (they are sent by name), other members.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pytest_mcp_contracts.contracts.change import Change, impact_rank
from pytest_mcp_contracts.contracts.drift.descriptions import description_change, text_change
from pytest_mcp_contracts.contracts.drift.json_values import MISSING, UNSOUND, same, show
from pytest_mcp_contracts.schema.paths import child_path
from pytest_mcp_contracts.transport.discover import LISTINGS
from pytest_mcp_contracts.vocabulary import EntryKind, Impact


def listing_changes(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[Change]:
    changes: list[Change] = []
    for key in sorted(set(old) | set(new)):
        was, now = old.get(key, MISSING), new.get(key, MISSING)
        if same(was, now):
            continue
        if key in ("description", "title", "name"):
            described = description_change(was, now)
            if described is not None:
                changes.append(Change(Impact(described[0]), key, described[1]))
        elif key == "arguments":
            changes += _argument_changes(was, now)
        elif key == "mimeType":
            grade = Impact.ADDITIVE if was is MISSING else Impact.BREAKING
            changes.append(Change(grade, key, _value_change(was, now)))
        elif key in ("uri", "uriTemplate"):  # the key itself: a file records one entry
            changes.append(Change(Impact.BREAKING, key, _value_change(was, now)))
        else:
            changes.append(Change(Impact.COSMETIC, key, text_change(was, now)))
    return sorted(set(changes), key=lambda c: (impact_rank(c.impact), c.path, c.change))


def moved(
    kind: EntryKind, old: Mapping[str, Any], listed_now: Sequence[Mapping[str, Any]]
) -> Change | None:
    """What a removed resource or template became, when an entry of the same kind now
    listed has its name: None when none has (or for a tool or prompt, whose name is its
    key)."""
    name = old.get("name")
    if kind not in (EntryKind.RESOURCE, EntryKind.TEMPLATE) or not isinstance(name, str):
        return None
    key_field = LISTINGS[kind].key_field
    same = [e for e in listed_now if e.get("name") == name]
    if len(same) != 1 or not isinstance(same[0].get(key_field), str):
        return None
    was, now = old.get(key_field), same[0][key_field]
    if not isinstance(was, str):
        return None
    if kind == EntryKind.RESOURCE:
        return Change(Impact.BREAKING, "uri", f"{show(was)} -> {show(now)} (the same name)")
    from pytest_mcp_contracts.schema.synthetic import template_variables

    before, after = template_variables(was), template_variables(now)
    moved = f"{show(was)} -> {show(now)}"
    if set(before) == set(after):
        return Change(
            Impact.REVIEW,
            key_field,
            f"{moved}: the same variables, reordered or in other literal text (a URI built "
            "from the old template may no longer resolve)",
        )
    gone = [v for v in before if v not in after]
    came = [v for v in after if v not in before]
    parts = [
        f"{label} {', '.join(names)}"
        for label, names in (("removed", gone), ("added", came))
        if names
    ]
    return Change(Impact.BREAKING, key_field, f"{moved}: variables {'; '.join(parts)}")


def _argument_changes(old: Any, new: Any) -> list[Change]:
    """A prompt's arguments, matched by name (clients send them by name)."""
    was, now = _named(old), _named(new)
    if was is None or now is None:
        return [Change(Impact.REVIEW, "arguments", f"changed {UNSOUND}")]
    gone = [name for name in was if name not in now]
    came = [name for name in now if name not in was]
    changes = []
    if len(gone) == 1 and len(came) == 1:
        # One change, honestly worded: the names differ, so it may be a rename or not.
        (name,), (other,) = gone, came
        required = now[other].get("required") is True
        changes.append(
            Change(
                Impact.BREAKING,
                child_path("arguments", name),
                f"removed, and {other!r} added ({'required' if required else 'optional'}): "
                f"renamed to {other!r}?",
            )
        )
    else:
        changes += [Change(Impact.BREAKING, child_path("arguments", n), "removed") for n in gone]
        for name in came:
            required = now[name].get("required") is True
            changes.append(
                Change(
                    Impact.BREAKING if required else Impact.ADDITIVE,
                    child_path("arguments", name),
                    "new (required)" if required else "new (optional)",
                )
            )
    for name in (n for n in was if n in now):
        changes += _argument_change(child_path("arguments", name), was[name], now[name])
    kept = [n for n in was if n in now]
    if kept != [n for n in now if n in was]:
        changes.append(Change(Impact.COSMETIC, "arguments", "reordered"))
    return changes


def _argument_change(path: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> list[Change]:
    changes = []
    for key in sorted((set(old) | set(new)) - {"name"}):
        was, now = old.get(key, MISSING), new.get(key, MISSING)
        if same(was, now):
            continue
        if key == "required":
            before, after = was is True, now is True
            if before != after:
                changes.append(
                    Change(Impact.BREAKING, path, "optional -> required")
                    if after
                    else Change(Impact.ADDITIVE, path, "required -> optional")
                )
        elif key in ("description", "title"):
            described = description_change(was, now)
            if described is not None:
                changes.append(Change(Impact(described[0]), path, f"{key} {described[1]}"))
        else:
            changes.append(Change(Impact.COSMETIC, path, f"{key} {text_change(was, now)}"))
    return changes


def _named(arguments: Any) -> dict[str, Mapping[str, Any]] | None:
    """A prompt's arguments by name, in order ({} when there are none); None when they are
    not a list of objects with distinct string names."""
    if arguments is MISSING or arguments is None:
        return {}
    if not isinstance(arguments, list):
        return None
    out: dict[str, Mapping[str, Any]] = {}
    for argument in arguments:
        if not isinstance(argument, Mapping) or not isinstance(argument.get("name"), str):
            return None
        if argument["name"] in out:
            return None
        out[argument["name"]] = argument
    return out


def _value_change(old: Any, new: Any) -> str:
    if old is MISSING:
        return f"declared: {show(new)}"
    if new is MISSING:
        return f"removed (was {show(old)})"
    return f"{show(old)} -> {show(new)}"
