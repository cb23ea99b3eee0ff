"""Hostile and broken servers: one fixture server per misbehaviour (tests/servers/).

Every run must end with a clear failure (or warning) for the tool that misbehaved, the other
tools still tested, no Python traceback anywhere, and nothing written outside the snapshot
folder. Node ids are asserted one by one: the set of checks per tool may grow.
"""

from __future__ import annotations

import http.server
import json
import re
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from ..conftest import NO_SEQUENCES, RunMcp

SNAPS = "snaps"
RUN_BOUND = 300  # seconds: far beyond any of these runs, so only a run that never ends fails
COMMON = (NO_SEQUENCES, f"--mcp-snapshot-dir={SNAPS}", "--mcp-max-examples=5", "-v")
# What a crash leaves in pytest's output: a traceback, an internal error, a dead thread.
CRASH_MARKS = (
    "Traceback (most recent call last)",
    "INTERNALERROR",
    "Exception in thread",
    "PytestUnhandledThreadExceptionWarning",
)
# Our failures render as reports; an exception that escaped renders as "E   ..." lines and
# "path.py:123: in function" frames.
CRASH_LINE = re.compile(r"^E   .*$|^\S+\.py:\d+: in \S+$", re.MULTILINE)
OUTCOME_LINE = re.compile(r"^(mcp:\S+) (PASSED|FAILED|SKIPPED|ERROR|XFAIL|XPASS)\b")
SECTION_HEADER = re.compile(r"^_+ (.+?) _+$")

Files = dict[str, tuple[int, int] | None]


def files_under(root: Path) -> Files:
    """Every file (size, mtime) and folder (None) under ``root``, by relative path."""
    found: Files = {}
    for path in root.rglob("*"):
        rel = path.relative_to(root).as_posix()
        if path.is_dir() and not path.is_symlink():
            found[rel] = None
        else:
            stat = path.lstat()
            found[rel] = (stat.st_size, stat.st_mtime_ns)
    return found


def written(before: Files, after: Files) -> list[str]:
    """Paths that appeared, or files that changed, between two ``files_under``."""
    return sorted(p for p, v in after.items() if p not in before or (v and v != before[p]))


# Hypothesis keeps caches under .hypothesis/ (its Unicode tables in unicode_data/, constants
# it collected in constants/, and a .gitignore of its own) whatever the database setting; the
# example database (.hypothesis/examples) must never appear: the plugin sets database=None.
HYPOTHESIS_DATABASE = ".hypothesis/examples"


def allowed(path: str, extra: tuple[str, ...]) -> bool:
    """The snapshot folder, pytest's caches, hypothesis's caches (not its database), and what
    pytester itself writes for the inner run (its basetemp folder, its stdout and stderr)."""
    parts = path.split("/")
    return (
        parts[0] in (SNAPS, ".pytest_cache", *extra)
        or "__pycache__" in parts
        or (parts[0] == ".hypothesis" and not path.startswith(HYPOTHESIS_DATABASE))
        or (len(parts) == 1 and (parts[0].startswith("runpytest-") or path in ("stdout", "stderr")))
    )


def assert_no_crash(result: pytest.RunResult) -> None:
    text = result.stdout.str() + "\n" + result.stderr.str()
    for mark in CRASH_MARKS:
        assert mark not in text, f"{mark!r} in the output:\n{text}"
    crash = CRASH_LINE.search(text)
    assert crash is None, f"an exception escaped: {crash.group()!r}\n{text}"


@dataclass
class Run:
    result: pytest.RunResult

    @property
    def text(self) -> str:
        return self.result.stdout.str()

    def outcomes(self) -> dict[str, str]:
        """Node id -> outcome, from the verbose lines."""
        found = {}
        for line in self.result.stdout.lines:
            match = OUTCOME_LINE.match(line)
            if match:
                found[match.group(1)] = match.group(2)
        return found

    def outcome(self, node_id: str) -> str:
        return self.outcomes().get(node_id, "not run")

    def failure(self, title: str) -> str:
        """The body of the failure section titled ``title`` ("server tool [check]")."""
        lines = self.result.stdout.lines
        for index, line in enumerate(lines):
            header = SECTION_HEADER.match(line)
            if header and header.group(1) == title:
                body = []
                for following in lines[index + 1 :]:
                    if SECTION_HEADER.match(following) or following.startswith("=" * 10):
                        break
                    body.append(following)
                return "\n".join(body)
        raise AssertionError(f"no failure section {title!r} in:\n{self.text}")


RunHostile = Callable[..., Run]


def contract_failures_not_as_expected(
    run: Run, server: str, expected: dict[str, str]
) -> dict[str, tuple[str, list[str]]]:
    """Tools whose contract item did not fail with the expected problem (its first words)."""
    wrong = {}
    for tool, problem in expected.items():
        outcome = run.outcome(f"mcp:{server}::{tool}::contract")
        text = run.failure(f"{server} {tool} [contract]") if outcome == "FAILED" else ""
        if not text.startswith(problem):
            wrong[tool] = (outcome, text.splitlines()[:1])
    return wrong


@pytest.fixture
def run_hostile(run_mcp: RunMcp, pytester: pytest.Pytester) -> RunHostile:
    """Run one fixture server in record mode and check what every hostile run must hold:
    no crash, and nothing written under the pytester folder outside the snapshot folder."""

    def run(server: str, *args: str, extra_allowed: tuple[str, ...] = ()) -> Run:
        before = files_under(pytester.path)
        # Every hostile run must end: a generous bound turns a hang into a failure.
        result = run_mcp(server, args=(*COMMON, *args), timeout=RUN_BOUND)
        stray = [
            p for p in written(before, files_under(pytester.path)) if not allowed(p, extra_allowed)
        ]
        assert not stray, f"written outside {SNAPS}/: {stray}"
        assert_no_crash(result)
        return Run(result)

    return run


# -- 1. garbage on stdout mid-run ------------------------------------------------------------


def test_garbage_on_stdout_mid_run_fails_that_tool(run_hostile: RunHostile) -> None:
    run = run_hostile("stdout_noise.py", "--mcp-call-timeout=1", "--mcp-max-restarts=1")
    assert run.outcome("mcp:stdout-noise::chatty::contract") == "FAILED"
    chatty = run.failure("stdout-noise chatty [contract]")
    assert chatty.startswith(
        "the server wrote 2 line(s) on stdout while this call ran that are not JSON-RPC "
        "messages\n  'DEBUG chatty: handling a request'\n  '<html><body>oops</body></html>'"
    )
    assert run.outcome("mcp:stdout-noise::babble::contract") == "FAILED"
    assert run.failure("stdout-noise babble [contract]").startswith(
        "the call did not return: no answer to tools/call within 1 s; meanwhile the server "
        "wrote 1 line(s) to stdout that are not JSON-RPC messages for this client"
    )
    assert "'Processing request... please wait'" in run.failure("stdout-noise babble [contract]")
    for check in ("schema", "drift", "contract"):
        assert run.outcome(f"mcp:stdout-noise::echo::{check}") == "PASSED"
    assert "stdout-noise (protocol 2025-11-25): 3 tools" in run.text
    # The lines printed with the listings came while no call ran: counted, not failed.
    for when in ("before the first call", "between calls"):
        assert (
            f"1 line(s) on stdout {when} were not JSON-RPC (stdout is for protocol messages "
            "only; log to stderr), e.g. 'INFO listing tools again'"
        ) in run.text


# -- 2. invalid JSON-RPC ---------------------------------------------------------------------


BAD_JSONRPC = {
    "neither": "the server broke the protocol: the response to tools/call is not valid "
    'JSON-RPC 2.0: it has neither "result" nor "error": {"jsonrpc": "2.0", "id": ',
    "both": "the server broke the protocol: the response to tools/call is not valid JSON-RPC "
    '2.0: it has both "result" and "error": ',
    "old_version": "the server broke the protocol: the response to tools/call is not valid "
    'JSON-RPC 2.0: "jsonrpc" must be "2.0", got "1.0": ',
    "array_line": "the call did not return: no answer to tools/call within 1 s; meanwhile the "
    "server wrote 1 line(s) to stdout that are not JSON-RPC messages for this client (stdout "
    "is reserved for protocol messages; logs belong on stderr): '[1,2]'",
    # JSON, but no JSON-RPC message: stdout noise, like any log line.
    "number_line": "the server wrote 1 line(s) on stdout while this call ran that are not "
    "JSON-RPC messages\n  '42'",
}


def test_invalid_json_rpc_fails_that_tool(run_hostile: RunHostile) -> None:
    run = run_hostile("bad_jsonrpc.py", "--mcp-call-timeout=1", "--mcp-max-restarts=1")
    assert contract_failures_not_as_expected(run, "bad-jsonrpc", BAD_JSONRPC) == {}
    for check in ("schema", "drift", "contract"):
        assert run.outcome(f"mcp:bad-jsonrpc::ok::{check}") == "PASSED"


# -- 3. responses to unknown ids -------------------------------------------------------------


def test_responses_to_unknown_ids(run_hostile: RunHostile) -> None:
    run = run_hostile("unknown_id.py", "--mcp-call-timeout=1", "--mcp-max-restarts=1")
    stray_note = (
        "the server wrote 1 line(s) to stdout that are not JSON-RPC messages for this client "
        "(stdout is reserved for protocol messages; logs belong on stderr): "
        "'a response to an unknown request id 999999'"
    )
    # A stray answer before the real one: the real one is not taken for it, and the stray
    # one is reported.
    assert run.outcome("mcp:unknown-id::stray_first::contract") == "FAILED"
    assert run.failure("unknown-id stray_first [contract]").startswith(
        f"the server broke the protocol: {stray_note}"
    )
    # Only a wrong id: nothing answers our request, so the call timeout ends it.
    assert run.outcome("mcp:unknown-id::wrong_id_only::contract") == "FAILED"
    assert run.failure("unknown-id wrong_id_only [contract]").startswith(
        f"the call did not return: no answer to tools/call within 1 s; meanwhile {stray_note}"
    )
    assert run.outcome("mcp:unknown-id::ok::contract") == "PASSED"


# -- 4. results that are not a CallToolResult ------------------------------------------------


NOT_CALL_RESULT = {
    "string_result": "the server broke the protocol: the result of tools/call is not an "
    'object: "hello"',
    "content_not_list": "the result is not a CallToolResult: 'content' must be an array, got "
    '"not a list"',
    "untyped_block": "the result is not a CallToolResult: content[0] has no string 'type': "
    '{"text": "no type here"}',
    "block_not_object": "the result is not a CallToolResult: content[0] is not an object: "
    '"just a string"',
    "text_without_text": "the result is not a CallToolResult: content[0] is a 'text' block "
    "without a string 'text'",
}


def test_result_that_is_not_a_call_tool_result(run_hostile: RunHostile) -> None:
    run = run_hostile("not_call_result.py")
    assert contract_failures_not_as_expected(run, "not-call-result", NOT_CALL_RESULT) == {}
    for check in ("schema", "drift", "contract"):
        assert run.outcome(f"mcp:not-call-result::ok::{check}") == "PASSED"


# -- 5. an oversized result ------------------------------------------------------------------

# The peak of memory that Python allocated (tracemalloc), not the peak RSS: RSS also moves
# with what the allocator keeps and the kernel lends, and on a loaded machine it once read
# 262 MiB for a run that held no more than usual. Every byte the reader keeps of an answer is
# a Python object, so the traced peak is the figure that says whether the answer was held.
# Peak RSS for large results is measured in bench/ (the "memory" figure).
PEAK_CONFTEST = """
import os
import tracemalloc


def pytest_collection_finish(session):
    # What the run imports, imported before tracing starts: tracing the imports too made
    # each run five times slower, and an import is not what this measures.
    import hypothesis_jsonschema
    import pytest_mcp_contracts.runs.contract
    import pytest_mcp_contracts.runs.sequences.check

    tracemalloc.start()


def pytest_sessionfinish(session):
    with open(os.environ["MCP_TEST_PEAK_FILE"], "w") as handle:
        handle.write(str(tracemalloc.get_traced_memory()[1]))
"""
CAP = 64 * 1024 * 1024  # the default --mcp-max-result-bytes
MIB = 1024 * 1024


def test_oversized_result_is_refused_in_bounded_memory(
    run_hostile: RunHostile, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    peak_file = pytester.path / "peak.txt"
    monkeypatch.setenv("MCP_TEST_PEAK_FILE", str(peak_file))
    pytester.makeconftest(PEAK_CONFTEST)

    # What a run that receives nothing large needs, to measure the large one against.
    normal = run_hostile("oversized.py", "-k", "small", extra_allowed=("peak.txt",))
    assert normal.outcome("mcp:oversized::small::contract") == "PASSED"
    normal_peak = int(peak_file.read_text())

    run = run_hostile("oversized.py", "--mcp-call-timeout=30", extra_allowed=("peak.txt",))
    peak = int(peak_file.read_text())
    assert run.outcome("mcp:oversized::huge::contract") == "FAILED"
    problem = run.failure("oversized huge [contract]")
    assert re.match(
        r"the server broke the protocol: the answer to tools/call could not be read: it was a "
        rf"message of 2097\d{{5}} bytes, over the {CAP}-byte limit \(--mcp-max-result-bytes\); "
        r"raise --mcp-max-result-bytes if a large answer is expected",
        problem,
    ), problem
    assert run.outcome("mcp:oversized::small::contract") == "PASSED"
    # The 200 MB result is never held: at most the cap's worth of it, once.
    assert peak < 200 * MIB, f"peak {peak / MIB:.0f} MiB allocated"
    assert peak - normal_peak < CAP + 16 * MIB, (
        f"peak {peak / MIB:.0f} MiB allocated against {normal_peak / MIB:.0f} MiB for a normal run"
    )


# -- 6. tool names that try to escape or clash in the snapshot folder ------------------------

HOSTILE_NAMES = [
    "../../x",
    "/etc/x",
    "a/b",
    "CON",
    "Foo",
    "foo",
    "foo-2",
    "n" * 10_000,
    "tab\there",
    "nul\u0000",
    "esc\u001b[2Jcleared",
    "dup",
    "ok",
]  # as tests/servers/hostile_names.py lists them, "dup" twice


def test_hostile_tool_names_stay_inside_the_snapshot_folder(
    run_hostile: RunHostile, pytester: pytest.Pytester
) -> None:
    outside = pytester.path.parent
    # pytest keeps a "<name>current" symlink to pytester's own folder here: not a sibling.
    siblings_before = {
        p.name: files_under(p)
        for p in outside.iterdir()
        if p.is_dir() and not p.is_symlink() and p != pytester.path
    }
    outside_files_before = {p.name for p in outside.iterdir()}
    etc_x_existed = Path("/etc/x").exists()

    run = run_hostile("hostile_names.py", "-rw")

    assert Path("/etc/x").exists() == etc_x_existed
    assert {p.name for p in outside.iterdir()} == outside_files_before
    for name, before in siblings_before.items():
        assert written(before, files_under(outside / name)) == [], f"written under ../{name}"
    folder = pytester.path / SNAPS / "hostile-names"
    files = sorted(p for p in (pytester.path / SNAPS).rglob("*") if p.is_file())
    assert all(p.parent == folder and p.suffix == ".json" for p in files), files
    assert not any(p.name.startswith(".") for p in files)
    recorded = [json.loads(p.read_text(encoding="utf-8"))["tool"] for p in files]
    # One file per distinct tool, each its own: no two tools share (or overwrite) a file.
    assert sorted(recorded) == sorted(HOSTILE_NAMES)
    assert len({p.name.lower() for p in files}) == len(files)
    # The name listed twice is one tool whose schema check says so; its first entry is kept.
    assert run.outcome("mcp:hostile-names::dup::schema") == "FAILED"
    assert run.failure("hostile-names dup [schema]").startswith(
        "[mcp/listing-entry] the name 'dup' is listed 2 times: names must be unique (only its "
        "first entry is tested)"
    )
    dup = json.loads((folder / "dup.json").read_text(encoding="utf-8"))
    assert dup["surface"]["description"] == "entry 11"
    # Every other tool is tested as usual, under a node name safe for ids and files.
    passed = [n for n, o in run.outcomes().items() if n.endswith("::contract") and o == "PASSED"]
    assert len(passed) == len(HOSTILE_NAMES) - 1
    assert run.outcome("mcp:hostile-names::ok::contract") == "PASSED"
    assert all(
        re.fullmatch(r"mcp:hostile-names::[A-Za-z0-9_.-]{1,64}::\w+", n) for n in run.outcomes()
    )
    run.result.stdout.fnmatch_lines(
        ["*tool name '../../x' does not follow the spec's naming rules*"]
    )
    # A name is the server's words: shown escaped, never as raw control characters that
    # clear a terminal or cut a CI log short.
    output = run.text + run.result.stderr.str()
    raw = re.search(r"[\x00-\x08\x0b-\x1f\x7f]", output)
    assert raw is None, f"raw control character: {output[raw.start() - 80 : raw.end() + 20]!r}"


# -- 7. schemas built to hurt ----------------------------------------------------------------


@pytest.fixture
def ref_listener() -> Iterator[tuple[str, list[str]]]:
    """A local HTTP server a network $ref points to: every request it gets is a fetch."""
    requests: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            requests.append(self.path)
            body = b'{"type": "object"}'
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/schema.json", requests
    finally:
        server.shutdown()
        server.server_close()


HURT_FAILURES = {
    (
        "deep",
        "schema",
    ): "[mcp/listing-entry] the listing entry nests deeper than 256 levels, so it was not checked "
    "and the tool is not called (JSON Schema implementations must bound schema depth)",
    ("deep", "contract"): "the tool cannot be called: its listing entry is malformed",
    (
        "ref_loop",
        "schema",
    ): "[mcp/ref-loop] inputSchema has a $ref loop that never moves into a property or "
    "item (#/$defs/a -> #/$defs/b -> #/$defs/a), so validating anything against it recurses "
    "forever",
    ("ref_loop", "contract"): "no inputs can be generated from the inputSchema at ",
    (
        "loop_output",
        "schema",
    ): "[mcp/ref-loop] outputSchema has a $ref loop that never moves into a property",
    ("loop_output", "contract"): "structuredContent cannot be checked: validating it against "
    "the outputSchema recursed too deeply",
    (
        "remote_ref",
        "schema",
    ): "[mcp/network-ref] inputSchema refers to network $ref(s) that clients must not fetch: ",
    ("remote_ref", "contract"): "no inputs can be generated from the inputSchema at ",
    ("remote_output", "schema"): "[mcp/network-ref] outputSchema refers to network $ref(s) "
    "that clients must not "
    "fetch: ",
    ("remote_output", "contract"): "structuredContent cannot be checked: the outputSchema "
    "refers to ",
    ("odd_dialect", "schema"): "[mcp/dialect] inputSchema: unsupported JSON Schema dialect "
    "$schema='http://example.com/my-dialect'",
    ("odd_dialect", "contract"): "no inputs can be generated from the inputSchema at #/$schema",
    (
        "superscript_ref",
        "schema",
    ): "[mcp/ref-pointer] inputSchema has a $ref whose JSON pointer indexes an array "
    "with a token that is not an array index",
    ("superscript_ref", "contract"): "no inputs can be generated from the inputSchema at "
    "#/properties/v/$ref",
    (
        "superscript_output",
        "schema",
    ): "[mcp/ref-pointer] outputSchema has a $ref whose JSON pointer indexes an "
    "array with a token that is not an array index",
    ("superscript_output", "contract"): "structuredContent cannot be checked: the outputSchema "
    "has a $ref that validators cannot follow",
}


def test_schemas_built_to_hurt_end_with_one_message_per_tool(
    run_hostile: RunHostile,
    ref_listener: tuple[str, list[str]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    url, fetched = ref_listener
    monkeypatch.setenv("REMOTE_REF_URL", url)
    # Twice: the second run compares every tool against the surface the first one recorded.
    for attempt in ("record", "compare"):
        run = run_hostile("hurt_schemas.py", "--mcp-call-timeout=5")
        for (tool, check), problem in HURT_FAILURES.items():
            assert run.outcome(f"mcp:hurt-schemas::{tool}::{check}") == "FAILED", (attempt, tool)
            assert run.failure(f"hurt-schemas {tool} [{check}]").startswith(problem), (tool, check)
        for tool in ("huge_enum", "tree", "ok"):
            for check in ("schema", "drift", "contract"):
                outcome = run.outcome(f"mcp:hurt-schemas::{tool}::{check}")
                assert outcome == "PASSED", (attempt, tool, check)
        for tool in (
            "deep",
            "ref_loop",
            "loop_output",
            "remote_ref",
            "remote_output",
            "superscript_ref",
            "superscript_output",
        ):
            assert run.outcome(f"mcp:hurt-schemas::{tool}::drift") == "PASSED", (attempt, tool)
    remote = run.failure("hurt-schemas remote_ref [schema]")
    assert url in remote and "https://example.com/schema.json" in remote
    assert "remote schemas are never fetched" in run.failure("hurt-schemas remote_ref [contract]")
    assert f"refers to {url!r}, which cannot be resolved (network $refs are never fetched)" in (
        run.failure("hurt-schemas remote_output [contract]")
    )
    assert fetched == [], "a network $ref was fetched"


# -- 8. a tool list that changes between listings --------------------------------------------


def test_tool_list_that_shifts_keeps_the_first_listing(run_hostile: RunHostile) -> None:
    run = run_hostile("shifting_tools.py")
    checks = ("schema", "drift", "contract")
    for tool in ("a", "b"):
        for check in checks:
            assert run.outcome(f"mcp:shifting-tools::{tool}::{check}") == "PASSED"
    assert not any("::c::" in node for node in run.outcomes())
    assert "mcp:shifting-tools::c" not in run.text
    # The list is read again at the end of the run, and the change is reported.
    run.result.stdout.fnmatch_lines(
        [
            "  the tool list changed during the run (the spec says a server's tool set must not "
            "vary; this run used the first listing):",
            "    now lists: c",
            "    no longer lists: b",
        ]
    )


# -- 9. thousands of tools -------------------------------------------------------------------


def test_thousands_of_tools_collect_and_select(run_hostile: RunHostile) -> None:
    collected = run_hostile("many_tools.py", "--collect-only", "-qq")  # -v -qq: the node ids
    ids = [line for line in collected.result.stdout.lines if line.startswith("mcp:")]
    tools = {node.split("::")[1] for node in ids}
    assert tools == {f"tool_{n:04d}" for n in range(3000)}
    for check in ("schema", "drift", "contract"):
        assert sum(node.endswith(f"::{check}") for node in ids) == 3000

    one = run_hostile("many_tools.py", "-k", "tool_1234")
    ran = one.outcomes()
    assert ran and all(node.startswith("mcp:many-tools::tool_1234::") for node in ran)
    for check in ("schema", "drift", "contract"):
        assert ran[f"mcp:many-tools::tool_1234::{check}"] == "PASSED"
