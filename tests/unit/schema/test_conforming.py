"""tests/conforming.py, the fakes' results: each passes the schema of the version it is made
for (schema/spec), and on 2026-07-28 what the helper adds is exactly what that schema asks."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_mcp_contracts.schema.spec import SPEC_VERSIONS, Spec
from pytest_mcp_contracts.vocabulary import MODERN_VERSION
from tests.conforming import CACHEABLE, conforming

RESULTS: list[tuple[str, dict[str, Any]]] = [
    ("tools/call", {"content": [{"type": "text", "text": "7"}], "isError": True}),
    ("prompts/get", {"messages": []}),
    ("resources/read", {"contents": [{"uri": "file:///a", "text": "a"}]}),
    ("tools/list", {"tools": []}),
    ("prompts/list", {"prompts": []}),
    ("resources/list", {"resources": []}),
    ("resources/templates/list", {"resourceTemplates": []}),
    ("server/discover", {"capabilities": {}, "supportedVersions": [MODERN_VERSION]}),
]


@pytest.mark.parametrize("version", SPEC_VERSIONS)
@pytest.mark.parametrize(("method", "result"), RESULTS)
def test_a_conforming_result_passes_its_versions_schema(
    version: str, method: str, result: dict[str, Any]
) -> None:
    spec = Spec.of(version)
    assert spec is not None
    assert spec.result(method, conforming(result, method, version)) == []


@pytest.mark.parametrize(("method", "result"), RESULTS)
def test_on_2026_07_28_the_schema_asks_what_the_helper_adds(
    method: str, result: dict[str, Any]
) -> None:
    spec = Spec.of(MODERN_VERSION)
    assert spec is not None
    missing = {v.message for v in spec.result(method, result)}
    cacheable = {"'ttlMs' is a required property", "'cacheScope' is a required property"}
    assert "'resultType' is a required property" in missing
    assert cacheable <= missing if method in CACHEABLE else not cacheable & missing
    assert conforming(result, method, "2025-11-25") == result  # nothing before 2026-07-28
