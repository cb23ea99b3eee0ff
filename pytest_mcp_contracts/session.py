"""Start every configured server (in parallel: each may take a second or more) and turn each
into a collector, or into one clear collection error when it does not start."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from .call import ManagedServer
from .connect import ServerError
from .discover import ServerSurface, command_label, safe_name
from .items import ServerCollector, ServerStartFailure, start_failure_text
from .record import Recorder, export_proposals
from .settings import Settings


def _start(server: ManagedServer) -> ServerSurface | ServerError:
    try:
        return server.start()
    except ServerError as exc:
        return exc


def collect_servers(
    session: pytest.Session, settings: Settings, started: list[ManagedServer]
) -> list[pytest.Collector]:
    servers = [
        ManagedServer(
            command=command,
            startup_timeout=settings.startup_timeout,
            call_timeout=settings.call_timeout,
            max_message_bytes=settings.max_result_bytes,
        )
        for command in settings.servers
    ]
    started.extend(servers)
    with ThreadPoolExecutor(max_workers=len(servers)) as pool:
        outcomes = list(pool.map(_start, servers))
    collectors: list[pytest.Collector] = []
    used: set[str] = set()
    for server, outcome in zip(servers, outcomes, strict=True):
        if isinstance(outcome, ServerError):
            name = _unique(safe_name(command_label(server.command.argv)), used)
            text = start_failure_text(server, outcome.message, outcome.stderr_tail)
            collectors.append(ServerStartFailure.create(session, name, message=text))
        else:
            name = _unique(outcome.node_name, used)
            server.node_name = name
            collectors.append(ServerCollector.create(session, name, server=server))
    return collectors


def _unique(name: str, used: set[str]) -> str:
    candidate, n = name, 1
    while candidate.lower() in used:
        n += 1
        candidate = f"{name}-{n}"
    used.add(candidate.lower())
    return candidate


def finish_recording(recorder: Recorder, servers: list[ManagedServer], settings: Settings) -> None:
    """Session end: write the queued contracts, prune under update, export proposals."""
    surfaces = {s.node_name: s.surface for s in servers if s.surface is not None and s.node_name}
    recorder.flush(surfaces)
    if settings.export_dir is not None:
        recorder.exported = export_proposals(recorder, settings.export_dir)
