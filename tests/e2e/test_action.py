"""The GitHub Action (action.yml), run as the runner runs a composite action.

Each step's ``if:`` and ``${{ }}`` expressions are evaluated by a small, strict evaluator (an
expression action.yml does not use fails the test, so the file cannot drift from what is
checked here); each ``run:`` step runs in bash as GitHub runs it (``bash --noprofile --norc
-eo pipefail``), in a temporary workspace, with the environment the runner sets
(GITHUB_ACTION_PATH, GITHUB_WORKSPACE, GITHUB_STEP_SUMMARY, GITHUB_OUTPUT, RUNNER_TEMP, CI);
the ``uses:`` steps cannot run here, so their ``with:`` inputs are checked against what the
run steps produced. Python is this test's own (standing in for actions/setup-python), and the
install step's pip is a stand-in that records its arguments: the package is importable
already, and the test installs nothing from the network.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

from ..conftest import SERVERS
from ..sarif import sarif_errors

ROOT = Path(__file__).parents[2]
ACTION = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
# As the runner runs a `shell: bash` step on Linux.
BASH = ["bash", "--noprofile", "--norc", "-eo", "pipefail"]
# The test's inputs: few examples, the spec's rules only (no client profile, no lint), and a
# quoted argument the action must keep whole.
FEW = (
    "--mcp-max-examples=3",
    "--mcp-sequences=off",
    "--mcp-protocol=off",
    "--mcp-coverage=off",
    "--mcp-clients=none",
    "--mcp-lints=all:off",
    "-p",
    "no:randomly",
)
ARGS = " ".join(FEW) + " -o 'junit_suite_name=mcp contracts'"

EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
NAME = r"[A-Za-z_][A-Za-z0-9_-]*"
COMPARISON = re.compile(rf"^({NAME}(?:\.{NAME})*)\s*(==|!=)\s*'([^']*)'$")


class UnknownExpression(AssertionError):
    pass


@dataclass
class Context:
    """What the expressions of action.yml can name: its inputs, its path, the outputs of
    the steps run so far, and whether one of them failed."""

    inputs: dict[str, str]
    outputs: dict[str, dict[str, str]] = field(default_factory=dict)
    failed: bool = False

    def value(self, name: str) -> str:
        parts = name.split(".")
        if parts[0] == "inputs" and len(parts) == 2:
            if parts[1] not in self.inputs:
                raise UnknownExpression(f"no input {parts[1]!r} in action.yml: {name}")
            return self.inputs[parts[1]]
        if name == "github.action_path":
            return str(ROOT)
        if parts[0] == "steps" and len(parts) == 4 and parts[2] == "outputs":
            return self.outputs.get(parts[1], {}).get(parts[3], "")  # unset: empty, as GitHub
        raise UnknownExpression(f"an expression this test does not evaluate: {name}")

    def substitute(self, text: Any) -> str:
        return EXPRESSION.sub(lambda m: self.value(m.group(1)), str(text))

    def condition(self, text: str | None) -> bool:
        """``a && b && ...``: always(), or a name compared with a quoted literal; without a
        status function, success() is implied, as GitHub does."""
        if text is None:
            return not self.failed
        inner = EXPRESSION.fullmatch(text.strip())
        terms = [t.strip() for t in (inner.group(1) if inner else text).split("&&")]
        status = False
        result = True
        for term in terms:
            if term == "always()":
                status = True
                continue
            match = COMPARISON.match(term)
            if match is None:
                raise UnknownExpression(f"a condition this test does not evaluate: {term!r}")
            name, operator, literal = match.groups()
            equal = self.value(name) == literal
            result = result and (equal if operator == "==" else not equal)
        return result and (status or not self.failed)


def _inputs(given: dict[str, str]) -> dict[str, str]:
    declared = ACTION["inputs"]
    unknown = set(given) - set(declared)
    assert not unknown, f"inputs action.yml does not declare: {unknown}"
    return {name: given.get(name, str(spec.get("default", ""))) for name, spec in declared.items()}


def _outputs_file(path: Path) -> dict[str, str]:
    """GITHUB_OUTPUT as the runner reads it: name=value lines, and name<<DELIMITER blocks."""
    found: dict[str, str] = {}
    lines = iter(path.read_text(encoding="utf-8").splitlines())
    for line in lines:
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            block = []
            for inner in lines:
                if inner == delimiter:
                    break
                block.append(inner)
            found[name] = "\n".join(block)
        else:
            name, equals, value = line.partition("=")
            assert equals, f"not an output line: {line!r}"
            found[name] = value
    return found


@dataclass
class ActionRun:
    outcomes: dict[str, str]  # step name: success, failure, skipped, or "uses" (not run)
    uses: dict[str, dict[str, str]]  # step name: its with: inputs, evaluated
    outputs: dict[str, str]  # the action's outputs
    logs: dict[str, str]
    summary: str


def run_action(
    workspace: Path, runner: Path, inputs: dict[str, str], *, pip_log: Path
) -> ActionRun:
    """Every step of action.yml in order, as the runner would run them in ``workspace``."""
    context = Context(_inputs(inputs))
    summary = runner / "step_summary.md"
    summary.touch()
    temp = runner / "temp"
    temp.mkdir(exist_ok=True)
    fake_pip = _fake_pip(runner, pip_log)
    outcomes: dict[str, str] = {}
    uses: dict[str, dict[str, str]] = {}
    logs: dict[str, str] = {}
    for index, step in enumerate(ACTION["runs"]["steps"]):
        name = step["name"]
        if not context.condition(step.get("if")):
            outcomes[name] = "skipped"
            continue
        if "uses" in step:
            uses[name] = {key: context.substitute(value) for key, value in step["with"].items()}
            outcomes[name] = "uses"
            continue
        assert step["shell"] == "bash", f"{name}: the test runs bash steps only"
        output_file = runner / f"output-{index}"
        output_file.touch()
        env = {
            "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]]),
            "HOME": os.environ.get("HOME", str(runner)),
            "CI": "true",
            "GITHUB_ACTIONS": "true",
            "GITHUB_ACTION_PATH": str(ROOT),
            "GITHUB_WORKSPACE": str(workspace),
            "GITHUB_STEP_SUMMARY": str(summary),
            "GITHUB_OUTPUT": str(output_file),
            "RUNNER_TEMP": str(temp),
        }
        if name == "Install pytest-mcp-contracts":  # its pip only records what it was asked
            env["PATH"] = os.pathsep.join([str(fake_pip), env["PATH"]])
        env |= {key: context.substitute(value) for key, value in step.get("env", {}).items()}
        cwd = workspace / context.substitute(step.get("working-directory", "."))
        script = runner / f"step-{index}.sh"
        script.write_text(context.substitute(step["run"]), encoding="utf-8")
        done = subprocess.run(
            [*BASH, str(script)], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
        )
        logs[name] = done.stdout + done.stderr
        outcomes[name] = "success" if done.returncode == 0 else "failure"
        context.failed = context.failed or done.returncode != 0
        if "id" in step:
            context.outputs[step["id"]] = _outputs_file(output_file)
    outputs = {name: context.substitute(spec["value"]) for name, spec in ACTION["outputs"].items()}
    return ActionRun(outcomes, uses, outputs, logs, summary.read_text(encoding="utf-8"))


def _fake_pip(runner: Path, log: Path) -> Path:
    """A folder whose ``python`` records ``python -m pip ...`` into ``log`` and runs this
    interpreter for anything else (the step splits its pip arguments with python)."""
    folder = runner / "fake-pip"
    folder.mkdir(exist_ok=True)
    shim = folder / "python"
    shim.write_text(
        "#!/bin/sh\n"
        'if [ "$1" = -m ] && [ "$2" = pip ]; then\n'
        f"  printf '%s\\n' \"$@\" > '{log}'\n"
        "  exit 0\n"
        "fi\n"
        f"exec '{sys.executable}' \"$@\"\n",
        encoding="utf-8",
    )
    shim.chmod(0o755)
    return folder


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A checked-out repository with one MCP server and its pyproject.toml."""
    root = tmp_path / "workspace"
    (root / ".git").mkdir(parents=True)
    shutil.copy(SERVERS / "typed_ok.py", root / "server.py")
    (root / "pyproject.toml").write_text('[project]\nname = "my-server"\n', encoding="utf-8")
    return root


def test_the_action_gates_on_recorded_contracts_and_reports_each_way(
    workspace: Path, tmp_path: Path
) -> None:
    """A repository with no recorded contracts fails in CI, with every result written and
    uploaded; recorded locally (as docs/how-to/ci.md says), the same action passes."""
    runner = tmp_path / "runner"
    runner.mkdir()
    pip_log = runner / "pip.log"
    inputs = {
        "server": f"{sys.executable} server.py",
        "args": ARGS,
        "pip-install": "-e . --no-cache-dir",
        "sarif": "true",
    }
    first = run_action(workspace, runner, inputs, pip_log=pip_log)

    assert first.outcomes == {
        "Set up Python": "uses",
        "Install pytest-mcp-contracts": "success",
        "Run the contract tests": "success",
        "Upload the results": "uses",
        "Upload SARIF to code scanning": "uses",
        "Fail when a check failed": "failure",
    }, first.logs
    # actions/setup-python gets the default Python; the install step asked pip for the
    # action's own copy and the extra arguments, each word whole.
    assert first.uses["Set up Python"] == {"python-version": "3.12"}
    assert pip_log.read_text(encoding="utf-8").splitlines() == [
        "-m",
        "pip",
        "install",
        str(ROOT),
        "-e",
        ".",
        "--no-cache-dir",
    ]
    results = workspace / "mcp-contracts-results"
    assert first.outputs == {
        "exit-code": "1",
        "results-dir": str(results),
        "junit": str(results / "junit.xml"),
        "report": str(results / "report.json"),
        "sarif": str(results / "results.sarif"),
    }
    # CI never records: each tool's missing contract fails, in every result file.
    report = json.loads((results / "report.json").read_text(encoding="utf-8"))
    assert report["mode"] == "ci"
    (server,) = report["servers"]
    assert server["name"] == "typed-ok"
    assert server["checks"]["failed"] > 0
    suite = ET.parse(results / "junit.xml").getroot().find("testsuite")
    assert suite is not None and suite.get("name") == "mcp contracts"
    assert int(suite.get("failures", "0")) == server["checks"]["failed"]
    sarif = json.loads((results / "results.sarif").read_text(encoding="utf-8"))
    assert sarif_errors(sarif) == []
    found = sarif["runs"][0]["results"]
    assert len(found) == server["checks"]["failed"]
    assert {result["ruleId"] for result in found} == {"missing_record"}
    # No contract is recorded yet: code scanning shows them at the project's pyproject.toml.
    assert {
        result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for result in found
    } == {"pyproject.toml"}
    assert first.summary.startswith("### MCP contracts\n")
    assert "**Failing checks**" in first.summary
    # The upload steps name what the run step wrote.
    assert first.uses["Upload the results"] == {
        "name": "mcp-contracts-results",
        "path": str(results),
        "if-no-files-found": "warn",
    }
    assert first.uses["Upload SARIF to code scanning"] == {
        "sarif_file": str(results / "results.sarif"),
        "category": "pytest-mcp-contracts",
    }
    assert "pytest exited with status 1" in first.logs["Fail when a check failed"]
    assert not (workspace / "mcp-contracts").exists()

    # Recorded locally (no CI variable), committed, and the gate passes.
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "PYTEST_ADDOPTS")}
    record = subprocess.run(
        [sys.executable, "-m", "pytest", f"--mcp-server={sys.executable} server.py", *FEW],
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert record.returncode == 0, record.stdout + record.stderr
    assert sorted(p.name for p in (workspace / "mcp-contracts" / "typed-ok").iterdir())
    green = run_action(workspace, runner, {**inputs, "install": "false"}, pip_log=pip_log)
    assert green.outcomes == {
        "Set up Python": "uses",
        "Install pytest-mcp-contracts": "skipped",
        "Run the contract tests": "success",
        "Upload the results": "uses",
        "Upload SARIF to code scanning": "uses",
        "Fail when a check failed": "skipped",
    }, green.logs
    assert green.outputs["exit-code"] == "0"
    sarif = json.loads((results / "results.sarif").read_text(encoding="utf-8"))
    assert sarif_errors(sarif) == [] and sarif["runs"][0]["results"] == []


def test_arguments_a_shell_could_not_split_stop_the_step_with_the_input_named(
    workspace: Path, tmp_path: Path
) -> None:
    runner = tmp_path / "runner"
    runner.mkdir()
    run = run_action(
        workspace, runner, {"args": "-k 'unclosed", "install": "false"}, pip_log=runner / "pip"
    )
    assert run.outcomes["Run the contract tests"] == "failure"
    assert (
        "the action's args input cannot be split into words as a shell would"
        in (run.logs["Run the contract tests"])
    )
    assert run.outcomes["Fail when a check failed"] == "skipped"  # the failed step says it
    assert not (workspace / "mcp-contracts-results" / "report.json").exists()


def test_without_sarif_nothing_is_sent_to_code_scanning() -> None:
    """The steps' conditions on their own, for the inputs of a run that asks for no SARIF,
    no artifact and no Python set-up (the run step's outputs as it writes them)."""
    context = Context(_inputs({"sarif": "false", "upload-artifact": "false", "python-version": ""}))
    context.outputs["run"] = {"exit-code": "0", "results-dir": "/r", "sarif": ""}
    steps = {step["name"]: step.get("if") for step in ACTION["runs"]["steps"]}
    assert {name: context.condition(condition) for name, condition in steps.items()} == {
        "Set up Python": False,
        "Install pytest-mcp-contracts": True,
        "Run the contract tests": True,
        "Upload the results": False,
        "Upload SARIF to code scanning": False,
        "Fail when a check failed": False,
    }
    # After a failed step only always() steps run: the uploads, not the final gate.
    context = Context(_inputs({"sarif": "true"}), failed=True)
    context.outputs["run"] = {"exit-code": "1", "results-dir": "/r", "sarif": "/r/results.sarif"}
    assert context.condition(steps["Upload the results"]) is True
    assert context.condition(steps["Upload SARIF to code scanning"]) is True
    assert context.condition(steps["Fail when a check failed"]) is False


def test_the_evaluator_refuses_what_it_does_not_know() -> None:
    context = Context(_inputs({}))
    with pytest.raises(UnknownExpression):
        context.substitute("${{ github.token }}")
    with pytest.raises(UnknownExpression):
        context.substitute("${{ inputs.no-such-input }}")
    with pytest.raises(UnknownExpression):
        context.condition("failure() || inputs.sarif == 'true'")
    with pytest.raises(AssertionError):
        _inputs({"no-such-input": "x"})


def test_every_input_and_output_is_documented() -> None:
    for name, spec in ACTION["inputs"].items():
        assert str(spec.get("description", "")).strip(), name
        assert "default" in spec, f"input {name} has no default"
    for name, spec in ACTION["outputs"].items():
        assert str(spec.get("description", "")).strip(), name
    text = (ROOT / "docs" / "how-to" / "ci.md").read_text(encoding="utf-8")
    for name in [*ACTION["inputs"], *ACTION["outputs"]]:
        assert f"`{name}`" in text, f"docs/how-to/ci.md does not mention the action's {name}"
