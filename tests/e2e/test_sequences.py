"""The sequences check: ids that a create made feed the lookups and updates after it.

tests/servers/notes_store.py has a bug only create -> update -> read reaches (and its ids are
hashes, never guessed): the contract items cannot find it, the sequences item finds it and
shrinks it to those three calls. MCP_FIXTURE_BUGS=0 is the same server, correct.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from typing import Any

import pytest

from tests.conftest import NO_SEQUENCES, SERVERS, RunMcp

# Tests that say "in-process" run the plugin in this process against --mcp-app (see
# conftest.run_inprocess): what they check needs no real transport. The others run pytest
# in this process too, but notes_store a real server process (run_mcp_inprocess): a restart
# in-process keeps the module's notes (the module is imported once per run), so a "freshly
# started" notes_store would not be fresh.


def _replay_lines(output: str) -> list[str]:
    block = output.split("reproduce on a freshly started server:")[1].split("\n\n")[0]
    return [line.strip() for line in block.splitlines()[1:] if line.strip()]


@pytest.mark.parametrize("seed", ["1", "8"])
def test_a_bug_behind_create_update_read_is_shrunk_to_that_sequence(
    run_mcp_inprocess: RunMcp, seed: str
) -> None:
    # A plain run: the sequences check is on by default.
    result = run_mcp_inprocess("notes_store.py", args=(f"--hypothesis-seed={seed}",))
    out = result.stdout.str()
    # The contract items alone never reach it: their ids never exist.
    assert "FAILED mcp:notes-store::read_note::contract" not in out
    assert "FAILED mcp:notes-store::sequences" in out
    result.stdout.fnmatch_lines(
        [
            "the tool raised an unexpected exception (the server answered isError) "
            "(call 3 of a sequence)",
            "  exception: KeyError: 'words'",
            "tool: read_note    check: sequences",
            "shortest sequence found (each call, then its answer):",
            '    1. create_note {"body": "", "title": ""}',
            '       -> ok: {"body": "", "note_id": "n-6b86b273ff", "title": "", "words": 0}',
            '    2. update_note {"body": "", "note_id": "n-6b86b273ff"}  (note_id from call 1)',
            "       -> ok: *",
            '    3. read_note {"note_id": "n-6b86b273ff"}  (note_id from call 1)',
            "       -> isError: Error executing tool read_note",
            "reproduce on a freshly started server: write them to its stdin, each after the "
            "answer to the one before:",
        ]
    )
    result.assert_outcomes(failed=1, passed=17, skipped=3)
    lines = _replay_lines(out)
    assert len(lines) == 3  # a 2026-07-28 server: no handshake lines
    # The replay lines reproduce the bug on a fresh server.
    answers, _ = _replay(lines)
    assert [a["result"].get("isError") for a in answers] == [False, False, True]
    assert answers[-1]["result"]["content"][0]["text"] == "Error executing tool read_note"


def _replay(
    lines: list[str], server_file: str = "notes_store.py", *, until_exit: bool = False
) -> tuple[list[dict[str, Any]], int | None]:
    """Each line to a freshly started server, each request after the answer to the one
    before (a notification gets none); the answers, and with ``until_exit`` the exit status
    the server ended with (it must end by itself)."""
    server = subprocess.Popen(
        [sys.executable, str(SERVERS / server_file)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert server.stdin is not None and server.stdout is not None
    answers = []
    try:
        for line in lines:
            server.stdin.write(line + "\n")
            server.stdin.flush()
            if "id" in json.loads(line):
                answer = server.stdout.readline()
                if not answer:
                    break
                answers.append(json.loads(answer))
        return answers, server.wait(timeout=10) if until_exit else None
    finally:
        server.kill()
        server.wait()


def test_without_the_bug_lookups_and_updates_return_real_results(
    run_inprocess: RunMcp, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_mcp = run_inprocess  # in-process: see the note at the top
    monkeypatch.setenv("MCP_FIXTURE_BUGS", "0")
    alone = run_mcp("notes_store.py", args=(NO_SEQUENCES, "--mcp-report=alone.json"))
    alone.assert_outcomes(passed=17, skipped=3)
    before = _real_results(pytester, "alone.json")
    assert before["read_note"] == before["update_note"] == 0  # "not found", every call

    monkeypatch.setenv("CI", "true")  # derandomized, against what the first run recorded
    result = run_mcp("notes_store.py", args=("--mcp-report=both.json", "-rA", "-v"))
    result.assert_outcomes(passed=18, skipped=3)
    after = _real_results(pytester, "both.json")
    assert after["read_note"] >= 10 and after["update_note"] >= 10, after
    assert "delete_note" not in after or after["delete_note"] == 0  # destructive: not called
    result.stdout.fnmatch_lines(
        [
            "*sequences, * calls, * of them with values from earlier outputs; real results by "
            "tool: create_note *, list_notes *, read_note *, update_note *",
            "not called: delete_note: the tool declares destructiveHint: true.*",
            "*read_note: declared; *; real results: * of * calls*",
        ]
    )
    report = json.loads((pytester.path / "both.json").read_text())
    assert report["servers"][0]["sequences"]["outcome"] == "passed"


def _real_results(pytester: pytest.Pytester, name: str) -> dict[str, int]:
    report = json.loads((pytester.path / name).read_text())
    return {tool["name"]: tool["real_results"] for tool in report["servers"][0]["tools"]}


def test_a_failing_reset_command_fails_the_sequences_item(
    run_inprocess: RunMcp, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_mcp = run_inprocess  # in-process: see the note at the top
    monkeypatch.setenv("MCP_FIXTURE_BUGS", "0")
    result = run_mcp(
        "notes_store.py",
        args=("--mcp-reset-command=sh -c 'echo no such db >&2; exit 3'", "-k", "seq"),
    )
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["--mcp-reset-command failed with exit status 3", "  sh -c 'echo no such db >&2; exit 3'"]
    )
    assert re.search(r"^\s+no such db$", result.stdout.str(), re.M)


def test_a_failure_shows_the_earlier_calls_that_left_the_state_it_ran_in(
    run_mcp_inprocess: RunMcp,
) -> None:
    run_mcp = run_mcp_inprocess
    result = run_mcp("stored_invalid.py", args=(NO_SEQUENCES,))
    # Replayed on a fresh server: alone it passes, after the invalid add_tag it fails, so
    # the report shows that sequence rather than a list of suspects.
    result.stdout.fnmatch_lines(
        [
            "a schema-valid input was answered with JSON-RPC error -32603: Internal error",
            "tool: list_tags    check: contract",
            "shortest sequence found (each call, then its answer):",
            "    1. add_tag {*}",
            "       -> ok: *",
            "    2. list_tags {}",
            "       -> JSON-RPC error -32603: Internal error",
            "reproduce on a freshly started server: *",
            '    {"jsonrpc":"2.0","id":1,"method":"initialize",*',
            "or with one command:",
            "    mcp-contracts call *--server=* add_tag '{*}' list_tags '{}'",
            "(it does not fail alone on a freshly started server; it fails there after the "
            "call before it above: what is left of the * calls made before it on its server "
            "process once the shrinker dropped those it could)",
            "(call 1: an invalid input, sent by rejects_invalid; a tool that took it may have "
            "stored it)",
        ]
    )
    assert "earlier calls that may have changed the state" not in result.stdout.str()
    result.assert_outcomes(failed=1, passed=6, skipped=1)
    # Without the invalid inputs nothing malformed is stored, and the listing works.
    clean = run_mcp("stored_invalid.py", args=(NO_SEQUENCES, "--mcp-rejects-invalid=off"))
    clean.assert_outcomes(passed=6, skipped=2)


@pytest.mark.parametrize(
    ("args", "way"),
    [
        (
            (),
            "sequences: create_note return(s) what its note_id can take; the server's "
            "sequences item feeds them *",
        ),
        (
            (NO_SEQUENCES,),
            "sequences: --mcp-sequences=on feeds its note_id from what create_note return(s); *",
        ),
    ],
)
def test_a_lookup_that_refused_everything_is_told_how_to_be_reached(
    run_inprocess: RunMcp, args: tuple[str, ...], way: str
) -> None:
    run_mcp = run_inprocess  # in-process: see the note at the top
    result = run_mcp(
        "notes_store.py", args=(*args, "-k", "read_note and contract", "--mcp-max-examples=10")
    )
    result.assert_outcomes(passed=1, deselected=len(args) * -1 + 20, warnings=1)
    result.stdout.fnmatch_lines(
        [
            # 10 inputs, and its 2 coverage inputs sent again: it is read-only (runs/repeat).
            "*read_note: 12 of 12 calls returned isError, so the output contract was barely "
            f"exercised; *; ways to reach it: {way}examples: inputs it accepts in "
            "[[]tool.mcp-contracts.tools.read_note] examples"  # [[] is a literal [ here
        ]
    )


def test_sequences_draw_inputs_from_the_hook_and_the_configured_examples(
    pytester: pytest.Pytester, run_mcp_inprocess: RunMcp, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Inputs a user gave for a tool (pytest_mcp_tool_strategy, examples in pyproject.toml)
    are the ones that reach its real data: the sequences draw them too, as the contract
    item does. Only the sequences item runs here, so every call logged is one of its."""
    log = pytester.path / "calls.log"
    monkeypatch.setenv("MCP_FIXTURE_CALL_LOG", str(log))
    pytester.makeconftest(
        """
        from hypothesis import strategies as st

        def pytest_mcp_tool_strategy(tool):
            if tool == "get_order":
                return {"order_id": st.just("A-20261127")}
            return None
        """
    )
    pytester.makepyprojecttoml(
        """
        [tool.mcp-contracts.tools.list_files]
        examples = [{path = "/srv/orders/2026"}]
        """
    )
    result = run_mcp_inprocess(
        "lookup.py", args=("-k", "sequences", "--hypothesis-seed=3", "--mcp-max-examples=20")
    )
    result.assert_outcomes(passed=1)
    calls = [line.split(" ", 1) for line in log.read_text().splitlines()]
    orders = {json.loads(args)["order_id"] for name, args in calls if name == "get_order"}
    paths = [json.loads(args)["path"] for name, args in calls if name == "list_files"]
    assert orders == {"A-20261127"}
    assert "/srv/orders/2026" in paths


def test_a_hook_strategy_the_schema_refuses_fails_the_sequences_item_by_name(
    pytester: pytest.Pytester, run_mcp_inprocess: RunMcp, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MCP_FIXTURE_CALL_LOG", str(pytester.path / "calls.log"))
    pytester.makeconftest(
        """
        from hypothesis import strategies as st

        def pytest_mcp_tool_strategy(tool):
            if tool == "get_order":
                return {"order_id": st.just("order 7")}  # the pattern is ^A-[0-9]+$
            return None
        """
    )
    result = run_mcp_inprocess("lookup.py", args=("-k", "sequences", "--hypothesis-seed=3"))
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "a strategy from pytest_mcp_tool_strategy made an input the schema refuses",
            "*'order 7'*which the inputSchema refuses*",
            "tool: get_order    check: sequences",
        ]
    )


def test_tools_that_take_no_ids_are_interleaved_until_two_sequences_reach_nothing_new(
    run_inprocess: RunMcp, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No tool of counter_state.py takes an id-like value, so no call can feed another: the
    item stops once 2 sequences in a row reached nothing new (5 where a value can be fed),
    and still finds the bug that only the state earlier calls left reaches."""
    args = ("-k", "sequences", "--hypothesis-seed=1", "-rA")
    found = run_inprocess("counter_state.py", args=args)
    found.assert_outcomes(failed=1)
    found.stdout.fnmatch_lines(["*tool: level    check: sequences*"])
    monkeypatch.setenv("MCP_FIXTURE_BUGS", "0")
    clean = run_inprocess("counter_state.py", args=args)
    clean.assert_outcomes(passed=1)
    clean.stdout.fnmatch_lines(
        [
            "*stopped after * sequences: the last 2 reached no tool, answer, failure or chain "
            "of calls*"
        ]
    )


def test_a_shallow_failure_does_not_hide_the_deeper_one_behind_it(
    run_mcp_inprocess: RunMcp, monkeypatch: pytest.MonkeyPatch
) -> None:
    """tests/servers/shallow_deep.py crashes on an unknown id (JSON-RPC -32603 with a
    runtime's message) on the first lookup of every run, and dies on a lookup once two
    memories are stored: the sequences go on past the first failure, and the item reports
    both, each with its own shortest sequence and its own replay (issue 43, rule 3)."""
    args = ("-k", "sequences", "--hypothesis-seed=1")
    result = run_mcp_inprocess("shallow_deep.py", args=args)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            # The gravest first: the deep crash heads the item (its kind is the item's).
            "the call killed the server: * (exit status 5) (call 3 of a sequence) (and 1 more "
            "failure of this check below)",
            "tool: get_memory    check: sequences",
            "shortest sequence found (each call, then its answer):",
            '    1. store_memory {"text": ""}',
            '       -> ok: {"memory_id": "m-6b86b273ff", "text": ""}',
            '    2. store_memory {"text": ""}',
            "       -> ok: *",
            '    3. get_memory {"memory_id": "m-*"}  (memory_id from call *)',
            "       -> failed: *exit status 5*",
            "reproduce on a freshly started server: *",
            "*IndexError: list index out of range",
            "failure 2 of 2 of this check:",
            "    a schema-valid input was answered with JSON-RPC error -32603: Cannot read "
            "properties of undefined (reading 'text') (call 1 of a sequence)",
            "    tool: get_memory    check: sequences",
            '        1. get_memory {"memory_id": ""}',
            "           -> JSON-RPC error -32603: Cannot read properties of undefined (reading "
            "'text')",
            "    reproduce on a freshly started server: *",
            "    (the sequences met this failure * times; after the first, each was counted and "
            "passed as a refusal, and the search went on)",
        ]
    )
    out = result.stdout.str()
    deep = out.split("failure 2 of 2 of this check:")[0]
    block = deep.split("reproduce on a freshly started server:")[1].split("\n\n")[0]
    lines = [line.strip() for line in block.splitlines()[1:] if line.strip()]
    # The deep failure's lines alone kill a freshly started server: the shallow failure is
    # no part of its sequence.
    answers, status = _replay(lines, "shallow_deep.py", until_exit=True)
    assert [a["result"]["structuredContent"]["memory_id"] for a in answers[1:]] == [
        "m-6b86b273ff",
        "m-d4735e3a26",
    ]
    assert status == 5
    result.stdout.fnmatch_lines(["failures met: get_memory: rpc_error, *x; get_memory: crash, *x"])

    monkeypatch.setenv("MCP_FIXTURE_BUGS", "0")
    run_mcp_inprocess("shallow_deep.py", args=args).assert_outcomes(passed=1)
