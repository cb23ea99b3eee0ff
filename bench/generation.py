"""Time drawing examples from a JSON Schema, in a fresh process (run by bench/run.py).

    python bench/generation.py --schema nested --generator plugin --draws 100

prints one JSON object: build_seconds (making the strategy), draw_seconds (drawing),
total_seconds (both), draws (how many values the test function received) and valid (how
many of them the original schema accepts, formats checked; counted after the clock stops).

With `--coverage` it also times deriving the coverage phase's inputs
(`generate.coverage_plan`, budget 40 as at the default --mcp-max-examples), after the strategy
is built: plan_seconds, plan_inputs.

`plugin` is `pytest_mcp_contracts.inputs.generate.input_strategy`, `stock` is hypothesis-
jsonschema's `from_schema` with the plugin's compatibility shim installed (0.23.1 does not work
with the installed hypothesis without it). Both are drawn the way the plugin draws: `@given`
with `database=None`, `deadline=None`, generation phase only, the same suppressed health
checks.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

FLAT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "maxLength": 50},
        "count": {"type": "integer", "minimum": 0, "maximum": 1000},
        "ratio": {"type": "number", "minimum": 0, "maximum": 1},
        "enabled": {"type": "boolean"},
        "mode": {"type": "string", "enum": ["fast", "slow", "auto"]},
    },
    "required": ["name", "count"],
    "additionalProperties": False,
}

# An order: customer {email format, name}, items[] of {sku pattern, qty >= 1, price},
# shipping address {postcode pattern, country enum}; sub-schemas under 2020-12 `$defs`.
NESTED: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
        "order_id": {"type": "string", "pattern": "^ORD-[0-9]{6}$"},
        "customer": {"$ref": "#/$defs/customer"},
        "items": {
            "type": "array",
            "items": {"$ref": "#/$defs/item"},
            "minItems": 1,
            "maxItems": 10,
        },
        "shipping": {"$ref": "#/$defs/address"},
        "placed_at": {"type": "string", "format": "date-time"},
        "note": {"type": ["string", "null"], "maxLength": 200},
    },
    "required": ["order_id", "customer", "items", "shipping"],
    "additionalProperties": False,
    "$defs": {
        "customer": {
            "type": "object",
            "properties": {
                "email": {"type": "string", "format": "email"},
                "name": {"type": "string", "minLength": 1, "maxLength": 80},
            },
            "required": ["email", "name"],
            "additionalProperties": False,
        },
        "item": {
            "type": "object",
            "properties": {
                "sku": {"type": "string", "pattern": "^[A-Z]{3}-[0-9]{4}$"},
                "qty": {"type": "integer", "minimum": 1},
                "price": {"type": "number", "minimum": 0},
            },
            "required": ["sku", "qty", "price"],
            "additionalProperties": False,
        },
        "address": {
            "type": "object",
            "properties": {
                "line1": {"type": "string", "minLength": 1},
                "city": {"type": "string", "minLength": 1},
                "postcode": {"type": "string", "pattern": "^[0-9]{5}(-[0-9]{4})?$"},
                "country": {"enum": ["US", "CA", "GB", "DE", "FR"]},
            },
            "required": ["line1", "postcode", "country"],
            "additionalProperties": False,
        },
    },
}

SCHEMAS: dict[str, dict[str, Any]] = {"flat": FLAT, "nested": NESTED}


def measure(
    schema: dict[str, Any], generator: str, draws: int, coverage: bool = False
) -> dict[str, Any]:
    """Build the strategy and draw `draws` examples; imports happen before the clock starts."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis_jsonschema import from_schema
    from jsonschema import FormatChecker
    from jsonschema.validators import validator_for

    from pytest_mcp_contracts.inputs.generate import coverage_plan, input_strategy
    from pytest_mcp_contracts.inputs.hypothesis_compat import install

    install()
    values: list[Any] = []
    start = time.perf_counter()
    strategy = input_strategy(schema) if generator == "plugin" else from_schema(schema)
    built = time.perf_counter()
    plan_inputs = len(coverage_plan(schema, 40).inputs) if coverage else 0
    plan_seconds = time.perf_counter() - built

    @settings(
        max_examples=draws,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(strategy)
    def draw(value: Any) -> None:
        values.append(value)

    draw()
    done = time.perf_counter() - plan_seconds  # the draws' clock leaves the plan out
    validator = validator_for(schema)(schema, format_checker=FormatChecker())
    return {
        "schema": "",
        "generator": generator,
        "build_seconds": built - start,
        "draw_seconds": done - built,
        "total_seconds": done - start,
        "draws": len(values),
        "valid": sum(1 for value in values if validator.is_valid(value)),
        "plan_seconds": plan_seconds,
        "plan_inputs": plan_inputs,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--schema", choices=sorted(SCHEMAS), required=True)
    parser.add_argument("--generator", choices=["plugin", "stock"], required=True)
    parser.add_argument("--draws", type=int, default=100)
    parser.add_argument("--coverage", action="store_true", help="also time the coverage plan")
    args = parser.parse_args()
    result = measure(SCHEMAS[args.schema], args.generator, args.draws, args.coverage)
    result["schema"] = args.schema
    print(json.dumps(result))


if __name__ == "__main__":
    main()
