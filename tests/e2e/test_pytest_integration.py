"""The plugin behaves like a well-kept pytest plugin: selection, reruns, reports, neighbours."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from ..conftest import NO_SEQUENCES, HttpServer, RunMcp, RunPytest, server_command

# What is selected is under test here, not what the checks find: a few inputs each will do.
FEW = "--mcp-max-examples=5"


def test_k_selects_one_tool(run_mcp_inprocess: RunMcp) -> None:
    result = run_mcp_inprocess("broken_output.py", args=(NO_SEQUENCES, "-k", "healthy", "-v", FEW))
    result.assert_outcomes(passed=4, deselected=4)


def test_deselect_by_node_id(run_mcp_inprocess: RunMcp) -> None:
    result = run_mcp_inprocess(
        "broken_output.py",
        args=(NO_SEQUENCES, "--deselect", "mcp:broken-output::price_quote::contract", FEW),
    )
    result.assert_outcomes(passed=7, deselected=1)


def test_exitfirst_stops_at_the_first_failure(run_mcp_inprocess: RunMcp) -> None:
    result = run_mcp_inprocess(
        "bad_schemas.py",
        args=(
            NO_SEQUENCES,
            "-x",
        ),
    )
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*stopping after 1 failures*"])


def test_last_failed_reruns_only_the_failing_check(run_mcp_inprocess: RunMcp) -> None:
    first = run_mcp_inprocess(
        "broken_output.py",
        args=(
            NO_SEQUENCES,
            "--mcp-max-examples=100",
        ),
    )
    first.assert_outcomes(passed=7, failed=1)
    again = run_mcp_inprocess(
        "broken_output.py", args=(NO_SEQUENCES, "--lf", "--mcp-max-examples=100")
    )
    again.assert_outcomes(failed=1, deselected=7)
    again.stdout.fnmatch_lines(["*run-last-failure: rerun previous 1 failure*"])


def test_junit_has_one_testcase_per_check_with_the_failure_text(
    run_mcp_inprocess: RunMcp, pytester: pytest.Pytester
) -> None:
    run_mcp_inprocess(
        "broken_output.py", args=(NO_SEQUENCES, "--mcp-max-examples=100", "--junitxml=report.xml")
    )
    root = ET.parse(pytester.path / "report.xml").getroot()
    cases = {(c.get("classname"), c.get("name")): c for c in root.iter("testcase")}
    assert set(cases) == {
        ("mcp:broken-output.price_quote", "schema"),
        ("mcp:broken-output.price_quote", "drift"),
        ("mcp:broken-output.healthy", "drift"),
        ("mcp:broken-output.price_quote", "contract"),
        ("mcp:broken-output.healthy", "schema"),
        ("mcp:broken-output.healthy", "contract"),
        ("mcp:broken-output.price_quote", "rejects_invalid"),
        ("mcp:broken-output.healthy", "rejects_invalid"),
    }
    failure = cases[("mcp:broken-output.price_quote", "contract")].find("failure")
    assert failure is not None
    assert "$.price" in (failure.text or "") and '"quantity": 101' in (failure.text or "")
    assert failure.get("message") == "structuredContent does not match the outputSchema (2020-12)"


@pytest.mark.parametrize("workers", [(), ("-n", "2")])
def test_under_ci_the_short_summary_shows_the_first_line_of_a_failure(
    run_mcp: RunMcp,
    run_mcp_inprocess: RunMcp,
    monkeypatch: pytest.MonkeyPatch,
    workers: tuple[str, ...],
) -> None:
    # Under CI pytest prints a failure's message untrimmed: it must be one line, not the
    # whole report a second time.
    monkeypatch.setenv("CI", "1")
    run = run_mcp if workers else run_mcp_inprocess  # -n 2 needs a controller process
    result = run(
        "broken_output.py",
        "startup_crash.py",
        args=(NO_SEQUENCES, "-rfE", "--continue-on-collection-errors", *workers),
    )
    summary = result.stdout.str().split("short test summary info")[1].splitlines()[1:-1]
    # One line each: two drift, two contract, one error (reported by each xdist worker).
    assert len(set(summary)) == 5, summary
    assert all(line.startswith(("FAILED mcp:", "ERROR mcp:")) for line in summary), summary
    assert (
        "FAILED mcp:broken-output::price_quote::contract - structuredContent does not match "
        "the outputSchema (2020-12)"
    ) in summary
    assert (
        f"ERROR mcp:startup_crash.py - MCP server did not start: "
        f"{server_command('startup_crash.py')}"
    ) in summary


def test_unused_plugin_imports_nothing_heavy(pytester: pytest.Pytester, cold_pytest: None) -> None:
    pytester.makepyfile(
        """
        import sys

        def test_nothing_heavy_loaded():
            heavy = {"mcp", "jsonschema", "hypothesis", "hypothesis_jsonschema"}
            assert not heavy & set(sys.modules)
            # Nor any room of the pipeline: a plugin that is installed but unused stays cheap.
            ours = {m for m in sys.modules if m.startswith("pytest_mcp_contracts.")}
            # vocabulary.py is names only: it imports nothing from the package; options.py is
            # the options table and its defaults, over vocabulary alone; pytest/fixtures.py
            # defines mcp_server and mcp_servers, and imports nothing heavy; pytest/imports.py
            # keeps the plugin's modules out of assertion rewriting.
            light = {
                "plugin", "hooks", "pytest", "pytest.keys", "pytest.settings", "project",
                "options", "vocabulary", "pytest.fixtures", "pytest.imports",
            }
            assert ours <= {f"pytest_mcp_contracts.{m}" for m in light}, sorted(ours)
        """
    )
    # hypothesis's pytest plugin imports hypothesis as the run ends: through pytest's
    # assertion rewriting, as in any run without this plugin (pytest/imports.py leaves it
    # alone in a run that tests no server).
    pytester.makeconftest(
        """
        import json
        import sys

        def pytest_unconfigure(config):
            loader = sys.modules["hypothesis.core"].__spec__.loader
            with open("hypothesis.json", "w", encoding="utf-8") as handle:
                json.dump(type(loader).__name__, handle)
        """
    )
    result = pytester.runpytest_subprocess(NO_SEQUENCES, "-p", "no:randomly")
    result.assert_outcomes(passed=1)
    loader = json.loads((pytester.path / "hypothesis.json").read_text(encoding="utf-8"))
    assert loader == "AssertionRewritingHook"
    # ...and the plugin was loaded all the same.
    assert "--mcp-server" in pytester.runpytest_subprocess(NO_SEQUENCES, "--help").stdout.str()


# Which heavy libraries a run has loaded when its session ends (last of the session's
# finishers, the plugin's run report included; before the terminal summary, where
# hypothesis's own pytest plugin imports hypothesis in every pytest run, whatever ran), and
# which it had loaded when collection ended, before any item ran.
LOADED_AT_THE_END = """
import json
import sys

import pytest

# The last two: the libraries of jsonschema's uri and duration format checkers, which a whole
# run imports with the first value of such a format (schema/formats.py).
HEAVY = (
    "jsonschema",
    "hypothesis",
    "hypothesis_jsonschema",
    "mcp",
    "rfc3986_validator",
    "isoduration",
)


def loaded(name):
    with open(name, "w", encoding="utf-8") as handle:
        json.dump([module for module in HEAVY if module in sys.modules], handle)


def pytest_collection_finish(session):
    loaded("collected.json")


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session):
    loaded("loaded.json")
    rewritten = [
        name
        for name, module in sorted(sys.modules.items())
        if name.partition(".")[0] in ("hypothesis", "pytest_mcp_contracts")
        and type(getattr(module.__spec__, "loader", None)).__name__ == "AssertionRewritingHook"
    ]
    with open("rewritten.json", "w", encoding="utf-8") as handle:
        json.dump(rewritten, handle)
"""

# What pytest rewrites of the plugin's modules and hypothesis's (pytest/imports.py): what is
# imported before the plugin can keep the rest from it, and the top-level packages.
REWRITTEN_FIRST = [
    "hypothesis",
    "pytest_mcp_contracts",
    "pytest_mcp_contracts.plugin",
    "pytest_mcp_contracts.pytest",
    "pytest_mcp_contracts.pytest.imports",
]


# What a whole run imports while its servers start; the format libraries wait for a value.
IMPORTED_AHEAD = ("jsonschema", "hypothesis", "hypothesis_jsonschema")
FORMAT_LIBRARIES = ["rfc3986_validator", "isoduration"]


@pytest.mark.parametrize(
    ("args", "loaded"),
    [
        pytest.param(("--collect-only",), [], id="collect-only"),
        pytest.param(("-k", "drift"), [], id="drift"),
        # A run that selects with -k imports jsonschema where an item first needs it, with
        # all its format libraries (schema/formats.py defers two of them in a whole run).
        pytest.param(("-k", "schema"), ["jsonschema", *FORMAT_LIBRARIES], id="schema"),
        # The client is the plugin's own: no run imports the MCP SDK. legacy_only.py's
        # schemas name their dialect in `$schema`, which the schema check checks as a
        # `format: uri`; none of its values is a duration.
        pytest.param(
            (),
            ["jsonschema", "hypothesis", "hypothesis_jsonschema", "rfc3986_validator"],
            id="all",
        ),
    ],
)
def test_a_run_imports_what_its_checks_need_and_no_more(
    run_mcp: RunMcp,
    pytester: pytest.Pytester,
    args: tuple[str, ...],
    loaded: list[str],
    cold_pytest: None,
) -> None:
    pytester.makeconftest(LOADED_AT_THE_END)
    # -p marks the plugin's package for assertion rewriting, as pytest marks it when it is
    # installed as users install it (here it is installed in editable mode, which pytest
    # does not mark).
    marked = ("-p", "pytest_mcp_contracts")
    result = run_mcp(
        "legacy_only.py", args=(NO_SEQUENCES, FEW, "--mcp-report=report.json", *marked, *args)
    )
    assert result.ret == 0, result.stdout.str()
    assert json.loads((pytester.path / "loaded.json").read_text(encoding="utf-8")) == loaded
    # Neither the plugin's modules nor hypothesis's are rewritten (hypothesis's would be in
    # a run that tests no server: test_unused_plugin_imports_nothing_heavy).
    rewritten = json.loads((pytester.path / "rewritten.json").read_text(encoding="utf-8"))
    assert "pytest_mcp_contracts.plugin" in rewritten  # -p marked the package indeed
    assert set(rewritten) <= set(REWRITTEN_FIRST), rewritten
    # A whole run imports what its checks need while its servers start; a run that selects
    # with -k leaves it to the items it selected.
    collected = json.loads((pytester.path / "collected.json").read_text(encoding="utf-8"))
    assert collected == ([m for m in loaded if m in IMPORTED_AHEAD] if not args else [])


def test_a_run_over_http_imports_no_mcp_sdk(
    pytester: pytest.Pytester, http_server: HttpServer, cold_pytest: None
) -> None:
    """Over Streamable HTTP the client is the plugin's own too, the Mcp-Param-* headers a
    2026-07-28 server checks included (transport/param_headers): only --mcp-app needs the
    SDK, so the core install pins none."""
    pytester.makeconftest(LOADED_AT_THE_END)
    url = http_server("param_headers.py")
    result = pytester.runpytest_subprocess(
        f"--mcp-url={url}", NO_SEQUENCES, FEW, "-p", "no:randomly", "-v"
    )
    assert result.ret == 0, result.stdout.str()
    result.stdout.fnmatch_lines(["*::weather::contract PASSED*"])
    loaded = json.loads((pytester.path / "loaded.json").read_text(encoding="utf-8"))
    assert "mcp" not in loaded and "jsonschema" in loaded, loaded


def test_mcp_app_without_the_sdk_is_one_line_naming_the_extra(pytester: pytest.Pytester) -> None:
    # As in an environment without the SDK: the import system finds no "mcp".
    pytester.makeconftest("import sys\n\nsys.modules['mcp'] = None\n")
    pytester.makepyfile(server="from mcp.server import MCPServer\n\napp = MCPServer('x')\n")
    result = pytester.runpytest_subprocess(
        NO_SEQUENCES, "--mcp-app=server:app", "-p", "no:randomly"
    )
    assert result.ret != 0
    result.stdout.fnmatch_lines(
        [
            "*--mcp-app runs the server with the MCP SDK installed beside pytest, and this "
            "environment has none: install the server's project here (its own SDK is the one "
            "used), or pip install 'pytest-mcp-contracts[[]app]'*"  # [[] is fnmatch's "["
        ]
    )
    assert "could not import" not in result.stdout.str()
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()


@pytest.mark.parametrize(
    "plugin_args",
    [
        pytest.param(("-p", "asyncio", "-o", "asyncio_mode=strict"), id="asyncio-strict"),
        pytest.param(("-p", "asyncio", "-o", "asyncio_mode=auto"), id="asyncio-auto"),
        pytest.param(("-p", "anyio"), id="anyio"),
        pytest.param(("-p", "syrupy"), id="syrupy"),
        pytest.param(("-p", "randomly"), id="randomly"),
        pytest.param(("-n", "2"), id="xdist"),
    ],
)
def test_works_beside_other_plugins(
    pytester: pytest.Pytester, plugin_args: tuple[str, ...]
) -> None:
    pytester.makepyfile(
        """
        def test_plain():
            assert 1 + 1 == 2
        """
    )
    result = pytester.runpytest_subprocess(
        NO_SEQUENCES, f"--mcp-server={server_command('legacy_only.py')}", FEW, *plugin_args
    )
    result.assert_outcomes(passed=9)
    # Loaded indeed, though the suite leaves it out of runs not about it (NEIGHBOURS_OFF).
    neighbour = {"-n": "xdist"}.get(plugin_args[0], plugin_args[1])
    # In the order pytest found them, which follows the order of site-packages' entries: any.
    (listed,) = [line for line in result.outlines if line.startswith("plugins: ")]
    names = {name.rsplit("-", 1)[0] for name in listed.removeprefix("plugins: ").split(", ")}
    assert {neighbour, "mcp-contracts"} <= names, listed


@pytest.mark.parametrize("flag", ["--mcp-snapshot-dir", "--mcp-server"])
def test_an_option_value_pytest_would_read_as_a_test_path_is_a_usage_error(
    pytester: pytest.Pytester, inprocess_pytest: RunPytest, flag: str
) -> None:
    # An existing path outside the project: pytest would pick its rootdir from it.
    outside = pytester.path.parent / f"outside-{flag.removeprefix('--')}"
    outside.mkdir()
    pytester.makeini("[pytest]\nmcp_max_examples = 3\n")
    # In-process: the error comes before any server starts.
    result = inprocess_pytest(NO_SEQUENCES, flag, str(outside))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            f"ERROR: {flag} {outside}: pytest read '{outside}' as a test path, since it is an "
            "existing path and pytest picks its rootdir and ini file before it knows this "
            f"plugin's options (the rootdir may have moved away from your project). Give the "
            f"value with '=': {flag}={outside}"
        ]
    )
    assert not (outside / "mcp-contracts").exists()


def test_an_option_value_with_equals_or_not_a_path_is_left_alone(
    pytester: pytest.Pytester, inprocess_pytest: RunPytest
) -> None:
    pytester.mkdir("contracts")
    result = inprocess_pytest(
        NO_SEQUENCES,
        f"--mcp-server={server_command('banner.py')}",
        "--mcp-snapshot-dir=contracts",
        "--deselect=mcp:banner::stdout",  # its banner fails it; this test is about the option
        "-q",
    )
    assert result.ret == 0
    assert (pytester.path / "contracts" / "banner" / "echo.json").exists()


# Another MCP plugin that registers --mcp-server too (as pytest-mcptest and mcp-pytest do),
# installed as a distribution with a pytest11 entry point, as pip would install it.
OTHER_PLUGIN = """
def pytest_addoption(parser):
    group = parser.getgroup("other-mcp", "another MCP plugin")
    group.addoption("--mcp-server", dest="mcp_server", help="another plugin's server")
"""


def _install_other_plugin(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(other_mcp_plugin=OTHER_PLUGIN)
    info = pytester.mkdir("other_mcp-0.3.dist-info")
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: other-mcp\nVersion: 0.3\n")
    (info / "entry_points.txt").write_text("[pytest11]\nother_mcp = other_mcp_plugin\n")
    pytester.syspathinsert()  # first on sys.path: its entry point loads before this plugin's


def test_an_option_another_plugin_registered_first_is_one_clear_line(
    pytester: pytest.Pytester, inprocess_pytest: RunPytest
) -> None:
    _install_other_plugin(pytester)
    result = inprocess_pytest(NO_SEQUENCES)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert [line for line in result.stderr.lines if line.strip()] == [
        "ERROR: --mcp-server is already registered by another pytest plugin, other_mcp "
        "(other-mcp 0.3), so pytest-mcp-contracts cannot register it; run one of them: "
        "-p no:other_mcp disables the other plugin, -p no:mcp_contracts this one (or "
        "uninstall one)"
    ]
    # What it advises works, both ways.
    other_off = inprocess_pytest("-p", "no:other_mcp", "--help")
    assert other_off.ret == 0
    assert "--mcp-report" in other_off.stdout.str()
    assert "another plugin's server" not in other_off.stdout.str()
    ours_off = inprocess_pytest("-p", "no:mcp_contracts", "--help")
    assert ours_off.ret == 0
    assert "another plugin's server" in ours_off.stdout.str()
    assert "--mcp-report" not in ours_off.stdout.str()


def test_an_option_another_plugin_registers_after_this_one_fails_in_that_plugin(
    pytester: pytest.Pytester, inprocess_pytest: RunPytest
) -> None:
    """The other order: this plugin loaded first (-p), the other one after. pytest calls the
    other plugin's pytest_addoption as it registers it and stops at its error, with no hook of
    this plugin in between, so the error is pytest's about that plugin; docs/how-to/ci.md
    quotes its last line and the -p no:NAME that resolves it."""
    _install_other_plugin(pytester)
    result = inprocess_pytest(NO_SEQUENCES, "-p", "mcp_contracts")
    assert result.ret == pytest.ExitCode.INTERNAL_ERROR
    text = result.stderr.str()
    assert 'Error while loading plugin "pytest11"' in text
    assert "other_mcp_plugin.py" in text
    assert "conflicting option string: --mcp-server" in text
    pytester.makepyfile("def test_plain():\n    pass\n")
    inprocess_pytest(NO_SEQUENCES, "-p", "mcp_contracts", "-p", "no:other_mcp").assert_outcomes(
        passed=1
    )
