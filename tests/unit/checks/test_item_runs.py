"""The checks as their items run them (runs/tool_items, server_runs, content_runs), over a
RunContext and an in-memory server: the skips, the verdicts the items used to make (a
contract missing in CI, invalid inputs accepted: a failure or a warning), and what each
leaves on its item's report."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from pytest_mcp_contracts.inputs.invalid import InvalidInput
from pytest_mcp_contracts.judges.failures import ContractFailure, FailureKind
from pytest_mcp_contracts.project import ToolConfig
from pytest_mcp_contracts.runs.content_items import check_read, missing_content
from pytest_mcp_contracts.runs.context import ItemFacts, RunContext, Skipped
from pytest_mcp_contracts.runs.rejects_invalid import Refusals
from pytest_mcp_contracts.runs.server_items import check_server_sequences, check_server_stdout
from pytest_mcp_contracts.runs.tool_items import (
    accepts_invalid,
    check_contract,
    check_rejects_invalid,
    missing_record,
)
from pytest_mcp_contracts.transport.discover import Entry
from pytest_mcp_contracts.transport.managed import CallOutcome
from pytest_mcp_contracts.vocabulary import EntryKind, SnapshotMode
from tests.conforming import conforming
from tests.unit.checks.test_context import ADD, DELETE, FakeServer, context


class AcceptingServer(FakeServer):
    """An in-memory server whose tools take any input and answer it as a success."""

    def __init__(self) -> None:
        super().__init__()
        self.sent: list[dict[str, Any]] = []
        self.startup_stdout: tuple[int, list[str]] = (0, [])

    def call(self, tool: str, arguments: dict[str, Any], **kwargs: Any) -> CallOutcome:
        self.sent.append(arguments)
        request = {"method": "tools/call", "params": {"name": tool, "arguments": arguments}}
        self.untouched = False
        answer = {"content": [{"type": "text", "text": "7"}]}
        return CallOutcome(
            arguments, request, result=conforming(answer, version=self.protocol_version)
        )

    def live_connection(self) -> object:
        return self

    def revive(self) -> None:
        pass

    def stderr_tail(self) -> str:
        return ""


class Said:
    def __init__(self) -> None:
        self.warnings: list[tuple[str, bool]] = []

    def __call__(self, message: str, *, lint: bool = False) -> None:
        self.warnings.append((message, lint))


def test_rejects_invalid_warns_of_accepted_inputs_and_counts_them(tmp_path: Path) -> None:
    server = AcceptingServer()
    facts, said = ItemFacts(), Said()
    check_rejects_invalid(context(tmp_path, server), ADD, facts, said)
    assert server.sent, "the invalid inputs were sent"
    properties = dict(facts.properties)
    assert properties["mcp_invalid_sent"] == len(server.sent)
    assert properties["mcp_invalid_accepted"] > 0
    assert [title for title, _ in facts.sections] == ["mcp"]
    assert facts.stats is not None and facts.stats.tool("add").invalid_calls == len(server.sent)
    (warning, lint), *others = said.warnings
    assert not others and not lint
    assert warning.startswith("accepts invalid input: ")
    assert warning.endswith("--mcp-rejects-invalid=fail makes this a failure")


def test_rejects_invalid_fails_on_accepted_inputs_when_told_to(tmp_path: Path) -> None:
    tools = {"add": ToolConfig(rejects_invalid="fail")}  # the tool's table wins
    facts, said = ItemFacts(), Said()
    with pytest.raises(ContractFailure) as caught:
        check_rejects_invalid(context(tmp_path, AcceptingServer(), tools=tools), ADD, facts, said)
    assert caught.value.kind is FailureKind.ACCEPTS_INVALID
    assert caught.value.report.check == "rejects_invalid"
    assert said.warnings == []
    assert dict(facts.properties)["mcp_invalid_accepted"] > 0  # counted all the same


def test_rejects_invalid_skips_when_off_or_nothing_is_invalid(tmp_path: Path) -> None:
    with pytest.raises(Skipped, match=r"^--mcp-rejects-invalid=off$"):
        check_rejects_invalid(
            context(tmp_path, AcceptingServer(), rejects_invalid="off"), ADD, ItemFacts(), Said()
        )
    with pytest.raises(Skipped, match=r"^no input is certainly invalid"):
        check_rejects_invalid(context(tmp_path, AcceptingServer()), DELETE, ItemFacts(), Said())


def test_the_accepts_invalid_verdict(tmp_path: Path) -> None:
    run = context(tmp_path)
    outcome = CallOutcome({"a": "x"}, {"method": "tools/call"}, result={"content": []})
    case = InvalidInput({"a": "x", "b": 1}, "a is not an integer", "a")
    refusals = Refusals(planned=2, sent=2)
    assert accepts_invalid(run, ADD, refusals, "fail") is None
    refusals.accepted.append((case, outcome))
    words = accepts_invalid(run, ADD, refusals, "warn")
    assert words == (
        "accepts invalid input: 1 of 2 inputs the inputSchema refuses returned a success "
        'result (first: a is not an integer: {"a": "x", "b": 1}); --mcp-rejects-invalid=fail '
        "makes this a failure"
    )
    failure = accepts_invalid(run, ADD, refusals, "fail")
    assert isinstance(failure, ContractFailure)
    assert failure.report.problem == words.partition(" (first")[0]  # type: ignore[union-attr]
    assert failure.report.details[0] == 'a is not an integer: {"a": "x", "b": 1}'


def test_a_contract_missing_in_ci_is_a_failure_that_says_how_to_record_it(
    tmp_path: Path,
) -> None:
    assert missing_record(context(tmp_path), ADD, has_record=False) is None  # recorded here
    ci = context(tmp_path, mode=SnapshotMode.CI)
    assert missing_record(ci, ADD, has_record=True) is None
    failure = missing_record(ci, ADD, has_record=False)
    assert failure is not None and failure.kind is FailureKind.MISSING_RECORD
    assert failure.report.problem.startswith("no contract is recorded for this tool (")
    assert failure.report.details == (
        "record it locally with: pytest --mcp-server='python shop.py'  and commit the file",
    )
    readme = Entry(EntryKind.RESOURCE, "file:///readme.md", "readme", {"uri": "file:///readme.md"})
    text_only = SimpleNamespace(has_record=False, observations=0)
    assert missing_content(ci, readme, "read", text_only) is None  # type: ignore[arg-type]
    json_content = SimpleNamespace(has_record=False, observations=1)
    found = missing_content(ci, readme, "read", json_content)  # type: ignore[arg-type]
    assert found is not None and found.kind is FailureKind.MISSING_RECORD
    assert (found.report.subject, found.report.tool) == ("resource", "file:///readme.md")
    assert "no content contract is recorded for this resource" in found.report.problem


def test_a_tool_not_to_call_is_skipped_before_the_recorder_hears_of_it(tmp_path: Path) -> None:
    run = context(tmp_path, AcceptingServer(), tools={"add": ToolConfig(skip=True)})
    facts = ItemFacts()
    with pytest.raises(Skipped):
        check_contract(run, ADD, facts, Said())
    assert run.recorder.observed == {} and facts.stats is None


def test_a_listed_entry_a_table_skips_is_not_read(tmp_path: Path) -> None:
    readme = Entry(EntryKind.RESOURCE, "file:///readme.md", "readme", {"uri": "file:///readme.md"})
    run = context(tmp_path, listed_skips=frozenset({("resource", "file:///readme.md")}))
    with pytest.raises(Skipped) as caught:
        check_read(run, readme, ItemFacts(), Said())
    assert str(caught.value) == (
        'skipped by [tool.mcp-contracts.resources."file:///readme.md"] skip = true'
    )


def test_sequences_skip_when_no_tool_can_be_called(tmp_path: Path) -> None:
    tools = {"add": ToolConfig(skip=True), "delete": ToolConfig(call="readonly")}
    facts = ItemFacts()
    with pytest.raises(Skipped, match=r"^no tool can be called"):
        check_server_sequences(context(tmp_path, AcceptingServer(), tools=tools), facts)
    assert facts.stats is None


def test_a_banner_on_stdout_fails_the_server(tmp_path: Path) -> None:
    server = AcceptingServer()
    run: RunContext = context(tmp_path, server)
    check_server_stdout(run)  # nothing printed
    server.startup_stdout = (2, ["Starting shop", "ready"])
    with pytest.raises(ContractFailure) as caught:
        check_server_stdout(run)
    assert (caught.value.report.tool, caught.value.report.check) == ("(all)", "stdout")
