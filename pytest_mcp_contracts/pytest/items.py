"""The pytest side: a collector per server and per tool, and one item per check.

Node ids read ``mcp:<server>::<tool>::<check>``, so ``-k``, ``--deselect``, ``--lf`` and JUnit
all see one stable name per check.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

import pytest

from pytest_mcp_contracts.checks.failures import (
    ContractFailure,
    FailureKind,
    FailureReport,
    Finding,
)
from pytest_mcp_contracts.checks.stats import CheckStats
from pytest_mcp_contracts.pytest.keys import (
    CONTEXTS_KEY,
    RECORDER_KEY,
    SANDBOX_KEY,
    SETTINGS_KEY,
    WARNED_RULES_KEY,
)
from pytest_mcp_contracts.reporting.failure import (
    accept_command,
    rerun_command,
)
from pytest_mcp_contracts.text import shown
from pytest_mcp_contracts.transport.discover import (
    ListedSpec,
    ListingFailure,
    PromptSpec,
    ResourceSpec,
    ServerSurface,
    TemplateSpec,
    ToolSpec,
)
from pytest_mcp_contracts.transport.managed import ManagedServer, tool_refusal
from pytest_mcp_contracts.vocabulary import (
    MAX_RESOURCE_READS,
    NODE_PREFIX,
    Check,
    SnapshotMode,
)

# Collection builds items and nothing else: each item imports its check when it runs, so
# that `--collect-only`, `-k schema` or `-k drift` load no more of the plugin than they use.
if TYPE_CHECKING:
    from pytest_mcp_contracts.checks.context import ItemFacts, RunContext, Warn
    from pytest_mcp_contracts.project import ToolConfig


class McpContractWarning(pytest.PytestWarning):
    """Something a server author should look at that does not fail the run, unless the run
    says so: ``-W error::pytest_mcp_contracts.McpContractWarning``."""


class McpLintWarning(pytest.PytestWarning):
    """A lint (checks/lints) at its default level. Not a McpContractWarning: a run that
    makes those errors with -W does not turn every lint into a collection error; a lint
    becomes a failure of its item with ``--mcp-lints=<id>:error``."""


class _ServerNode(pytest.Collector):
    """A top-level collector named ``mcp:<server>``; its node id is not a file path."""

    @classmethod
    def create(cls, parent: pytest.Session, node_name: str, **kwargs: Any) -> Self:
        name = NODE_PREFIX + node_name
        return cls.from_parent(parent, name=name, nodeid=name, **kwargs)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, self.name


class ServerCollector(_ServerNode):
    """One running MCP server: its tools are the children."""

    def __init__(self, *, server: ManagedServer, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.server = server

    def collect(self) -> Iterator[pytest.Item | pytest.Collector]:
        surface = self.server.surface
        assert surface is not None
        self._warn_once(self.server.probe_warning())
        self._warn_once(self.server.state_warning())
        # Lint warnings are said here, one per lint for the whole server, so that 30 tools
        # without annotations make one warning; a lint made an error fails the schema item.
        from pytest_mcp_contracts.checks.lints import grouped_warnings

        levels = self.config.stash[SETTINGS_KEY].lint_levels
        for line in grouped_warnings(surface.tools, levels):
            self._warn_once(line, McpLintWarning)
        if self.server.startup_stdout[0]:
            # Only a server that printed while it started has this item, so every other
            # run keeps its items. Under xdist each worker's process of it prints alike, so
            # each collects it (a server whose start-up output varies by process gets
            # xdist's "different tests were collected" error: loud, never a silent pass).
            yield StdoutItem.from_parent(self, name=StdoutItem.check)
        if self.config.stash[SETTINGS_KEY].sequences:
            # First: its sequences start from a fresh server, which the server is before any
            # tool's item calls it (fresh_server then restarts nothing); run after other
            # items (-p randomly, a conftest that reorders), it restarts the server first.
            yield SequencesItem.from_parent(self, name=SequencesItem.check)
        for tool in surface.tools:
            yield ToolCollector.from_parent(self, name=tool.node_name, tool=tool)
        # A recorded tool the server no longer lists keeps a drift item: its removal breaks
        # clients until it is accepted.
        recorder = self.config.stash[RECORDER_KEY]
        for name in recorder.stale(self.server.node_name, surface):
            yield RemovedToolCollector.from_parent(self, name=name)
        # Prompts, resources and templates, and each listing the server declared but did
        # not answer (so that its failure hides none of the tools).
        for failure in surface.listing_failures:
            yield ListedCollector.from_parent(self, name=failure.node, entry=failure)
        unread = {id(entry) for entry in surface.resources[MAX_RESOURCE_READS:]}
        if len(surface.resources) > MAX_RESOURCE_READS:
            self._warn_once(
                f"only the first {MAX_RESOURCE_READS} of its {len(surface.resources)} listed "
                "resources are read (each has its schema item; the others have no read item)"
            )
        for entry in surface.listed:
            calls = id(entry) not in unread
            yield ListedCollector.from_parent(self, name=entry.node, entry=entry, calls=calls)
        # A recorded prompt, resource or template the server no longer lists, as tools'.
        from pytest_mcp_contracts.contracts.record import listed_kind

        for file in recorder.stale_listed(self.server.node_name, surface):
            name = f"{listed_kind(file)}:{file.rpartition('/')[2]}"
            yield RemovedListedCollector.from_parent(self, name=name, file=file)

    def repr_failure(
        self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None
    ) -> str | Any:
        if isinstance(excinfo.value, (McpContractWarning, McpLintWarning)):  # -W error::...
            return one_line_summary(excinfo, "(a warning, made an error by -W or filterwarnings)")
        return super().repr_failure(excinfo)

    def _warn_once(
        self, message: str | None, category: type[pytest.PytestWarning] = McpContractWarning
    ) -> None:
        """A warning about the server, located at its node. Under xdist every worker starts
        the server and collects it: the first worker alone says it, so it is said once."""
        worker = getattr(self.config, "workerinput", {}).get("workerid", "gw0")
        if message is None or worker != "gw0":
            return
        assert self.server.surface is not None
        warnings.warn_explicit(
            category(f"{shown(self.server.surface.name)}: {message}"),
            category,
            filename=self.nodeid,
            lineno=0,
            module=__name__,
        )


class ServerStartFailure(_ServerNode):
    """Stands for a server that did not start, so that the failure is one collection error."""

    def __init__(self, *, message: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.message = message

    def collect(self) -> Iterator[pytest.Item]:
        raise self.CollectError(self.message)

    def repr_failure(
        self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None
    ) -> str | Any:
        return one_line_summary(excinfo)


class ToolCollector(pytest.Collector):
    def __init__(self, *, tool: ToolSpec, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.tool = tool

    def collect(self) -> Iterator[pytest.Item]:
        yield SchemaItem.from_parent(self, name=SchemaItem.check, tool=self.tool)
        yield DriftItem.from_parent(self, name=DriftItem.check, tool=self.tool)
        yield ContractItem.from_parent(self, name=ContractItem.check, tool=self.tool)
        yield RejectsInvalidItem.from_parent(self, name=RejectsInvalidItem.check, tool=self.tool)


class ListedCollector(pytest.Collector):
    """A prompt, resource or template (``<kind>:<key>``), or a listing of them the server
    declared and did not answer (``listing:<kind>s``): its ``schema`` item, then an entry's
    ``drift`` item and its call item: a resource's or template's ``read``, a prompt's ``get``."""

    def __init__(
        self, *, entry: ListedSpec | ListingFailure, calls: bool = True, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.entry = entry
        self.calls = calls  # False: a resource past the read cap (checks/reads)

    def collect(self) -> Iterator[pytest.Item]:
        yield ListedSchemaItem.from_parent(self, name=ListedSchemaItem.check, entry=self.entry)
        if isinstance(self.entry, ListedSpec):
            yield ListedDriftItem.from_parent(self, name=ListedDriftItem.check, entry=self.entry)
        if not self.calls:
            return
        if isinstance(self.entry, PromptSpec):
            yield GetItem.from_parent(self, name=GetItem.check, entry=self.entry)
        elif isinstance(self.entry, (ResourceSpec, TemplateSpec)):
            yield ReadItem.from_parent(self, name=ReadItem.check, entry=self.entry)


class RemovedListedCollector(pytest.Collector):
    """A prompt, resource or template recorded in the snapshot folder that the server no
    longer lists (``file``: ``<folder>/<node>`` in its server's folder)."""

    def __init__(self, *, file: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.file = file

    def collect(self) -> Iterator[pytest.Item]:
        yield RemovedListedItem.from_parent(self, name=Check.DRIFT.value)


class RemovedToolCollector(pytest.Collector):
    """A tool recorded in the snapshot folder that the server no longer lists."""

    def collect(self) -> Iterator[pytest.Item]:
        yield RemovedToolItem.from_parent(self, name=Check.DRIFT.value)


def one_line_summary(excinfo: pytest.ExceptionInfo[BaseException], *notes: str) -> Any:
    """A failure shown as its own text (no traceback), summed up by its first line.

    A plain string would do locally, but under CI pytest's short summary prints a string
    failure whole; a failure report's crash message is what it prints instead, and what JUnit
    uses as the failure message. The report survives xdist's serialization."""
    error = excinfo.value
    text = error.report.render() if isinstance(error, ContractFailure) else str(error)
    lines = [*text.splitlines(), *notes]
    rendered = excinfo.getrepr(style="value", chain=False)
    rendered.reprtraceback.reprentries[-1].lines = lines
    if rendered.reprcrash is not None:
        rendered.reprcrash.message = next((line for line in lines if line.strip()), "")
    return rendered


class _RendersFailures(pytest.Item):
    """A ContractFailure is shown as its report: the problem first, no traceback."""

    # What the item's check counted: the plugin puts it on the item's test report.
    mcp_stats: CheckStats | None = None
    # The schema check's findings as JSON records (reporting/findings), for its test report.
    mcp_findings: list[dict[str, Any]] | None = None

    def repr_failure(
        self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None
    ) -> str | Any:
        if isinstance(excinfo.value, ContractFailure):
            return one_line_summary(excinfo)
        if isinstance(excinfo.value, McpContractWarning):  # -W error::...McpContractWarning
            return one_line_summary(excinfo, "(a warning, made an error by -W or filterwarnings)")
        return super().repr_failure(excinfo, style=style)

    def _carry_findings(
        self,
        findings: list[Finding],
        said: list[Finding],
        server: ManagedServer,
        warn: Callable[[str], None],
        fail: Callable[[str, tuple[str, ...], FailureKind], ContractFailure],
        others: str = "tools",
    ) -> None:
        """Every finding rides on the report (the run report and the summaries list them),
        the warnings among ``said`` are said through ``warn`` (a rule once per server), and
        the first error fails the item, the others its details."""
        from pytest_mcp_contracts.reporting.findings import finding_record, warnings_to_raise

        self.mcp_findings = [finding_record(f) for f in findings]
        warned = self.config.stash.setdefault(WARNED_RULES_KEY, set())
        for message in warnings_to_raise(said, server.node_name, warned, others):
            warn(message)
        errors = [f for f in findings if f.severity == "error"]
        if errors:
            lines = tuple(line for f in errors[1:] for line in f.render().splitlines())
            raise fail(errors[0].render(), lines, errors[0].kind)


def _server_of(item: pytest.Item) -> ManagedServer:
    """The server of an item under one of its entries (a tool's, a prompt's, ...)."""
    collector = item.parent.parent if item.parent is not None else None
    assert isinstance(collector, ServerCollector)
    return collector.server


class _McpItem(_RendersFailures):
    check = ""

    def __init__(self, *, tool: ToolSpec, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.tool = tool
        self.server = _server_of(self)
        self.user_properties.append(("mcp_tool", tool.name))
        self.user_properties.append(("mcp_check", self.check))

    @property
    def surface(self) -> ServerSurface:
        assert self.server.surface is not None
        return self.server.surface

    @property
    def label(self) -> str:
        """Server and tool as they are safe to print."""
        return f"{shown(self.surface.name)} {shown(self.tool.name)}"

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"{self.label} [{self.check}]"

    def _warn(
        self, message: str, category: type[pytest.PytestWarning] = McpContractWarning
    ) -> None:
        """Warn about this tool. The warning's location is the tool's node id, not a line of
        this file: that is what pytest's warnings summary prints, and what the user can act on."""
        warnings.warn_explicit(
            category(f"{self.label}: {message}"),
            category,
            filename=self.nodeid.rsplit("::", 1)[0],
            lineno=0,
            module=__name__,
        )

    def _sandbox_note(self, error: ContractFailure) -> ContractFailure:
        from pytest_mcp_contracts.checks.reproduce import note_sandbox

        return note_sandbox(error, self.config.stash.get(SANDBOX_KEY, None))

    def _fail(
        self, problem: str, details: tuple[str, ...] = (), kind: FailureKind = FailureKind.SETUP
    ) -> ContractFailure:
        return ContractFailure(
            FailureReport.for_tool(
                self.server, self.tool.name, self.check, problem, kind, details=details
            )
        )

    def _callable_settings(self) -> ToolConfig:
        """The tool's own settings; skips the item when they or the call policy forbid
        calling the tool."""
        settings = self.config.stash[SETTINGS_KEY]
        own = settings.tool(self.surface.name, self.tool.name)
        refusal = tool_refusal(
            self.tool,
            self.surface.capabilities,
            policy=settings.call_policy,
            own_call=own.call,
            skip=own.skip,
        )
        if refusal is not None:
            # Named in the reason: -rs shows where the skip was raised, not which item.
            pytest.skip(f"{self.nodeid}: {refusal}")
        return own

    def _user_strategies(self) -> Any:
        from pytest_mcp_contracts.inputs.generate import UserStrategyError

        try:
            return user_strategies(self.config, self.surface.name, self.tool)
        except UserStrategyError as exc:
            raise self._fail(str(exc)) from None

    def _examples(self, configured: tuple[dict[str, Any], ...]) -> list[dict[str, Any]]:
        """Inputs that run before generated ones: the configured examples (which must be
        valid), then the schema's own `examples` and `default`s (skipped, with a warning,
        when the schema refuses them)."""
        from pytest_mcp_contracts.inputs.generate import given_inputs

        given = given_inputs(self.tool.input_schema, configured)
        if given.refused_configured is not None:
            number, example, why = given.refused_configured
            raise self._fail(
                f"configured example {number} is not valid for the inputSchema",
                (f"{example!r}: {why}", "fix it under [tool.mcp-contracts.tools]"),
            )
        if self.check == Check.CONTRACT:  # said once per tool
            for example in given.refused_from_schema:
                self._warn(
                    f"the input {example!r}, from the inputSchema's own examples or defaults, "
                    "is not valid for it; it was not sent"
                )
        return given.inputs


def user_strategies(config: pytest.Config, server: str, tool: ToolSpec) -> Any:
    """What conftest.py files supply for a tool through ``pytest_mcp_tool_strategy``: one
    strategy for the whole input, or strategies by property name (merged across
    conftests), or None; UserStrategyError when their answers cannot be combined."""
    from pytest_mcp_contracts.inputs.generate import UserStrategyError

    answers = config.hook.pytest_mcp_tool_strategy(
        server=server, tool=tool.name, input_schema=tool.input_schema, config=config
    )
    whole = [a for a in answers if not isinstance(a, dict)]
    fields: dict[str, Any] = {}
    for answer in answers:
        if isinstance(answer, dict):
            clash = fields.keys() & answer.keys()
            if clash:
                raise UserStrategyError(
                    f"pytest_mcp_tool_strategy: two implementations supply {sorted(clash)}"
                )
            fields.update(answer)
    if len(whole) > 1 or (whole and fields):
        raise UserStrategyError(
            "pytest_mcp_tool_strategy: more than one implementation supplies inputs for "
            "this tool; return one strategy for the whole input, or strategies by property"
        )
    return whole[0] if whole else (fields or None)


class DriftItem(_McpItem):
    """Static: the tool's surface (schemas, annotations, texts) against the recorded one."""

    check = Check.DRIFT.value  # a plain str: it is a user property, sent over xdist

    def runtest(self) -> None:
        from pytest_mcp_contracts.checks.drift_gate import gate_surface

        warning = gate_surface(
            self.config.stash[RECORDER_KEY],
            self.server,
            self.surface,
            self.tool,
            record_command=_command(self.config),
            accept=_accept(self.config),
        )
        if warning is not None:
            self._warn(warning)


class RemovedToolItem(_RendersFailures):
    """Fails while a recorded tool is missing from the listing: removing a tool is breaking."""

    def runtest(self) -> None:
        from pytest_mcp_contracts.checks.drift_gate import gate_removed

        collector = self.parent
        assert collector is not None and isinstance(collector.parent, ServerCollector)
        gate_removed(
            self.config.stash[RECORDER_KEY],
            collector.parent.server,
            collector.name,
            accept=_accept(self.config),
        )

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"{self.nodeid} [drift]"


class SchemaItem(_McpItem):
    """Static: the listing entry, its schemas in their own dialect, and the tool name."""

    check = Check.SCHEMA.value

    def runtest(self) -> None:
        from pytest_mcp_contracts.checks.listing import check_listing

        settings = self.config.stash[SETTINGS_KEY]
        levels = settings.lint_levels
        findings = check_listing(
            self.tool,
            protocol_version=self.surface.protocol_version,
            clients=settings.clients,
            lints=levels,
        )
        if self.tool is self.surface.tools[0]:
            # The listing's own lints (tool count, size) have no tool: the first one's
            # schema item carries them, the same item under pytest and -n 2.
            from pytest_mcp_contracts.checks.lints import server_lints

            findings += server_lints(self.surface.tools, levels)
        # Lint warnings were said once for the server (ServerCollector.collect).
        said = [f for f in findings if f.kind is not FailureKind.LINT]
        self._carry_findings(findings, said, self.server, self._warn, self._fail)


class _ListedItem(_RendersFailures):
    """An item of a prompt, resource or template, or of a failed listing."""

    check = ""

    def __init__(self, *, entry: ListedSpec | ListingFailure, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.entry = entry
        self.server = _server_of(self)
        self.user_properties.append(("mcp_check", self.check))

    @property
    def _subject(self) -> tuple[str, str]:
        """What the item is about, and its name as the server gave it."""
        entry = self.entry
        if isinstance(entry, ListingFailure):
            return "listing", entry.method
        return entry.kind, entry.key or "(no " + entry.key_field + ")"

    def _warn(self, message: str) -> None:
        assert self.server.surface is not None
        kind, key = self._subject
        warnings.warn_explicit(
            McpContractWarning(f"{shown(self.server.surface.name)} {kind} {shown(key)}: {message}"),
            McpContractWarning,
            filename=self.nodeid.rsplit("::", 1)[0],
            lineno=0,
            module=__name__,
        )

    def _fail(self, problem: str, details: tuple[str, ...], kind: FailureKind) -> ContractFailure:
        subject, key = self._subject
        report = FailureReport.for_tool(
            self.server, key, self.check, problem, kind, details=details
        )
        report.subject = subject
        return ContractFailure(report)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        assert self.server.surface is not None
        kind, key = self._subject
        return (
            self.path,
            None,
            f"{shown(self.server.surface.name)} {kind} {shown(key)} [{self.check}]",
        )


class ListedSchemaItem(_ListedItem):
    """Static: a prompt's, resource's or template's listing entry under the spec
    (checks/surface_listing), or the failure of a listing the server declared."""

    check = Check.SCHEMA.value

    def runtest(self) -> None:
        from pytest_mcp_contracts.checks.surface_listing import check_entry, listing_failure_finding

        assert self.server.surface is not None
        entry = self.entry
        if isinstance(entry, ListingFailure):
            findings = [listing_failure_finding(entry)]
        else:
            findings = check_entry(entry, protocol_version=self.server.surface.protocol_version)
        self._carry_findings(
            findings, findings, self.server, self._warn, self._fail, "prompts and resources"
        )


class _ListedCallItem(_ListedItem):
    """Dynamic: the calls of a prompt, resource or template (checks/listed_runs)."""

    entry: ListedSpec

    def _say(self, message: str, *, lint: bool = False) -> None:
        self._warn(message)


class ReadItem(_ListedCallItem):
    """A listed resource read, or a template expanded and read (checks/listed_runs)."""

    check = Check.READ.value

    def runtest(self) -> None:
        from pytest_mcp_contracts.checks.listed_runs import check_read

        entry = self.entry
        _run_check(self, self.server, lambda run, facts: check_read(run, entry, facts, self._say))


class GetItem(_ListedCallItem):
    """A prompt got with generated arguments, and without each required one
    (checks/listed_runs)."""

    check = Check.GET.value

    def runtest(self) -> None:
        from pytest_mcp_contracts.checks.listed_runs import check_get

        assert isinstance(self.entry, PromptSpec)
        entry = self.entry
        _run_check(self, self.server, lambda run, facts: check_get(run, entry, facts, self._say))


class ListedDriftItem(_ListedItem):
    """Static: a prompt's, resource's or template's listing entry against the recorded one
    (checks/drift_gate.gate_listed)."""

    check = Check.DRIFT.value

    def runtest(self) -> None:
        from pytest_mcp_contracts.checks.drift_gate import gate_listed

        assert isinstance(self.entry, ListedSpec) and self.server.surface is not None
        warning = gate_listed(
            self.config.stash[RECORDER_KEY],
            self.server,
            self.server.surface,
            self.entry,
            record_command=_command(self.config),
            accept=_accept(self.config),
        )
        if warning is not None:
            self._warn(warning)


class RemovedListedItem(_RendersFailures):
    """Fails while a recorded prompt, resource or template is missing from the listing."""

    def runtest(self) -> None:
        from pytest_mcp_contracts.checks.drift_gate import gate_removed_listed

        collector = self.parent
        assert isinstance(collector, RemovedListedCollector)
        assert isinstance(collector.parent, ServerCollector)
        server = collector.parent.server
        assert server.surface is not None
        gate_removed_listed(
            self.config.stash[RECORDER_KEY],
            server,
            server.surface,
            collector.file,
            accept=_accept(self.config),
        )

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"{self.nodeid} [drift]"


class ContractItem(_McpItem):
    """Dynamic: generated inputs, real calls, every result checked against the declared or
    the recorded contract; what was learned goes to the recorder (checks/tool_runs)."""

    check = Check.CONTRACT.value

    def runtest(self) -> None:
        from pytest_mcp_contracts.checks.tool_runs import check_contract

        _run_check(
            self, self.server, lambda run, facts: check_contract(run, self.tool, facts, _say(self))
        )


class RejectsInvalidItem(_McpItem):
    """Dynamic: inputs the inputSchema refuses must be refused (isError or -32602), and must
    never crash, hang or break the server (checks/tool_runs)."""

    check = Check.REJECTS_INVALID.value

    def runtest(self) -> None:
        from pytest_mcp_contracts.checks.tool_runs import check_rejects_invalid

        _run_check(
            self,
            self.server,
            lambda run, facts: check_rejects_invalid(run, self.tool, facts, _say(self)),
        )


class StdoutItem(_RendersFailures):
    """One per stdio server that wrote on stdout, before its tool list was answered, lines
    that are not JSON-RPC messages (a banner): a client breaks on them (checks/stdout)."""

    check = Check.STDOUT.value

    def runtest(self) -> None:
        from pytest_mcp_contracts.checks.server_runs import check_server_stdout

        assert isinstance(self.parent, ServerCollector)
        _run_check(self, self.parent.server, lambda run, facts: check_server_stdout(run))

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"{self.nodeid} [stdout]"


class SequencesItem(_RendersFailures):
    """Dynamic, one per server: sequences of calls in which values from earlier outputs
    (ids, names, paths) feed later inputs; each distinct failure (up to 3) is shrunk to its
    own shortest sequence, and the one failure of the item shows them all
    (checks/server_runs)."""

    check = Check.SEQUENCES.value

    def runtest(self) -> None:
        from pytest_mcp_contracts.checks.server_runs import check_server_sequences

        assert isinstance(self.parent, ServerCollector)
        _run_check(self, self.parent.server, check_server_sequences)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"{self.nodeid} [sequences]"


def _run_check(
    item: _RendersFailures,
    server: ManagedServer,
    check: Callable[[RunContext, ItemFacts], None],
) -> None:
    """Run ``check`` on its server's context (pytest/session.run_context) and turn what it
    says into pytest's outcomes: a skip named after the item (-rs shows where a skip was
    raised, not which item), and what it counted on the item's report whatever the
    outcome."""
    from pytest_mcp_contracts.checks.context import ItemFacts, Skipped

    facts = ItemFacts()
    try:
        check(item.config.stash[CONTEXTS_KEY][server.node_name], facts)
    except Skipped as exc:
        pytest.skip(f"{item.nodeid}: {exc}")
    finally:
        if facts.stats is not None:
            item.mcp_stats = facts.stats
        item.user_properties.extend(facts.properties)
        for title, text in facts.sections:
            item.add_report_section("call", title, text)


def _say(item: _McpItem) -> Warn:
    """How a tool's check warns: at the tool's node, a lint as a McpLintWarning."""

    def say(message: str, *, lint: bool = False) -> None:
        item._warn(message, McpLintWarning if lint else McpContractWarning)

    return say


def _command(config: pytest.Config) -> str:
    return rerun_command(config.invocation_params.args)


def _accept(config: pytest.Config) -> str:
    return accept_command(_command(config), ci=config.stash[SETTINGS_KEY].mode == SnapshotMode.CI)


def start_failure_text(server: ManagedServer, problem: str, stderr_tail: str) -> str:
    return server.command.start_failure(problem, stderr_tail)
