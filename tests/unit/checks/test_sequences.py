"""The pure part of the sequences check: which output values feed which input slots."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pytest_mcp_contracts.runs.sequences.calls import Planned, Step, replay_lines, step_lines
from pytest_mcp_contracts.runs.sequences.feeding import (
    ITEM,
    Fed,
    Origin,
    Pool,
    Slot,
    base_of,
    feed,
    feed_slots,
    mine,
    names_match,
    refeed,
    renamed,
)
from pytest_mcp_contracts.runs.sequences.shrink import earlier_calls
from pytest_mcp_contracts.schema.dialects import make_validator


def structured(value: Any) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": json.dumps(value)}], "structuredContent": value}


@pytest.mark.parametrize(
    ("name", "plural", "base"),
    [
        ("id", False, "id"),
        ("note_id", False, "id"),
        ("noteId", False, "id"),
        ("entityName", False, "name"),
        ("entityNames", True, "name"),
        ("note_ids", True, "id"),
        ("file_path", False, "path"),
        ("uri", False, "uri"),
        ("api_key", False, "key"),
        ("entityNames", False, None),
        ("body", False, None),
        ("title", False, None),
    ],
)
def test_base_of(name: str, plural: bool, base: str | None) -> None:
    assert base_of(name, plural=plural) == base


@pytest.mark.parametrize(
    ("key", "prop", "plural", "matches"),
    [
        ("note_id", "note_id", False, True),
        ("id", "note_id", False, True),  # id <-> <x>_id, both ways
        ("note_id", "id", False, True),
        ("noteId", "note_id", False, True),
        ("user_id", "note_id", False, False),  # another kind of thing
        ("name", "names", True, True),
        ("name", "entityNames", True, True),
        ("name", "entityName", False, True),
        ("id", "name", False, False),
        ("title", "title", False, False),  # not an identifying value
    ],
)
def test_names_match(key: str, prop: str, plural: bool, matches: bool) -> None:
    assert names_match(key, prop, plural=plural) is matches


def test_mine_reads_structured_content_nested_and_lists_of_ids() -> None:
    result = structured(
        {
            "note": {"note_id": "n-1", "title": "t", "words": 3},
            "ids": [4, 5],
            "entities": [{"name": "Ada", "observations": ["x"]}],
            "flag_id": True,  # a boolean is no id
            "empty_id": "",
        }
    )
    assert mine(result) == [("name", "Ada"), ("id", 4), ("id", 5), ("note_id", "n-1")]


def test_mine_reads_json_text_and_ignores_errors_and_prose() -> None:
    text = {"content": [{"type": "text", "text": '[{"name": "Ada"}, {"name": "Bob"}]'}]}
    assert mine(text) == [("name", "Ada"), ("name", "Bob")]
    assert mine({"content": [{"type": "text", "text": "created note 7"}]}) == []
    assert mine({**structured({"id": 1}), "isError": True}) == []


MEMORY_LIKE = {
    "type": "object",
    "properties": {
        "names": {"type": "array", "items": {"type": "string"}},
        "observations": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "entityName": {"type": "string"},
                    "contents": {"type": "array", "items": {"type": "string"}},
                },
                "required": ["entityName", "contents"],
            },
        },
        "note_id": {"type": "integer"},
        "query": {"type": "string"},
    },
}


def test_feed_slots_finds_top_level_array_and_nested_slots() -> None:
    slots = feed_slots(MEMORY_LIKE)
    assert slots == [
        Slot(("names", ITEM), frozenset({"string"})),
        Slot(("observations", ITEM, "entityName"), frozenset({"string"})),
        Slot(("note_id",), frozenset({"integer"})),
    ]


def test_pool_candidates_newest_first_matching_name_and_type() -> None:
    pool = Pool()
    pool.add(0, "create", structured({"id": 1, "name": "a"}))
    pool.add(1, "create", structured({"id": "x-2", "name": "b"}))
    pool.add(2, "list", structured({"items": [{"id": 1}]}))  # 1 seen again: fresh again
    numeric = Slot(("note_id",), frozenset({"integer"}))
    text = Slot(("note_id",), frozenset({"string"}))
    assert [m.value for m in pool.candidates(numeric)] == [1]
    assert [m.value for m in pool.candidates(text)] == ["x-2"]
    # ...and keeps the origin of where it was made, not of the listing that showed it again
    assert pool.candidates(numeric)[0].origin == Origin(0, "id", 0)
    assert [m.value for m in pool.candidates(Slot(("names", ITEM), frozenset()))] == ["b", "a"]


def test_feed_puts_pool_values_in_and_keeps_the_input_valid() -> None:
    schema = {
        "type": "object",
        "properties": {"note_id": {"type": "string", "pattern": "^n-"}, "body": {"type": "string"}},
        "required": ["note_id"],
    }
    pool = Pool()
    pool.add(0, "create", structured({"note_id": "n-1"}))
    pool.add(1, "create", structured({"note_id": "bad"}))  # the pattern refuses it
    valid = make_validator(schema).is_valid
    slots = feed_slots(schema)
    asked: list[Slot] = []

    def newest(slot: Slot) -> int:
        asked.append(slot)
        return 0

    sent, fed = feed({"note_id": "n-zzz", "body": ""}, slots, pool, newest, valid)
    assert sent == {"note_id": "n-zzz", "body": ""} and fed == []  # "bad" was not put in
    sent, fed = feed({"note_id": "n-zzz", "body": ""}, slots, pool, lambda _s: 1, valid)
    assert sent == {"note_id": "n-1", "body": ""}
    assert fed == [Fed(("note_id",), "n-1", Origin(0, "note_id", 0))]
    sent, fed = feed({"note_id": "n-zzz"}, slots, pool, lambda _s: None, valid)
    assert sent == {"note_id": "n-zzz"} and fed == []
    # asked once per place, whatever the pool holds: the draws keep their shape
    feed({"note_id": "n-zzz"}, slots, Pool(), newest, valid)
    assert len(asked) == 2


def test_feed_reaches_array_items_and_objects_in_arrays() -> None:
    pool = Pool()
    pool.add(0, "create_entities", structured({"entities": [{"name": "Ada"}, {"name": "Bob"}]}))
    valid = make_validator(MEMORY_LIKE).is_valid
    arguments = {"names": ["x", "y"], "observations": [{"entityName": "z", "contents": []}]}
    sent, fed = feed(arguments, feed_slots(MEMORY_LIKE), pool, lambda _s: 0, valid)
    assert sent == {
        "names": ["Bob", "Bob"],
        "observations": [{"entityName": "Bob", "contents": []}],
    }
    assert [f.location for f in fed] == [
        ("names", 0),
        ("names", 1),
        ("observations", 0, "entityName"),
    ]


def test_refeed_takes_the_value_a_replay_made_at_the_same_origin() -> None:
    schema = {"type": "object", "properties": {"note_id": {"type": "string"}}}
    valid = make_validator(schema).is_valid
    feeds = [Fed(("note_id",), "n-old", Origin(3, "note_id", 0))]
    outputs = {3: structured({"note_id": "n-new"})}
    sent, fed = refeed({"note_id": "n-old"}, feeds, outputs, valid)
    assert sent == {"note_id": "n-new"} and fed[0].value == "n-new"
    # the origin is not replayed: the value under its new name, else as it was
    names = renamed(structured({"note_id": "n-old"}), structured({"note_id": "n-new"}), 9)
    assert names == {"n-old": ("n-new", 9)}
    sent, fed = refeed({"note_id": "n-old"}, feeds, {}, valid, names)
    assert sent == {"note_id": "n-new"} and fed[0].origin.step == 9
    sent, fed = refeed({"note_id": "n-old"}, feeds, {}, valid)
    assert sent == {"note_id": "n-old"} and fed == []


def test_earlier_calls_are_the_makers_and_changers_of_the_values_acted_on() -> None:
    history: list[tuple[Planned, dict[str, Any] | None]] = [
        (Planned(0, "create", {"title": "a"}), structured({"note_id": "n-1"})),
        (Planned(1, "create", {"title": "b"}), structured({"note_id": "n-2"})),
        (
            Planned(
                2,
                "update",
                {"note_id": "n-1"},
                (Fed(("note_id",), "n-1", Origin(0, "note_id", 0)),),
            ),
            structured({"result": "updated"}),
        ),
        (Planned(3, "read", {"note_id": "n-2"}), structured({"note_id": "n-2"})),
        (Planned(4, "list", {}), structured({"notes": [{"note_id": "n-1"}, {"note_id": "n-2"}]})),
    ]
    failing = [
        Step(5, "list", {}, (), "ok", {}),
        Step(
            6,
            "read",
            {"note_id": "n-1"},
            (Fed(("note_id",), "n-1", Origin(5, "note_id", 0)),),
            "",
            {},
        ),
    ]
    read_only = {"read": True, "list": True}
    needed = earlier_calls(history, 5, failing, lambda tool: read_only.get(tool, False))
    assert needed == [0, 2]  # the create that made n-1 and the update sent it; no reads


def test_step_lines_say_where_fed_values_came_from() -> None:
    steps = [
        Step(10, "create_note", {"title": ""}, (), 'ok: {"note_id": "n-1"}', {}),
        Step(
            11,
            "read_note",
            {"note_id": "n-1"},
            (Fed(("note_id",), "n-1", Origin(10, "note_id", 0)),),
            "isError: boom",
            {},
        ),
    ]
    assert step_lines(steps) == [
        '1. create_note {"title": ""}',
        '   -> ok: {"note_id": "n-1"}',
        '2. read_note {"note_id": "n-1"}  (note_id from call 1)',
        "   -> isError: boom",
    ]


def test_replay_lines_start_with_the_handshake_for_a_handshake_era_server() -> None:
    request = {"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "t", "arguments": {}}}
    steps = [Step(0, "t", {}, (), "ok", request)]
    handshake = {"method": "initialize", "params": {"protocolVersion": "2025-11-25"}}
    lines = [json.loads(line) for line in replay_lines(steps, handshake)]
    assert [m.get("method") for m in lines] == [
        "initialize",
        "notifications/initialized",
        "tools/call",
    ]
    assert [m.get("id") for m in lines] == [1, None, 2]
    assert [json.loads(line)["id"] for line in replay_lines(steps, None)] == [1]
