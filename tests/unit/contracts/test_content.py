"""contracts/content.py and the Recorder's listed-entry API: what a read or a get returns as
the value its content contract is learned from, and that contract recorded, checked and
drifting with the tools' quality levels and flap rules."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_mcp_contracts.contracts.content import (
    prompt_observable,
    read_observable,
)
from pytest_mcp_contracts.contracts.observe import NO_ARGUMENTS
from pytest_mcp_contracts.contracts.record import Recorder
from pytest_mcp_contracts.contracts.snapshot import SnapshotStore
from pytest_mcp_contracts.schema.synthetic import template_variables
from pytest_mcp_contracts.transport.discover import (
    Entry,
    ServerSurface,
)
from pytest_mcp_contracts.vocabulary import EntryKind, SnapshotMode


def read(*contents: dict[str, Any]) -> dict[str, Any]:
    return {"contents": list(contents)}


def text(value: str, mime: str | None = None) -> dict[str, Any]:
    entry = {"uri": "config://app", "text": value}
    return entry if mime is None else {**entry, "mimeType": mime}


@pytest.mark.parametrize(
    ("result", "value"),
    [
        (read(text('{"theme": "dark"}')), {"theme": "dark"}),
        (read(text("[1, 2]")), [1, 2]),
        # Under a JSON mimeType any JSON value counts; without one a bare scalar is prose.
        (read(text("42", "application/json")), 42),
        (read(text('"x"', "application/vnd.api+json; charset=utf-8")), "x"),
        (read(text("42")), None),
        (read(text("# Title")), None),
        (read(text("{not json", "application/json")), None),
        (read(text('{"a": 1}'), text('{"a": 2}')), [{"a": 1}, {"a": 2}]),
        (read(text('{"a": 1}'), text("prose")), None),
        (read({"uri": "x://y", "blob": "AAAA"}), None),
        ({"contents": "nope"}, None),
        ({}, None),
    ],
)
def test_read_observable(result: dict[str, Any], value: Any) -> None:
    assert read_observable(result) == value


def message(role: Any, content: Any) -> dict[str, Any]:
    return {"role": role, "content": content}


def test_prompt_observable_keys_count_roles_and_block_types() -> None:
    hello = {"type": "text", "text": "hello"}
    image = {"type": "image", "data": "AAAA", "mimeType": "image/png"}
    result = {"messages": [message("user", hello), message("assistant", image)]}
    assert prompt_observable(result) == {
        "message1_user_text": hello,
        "message2_assistant_image": image,
    }
    # A list of blocks in one message, and garbage, still read (judges/content_results judges them).
    assert list(prompt_observable({"messages": [message(3, [hello, hello]), "x"]}) or {}) == [
        "message1_unknown_text_1",
        "message1_unknown_text_2",
        "message2_unknown_unknown",
    ]
    assert prompt_observable({"messages": "nope"}) is None


def test_template_variables() -> None:
    assert template_variables("users://{org}/{user_id}/profile{?q,r}") == [
        "org",
        "user_id",
        "q",
        "r",
    ]
    assert template_variables("file://{path") == []


# -- the Recorder API the read and get items call ---------------------------------------------

PROMPT = Entry(
    EntryKind.PROMPT,
    "review",
    "review",
    {"name": "review", "arguments": [{"name": "code", "required": True}, {"name": "n"}]},
)
RESOURCE = Entry(
    EntryKind.RESOURCE, "config://app", "config_app-1", {"uri": "config://app", "name": "app"}
)
TEMPLATE = Entry(
    EntryKind.TEMPLATE, "users://{id}", "users_id-1", {"uriTemplate": "users://{id}", "name": "u"}
)
SURFACE = ServerSurface(
    "shop",
    "shop",
    "1",
    "2025-11-25",
    prompts=(PROMPT,),
    resources=(RESOURCE,),
    templates=(TEMPLATE,),
)


def run(
    store: SnapshotStore,
    entry: Entry,
    results: list[tuple[dict[str, Any], dict[str, Any]]],
    mode: str = SnapshotMode.RECORD,
) -> tuple[Recorder, list[str]]:
    """One run of ``entry``'s read or get item: each (arguments, result) observed, then
    finished and flushed; the drift that failed a call comes back."""
    recorder = Recorder(store, mode)
    observations = recorder.start("shop", entry)
    failing = [
        str(c) for arguments, result in results for c in observations.observe(arguments, result)
    ]
    recorder.finish(SURFACE, "shop", observations, passed=not failing)
    recorder.flush({"shop": set()})
    return recorder, failing


def theme(n: int, **extra: Any) -> dict[str, Any]:
    return read(text(json.dumps({"theme": f"t{n}", "size": n, **extra})))


def test_a_json_resource_with_a_stable_shape_passes_and_rewrites_nothing(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path)
    recorder, failing = run(store, RESOURCE, [({}, theme(n)) for n in range(12)])
    assert failing == []
    (path,) = recorder.written
    assert path == tmp_path / "shop" / "resources" / "config_app-1.json"
    data = json.loads(path.read_text())
    assert data["resource"] == "config://app"
    content = data["content"]
    assert content["kinds"] == ["json-text"]
    assert content["schema"]["required"] == ["size", "theme"]
    # A resource takes no arguments: every read is the same input, so never validated.
    assert (content["quality"], content["basis"]) == ("inferred", NO_ARGUMENTS)
    again, failing = run(store, RESOURCE, [({}, theme(n)) for n in range(3)])
    assert failing == [] and again.written == []


def test_a_json_resource_whose_shape_changed_is_content_drift(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path)
    run(store, RESOURCE, [({}, theme(n)) for n in range(12)])
    shrunk = read(text(json.dumps({"theme": "x"})))
    recorder, failing = run(store, RESOURCE, [({}, shrunk)])
    assert failing == ["$.size: missing (was always present)"]
    assert recorder.written == []  # a failed item teaches nothing
    # Turned prose: its kind drifted.
    _, failing = run(store, RESOURCE, [({}, read(text("plain words")))])
    assert failing == ["content kind: json-text -> prose"]


def test_an_update_accepts_the_new_shape(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path)
    run(store, RESOURCE, [({}, theme(n)) for n in range(12)])
    renamed = [({}, read(text(json.dumps({"colour": f"c{n}"})))) for n in range(12)]
    recorder, failing = run(store, RESOURCE, renamed, SnapshotMode.UPDATE)
    assert failing == [] and len(recorder.written) == 1
    _, failing = run(store, RESOURCE, renamed[:2])
    assert failing == []


def test_a_text_resource_records_no_content_contract(tmp_path: Path) -> None:
    recorder, failing = run(SnapshotStore(tmp_path), RESOURCE, [({}, read(text("# Guide")))])
    assert failing == [] and recorder.written == []


def got(code: str, *roles: str) -> dict[str, Any]:
    return {
        "messages": [
            message(role, {"type": "text", "text": f"{code} {i}"}) for i, role in enumerate(roles)
        ]
    }


def test_a_prompt_whose_message_count_or_roles_change_drifts(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path)
    calls = [({"code": f"c{n}", "n": str(n)}, got(f"c{n}", "user", "assistant")) for n in range(12)]
    recorder, failing = run(store, PROMPT, calls)
    assert failing == []
    content = json.loads(recorder.written[0].read_text())["content"]
    # Arguments that differ, outputs that vary, the same keys: validated.
    assert content["quality"] == "validated"
    assert content["kinds"] == []
    assert sorted(content["schema"]["properties"]) == [
        "message1_user_text",
        "message2_assistant_text",
    ]
    _, failing = run(store, PROMPT, [({"code": "x"}, got("x", "user", "user"))])
    assert failing == ["$.message2_assistant_text: missing (was always present)"]
    _, failing = run(store, PROMPT, [({"code": "x"}, got("x", "user"))])
    assert failing == ["$.message2_assistant_text: missing (was always present)"]
    # One more message is new, not breaking: listed as additive, fails only under strict.
    recorder = Recorder(store, SnapshotMode.RECORD)
    observations = recorder.start("shop", PROMPT)
    assert observations.observe({"code": "x"}, got("x", "user", "assistant", "user")) == []
    assert [str(c) for c in observations.additive.values()] == [
        "$.message3_user_text: new field: object"
    ]


def test_a_template_counts_its_variables_as_its_arguments(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path)
    calls = [({"id": str(n)}, read(text(json.dumps({"id": n})))) for n in range(4)]
    recorder, _ = run(store, TEMPLATE, calls)
    content = json.loads(recorder.written[0].read_text())["content"]
    assert recorder.written[0].parent.name == "templates"
    assert content["quality"] == "validated"


def test_in_ci_only_an_entry_that_returned_json_misses_a_content_contract(tmp_path: Path) -> None:
    recorder = Recorder(SnapshotStore(tmp_path), SnapshotMode.CI)
    prose = recorder.start("shop", RESOURCE)
    prose.observe({}, read(text("# Guide")))
    assert not recorder.content_missing_in_ci(prose)
    json_text = recorder.start("shop", RESOURCE)
    json_text.observe({}, theme(1))
    assert recorder.content_missing_in_ci(json_text)
    recorder.finish(SURFACE, "shop", json_text, passed=True)
    recorder.flush({"shop": set()})
    assert recorder.written == []  # CI writes nothing
