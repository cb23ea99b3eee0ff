"""The names every layer shares: checks, finding levels, drift impacts, contract qualities,
snapshot modes, call policies, isError classes, the node prefix and the protocol versions (the
settings' defaults are in ``options``, beside the options they belong to).

It imports nothing from the package (the import-linter contract puts it at the bottom), so
the CLI, the transports and the reporters read one spelling of each without importing the
layer that happens to use it most. Every enum is a ``StrEnum`` whose values are the strings
printed, compared and written to JSON: a member *is* its string (``Check.DRIFT == "drift"``).
Before one crosses to an xdist controller it becomes a plain ``str``
(``reporting/runreport.for_the_wire``): execnet carries builtins only.
"""

from __future__ import annotations

import difflib
from enum import StrEnum
from typing import Final

# The package's version (pyproject.toml says it too): what a run report and the input cache
# are written by.
VERSION: Final = "0.1.0"


class Check(StrEnum):
    """The checks, each the name of a pytest item: ``mcp:<server>::<tool>::<check>``."""

    SCHEMA = "schema"
    DRIFT = "drift"
    CONTRACT = "contract"
    REJECTS_INVALID = "rejects_invalid"
    SEQUENCES = "sequences"  # of the whole server: mcp:<server>::sequences
    # Of a whole stdio server that printed on stdout while it started: mcp:<server>::stdout
    STDOUT = "stdout"
    # Of a whole server: its own conversation that holds it to the protocol's rules that no
    # schema can say (judges/protocol_rules): mcp:<server>::protocol
    PROTOCOL = "protocol"
    # Of a listed resource or template (mcp:<server>::resource:<uri>::read) and of a prompt
    # (mcp:<server>::prompt:<name>::get): their calls, judged as a tool's are.
    READ = "read"
    GET = "get"
    # Of a tool: probes that prove an injection by a file they make appear (runs/security).
    SECURITY = "security"
    # Of a tool with a latency limit (--mcp-max-p95-ms, max_p95_ms): the contract's calls' p95.
    LATENCY = "latency"


TOOL_CHECKS: Final = (Check.SCHEMA, Check.DRIFT, Check.CONTRACT, Check.REJECTS_INVALID)
# Checks of a tool that a run may leave out (--mcp-security=off; latency without a limit):
# reported only where they ran.
OPTIONAL_TOOL_CHECKS: Final = (Check.SECURITY, Check.LATENCY)


class SecurityMode(StrEnum):
    """What a proven injection does to its tool's security item (--mcp-security)."""

    ON = "on"  # fails it
    WARN = "warn"  # passes it with a warning that shows the evidence
    OFF = "off"  # no probes are sent: the item is not collected


class EntryKind(StrEnum):
    """What a server lists, each kind the word its entries are named by: a tool's node ids
    are ``mcp:<server>::<name>::<check>``, the others' ``mcp:<server>::<kind>:<key>::<check>``
    (``prompt:greet``)."""

    TOOL = "tool"
    PROMPT = "prompt"
    RESOURCE = "resource"
    TEMPLATE = "template"


#: What a server lists beside its tools, in the order their items are collected and counted.
BESIDE_TOOLS: Final = (EntryKind.PROMPT, EntryKind.RESOURCE, EntryKind.TEMPLATE)


class Level(StrEnum):
    """Whether a finding fails its item or is only reported; also each lint's chosen level
    (``--mcp-lints``, where a lint may instead be off). Not a failure's gravity: that is
    ``judges/failures.Severity``."""

    ERROR = "error"  # fails the item
    WARNING = "warning"  # reported, and the item passes


#: Gravest first: the order findings are listed and counted in.
LEVEL_ORDER: Final = tuple(Level)


class Impact(StrEnum):
    """How grave a drift change is for a client. Declared in order, gravest first: iterating
    the class, ``sorted(key=IMPACT_ORDER.index)`` and every report use that one order. The
    snapshot files, the run report and the terminal print these values as they are."""

    BREAKING = "breaking"  # fails
    REVIEW = "review"  # fails until a human accepts it
    # A changed tool or property description: an instruction to the model changed, the
    # vector of "rug pull" tool poisoning. Warned about; fails when descriptions are pinned.
    DESCRIPTION = "description"
    ADDITIVE = "additive"  # listed; fails only under --mcp-strict
    COSMETIC = "cosmetic"  # listed; fails only under --mcp-strict


IMPACT_ORDER: Final = tuple(Impact)


class DescriptionDrift(StrEnum):
    """What a changed description does to the drift item (``--mcp-descriptions``)."""

    WARN = "warn"  # a warning on the drift item, and a line of the summary
    # Fails until accepted: for a server you do not own, whose descriptions your agents
    # trust as they were reviewed (a changed one may be a rug pull).
    PIN = "pin"


class Quality(StrEnum):
    """Where a tool's output contract comes from and how far it is trusted, best first."""

    DECLARED = "declared"  # the server declares an outputSchema
    VALIDATED = "validated"  # inferred, consistent over inputs that differ
    INFERRED = "inferred"  # inferred, not yet trustworthy
    UNKNOWN = "unknown"  # nothing to learn from yet


QUALITIES: Final = tuple(Quality)


class SnapshotMode(StrEnum):
    """What a run may write to the snapshot folder (contracts/record.py says how)."""

    RECORD = "record"  # write what is new, never change what is there
    CI = "ci"  # write nothing (CI is set)
    UPDATE = "update"  # --mcp-snapshot-update: accept every change


class CallPolicy(StrEnum):
    """Which tools may be called, by their annotations."""

    READONLY = "readonly"
    NONDESTRUCTIVE = "nondestructive"
    ALL = "all"


class RejectsInvalidMode(StrEnum):
    """What a tool that accepts invalid input does to its rejects_invalid item."""

    WARN = "warn"
    FAIL = "fail"
    OFF = "off"


class ElicitationAnswer(StrEnum):
    """How the client answers a server's elicitation requests."""

    VARY = "vary"  # accept, decline, accept, cancel, ... per tool
    ACCEPT = "accept"
    DECLINE = "decline"
    CANCEL = "cancel"


class ErrorClass(StrEnum):
    """What an isError result (or a result that should have been one) says about the tool.
    The values are what settings (``warn_only``), messages and the run report use."""

    OUTPUT_INVALID = "output-invalid"
    UNEXPECTED_EXCEPTION = "unexpected-exception"
    ALWAYS_ERROR = "always-error"  # a tool without input properties that only fails
    SUSPECT = "suspect"
    REFUSAL = "refusal"
    # Results without isError whose text says they are not results (judge_success_result)
    ERROR_AS_RESULT = "error-as-result"
    DISGUISED_REFUSAL = "disguised-refusal"


# The classes that fail an item; each can be made a warning per tool (``warn_only``).
FAILING_CLASSES: Final = (
    ErrorClass.OUTPUT_INVALID,
    ErrorClass.UNEXPECTED_EXCEPTION,
    ErrorClass.ALWAYS_ERROR,
    ErrorClass.ERROR_AS_RESULT,
)


class ClientProfile(StrEnum):
    """A client whose own schema rules the ``schema`` check applies (``--mcp-clients``); the
    rules and their sources are in ``judges/clients`` and docs/clients.md."""

    CLAUDE = "claude"  # Claude Desktop and Claude Code
    OPENAI = "openai"  # OpenAI function calling as most clients send it (not strict mode)
    OPENAI_STRICT = "openai-strict"  # strict mode (the Agents SDK's strict conversion)
    GEMINI = "gemini"  # the Gemini API's function declarations
    VSCODE = "vscode"  # VS Code / GitHub Copilot Chat
    TYPESCRIPT_SDK = "typescript-sdk"  # clients built on the TypeScript SDK 2.x
    MCP = "mcp"  # the spec itself: always applied


CLIENT_PROFILES: Final = tuple(str(profile) for profile in ClientProfile)
CLIENTS_ALL: Final = "all"
CLIENTS_NONE: Final = "none"


class ClientSettingError(ValueError):
    """A ``--mcp-clients`` value we cannot use; the message lists the known profiles."""


def parse_clients(raw: str, *, option: str = "--mcp-clients") -> tuple[str, ...]:
    """Client profile names from a comma list (``all``, ``none``); an unknown name is an
    error that lists the known ones. ``mcp``, the spec, is always applied. Here, beside the
    names, so that the option is read in every run without importing the checks."""
    names = [name.strip().lower() for name in raw.replace("\n", ",").split(",")]
    names = [name for name in names if name]
    if names == [CLIENTS_ALL]:
        return CLIENT_PROFILES
    if names == [CLIENTS_NONE]:
        return ()
    unknown = [name for name in names if name not in CLIENT_PROFILES]
    if unknown or not names:
        close = difflib.get_close_matches(unknown[0], CLIENT_PROFILES, n=1) if unknown else []
        hint = f" (did you mean {close[0]}?)" if close else ""
        got = ", ".join(repr(name) for name in unknown) if unknown else repr(raw)
        raise ClientSettingError(
            f"{option}: unknown client {got}{hint}; known: {', '.join(CLIENT_PROFILES)}, "
            f"or {CLIENTS_ALL} or {CLIENTS_NONE} alone"
        )
    return tuple(dict.fromkeys(names))


# Plain strings, for option choices and messages: argparse prints a choice with ``repr``.
CALL_POLICIES: Final = tuple(str(policy) for policy in CallPolicy)
REJECTS_INVALID_MODES: Final = tuple(str(mode) for mode in RejectsInvalidMode)
SECURITY_MODES: Final = tuple(str(mode) for mode in SecurityMode)
ELICITATION_ANSWERS: Final = tuple(str(answer) for answer in ElicitationAnswer)
DESCRIPTION_DRIFT_MODES: Final = tuple(str(mode) for mode in DescriptionDrift)

NODE_PREFIX: Final = "mcp:"  # every node id of this plugin starts with it

# -- protocol versions ------------------------------------------------------------------------
# Literals, not mcp_types' constants: importing mcp_types brings pydantic onto the stdio path,
# which otherwise never imports the SDK; tests/unit/transport/test_stdio.py keeps them equal.
MODERN_VERSION: Final = "2026-07-28"  # server/discover, no handshake
HANDSHAKE_VERSION: Final = "2025-11-25"  # the newest version with the initialize handshake
HANDSHAKE_VERSIONS: Final = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
# URL-mode elicitation and its -32042 error exist only in this revision (new in it, retired
# by 2026-07-28); SEP-1303 made invalid arguments an isError result from it on.
URL_ELICITATION_PROTOCOL: Final = "2025-11-25"
ISERROR_REFUSAL_SINCE: Final = "2025-11-25"

# Listed resources read per server: a server may list thousands (a file tree); the others
# get no read item, and one warning for the server says so (pytest/items.ServerCollector,
# which collects without loading the read check).
MAX_RESOURCE_READS: Final = 100
