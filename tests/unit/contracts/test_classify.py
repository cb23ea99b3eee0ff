"""contracts/classify.py: what kind of output a tools/call result is, including what hostile
servers send."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_mcp_contracts.contracts.classify import (
    Classified,
    OutputKind,
    classify,
    parse_json_text,
)

IMAGE = {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}
AUDIO = {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"}
RESOURCE = {"type": "resource", "resource": {"uri": "file:///a.txt", "text": "hi"}}
LINK = {"type": "resource_link", "uri": "file:///b.txt", "name": "b"}


def text(value: Any) -> dict[str, Any]:
    return {"type": "text", "text": value}


def result(*blocks: Any, **extra: Any) -> dict[str, Any]:
    return {"content": list(blocks), **extra}


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (result(text('{"a": 1}')), Classified(OutputKind.JSON_TEXT, {"a": 1})),
        (result(text(" \n[1, 2]\n ")), Classified(OutputKind.JSON_TEXT, [1, 2])),
        (result(text("{'a': 1}")), Classified(OutputKind.PROSE)),  # a Python repr
        (result(text("42")), Classified(OutputKind.PROSE)),
        (result(text('"x"')), Classified(OutputKind.PROSE)),
        (result(text("true")), Classified(OutputKind.PROSE)),
        (result(text('{"a": NaN}')), Classified(OutputKind.PROSE)),
        (result(text("[Infinity]")), Classified(OutputKind.PROSE)),
        (result(text("{broken")), Classified(OutputKind.PROSE)),
        (result(text("hello"), text("world")), Classified(OutputKind.PROSE)),
        (
            result(text('{"id": 1}'), text('{"id": 2}'), text("[3]")),
            Classified(OutputKind.JSON_ITEMS, [{"id": 1}, {"id": 2}, [3]]),
        ),
        (result(text('{"a": 1}'), text("and some prose")), Classified(OutputKind.MIXED)),
        (result(text("a chart:"), IMAGE), Classified(OutputKind.MIXED)),
        (result(text('{"a": 1}'), IMAGE), Classified(OutputKind.MIXED)),
        (result(IMAGE, AUDIO), Classified(OutputKind.BINARY)),
        (result(RESOURCE, LINK), Classified(OutputKind.RESOURCE)),
        (result(RESOURCE, IMAGE), Classified(OutputKind.MIXED)),
        (result(), Classified(OutputKind.EMPTY)),
        ({}, Classified(OutputKind.EMPTY)),
        (result(structuredContent=None), Classified(OutputKind.EMPTY)),
    ],
)
def test_kinds(raw: dict[str, Any], expected: Classified) -> None:
    assert classify(raw) == expected


def test_kind_values_are_what_snapshots_show() -> None:
    assert [k.value for k in OutputKind] == [
        "structured",
        "json-text",
        "json-items",
        "prose",
        "binary",
        "resource",
        "error",
        "mixed",
        "empty",
    ]
    assert f"{OutputKind.JSON_TEXT}" == "json-text"


@pytest.mark.parametrize(
    ("raw", "mirrored"),
    [
        (result(text('{"b": [1], "a": 2}'), structuredContent={"a": 2, "b": [1]}), True),
        # The Python SDK's wrapping of a non-object return value.
        (result(text("[1, 2]"), structuredContent={"result": [1, 2]}), True),
        (result(IMAGE, text("{}"), structuredContent={}), True),
        (result(text("the answer is 2"), structuredContent={"a": 2}), False),
        (result(text('{"a": 3}'), structuredContent={"a": 2}), False),
        (result(text('{"a": 1}'), structuredContent={"a": True}), False),  # 1 is not true
        (result(text('{"x": 1}'), structuredContent={"a": 1, "b": 2}), False),
        (result(structuredContent={"a": 2}), False),
        ({"content": "junk", "structuredContent": [1]}, False),
    ],
)
def test_structured(raw: dict[str, Any], mirrored: bool) -> None:
    classified = classify(raw)
    assert classified == Classified(OutputKind.STRUCTURED, raw["structuredContent"], mirrored)


def test_structured_may_be_any_json_value() -> None:
    assert classify(result(text("7"), structuredContent=7)).value == 7


def test_error_wins_over_everything() -> None:
    raw = result(text('{"a": 1}'), structuredContent={"a": 1}, isError=True)
    assert classify(raw) == Classified(OutputKind.ERROR)
    assert classify(result(isError=True)).kind is OutputKind.ERROR
    # Only a real true: judges/tool_result.py reads isError the same way.
    assert classify(result(text("{}"), isError="yes")).kind is OutputKind.JSON_TEXT


@pytest.mark.parametrize(
    ("raw", "kind"),
    [
        ({"content": "not a list"}, OutputKind.MIXED),
        ({"content": {"type": "text", "text": "{}"}}, OutputKind.MIXED),
        (result("a bare string"), OutputKind.MIXED),
        (result(None, 3), OutputKind.MIXED),
        (result({"type": "video", "url": "x"}), OutputKind.MIXED),
        (result({"type": ["text"], "text": "{}"}), OutputKind.MIXED),
        (result({"no": "type"}), OutputKind.MIXED),
        (result(text({"a": 1})), OutputKind.PROSE),
        (result(text(None)), OutputKind.PROSE),
        (result({"type": "text"}), OutputKind.PROSE),
        (result(text("[1]"), text(123)), OutputKind.MIXED),
        (result(text("{}"), structuredContent={"a": 1}, isError=1), OutputKind.STRUCTURED),
    ],
)
def test_hostile_results_do_not_crash(raw: dict[str, Any], kind: OutputKind) -> None:
    assert classify(raw).kind is kind


def test_json_too_deep_to_parse_is_prose() -> None:
    deep = "[" * 100_000 + "]" * 100_000
    assert parse_json_text(deep) is None
    assert classify(result(text(deep))).kind is OutputKind.PROSE


def test_large_prose_is_not_parsed(monkeypatch: pytest.MonkeyPatch) -> None:
    # Text that does not start like JSON is never handed to the parser, however large.
    big = " " + "x" * 5_000_000 + "{}"
    monkeypatch.setattr("json.loads", lambda *a, **k: pytest.fail("prose was parsed"))
    assert classify(result(text(big))).kind is OutputKind.PROSE


@pytest.mark.parametrize(
    ("structured", "texts"),
    [
        ({"result": 42}, ["42"]),
        ({"result": "ok"}, ['"ok"']),
        ({"result": "item 3"}, ["item 3"]),
        ({"result": [1, 2, 3]}, ["1", "2", "3"]),
        ({"a": 1, "b": [True]}, ['{\n  "a": 1,\n  "b": [true]\n}']),
    ],
    ids=["scalar", "string", "bare-string", "list-one-block-per-item", "pretty-object"],
)
def test_sdk_style_mirrors_count_as_mirrored(structured: Any, texts: list[str]) -> None:
    seen = classify(result(*[text(t) for t in texts], structuredContent=structured))
    assert seen.kind is OutputKind.STRUCTURED and seen.mirrored is True


def test_a_different_text_is_not_a_mirror() -> None:
    seen = classify(result(text("43"), structuredContent={"result": 42}))
    assert seen.mirrored is False
