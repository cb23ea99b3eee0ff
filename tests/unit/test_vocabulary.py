"""vocabulary.py: the shared names keep the strings users and CI read, cross to an xdist
controller as plain strings, and the module stays at the bottom of the layers."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from pytest_mcp_contracts import options, vocabulary
from pytest_mcp_contracts.reporting.runreport import for_the_wire
from pytest_mcp_contracts.vocabulary import (
    IMPACT_ORDER,
    QUALITIES,
    TOOL_CHECKS,
    Check,
    Impact,
    Quality,
    SnapshotMode,
)

SCHEMA = json.loads(
    (Path(__file__).parents[2] / "docs" / "run-report.schema.json").read_text(encoding="utf-8")
)


def test_the_published_report_names_the_same_values_in_the_same_order() -> None:
    defs = SCHEMA["$defs"]
    [output] = [o for o in defs["tool"]["properties"]["output"]["oneOf"] if o["type"] == "object"]
    assert list(IMPACT_ORDER) == defs["drift"]["required"]
    assert list(QUALITIES) == output["properties"]["quality"]["enum"]
    assert list(SnapshotMode) == SCHEMA["properties"]["mode"]["enum"]


def test_impacts_are_declared_gravest_first() -> None:
    assert IMPACT_ORDER == (
        Impact.BREAKING,
        Impact.REVIEW,
        Impact.DESCRIPTION,
        Impact.ADDITIVE,
        Impact.COSMETIC,
    )
    changes = ["cosmetic", "description", "breaking", "additive", "review"]
    assert sorted(changes, key=IMPACT_ORDER.index) == [
        "breaking",
        "review",
        "description",
        "additive",
        "cosmetic",
    ]


def test_checks_are_the_item_names() -> None:
    assert [str(check) for check in TOOL_CHECKS] == [
        "schema",
        "drift",
        "contract",
        "rejects_invalid",
    ]
    assert f"{vocabulary.NODE_PREFIX}shop::{Check.SEQUENCES}" == "mcp:shop::sequences"


@pytest.mark.parametrize("member", [Quality.VALIDATED, Impact.REVIEW, Check.DRIFT])
def test_a_member_crosses_to_the_controller_as_a_plain_str(member: str) -> None:
    # execnet (xdist's channel) refuses str subclasses: a StrEnum key once lost a worker's facts.
    sent = for_the_wire({member: [member]})
    [(key, [value])] = sent.items()
    assert type(key) is str and type(value) is str
    assert key == value == member.value
    assert json.dumps({member: member}) == json.dumps({member.value: member.value})


def test_option_choices_are_plain_strings() -> None:
    # argparse prints a refused choice's alternatives with repr: an enum would show its class.
    for choices in (
        vocabulary.CALL_POLICIES,
        vocabulary.REJECTS_INVALID_MODES,
        vocabulary.ELICITATION_ANSWERS,
    ):
        assert all(type(choice) is str for choice in choices)
    assert options.DEFAULT_CALL_POLICY in vocabulary.CALL_POLICIES
    assert options.DEFAULT_REJECTS_INVALID in vocabulary.REJECTS_INVALID_MODES


def test_it_imports_nothing_from_the_package() -> None:
    tree = ast.parse(Path(vocabulary.__file__).read_text(encoding="utf-8"))
    imported = [
        node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
    ] + [
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    ]
    assert imported and not [name for name in imported if name.startswith("pytest_mcp_contracts")]


def test_a_drift_changes_static_impact_type_is_the_vocabularys_scale() -> None:
    from typing import get_type_hints

    from pytest_mcp_contracts.contracts.change import Change

    assert get_type_hints(Change)["impact"] is Impact
