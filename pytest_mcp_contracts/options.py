"""Every setting of a run, declared once: its pytest flag and ini key, its type, its default,
its help text, and its spelling in the ``mcp-contracts`` commands that take it.

pytest's options and ini keys (``plugin.pytest_addoption``), their resolution
(``pytest/settings.resolve``), the commands' flags (``cli/parser``), the call policy that
``mcp-contracts inspect`` reports (``project.configured_call_policy``) and the options
reference (docs/_hooks/generated.py) all read this table, so a flag, a default or a help
text has one home.

It imports only the standard library and ``vocabulary``: the docs build reads it from a
checkout without the package's dependencies, and every layer above may read a default.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final

from pytest_mcp_contracts.vocabulary import (
    CALL_POLICIES,
    CLIENT_PROFILES,
    DESCRIPTION_DRIFT_MODES,
    ELICITATION_ANSWERS,
    REJECTS_INVALID_MODES,
    SECURITY_MODES,
    CallPolicy,
    ClientProfile,
    DescriptionDrift,
    ElicitationAnswer,
    RejectsInvalidMode,
    SecurityMode,
)

# -- the defaults -------------------------------------------------------------------------------
DEFAULT_MAX_EXAMPLES: Final = 50
DEFAULT_CALL_TIMEOUT: Final = 10.0
DEFAULT_STARTUP_TIMEOUT: Final = 30.0
DEFAULT_MAX_RESULT_BYTES: Final = 64 * 1024 * 1024
DEFAULT_MAX_RESTARTS: Final = 3
DEFAULT_SNAPSHOT_DIR: Final = "mcp-contracts"
DEFAULT_MAX_CALL_TIME: Final = 120.0
DEFAULT_SHRINK_TIME: Final = 60.0
DEFAULT_SEQUENCES_TIME: Final = 20.0
# Seconds each check may spend calling one tool (docs/how-to/slow-tools.md): a tool that
# answers within a second or so sends all its inputs well within it at the default
# --mcp-max-examples; a tool that sleeps by design (10 s a call) stops after a minute per
# check instead of taking eight.
DEFAULT_TOOL_TIME: Final = 60.0
# Calls of one tool in flight at once in its coverage phase, when the tool says its calls
# are independent (bench/README.md, "Calls in flight", for how it was chosen).
DEFAULT_IN_FLIGHT: Final = 4
# Answered calls a latency limit is judged over (--mcp-latency-calls): a p95 of fewer says
# little.
DEFAULT_LATENCY_CALLS: Final = 20
DEFAULT_SAMPLING_TEXT: Final = "This is a canned reply from pytest-mcp-contracts."
DEFAULT_ELICITATION: Final = ElicitationAnswer.VARY.value
DEFAULT_CALL_POLICY: Final = CallPolicy.NONDESTRUCTIVE.value
DEFAULT_REJECTS_INVALID: Final = RejectsInvalidMode.WARN.value
DEFAULT_SECURITY: Final = SecurityMode.ON.value
DEFAULT_DESCRIPTION_DRIFT: Final = DescriptionDrift.WARN.value
# The clients most users run a server in, whose rules a server that works "everywhere" already
# follows: Claude, VS Code/Copilot, OpenAI's ordinary function calling and the clients built on
# the TypeScript SDK 2.x. Strict mode and the Gemini API refuse schemas that the common SDKs emit
# (open objects, $defs, nullable unions) and stay opt-in; docs/clients.md says why.
DEFAULT_CLIENTS: Final = (
    ClientProfile.CLAUDE.value,
    ClientProfile.OPENAI.value,
    ClientProfile.VSCODE.value,
    ClientProfile.TYPESCRIPT_SDK.value,
)
COVERAGE: Final = ("on", "off")
NO_SANDBOX: Final = "none"  # --mcp-roots=none (a folder of that name: ./none)


class Command(StrEnum):
    """The commands of ``mcp-contracts`` (cli/), each a module there."""

    INSPECT = "inspect"
    CALL = "call"
    EXPORT = "export"


@dataclass(frozen=True)
class CliFlag:
    """A setting as a flag of ``mcp-contracts`` commands: the commands' own spelling, and
    their own words where a command uses the setting otherwise than a pytest run does."""

    names: tuple[str, ...]  # the first one names the argparse destination
    commands: tuple[Command, ...]
    help: str | None = None  # None: --help shows the flag without a text
    # The value's placeholder: "" for the option's (Option.shown_metavar), None for
    # argparse's own (the choices, for a choice).
    metavar: str | None = ""
    repeat: bool = False  # each use adds one value (a list, empty when not given)
    # False: the flag is None when not given, for a command that tells "not given" apart
    # (it resolves the setting as a pytest run would, or leaves it out of a command line).
    table_default: bool = True
    target: bool = False  # --server, --url, --app: at most one of them names the server


@dataclass(frozen=True)
class Option:
    """One setting: its command-line flag, ini key and help text, declared in one place."""

    flag: str
    ini: str
    help: str
    kind: str  # "servers", "lines", "int", "float", "path", "flag", "choice", "text", "size",
    # "clients", "budget" (seconds, or 0/off for none), "limit" (milliseconds, or 0/off)
    default: Any = None
    ini_too: bool = True
    metavar: str = ""  # for the help text; by kind when empty
    choices: tuple[str, ...] = ()
    cli: tuple[CliFlag, ...] = ()  # the same setting in the mcp-contracts commands

    @property
    def dest(self) -> str:
        """The name pytest stores the flag's value under (``config.getoption``)."""
        return self.flag.removeprefix("--").replace("-", "_")

    @property
    def shown_metavar(self) -> str:
        """The value's placeholder in ``--help`` and the options reference (docs/reference)."""
        if self.metavar:
            return self.metavar
        return {"servers": "CMD", "lines": "CMD", "path": "DIR"}.get(self.kind, "N")


OPTIONS: Final = (
    Option(
        "--mcp-server",
        "mcp_server",
        "start this MCP server over stdio and contract-test its tools (repeatable; "
        'shell-like splitting, e.g. --mcp-server="python -m my_server")',
        "servers",
        cli=(
            CliFlag(
                ("--server",),
                (Command.INSPECT, Command.CALL),
                "start this MCP server over stdio",
                target=True,
            ),
        ),
    ),
    Option(
        "--mcp-url",
        "mcp_url",
        "contract-test the MCP server at this Streamable HTTP URL (repeatable; the server "
        "must already be running: it is not started, stopped or restarted)",
        "lines",
        metavar="URL",
        cli=(
            CliFlag(
                ("--url",),
                (Command.INSPECT, Command.CALL),
                "the MCP server at this Streamable HTTP URL",
                target=True,
            ),
        ),
    ),
    Option(
        "--mcp-app",
        "mcp_app",
        "contract-test this Python server object in-process, without a subprocess "
        "(repeatable): module:attribute or path/to/file.py:attribute naming a FastMCP (of mcp 1.x "
        "or fastmcp 2-4), an MCPServer, a "
        "low-level Server, or a function returning one; imported from the rootdir",
        "lines",
        metavar="MODULE:ATTR",
        cli=(
            CliFlag(
                ("--app",),
                (Command.INSPECT, Command.CALL),
                "this Python server object, run in-process",
                target=True,
            ),
        ),
    ),
    Option(
        "--mcp-config",
        "mcp_config",
        "contract-test the servers of this MCP client config file (repeatable; relative to "
        "the rootdir): Claude Desktop, Cursor or Windsurf mcpServers JSON, Claude Code's "
        ".mcp.json, VS Code's .vscode/mcp.json, or Codex's config.toml; each server runs "
        "under its name in the file. ${env:VAR}, ${VAR} and ${input:ID} (from MCP_INPUT_ID) "
        "are read from the environment; values are never printed "
        "(docs/how-to/client-config.md)",
        "lines",
        metavar="FILE",
        cli=(
            CliFlag(
                ("--config",),
                (Command.INSPECT, Command.CALL),
                "a server of this MCP client config file (with --config-server when it has "
                "several)",
                target=True,
            ),
        ),
    ),
    Option(
        "--mcp-config-server",
        "mcp_config_server",
        "only this server of the --mcp-config files, by its name there (repeatable; "
        "default: every server in them)",
        "lines",
        metavar="NAME",
        cli=(
            CliFlag(
                ("--config-server",),
                (Command.INSPECT, Command.CALL),
                "the server of --config to use, by its name there",
                table_default=False,
            ),
        ),
    ),
    Option(
        "--mcp-header",
        "mcp_header",
        "an HTTP header sent with every request to an --mcp-url server, 'Name: value' "
        "(repeatable). $VAR and ${VAR} in the value are read from the environment, so "
        "tokens stay out of command lines; values are never printed",
        "lines",
        metavar="'NAME: VALUE'",
        cli=(
            CliFlag(
                ("--header",),
                (Command.INSPECT, Command.CALL),
                "an HTTP header for --url (repeatable; $VAR is read from the environment)",
                repeat=True,
            ),
        ),
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
        "--mcp-protocol",
        "mcp_protocol",
        "the protocol check, one item per server: on connections of its own it sends requests a "
        "client may send by mistake (arguments null or an array, no tool name, an unknown tool "
        "or method), follows every listing's pagination, compares listings, and on 2026-07-28 "
        "asks for an unsupported version and a missing resource; each answer is held to the "
        "rule of the protocol version's specification (on, the default, or off)",
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
        cli=(
            CliFlag(
                ("--clients",),
                (Command.INSPECT,),
                "client profiles whose rules the findings apply, as --mcp-clients "
                f"(default {','.join(DEFAULT_CLIENTS)}; all, none)",
                "LIST",
            ),
        ),
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
        cli=(
            CliFlag(
                ("--call",),
                (Command.INSPECT,),
                "the call policy to say which tools pytest calls under, as --mcp-call "
                "(default: what a plain pytest run there uses: --mcp-call in PYTEST_ADDOPTS or "
                f"addopts, else mcp_call, else {DEFAULT_CALL_POLICY})",
                metavar=None,  # argparse shows the choices
                table_default=False,
            ),
        ),
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
        "--mcp-security",
        "mcp_security",
        "the security check sends each called tool probes that prove a break by evidence the "
        "run laid: a file appearing in a folder it owns (argument injection, CWE-88; OS "
        "command injection, CWE-78) or a token from beside its roots folder coming back "
        "(path traversal, CWE-22; symlinks, CWE-59): on fails the tool's security item (the "
        "default), warn warns, off sends no probe",
        "choice",
        DEFAULT_SECURITY,
        metavar="WHAT",
        choices=SECURITY_MODES,
    ),
    Option(
        "--mcp-call-timeout",
        "mcp_call_timeout",
        f"seconds a tool call may take (default {DEFAULT_CALL_TIMEOUT:g})",
        "float",
        DEFAULT_CALL_TIMEOUT,
        cli=(
            CliFlag(
                ("--call-timeout",),
                (Command.CALL,),
                f"seconds each call may take (default {DEFAULT_CALL_TIMEOUT:g})",
                "S",
            ),
        ),
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
        cli=(
            CliFlag(
                ("--roots",),
                (Command.CALL,),
                "offer this folder as the client's one root (roots/list), as the run did: a "
                "failure whose input points into the run's roots sandbox names it",
            ),
        ),
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
        DEFAULT_ELICITATION,
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
        cli=(CliFlag(("--startup-timeout",), (Command.INSPECT, Command.CALL), metavar="S"),),
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
        "--mcp-max-p95-ms",
        "mcp_max_p95_ms",
        "a limit on the p95 latency of every tool's answered contract calls, in "
        "milliseconds: each tool gets a latency item that fails when its p95 is above it, "
        "over at least --mcp-latency-calls calls, and shows the slowest inputs. Per tool: "
        "max_p95_ms under [tool.mcp-contracts.tools.<name>]. 0 or off: no limit (default off)",
        "limit",
        None,
        metavar="MS",
    ),
    Option(
        "--mcp-latency-calls",
        "mcp_latency_calls",
        "answered contract calls a tool's latency item needs to judge its p95; with fewer "
        f"it is skipped, saying so (default {DEFAULT_LATENCY_CALLS})",
        "int",
        DEFAULT_LATENCY_CALLS,
    ),
    Option(
        "--mcp-repeat",
        "mcp_repeat",
        "times the contract check sends each of its explicit inputs (examples and coverage "
        "inputs), each time in a row; the answers to one input are compared past ids, "
        "uuids and times, a tool that answers one input two ways is warned about, and the "
        "summary gives each tool's inputs answered alike every time (pass@k). A tool "
        "annotated readOnlyHint or idempotentHint is sent each coverage input at least "
        "twice (default 1)",
        "int",
        1,
        metavar="K",
    ),
    Option(
        "--mcp-run-time",
        "mcp_run_time",
        "seconds the whole run may spend in the checks that call the server: as each check "
        "starts, what is left is divided fairly among the checks not yet run, and a check "
        "gets the smaller of its share and its own budget (--mcp-tool-time); a check left "
        "nothing is not run (skipped). Under pytest-xdist each worker divides the time among "
        "its own share of the checks. The summary and the run report say what was cut. "
        "0 or off: no run budget (default off)",
        "budget",
        "off",
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
        cli=(
            CliFlag(
                ("--snapshots",),
                (Command.INSPECT,),
                f"recorded contracts to read (default ./{DEFAULT_SNAPSHOT_DIR}); without "
                "--server, only these are read and no server is started",
                table_default=False,
            ),
            CliFlag(
                ("--snapshot-dir", "--snapshots"),
                (Command.EXPORT,),
                f"the recorded contracts (default ./{DEFAULT_SNAPSHOT_DIR}, as --mcp-snapshot-dir)",
                table_default=False,  # the export's own command line names it only if given
            ),
        ),
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
        cli=(
            CliFlag(
                ("--lints",),
                (Command.INSPECT,),
                "lint levels, as --mcp-lints (e.g. 'no-annotations:off'; default: every lint a "
                "warning)",
                "LEVELS",
            ),
        ),
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
    Option(
        "--mcp-html",
        "mcp_html",
        "write a self-contained HTML report (every failure with its input, replay command "
        "and stderr; contracts, coverage, drift, findings, latency, time) to this file, "
        "relative to the rootdir (docs/how-to/html-report.md)",
        "path",
        None,
        metavar="PATH",
    ),
)


BY_FLAG: Final = {option.flag: option for option in OPTIONS}
# The options code outside the table reads by name.
CALL_OPTION: Final = BY_FLAG["--mcp-call"]
SNAPSHOT_DIR_OPTION: Final = BY_FLAG["--mcp-snapshot-dir"]
TARGETS: Final = tuple(
    BY_FLAG[flag] for flag in ("--mcp-server", "--mcp-url", "--mcp-app", "--mcp-config")
)
