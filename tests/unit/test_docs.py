"""The docs say what the code does: the README's commands are the ones CI runs, every option
the docs name exists, the reference covers every check and CLI option, and the generated
reference (docs/_hooks/generated.py, an mkdocs hook) renders every option and failure kind
from a checkout alone."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from pytest_mcp_contracts.cli import main as cli_main
from pytest_mcp_contracts.judges.failures import SEVERITY, FailureKind
from pytest_mcp_contracts.options import OPTIONS
from pytest_mcp_contracts.vocabulary import Check

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
HOOK = ROOT / "docs" / "_hooks" / "generated.py"
# Every page a user reads: the README, the docs site, the contributors' notes.
PAGES = [README, ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").rglob("*.md"))]
VENV_AND_INSTALL = "python3 -m venv .venv && . .venv/bin/activate && "


def _hook() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docs_generated", HOOK)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _readme_commands() -> list[str]:
    """The README's two commands, each a venv, an install and a pytest run."""
    return [
        line.strip()
        for line in README.read_text(encoding="utf-8").splitlines()
        if line.strip().startswith(VENV_AND_INSTALL)
    ]


def test_the_readme_stays_short() -> None:
    assert len(README.read_bytes()) <= 8 * 1024


def test_the_readme_commands_are_the_ones_ci_runs() -> None:
    """.ci/run runs the main job and the suite "exactly as the README gives them": the
    pytest command of each, and the test command's install, appear in it as written."""
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    commands = _readme_commands()
    assert len(commands) == 2, commands
    main_job, suite = (command.split(" && ") for command in commands)
    assert main_job[2:-1] == ["pip install '.[app]'"]  # example_server is built on mcp
    assert suite[2:-1] == ["pip install --upgrade pip", "pip install -e '.[dev]'"]
    assert "python -m pip install --quiet --upgrade pip\n" in ci
    assert "python -m pip install --quiet -e '.[dev]'\n" in ci
    for words in (main_job, suite):
        run = words[-1]
        assert run.startswith("pytest ")
        assert re.search(rf"^(background main )?{re.escape(run)}$", ci, re.MULTILINE), run


def test_every_option_the_docs_name_exists() -> None:
    flags = {option.flag for option in OPTIONS}
    named = {
        (page.relative_to(ROOT).as_posix(), flag)
        for page in PAGES
        for flag in re.findall(r"--mcp-[a-z][a-z0-9-]*[a-z0-9]", page.read_text(encoding="utf-8"))
    }
    unknown = sorted((page, flag) for page, flag in named if flag not in flags)
    assert not unknown, f"options the docs name that do not exist: {unknown}"


def test_the_checks_reference_covers_every_check() -> None:
    page = (ROOT / "docs" / "reference" / "checks.md").read_text(encoding="utf-8")
    missing = [str(check) for check in Check if f"`{check}`" not in page]
    assert not missing


@pytest.mark.parametrize(
    ("command", "page"),
    [
        ("inspect", "reference/cli.md"),
        ("call", "reference/cli.md"),
        ("export", "how-to/export-models.md"),
    ],
)
def test_the_cli_reference_covers_every_option(
    command: str, page: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        cli_main([command, "--help"])
    options = set(re.findall(r"(?<![\w-])--[a-z][a-z-]*", capsys.readouterr().out)) - {"--help"}
    assert options  # the help was read
    text = (ROOT / "docs" / page).read_text(encoding="utf-8")
    missing = sorted(option for option in options if f"`{option}" not in text)
    assert not missing, f"mcp-contracts {command} options missing from docs/{page}"


def test_the_generated_reference_has_every_option_and_failure_kind() -> None:
    hook = _hook()
    options = hook.render("<!-- generated: options -->")
    for option in OPTIONS:
        assert f"{{#{option.flag.removeprefix('--')}}}" in options
        if option.ini_too:
            assert f"`{option.ini}`" in options
    kinds = hook.render("<!-- generated: failure-kinds -->")
    for kind in FailureKind:
        assert f"| `{kind}` | `{SEVERITY[kind]}` |" in kinds
    page = "# Checks\n\n<!-- generated: failure-kinds -->\n\nafter\n"
    assert hook.render(page).startswith("# Checks\n\n| severity |")


def test_an_unknown_marker_or_an_undocumented_member_fails_the_build() -> None:
    hook = _hook()
    with pytest.raises(hook.GenerationError, match="unknown marker"):
        hook.render("<!-- generated: everything -->")

    from enum import StrEnum

    class Undocumented(StrEnum):
        A = "a"  # documented
        B = "b"

    with pytest.raises(hook.GenerationError, match=r"without a comment.*: b"):
        hook.member_comments(Undocumented)


def test_the_docs_build_needs_no_dependency_of_the_package() -> None:
    """.ci/run builds the site in a virtualenv that holds mkdocs only: the hook must import
    from the checkout with the standard library alone (-S: no site-packages)."""
    done = subprocess.run(
        [sys.executable, "-S", "-c", f"import runpy; runpy.run_path({str(HOOK)!r})"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr


def test_the_reference_shows_the_placeholders_pytest_help_shows(pytester: pytest.Pytester) -> None:
    """The generated headings (``--mcp-max-examples=N``) are what ``pytest --help`` prints:
    both take the placeholder from ``Option.shown_metavar``."""
    shown = pytester.runpytest("-p", "no:asyncio", "--help").stdout.str()
    rendered = _hook().render("<!-- generated: options -->")
    for option in OPTIONS:
        usage = option.flag if option.kind == "flag" else f"{option.flag}={option.shown_metavar}"
        assert usage in shown
        assert f"### `{usage}`" in rendered
