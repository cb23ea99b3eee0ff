"""The JSON Schema comparison: an input or an output schema, old against new, walked side by
side, each change classified by what it does to a client (``schema_changes``): on input, a
value refused that was accepted breaks the client; on output, a value it does not expect.

Output constraints (ranges, lengths, patterns, formats, multipleOf, uniqueItems,
additionalProperties) are always ``review``: whether a client relies on a bound it was
told is not knowable from the schema. Output types, enums/consts, fields and
required-ness follow the client's view (wider breaks it, narrower does not).

Hostile schemas stay bounded: the walk stops DRIFT_DEPTH levels down (one ``review`` change
if what lies deeper differs), spends at most DRIFT_WORK steps per tool, compares enums as
sets and never uses recursive equality or printing on raw values.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal

from pytest_mcp_contracts.contracts.change import Change
from pytest_mcp_contracts.contracts.drift.descriptions import description_change
from pytest_mcp_contracts.contracts.drift.json_values import MISSING, UNSOUND, same, show
from pytest_mcp_contracts.contracts.drift.schema_keywords import (
    APPLICATORS,
    HANDLED,
    LOWER,
    OPAQUE,
    STRUCTURAL,
    UPPER,
    accepted,
    accepts_all,
    allowed_values,
    dialect_name,
    divides,
    enum_delta,
    extra_properties,
    is_number_or_none,
    is_schema,
    name_set,
    schema_label,
    show_values,
    type_label,
    type_names,
    values_label,
)
from pytest_mcp_contracts.contracts.drift.schema_normalize import Normalizer, Work
from pytest_mcp_contracts.schema.budgets import DRIFT_DEPTH
from pytest_mcp_contracts.schema.paths import child_path, items_path
from pytest_mcp_contracts.vocabulary import Impact


def schema_changes(side: _Side, old: Any, new: Any, work: Work) -> list[Change]:
    label = f"{side}Schema"
    if same(old, new):
        return []  # the same text means the same: no walk, however large
    if isinstance(old, Mapping) and isinstance(new, Mapping):
        differ = _Differ(side, Normalizer(old, work), Normalizer(new, work), work)
        differ.compare(old, new, _Where(side, 0))
        return differ.changes
    if side == "output" and old is None and new is not None:
        return [Change(Impact.ADDITIVE, label, "declared")]
    if side == "output" and new is None and old is not None:
        return [Change(Impact.BREAKING, label, "removed")]
    return [Change(Impact.REVIEW, label, "changed")]


_Side = Literal["input", "output"]
# What a change does to the set of accepted values ("changed": both more and less).
_Effect = Literal["tightened", "loosened", "changed", "review", "description", "cosmetic"]


def _impact(side: _Side, effect: _Effect, constraint: bool) -> Impact:
    if effect == "review" or effect == "cosmetic" or effect == "description":
        return Impact(effect)
    if side == "input":  # the client sends: anything refused that was accepted breaks it
        return Impact.ADDITIVE if effect == "loosened" else Impact.BREAKING
    if constraint:
        return Impact.REVIEW
    return Impact.ADDITIVE if effect == "tightened" else Impact.BREAKING  # the client receives


@dataclass(frozen=True)
class _Where:
    path: str
    depth: int
    old_refs: tuple[str, ...] = ()
    new_refs: tuple[str, ...] = ()

    def to(self, path: str) -> _Where:
        return _Where(path, self.depth + 1, self.old_refs, self.new_refs)


class _Differ:
    """Walks an old and a new schema side by side and collects their changes."""

    def __init__(self, side: _Side, old: Normalizer, new: Normalizer, work: Work) -> None:
        self.side = side
        self.old = old
        self.new = new
        self.work = work
        self.changes: list[Change] = []

    def note(self, path: str, effect: _Effect, text: str, *, constraint: bool = False) -> None:
        self.changes.append(Change(_impact(self.side, effect, constraint), path, text))

    def compare(self, old_raw: Any, new_raw: Any, at: _Where) -> None:
        if at.depth > DRIFT_DEPTH:
            if not same(old_raw, new_raw):
                self.note(at.path, "review", "nested too deeply to compare")
            return
        if not self.work.spend():
            if not self.work.reported:
                self.work.reported = True
                self.note(at.path, "review", "too large to compare: review it")
            return
        old, old_refs = self.old.normalize(old_raw, at.old_refs)
        new, new_refs = self.new.normalize(new_raw, at.new_refs)
        if (old is False) != (new is False) and is_schema(old) and is_schema(new):
            text = f"{schema_label(old)} -> {schema_label(new)}"
            self.note(at.path, "tightened" if new is False else "loosened", text)
            return
        if not (isinstance(old, dict) and isinstance(new, dict)):
            if not same(old, new):
                self.note(at.path, "review", "changed")
            return
        at = replace(at, old_refs=old_refs, new_refs=new_refs)
        self._dialect(old, new, at)
        self._type(old, new, at)
        self._values(old, new, at)
        self._object(old, new, at)
        self._array(old, new, at)
        self._bounds(old, new, at)
        self._texts(old, new, at)
        self._multiple_of(old, new, at)
        self._unique_items(old, new, at)
        for key in sorted((set(old) | set(new)) - HANDLED - STRUCTURAL):
            self._other(key, old.get(key, MISSING), new.get(key, MISSING), at)

    # -- keywords --------------------------------------------------------------------

    def _dialect(self, old: dict[str, Any], new: dict[str, Any], at: _Where) -> None:
        was, now = dialect_name(old.get("$schema")), dialect_name(new.get("$schema"))
        if was != now:
            self.note(at.path, "review", f"$schema {was} -> {now} {UNSOUND}")

    def _type(self, old: dict[str, Any], new: dict[str, Any], at: _Where) -> None:
        was, now = old.get("type"), new.get("type")
        was_names, now_names = type_names(was), type_names(now)
        if was_names is False or now_names is False:
            if not same(was, now):
                self.note(at.path, "review", f"type changed {UNSOUND}")
            return
        before, after = accepted(was_names), accepted(now_names)
        if before != after:
            effect: _Effect = (
                "loosened" if before < after else "tightened" if after < before else "changed"
            )
            self.note(at.path, effect, f"{type_label(was_names)} -> {type_label(now_names)}")

    def _values(self, old: dict[str, Any], new: dict[str, Any], at: _Where) -> None:
        was, now = allowed_values(old), allowed_values(new)
        if was is False or now is False:
            for key in ("enum", "const"):
                if not same(old.get(key), new.get(key)):
                    self.note(at.path, "review", f"{key} changed {UNSOUND}")
            return
        if was is None and now is None:
            return
        if was is None and now is not None:
            self.note(at.path, "tightened", f"{values_label(new)} added: {show_values(now)}")
        elif now is None and was is not None:
            self.note(at.path, "loosened", f"{values_label(old)} removed")
        elif was is not None and now is not None:
            removed, added = was.keys() - now.keys(), now.keys() - was.keys()
            if "enum" not in old and "enum" not in new and removed and added:
                self.note(at.path, "changed", f"const {show(old['const'])} -> {show(new['const'])}")
                return
            if removed:
                self.note(at.path, "tightened", enum_delta("removed", removed, was))
            if added:
                self.note(at.path, "loosened", enum_delta("added", added, now))

    def _object(self, old: dict[str, Any], new: dict[str, Any], at: _Where) -> None:
        self._additional(old, new, at)
        old_props, new_props = old.get("properties", {}), new.get("properties", {})
        old_required, new_required = (
            name_set(old.get("required", [])),
            name_set(new.get("required", [])),
        )
        if (
            not isinstance(old_props, Mapping)
            or not isinstance(new_props, Mapping)
            or old_required is None
            or new_required is None
        ):
            for key in ("properties", "required"):
                if not same(old.get(key), new.get(key)):
                    self.note(at.path, "review", f"{key} changed {UNSOUND}")
            return
        extras = extra_properties(new)
        for name in sorted(set(old_props) | set(new_props) | old_required | new_required):
            path = child_path(at.path, name)
            in_old = name in old_props or name in old_required
            in_new = name in new_props or name in new_required
            if not in_old:
                if self.side == "output":
                    self.note(path, "tightened", "new")
                elif name in new_required:
                    self.note(path, "tightened", "new (required)")
                else:
                    self.note(path, "loosened", "new (optional)")
            elif not in_new:
                if self.side == "output" or extras == "refused":
                    self.note(path, "tightened" if self.side == "input" else "loosened", "removed")
                elif extras == "allowed":
                    self.note(path, "loosened", "removed (now accepted as an extra property)")
                else:
                    self.note(
                        path, "review", f"removed (extra properties are constrained) {UNSOUND}"
                    )
            else:
                if (name in old_required) != (name in new_required):
                    now_required = name in new_required
                    text = "optional -> required" if now_required else "required -> optional"
                    self.note(path, "tightened" if now_required else "loosened", text)
                self.compare(old_props.get(name, True), new_props.get(name, True), at.to(path))

    def _additional(self, old: dict[str, Any], new: dict[str, Any], at: _Where) -> None:
        was, now = old.get("additionalProperties", True), new.get("additionalProperties", True)
        if same(was, now) or (accepts_all(was) and accepts_all(now)):
            return
        if was is not False and now is not False and is_schema(was) and is_schema(now):
            self.compare(was, now, at.to(f"{at.path}.*"))  # true is {} here: recurse
        elif is_schema(was) and is_schema(now):
            text = f"additionalProperties {schema_label(was)} -> {schema_label(now)}"
            self.note(at.path, "tightened" if now is False else "loosened", text, constraint=True)
        else:
            self.note(at.path, "review", f"additionalProperties changed {UNSOUND}")

    def _array(self, old: dict[str, Any], new: dict[str, Any], at: _Where) -> None:
        if not {"items", "prefixItems"} & (old.keys() | new.keys()):
            return
        old_prefix, new_prefix = old.get("prefixItems", []), new.get("prefixItems", [])
        if not (isinstance(old_prefix, list) and isinstance(new_prefix, list)):
            self.note(at.path, "review", f"prefixItems changed {UNSOUND}")
            return
        old_rest, new_rest = old.get("items", True), new.get("items", True)
        # A position beyond prefixItems is governed by items: compare what each position gets.
        for i in range(max(len(old_prefix), len(new_prefix))):
            was = old_prefix[i] if i < len(old_prefix) else old_rest
            now = new_prefix[i] if i < len(new_prefix) else new_rest
            self.compare(was, now, at.to(f"{at.path}[{i}]"))
        self.compare(old_rest, new_rest, at.to(items_path(at.path)))

    def _bounds(self, old: dict[str, Any], new: dict[str, Any], at: _Where) -> None:
        for key in (*UPPER, *LOWER):
            was, now = old.get(key), new.get(key)
            if self._added_or_removed(key, was, now, at, is_number_or_none):
                continue
            assert was is not None and now is not None  # both numbers, and they differ
            lower = now < was if key in UPPER else now > was
            effect: _Effect = "tightened" if lower else "loosened"
            self.note(at.path, effect, f"{key} {show(was)} -> {show(now)}", constraint=True)

    def _texts(self, old: dict[str, Any], new: dict[str, Any], at: _Where) -> None:
        for key in ("pattern", "format"):
            was, now = old.get(key), new.get(key)
            if self._added_or_removed(key, was, now, at, lambda v: isinstance(v, str | None)):
                continue
            text = f"{key} {show(was)} -> {show(now)}"
            self.note(at.path, "changed", text, constraint=True)

    def _added_or_removed(
        self, key: str, was: Any, now: Any, at: _Where, valid: Callable[[Any], bool]
    ) -> bool:
        """Note a constraint that appeared, went, or is not of a comparable kind; False when
        both sides hold comparable values that differ (the caller classifies the change)."""
        if same(was, now):
            return True
        if not (valid(was) and valid(now)):
            self.note(at.path, "review", f"{key} changed {UNSOUND}")
        elif was is None:
            self.note(at.path, "tightened", f"{key} added: {show(now)}", constraint=True)
        elif now is None:
            self.note(at.path, "loosened", f"{key} removed: {show(was)}", constraint=True)
        else:
            return False
        return True

    def _multiple_of(self, old: dict[str, Any], new: dict[str, Any], at: _Where) -> None:
        was, now = old.get("multipleOf"), new.get("multipleOf")
        if self._added_or_removed(
            "multipleOf", was, now, at, lambda v: is_number_or_none(v) and v != 0
        ):
            return
        assert was is not None and now is not None  # both non-zero numbers, and they differ
        # Multiples of 4 are multiples of 2: only a divisor of the old step loosens.
        effect: _Effect = "loosened" if divides(now, was) else "tightened"
        text = f"multipleOf {show(was)} -> {show(now)}"
        self.note(at.path, effect, text, constraint=True)

    def _unique_items(self, old: dict[str, Any], new: dict[str, Any], at: _Where) -> None:
        was, now = old.get("uniqueItems", False), new.get("uniqueItems", False)
        if same(was, now):
            return
        if not (isinstance(was, bool) and isinstance(now, bool)):
            self.note(at.path, "review", f"uniqueItems changed {UNSOUND}")
        else:
            effect: _Effect = "tightened" if now else "loosened"
            self.note(at.path, effect, f"uniqueItems {show(was)} -> {show(now)}", constraint=True)

    def _other(self, key: str, was: Any, now: Any, at: _Where) -> None:
        """Any other keyword; ``MISSING`` when one side does not have it."""
        if same(was, now):
            return
        if key == "description":
            effect, text = description_change(was, now) or ("cosmetic", "")
            self.note(at.path, effect, f"description {text}")
            return
        what = "added" if was is MISSING else "removed" if now is MISSING else "changed"
        if key in APPLICATORS:
            if was is MISSING or now is MISSING:
                self.note(at.path, "review", f"{key} {what} {UNSOUND}")
            else:
                self._applicator(key, was, now, at)
        elif key in OPAQUE:
            self.note(at.path, "review", f"{key} {what} {UNSOUND}")
        else:  # annotations and unknown keywords: validators ignore both
            self.note(at.path, "cosmetic", f"{key} {what}")

    def _applicator(self, key: str, was: Any, now: Any, at: _Where) -> None:
        """Sub-schemas whose changes cannot be classified: only "no change" and "only
        annotations changed" are sound verdicts."""
        scratch = _Differ(self.side, self.old, self.new, self.work)
        sound = True
        for a, b in _pairs(APPLICATORS[key], was, now):
            if a is MISSING:
                sound = False
            elif is_schema(a) and is_schema(b):
                scratch.compare(a, b, at.to(at.path))
            elif not same(a, b):
                sound = False
        impacts = {change.impact for change in scratch.changes}
        if not sound or impacts - {Impact.COSMETIC, Impact.DESCRIPTION}:
            self.note(at.path, "review", f"{key} changed {UNSOUND}")
            return
        # A description inside a branch is still an instruction to the model: said as such.
        for change in scratch.changes:
            if change.impact is Impact.DESCRIPTION:
                self.note(at.path, "description", f"{key}: {change.change}")
        if Impact.COSMETIC in impacts:
            self.note(at.path, "cosmetic", f"{key} changed (annotations only)")


def _pairs(shape: str, was: Any, now: Any) -> Iterator[tuple[Any, Any]]:
    """Sub-schemas of one applicator, old with new; (MISSING, None) when they do not pair."""
    if shape == "list" and isinstance(was, list) and isinstance(now, list):
        if len(was) == len(now):
            yield from zip(was, now, strict=True)
            return
    elif shape == "map" and isinstance(was, Mapping) and isinstance(now, Mapping):
        if was.keys() == now.keys():
            yield from ((was[k], now[k]) for k in was)
            return
    elif shape == "one":
        yield was, now
        return
    yield MISSING, None
