"""pytest hooks: translate pytest's events into calls on the pipeline modules.

Loading this module imports neither mcp, jsonschema nor hypothesis: a user who has the plugin
installed and passes no ``--mcp-*`` option pays nothing.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Generator
from typing import TYPE_CHECKING, Any

import pytest

from pytest_mcp_contracts.pytest.keys import HAND_OVER_KEY, RECORDER_KEY, SERVERS_KEY, SETTINGS_KEY
from pytest_mcp_contracts.pytest.settings import (
    OPTIONS,
    Settings,
    SettingsError,
    resolve,
    value_read_as_test_path,
)
from pytest_mcp_contracts.vocabulary import NODE_PREFIX

if TYPE_CHECKING:
    from pytest_mcp_contracts.transport.managed import ManagedServer

STEP_SUMMARY_ENV = "GITHUB_STEP_SUMMARY"
WORKER_OUTPUT_KEY = "mcp_contracts"
RELIST_TIMEOUT = 10.0  # seconds for the tool list read again at the end of the run


class RunState:
    """What the run report needs beyond the servers: each check's outcome (from the test
    reports, which an xdist controller receives from every worker), the servers that did not
    start, and the facts xdist workers sent."""

    def __init__(self) -> None:
        self.outcomes: dict[str, dict[str, Any]] = {}
        self.start_errors: dict[int, tuple[str, str]] = {}  # by position in SERVERS_KEY
        self.worker_facts: dict[str, Any] = {}  # by worker id
        self.handed_over: dict[str, Any] = {}  # by worker id: the contracts it did not write
        self.merged_facts: dict[str, Any] | None = None  # on an xdist controller, at the end
        self.lost_workers = 0
        self.partial = False  # on an xdist controller: some worker's results never arrived

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if not report.nodeid.startswith(NODE_PREFIX):
            return
        found = self.outcomes.setdefault(report.nodeid, {"outcome": "passed", "duration": 0.0})
        found["duration"] += report.duration
        if report.when == "call" or (report.when == "setup" and not report.passed):
            found["outcome"] = report.outcome
        elif report.failed:  # a teardown failure fails the check
            found["outcome"] = "failed"
        if not report.passed and "message" not in found:
            found["message"] = _first_line(report)


class XdistHooks:
    """Registered only when xdist is installed: its hooks are unknown to pytest without it."""

    def __init__(self, run: RunState) -> None:
        self.run = run

    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        output = getattr(node, "workeroutput", {})
        facts = output.get(WORKER_OUTPUT_KEY)
        worker = str(getattr(node.gateway, "id", id(node)))
        if HAND_OVER_KEY in output:
            self.run.handed_over[worker] = output[HAND_OVER_KEY]
        if facts is not None:
            self.run.worker_facts[worker] = facts
        elif worker not in self.run.worker_facts:
            self.run.lost_workers += 1


RUN_STATE_KEY: pytest.StashKey[RunState] = pytest.StashKey()


def _first_line(report: pytest.TestReport) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple):  # a skip: (path, line, reason)
        text = str(longrepr[2]).removeprefix("Skipped: ")
    else:
        # Not longreprtext: under xdist it starts with the worker's name.
        crash = None if isinstance(longrepr, str) else getattr(longrepr, "reprcrash", None)
        text = str(crash.message) if crash is not None else str(longrepr or "")
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    from pytest_mcp_contracts import hooks

    pluginmanager.add_hookspecs(hooks)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("mcp-contracts", "MCP server contract testing")
    for option in OPTIONS:
        dest = option.flag.removeprefix("--").replace("-", "_")
        if option.kind in ("servers", "lines"):
            group.addoption(
                option.flag,
                action="append",
                dest=dest,
                metavar=option.metavar or "CMD",
                help=option.help,
            )
            parser.addini(option.ini, option.help, type="linelist", default=[])
        elif option.kind == "flag":
            group.addoption(
                option.flag, dest=dest, action="store_true", default=None, help=option.help
            )
        else:
            metavar = option.metavar or ("DIR" if option.kind == "path" else "N")
            group.addoption(option.flag, dest=dest, default=None, metavar=metavar, help=option.help)
        if option.ini_too and option.kind not in ("servers", "lines"):
            parser.addini(option.ini, option.help, default=None)


def pytest_configure(config: pytest.Config) -> None:
    def cli(flag: str) -> Any:
        return config.getoption(flag.removeprefix("--").replace("-", "_"))

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
    if settings.active:
        from pytest_mcp_contracts.contracts.record import Recorder
        from pytest_mcp_contracts.contracts.snapshot import SnapshotStore

        config.stash[RECORDER_KEY] = Recorder(
            SnapshotStore(settings.snapshot_dir), settings.mode, strict=settings.strict
        )
    if settings.active or settings.report_path is not None:
        run = config.stash[RUN_STATE_KEY] = RunState()
        config.pluginmanager.register(run, "mcp-contracts-run-state")
        if config.pluginmanager.hasplugin("xdist"):
            config.pluginmanager.register(XdistHooks(run), "mcp-contracts-xdist")


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
            run = collector.config.stash[RUN_STATE_KEY]
            for index, node in enumerate(collectors):  # one per server, in the same order
                if isinstance(node, ServerStartFailure):
                    run.start_errors[index] = (node.name.removeprefix(NODE_PREFIX), node.message)
    return report


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    servers = session.config.stash.get(SERVERS_KEY, [])
    for server in servers:
        server.relist(timeout=min(server.startup_timeout, RELIST_TIMEOUT))
        server.close()
    recorder = session.config.stash.get(RECORDER_KEY, None)
    if recorder is not None:
        from pytest_mcp_contracts.pytest.session import finish_recording

        run = session.config.stash.get(RUN_STATE_KEY, None)
        finish_recording(
            recorder,
            servers,
            session.config.stash[SETTINGS_KEY],
            workeroutput=getattr(session.config, "workeroutput", None),
            handed_over=[run.handed_over[w] for w in sorted(run.handed_over)]
            if run is not None
            else None,
        )
    if RUN_STATE_KEY in session.config.stash:
        _finish_run_report(session.config, int(exitstatus))
        if session.config.stash[RUN_STATE_KEY].partial and exitstatus == pytest.ExitCode.OK:
            # Calls, counts and contracts of a worker are lost: a green run would hide that.
            session.exitstatus = pytest.ExitCode.TESTS_FAILED


def _finish_run_report(config: pytest.Config, exit_status: int) -> None:
    """An xdist worker sends its facts to the controller; the controller (or a serial run)
    writes the report and the GitHub job summary."""
    from pytest_mcp_contracts.contracts.snapshot import dumps, write_atomic
    from pytest_mcp_contracts.reporting import runreport

    settings: Settings = config.stash[SETTINGS_KEY]
    run = config.stash[RUN_STATE_KEY]
    servers: list[ManagedServer] = config.stash.get(SERVERS_KEY, [])
    facts = runreport.server_facts(
        servers,
        config.stash.get(RECORDER_KEY, None),
        run.start_errors,
        config.rootpath,
    )
    workeroutput = getattr(config, "workeroutput", None)
    if workeroutput is not None:
        workeroutput[WORKER_OUTPUT_KEY] = runreport.for_the_wire(facts)
        return
    partial = False
    if config.pluginmanager.hasplugin("dsession"):  # the xdist controller runs no server
        facts = runreport.merge_facts([run.worker_facts[w] for w in sorted(run.worker_facts)])
        partial = run.lost_workers > 0 or not run.worker_facts
        run.partial = partial
        recorder = config.stash.get(RECORDER_KEY, None)
        if recorder is not None:  # the controller wrote the contracts the workers handed over
            own = runreport.server_facts([], recorder, {}, config.rootpath)["snapshots"]
            facts["snapshots"].update(written=own["written"], pruned=own["pruned"])
        run.merged_facts = facts
    document = runreport.build_report(
        facts, run.outcomes, exit_status=exit_status, mode=settings.mode, partial=partial
    )
    if settings.report_path is not None:
        try:
            write_atomic(settings.report_path, dumps(document))
        except OSError as exc:
            _warn(f"could not write the run report {settings.report_path}: {exc}")
    summary = os.environ.get(STEP_SUMMARY_ENV, "")
    if settings.active and summary:
        try:
            with open(summary, "a", encoding="utf-8") as handle:
                handle.write(runreport.step_summary(document))
        except OSError as exc:
            _warn(f"could not append to {STEP_SUMMARY_ENV} ({summary}): {exc}")


def _warn(message: str) -> None:
    import warnings

    warnings.warn(pytest.PytestWarning(message), stacklevel=1)


def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, exitstatus: pytest.ExitCode
) -> None:
    if (
        terminalreporter.config.getoption("collectonly")
        or exitstatus == pytest.ExitCode.USAGE_ERROR
    ):
        return  # nothing ran: a summary would only repeat the listing as zero calls
    servers = terminalreporter.config.stash.get(SERVERS_KEY, [])
    run = terminalreporter.config.stash.get(RUN_STATE_KEY, None)
    if not servers and run is not None and run.merged_facts is not None:
        from pytest_mcp_contracts.reporting.summary import lost_workers_lines, workers_summary_lines

        terminalreporter.section("MCP contracts")
        recorder = terminalreporter.config.stash[RECORDER_KEY]
        for line in workers_summary_lines(run.merged_facts, recorder):
            terminalreporter.write_line(line)
        for line in lost_workers_lines(run.lost_workers if run.worker_facts else None):
            terminalreporter.write_line(line, red=True, bold=True)
        return
    if not servers:
        return
    from pytest_mcp_contracts.reporting.summary import server_summary_lines

    terminalreporter.section("MCP contracts")
    recorder = terminalreporter.config.stash[RECORDER_KEY]
    from pytest_mcp_contracts.reporting.failure import rerun_command

    command = rerun_command(terminalreporter.config.invocation_params.args)
    verbose = terminalreporter.config.get_verbosity() > 0
    for line in server_summary_lines(servers, recorder, command, verbose=verbose):
        terminalreporter.write_line(line)
