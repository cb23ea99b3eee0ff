"""What the run decides for one server's checks, in one object: the settings that bear on
checks, the recorder, the roots sandbox, the hypothesis seed, the conftest hooks' strategies,
the configured examples, how a server is had fresh, and the commands a failure names.

The pytest layer builds one ``RunContext`` per started server (``pytest/session``); each
generated item and the ``mcp_server`` fixture ask it, so no decision about a run lives in
``pytest/``. No pytest here: a check reports a skip as ``Skipped``, and its numbers, user
properties and report sections in ``ItemFacts``; the item turns them into pytest's outcomes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, Protocol

from pytest_mcp_contracts.judges.failures import ContractFailure, FailureKind, FailureReport
from pytest_mcp_contracts.runs.engine import Budget
from pytest_mcp_contracts.runs.stats import CheckStats
from pytest_mcp_contracts.vocabulary import Check

if TYPE_CHECKING:
    from pytest_mcp_contracts.contracts.record import Recorder
    from pytest_mcp_contracts.inputs.given_inputs import GivenInputs
    from pytest_mcp_contracts.inputs.probes import CanarySpace
    from pytest_mcp_contracts.inputs.sandbox import Sandbox, SandboxPaths
    from pytest_mcp_contracts.judges.lints import LintLevels
    from pytest_mcp_contracts.judges.writes import Boundary
    from pytest_mcp_contracts.project import ToolConfig
    from pytest_mcp_contracts.runs.run_time import RunTime
    from pytest_mcp_contracts.runs.watch import Watch
    from pytest_mcp_contracts.transport.discover import Entry, ServerSurface
    from pytest_mcp_contracts.transport.managed import ManagedServer


class Skipped(BaseException):
    """The check does not apply (its item skips, saying why). A BaseException, as pytest's
    own outcomes are: no ``except Exception`` between the check and its item takes it."""


class Unusable(Exception):
    """The run cannot set a check up (the roots sandbox cannot be laid), where no pytest
    layer says how it fails (``RunContext.unusable``)."""


def _unusable(text: str) -> NoReturn:
    raise Unusable(text)


class Warn(Protocol):
    """How a check says something that does not fail its item: a warning located at the
    item (``lint``: a lint's warning, of its own category). Under ``-W error`` it raises,
    where the check said it."""

    def __call__(self, message: str, *, lint: bool = False) -> None: ...


@dataclass
class ItemFacts:
    """What a check leaves on its item's test report whatever its outcome, filled in as it
    goes (a failure keeps what was counted before it): its numbers (``CheckStats``), user
    properties (JUnit, the xdist controller) and report sections, each in the order met."""

    stats: CheckStats | None = None
    properties: list[tuple[str, object]] = field(default_factory=list)
    sections: list[tuple[str, str]] = field(default_factory=list)

    def section(self, title: str, text: str) -> None:
        self.sections.append((title, text))


class CheckSettings(Protocol):
    """The run's settings that bear on checks (``pytest/settings.Settings`` is one)."""

    @property
    def max_examples(self) -> int: ...
    @property
    def max_restarts(self) -> int: ...
    @property
    def shrink_time(self) -> float: ...
    @property
    def coverage(self) -> bool: ...
    @property
    def in_flight(self) -> int: ...
    @property
    def call_policy(self) -> str: ...
    @property
    def rejects_invalid(self) -> str: ...
    @property
    def security(self) -> str: ...
    @property
    def sequences(self) -> bool: ...
    @property
    def sequences_time(self) -> float: ...
    @property
    def reset_command(self) -> str | None: ...
    @property
    def listed_skips(self) -> frozenset[tuple[str, str]]: ...
    @property
    def lint_levels(self) -> LintLevels: ...

    def tool(self, server: str, name: str) -> ToolConfig: ...

    def time_budget(self, tool_config: ToolConfig) -> float | None: ...

    @property
    def tool_time(self) -> float | None: ...
    @property
    def latency_calls(self) -> int: ...
    @property
    def call_timeout(self) -> float: ...
    @property
    def repeat(self) -> int: ...

    def latency_limit(self, tool_config: ToolConfig) -> float | None: ...


class InputCache(Protocol):
    """Where values outlive the run (pytest's ``config.cache``)."""

    def get(self, key: str, default: Any) -> Any: ...

    def set(self, key: str, value: Any) -> None: ...


# What the conftest hooks answer for a tool (``pytest_mcp_tool_strategy``): by server name.
StrategyAnswers = Callable[[str, "Entry"], Sequence[Any]]


@dataclass
class RunContext:
    """What the run decides for one started server's checks and hand-written calls."""

    server: ManagedServer
    settings: CheckSettings
    recorder: Recorder
    sandbox: Sandbox | None = None  # the client's root laid with sample files
    canaries: CanarySpace | None = None  # where the security probes' files may appear
    seed: Any = None  # --hypothesis-seed, handed to every check explicitly
    strategy_answers: StrategyAnswers = lambda server, tool: ()
    cache: InputCache | None = None  # None: nothing is kept between runs
    version: str = ""  # the plugin's: what a run keeps in the cache is kept by it
    record_command: str = ""  # the command that runs this run again, and so records
    accept_command: str = ""  # the words that say how to accept drift
    # How a check the run cannot set up fails: under pytest, the item or the hand-written
    # test fails with the text alone, no traceback.
    unusable: Callable[[str], NoReturn] = _unusable
    # Watched folders found past the watch's bounds: not looked at again (runs/watch).
    unwatched: set[Path] = field(default_factory=set)
    # What a check says once per server, by a name of its own (a warning not repeated).
    said: set[str] = field(default_factory=set)
    # Each tool's contract calls in this process: latency (ms) and input, for its latency item.
    timed: dict[str, list[tuple[float, dict[str, Any]]]] = field(default_factory=dict)
    # The run's time budget (--mcp-run-time), shared by every server's context; None: none.
    run_time: RunTime | None = None

    @property
    def surface(self) -> ServerSurface:
        assert self.server.surface is not None
        return self.server.surface

    def budget(self, *, tool_time: float | None, max_examples: int | None = None) -> Budget:
        """What one check may spend (``runs/engine.Budget``): the run's examples (or
        ``max_examples``), restarts, shrink time and seed, and the check's own time
        (``tool_time``: a tool's, the sequences'), cut to its share of the run's time budget
        (runs/run_time)."""
        settings = self.settings
        share = self.run_time.share(tool_time).seconds if self.run_time is not None else None
        return Budget(
            max_examples=settings.max_examples if max_examples is None else max_examples,
            max_restarts=settings.max_restarts,
            shrink_time=settings.shrink_time,
            tool_time=tool_time,
            seed=self.seed,
            call_timeout=settings.call_timeout,
            share=share,
        )

    def begin(self, check: str) -> None:
        """A check of this server begins: Skipped when the run's time budget (runs/run_time)
        leaves it nothing."""
        if self.run_time is not None and not self.run_time.begin(check):
            from pytest_mcp_contracts.runs.run_time import spent_words

            raise Skipped(spent_words(self.run_time.seconds))

    @property
    def drift_hint(self) -> str:
        """The line under a drift failure that says how to accept the change."""
        return f"if the change is intended, {self.accept_command}"

    @property
    def lints(self) -> LintLevels:
        return self.settings.lint_levels

    # -- one tool --------------------------------------------------------------------------

    def tool_settings(self, tool: Entry) -> ToolConfig:
        """The tool's own table: ``"server/tool"`` first, then the bare tool name."""
        return self.settings.tool(self.surface.name, tool.name)

    def refusal(self, tool: Entry) -> str | None:
        """Why the run does not call ``tool`` (its table, the call policy, the server's
        capabilities), or None."""
        from pytest_mcp_contracts.transport.call_policy import tool_refusal

        tool_config = self.tool_settings(tool)
        return tool_refusal(
            tool,
            self.surface.capabilities,
            policy=self.settings.call_policy,
            tool_policy=tool_config.call,
            skip=tool_config.skip,
        )

    def callable_settings(self, tool: Entry) -> ToolConfig:
        """The tool's own table; Skipped when it or the call policy forbid calling it."""
        refusal = self.refusal(tool)
        if refusal is not None:
            raise Skipped(refusal)
        return self.tool_settings(tool)

    def warn_only(self, tool: Entry) -> frozenset[str]:
        """The isError classes the tool's table only warns about."""
        return frozenset(self.tool_settings(tool).warn_only)

    def user_strategies(self, tool: Entry) -> Any:
        """What conftest.py files supply for a tool through ``pytest_mcp_tool_strategy``:
        one strategy for the whole input, or strategies by property name (merged across
        conftests), or None; UserStrategyError when their answers cannot be combined."""
        from pytest_mcp_contracts.inputs.user_strategies import UserStrategyError

        answers = self.strategy_answers(self.surface.name, tool)
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

    def given(self, tool: Entry) -> GivenInputs:
        """The tool's configured examples and its inputSchema's own, each judged by it."""
        from pytest_mcp_contracts.inputs.given_inputs import given_inputs

        return given_inputs(tool.input_schema, self.tool_settings(tool).examples)

    # As a hand-written test meets them (runs/handwritten): a mistake of the user's is a
    # ValueError there, not a failure of a generated item.

    def overrides(self, tool: Entry) -> Any:
        from pytest_mcp_contracts.inputs.user_strategies import UserStrategyError

        try:
            return self.user_strategies(tool)
        except UserStrategyError as exc:
            raise ValueError(str(exc)) from None

    def examples(self, tool: Entry) -> list[dict[str, Any]]:
        given = self.given(tool)
        if given.refused_configured is not None:
            number, example, why = given.refused_configured
            raise ValueError(
                f"configured example {number} is not valid for the inputSchema\n"
                f"{example!r}: {why}\nfix it under [tool.mcp-contracts.tools]"
            )
        return given.inputs

    # -- the roots sandbox -----------------------------------------------------------------

    def sandbox_paths(self, tool: Entry) -> SandboxPaths | None:
        """The sandbox's values as ``tool`` draws them (``SandboxPaths.for_listed_tool``:
        the kinds its description and the server's command name first); None without one."""
        if self.sandbox is None:
            return None
        argv = getattr(self.server.command, "argv", ())
        return self.sandbox.paths.for_listed_tool(tool, tuple(argv))

    def laid_sandbox(self, tool: Entry | None = None) -> SandboxPaths | None:
        """Lay the roots sandbox anew before a check's calls (so that no tool's writes
        become another tool's inputs) and return its values (for ``tool``: as it draws
        them); None under --mcp-roots=none."""
        from pytest_mcp_contracts.inputs.sandbox import SandboxError

        if self.sandbox is None:
            return None
        try:
            self.sandbox.lay()
        except SandboxError as exc:
            self.unusable(str(exc))
        return self.sandbox.paths if tool is None else self.sandbox_paths(tool)

    def sandbox_test(self) -> Callable[[dict[str, Any]], bool] | None:
        """Whether a call's arguments use the roots sandbox, for the sandbox_calls count."""
        if self.sandbox is None:
            return None
        from pytest_mcp_contracts.inputs.sandbox import uses_sandbox

        values = self.sandbox.paths.all
        return lambda arguments: uses_sandbox(arguments, values)

    # -- the boundary and the watch ----------------------------------------------------------

    def boundary(self) -> Boundary:
        """Where the server says it works (``judges/writes.Boundary``): the folders on its
        command line and in the environment its command sets, and the client's roots folder,
        adopted once the server asks for it."""
        from pytest_mcp_contracts.judges.writes import Boundary

        client = self.server.client
        roots = self.sandbox.root if self.sandbox is not None else None
        return Boundary.of(self.server.command, lambda: client.roots_asked, roots)

    def watch(
        self, tool: Entry, check: str, laid: Sequence[Path] = (), *, tidy: bool = False
    ) -> Watch | None:
        """The watch over ``tool``'s calls in ``check`` (``runs/watch``), or None under
        --mcp-security=off and where no rule of ``judges/writes`` applies. ``laid``: folders
        the check laid besides the roots folder, and the files whose content it knows in
        them; ``tidy``: what a call made appear in a folder the run does not own is removed
        after it (the security probes')."""
        from pytest_mcp_contracts.runs.watch import Watch, watched_folders
        from pytest_mcp_contracts.vocabulary import SecurityMode

        if self.settings.security == SecurityMode.OFF:
            return None
        boundary, hints = self.boundary(), tool.annotations
        judged = hints.get("readOnlyHint") is True or hints.get("destructiveHint") is False
        if not (judged or boundary.declared):
            return None  # no rule could fail a call of this tool: nothing to look at
        roots, known = boundary.roots, tuple(laid)

        def ours(path: Path) -> bool:
            return path in known or (roots is not None and roots in path.parents)

        folders = watched_folders(boundary, [p for p in known if p.is_dir()])
        warn = self.settings.security == SecurityMode.WARN
        theirs = tuple(f for f in folders if f != roots and f not in known) if tidy else ()
        return Watch(
            check,
            tool.annotations,
            boundary,
            folders,
            ours,
            warn=warn,
            unwatched=self.unwatched,
            tidy=theirs,
            fresh=(lambda: self.fresh(check)) if self.fresh_possible else None,
        )

    # -- a fresh server --------------------------------------------------------------------

    @property
    def fresh_possible(self) -> bool:
        """Whether a failure can be replayed on a freshly started server: one the plugin
        starts itself, or any with --mcp-reset-command."""
        return self.server.command.noun == "command" or bool(self.settings.reset_command)

    def fresh(self, check: str = Check.CONTRACT) -> None:
        """Lay the roots sandbox anew, run the user's reset command, then restart the server
        (over HTTP: a new session). No restart where it would only repeat the state the
        server is in: nothing sent since it started but its handshake and listings, on the
        sandbox as it was laid before the start, and no reset command (a restart of a
        Python server on the SDK takes about a second). ``check`` names the check in the
        failure of a reset command."""
        import shlex
        import subprocess

        server, sandbox = self.server, self.sandbox
        self.laid_sandbox()
        command = self.settings.reset_command
        laid_before = sandbox is None or sandbox.laid_at < server.opened_at
        if not command and server.untouched and laid_before:
            return
        if command:
            command = server.for_this_worker(
                command
            )  # {worker}, this worker's copies of state files
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
        server.start_fresh()
