"""The export round trip (issue 26, point 2): a server whose tools declare no outputSchema is
recorded by a run; `mcp-contracts export` turns the recorded contracts into models; a second
copy of the server has them pasted in (the return annotations of a Python MCPServer's tools,
the outputSchema of a TypeScript McpServer's); the next run finds every tool declared and
passing, and outputSchema coverage rises from 0 % to 100 %.

The models are the file `export` writes, pasted as a server author would; the declared
outputSchemas are the SDKs' own reading of them (as `mcp-contracts inspect` shows them)."""

from __future__ import annotations

import io
import json
import shlex
import shutil
import sys
from collections.abc import Callable
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest

from pytest_mcp_contracts import cli

from ..conftest import NO_SEQUENCES, SERVERS, RunPytest

# Recorded: lookup takes an argument that varies its output (validated), status none (inferred).
QUALITIES = {"lookup": "validated", "status": "inferred"}
# Each tool's items; status takes no arguments, so it has no invalid input to send.
OUTCOMES = {"passed": 7, "skipped": 1}


def first_server(path: Path) -> dict[str, Any]:
    servers: list[dict[str, Any]] = json.loads(path.read_text())["servers"]
    return servers[0]


def export(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = cli.main(["export", *argv])
    return status, out.getvalue(), err.getvalue()


def assert_recorded_undeclared(report: Path) -> None:
    server = first_server(report)
    assert server["coverage"]["output_schema"] == 0.0
    assert {t["name"]: t["output"]["quality"] for t in server["tools"]} == QUALITIES


def assert_declared_and_passing(report: Path) -> None:
    server = first_server(report)
    assert server["coverage"]["output_schema"] == 1.0
    assert server["coverage"]["declared"] == 2
    for tool in server["tools"]:
        assert tool["output"]["source"] == "declared", tool["name"]
        outcomes = {name: check["outcome"] for name, check in tool["checks"].items()}
        assert outcomes["contract"] == outcomes["schema"] == outcomes["drift"] == "passed"
    assert server["checks"]["failed"] == 0


def declared_schemas(command: str) -> dict[str, dict[str, Any]]:
    """Each tool's outputSchema as the server declares it now (inspect on the live server)."""
    out = io.StringIO()
    with redirect_stdout(out):
        assert cli.main(["inspect", "--server", command, "--json"]) == 0
    return {tool["name"]: tool["outputSchema"] for tool in json.loads(out.getvalue())["tools"]}


def assert_strictness_follows_quality(schemas: dict[str, dict[str, Any]]) -> None:
    """The validated contract became a closed schema, the inferred one an open schema whose
    thinly seen fields are optional (status was called with one input only)."""
    lookup, status = schemas["lookup"], schemas["status"]
    assert lookup["additionalProperties"] is False
    assert {"class", "first-name", "manager", "teams"} <= set(lookup["required"])
    assert "nickname" in lookup["properties"] and "nickname" not in lookup["required"]
    assert status.get("additionalProperties", True) is not False
    assert not status.get("required")


@pytest.mark.parametrize(("fmt", "parallel"), [("pydantic", False), ("typeddict", True)])
def test_python_models_pasted_as_return_annotations_make_every_tool_declared(
    fmt: str,
    parallel: bool,
    inprocess_pytest: RunPytest,
    pytester: pytest.Pytester,
) -> None:
    original = (SERVERS / "export_undeclared.py").read_text()
    (pytester.path / "server.py").write_text(original)
    command = shlex.join([sys.executable, str(pytester.path / "server.py")])
    recorded = inprocess_pytest(
        f"--mcp-server={command}", NO_SEQUENCES, "--mcp-report=recorded.json"
    )
    recorded.assert_outcomes(**OUTCOMES)
    assert_recorded_undeclared(pytester.path / "recorded.json")

    status, _, said = export("--format", fmt, "--output", "models.py")
    assert status == 0 and said.strip() == "mcp-contracts: wrote models.py"
    models = (pytester.path / "models.py").read_text()
    assert "# Use: def lookup(...) -> LookupOutput:" in models
    assert "# Use: def status(...) -> StatusOutput:" in models

    # Pasted as an author would: below the imports, and each tool's `-> dict` replaced.
    head, start, tools = original.partition('app = MCPServer("export-roundtrip")')
    tools = tools.replace(
        "def lookup(user_id: int) -> dict:", "def lookup(user_id: int) -> LookupOutput:"
    )
    tools = tools.replace("def status() -> dict:", "def status() -> StatusOutput:")
    assert tools.count("-> dict") == 0
    (pytester.path / "declared.py").write_text(f"{head}{models}\n\n{start}{tools}")
    command = shlex.join([sys.executable, str(pytester.path / "declared.py")])
    run = ("-n", "2") if parallel else ()
    declared = (pytester.runpytest_subprocess if parallel else inprocess_pytest)(
        f"--mcp-server={command}", NO_SEQUENCES, "--mcp-report=declared.json", *run
    )
    declared.assert_outcomes(**OUTCOMES)
    declared.stdout.fnmatch_lines(
        [
            "  contracts: 2 declared, 0 validated, 0 inferred, 0 unknown",
            "  outputSchema coverage 100% (2/2), contract coverage 100% (2/2)",
        ]
    )
    assert_declared_and_passing(pytester.path / "declared.json")
    assert_strictness_follows_quality(declared_schemas(command))


def test_zod_objects_pasted_as_output_schemas_make_every_tool_declared(
    inprocess_pytest: RunPytest,
    pytester: pytest.Pytester,
    ts_servers: Callable[[str], str],
) -> None:
    folder = SERVERS / "ts_legacy"
    ts_servers("export_undeclared.mjs")  # node_modules installed
    (pytester.path / "node_modules").symlink_to(folder / "node_modules")
    original = (folder / "export_undeclared.mjs").read_text()
    (pytester.path / "server.mjs").write_text(original)
    node = shutil.which("node")
    assert node is not None
    command = shlex.join([node, str(pytester.path / "server.mjs")])
    recorded = inprocess_pytest(
        f"--mcp-server={command}", NO_SEQUENCES, "--mcp-report=recorded.json"
    )
    recorded.assert_outcomes(**OUTCOMES)
    assert_recorded_undeclared(pytester.path / "recorded.json")

    status, models, _ = export("--format", "zod")
    assert status == 0
    assert "export const LookupOutput = z.strictObject({" in models
    assert "export const StatusOutput = z.looseObject({" in models

    # Pasted as an author would (one import of zod is enough), each object the outputSchema
    # of its tool; the fixture then returns structuredContent as well.
    pasted = models.replace('import { z } from "zod";\n', "")
    schemas = "const OUTPUT_SCHEMAS = { lookup: LookupOutput, status: StatusOutput };"
    declared_source = original.replace("const OUTPUT_SCHEMAS = {};", f"{pasted}\n{schemas}")
    assert declared_source != original
    (pytester.path / "declared.mjs").write_text(declared_source)
    command = shlex.join([node, str(pytester.path / "declared.mjs")])
    declared = inprocess_pytest(
        f"--mcp-server={command}", NO_SEQUENCES, "--mcp-report=declared.json"
    )
    declared.assert_outcomes(**OUTCOMES)
    declared.stdout.fnmatch_lines(
        ["  outputSchema coverage 100% (2/2), contract coverage 100% (2/2)"]
    )
    assert_declared_and_passing(pytester.path / "declared.json")
    assert_strictness_follows_quality(declared_schemas(command))
