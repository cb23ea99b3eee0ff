"""The pytest side: a collector per server and per tool, and one item per check.

Node ids read ``mcp:<server>::<tool>::<check>``, so ``-k``, ``--deselect``, ``--lf`` and JUnit
all see one stable name per check.
"""

from __future__ import annotations

import json
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
    RECORDER_KEY,
    SANDBOX_KEY,
    SETTINGS_KEY,
    WARNED_RULES_KEY,
)
from pytest_mcp_contracts.pytest.settings import Settings
from pytest_mcp_contracts.reporting.failure import (
    accept_command,
    rerun_command,
)
from pytest_mcp_contracts.text import short_json, shown
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
    RejectsInvalidMode,
    SnapshotMode,
)

# Collection builds items and nothing else: each item imports its check when it runs, so
# that `--collect-only`, `-k schema` or `-k drift` load no more of the plugin than they use.
if TYPE_CHECKING:
    from pytest_mcp_contracts.checks.contract import ContractRun, ContractStats
    from pytest_mcp_contracts.checks.engine import Budget
    from pytest_mcp_contracts.checks.reads import ListedRun
    from pytest_mcp_contracts.contracts.content import ListedObservations
    from pytest_mcp_contracts.contracts.observe import ToolObservations
    from pytest_mcp_contracts.inputs.coverage import CoveragePlan
    from pytest_mcp_contracts.inputs.sandbox import Sandbox, SandboxPaths
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
        from pytest_mcp_contracts.inputs.user_strategies import UserStrategyError

        try:
            return user_strategies(self.config, self.surface.name, self.tool)
        except UserStrategyError as exc:
            raise self._fail(str(exc)) from None

    def _examples(self, configured: tuple[dict[str, Any], ...]) -> list[dict[str, Any]]:
        """Inputs that run before generated ones: the configured examples (which must be
        valid), then the schema's own `examples` and `default`s (skipped, with a warning,
        when the schema refuses them)."""
        from pytest_mcp_contracts.inputs.given_inputs import given_inputs

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
    from pytest_mcp_contracts.inputs.user_strategies import UserStrategyError

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
    """Dynamic: the calls of a prompt, resource or template (checks/reads). Reads and gets
    change no state by the spec, so they run under every --mcp-call policy."""

    entry: ListedSpec

    def runtest(self) -> None:
        from pytest_mcp_contracts.checks.reads import replay_request

        settings = self.config.stash[SETTINGS_KEY]
        entry = self.entry
        if (entry.kind, entry.key) in settings.listed_skips:
            pytest.skip(
                f"{self.nodeid}: skipped by [tool.mcp-contracts.{entry.kind}s."
                f"{json.dumps(entry.key)}] skip = true"
            )
        from pytest_mcp_contracts.contracts.snapshot import SnapshotError

        recorder = self.config.stash[RECORDER_KEY]
        try:
            content = recorder.start_listed(self.server.node_name, entry)
        except SnapshotError as exc:
            raise self._fail(exc.render(), (), FailureKind.SETUP) from None
        passed = False
        try:
            run = self._run(settings)
            # Keyed "<kind>:<key>": no tool name has a colon (the spec's name rules).
            self.mcp_stats = CheckStats({f"{entry.kind}:{entry.key}": run.stats})
            self.add_report_section("call", "mcp", run.summary())
            self.user_properties.append(("mcp_calls", run.stats.calls))
            self.user_properties.append(("mcp_refused", run.stats.refused))
            if run.failure is not None:
                raise replay_request(
                    self.server,
                    run.failure,
                    lambda: fresh_server(self.config, self.server, self.check),
                )
            self._check_content(content, run)
            for note in run.notes:
                self._warn(note)
            passed = True
        finally:
            # Only an item that passed teaches the recorder a content contract.
            assert self.server.surface is not None
            recorder.finish_listed(
                self.server.surface, self.server.node_name, content, passed=passed
            )

    def _check_content(self, content: ListedObservations, run: ListedRun) -> None:
        """The results against the recorded content contract (contracts/content), and in CI
        the contract an entry that returned JSON must have."""
        from pytest_mcp_contracts.checks.reads import content_drift_finding

        recorder = self.config.stash[RECORDER_KEY]
        hint = drift_hint(self.config)
        for arguments, result in run.results:
            drift = content.observe(arguments, result)
            found = content_drift_finding(self.check, drift, arguments, hint)
            if found is not None:
                raise self._fail(found.message, found.details, found.kind)
        if recorder.content_missing_in_ci(content):
            from pytest_mcp_contracts.contracts.record import listed_file

            path = recorder.path(self.server.node_name, listed_file(self.entry))
            raise self._fail(
                f"no content contract is recorded for this {self.entry.kind} ({path}), and CI "
                "is set, so none is written",
                (f"record it locally with: {_command(self.config)}  and commit the file",),
                FailureKind.MISSING_RECORD,
            )

    def _run(self, settings: Settings) -> ListedRun:
        raise NotImplementedError

    def _budget(self, settings: Settings) -> Budget:
        from pytest_mcp_contracts.checks.engine import Budget

        return Budget(
            max_examples=settings.max_examples,
            max_restarts=settings.max_restarts,
            shrink_time=settings.shrink_time,
            tool_time=settings.tool_time,
            seed=_hypothesis_seed(self.config),
        )


class ReadItem(_ListedCallItem):
    """A listed resource read (it must succeed), or a template expanded with generated
    values and read (each answer a result or a refusal, never a crash)."""

    check = Check.READ.value

    def _run(self, settings: Settings) -> ListedRun:
        from pytest_mcp_contracts.checks.reads import (
            known_inputs,
            run_generated,
            run_read,
            template_subject,
        )
        from pytest_mcp_contracts.inputs.listed import template_variables

        surface = self.server.surface
        assert surface is not None
        if isinstance(self.entry, ResourceSpec):
            return run_read(self.server, self.entry, self._budget(settings))
        assert isinstance(self.entry, TemplateSpec)
        names = template_variables(self.entry.key)
        if not names:
            pytest.skip(
                f"{self.nodeid}: the URI template has no variables to fill in, or is not valid "
                "RFC 6570 (see its schema check)"
            )
        uris = [resource.key for resource in surface.resources]
        known = known_inputs(self.server, self.entry, names, names, uris)
        subject = template_subject(self.server, self.entry)
        return run_generated(
            self.server, subject, self._budget(settings), known, coverage=settings.coverage
        )


class GetItem(_ListedCallItem):
    """A prompt got with generated arguments, and without each required one."""

    check = Check.GET.value

    def _run(self, settings: Settings) -> ListedRun:
        from pytest_mcp_contracts.checks.reads import (
            known_inputs,
            probe_missing_arguments,
            prompt_subject,
            run_generated,
        )
        from pytest_mcp_contracts.inputs.listed import prompt_schema

        assert isinstance(self.entry, PromptSpec)
        schema = prompt_schema(self.entry.raw.get("arguments"))
        names, required = list(schema["properties"]), list(schema["required"])
        known = known_inputs(self.server, self.entry, names, required)
        subject = prompt_subject(self.server, self.entry)
        run = run_generated(
            self.server, subject, self._budget(settings), known, coverage=settings.coverage
        )
        if run.failure is None:
            run.failure = probe_missing_arguments(self.server, self.entry, run)
        return run


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
    the recorded contract; what was learned goes to the recorder."""

    check = Check.CONTRACT.value

    def runtest(self) -> None:
        from pytest_mcp_contracts.checks.contract import run_contract
        from pytest_mcp_contracts.checks.engine import Budget
        from pytest_mcp_contracts.contracts.snapshot import SnapshotError
        from pytest_mcp_contracts.inputs.coverage import coverage_line, random_share
        from pytest_mcp_contracts.inputs.generate import input_strategy
        from pytest_mcp_contracts.inputs.input_schema import GenerationError
        from pytest_mcp_contracts.inputs.user_strategies import UserStrategyError

        settings = self.config.stash[SETTINGS_KEY]
        own = self._callable_settings()
        if self.tool.malformed:
            raise self._fail(
                "the tool cannot be called: its listing entry is malformed (see its schema check)",
                kind=FailureKind.INVALID_LISTING,
            )
        recorder = self.config.stash[RECORDER_KEY]
        try:
            observations = recorder.start_tool(self.server.node_name, self.tool)
        except SnapshotError as exc:
            raise self._fail(exc.render()) from None
        run: ContractRun | None = None
        plan = None
        passed = False
        self.mcp_stats = CheckStats(uses_sandbox=_sandbox_test(self.config))
        tally = self.mcp_stats.tool(self.tool.name)
        try:
            user = self._user_strategies()
            sandbox = _laid_sandbox(self.config, self.tool, self.server)
            try:
                strategy = input_strategy(self.tool.input_schema, user, sandbox=sandbox)
            except UserStrategyError as exc:
                raise self._fail(
                    "pytest_mcp_tool_strategy cannot be used here", (str(exc),)
                ) from None
            except GenerationError as exc:
                raise self._fail(
                    f"no inputs can be generated from the inputSchema at {shown(exc.pointer, 120)}",
                    (str(exc),),
                ) from None
            max_examples = own.max_examples or settings.max_examples
            plan = self._coverage_plan(max_examples, settings.coverage, user is not None, sandbox)
            run = run_contract(
                self.server,
                self.tool,
                strategy=strategy,
                # Configured and schema examples first, then the coverage phase.
                examples=self._examples(own.examples),
                configured=len(own.examples),
                coverage=plan,
                budget=Budget(
                    max_examples=random_share(max_examples, len(plan.inputs)),
                    max_restarts=settings.max_restarts,
                    shrink_time=settings.shrink_time,
                    tool_time=settings.time_budget(own),
                    seed=_hypothesis_seed(self.config),
                ),
                observations=observations,
                drift_hint=drift_hint(self.config),
                warn_only=own.warn_only,
                tally=tally,
                lints=settings.lint_levels,
                in_flight=settings.in_flight,
            )
            if run.failure is not None:
                raise self._sandbox_note(_reproduced(self, run.failure, own.warn_only))
            self._report(run.stats, observations)  # -W error can fail the item here
            if recorder.missing_in_ci(observations.has_record):
                path = recorder.path(self.server.node_name, self.tool.node_name)
                raise self._fail(
                    f"no contract is recorded for this tool ({path}), and CI is set, so none "
                    "is written",
                    (f"record it locally with: {self._command()}  and commit the file",),
                    FailureKind.MISSING_RECORD,
                )
            passed = True
        finally:
            # Only an item that passed teaches the recorder an output contract.
            recorder.finish_tool(self.surface, self.server.node_name, observations, passed=passed)
            if plan is not None:
                # No run: the item failed before it, or it raised an error of ours; no
                # call is known to have been sent.
                sent = run.stats.distinct_inputs if run is not None else set()
                timed_out = run is not None and run.stats.out_of_time is not None
                stopped_by = "the tool's time budget" if timed_out else "a failure"
                report = plan.report(lambda arguments: repr(arguments) in sent, stopped_by)
                tally.input_coverage = report
                self.add_report_section("call", "mcp coverage", coverage_line(report))

    def _coverage_plan(
        self, max_examples: int, enabled: bool, user: bool, sandbox: SandboxPaths | None
    ) -> CoveragePlan:
        """The coverage phase's inputs, or an empty plan saying why there are none."""
        from pytest_mcp_contracts.inputs.coverage import CoveragePlan, coverage_budget
        from pytest_mcp_contracts.inputs.generate import coverage_plan
        from pytest_mcp_contracts.inputs.input_schema import GenerationError

        if not enabled:
            return CoveragePlan(note="the coverage phase is off (--mcp-coverage=off)")
        if user:
            return CoveragePlan(note="inputs come from pytest_mcp_tool_strategy")
        try:
            budget = coverage_budget(max_examples)
            return coverage_plan(self.tool.input_schema, budget, sandbox=sandbox)
        except GenerationError as exc:  # input_strategy said it already; say why here
            return CoveragePlan(note=f"no coverage inputs: {str(exc).splitlines()[0]}")

    def _command(self) -> str:
        return _command(self.config)

    def _report(self, stats: ContractStats, observations: ToolObservations) -> None:
        self.user_properties.append(("mcp_calls", stats.calls))
        self.user_properties.append(("mcp_error_results", stats.error_results))
        # A plain str: user_properties cross to an xdist controller, and execnet refuses enums.
        self.user_properties.append(("mcp_output_quality", str(observations.quality)))
        self.add_report_section("call", "mcp", stats.summary())
        from pytest_mcp_contracts.checks.contract import error_result_notes
        from pytest_mcp_contracts.checks.engine import budget_words
        from pytest_mcp_contracts.checks.feeding import ways_to_reach

        settings = self.config.stash[SETTINGS_KEY]
        ways = ways_to_reach(self.tool, self.surface.tools, sequences=settings.sequences)
        notes = observations.warnings() + error_result_notes(self.tool, stats, ways)
        if stats.out_of_time is not None:
            notes.append(budget_words(stats.out_of_time, stats.calls, stats.planned))
        for note in notes:
            self._warn(note)
        for finding, arguments in stats.lint_warnings.values():
            self._warn(
                f"{finding.headline}, e.g. for the input {short_json(arguments)}; "
                f"fix: {finding.fix}",
                McpLintWarning,
            )


class RejectsInvalidItem(_McpItem):
    """Dynamic: inputs the inputSchema refuses must be refused (isError or -32602), and must
    never crash, hang or break the server. Every input is sent past a failing one, and each
    distinct failure is replayed and shown with its own input."""

    check = Check.REJECTS_INVALID.value

    def runtest(self) -> None:
        from pytest_mcp_contracts.checks.engine import Budget
        from pytest_mcp_contracts.checks.rejects_invalid import accepted_lines, run_rejects_invalid
        from pytest_mcp_contracts.inputs.invalid import invalid_inputs

        settings = self.config.stash[SETTINGS_KEY]
        own = self._callable_settings()
        mode = own.rejects_invalid or settings.rejects_invalid
        if mode == RejectsInvalidMode.OFF:
            pytest.skip(f"{self.nodeid}: --mcp-rejects-invalid=off")
        if self.tool.malformed:
            pytest.skip(f"{self.nodeid}: the listing entry is malformed (see its schema check)")
        base = self._valid_input(own)
        cases = invalid_inputs(self.tool.input_schema, base)
        if not cases:
            pytest.skip(
                f"{self.nodeid}: no input is certainly invalid: the inputSchema requires, types "
                "and constrains nothing that a mutation of a valid input could break"
            )
        self.mcp_stats = CheckStats(uses_sandbox=_sandbox_test(self.config))
        refusals = run_rejects_invalid(
            self.server,
            self.tool,
            cases,
            Budget(
                max_examples=0,
                max_restarts=settings.max_restarts,
                shrink_time=0,
                tool_time=settings.time_budget(own),
            ),
            self.mcp_stats.tool(self.tool.name),
        )
        self.user_properties.append(("mcp_invalid_sent", refusals.sent))
        self.user_properties.append(("mcp_invalid_accepted", len(refusals.accepted)))
        self.user_properties.append(("mcp_invalid_coerced", len(refusals.coerced)))
        self.add_report_section("call", "mcp", refusals.summary())
        # Each distinct failure replayed on a fresh server before it is shown, so that each
        # keeps a reproduction of its own; the first met is the item's headline.
        failures = [
            self._sandbox_note(_reproduced(self, failure, own.warn_only))
            for failure in refusals.failures
        ]
        notes = []
        if refusals.out_of_time is not None:
            from pytest_mcp_contracts.checks.engine import budget_words

            budget, planned = refusals.out_of_time, refusals.planned
            notes.append(budget_words(budget, refusals.sent, planned, "invalid inputs"))
        if refusals.accepted:
            problem = (
                f"accepts invalid input: {len(refusals.accepted)} of {refusals.sent} inputs the "
                "inputSchema refuses returned a success result"
            )
            lines = tuple(accepted_lines(refusals.accepted))
            if mode == RejectsInvalidMode.FAIL:
                from pytest_mcp_contracts.checks.rejects_invalid import HOW_TO_REFUSE

                failures.append(
                    self._fail(problem, (*lines, HOW_TO_REFUSE), FailureKind.ACCEPTS_INVALID)
                )
            else:
                notes.append(
                    f"{problem} (first: {lines[0]}); --mcp-rejects-invalid=fail makes this a "
                    "failure"
                )
        try:
            for note in notes:
                self._warn(note)
        finally:
            # A warning made an error (-W error) does not hide the failures.
            if failures:
                from pytest_mcp_contracts.checks.failures import combined_failure

                raise combined_failure(failures)

    def _valid_input(self, own: ToolConfig) -> dict[str, Any]:
        """The valid input the invalid ones are derived from: a configured or schema example
        when there is one, else a small generated input with as many properties as it gets."""
        from hypothesis.errors import HypothesisException

        from pytest_mcp_contracts.inputs.examples import simplest_example
        from pytest_mcp_contracts.inputs.generate import input_strategy
        from pytest_mcp_contracts.inputs.input_schema import GenerationError

        try:
            user, sandbox = (
                self._user_strategies(),
                _laid_sandbox(self.config, self.tool, self.server),
            )
            strategy = input_strategy(self.tool.input_schema, user, sandbox=sandbox)
            examples = self._examples(own.examples)
            if examples:
                return examples[0]
            # Without the user's strategies, the schema alone makes this input, and hypothesis
            # finds the same one on every run (derandomized, then shrunk, a search worth
            # skipping): it is remembered, unless it names a sandbox path.
            sandboxed = sandbox.all if sandbox is not None else frozenset()
            remembered = (
                _RememberedInput(self.config, self.tool.input_schema, sandboxed)
                if user is None
                else None
            )
            if remembered is not None and remembered.value is not None:
                return remembered.value
            declared = self.tool.input_schema.get("properties")
            wanted = set(declared) if isinstance(declared, dict) else set()
            try:
                found: dict[str, Any] = simplest_example(strategy, lambda v: wanted <= v.keys())
            except HypothesisException:  # no input has every property at once
                found = simplest_example(strategy)
            if remembered is not None:
                remembered.keep(found)
            return found
        except (GenerationError, HypothesisException) as exc:
            pytest.skip(
                f"{self.nodeid}: no valid input to derive invalid ones from "
                f"(see the contract check): {str(exc).splitlines()[0]}"
            )


class _RememberedInput:
    """The simplest valid input of an inputSchema, kept across runs in pytest's cache
    (``.pytest_cache``; none with ``-p no:cacheprovider``): by the schema's content and the
    versions that find it, and used only while the schema still accepts it."""

    _DIRECTORY = "mcp-contracts/simplest-input"

    def __init__(
        self, config: pytest.Config, schema: dict[str, Any], sandboxed: frozenset[str]
    ) -> None:
        import hashlib

        import hypothesis

        from pytest_mcp_contracts import __version__

        self.cache = getattr(config, "cache", None)
        self.schema = schema
        self.sandboxed = sandboxed  # a path in the sandbox is this run's, not the next one's
        # A run with a sandbox finds another input (a real file) than one without: an input
        # kept by a run without one (a bare "a" for a path) is not for a run with one.
        text = json.dumps(
            [schema, bool(sandboxed), hypothesis.__version__, __version__], sort_keys=True
        )
        digest = hashlib.sha256(text.encode()).hexdigest()[:32]
        self.key = f"{self._DIRECTORY}/{digest}"
        self.value = self._read()

    def _read(self) -> dict[str, Any] | None:
        if self.cache is None:
            return None
        from pytest_mcp_contracts.schema.dialects import validator_for_schema

        value = self.cache.get(self.key, None)
        if not isinstance(value, dict) or not validator_for_schema(self.schema).is_valid(value):
            return None
        return None if self._in_sandbox(value) else value

    def _in_sandbox(self, value: dict[str, Any]) -> bool:
        from pytest_mcp_contracts.inputs.sandbox import uses_sandbox

        return uses_sandbox(value, self.sandboxed)

    def keep(self, value: dict[str, Any]) -> None:
        import contextlib

        if self.cache is None or self._in_sandbox(value):
            return
        with contextlib.suppress(TypeError, ValueError):  # not JSON: not kept
            self.cache.set(self.key, value)


class StdoutItem(_RendersFailures):
    """One per stdio server that wrote on stdout, before its tool list was answered, lines
    that are not JSON-RPC messages (a banner): a client breaks on them (checks/stdout)."""

    check = Check.STDOUT.value

    def runtest(self) -> None:
        from pytest_mcp_contracts.checks.stdout import check_startup_stdout

        assert isinstance(self.parent, ServerCollector)
        server = self.parent.server
        finding = check_startup_stdout(self.check, server.startup_stdout)
        if finding is not None:
            raise ContractFailure(
                FailureReport.for_tool(
                    server,
                    "(all)",
                    self.check,
                    finding.message,
                    finding.kind,
                    details=finding.details,
                )
            )

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"{self.nodeid} [stdout]"


class SequencesItem(_RendersFailures):
    """Dynamic, one per server: sequences of calls in which values from earlier outputs
    (ids, names, paths) feed later inputs; each distinct failure (up to 3) is shrunk to its
    own shortest sequence, and the one failure of the item shows them all."""

    check = Check.SEQUENCES.value

    def runtest(self) -> None:
        from pytest_mcp_contracts.checks.engine import Budget
        from pytest_mcp_contracts.checks.sequences import check_sequences, plan_sequences

        assert isinstance(self.parent, ServerCollector)
        server = self.parent.server
        surface = server.surface
        assert surface is not None
        settings = self.config.stash[SETTINGS_KEY]

        def refusal(tool: ToolSpec) -> str | None:
            own = settings.tool(surface.name, tool.name)
            why = tool_refusal(
                tool,
                surface.capabilities,
                policy=settings.call_policy,
                own_call=own.call,
                skip=own.skip,
            )
            return why.removeprefix("not called: ") if why else None

        def given(tool: ToolSpec) -> tuple[Any, list[dict[str, Any]]]:
            # What the contract item is given for the tool: the hook's strategies, and the
            # configured and schema examples that the inputSchema accepts.
            from pytest_mcp_contracts.inputs.given_inputs import given_inputs

            examples = settings.tool(surface.name, tool.name).examples
            user = user_strategies(self.config, surface.name, tool)
            return user, given_inputs(tool.input_schema, examples).inputs

        plan = plan_sequences(
            server,
            refusal,
            lambda tool: settings.tool(surface.name, tool.name).warn_only,
            _laid_sandbox(self.config),
            CheckStats(uses_sandbox=_sandbox_test(self.config)),
            given,
        )
        if isinstance(plan, str):
            pytest.skip(f"{self.nodeid}: {plan}")
        self.mcp_stats = plan.stats.tally  # each call under the tool it called
        try:
            check_sequences(
                plan,
                lambda: fresh_server(self.config, server, self.check),
                _simplest,
                Budget(
                    max_examples=settings.max_examples,
                    max_restarts=settings.max_restarts,
                    shrink_time=settings.shrink_time,
                    tool_time=settings.sequences_time,
                    seed=_hypothesis_seed(self.config),
                ),
                resets=can_start_fresh(self.config, server),
            )
        finally:
            self.user_properties.append(("mcp_sequence_calls", plan.stats.calls))
            self.user_properties.append(("mcp_sequence_fed_calls", plan.stats.fed_calls))
            self.add_report_section("call", "mcp sequences", "\n".join(plan.summary_lines()))

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"{self.nodeid} [sequences]"


def fresh_server(config: pytest.Config, server: ManagedServer, check: str) -> None:
    """Lay the roots sandbox anew, run the user's reset command, then restart the server
    (over HTTP: a new session). No restart where it would only repeat the state the server
    is in: nothing sent since it started but its handshake and listings, on the sandbox as
    it was laid before the start, and no reset command (a restart of a Python server on
    the SDK takes about a second)."""
    import shlex
    import subprocess

    _laid_sandbox(config)
    command = config.stash[SETTINGS_KEY].reset_command
    sandbox = config.stash.get(SANDBOX_KEY, None)
    if not command and server.untouched and (sandbox is None or sandbox.laid_at < server.opened_at):
        return
    if command:
        command = server.own_text(command)  # {worker}, this worker's copies of state files
        done = subprocess.run(shlex.split(command), capture_output=True, text=True, timeout=60)
        if done.returncode != 0:
            raise ContractFailure(
                FailureReport.for_tool(
                    server,
                    "(all)",
                    check,
                    f"--mcp-reset-command failed with exit status {done.returncode}",
                    FailureKind.SETUP,
                    details=(command, *done.stderr.strip().splitlines()[-5:]),
                )
            )
    # A restart on purpose is not one the summary counts (a server that died or hung).
    restarts = server.restarts
    server.close()
    server.connection()
    server.restarts = restarts


def _reproduced(
    item: _McpItem, error: ContractFailure, warn_only: frozenset[str]
) -> ContractFailure:
    """``error`` with what replaying its call on a fresh server showed (checks/reproduce)."""
    from pytest_mcp_contracts.checks.reproduce import replay_failure

    server = item.server
    return replay_failure(
        server,
        item.tool,
        error,
        lambda: fresh_server(item.config, server, item.check),
        warn_only=warn_only,
        fresh_possible=can_start_fresh(item.config, server),
        lints=item.config.stash[SETTINGS_KEY].lint_levels,
    )


def _sandbox_test(config: pytest.Config) -> Callable[[dict[str, Any]], bool] | None:
    """Whether a call's arguments use the roots sandbox, for the sandbox_calls count."""
    sandbox = config.stash.get(SANDBOX_KEY, None)
    if sandbox is None:
        return None
    from pytest_mcp_contracts.inputs.sandbox import uses_sandbox

    values = sandbox.paths.all
    return lambda arguments: uses_sandbox(arguments, values)


def _simplest(strategy: Any) -> dict[str, Any] | None:
    from hypothesis.errors import HypothesisException

    from pytest_mcp_contracts.inputs.examples import simplest_example

    try:
        found: dict[str, Any] = simplest_example(strategy)
    except HypothesisException:
        return None
    return found


def _laid_sandbox(
    config: pytest.Config, tool: ToolSpec | None = None, server: ManagedServer | None = None
) -> SandboxPaths | None:
    """Lay the roots sandbox anew before a tool's calls (so that no tool's writes become
    another tool's inputs) and return its values (for ``tool``: see ``for_tool``); None
    under --mcp-roots=none."""
    from pytest_mcp_contracts.inputs.sandbox import SandboxError

    sandbox = config.stash.get(SANDBOX_KEY, None)
    if sandbox is None:
        return None
    try:
        sandbox.lay()
    except SandboxError as exc:
        pytest.fail(str(exc), pytrace=False)
    if tool is None:
        return sandbox.paths
    return tool_paths(sandbox, tool, server)


def tool_paths(sandbox: Sandbox, tool: ToolSpec, server: ManagedServer | None) -> SandboxPaths:
    """The sandbox's values as ``tool`` draws them (``SandboxPaths.for_tool``: the kinds
    its description and the server's command name first)."""
    argv = getattr(server.command, "argv", ()) if server is not None else ()
    return sandbox.paths.for_listed_tool(tool, tuple(argv))


def _hypothesis_seed(config: pytest.Config) -> Any:
    """``--hypothesis-seed`` as hypothesis's own plugin reads it (an int when it is one).
    Passed on explicitly: under CI, hypothesis's derandomized profile would ignore it."""
    raw = config.getoption("hypothesis_seed", default=None)
    if raw is None:
        return None
    try:
        return int(raw)
    except ValueError:
        return raw


def _command(config: pytest.Config) -> str:
    return rerun_command(config.invocation_params.args)


def _accept(config: pytest.Config) -> str:
    return accept_command(_command(config), ci=config.stash[SETTINGS_KEY].mode == SnapshotMode.CI)


def drift_hint(config: pytest.Config) -> str:
    """The line under a drift failure that says how to accept the change."""
    return f"if the change is intended, {_accept(config)}"


def can_start_fresh(config: pytest.Config, server: ManagedServer) -> bool:
    """Whether a failure can be replayed on a freshly started server: one the plugin starts
    itself, or any with --mcp-reset-command."""
    return server.command.noun == "command" or bool(config.stash[SETTINGS_KEY].reset_command)


def start_failure_text(server: ManagedServer, problem: str, stderr_tail: str) -> str:
    return server.command.start_failure(problem, stderr_tail)
