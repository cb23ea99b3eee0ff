"""Start every configured server (in parallel: each may take a second or more) and turn each
into a collector, or into one clear collection error when it does not start."""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import pytest

from pytest_mcp_contracts.contracts.record import (
    Recorder,
    export_proposals,
    follow_former_names,
)
from pytest_mcp_contracts.contracts.snapshot import file_of
from pytest_mcp_contracts.inputs.elicitation import form_content
from pytest_mcp_contracts.pytest.heap import importing
from pytest_mcp_contracts.pytest.items import (
    ServerCollector,
    ServerStartFailure,
    _accept,
    _command,
    start_failure_text,
)
from pytest_mcp_contracts.pytest.keys import (
    CANARIES_KEY,
    CONTEXTS_KEY,
    HAND_OVER_KEY,
    RECORDER_KEY,
    RUN_TIME_KEY,
    SANDBOX_KEY,
)
from pytest_mcp_contracts.pytest.settings import (
    Settings,
    SettingsError,
    unknown_listed_tables,
    unknown_tool_tables,
)
from pytest_mcp_contracts.reporting.runreport import for_the_wire
from pytest_mcp_contracts.schema.formats import import_jsonschema
from pytest_mcp_contracts.transport.client import Client, ClientSettings
from pytest_mcp_contracts.transport.client_config import configured_name
from pytest_mcp_contracts.transport.discover import (
    ServerSurface,
    former_node_names,
    node_names,
)
from pytest_mcp_contracts.transport.errors import ServerError
from pytest_mcp_contracts.transport.inprocess import ServerApp
from pytest_mcp_contracts.transport.managed import ManagedServer
from pytest_mcp_contracts.transport.stdio import ServerCommand

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from pytest_mcp_contracts.runs.context import RunContext
    from pytest_mcp_contracts.runs.run_time import RunTime
    from pytest_mcp_contracts.transport.discover import Entry
    from pytest_mcp_contracts.transport.http import ServerUrl
    from pytest_mcp_contracts.transport.state import WorkerPlace


def _start(server: ManagedServer) -> ServerSurface | ServerError:
    try:
        return server.start()
    except ServerError as exc:
        return exc


def lay_canaries(config: pytest.Config, settings: Settings) -> None:
    """The folder the security probes' files may appear in, made for this run (each xdist
    worker its own) and removed at its end."""
    from pytest_mcp_contracts.vocabulary import SecurityMode

    if settings.security == SecurityMode.OFF:
        return
    from pytest_mcp_contracts.inputs.probes import CanarySpace

    space = CanarySpace()
    config.stash[CANARIES_KEY] = space
    config.add_cleanup(space.remove)


def roots_folder(config: pytest.Config, settings: Settings) -> Path:
    """The client's one root: a fresh folder removed at the end of the run, laid as the
    sandbox (anew by each tool's items) unless --mcp-roots=none."""
    roots = Path(tempfile.mkdtemp(prefix="pytest-mcp-roots-")).resolve()
    if settings.sandbox:
        from pytest_mcp_contracts.inputs.sandbox import Sandbox, SandboxError

        try:
            sandbox = Sandbox(roots, settings.roots)
            sandbox.lay()  # its values are read now: the strategies are built from them
        except SandboxError as exc:
            shutil.rmtree(roots, ignore_errors=True)
            raise SettingsError(str(exc)) from None
        config.stash[SANDBOX_KEY] = sandbox
        config.add_cleanup(sandbox.finish)
    else:
        config.add_cleanup(lambda: shutil.rmtree(roots, ignore_errors=True))
    return roots


def client_settings(config: pytest.Config, settings: Settings, roots: Path) -> ClientSettings:
    """How the client answers servers' requests: its one root (``roots_folder``), canned
    sampling texts, the elicitation answer, and the conftest hook for sampling."""
    hook = config.hook.pytest_mcp_sampling_reply

    def sampling_hook(server: str, tool: str, params: dict[str, Any]) -> Any:
        return hook(server=server, tool=tool, params=params, config=config)

    return ClientSettings(
        roots=(roots.as_uri(),),
        sampling_text=settings.sampling_text,
        tool_sampling_texts={
            name: tool.sampling_text
            for name, tool in settings.tools.items()
            if tool.sampling_text is not None
        },
        elicitation=settings.elicitation,
        sampling_hook=sampling_hook,
        form_content=form_content,
    )


def worker_places(
    config: pytest.Config, commands: tuple[ServerCommand | ServerUrl | ServerApp, ...]
) -> tuple[str, list[WorkerPlace | None]]:
    """This process's worker id (``main`` without xdist) and how it starts each server
    command: ``{worker}`` expanded and, under xdist, each in a folder of its own (its TMPDIR,
    and its copies of the state files its command names, which every worker's process would
    otherwise share: transport/state.for_worker). The folders go at the end of the run."""
    from pytest_mcp_contracts.transport.state import SERIAL_WORKER, for_worker

    workerinput = getattr(config, "workerinput", None)
    worker = str(workerinput["workerid"]) if workerinput is not None else SERIAL_WORKER
    private: Path | None = None
    if workerinput is not None and any(isinstance(c, ServerCommand) for c in commands):
        folder = Path(tempfile.mkdtemp(prefix=f"pytest-mcp-{worker}-")).resolve()
        config.add_cleanup(lambda: shutil.rmtree(folder, ignore_errors=True))
        private = folder
    places: list[WorkerPlace | None] = []
    for index, command in enumerate(commands):
        server_folder = None
        if private is not None:
            server_folder = private / str(index)
            server_folder.mkdir()
        places.append(
            for_worker(command, worker, server_folder)
            if isinstance(command, ServerCommand)
            else None
        )
    return worker, places


def state_tools(settings: Settings) -> Callable[[ServerSurface], list[Entry]]:
    """Which of a server's tools may be asked what state it holds (ManagedServer's
    ``state_tools``): read-only, taking no arguments, and called by this run anyway (the
    call policy and the tool tables allow it)."""

    def pick(surface: ServerSurface) -> list[Entry]:
        from pytest_mcp_contracts.transport.call_policy import tool_refusal

        found = []
        for tool in surface.tools:
            schema = tool.input_schema if isinstance(tool.input_schema, dict) else {}
            if tool.annotations.get("readOnlyHint") is not True:
                continue
            if schema.get("properties") or schema.get("required"):
                continue  # a tool that takes arguments: {} is not what it is called with
            tool_config = settings.tool(surface.name, tool.name)
            policy = settings.call_policy
            if tool_refusal(
                tool,
                surface.capabilities,
                policy=policy,
                tool_policy=tool_config.call,
                skip=tool_config.skip,
            ):
                continue
            found.append(tool)
        return found

    return pick


def collect_servers(
    session: pytest.Session, settings: Settings, started: list[ManagedServer]
) -> list[pytest.Collector]:
    from pytest_mcp_contracts.transport.state import with_roots

    roots = roots_folder(session.config, settings)
    answers = client_settings(session.config, settings, roots)
    lay_canaries(session.config, settings)
    commands = tuple(
        with_roots(command, roots) if isinstance(command, ServerCommand) else command
        for command in settings.servers
    )
    worker, places = worker_places(session.config, commands)
    servers = [
        ManagedServer(
            command=command,
            startup_timeout=settings.startup_timeout,
            call_timeout=settings.call_timeout,
            max_message_bytes=settings.max_result_bytes,
            max_call_time=settings.max_call_time,
            max_memory=settings.max_server_memory,
            client=Client(answers),
            place=place,
            worker=worker,
            state_tools=state_tools(settings),
        )
        for command, place in zip(commands, places, strict=True)
    ]
    started.extend(servers)
    with ThreadPoolExecutor(max_workers=len(servers)) as pool:
        starting = [pool.submit(_start, server) for server in servers]
        _import_checks(session.config, settings)
        outcomes = [start.result() for start in starting]
    _check_tool_tables(settings, outcomes)
    collectors: list[pytest.Collector] = []
    # Named together, as a listing's entries are: a hash only where two would meet. A server
    # from a client config goes by its name there, which its user chose and reads.
    names = [
        configured_name(server.command)
        or (server.command.label if isinstance(outcome, ServerError) else outcome.name)
        for server, outcome in zip(servers, outcomes, strict=True)
    ]
    recorder = session.config.stash.get(RECORDER_KEY, None)
    contexts = session.config.stash.setdefault(CONTEXTS_KEY, {})
    if settings.run_time is not None:
        session.config.stash[RUN_TIME_KEY] = run_time(session, settings.run_time, settings.workers)
    for server, outcome, name, former in zip(
        servers, outcomes, node_names(names), former_node_names(names), strict=True
    ):
        if isinstance(outcome, ServerError):
            text = start_failure_text(server, outcome.message, outcome.stderr_tail)
            collectors.append(ServerStartFailure.create(session, name, message=text))
        else:
            server.node_name = name
            if recorder is not None:
                follow_former_names(recorder.store, name, former, outcome)
                contexts[name] = run_context(session.config, settings, recorder, server)
            collectors.append(ServerCollector.create(session, name, server=server))
    return collectors


def run_time(session: pytest.Session, seconds: float, workers: int) -> RunTime:
    """The run's time budget, from now, divided among the checks this run collects (counted
    when the first check asks: collection is over then) by the xdist workers running them."""
    from pytest_mcp_contracts.runs.run_time import TIMED_CHECKS, RunTime

    def planned() -> int:
        return sum(getattr(item, "check", "") in TIMED_CHECKS for item in session.items)

    return RunTime(seconds, planned, workers)


def run_context(
    config: pytest.Config, settings: Settings, recorder: Recorder, server: ManagedServer
) -> RunContext:
    """What this run decides for one started server's checks (runs/context), from its
    settings, stash, conftest hooks and command line."""
    from pytest_mcp_contracts.runs.context import RunContext
    from pytest_mcp_contracts.vocabulary import VERSION

    hook = config.hook.pytest_mcp_tool_strategy

    def strategy_answers(server: str, tool: Entry) -> Sequence[Any]:
        answers: Sequence[Any] = hook(
            server=server, tool=tool.name, input_schema=tool.input_schema, config=config
        )
        return answers

    return RunContext(
        server,
        settings,
        recorder,
        sandbox=config.stash.get(SANDBOX_KEY, None),
        canaries=config.stash.get(CANARIES_KEY, None),
        seed=hypothesis_seed(config),
        strategy_answers=strategy_answers,
        cache=getattr(config, "cache", None),
        version=VERSION,
        record_command=_command(config),
        accept_command=_accept(config),
        unusable=_fail_plainly,
        run_time=config.stash.get(RUN_TIME_KEY, None),
    )


def _fail_plainly(text: str) -> NoReturn:
    pytest.fail(text, pytrace=False)


def hypothesis_seed(config: pytest.Config) -> Any:
    """``--hypothesis-seed`` as hypothesis's own plugin reads it (an int when it is one).
    Passed on explicitly: under CI, hypothesis's derandomized profile would ignore it."""
    raw = config.getoption("hypothesis_seed", default=None)
    if raw is None:
        return None
    try:
        return int(raw)
    except ValueError:
        return raw


# What the items of a whole run import when they first run (jsonschema, hypothesis,
# hypothesis-jsonschema and the checks): about a quarter of a second, in the order the items
# would import it.
CHECK_MODULES = (
    "pytest_mcp_contracts.judges.tool_listing",
    "pytest_mcp_contracts.judges.drift_gate",
    "pytest_mcp_contracts.runs.contract",
    "pytest_mcp_contracts.inputs.generate",
    "pytest_mcp_contracts.runs.rejects_invalid",
    "pytest_mcp_contracts.inputs.invalid",
)
SEQUENCE_MODULES = ("pytest_mcp_contracts.runs.sequences.check", "hypothesis.stateful")


def _import_checks(config: pytest.Config, settings: Settings) -> None:
    """Import what the checks need while the servers start: the process would otherwise
    wait for them, then import (a server on an SDK takes half a second or more to answer
    its handshake). Only for a whole run: ``--collect-only`` runs no check, and a run that
    selects with ``-k`` or ``-m`` may need none of them (``-k drift`` imports neither
    jsonschema nor hypothesis), so their items import what they need as they run. Not
    beside an in-process app, whose start imports the user's modules in another thread
    (two threads importing modules that import each other can deadlock). An import that
    fails here fails again in the items that need it, which say so in their own words."""
    option = config.option
    if option.collectonly or option.keyword or option.markexpr:
        return
    if any(isinstance(server, ServerApp) for server in settings.servers):
        return
    import importlib

    with contextlib.suppress(Exception), importing():
        import_jsonschema()
        for module in CHECK_MODULES + (SEQUENCE_MODULES if settings.sequences else ()):
            importlib.import_module(module)


def _check_tool_tables(settings: Settings, outcomes: list[ServerSurface | ServerError]) -> None:
    """A tool table naming no listed tool raises SettingsError, before any tool is called.
    When a server did not start its tools are unknown, so nothing is judged: its collection
    error stops the run anyway."""
    if any(isinstance(o, ServerError) for o in outcomes):
        return
    surfaces = [o for o in outcomes if isinstance(o, ServerSurface)]
    listed = [(o.name, t.name) for o in surfaces for t in o.tools]
    problem = unknown_tool_tables(settings.tools, listed) if settings.tools else None
    if problem is None and settings.listed_skips:
        entries = [(e.kind, e.key) for o in surfaces for e in o.listed]
        problem = unknown_listed_tables(settings.listed_skips, entries)
    if problem is not None:
        raise SettingsError(f"{problem} (pyproject.toml)")


def listed_files(servers: list[ManagedServer]) -> dict[str, set[str]]:
    """Each started server's listed entries (their file names), by server node name: what
    an update keeps."""

    return {
        s.node_name: {file_of(e) for e in s.surface.entries}
        for s in servers
        if s.surface is not None and s.node_name
    }


def finish_recording(
    recorder: Recorder,
    servers: list[ManagedServer],
    settings: Settings,
    *,
    workeroutput: dict[str, Any] | None = None,
    handed_over: list[dict[str, Any]] | None = None,
) -> None:
    """Session end: write the queued contracts, prune under update, export proposals.

    An xdist worker writes no contract: it hands its queue to the controller (through
    ``workeroutput``), and the controller writes everything once, as a serial run would
    (``handed_over``: what each worker handed over).
    """
    listed = listed_files(servers)
    if settings.export_dir is not None:
        recorder.exported = export_proposals(recorder, settings.export_dir)
    if workeroutput is not None:
        workeroutput[HAND_OVER_KEY] = for_the_wire(recorder.hand_over(listed), "contracts")
        return
    for handed in handed_over or []:
        for server, tools in recorder.take_over(handed).items():
            listed[server] = listed.get(server, set()) | tools
    recorder.flush(listed)
