"""Settings: every option resolved once (command line, then ini / pyproject, then default).

Kept free of pytest imports at runtime: the plugin passes in a lookup function.
"""

from __future__ import annotations

import difflib
import itertools
import json
import shlex
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, TypeVar

# The error of every setting, the project table's too: the plugin turns it into a UsageError.
from pytest_mcp_contracts.project import SettingsError as SettingsError
from pytest_mcp_contracts.project import (
    ToolConfig,
    budget_seconds,
    load_project_table,
    tool_config,
)
from pytest_mcp_contracts.vocabulary import (
    CALL_POLICIES,
    CLIENT_PROFILES,
    DEFAULT_CALL_POLICY,
    DEFAULT_CALL_TIMEOUT,
    DEFAULT_CLIENTS,
    DEFAULT_DESCRIPTION_DRIFT,
    DEFAULT_IN_FLIGHT,
    DEFAULT_MAX_CALL_TIME,
    DEFAULT_MAX_EXAMPLES,
    DEFAULT_MAX_RESTARTS,
    DEFAULT_MAX_RESULT_BYTES,
    DEFAULT_REJECTS_INVALID,
    DEFAULT_SAMPLING_TEXT,
    DEFAULT_SEQUENCES_TIME,
    DEFAULT_SHRINK_TIME,
    DEFAULT_SNAPSHOT_DIR,
    DEFAULT_STARTUP_TIMEOUT,
    DEFAULT_TOOL_TIME,
    DESCRIPTION_DRIFT_MODES,
    ELICITATION_ANSWERS,
    REJECTS_INVALID_MODES,
    ClientSettingError,
    SnapshotMode,
    parse_clients,
)

if TYPE_CHECKING:  # the transports are imported only when a server is configured
    from pytest_mcp_contracts.checks.lints import LintLevels
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
class Option:
    """One setting: its command-line flag, ini key and help text, declared in one place."""

    flag: str
    ini: str
    help: str
    kind: str  # "servers", "lines", "int", "float", "path", "flag", "choice", "text", "size",
    # "clients", "budget" (seconds, or 0/off for none)
    default: Any = None
    ini_too: bool = True
    metavar: str = ""  # for the help text; by kind when empty
    choices: tuple[str, ...] = ()

    @property
    def shown_metavar(self) -> str:
        """The value's placeholder in ``--help`` and the options reference (docs/reference)."""
        if self.metavar:
            return self.metavar
        return {"servers": "CMD", "lines": "CMD", "path": "DIR"}.get(self.kind, "N")


COVERAGE: Final = ("on", "off")

OPTIONS: Final = (
    Option(
        "--mcp-server",
        "mcp_server",
        "start this MCP server over stdio and contract-test its tools (repeatable; "
        'shell-like splitting, e.g. --mcp-server="python -m my_server")',
        "servers",
    ),
    Option(
        "--mcp-url",
        "mcp_url",
        "contract-test the MCP server at this Streamable HTTP URL (repeatable; the server "
        "must already be running: it is not started, stopped or restarted)",
        "lines",
        metavar="URL",
    ),
    Option(
        "--mcp-app",
        "mcp_app",
        "contract-test this Python server object in-process, without a subprocess "
        "(repeatable): module:attribute or path/to/file.py:attribute naming an MCPServer, a "
        "low-level Server, or a function returning one; imported from the rootdir",
        "lines",
        metavar="MODULE:ATTR",
    ),
    Option(
        "--mcp-header",
        "mcp_header",
        "an HTTP header sent with every request to an --mcp-url server, 'Name: value' "
        "(repeatable). $VAR and ${VAR} in the value are read from the environment, so "
        "tokens stay out of command lines; values are never printed",
        "lines",
        metavar="'NAME: VALUE'",
    ),
    Option(
        "--mcp-max-examples",
        "mcp_max_examples",
        f"generated inputs per tool (default {DEFAULT_MAX_EXAMPLES})",
        "int",
        DEFAULT_MAX_EXAMPLES,
    ),
    Option(
        "--mcp-coverage",
        "mcp_coverage",
        "the coverage phase: before random inputs, the contract check sends inputs that visit "
        "every corner of the inputSchema (enum values, branches, bounds, optional properties, "
        "pairs), within --mcp-max-examples (on, the default, or off)",
        "choice",
        "on",
        metavar="ON|OFF",
        choices=COVERAGE,
    ),
    Option(
        "--mcp-sequences",
        "mcp_sequences",
        "the sequences check, one item per server: chains of calls in which ids, names, paths, "
        "uris and keys from earlier outputs feed later inputs, so lookups and updates get "
        "real ids; up to half of --mcp-max-examples sequences of up to 20 calls, within "
        "--mcp-sequences-time (on, the default, or off)",
        "choice",
        "on",
        metavar="ON|OFF",
        choices=COVERAGE,
    ),
    Option(
        "--mcp-sequences-time",
        "mcp_sequences_time",
        "seconds the sequences check may spend drawing sequences per server (shrinking a "
        "failing one has its own bound); it also stops when the last sequences reached "
        f"nothing new (default {DEFAULT_SEQUENCES_TIME:g})",
        "float",
        DEFAULT_SEQUENCES_TIME,
    ),
    Option(
        "--mcp-reset-command",
        "mcp_reset_command",
        "a command run before the server is restarted for the sequences check (and again "
        "before a failing sequence or call is replayed), for a server that keeps state outside its "
        "process: e.g. 'rm -f /tmp/test-memory.jsonl'",
        "text",
        None,
        metavar="CMD",
    ),
    Option(
        "--mcp-clients",
        "mcp_clients",
        "the clients whose own schema rules the schema check applies, beside the spec's: a "
        f"comma list of {', '.join(CLIENT_PROFILES)}, or all or none (default "
        f"{','.join(DEFAULT_CLIENTS)}: the clients most users have; openai-strict and gemini "
        "refuse what common SDKs emit). A place a chosen client refuses fails the tool's "
        "schema item, naming the rule and the fix (docs/clients.md)",
        "clients",
        ",".join(DEFAULT_CLIENTS),
        metavar="CLIENTS",
    ),
    Option(
        "--mcp-call",
        "mcp_call",
        "which tools are called: readonly (readOnlyHint true), nondestructive (all but those "
        "declaring destructiveHint true; the default) or all. Annotations are hints: the real "
        "safeguard is a disposable test instance of the server",
        "choice",
        DEFAULT_CALL_POLICY,
        metavar="POLICY",
        choices=CALL_POLICIES,
    ),
    Option(
        "--mcp-rejects-invalid",
        "mcp_rejects_invalid",
        "the rejects_invalid check sends inputs the inputSchema refuses; a crash, hang or "
        "internal error always fails it. A success result (the tool accepted invalid input) "
        "is a warning (warn, the default) or a failure (fail); off sends no invalid input",
        "choice",
        DEFAULT_REJECTS_INVALID,
        metavar="WHAT",
        choices=REJECTS_INVALID_MODES,
    ),
    Option(
        "--mcp-call-timeout",
        "mcp_call_timeout",
        f"seconds a tool call may take (default {DEFAULT_CALL_TIMEOUT:g})",
        "float",
        DEFAULT_CALL_TIMEOUT,
    ),
    Option(
        "--mcp-max-call-time",
        "mcp_max_call_time",
        "each tool call carries a progress token; a progress notification for it restarts "
        "the call timeout, up to this many seconds for the whole call "
        f"(default {DEFAULT_MAX_CALL_TIME:g}; never less than --mcp-call-timeout)",
        "float",
        DEFAULT_MAX_CALL_TIME,
    ),
    Option(
        "--mcp-roots",
        "mcp_roots",
        "the folder of sample files copied into the sandbox the client offers as its one root "
        "(roots/list), and whose paths inputs draw on; relative to the rootdir (default: "
        "built-in sample files; none: an empty folder, and no input drawn from it)",
        "path",
        None,
        metavar="DIR",
    ),
    Option(
        "--mcp-sampling-text",
        "mcp_sampling_text",
        "the assistant text the client answers every sampling/createMessage with (per tool: "
        "sampling_text in [tool.mcp-contracts.tools.<name>]; per call: the "
        "pytest_mcp_sampling_reply hook)",
        "text",
        DEFAULT_SAMPLING_TEXT,
        metavar="TEXT",
    ),
    Option(
        "--mcp-elicitation",
        "mcp_elicitation",
        "how the client answers elicitation/create: vary (the default: per tool, accept, "
        "decline, accept, cancel in turn, since declining and cancelling are paths a tool "
        "must handle too), or always accept, decline or cancel. Accepted forms carry the "
        "simplest content valid for the requested schema",
        "choice",
        "vary",
        metavar="ANSWER",
        choices=ELICITATION_ANSWERS,
    ),
    Option(
        "--mcp-startup-timeout",
        "mcp_startup_timeout",
        f"seconds a server may take to start and answer the handshake "
        f"(default {DEFAULT_STARTUP_TIMEOUT:g})",
        "float",
        DEFAULT_STARTUP_TIMEOUT,
    ),
    Option(
        "--mcp-max-result-bytes",
        "mcp_max_result_bytes",
        f"largest message accepted from a server, in bytes (default {DEFAULT_MAX_RESULT_BYTES})",
        "int",
        DEFAULT_MAX_RESULT_BYTES,
    ),
    Option(
        "--mcp-max-server-memory",
        "mcp_max_server_memory",
        "memory each server the plugin starts may use, with every process it spawns (resident "
        "memory, read from /proc); over it the server is killed and the call that drove it "
        "there fails. A size like 2G or 512M, or 0/off for no cap (default: a quarter of "
        "the machine's physical memory, shared among the servers that run at once: "
        "--mcp-server count times xdist workers)",
        "size",
        None,
        metavar="SIZE",
    ),
    Option(
        "--mcp-max-restarts",
        "mcp_max_restarts",
        "restarts of a server that died or hung that one item (a tool's contract check, a "
        "resource's read, a prompt's get) may spend while it shrinks a failing input; then "
        "the smallest failing input so far is reported. Restarts between items are not "
        f"counted (default {DEFAULT_MAX_RESTARTS})",
        "int",
        DEFAULT_MAX_RESTARTS,
    ),
    Option(
        "--mcp-tool-time",
        "mcp_tool_time",
        "seconds each check that calls a tool (contract: its examples, coverage inputs and "
        "random inputs; rejects_invalid: its invalid inputs) may spend on it; then it draws "
        "no more inputs and says how many it sent. Never a failure by itself, and a failure "
        "found before still shrinks within --mcp-shrink-time. Per tool: tool_time under "
        "[tool.mcp-contracts.tools.<name>]. 0 or off: no budget "
        f"(default {DEFAULT_TOOL_TIME:g})",
        "budget",
        DEFAULT_TOOL_TIME,
        metavar="SECONDS",
    ),
    Option(
        "--mcp-in-flight",
        "mcp_in_flight",
        "calls of one tool in flight at once in the contract check's examples and coverage "
        "phase, for a tool annotated readOnlyHint or idempotentHint and for every tool of a "
        "Streamable HTTP server that keeps no session; answers are still judged in input "
        "order, and any answer that cannot be told to be its own call's is sent again "
        f"alone. 1: one call at a time (default {DEFAULT_IN_FLIGHT})",
        "int",
        DEFAULT_IN_FLIGHT,
        metavar="N",
    ),
    Option(
        "--mcp-shrink-time",
        "mcp_shrink_time",
        "seconds the contract check may spend making a failing input smaller; then it "
        f"reports the smallest failing input so far (default {DEFAULT_SHRINK_TIME:g})",
        "float",
        DEFAULT_SHRINK_TIME,
    ),
    Option(
        "--mcp-snapshot-dir",
        "mcp_snapshot_dir",
        f"folder of the recorded contracts, relative to the rootdir "
        f"(default {DEFAULT_SNAPSHOT_DIR})",
        "path",
        DEFAULT_SNAPSHOT_DIR,
    ),
    Option(
        "--mcp-snapshot-update",
        "",
        "merge this run's observations into the recorded contracts, accept drift and prune "
        "contracts of tools that no longer exist (never under CI)",
        "flag",
        False,
        ini_too=False,
    ),
    Option(
        "--mcp-strict",
        "mcp_strict",
        "fail on any drift from the recorded contracts, additive and cosmetic included",
        "flag",
        False,
    ),
    Option(
        "--mcp-descriptions",
        "mcp_descriptions",
        "a changed tool or property description (an instruction to the model, and the way "
        "tool poisoning arrives after review) is a warning on the drift check (warn, the "
        "default) or fails it until accepted with --mcp-snapshot-update (pin: for a server "
        "you do not own, whose descriptions your agents trust as you reviewed them)",
        "choice",
        DEFAULT_DESCRIPTION_DRIFT,
        metavar="WARN|PIN",
        choices=DESCRIPTION_DRIFT_MODES,
    ),
    Option(
        "--mcp-export-schemas",
        "",
        "write a proposed outputSchema for every tool that declares none into this folder",
        "path",
        None,
        ini_too=False,
    ),
    Option(
        "--mcp-lints",
        "mcp_lints",
        "each lint's level, as id:off, id:warning or id:error (space- or comma-separated; "
        "all:error for every lint, a later word wins): lints are warnings by default. Ids: "
        "no-description, no-property-description, no-annotations, model-instructions, "
        "hidden-text, too-many-tools, listing-too-large, empty-content (docs/lints.md)",
        "text",
        None,
        metavar="ID:LEVEL",
    ),
    Option(
        "--mcp-report",
        "mcp_report",
        "write a JSON run report (servers, tools, every check's outcome, calls, coverage, "
        "drift; format in docs/run-report.schema.json) to this file, relative to the rootdir",
        "path",
        None,
        metavar="PATH",
    ),
    Option(
        "--mcp-sarif",
        "mcp_sarif",
        "write a SARIF 2.1.0 file for code scanning to this file, relative to the rootdir: "
        "a result per failed check, its failure's kind the rule (docs/how-to/ci.md)",
        "path",
        None,
        metavar="PATH",
    ),
)


TARGET_FLAGS: Final = ("--mcp-server", "--mcp-url", "--mcp-app")
TARGET_KEYS: Final = tuple(flag.removeprefix("--").replace("-", "_") for flag in TARGET_FLAGS)


@dataclass(frozen=True)
class Settings:
    servers: tuple[ServerCommand | ServerUrl | ServerApp, ...]
    max_examples: int
    call_policy: str
    call_timeout: float
    rejects_invalid: str
    startup_timeout: float
    max_result_bytes: int
    max_restarts: int
    snapshot_dir: Path
    mode: SnapshotMode
    export_dir: Path | None
    strict: bool
    report_path: Path | None = None
    sarif_path: Path | None = None  # --mcp-sarif
    tools: dict[str, ToolConfig] = field(default_factory=dict)
    # Prompts, resources and templates whose calls a table skips: (kind, name or URI).
    listed_skips: frozenset[tuple[str, str]] = frozenset()
    coverage: bool = True  # the coverage phase of the contract check (--mcp-coverage)
    max_call_time: float = DEFAULT_MAX_CALL_TIME
    shrink_time: float = DEFAULT_SHRINK_TIME
    tool_time: float | None = DEFAULT_TOOL_TIME  # --mcp-tool-time; None: no budget
    in_flight: int = DEFAULT_IN_FLIGHT  # --mcp-in-flight; 1: one call at a time
    roots: Path | None = None  # copied into the sandbox; None: the built-in sample files
    sandbox: bool = True  # False (--mcp-roots=none): an empty root, no paths drawn from it
    sampling_text: str = DEFAULT_SAMPLING_TEXT
    elicitation: str = "vary"
    sequences: bool = True  # the sequences check (--mcp-sequences)
    sequences_time: float = DEFAULT_SEQUENCES_TIME
    reset_command: str | None = None  # run before the server is restarted for it
    max_server_memory: int | None = None  # bytes; None: no cap
    descriptions: str = DEFAULT_DESCRIPTION_DRIFT  # --mcp-descriptions: warn or pin
    lints: LintLevels | None = None  # --mcp-lints; None: every lint a warning

    @property
    def lint_levels(self) -> LintLevels:
        from pytest_mcp_contracts.checks.lints import LintLevels

        return self.lints or LintLevels()

    clients: tuple[str, ...] = DEFAULT_CLIENTS  # client profiles the schema check applies

    @property
    def active(self) -> bool:
        return bool(self.servers)

    def tool(self, server: str, name: str) -> ToolConfig:
        """A tool's own settings: "server/tool" first, then the bare tool name."""
        return tool_config(self.tools, server, name)

    def time_budget(self, own: ToolConfig) -> float | None:
        """Seconds each check may spend calling the tool: its own tool_time, else the run's."""
        return self.tool_time if own.tool_time is None else (own.tool_time or None)


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
    ini_targets = not any(get_cli(flag) for flag in TARGET_FLAGS)
    for option in OPTIONS:
        key = option.flag.removeprefix("--").replace("-", "_")
        cli = get_cli(option.flag)
        if option.kind in ("servers", "lines"):
            use_ini = ini_targets or option.flag not in TARGET_FLAGS
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
            # Only a started server (--mcp-server) is capped: without one, the transports
            # that compute the default stay unimported.
            started = len(values["mcp_server"]) * _workers(environ)
            values[key] = _size(option, raw, started) if started or cli is not None else None
        elif option.kind == "int":
            values[key] = _positive(option, raw, int, 1)
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
    tools, server_env, listed_skips = load_project_table(rootdir)
    if server_env and values["mcp_server"]:
        from pytest_mcp_contracts.transport.stdio import ServerCommand

        values["mcp_server"] = tuple(
            ServerCommand(s.argv, env={**server_env, **s.env}) for s in values["mcp_server"]
        )
    urls = _urls(values["mcp_url"], values["mcp_header"], environ)
    apps = _apps(values["mcp_app"], rootdir)
    ci = in_ci(environ)
    if values["mcp_snapshot_update"] and ci:
        raise SettingsError(
            "--mcp-snapshot-update writes contracts, and the CI environment variable is set: "
            "contracts are never written in CI. Update them locally and commit the files."
        )
    return Settings(
        servers=(*values["mcp_server"], *urls, *apps),
        max_examples=values["mcp_max_examples"],
        call_policy=values["mcp_call"],
        rejects_invalid=values["mcp_rejects_invalid"],
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
        tools=tools,
        listed_skips=listed_skips,
        coverage=values["mcp_coverage"] == "on",
        max_call_time=max(values["mcp_max_call_time"], values["mcp_call_timeout"]),
        shrink_time=values["mcp_shrink_time"],
        tool_time=values["mcp_tool_time"],
        in_flight=values["mcp_in_flight"],
        roots=None if raws["mcp_roots"] == NO_SANDBOX else _roots(values["mcp_roots"]),
        sandbox=raws["mcp_roots"] != NO_SANDBOX,
        sampling_text=values["mcp_sampling_text"],
        elicitation=values["mcp_elicitation"],
        sequences=values["mcp_sequences"] == "on",
        sequences_time=values["mcp_sequences_time"],
        reset_command=(values["mcp_reset_command"] or "").strip() or None,
        max_server_memory=values["mcp_max_server_memory"],
        descriptions=values["mcp_descriptions"],
        # Read only for a run with servers: a run without any imports none of the checks.
        lints=_lints(values["mcp_lints"]) if any(values[t] for t in TARGET_KEYS) else None,
        clients=values["mcp_clients"],
    )


def _lints(raw: str | None) -> LintLevels | None:
    if raw is None or not raw.strip():
        return None
    from pytest_mcp_contracts.checks.lints import LintLevels, LintSettingError

    try:
        return LintLevels.parse(raw, option="--mcp-lints (ini mcp_lints)")
    except LintSettingError as exc:
        raise SettingsError(str(exc)) from None


NO_SANDBOX = "none"  # --mcp-roots=none (a folder of that name: ./none)


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
