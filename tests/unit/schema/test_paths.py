"""schema/paths.py: JSON paths as reports print them."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_mcp_contracts.schema.paths import json_path


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ([], "$"),
        (["items", 0, "price"], "$.items[0].price"),
        (["a b", 2], '$["a b"][2]'),
        ([0, 1], "$[0][1]"),
    ],
)
def test_json_path(path: list[Any], expected: str) -> None:
    assert json_path(path) == expected
