"""Validate a SARIF log against the published SARIF 2.1.0 schema (tests/schemas/README.md
says where the schema comes from and under which terms), formats included."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from jsonschema import Draft4Validator, FormatChecker

SCHEMA_PATH = Path(__file__).parent / "schemas" / "sarif-schema-2.1.0.json"


@functools.cache
def _validator() -> Draft4Validator:
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    Draft4Validator.check_schema(schema)  # the schema's own "$schema": draft-04
    return Draft4Validator(schema, format_checker=FormatChecker())


def sarif_errors(log: Any) -> list[str]:
    """Every place ``log`` breaks the schema, as "path: message"; empty when it is valid."""
    return [
        f"{'/'.join(map(str, error.absolute_path)) or '(root)'}: {error.message}"
        for error in _validator().iter_errors(log)
    ]
