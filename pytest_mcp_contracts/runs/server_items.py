"""The checks of a whole server as its items run them: ``sequences`` and ``stdout``.

Each takes the server's ``RunContext``: which tools the sequences may call and with what, the
fresh server they start from, the seed; a failure is raised as ``ContractFailure``, a skip as
``context.Skipped``, the numbers and report sections go into ``ItemFacts``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pytest_mcp_contracts.judges.failures import ContractFailure, FailureReport
from pytest_mcp_contracts.runs.context import ItemFacts, RunContext, Skipped
from pytest_mcp_contracts.runs.stats import CheckStats
from pytest_mcp_contracts.vocabulary import Check

if TYPE_CHECKING:
    from pytest_mcp_contracts.transport.discover import Entry


def check_server_sequences(context: RunContext, facts: ItemFacts) -> None:
    """Sequences of calls in which values from earlier outputs (ids, names, paths) feed
    later inputs; each distinct failure (up to 3) is shrunk to its own shortest sequence,
    and the one failure raised shows them all."""
    from pytest_mcp_contracts.runs.sequences.check import check_sequences, plan_sequences

    server, settings = context.server, context.settings

    def refusal(tool: Entry) -> str | None:
        why = context.refusal(tool)
        return why.removeprefix("not called: ") if why else None

    def given(tool: Entry) -> tuple[Any, list[dict[str, Any]]]:
        # What the contract check is given for the tool: the hook's strategies, and the
        # configured and schema examples that the inputSchema accepts.
        return context.user_strategies(tool), context.given(tool).inputs

    plan = plan_sequences(
        server,
        refusal,
        context.warn_only,
        context.laid_sandbox(),
        CheckStats(uses_sandbox=context.sandbox_test()),
        given,
    )
    if isinstance(plan, str):
        raise Skipped(plan)
    facts.stats = plan.stats.tally  # each call under the tool it called
    try:
        check_sequences(
            plan,
            lambda: context.fresh(Check.SEQUENCES.value),
            simplest,
            context.budget(tool_time=settings.sequences_time),
            resets=context.fresh_possible,
        )
    finally:
        facts.properties.append(("mcp_sequence_calls", plan.stats.calls))
        facts.properties.append(("mcp_sequence_fed_calls", plan.stats.fed_calls))
        facts.section("mcp sequences", "\n".join(plan.summary_lines()))


def simplest(strategy: Any) -> dict[str, Any] | None:
    """A strategy's simplest input, or None when it has none."""
    from hypothesis.errors import HypothesisException

    from pytest_mcp_contracts.inputs.examples import simplest_example

    try:
        found: dict[str, Any] = simplest_example(strategy)
    except HypothesisException:
        return None
    return found


def check_server_stdout(context: RunContext) -> None:
    """A stdio server that wrote on stdout, before its tool list was answered, lines that
    are not JSON-RPC messages (a banner): a client breaks on them (judges/stdout)."""
    from pytest_mcp_contracts.judges.stdout import check_startup_stdout

    server, check = context.server, Check.STDOUT.value
    finding = check_startup_stdout(check, server.startup_stdout)
    if finding is not None:
        raise ContractFailure(
            FailureReport.for_tool(
                server, "(all)", check, finding.message, finding.kind, details=finding.details
            )
        )
