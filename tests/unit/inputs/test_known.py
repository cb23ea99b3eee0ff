"""Well-known values (inputs/known): string properties named like a timezone, a currency, a
language, a country or an email take real values of that kind, when nothing else in their
schema says what they want; every input stays valid."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from jsonschema import Draft202012Validator

from pytest_mcp_contracts.inputs.generate import coverage_plan, input_strategy
from pytest_mcp_contracts.inputs.known import KINDS, known_slots

TIMEZONES = KINDS["timezone"][1]


def _object(**properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": sorted(properties)}


def test_names_that_say_the_kind_are_found_and_constrained_ones_left_alone() -> None:
    schema = _object(
        timezone={"type": "string"},
        source_timezone={"type": "string"},
        targetTimeZone={"type": "string"},
        tz={"type": "string"},
        currency_code={"type": "string"},
        locale={"type": "string"},
        zone_id={"type": "string", "enum": ["a", "b"]},  # the enum says better
        email={"type": "string", "format": "email"},  # the format is generated already
        country_count={"type": "integer"},  # not a string
        timestamp={"type": "string"},  # neither a timezone nor a time of day
        start_time={"type": "string"},
    )
    found = known_slots(schema)
    assert sorted(found) == [
        "currency_code",
        "locale",
        "source_timezone",
        "start_time",
        "targetTimeZone",
        "timezone",
        "tz",
    ]
    assert found["tz"] == TIMEZONES and found["currency_code"][0] == "USD"
    assert found["start_time"][0] == "12:00"


def test_random_inputs_draw_known_values_often_and_stay_valid() -> None:
    schema = _object(timezone={"type": "string", "maxLength": 16}, n={"type": "integer"})
    validator = Draft202012Validator(schema)
    drawn: list[str] = []

    @settings(max_examples=200, database=None, derandomize=True)
    @given(input_strategy(schema))
    def collect(value: dict[str, Any]) -> None:
        assert validator.is_valid(value)
        drawn.append(value["timezone"])

    collect()
    known = [v for v in drawn if v in TIMEZONES]
    # About half of the draws; and never a value the schema refuses (America/Sao_Paulo is
    # 17 characters, over maxLength 16).
    assert len(known) >= len(drawn) // 4, (len(known), len(drawn))
    assert "America/Sao_Paulo" not in drawn
    assert len(set(known)) >= 4


def test_the_coverage_phase_starts_at_a_known_value_and_visits_a_few() -> None:
    plan = coverage_plan(_object(timezone={"type": "string"}), 40)
    sent = [item.arguments["timezone"] for item in plan.inputs]
    assert sent[0] == "UTC"  # the base input: every other corner runs with a real zone
    assert {"Europe/London", "America/New_York"} <= set(sent)
