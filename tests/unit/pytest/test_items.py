"""pytest/items.py's helpers, without a session: what a failure shows as its one line, how
drift is listed, and the change attributed to a tool; and the seed pytest/session hands to
the checks."""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import pytest

from pytest_mcp_contracts.judges import drift_gate
from pytest_mcp_contracts.pytest import items, session
from pytest_mcp_contracts.pytest.keys import SETTINGS_KEY
from pytest_mcp_contracts.vocabulary import Impact


def _config(args: tuple[str, ...] = (), mode: str = "local", seed: str | None = None) -> Any:
    """The few parts of a pytest.Config the helpers read."""
    stash = pytest.Stash()
    stash[SETTINGS_KEY] = SimpleNamespace(mode=mode)
    return SimpleNamespace(
        stash=stash,
        invocation_params=SimpleNamespace(args=args),
        getoption=lambda name, default=None: seed if name == "hypothesis_seed" else default,
    )


@dataclass(frozen=True)
class _Change:
    impact: Impact
    text: str

    def __str__(self) -> str:
        return self.text


@pytest.mark.parametrize(("raw", "seed"), [(None, None), ("12", 12), ("abc", "abc")])
def test_the_seed_is_an_int_when_it_is_one(raw: str | None, seed: object) -> None:
    # hypothesis's own plugin reads --hypothesis-seed the same way.
    assert session.hypothesis_seed(_config(seed=raw)) == seed


def test_a_failure_is_its_own_text_summed_up_by_its_first_line() -> None:
    with pytest.raises(AssertionError) as caught:
        raise AssertionError("\nthe tool raised an unexpected exception\n  exception: boom")
    rendered = items.one_line_summary(caught, "a note")
    assert rendered.reprtraceback.reprentries[-1].lines == [
        "",
        "the tool raised an unexpected exception",
        "  exception: boom",
        "a note",
    ]
    # The crash message is what CI's short summary and JUnit print: the first real line.
    assert rendered.reprcrash.message == "the tool raised an unexpected exception"


def test_drift_is_listed_by_impact_with_the_command_that_accepts_it() -> None:
    changes = [
        _Change(Impact.ADDITIVE, "$.b: a new field"),
        _Change(Impact.BREAKING, "$.a: removed"),
        _Change(Impact.COSMETIC, "description changed"),
    ]
    config = _config(args=("--mcp-server=python s.py",))
    lines = drift_gate.drift_details(changes, changes[1:2], items._accept(config))
    assert lines == (
        "breaking:",
        "  $.a: removed",
        "additive:",
        "  $.b: a new field",
        "cosmetic:",
        "  description changed",
        "if the change is intended, accept it: pytest '--mcp-server=python s.py' "
        "--mcp-snapshot-update",
    )


def test_a_long_drift_list_is_cut_and_review_changes_say_to_check_by_hand() -> None:
    many = [
        _Change(Impact.REVIEW, f"$.f{i}: type changed")
        for i in range(drift_gate.MAX_DRIFT_LINES + 5)
    ]
    lines = drift_gate.drift_details(many, many, items._accept(_config(mode="ci")))
    assert lines.count("review:") == 1
    assert len([line for line in lines if line.startswith("  $.f")]) == drift_gate.MAX_DRIFT_LINES
    assert "  … and 5 more" in lines
    assert "review: a change the plugin cannot classify soundly; check it by hand" in lines
    assert lines[-1].startswith("if the change is intended, accept it locally (contracts are")


def test_an_attributed_change_keeps_its_tool_impact_and_text() -> None:
    attributed = drift_gate.Attributed("search", _Change(Impact.BREAKING, "$.hits: removed"))
    assert (attributed.tool, attributed.impact, str(attributed)) == (
        "search",
        "breaking",
        "$.hits: removed",
    )
