"""runs/context.py: what the run decides for one server's checks, without pytest: the
tool's own table and refusal, the conftest hooks' strategies merged, the examples as a
hand-written test meets them, the roots sandbox, and how a server is had fresh."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import strategies as st

from pytest_mcp_contracts.contracts.record import Recorder
from pytest_mcp_contracts.contracts.snapshot import SnapshotStore
from pytest_mcp_contracts.inputs.user_strategies import UserStrategyError
from pytest_mcp_contracts.judges.failures import ContractFailure, FailureKind
from pytest_mcp_contracts.project import ToolConfig
from pytest_mcp_contracts.pytest.settings import Settings
from pytest_mcp_contracts.runs.context import RunContext, Skipped, Unusable
from pytest_mcp_contracts.runs.server_items import simplest
from pytest_mcp_contracts.runs.tool_items import RememberedInput
from pytest_mcp_contracts.transport.discover import Entry, ServerSurface
from pytest_mcp_contracts.transport.stdio import ServerCommand
from pytest_mcp_contracts.vocabulary import EntryKind, SnapshotMode

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
        "annotations": {"readOnlyHint": True},
    },
)
DELETE = Entry(
    EntryKind.TOOL,
    "delete",
    "delete",
    {"name": "delete", "inputSchema": {"type": "object"}, "annotations": {}},
)


class FakeServer:
    """Enough of a ManagedServer for the context: its surface, and a restart that counts."""

    def __init__(self, command: Any = None) -> None:
        self.command = command or ServerCommand(("python", "shop.py"))
        self.surface = ServerSurface("shop", "shop", "1", "2026-07-28", (ADD, DELETE))
        self.node_name = "shop"
        self.protocol_version = "2026-07-28"
        self.untouched = True
        self.opened_at = 0.0
        self.restarts = 0
        self.events: list[str] = []

    def for_this_worker(self, text: str) -> str:
        return text.replace("{worker}", "main")

    def start_fresh(self) -> None:
        # The transport's restart on purpose, which it does not count among the restarts
        # (tests/unit/transport/test_restarts.py holds it to that).
        self.events.append("start_fresh")


def settings(tmp_path: Path, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "servers": (),
        "max_examples": 10,
        "call_policy": "all",
        "call_timeout": 1.0,
        "rejects_invalid": "warn",
        "security": "on",
        "startup_timeout": 1.0,
        "max_result_bytes": 1 << 20,
        "max_restarts": 3,
        "snapshot_dir": tmp_path,
        "mode": SnapshotMode.RECORD,
        "export_dir": None,
        "strict": False,
    }
    return Settings(**{**values, **overrides})


def context(tmp_path: Path, server: Any = None, **overrides: Any) -> RunContext:
    answers = overrides.pop("strategy_answers", lambda server, tool: ())
    mode = overrides.get("mode", SnapshotMode.RECORD)
    return RunContext(
        server or FakeServer(),
        settings(tmp_path, **overrides),
        Recorder(SnapshotStore(tmp_path / "contracts"), mode),
        strategy_answers=answers,
        record_command="pytest --mcp-server='python shop.py'",
        accept_command="accept it: pytest --mcp-snapshot-update",
    )


def test_a_tool_table_or_the_call_policy_skips_the_tool(tmp_path: Path) -> None:
    tools = {"delete": ToolConfig(skip=True), "shop/add": ToolConfig(max_examples=3)}
    run = context(tmp_path, tools=tools)
    assert run.callable_settings(ADD).max_examples == 3  # "server/tool" first
    with pytest.raises(Skipped, match="skip"):
        run.callable_settings(DELETE)
    readonly = context(tmp_path, call_policy="readonly")
    assert readonly.refusal(ADD) is None
    assert readonly.refusal(DELETE) is not None
    with pytest.raises(Skipped):
        readonly.callable_settings(DELETE)


def test_the_hooks_strategies_merge_by_property_or_stand_alone(tmp_path: Path) -> None:
    a, b = st.just(1), st.just(2)

    def run(*answers: Any) -> RunContext:
        return context(tmp_path, strategy_answers=lambda server, tool: answers)

    assert run().user_strategies(ADD) is None
    assert run({"a": a}, {"b": b}).user_strategies(ADD) == {"a": a, "b": b}
    assert run(a).user_strategies(ADD) is a
    with pytest.raises(UserStrategyError, match=r"two implementations supply \['a'\]"):
        run({"a": a}, {"a": b}).user_strategies(ADD)
    with pytest.raises(UserStrategyError, match="more than one implementation"):
        run(a, {"b": b}).user_strategies(ADD)
    # As a hand-written test meets it: a ValueError, the same words.
    with pytest.raises(ValueError, match="more than one implementation"):
        run(a, b).overrides(ADD)
    asked: list[tuple[str, str]] = []
    context(tmp_path, strategy_answers=lambda s, t: asked.append((s, t.name)) or ()).overrides(ADD)
    assert asked == [("shop", "add")]  # by the server's name


def test_a_configured_example_the_schema_refuses_is_the_users_mistake(tmp_path: Path) -> None:
    tools = {"add": ToolConfig(examples=({"a": 1, "b": 2}, {"a": "x", "b": 2}))}
    run = context(tmp_path, tools=tools)
    assert run.given(ADD).inputs == [{"a": 1, "b": 2}]
    assert run.given(ADD).refused_configured is not None
    with pytest.raises(ValueError, match="configured example 2 is not valid for the inputSchema"):
        run.examples(ADD)


def test_no_sandbox_no_paths_and_no_sandbox_count(tmp_path: Path) -> None:
    run = context(tmp_path)
    assert run.laid_sandbox() is None and run.laid_sandbox(ADD) is None
    assert run.sandbox_paths(ADD) is None and run.sandbox_test() is None
    assert run.drift_hint == "if the change is intended, accept it: pytest --mcp-snapshot-update"
    assert run.lints == run.settings.lint_levels


def test_a_sandbox_that_cannot_be_laid_fails_as_the_run_says(tmp_path: Path) -> None:
    from pytest_mcp_contracts.inputs.sandbox import Sandbox, SandboxError

    class Broken(Sandbox):
        def lay(self) -> None:
            raise SandboxError("the roots folder is gone")

    run = context(tmp_path)
    run.sandbox = Broken(tmp_path / "root", None)
    with pytest.raises(Unusable, match="the roots folder is gone"):
        run.laid_sandbox()

    said: list[str] = []

    def fail(text: str) -> Any:
        said.append(text)
        raise KeyboardInterrupt  # anything the pytest layer raises goes through

    run.unusable = fail
    with pytest.raises(KeyboardInterrupt):
        run.fresh()
    assert said == ["the roots folder is gone"]


def test_an_untouched_server_is_not_restarted_for_a_fresh_one(tmp_path: Path) -> None:
    server = FakeServer()
    run = context(tmp_path, server)
    run.fresh()
    assert server.events == []
    server.untouched = False
    run.fresh()
    # A restart on purpose: the transport's uncounted one, not a close and reconnect.
    assert (server.events, server.restarts) == (["start_fresh"], 0)


def test_the_reset_command_runs_first_and_its_failure_is_a_setup_failure(tmp_path: Path) -> None:
    server = FakeServer()
    marker = tmp_path / "reset-{worker}"
    ok = f"{sys.executable} -c \"open(r'{marker}', 'w')\""
    context(tmp_path, server, reset_command=ok).fresh()
    assert (tmp_path / "reset-main").exists()  # {worker} is this worker's
    assert server.events == ["start_fresh"]  # a reset command always restarts
    failing = f"{sys.executable} -c \"import sys; sys.exit('no database')\""
    with pytest.raises(ContractFailure) as caught:
        context(tmp_path, FakeServer(), reset_command=failing).fresh("sequences")
    report = caught.value.report
    assert (report.check, report.tool, caught.value.kind) == ("sequences", "(all)", "setup")
    assert report.problem == "--mcp-reset-command failed with exit status 1"
    assert report.details[-1] == "no database"
    assert caught.value.kind is FailureKind.SETUP


def test_a_fresh_server_is_possible_for_a_command_or_with_a_reset_command(tmp_path: Path) -> None:
    class Url:
        noun = "url"

    assert context(tmp_path).fresh_possible
    assert not context(tmp_path, FakeServer(Url())).fresh_possible
    assert context(tmp_path, FakeServer(Url()), reset_command="true").fresh_possible


def test_the_simplest_input_or_none_when_there_is_none() -> None:
    found = simplest(st.fixed_dictionaries({"n": st.integers(min_value=3)}))
    assert found == {"n": 3}
    assert simplest(st.nothing()) is None


class _Cache:
    def __init__(self) -> None:
        self.values: dict[str, object] = {}

    def get(self, key: str, default: object) -> object:
        return self.values.get(key, default)

    def set(self, key: str, value: object) -> None:
        self.values[key] = value


def test_an_input_remembered_without_a_sandbox_is_not_one_for_a_run_with_one() -> None:
    """rejects_invalid's valid input, kept in pytest's cache: a run with a roots sandbox finds
    another one (a real file) than a run without, so each keeps its own."""
    cache = _Cache()
    schema = {"type": "object", "properties": {"path": {"type": "string"}}}
    without = RememberedInput(cache, schema, frozenset(), "1.0")
    without.keep({"path": "a"})
    assert RememberedInput(cache, schema, frozenset(), "1.0").value == {"path": "a"}
    assert (
        RememberedInput(cache, schema, frozenset({"/tmp/sandbox/notes.txt"}), "1.0").value is None
    )
    # Without a cache (-p no:cacheprovider) nothing is kept.
    nowhere = RememberedInput(None, schema, frozenset(), "1.0")
    nowhere.keep({"path": "a"})
    assert nowhere.value is None
    # Nor is one kept by another version of the plugin used.
    assert RememberedInput(cache, schema, frozenset(), "1.1").value is None
