"""What a hand-written test gets back (runs/handwritten): the typed results, the exceptions,
and what ServerUnderTest refuses or works out before it sends anything. The calls
themselves, on real servers, are in tests/e2e/test_own_tests.py."""

from __future__ import annotations

import pickle
from typing import Any

import pytest
from hypothesis import find

import pytest_mcp_contracts
from pytest_mcp_contracts.judges.failures import FailureKind, FailureReport
from pytest_mcp_contracts.runs.handwritten import (
    CheckFailed,
    McpRpcError,
    PromptResult,
    ResourceResult,
    ServerUnderTest,
    ToolResult,
)
from pytest_mcp_contracts.transport.discover import (
    Entry,
    ServerSurface,
)
from pytest_mcp_contracts.transport.managed import CallOutcome, ManagedServer
from pytest_mcp_contracts.transport.stdio import ServerCommand
from pytest_mcp_contracts.vocabulary import EntryKind
from tests.conforming import conforming


def test_a_tool_result_reads_its_members_and_joins_its_text() -> None:
    raw = {
        "content": [
            {"type": "text", "text": "one"},
            {"type": "image", "data": "AAAA", "mimeType": "image/png"},
            {"type": "text", "text": "two"},
        ],
        "structuredContent": {"n": 2},
    }
    result = ToolResult.of(raw)
    assert (result.text, result.structured_content, result.is_error) == (
        "one\ntwo",
        {"n": 2},
        False,
    )
    assert result.raw is raw and len(result.content) == 3
    assert "raw" not in repr(result)
    broken = ToolResult.of({"content": "not a list", "isError": True})
    assert (broken.content, broken.text, broken.is_error) == ([], "", True)


def test_a_resource_and_a_prompt_result_join_their_text() -> None:
    read = ResourceResult.of(
        {
            "contents": [
                {"uri": "file:///a", "text": "A"},
                {"uri": "file:///b", "blob": "Qg=="},
                {"uri": "file:///c", "text": "C"},
            ]
        }
    )
    assert read.text == "A\nC" and len(read.contents) == 3
    got = PromptResult.of(
        {
            "description": "hi",
            "messages": [
                {"role": "user", "content": {"type": "text", "text": "first"}},
                {"role": "assistant", "content": {"type": "image", "data": "", "mimeType": "x"}},
                {"role": "user", "content": {"type": "text", "text": "second"}},
            ],
        }
    )
    assert (got.text, got.description) == ("first\nsecond", "hi")
    assert PromptResult.of({"messages": None, "description": 3}).description is None


def test_a_json_rpc_error_says_what_was_asked_and_survives_pickling() -> None:
    error = McpRpcError("tools/call", "lookup", -32602, "Unknown tool", {"name": "lookup"})
    assert str(error) == "tools/call lookup: JSON-RPC error -32602: Unknown tool"
    again = pickle.loads(pickle.dumps(error))
    assert (again.code, again.message, again.data, again.method) == (
        -32602,
        "Unknown tool",
        {"name": "lookup"},
        "tools/call",
    )


def test_a_failed_check_reads_as_the_items_report() -> None:
    server = ManagedServer(ServerCommand(("python", "shop.py")), 1.0, 1.0, 1024)
    report = FailureReport.for_tool(
        server, "quote", "contract", "the call killed the server", FailureKind.CRASH
    )
    failed = CheckFailed(report)
    assert str(failed) == report.render()
    assert str(failed).startswith("the call killed the server\n")
    assert (failed.kind, failed.severity) == ("crash", "critical")
    assert str(pickle.loads(pickle.dumps(failed))) == report.render()


def test_the_public_names_are_the_packages() -> None:
    assert pytest_mcp_contracts.CheckFailed is CheckFailed
    assert pytest_mcp_contracts.ServerUnderTest is ServerUnderTest
    # As pytest prints a failure's exception: "pytest_mcp_contracts.CheckFailed: ..."
    assert f"{CheckFailed.__module__}.{CheckFailed.__qualname__}" == (
        "pytest_mcp_contracts.CheckFailed"
    )


class _Run:
    """A RunContext without a run: no recorder, no sandbox, no hooks."""

    lints = None
    recorder = None
    sandbox = None
    fresh_possible = False
    drift_hint = ""

    def __init__(self, examples: list[dict[str, Any]] | None = None) -> None:
        self._examples = examples or []

    def warn_only(self, tool: Entry) -> frozenset[str]:
        return frozenset()

    def overrides(self, tool: Entry) -> Any:
        return None

    def examples(self, tool: Entry) -> list[dict[str, Any]]:
        return self._examples

    def sandbox_paths(self, tool: Entry) -> None:
        return None

    def fresh(self) -> None:
        raise AssertionError("nothing is called here")


ADD = Entry(
    EntryKind.TOOL,
    "add",
    "add",
    {
        "name": "add",
        "inputSchema": {
            "type": "object",
            "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
            "required": ["a", "b"],
        },
    },
)


def server_under_test(run: _Run | None = None, **listed: Any) -> ServerUnderTest:
    """A ServerUnderTest over a server that is never started: it lists ``add`` (and what
    ``listed`` gives), and any request it sent would fail (no connection)."""
    server = ManagedServer(ServerCommand(("python", "shop.py")), 1.0, 1.0, 1024)
    server.surface = ServerSurface("shop", "shop", "1", "2026-07-28", (ADD,), **listed)
    server.node_name = "shop"
    return ServerUnderTest(server, run or _Run())


def test_check_refuses_an_input_its_schema_refuses_before_calling() -> None:
    sut = server_under_test()
    with pytest.raises(ValueError, match=r"^check\('add', .*\$\.a: 'x' is not of type 'integer'"):
        sut.check("add", {"a": "x", "b": 1})
    with pytest.raises(ValueError, match="the input: 'b' is a required property"):
        sut.check("add", {"a": 1})
    assert sut.calls == 0


def test_a_name_the_server_does_not_list_says_what_it_lists() -> None:
    sut = server_under_test()
    with pytest.raises(LookupError) as unknown:
        sut.check("ad", {"a": 1, "b": 2})
    assert str(unknown.value) == (
        "check('ad'): the server shop lists no tool named \"ad\"; did you mean 'add'? "
        "(it lists: add); call() and get() send any name"
    )
    with pytest.raises(LookupError, match=r'lists no prompt named "greet".*it lists: none'):
        sut.check_get("greet")


def test_a_malformed_listing_entry_cannot_be_checked() -> None:
    broken = Entry(
        EntryKind.TOOL, "bad", "bad", {"name": "bad", "inputSchema": "object"}, ("no schema",)
    )
    server = ManagedServer(ServerCommand(("python", "shop.py")), 1.0, 1.0, 1024)
    server.surface, server.node_name = ServerSurface("shop", "shop", "1", "v", (broken,)), "shop"
    with pytest.raises(ValueError, match=r"malformed.*mcp:shop::bad::schema"):
        ServerUnderTest(server, _Run()).inputs("bad")


def test_inputs_are_valid_and_hold_the_examples() -> None:
    """The contract item's strategy, its examples first: hypothesis tries the simplest draw
    first, which is the first example."""
    sut = server_under_test(_Run([{"a": 40, "b": 2}]))
    strategy = sut.inputs("add")
    assert find(strategy, lambda arguments: True) == {"a": 40, "b": 2}
    found = find(strategy, lambda arguments: arguments["a"] != 40)
    assert isinstance(found["a"], int) and isinstance(found["b"], int)


def test_a_uri_is_read_as_its_resource_or_the_template_that_makes_it() -> None:
    readme = Entry(EntryKind.RESOURCE, "file:///readme.md", "readme", {"uri": "file:///readme.md"})
    profile = Entry(
        EntryKind.TEMPLATE, "users://{id}/profile", "profile", {"uriTemplate": "users://{id}/p"}
    )
    sut = server_under_test(resources=(readme,), templates=(profile,))
    assert sut._resource("file:///readme.md") == (readme, True, {"uri": "file:///readme.md"})
    assert sut._resource("users://al%20ice/profile") == (profile, True, {"id": "al ice"})
    entry, listed, values = sut._resource("other://x")
    assert (entry.kind, entry.key, entry.node_name, listed) == ("resource", "other://x", "", False)
    assert values == {"uri": "other://x"}
    assert (sut.resources, sut.templates, sut.prompts, sut.tools) == (
        ("file:///readme.md",),
        ("users://{id}/profile",),
        (),
        ("add",),
    )


def test_check_get_refuses_arguments_the_prompt_does_not_take() -> None:
    prompt = Entry(
        EntryKind.PROMPT,
        "greet",
        "greet",
        {"name": "greet", "arguments": [{"name": "name", "required": True}]},
    )
    sut = server_under_test(prompts=(prompt,))
    with pytest.raises(ValueError, match="'name' is a required property"):
        sut.check_get("greet", {})
    with pytest.raises(ValueError, match=r"\$\.name: 3 is not of type 'string'"):
        sut.check_get("greet", {"name": 3})  # type: ignore[dict-item]


def test_check_refuses_a_tool_only_tasks_may_call() -> None:
    """A tool with taskSupport "required" on a server that offers tasks must refuse a plain
    call: check says so instead of judging the refusal (call still sends it)."""
    research = Entry(
        EntryKind.TOOL,
        "research",
        "research",
        {
            "name": "research",
            "inputSchema": {"type": "object"},
            "execution": {"taskSupport": "required"},
        },
    )
    server = ManagedServer(ServerCommand(("python", "shop.py")), 1.0, 1.0, 1024)
    tasks = {"tasks": {"requests": {"tools": {"call": {}}}}}
    server.surface = ServerSurface("shop", "shop", "1", "2025-11-25", (research,), tasks)
    server.node_name = "shop"
    with pytest.raises(ValueError, match=r"^check\('research'\): the tool declares execution"):
        ServerUnderTest(server, _Run()).check("research", {})


class _Recorder:
    """A recorder whose content contracts must never be shown a result."""

    def recorded(self, server: str, entry: Any) -> Any:
        class Content:
            def observe(self, arguments: Any, result: Any) -> list[Any]:
                raise AssertionError(f"observed {result}")

        return Content()


def test_check_read_keeps_a_refusal_in_words_out_of_the_content_contract() -> None:
    """A template that answers ``{"error": ...}`` refused in words: the read item leaves such
    an answer out of the content contract (reads.ContentRun.count), and so does check_read,
    which returns it instead of judging it as content."""
    profile = Entry(
        EntryKind.TEMPLATE, "users://{id}/profile", "profile", {"uriTemplate": "users://{id}/p"}
    )
    run = _Run()
    run.recorder = _Recorder()  # type: ignore[assignment]
    sut = server_under_test(run, templates=(profile,))
    request = {"method": "resources/read", "params": {"uri": "users://7/profile"}}
    contents = [{"uri": "users://7/profile", "text": '{"error": "user 7 not found"}'}]
    refused = conforming({"contents": contents}, request["method"])
    outcome = CallOutcome({"uri": "users://7/profile"}, request, result=refused)
    sut._judge_content(profile, outcome, "read")  # no AssertionError: nothing observed
    answered = {**refused, "contents": [{"uri": "users://7/profile", "text": '{"id": "7"}'}]}
    with pytest.raises(AssertionError, match="observed"):
        sut._judge_content(
            profile, CallOutcome(outcome.arguments, request, result=answered), "read"
        )
