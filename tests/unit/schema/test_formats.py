"""schema/formats.py: jsonschema imported with two format libraries deferred checks every
format as a plain `import jsonschema` does, and imports those libraries only when a value
of their format is checked.

Each side runs in a fresh interpreter: jsonschema's format registry is global and the test
process imported jsonschema long ago."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

# Per format, values on both sides of it (and a non-string, which every checker passes).
SAMPLES = {
    "uri": ["https://example.com/a?b=1#c", "urn:isbn:0451450523", "/relative", "no scheme", ""],
    "uri-reference": ["https://example.com/a", "/relative/path", "#frag", "a b", "http://[::1"],
    "duration": ["P1D", "PT1H30M", "P1Y2M3W", "P", "PT", "P1", "1D", "P1.5D", "P-1D"],
}
NOT_STRINGS = [3, None, ["P1D"]]

# Run after each side's own setup lines: what jsonschema's checkers say of the samples.
REPORT = """
import json, sys
import jsonschema
deferred = sorted(name for name in ("rfc3986_validator", "isoduration") if name in sys.modules)
checkers = {"FormatChecker": jsonschema.FormatChecker()}
for draft in ("3", "4", "6", "7", "201909", "202012"):
    checkers[draft] = getattr(jsonschema, f"Draft{draft}Validator").FORMAT_CHECKER
samples = json.loads(sys.argv[1])
verdicts = {}
for where, checker in checkers.items():
    for name, values in samples.items():
        for value in values:
            try:
                checker.check(value, name)
                verdicts[f"{where} {name} {value!r}"] = "ok"
            except jsonschema.exceptions.FormatError as error:
                cause = type(error.cause).__name__ if error.cause is not None else None
                verdicts[f"{where} {name} {value!r}"] = f"refused, cause {cause}"
print(json.dumps({
    "deferred_before_checks": deferred,
    "formats": {where: sorted(c.checkers) for where, c in checkers.items()},
    "verdicts": verdicts,
    "loaded_after": sorted(n for n in ("rfc3986_validator", "isoduration") if n in sys.modules),
}))
"""
DEFER = "from pytest_mcp_contracts.schema.formats import import_jsonschema\nimport_jsonschema()\n"


def _report(setup: str) -> dict[str, Any]:
    samples = {name: [*values, *NOT_STRINGS] for name, values in SAMPLES.items()}
    done = subprocess.run(
        [sys.executable, "-c", setup + REPORT, json.dumps(samples)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    report: dict[str, Any] = json.loads(done.stdout)
    return report


@pytest.fixture(scope="module")
def plain() -> dict[str, Any]:
    return _report("")


@pytest.fixture(scope="module")
def deferred() -> dict[str, Any]:
    return _report(DEFER)


def test_the_libraries_wait_for_a_value_of_their_format(
    plain: dict[str, Any], deferred: dict[str, Any]
) -> None:
    assert plain["deferred_before_checks"] == ["isoduration", "rfc3986_validator"]
    assert deferred["deferred_before_checks"] == []
    # The checks of the samples above needed both.
    assert deferred["loaded_after"] == ["isoduration", "rfc3986_validator"]


def test_every_draft_checks_the_same_formats(
    plain: dict[str, Any], deferred: dict[str, Any]
) -> None:
    assert deferred["formats"] == plain["formats"]
    # The deferred formats are among them, where jsonschema puts them.
    assert "uri" in plain["formats"]["3"]
    assert "uri-reference" not in plain["formats"]["4"]
    assert "duration" in plain["formats"]["202012"]
    assert "duration" not in plain["formats"]["7"]


def test_every_value_gets_the_same_verdict(plain: dict[str, Any], deferred: dict[str, Any]) -> None:
    assert deferred["verdicts"] == plain["verdicts"]
    # The samples hold values each format refuses, so the comparison compares refusals too.
    refused = {key.split()[1] for key, verdict in plain["verdicts"].items() if verdict != "ok"}
    assert refused == set(SAMPLES)


def test_an_imported_jsonschema_is_left_alone() -> None:
    report = _report("import jsonschema\n" + DEFER)
    assert report["deferred_before_checks"] == ["isoduration", "rfc3986_validator"]
