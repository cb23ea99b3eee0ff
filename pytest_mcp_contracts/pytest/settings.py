"""Settings: every option resolved once (command line, then ini / pyproject, then default).

The options themselves (flag, ini key, kind, default, help) are declared in ``options``.
Kept free of pytest imports at runtime: the plugin passes in a lookup function.
"""

from __future__ import annotations

import difflib
import itertools
import json
import shlex
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from pytest_mcp_contracts.options import (
    DEFAULT_CLIENTS,
    DEFAULT_DESCRIPTION_DRIFT,
    DEFAULT_ELICITATION,
    DEFAULT_IN_FLIGHT,
    DEFAULT_LATENCY_CALLS,
    DEFAULT_MAX_CALL_TIME,
    DEFAULT_SAMPLING_TEXT,
    DEFAULT_SEQUENCES_TIME,
    DEFAULT_SHRINK_TIME,
    DEFAULT_TOOL_TIME,
    NO_SANDBOX,
    OPTIONS,
    TARGETS,
    Option,
)

# The error of every setting, the project table's too: the plugin turns it into a UsageError.
from pytest_mcp_contracts.project import SettingsError as SettingsError
from pytest_mcp_contracts.project import (
    ToolConfig,
    budget_seconds,
    load_project_table,
    tool_config,
)
from pytest_mcp_contracts.vocabulary import ClientSettingError, SnapshotMode, parse_clients

if TYPE_CHECKING:  # the transports are imported only when a server is configured
    from pytest_mcp_contracts.judges.lints import LintLevels
    from pytest_mcp_contracts.transport.client_config import Configured
    from pytest_mcp_contracts.transport.http import ServerUrl
    from pytest_mcp_contracts.transport.inprocess import ServerApp
    from pytest_mcp_contracts.transport.stdio import ServerCommand

T = TypeVar("T")


def unknown_tool_tables(
    tools: Mapping[str, ToolConfig], listed: Iterable[tuple[str, str]]
) -> str | None:
    """What is wrong when a ``[tool.mcp-contracts.tools.<name>]`` table names no listed tool
    (``listed``: every configured server's name and tool names), else None. A misspelled
    table must be an error, not ignored: a ``skip = true`` in it would let the tool be called."""
    known = {name for pair in listed for name in (pair[1], f"{pair[0]}/{pair[1]}")}
    unknown = [key for key in tools if key not in known]
    if not unknown:
        return None
    lines = []
    for key in unknown:
        close = difflib.get_close_matches(key, sorted(known), n=3, cutoff=0.6)
        hint = f"; did you mean {' or '.join(json.dumps(c) for c in close)}?" if close else ""
        lines.append(f"[tool.mcp-contracts.tools.{json.dumps(key)}] names no tool{hint}")
    return (
        "\n".join(lines)
        + "\nno configured server lists such a tool (a table is keyed by the tool name, or by "
        '"server/tool" with the server\'s own name); fix or remove the table'
    )


def unknown_listed_tables(
    skips: Iterable[tuple[str, str]], listed: Iterable[tuple[str, str]]
) -> str | None:
    """What is wrong when a ``[tool.mcp-contracts.prompts."<name>"]`` (resources, templates)
    table names nothing a configured server lists (``listed``: (kind, key) pairs), else None:
    a misspelled one would leave the entry called."""
    known = set(listed)
    unknown = sorted(set(skips) - known)
    if not unknown:
        return None
    lines = []
    for kind, key in unknown:
        close = difflib.get_close_matches(key, sorted(k for c, k in known if c == kind), n=3)
        hint = f"; did you mean {' or '.join(json.dumps(c) for c in close)}?" if close else ""
        lines.append(f"[tool.mcp-contracts.{kind}s.{json.dumps(key)}] names no {kind}{hint}")
    return "\n".join(lines) + "\nno configured server lists it; fix or remove the table"


@dataclass(frozen=True)
class Settings:
    # A server read from a client config (--mcp-config) is a ServerCommand or a ServerUrl
    # that carries its name there.
    servers: tuple[ServerCommand | ServerUrl | ServerApp, ...]
    max_examples: int
    call_policy: str
    call_timeout: float
    rejects_invalid: str
    security: str
    startup_timeout: float
    max_result_bytes: int
    max_restarts: int
    snapshot_dir: Path
    mode: SnapshotMode
    export_dir: Path | None
    strict: bool
    report_path: Path | None = None
    sarif_path: Path | None = None  # --mcp-sarif
    html_path: Path | None = None  # --mcp-html
    tools: dict[str, ToolConfig] = field(default_factory=dict)
    # Prompts, resources and templates whose calls a table skips: (kind, name or URI).
    listed_skips: frozenset[tuple[str, str]] = frozenset()
    coverage: bool = True  # the coverage phase of the contract check (--mcp-coverage)
    max_call_time: float = DEFAULT_MAX_CALL_TIME
    shrink_time: float = DEFAULT_SHRINK_TIME
    tool_time: float | None = DEFAULT_TOOL_TIME  # --mcp-tool-time; None: no budget
    run_time: float | None = None  # --mcp-run-time; None: no run budget
    workers: int = 1  # pytest-xdist's workers (PYTEST_XDIST_WORKER_COUNT); 1 without
    in_flight: int = DEFAULT_IN_FLIGHT  # --mcp-in-flight; 1: one call at a time
    max_p95_ms: float | None = None  # --mcp-max-p95-ms; None: no latency limit
    latency_calls: int = DEFAULT_LATENCY_CALLS  # --mcp-latency-calls
    repeat: int = 1  # --mcp-repeat: times each explicit input of the contract check is sent
    roots: Path | None = None  # copied into the sandbox; None: the built-in sample files
    sandbox: bool = True  # False (--mcp-roots=none): an empty root, no paths drawn from it
    sampling_text: str = DEFAULT_SAMPLING_TEXT
    elicitation: str = DEFAULT_ELICITATION
    sequences: bool = True  # the sequences check (--mcp-sequences)
    protocol: bool = True  # the protocol check (--mcp-protocol)
    sequences_time: float = DEFAULT_SEQUENCES_TIME
    reset_command: str | None = None  # run before the server is restarted for it
    max_server_memory: int | None = None  # bytes; None: no cap
    descriptions: str = DEFAULT_DESCRIPTION_DRIFT  # --mcp-descriptions: warn or pin
    lints: LintLevels | None = None  # --mcp-lints; None: every lint a warning

    @property
    def lint_levels(self) -> LintLevels:
        from pytest_mcp_contracts.judges.lints import LintLevels

        return self.lints or LintLevels()

    clients: tuple[str, ...] = DEFAULT_CLIENTS  # client profiles the schema check applies

    @property
    def active(self) -> bool:
        return bool(self.servers)

    def tool(self, server: str, name: str) -> ToolConfig:
        """A tool's own settings: "server/tool" first, then the bare tool name."""
        return tool_config(self.tools, server, name)

    def time_budget(self, tool_config: ToolConfig) -> float | None:
        """Seconds each check may spend calling the tool: its own tool_time, else the run's."""
        return self.tool_time if tool_config.tool_time is None else (tool_config.tool_time or None)

    def latency_limit(self, tool_config: ToolConfig) -> float | None:
        """The tool's limit on its p95 latency (ms): its own max_p95_ms, else the run's."""
        own = tool_config.max_p95_ms
        return self.max_p95_ms if own is None else (own or None)


def _positive(option: Option, raw: Any, cast: Callable[[Any], Any], minimum: float) -> Any:
    try:
        value = cast(raw)
    except (TypeError, ValueError):
        value = None
    if value is None or value < minimum:
        kind = "a whole number" if option.kind == "int" else "a number of seconds"
        raise SettingsError(
            f"{option.flag} (ini {option.ini}) must be {kind} >= {minimum:g}, got {raw!r}"
        )
    return value


def _servers(cli: Sequence[str] | None, ini: Sequence[str]) -> tuple[ServerCommand, ...]:
    commands = list(cli) if cli else [line for line in ini if line.strip()]
    if not commands:
        return ()
    from pytest_mcp_contracts.transport.stdio import ServerCommand

    return _each("--mcp-server", commands, ServerCommand.parse)


def _lines(cli: Sequence[str] | None, ini: Sequence[str]) -> list[str]:
    return list(cli) if cli else [line for line in ini if line.strip()]


def _apps(specs: Sequence[str], rootdir: Path) -> tuple[ServerApp, ...]:
    if not specs:
        return ()
    from pytest_mcp_contracts.transport.inprocess import ServerApp

    return _each("--mcp-app", specs, lambda spec: ServerApp.parse(spec, rootdir))


def _each(flag: str, values: Sequence[str], parse: Callable[[str], T]) -> tuple[T, ...]:
    """Every value parsed; the first that cannot be is a usage error naming it."""
    parsed = []
    for value in values:
        try:
            parsed.append(parse(value))
        except ValueError as exc:
            raise SettingsError(f"{flag} {value!r}: {exc}") from None
    return tuple(parsed)


def _urls(
    urls: Sequence[str], headers: Sequence[str], environ: Mapping[str, str]
) -> tuple[ServerUrl, ...]:
    """URL targets, each with every --mcp-header. A header naming an environment variable
    that is not set is a usage error now, not a failure per server later."""
    if headers and not urls:
        raise SettingsError("--mcp-header applies to --mcp-url servers, and none is given")
    if not urls:
        return ()
    from pytest_mcp_contracts.transport.http import HeaderError, ServerUrl, parse_header, variables

    try:
        parsed = [parse_header(h) for h in headers]
    except HeaderError as exc:
        raise SettingsError(str(exc)) from None
    for name, value in parsed:
        missing = [v for v in variables(value) if v not in environ]
        if missing:
            raise SettingsError(
                f"--mcp-header {name}: the environment variable {missing[0]} is not set"
            )
    return _each("--mcp-url", urls, lambda url: ServerUrl.parse(url, headers))


def _configured(
    files: Sequence[str], picked: Sequence[str], *, rootdir: Path, environ: Mapping[str, str]
) -> tuple[Configured, ...]:
    """The servers of the client config files (--mcp-config), those picked by name
    (--mcp-config-server) or all of them; a file that cannot be used is a usage error."""
    if not files:
        if picked:
            raise SettingsError(
                "--mcp-config-server picks servers of --mcp-config files, and none is given"
            )
        return ()
    from pytest_mcp_contracts.transport.client_config import ClientConfigError, read_configs

    paths = [rootdir / Path(file).expanduser() for file in files]
    try:
        return read_configs(paths, picked, environ, home=Path.home())
    except ClientConfigError as exc:
        raise SettingsError(str(exc)) from None


def _with_env(targets: tuple[T, ...], env: Mapping[str, str]) -> tuple[T, ...]:
    """The stdio commands among ``targets`` with the project's environment
    (``[tool.mcp-contracts] env``) under their own."""
    from pytest_mcp_contracts.transport.stdio import ServerCommand

    return tuple(
        replace(t, env={**env, **t.env}) if isinstance(t, ServerCommand) else t for t in targets
    )


def _flag(option: Option, raw: Any) -> bool:
    if isinstance(raw, bool):
        return raw
    text = str(raw).strip().lower()
    if text in ("true", "1", "yes", "on"):
        return True
    if text in ("false", "0", "no", "off", ""):
        return False
    raise SettingsError(f"{option.flag} (ini {option.ini}) must be true or false, got {raw!r}")


def value_read_as_test_path(args: Sequence[str], invocation_dir: Path) -> str | None:
    """What is wrong when a value of one of our options is given as a separate word that is
    an existing path, else None.

    pytest chooses its rootdir and ini file from the test paths on the command line before it
    loads entry-point plugins, so it does not yet know that the word after ``--mcp-server``
    is that option's value: it takes an existing path for a test path, and the rootdir can
    move to a common ancestor, the project's ini file be ignored and contracts be recorded
    elsewhere. Nothing after that can be trusted, so this is a usage error, with the
    ``--option=value`` form that avoids it.
    """
    flags = {option.flag for option in OPTIONS if option.kind != "flag"}
    for flag, value in itertools.pairwise(args):
        if flag == "--":
            return None
        if flag in flags and not value.startswith("-") and (invocation_dir / value).exists():
            return (
                f"{flag} {value}: pytest read {value!r} as a test path, since it is an existing "
                "path and pytest picks its rootdir and ini file before it knows this plugin's "
                "options (the rootdir may have moved away from your project). Give the value "
                f"with '=': {shlex.join([f'{flag}={value}'])}"
            )
    return None


def _workers(environ: Mapping[str, str]) -> int:
    """How many pytest-xdist workers run (each starts every server); 1 without xdist."""
    try:
        return max(int(environ.get("PYTEST_XDIST_WORKER_COUNT", "1")), 1)
    except ValueError:
        return 1


def in_ci(environ: Mapping[str, str]) -> bool:
    return environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def resolve(
    get_cli: Callable[[str], Any],
    get_ini: Callable[[str], Any],
    *,
    rootdir: Path,
    environ: Mapping[str, str],
) -> Settings:
    """Command line over ini over default; a bad value raises SettingsError."""
    values: dict[str, Any] = {}
    raws: dict[str, Any] = {}  # as written, before paths are joined to the rootdir
    # Targets on the command line replace the ini's target lists, all three of them: a user
    # who points one run at one server does not want the configured ones started as well.
    ini_targets = not any(get_cli(target.flag) for target in TARGETS)
    for option in OPTIONS:
        key = option.dest
        cli = get_cli(option.flag)
        if option.kind in ("servers", "lines"):
            use_ini = ini_targets or option not in TARGETS
            ini_list = (get_ini(option.ini) or []) if use_ini else []
            servers = option.kind == "servers"
            values[key] = _servers(cli, ini_list) if servers else _lines(cli, ini_list)
            continue
        raw = cli if cli is not None else (option.ini_too and get_ini(option.ini)) or option.default
        raws[key] = raw
        if option.kind == "flag":
            values[key] = _flag(option, raw)
        elif option.kind == "path":
            values[key] = None if raw is None else rootdir / Path(str(raw)).expanduser()
        elif option.kind == "choice":
            if raw not in option.choices:
                raise SettingsError(
                    f"{option.flag} (ini {option.ini}) must be one of "
                    f"{', '.join(option.choices)}, got {raw!r}"
                )
            values[key] = raw
        elif option.kind == "text":
            values[key] = None if raw is None else str(raw)
        elif option.kind == "clients":
            values[key] = _clients(option, raw)
        elif option.kind == "size":
            continue  # below, once the started servers are known: the cap is shared
        elif option.kind == "int":
            values[key] = _positive(option, raw, int, 1)
        elif option.kind == "limit":
            try:
                values[key] = None if raw is None else budget_seconds(raw)
            except ValueError:
                raise SettingsError(
                    f"{option.flag} (ini {option.ini}) must be a number of milliseconds > 0, "
                    f"or 0 or off for no limit, got {raw!r}"
                ) from None
        elif option.kind == "budget":
            try:
                values[key] = budget_seconds(raw)
            except ValueError:
                raise SettingsError(
                    f"{option.flag} (ini {option.ini}) must be a number of seconds > 0, or 0 "
                    f"or off for no budget, got {raw!r}"
                ) from None
        else:
            values[key] = _positive(option, raw, float, 0.001)
    configured = _configured(
        values["mcp_config"], values["mcp_config_server"], rootdir=rootdir, environ=environ
    )
    stdio = len(values["mcp_server"]) + sum(c.transport == "stdio" for c in configured)
    started = stdio * _workers(environ)
    for option in (o for o in OPTIONS if o.kind == "size"):
        # Only a started server is capped: without one, the transports that compute the
        # default stay unimported.
        given = get_cli(option.flag) is not None
        values[option.dest] = (
            _size(option, raws[option.dest], started) if started or given else None
        )
    tools, server_env, listed_skips = load_project_table(rootdir)
    if server_env and stdio:
        values["mcp_server"] = _with_env(values["mcp_server"], server_env)
        configured = _with_env(configured, server_env)
    urls = _urls(values["mcp_url"], values["mcp_header"], environ)
    apps = _apps(values["mcp_app"], rootdir)
    ci = in_ci(environ)
    if values["mcp_snapshot_update"] and ci:
        raise SettingsError(
            "--mcp-snapshot-update writes contracts, and the CI environment variable is set: "
            "contracts are never written in CI. Update them locally and commit the files."
        )
    return Settings(
        servers=(*values["mcp_server"], *urls, *apps, *configured),
        max_examples=values["mcp_max_examples"],
        call_policy=values["mcp_call"],
        rejects_invalid=values["mcp_rejects_invalid"],
        security=values["mcp_security"],
        call_timeout=values["mcp_call_timeout"],
        startup_timeout=values["mcp_startup_timeout"],
        max_result_bytes=values["mcp_max_result_bytes"],
        max_restarts=values["mcp_max_restarts"],
        snapshot_dir=values["mcp_snapshot_dir"],
        mode=SnapshotMode.UPDATE
        if values["mcp_snapshot_update"]
        else SnapshotMode.CI
        if ci
        else SnapshotMode.RECORD,
        export_dir=values["mcp_export_schemas"],
        strict=values["mcp_strict"],
        report_path=values["mcp_report"],
        sarif_path=values["mcp_sarif"],
        html_path=values["mcp_html"],
        tools=tools,
        listed_skips=listed_skips,
        coverage=values["mcp_coverage"] == "on",
        max_call_time=max(values["mcp_max_call_time"], values["mcp_call_timeout"]),
        shrink_time=values["mcp_shrink_time"],
        tool_time=values["mcp_tool_time"],
        run_time=values["mcp_run_time"],
        workers=_workers(environ),
        in_flight=values["mcp_in_flight"],
        max_p95_ms=values["mcp_max_p95_ms"],
        latency_calls=values["mcp_latency_calls"],
        repeat=values["mcp_repeat"],
        roots=None if raws["mcp_roots"] == NO_SANDBOX else _roots(values["mcp_roots"]),
        sandbox=raws["mcp_roots"] != NO_SANDBOX,
        sampling_text=values["mcp_sampling_text"],
        elicitation=values["mcp_elicitation"],
        sequences=values["mcp_sequences"] == "on",
        protocol=values["mcp_protocol"] == "on",
        sequences_time=values["mcp_sequences_time"],
        reset_command=(values["mcp_reset_command"] or "").strip() or None,
        max_server_memory=values["mcp_max_server_memory"],
        descriptions=values["mcp_descriptions"],
        # Read only for a run with servers: a run without any imports none of the checks.
        lints=_lints(values["mcp_lints"]) if any(values[t.dest] for t in TARGETS) else None,
        clients=values["mcp_clients"],
    )


def _lints(raw: str | None) -> LintLevels | None:
    if raw is None or not raw.strip():
        return None
    from pytest_mcp_contracts.judges.lints import LintLevels, LintSettingError

    try:
        return LintLevels.parse(raw, option="--mcp-lints (ini mcp_lints)")
    except LintSettingError as exc:
        raise SettingsError(str(exc)) from None


def _clients(option: Option, raw: Any) -> tuple[str, ...]:
    try:
        return parse_clients(str(raw), option=f"{option.flag} (ini {option.ini})")
    except ClientSettingError as exc:
        raise SettingsError(str(exc)) from None


def _size(option: Option, raw: Any, started: int) -> int | None:
    """Bytes, or None for no cap. No value: the transport's default cap, shared among the
    ``started`` server processes that run at once, so that together they stay within it."""
    from pytest_mcp_contracts.transport import memory

    if raw is None:
        cap = memory.default_cap()
        return cap // max(started, 1) if cap else None
    try:
        return memory.parse_size(str(raw))
    except ValueError:
        raise SettingsError(
            f"{option.flag} (ini {option.ini}) must be a size like 2G, 512M or 1.5G (bytes "
            f"without a unit), or 0 or off for no cap; got {raw!r}"
        ) from None


def _roots(path: Path | None) -> Path | None:
    if path is not None and not path.is_dir():
        raise SettingsError(f"--mcp-roots (ini mcp_roots): {path} is not a folder")
    return path
