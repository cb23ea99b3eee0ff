"""The pytest side: a collector per server and per tool, and one item per check.

Node ids read ``mcp:<server>::<tool>::<check>``, so ``-k``, ``--deselect``, ``--lf`` and JUnit
all see one stable name per check.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

import pytest

from pytest_mcp_contracts.judges.failures import (
    ContractFailure,
    FailureKind,
    FailureReport,
    Finding,
)
from pytest_mcp_contracts.pytest.categories import McpContractWarning, McpLintWarning
from pytest_mcp_contracts.pytest.keys import (
    CONTEXTS_KEY,
    RECORDER_KEY,
    SETTINGS_KEY,
    WARNED_RULES_KEY,
)
from pytest_mcp_contracts.reporting.failure import (
    accept_command,
    rerun_command,
)
from pytest_mcp_contracts.runs.stats import CheckStats, stats_key
from pytest_mcp_contracts.text import shown
from pytest_mcp_contracts.transport.discover import (
    Entry,
    ListingFailure,
    ServerSurface,
)
from pytest_mcp_contracts.transport.managed import ManagedServer
from pytest_mcp_contracts.vocabulary import (
    MAX_RESOURCE_READS,
    NODE_PREFIX,
    Check,
    EntryKind,
    Level,
    SecurityMode,
    SnapshotMode,
)

# Collection builds items and nothing else: each item imports its check when it runs, so
# that `--collect-only`, `-k schema` or `-k drift` load no more of the plugin than they use.
if TYPE_CHECKING:
    from pytest_mcp_contracts.runs.context import ItemFacts, RunContext, Warn


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
        from pytest_mcp_contracts.judges.lints import grouped_warnings

        settings = self.config.stash[SETTINGS_KEY]
        security = SecurityMode(settings.security)
        for line in grouped_warnings(surface.tools, settings.lint_levels, security):
            self._warn_once(line, McpLintWarning)
        if self.server.startup_stdout[0]:
            # Only a server that printed while it started has this item, so every other
            # run keeps its items. Under xdist each worker's process of it prints alike, so
            # each collects it (a server whose start-up output varies by process gets
            # xdist's "different tests were collected" error: loud, never a silent pass).
            yield StdoutItem.from_parent(self, name=StdoutItem.check)
        if self.config.stash[SETTINGS_KEY].sequences:
            # First: its sequences start from a fresh server, which the server is before any
            # tool's item calls it (RunContext.fresh then restarts nothing); run after other
            # items (-p randomly, a conftest that reorders), it restarts the server first.
            yield SequencesItem.from_parent(self, name=SequencesItem.check)
        if self.config.stash[SETTINGS_KEY].protocol:
            # After sequences: its requests go on connections of its own, so the order
            # matters to no other item.
            yield ProtocolItem.from_parent(self, name=ProtocolItem.check)
        # A recorded entry the server no longer lists keeps a drift item: its removal breaks
        # clients until it is accepted. Tools' come after the tools; then prompts, resources
        # and templates, each listing the server declared but did not answer first (so that
        # its failure hides none of the tools), and their removed ones last.
        from pytest_mcp_contracts.contracts.snapshot import kind_of, node_of

        stale = self.config.stash[RECORDER_KEY].stale(self.server.node_name, surface)
        tools_gone = [file for file in stale if kind_of(file) is EntryKind.TOOL]
        others_gone = [file for file in stale if kind_of(file) is not EntryKind.TOOL]
        for tool in surface.tools:
            yield EntryCollector.from_parent(self, name=tool.node, entry=tool)
        for file in tools_gone:
            yield RemovedEntryCollector.from_parent(self, name=node_of(file), file=file)
        for failure in surface.listing_failures:
            yield EntryCollector.from_parent(self, name=failure.node, entry=failure)
        unread = {id(entry) for entry in surface.resources[MAX_RESOURCE_READS:]}
        if len(surface.resources) > MAX_RESOURCE_READS:
            self._warn_once(
                f"only the first {MAX_RESOURCE_READS} of its {len(surface.resources)} listed "
                "resources are read (each has its schema item; the others have no read item)"
            )
        for entry in surface.listed:
            calls = id(entry) not in unread
            yield EntryCollector.from_parent(self, name=entry.node, entry=entry, calls=calls)
        for file in others_gone:
            yield RemovedEntryCollector.from_parent(self, name=node_of(file), file=file)

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
        warn_at(self.nodeid, f"{shown(self.server.surface.name)}: {message}", category)


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


class EntryCollector(pytest.Collector):
    """A tool (``<name>``), prompt, resource or template (``<kind>:<key>``), or a listing of
    them the server declared and did not answer (``listing:<kind>s``): its ``schema`` item,
    then an entry's ``drift`` item and its call items (``CALL_ITEMS``)."""

    def __init__(self, *, entry: Entry | ListingFailure, calls: bool = True, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.entry = entry
        self.calls = calls  # False: a resource past the read cap (runs/content_calls)

    def collect(self) -> Iterator[pytest.Item]:
        yield SchemaItem.from_parent(self, name=SchemaItem.check, entry=self.entry)
        if isinstance(self.entry, ListingFailure):
            return
        yield DriftItem.from_parent(self, name=DriftItem.check, entry=self.entry)
        if self.calls:
            security = self.config.stash[SETTINGS_KEY].security != SecurityMode.OFF
            if security and self.entry.kind is EntryKind.TOOL:
                from pytest_mcp_contracts.inputs.probes import listened, probed

                schema, hints = self.entry.input_schema, self.entry.annotations
                security = bool(probed(schema) or listened(schema, hints))
            latency = False
            if self.entry.kind is EntryKind.TOOL:
                settings = self.config.stash[SETTINGS_KEY]
                server = _server_of_collector(self)
                own = settings.tool(server.node_name, self.entry.name)
                latency = settings.latency_limit(own) is not None
            for item in call_items(self.entry.kind, security=security, latency=latency):
                yield item.from_parent(self, name=item.check, entry=self.entry)


def call_items(
    kind: EntryKind, *, security: bool = False, latency: bool = False
) -> tuple[type[_EntryItem], ...]:
    """The items that call an entry of ``kind``, in the order they run: a tool's contract,
    its latency (right after it, whose calls it judges, when a limit applies), rejects_invalid
    and security (when it has an argument to probe, and not under --mcp-security=off), a
    prompt's get, a resource's or template's read."""
    if kind is EntryKind.TOOL:
        return (
            ContractItem,
            *((LatencyItem,) if latency else ()),
            RejectsInvalidItem,
            *((SecurityItem,) if security else ()),
        )
    return (GetItem,) if kind is EntryKind.PROMPT else (ReadItem,)


class RemovedEntryCollector(pytest.Collector):
    """An entry recorded in the snapshot folder that the server no longer lists (``file``:
    its file name in its server's folder)."""

    def __init__(self, *, file: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.file = file

    def collect(self) -> Iterator[pytest.Item]:
        yield RemovedEntryItem.from_parent(self, name=Check.DRIFT.value)


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

    check = ""  # the check's name (vocabulary.Check), a plain str
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
        errors = [f for f in findings if f.level is Level.ERROR]
        if errors:
            lines = tuple(line for f in errors[1:] for line in f.render().splitlines())
            raise fail(errors[0].render(), lines, errors[0].kind)


def _server_of_collector(collector: pytest.Collector) -> ManagedServer:
    parent = collector.parent
    assert isinstance(parent, ServerCollector)
    return parent.server


def _server_of(item: pytest.Item) -> ManagedServer:
    """The server of an item under one of its entries (a tool's, a prompt's, ...)."""
    collector = item.parent.parent if item.parent is not None else None
    assert isinstance(collector, ServerCollector)
    return collector.server


class _EntryItem(_RendersFailures):
    """An item of one entry (a tool, prompt, resource or template), or of a failed listing."""

    def __init__(self, *, entry: Entry | ListingFailure, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.entry = entry
        self.server = _server_of(self)
        if isinstance(entry, Entry) and entry.kind is EntryKind.TOOL:
            self.user_properties.append(("mcp_tool", entry.name))
        self.user_properties.append(("mcp_check", self.check))

    @property
    def stats_key(self) -> str:
        """The entry's key in its check's numbers (``CheckStats``)."""
        assert isinstance(self.entry, Entry)
        return stats_key(self.entry)

    @property
    def tool(self) -> Entry:
        """The entry of a tool's item (the tool checks' word for it)."""
        assert isinstance(self.entry, Entry)
        return self.entry

    @property
    def surface(self) -> ServerSurface:
        assert self.server.surface is not None
        return self.server.surface

    @property
    def _subject(self) -> tuple[str, str]:
        """What the item is about (``tool``, ``prompt``..., ``listing``), and its name as
        the server gave it."""
        entry = self.entry
        if isinstance(entry, ListingFailure):
            return "listing", entry.method
        if entry.key or entry.kind is EntryKind.TOOL:
            return str(entry.kind), entry.key
        return str(entry.kind), f"(no {entry.listing.key_field})"

    @property
    def label(self) -> str:
        """Server and entry as they are safe to print: a tool by its name alone, the others
        after their kind."""
        noun, name = self._subject
        said = shown(name) if noun == EntryKind.TOOL else f"{noun} {shown(name)}"
        return f"{shown(self.surface.name)} {said}"

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"{self.label} [{self.check}]"

    def _warn(
        self, message: str, category: type[pytest.PytestWarning] = McpContractWarning
    ) -> None:
        """Warn about this entry, located at the entry's node."""
        warn_at(self.nodeid.rsplit("::", 1)[0], f"{self.label}: {message}", category)

    def _fail(
        self, problem: str, details: tuple[str, ...] = (), kind: FailureKind = FailureKind.SETUP
    ) -> ContractFailure:
        noun, name = self._subject
        report = FailureReport.for_tool(
            self.server, name, self.check, problem, kind, details=details
        )
        report.subject = noun
        return ContractFailure(report)


class DriftItem(_EntryItem):
    """Static: the entry's surface (a tool's schemas, annotations and texts; a prompt's,
    resource's or template's listing entry) against the recorded one
    (judges/drift_gate.gate_listing)."""

    check = Check.DRIFT.value  # a plain str: it is a user property, sent over xdist

    def runtest(self) -> None:
        from pytest_mcp_contracts.judges.drift_gate import gate_listing

        warning = gate_listing(
            self.config.stash[RECORDER_KEY],
            self.server,
            self.surface,
            self.tool,
            record_command=_command(self.config),
            accept=_accept(self.config),
        )
        if warning is not None:
            self._warn(warning)


class RemovedEntryItem(_RendersFailures):
    """Fails while a recorded entry is missing from the listing: removing a tool, prompt,
    resource or template is breaking."""

    def runtest(self) -> None:
        from pytest_mcp_contracts.judges.drift_gate import gate_removed

        collector = self.parent
        assert isinstance(collector, RemovedEntryCollector)
        assert isinstance(collector.parent, ServerCollector)
        server = collector.parent.server
        assert server.surface is not None
        gate_removed(
            self.config.stash[RECORDER_KEY],
            server,
            server.surface,
            collector.file,
            accept=_accept(self.config),
        )

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"{self.nodeid} [drift]"


class SchemaItem(_EntryItem):
    """Static: the listing entry under the spec (``judges/content_listing.entry_findings``:
    a tool's schemas in their own dialect and its name, under the chosen clients' rules and
    lints; a prompt's, resource's or template's entry), or the failure of a listing the
    server declared."""

    check = Check.SCHEMA.value

    def runtest(self) -> None:
        from pytest_mcp_contracts.judges.content_listing import (
            entry_findings,
            listing_failure_finding,
        )

        entry = self.entry
        if isinstance(entry, ListingFailure):
            findings = [listing_failure_finding(entry)]
            self._carry_findings(
                findings, findings, self.server, self._warn, self._fail, "prompts and resources"
            )
            return
        settings = self.config.stash[SETTINGS_KEY]
        findings = entry_findings(
            entry,
            protocol_version=self.surface.protocol_version,
            clients=settings.clients,
            lints=settings.lint_levels,
            security=SecurityMode(settings.security),
        )
        if entry.kind is not EntryKind.TOOL:
            self._carry_findings(
                findings, findings, self.server, self._warn, self._fail, "prompts and resources"
            )
            return
        if entry is self.surface.tools[0]:
            # The listing's own lints (tool count, size) have no tool: the first one's
            # schema item carries them, the same item under pytest and -n 2.
            from pytest_mcp_contracts.judges.lints import server_lints

            findings += server_lints(self.surface.tools, settings.lint_levels)
        # Lint warnings were said once for the server (ServerCollector.collect).
        said = [f for f in findings if f.kind is not FailureKind.LINT]
        self._carry_findings(findings, said, self.server, self._warn, self._fail)


class _ContentItem(_EntryItem):
    """Dynamic: the calls of a prompt, resource or template (runs/content_items). Reads and
    gets change no state by the spec, so they run under every --mcp-call policy."""

    entry: Entry

    def _say(self, message: str, *, lint: bool = False) -> None:
        self._warn(message)


class ReadItem(_ContentItem):
    """A listed resource read, or a template expanded and read (runs/content_items)."""

    check = Check.READ.value

    def runtest(self) -> None:
        from pytest_mcp_contracts.runs.content_items import check_read

        entry = self.entry
        _run_check(self, self.server, lambda run, facts: check_read(run, entry, facts, self._say))


class GetItem(_ContentItem):
    """A prompt got with generated arguments, and without each required one
    (runs/content_items)."""

    check = Check.GET.value

    def runtest(self) -> None:
        from pytest_mcp_contracts.runs.content_items import check_get

        entry = self.entry
        _run_check(self, self.server, lambda run, facts: check_get(run, entry, facts, self._say))


class ContractItem(_EntryItem):
    """Dynamic: generated inputs, real calls, every result checked against the declared or
    the recorded contract; what was learned goes to the recorder (runs/tool_items)."""

    check = Check.CONTRACT.value

    def runtest(self) -> None:
        from pytest_mcp_contracts.runs.tool_items import check_contract

        _run_check(
            self, self.server, lambda run, facts: check_contract(run, self.tool, facts, _say(self))
        )


class LatencyItem(_EntryItem):
    """The p95 latency of the contract's answered calls against the tool's limit
    (--mcp-max-p95-ms, max_p95_ms), with the slowest inputs (runs/tool_items)."""

    check = Check.LATENCY.value

    def runtest(self) -> None:
        from pytest_mcp_contracts.runs.tool_items import check_latency

        _run_check(
            self, self.server, lambda run, facts: check_latency(run, self.tool, facts, _say(self))
        )


class RejectsInvalidItem(_EntryItem):
    """Dynamic: inputs the inputSchema refuses must be refused (isError or -32602), and must
    never crash, hang or break the server (runs/tool_items)."""

    check = Check.REJECTS_INVALID.value

    def runtest(self) -> None:
        from pytest_mcp_contracts.runs.tool_items import check_rejects_invalid

        _run_check(
            self,
            self.server,
            lambda run, facts: check_rejects_invalid(run, self.tool, facts, _say(self)),
        )


class SecurityItem(_EntryItem):
    """Dynamic: probes that prove an argument or command injection by a file they make
    appear in a folder the run owns (runs/tool_items, runs/security)."""

    check = Check.SECURITY.value

    def runtest(self) -> None:
        from pytest_mcp_contracts.runs.tool_items import check_security

        _run_check(
            self,
            self.server,
            lambda run, facts: check_security(run, self.tool, facts, _say(self)),
        )


class StdoutItem(_RendersFailures):
    """One per stdio server that wrote on stdout, before its tool list was answered, lines
    that are not JSON-RPC messages (a banner): a client breaks on them (judges/stdout)."""

    check = Check.STDOUT.value

    def runtest(self) -> None:
        from pytest_mcp_contracts.runs.server_items import check_server_stdout

        assert isinstance(self.parent, ServerCollector)
        _run_check(self, self.parent.server, lambda run, facts: check_server_stdout(run))

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"{self.nodeid} [stdout]"


class ProtocolItem(_RendersFailures):
    """Dynamic, one per server: a conversation of its own on fresh connections that holds the
    server to the protocol's rules no schema can say (malformed requests, pagination,
    listings that vary, 2026-07-28's codes: runs/protocol, judges/protocol_rules). Every
    finding is reported; the errors fail the item, the others warn."""

    check = Check.PROTOCOL.value

    def runtest(self) -> None:
        from pytest_mcp_contracts.runs.protocol import check_server_protocol

        assert isinstance(self.parent, ServerCollector)
        server = self.parent.server
        found: list[Finding] = []
        _run_check(self, server, lambda run, facts: found.extend(check_server_protocol(run, facts)))

        def warn(message: str) -> None:
            assert server.surface is not None
            warn_at(self.nodeid, f"{shown(server.surface.name)}: {message}")

        def fail(problem: str, details: tuple[str, ...], kind: FailureKind) -> ContractFailure:
            return ContractFailure(
                FailureReport.for_tool(server, "(all)", self.check, problem, kind, details=details)
            )

        self._carry_findings(found, found, server, warn, fail, "requests")

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"{self.nodeid} [protocol]"


class SequencesItem(_RendersFailures):
    """Dynamic, one per server: sequences of calls in which values from earlier outputs
    (ids, names, paths) feed later inputs; each distinct failure (up to 3) is shrunk to its
    own shortest sequence, and the one failure of the item shows them all
    (runs/server_items)."""

    check = Check.SEQUENCES.value

    def runtest(self) -> None:
        from pytest_mcp_contracts.runs.server_items import check_server_sequences

        assert isinstance(self.parent, ServerCollector)
        _run_check(self, self.parent.server, check_server_sequences)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"{self.nodeid} [sequences]"


def warn_at(
    node: str, text: str, category: type[pytest.PytestWarning] = McpContractWarning
) -> None:
    """A warning located at a node id, not at a line of this file: that is what pytest's
    warnings summary prints, and what the user can act on."""
    warnings.warn_explicit(category(text), category, filename=node, lineno=0, module=__name__)


def _run_check(
    item: _RendersFailures,
    server: ManagedServer,
    check: Callable[[RunContext, ItemFacts], None],
) -> None:
    """Run ``check`` on its server's context (pytest/session.run_context) and turn what it
    says into pytest's outcomes: a skip named after the item (-rs shows where a skip was
    raised, not which item), and what it counted on the item's report whatever the
    outcome, with the time the check took beyond its phases (``CheckStats.clock_out``)."""
    from pytest_mcp_contracts.runs.context import ItemFacts, Skipped

    facts = ItemFacts()
    context = item.config.stash[CONTEXTS_KEY][server.node_name]
    started = time.monotonic()
    skipped = False
    try:
        context.begin(item.check)
        check(context, facts)
    except Skipped as exc:
        skipped = True
        pytest.skip(f"{item.nodeid}: {exc}")
    finally:
        share = context.run_time.end() if context.run_time is not None else None
        if share is not None and isinstance(item, _EntryItem) and isinstance(item.entry, Entry):
            facts.stats = facts.stats or CheckStats()
            facts.stats.settle_share(item.stats_key, share, skipped=skipped)
        if facts.stats is not None:
            facts.stats.clock_out(item.check, time.monotonic() - started)
            item.mcp_stats = facts.stats
        item.user_properties.extend(facts.properties)
        for title, text in facts.sections:
            item.add_report_section("call", title, text)


def _say(item: _EntryItem) -> Warn:
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
