"""Prompts, resources and resource templates under the schema check: their items, the
mcp/ rules their listing entries break (judges/content_listing), and a correct server's
entries passing. The -n 2 parity of their items and outcomes is in test_xdist.py."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from ..conftest import NO_SEQUENCES, SERVERS, RunMcp, server_command

CORRECT = [
    "mcp:library::prompt:review_code::schema PASSED*",
    "mcp:library::prompt:greeting::schema PASSED*",
    "mcp:library::resource:file_docs_readme.md::schema PASSED*",
    "mcp:library::resource:config_app_settings::schema PASSED*",
    "mcp:library::template:users_user_id_profile::schema PASSED*",
]


def test_each_entry_has_a_schema_item_that_fails_on_exactly_its_rule(
    run_inprocess: RunMcp, pytester: pytest.Pytester, ts_servers: Callable[[str], str]
) -> None:
    """The Python and TypeScript SDK servers' entries pass; each buggy entry of the raw
    server fails its own item, naming its rule, and a correct entry beside them passes."""
    buggy = f"--mcp-server={server_command('listing_bugs.py')}"
    typescript = f"--mcp-server={ts_servers('prompts_resources.mjs')}"
    result = run_inprocess(
        "prompts_resources.py",
        args=(NO_SEQUENCES, buggy, typescript, "-k", "schema", "-v", "--mcp-report=report.json"),
    )
    result.stdout.fnmatch_lines_random(
        [
            *CORRECT,
            "mcp:listing-bugs::ok::schema PASSED*",
            "mcp:ts-library::prompt:review_code::schema PASSED*",
            "mcp:ts-library::resource:file_docs_readme.md::schema PASSED*",
            "mcp:ts-library::template:users_userId_profile::schema PASSED*",
            "mcp:listing-bugs::prompt:summarize::schema FAILED*",
            "mcp:listing-bugs::prompt:dup::schema FAILED*",
            "mcp:listing-bugs::resource:docs_relative.md::schema FAILED*",
            "mcp:listing-bugs::resource:file_docs_notes.md::schema PASSED*",
            "mcp:listing-bugs::resource:file_docs_ok.md::schema PASSED*",
            "mcp:listing-bugs::template:file_path::schema FAILED*",
            # Each failure leads with its rule (the short summary cuts its lines short).
            "[[]mcp/required-member] the argument has no 'name', which the spec requires",
            "[[]mcp/duplicate] name 'dup' is listed 2 times in prompts/list*",
            "[[]mcp/resource-uri] the resource URI 'docs/relative.md' is relative*",
            "[[]mcp/uri-template] the URI template 'file://{path' is not a valid RFC 6570*",
            # The summary counts each server's entries and lists their rules.
            "library (protocol *): 1 tools, 2 prompts, 2 resources, 1 templates, *",
            "listing-bugs (protocol *): 1 tools, 2 prompts, 3 resources, 1 templates, *",
            "*warning mcp/mime-type (mcp): 1 entry (resource file:///docs/notes.md)*",
        ]
    )
    result.stdout.fnmatch_lines(["*template: file://{path    check: schema*"])
    # Deselected: the tools' other checks, and each entry's drift and read or get items.
    result.assert_outcomes(failed=4, passed=13, deselected=37, warnings=1)
    report = json.loads((pytester.path / "report.json").read_text(encoding="utf-8"))
    bugs = {s["name"]: s for s in report["servers"]}["listing-bugs"]
    assert (bugs["prompts_listed"], bugs["resources_listed"], bugs["templates_listed"]) == (2, 3, 1)
    outcomes = {e["name"]: e["checks"]["schema"]["outcome"] for e in bugs["listed"]}
    assert outcomes == {
        "summarize": "failed",
        "dup": "failed",
        "docs/relative.md": "failed",
        "file:///docs/notes.md": "passed",
        "file:///docs/ok.md": "passed",
        "file://{path": "failed",
    }
    # A removed tool is a tool the server no longer lists: no entry is taken for one.
    assert [t["node_name"] for t in bugs["tools"]] == ["ok"]


def inprocess_schema_run(run_inprocess: RunMcp, *servers: str) -> pytest.RunResult:
    """The schema items of ``servers`` (--mcp-server arguments), pytest in this process."""
    return run_inprocess(args=(NO_SEQUENCES, *servers, "-k", "schema", "-v"))


def test_k_selects_prompts_as_it_selects_tools(run_inprocess: RunMcp) -> None:
    result = run_inprocess(
        "prompts_resources.py", args=(NO_SEQUENCES, "-k", "prompt and schema", "-v")
    )
    result.stdout.fnmatch_lines_random(CORRECT[:2])
    result.assert_outcomes(passed=2, deselected=17)  # not echo, the resources, drift, gets


def test_a_declared_listing_that_fails_is_its_own_failure_and_hides_no_tool(
    run_inprocess: RunMcp, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MCP_FIXTURE_VARIANT", "broken-prompts")
    buggy = f"--mcp-server={server_command('listing_bugs.py')}"
    result = inprocess_schema_run(run_inprocess, buggy)
    result.stdout.fnmatch_lines_random(
        [
            "mcp:listing-bugs::ok::schema PASSED*",
            "mcp:listing-bugs::listing:prompts::schema FAILED*",
            "[[]mcp/listing] prompts/list failed: JSON-RPC error -32603: Internal error: the "
            "prompt store is offline",
        ]
    )
    result.assert_outcomes(failed=3, passed=3, deselected=11, warnings=1)


def test_each_read_and_get_bug_fails_exactly_its_item_shrunk_and_correct_entries_pass(
    run_inprocess: RunMcp, pytester: pytest.Pytester, ts_servers: Callable[[str], str]
) -> None:
    """A template variable that crashes on the empty value (the coverage phase's) and one
    that crashes on a value only completion/complete offers, a prompt that crashes without
    its optional argument, a listed resource whose read raises: each fails its own item,
    with the smallest arguments and the command that replays it. The correct Python and
    TypeScript servers' reads and gets pass; the run report counts them; a prompt a table
    skips is skipped, saying which table."""
    typescript = f"--mcp-server={ts_servers('prompts_resources.mjs')}"
    pytester.makepyprojecttoml("[tool.mcp-contracts.prompts.hello]\nskip = true\n")
    result = run_inprocess(
        "surface_bugs.py",
        "prompts_resources.py",
        args=(NO_SEQUENCES, typescript, "-k", "read or get", "-v", "--mcp-report=report.json"),
    )
    result.stdout.fnmatch_lines_random(
        [
            "mcp:surface-bugs::template:users_user_id_profile::read FAILED*",
            "mcp:surface-bugs::template:orders_order_id::read FAILED*",
            "mcp:surface-bugs::prompt:brief::get FAILED*",
            "mcp:surface-bugs::resource:file_broken.txt::read FAILED*",
            "mcp:surface-bugs::resource:file_ok.txt::read PASSED*",
            "mcp:surface-bugs::prompt:hello::get SKIPPED*",
            *(line.replace("::schema", "::get") for line in CORRECT[:2]),
            "mcp:library::resource:file_docs_readme.md::read PASSED*",
            "mcp:library::resource:config_app_settings::read PASSED*",
            "mcp:library::template:users_user_id_profile::read PASSED*",
            "mcp:ts-library::prompt:review_code::get PASSED*",
            "mcp:ts-library::resource:file_docs_readme.md::read PASSED*",
            "mcp:ts-library::template:users_userId_profile::read PASSED*",
            "surface-bugs (protocol *): * reads and gets (* refused)*",
        ]
    )
    # -k also selects the two "readme" resources' schema and drift items.
    result.assert_outcomes(failed=4, passed=13, skipped=1, deselected=36)
    text = result.stdout.str()
    for shrunk in (
        '{"user_id": ""}',
        '{"order_id": "o-13"}',  # offered by completion/complete alone
        '{"topic": ""}',  # the optional tone dropped, the topic shortened
    ):
        assert f"smallest arguments found:\n    {shrunk}" in text, shrunk
    result.stdout.fnmatch_lines(
        [
            "*mcp-contracts call --app=*surface_bugs.py --prompt brief --arguments "
            """'{"topic": ""}'""",
            "(replayed alone on a restarted app*: it failed the same way)",
            "the server failed on this request: JSON-RPC error -32603 (Error reading resource "
            "file:///broken.txt)",
            "*mcp-contracts call --app=*surface_bugs.py --read file:///broken.txt",
        ],
        consecutive=False,
    )
    report = json.loads((pytester.path / "report.json").read_text(encoding="utf-8"))
    servers = {s["name"]: s for s in report["servers"]}
    listed = {e["name"]: e for e in servers["surface-bugs"]["listed"]}
    assert listed["orders://{order_id}"]["checks"]["read"]["failure"]["kind"] == (
        "unexpected_exception"
    )
    assert listed["file:///ok.txt"]["calls"] == listed["file:///ok.txt"]["real_results"] == 1
    skipped = listed["hello"]["checks"]["get"]
    assert skipped["outcome"] == "skipped"
    assert skipped["message"].endswith("""[tool.mcp-contracts.prompts."hello"] skip = true""")
    assert servers["library"]["listed_calls"] == sum(
        e["calls"] for e in servers["library"]["listed"]
    )


def test_values_only_a_description_an_id_or_a_listing_gives_are_reached_and_no_reach_is_said(
    run_inprocess: RunMcp, pytester: pytest.Pytester
) -> None:
    """Shaped after real servers (tests/servers/listed_reach.py): a template whose values
    only its description names, a prompt that serves a numeric id only, a template that
    answers an unknown id with an error in its JSON, and a prompt whose every answer is
    "Failed to fetch": each passes; the first three with real results, counted apart from
    the refusals (an error in a result's words among them), and the last saying that it
    reached nothing. Under -n 2 the same numbers."""
    args = (NO_SEQUENCES, "-k", "read or get", "-v", "--hypothesis-seed=1")
    result = run_inprocess("listed_reach.py", args=(*args, "--mcp-report=serial.json"))
    result.assert_outcomes(passed=4, deselected=12, warnings=1)
    result.stdout.fnmatch_lines(
        [
            "*McpContractWarning: listed-reach prompt fetch_page: none of its 20 gets returned "
            "a real result (20 refused; 20 answered with a result that says so: the words "
            "'Failed'), so its contents were never checked.*",
        ]
    )
    serial = json.loads((pytester.path / "serial.json").read_text(encoding="utf-8"))
    listed = {e["name"]: e for e in serial["servers"][0]["listed"]}
    reached = {name: entry["real_results"] for name, entry in listed.items()}
    assert reached["todo://status/{status}"] >= 2  # "open" and "done", from the description
    assert reached["open_ticket"] >= 1  # ticketId "1"
    assert reached["notes://{note_id}"] >= 1  # note_id "1"
    assert reached["fetch_page"] == 0
    for entry in listed.values():
        assert entry["calls"] == entry["refused"] + entry["real_results"], entry
    parallel = pytester.runpytest_subprocess(
        f"--mcp-app={SERVERS / 'listed_reach.py'}", *args, "-n", "2", "--mcp-report=n2.json"
    )
    parallel.assert_outcomes(passed=4, warnings=1)
    both = json.loads((pytester.path / "n2.json").read_text(encoding="utf-8"))
    numbers = ("calls", "refused", "real_results")
    assert {e["name"]: [e[n] for n in numbers] for e in both["servers"][0]["listed"]} == {
        name: [entry[n] for n in numbers] for name, entry in listed.items()
    }


def test_fastmcps_refusal_of_a_missing_argument_passes_and_a_crash_replays_the_same_way(
    run_mcp_inprocess: RunMcp,
) -> None:
    """fastmcp 4.x refuses a get without a required argument with -32602 and logs its own
    ValidationError's traceback: a refusal (fastmcp-sample-server's three prompts failed on
    it). A prompt that crashes without its required argument fails, and its replay alone on
    a fresh server is judged as the probe was ("it failed the same way"; the probe's words,
    "without its required argument", made every such replay read "did not")."""
    result = run_mcp_inprocess("fastmcp_prompts.py", args=(NO_SEQUENCES, "-k", "get", "-v"))
    result.assert_outcomes(passed=1, failed=1, deselected=8)
    result.stdout.fnmatch_lines(
        [
            "mcp:fastmcp-prompts::prompt:summarize_text::get PASSED*",
            "mcp:fastmcp-prompts::prompt:explain_error::get FAILED*",
            "without its required argument 'error_message': the server failed on this request: "
            "JSON-RPC error -32603 (Error rendering prompt 'explain_error': 'error_message')",
            "  evidence: a Python traceback: \"KeyError: 'error_message'\" raised in the SDK's"
            " code (the line is not shown), at *function_prompt.py:361; a language runtime's*",
            "(replayed alone on a freshly started server: it failed the same way)",
        ],
        consecutive=False,
    )
