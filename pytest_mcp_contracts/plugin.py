"""pytest hooks: translate pytest's events into calls on the pipeline modules.

Loading this module imports neither mcp, jsonschema nor hypothesis: a user who has the plugin
installed and passes no ``--mcp-*`` option pays nothing.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from collections.abc import Generator
from typing import TYPE_CHECKING, Any

import pytest

from pytest_mcp_contracts.pytest.imports import PLUGIN_PACKAGE, load_plainly

# Before the plugin's other modules are imported: pytest would rewrite their asserts, at a
# cost in every run where it cannot cache the result (pytest/imports.py). Hence the imports
# below this line (E402).
load_plainly(PLUGIN_PACKAGE)

from pytest_mcp_contracts.options import BY_FLAG, OPTIONS, Option  # noqa: E402
from pytest_mcp_contracts.pytest import fixtures  # noqa: E402
from pytest_mcp_contracts.pytest.keys import (  # noqa: E402
    HAND_OVER_KEY,
    RECORDER_KEY,
    SERVERS_KEY,
    SETTINGS_KEY,
)
from pytest_mcp_contracts.pytest.settings import (  # noqa: E402
    Settings,
    SettingsError,
    resolve,
    value_read_as_test_path,
)
from pytest_mcp_contracts.vocabulary import NODE_PREFIX, DescriptionDrift  # noqa: E402

if TYPE_CHECKING:
    from pathlib import Path

    from pytest_mcp_contracts.reporting.facts import RunFacts
    from pytest_mcp_contracts.transport.managed import ManagedServer

ENTRY_POINT = "mcp_contracts"  # the pytest11 entry point's name (pyproject.toml)
STEP_SUMMARY_ENV = "GITHUB_STEP_SUMMARY"
WORKER_OUTPUT_KEY = "mcp_contracts"
RELIST_TIMEOUT = 10.0  # seconds for the tool list read again at the end of the run


class XdistHooks:
    """Registered only when xdist is installed: its hooks are unknown to pytest without it."""

    def __init__(self, run: RunFacts) -> None:
        self.run = run

    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        from pytest_mcp_contracts.reporting.runreport import from_the_wire

        output = getattr(node, "workeroutput", {})
        facts = from_the_wire(output.get(WORKER_OUTPUT_KEY))
        worker = str(getattr(node.gateway, "id", id(node)))
        if HAND_OVER_KEY in output:
            self.run.handed_over[worker] = from_the_wire(output[HAND_OVER_KEY])
        if facts is not None:
            self.run.add_worker(worker, facts)  # JSON: read back into WorkerFacts
        elif worker not in self.run.workers:
            self.run.lost_workers += 1


RUN_FACTS_KEY: pytest.StashKey[RunFacts] = pytest.StashKey()


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    from pytest_mcp_contracts import hooks

    pluginmanager.add_hookspecs(hooks)


def pytest_addoption(parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager) -> None:
    group = parser.getgroup("mcp-contracts", "MCP server contract testing")
    # Another plugin registered one of these flags before this one. pytest 9 says so when
    # the option is added (argparse's ArgumentError), pytest 8 only when it parses, as a
    # traceback: the flags already in the parser's groups are looked at first.
    taken = {
        name
        for registered in (*getattr(parser, "_groups", ()), getattr(parser, "_anonymous", None))
        for argument in getattr(registered, "options", ())
        for name in argument.names()
    }
    for option in OPTIONS:
        try:
            if option.flag in taken:
                raise argparse.ArgumentError(None, "conflicting option string")
            _add_option(parser, group, option)
        except argparse.ArgumentError:
            from pytest_mcp_contracts.pytest.conflict import option_conflict

            ours = pluginmanager.get_name(sys.modules[__name__]) or ENTRY_POINT
            raise pytest.UsageError(option_conflict(option.flag, pluginmanager, ours)) from None


def _add_option(parser: pytest.Parser, group: pytest.OptionGroup, option: Option) -> None:
    dest = option.dest
    if option.kind in ("servers", "lines"):
        group.addoption(
            option.flag,
            action="append",
            dest=dest,
            metavar=option.shown_metavar,
            help=option.help,
        )
        parser.addini(option.ini, option.help, type="linelist", default=[])
    elif option.kind == "flag":
        group.addoption(option.flag, dest=dest, action="store_true", default=None, help=option.help)
    else:
        group.addoption(
            option.flag, dest=dest, default=None, metavar=option.shown_metavar, help=option.help
        )
    if option.ini_too and option.kind not in ("servers", "lines"):
        parser.addini(option.ini, option.help, default=None)


@pytest.hookimpl(tryfirst=True)  # before hypothesis's, which may import hypothesis
def pytest_configure(config: pytest.Config) -> None:
    def cli(flag: str) -> Any:
        return config.getoption(BY_FLAG[flag].dest)

    words = [*shlex.split(os.environ.get("PYTEST_ADDOPTS", "")), *config.invocation_params.args]
    misread = value_read_as_test_path(words, config.invocation_params.dir)
    if misread is not None:
        raise pytest.UsageError(misread)
    try:
        settings = resolve(cli, config.getini, rootdir=config.rootpath, environ=os.environ)
    except SettingsError as exc:
        raise pytest.UsageError(str(exc)) from None
    config.stash[SETTINGS_KEY] = settings
    config.stash[SERVERS_KEY] = []
    # mcp_server and mcp_servers, for hand-written tests (an error when no server is set).
    config.pluginmanager.register(fixtures, "mcp-contracts-fixtures")
    if settings.active:
        load_plainly("hypothesis")  # the checks import it: pytest/imports.py
        from pytest_mcp_contracts.contracts.record import Recorder
        from pytest_mcp_contracts.contracts.snapshot import SnapshotStore
        from pytest_mcp_contracts.pytest.heap import LongLived

        config.stash[RECORDER_KEY] = Recorder(
            SnapshotStore(settings.snapshot_dir),
            settings.mode,
            strict=settings.strict,
            pin_descriptions=settings.descriptions == DescriptionDrift.PIN,
        )
        config.pluginmanager.register(LongLived(), "mcp-contracts-long-lived")
    documents = (settings.report_path, settings.sarif_path, settings.html_path)
    if settings.active or any(path is not None for path in documents):
        from pytest_mcp_contracts.reporting.facts import RunFacts

        run = config.stash[RUN_FACTS_KEY] = RunFacts()
        config.pluginmanager.register(run, "mcp-contracts-run-facts")
        if config.pluginmanager.hasplugin("xdist"):
            config.pluginmanager.register(XdistHooks(run), "mcp-contracts-xdist")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """The item's numbers, its findings and its failure's kind ride on its report, to the
    xdist controller too (hypothesis's pytest plugin carries its statistics the same way)."""
    report = yield
    stats = getattr(item, "mcp_stats", None)
    if stats is not None and call.when == "call":
        from pytest_mcp_contracts.reporting.facts import STATS_KEY

        report.__dict__[STATS_KEY] = stats.to_json()
    findings = getattr(item, "mcp_findings", None)
    if findings is not None and call.when == "call":
        from pytest_mcp_contracts.reporting.findings import FINDINGS_KEY

        report.__dict__[FINDINGS_KEY] = findings
    error: Any = call.excinfo.value if call.excinfo is not None else None
    if report.failed and hasattr(error, "kind") and hasattr(error, "severity"):
        from pytest_mcp_contracts.reporting.facts import FAILURE_KEY, failure_facts

        report.__dict__[FAILURE_KEY] = failure_facts(error)
    return report


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Generator[None, Any, Any]:
    report = yield
    if isinstance(collector, pytest.Session) and report.passed:
        settings = collector.config.stash[SETTINGS_KEY]
        if settings.active:
            from pytest_mcp_contracts.pytest.items import ServerStartFailure
            from pytest_mcp_contracts.pytest.session import collect_servers

            try:
                collectors = collect_servers(
                    collector, settings, collector.config.stash[SERVERS_KEY]
                )
            except SettingsError as exc:
                if not hasattr(collector.config, "workerinput"):
                    raise pytest.UsageError(str(exc)) from None
                # An xdist worker's usage error never reaches the controller; this does.
                report.outcome, report.longrepr = "failed", str(exc)
                return report
            report.result.extend(collectors)
            run = collector.config.stash[RUN_FACTS_KEY]
            for index, node in enumerate(collectors):  # one per server, in the same order
                if isinstance(node, ServerStartFailure):
                    run.start_errors[index] = (node.name.removeprefix(NODE_PREFIX), node.message)
    return report


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    servers = session.config.stash.get(SERVERS_KEY, [])
    for server in servers:
        server.relist(timeout=min(server.startup_timeout, RELIST_TIMEOUT))
    if servers:
        from pytest_mcp_contracts.transport.connect import close_together

        close_together(servers)
    run = session.config.stash.get(RUN_FACTS_KEY, None)
    recorder = session.config.stash.get(RECORDER_KEY, None)
    if recorder is not None:
        from pytest_mcp_contracts.pytest.session import finish_recording

        finish_recording(
            recorder,
            servers,
            session.config.stash[SETTINGS_KEY],
            workeroutput=getattr(session.config, "workeroutput", None),
            handed_over=[run.handed_over[w] for w in sorted(run.handed_over)]
            if run is not None
            else None,
        )
    if run is not None:
        _finish_run_report(session.config, run, int(exitstatus))
        if run.partial and exitstatus == pytest.ExitCode.OK:
            # Calls, counts and contracts of a worker are lost: a green run would hide that.
            session.exitstatus = pytest.ExitCode.TESTS_FAILED


def _finish_run_report(config: pytest.Config, run: RunFacts, exit_status: int) -> None:
    """An xdist worker sends its facts to the controller; the controller (or a serial run,
    its one worker) folds them and writes the report and the GitHub job summary."""
    from pytest_mcp_contracts.contracts.snapshot import dumps
    from pytest_mcp_contracts.reporting import runreport
    from pytest_mcp_contracts.reporting.facts import SERIAL
    from pytest_mcp_contracts.reporting.worker import WorkerFacts

    settings: Settings = config.stash[SETTINGS_KEY]
    servers: list[ManagedServer] = config.stash.get(SERVERS_KEY, [])
    recorder = config.stash.get(RECORDER_KEY, None)
    handwritten = fixtures.handwritten_calls(config)
    facts = WorkerFacts.collect(servers, recorder, run.start_errors, handwritten)
    workeroutput = getattr(config, "workeroutput", None)
    if workeroutput is not None:
        workeroutput[WORKER_OUTPUT_KEY] = runreport.for_the_wire(facts.to_json())
        return
    if config.pluginmanager.hasplugin("dsession"):  # the xdist controller runs no server
        run.partial = run.lost_workers > 0 or not run.workers
        run.fold(controller=facts)  # the contracts the workers handed over were written here
    else:
        run.add_worker(SERIAL, facts)
        run.fold()
    assert run.folded is not None
    if settings.report_path is not None:
        document = runreport.build_report(
            run.folded, exit_status=exit_status, mode=settings.mode, rootdir=config.rootpath
        )
        _write_document(settings.report_path, "the run report", dumps(document))
    if settings.sarif_path is not None:
        from pytest_mcp_contracts.reporting.sarif import sarif_log
        from pytest_mcp_contracts.vocabulary import VERSION

        log = sarif_log(
            run.folded,
            rootdir=config.rootpath,
            snapshot_dir=settings.snapshot_dir,
            config_file=config.inipath,
            tool_version=VERSION,
        )
        _write_document(settings.sarif_path, "the SARIF file", dumps(log))
    if settings.html_path is not None:
        from pytest_mcp_contracts.reporting.html import html_report

        page = html_report(
            run.folded, exit_status=exit_status, mode=settings.mode, rootdir=config.rootpath
        )
        _write_document(settings.html_path, "the HTML report", page)
    summary = os.environ.get(STEP_SUMMARY_ENV, "")
    if settings.active and summary:
        try:
            with open(summary, "a", encoding="utf-8") as handle:
                handle.write(runreport.step_summary(run.folded, settings.clients))
        except OSError as exc:
            _warn(f"could not append to {STEP_SUMMARY_ENV} ({summary}): {exc}")


def _write_document(path: Path, what: str, text: str) -> None:
    """One of the run's documents, written whole or not at all, only where the user said."""
    from pytest_mcp_contracts.contracts.snapshot import write_atomic

    try:
        write_atomic(path, text)
    except OSError as exc:
        _warn(f"could not write {what} {path}: {exc}")


def _warn(message: str) -> None:
    import warnings

    warnings.warn(pytest.PytestWarning(message), stacklevel=1)


def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, exitstatus: pytest.ExitCode
) -> None:
    config = terminalreporter.config
    if config.getoption("collectonly") or exitstatus == pytest.ExitCode.USAGE_ERROR:
        return  # nothing ran: a summary would only repeat the listing as zero calls
    run = config.stash.get(RUN_FACTS_KEY, None)
    if run is None or run.folded is None or not config.stash[SETTINGS_KEY].active:
        return
    controller = config.pluginmanager.hasplugin("dsession")
    if not controller and not config.stash.get(SERVERS_KEY, []):
        return
    from pytest_mcp_contracts.reporting.failure import rerun_command
    from pytest_mcp_contracts.reporting.summary import lost_workers_lines, summary_lines

    terminalreporter.section("MCP contracts")
    command = rerun_command(config.invocation_params.args)
    verbose = config.get_verbosity() > 0
    settings = config.stash[SETTINGS_KEY]
    lines = summary_lines(
        run.folded, settings.mode, command, verbose=verbose, clients=settings.clients
    )
    for line in lines:
        terminalreporter.write_line(line)
    if controller:
        for line in lost_workers_lines(run.lost_workers if run.workers else None):
            terminalreporter.write_line(line, red=True, bold=True)
