"""The drift gate: a fixture server in two versions, one tool per rule, each classified with
its exact diff line; accepting with the update flag makes the next run pass, rewriting nothing.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from ..conftest import NO_SEQUENCES, RunMcp

SAFER = "(now claims a safer tool: clients that trust hints may stop asking first)"
BREAKING = {
    "required_added": "input.n: new (required)",
    "optional_to_required": "input.limit: optional -> required",
    "number_to_integer": "input.n: number -> integer",
    "nullable_narrowed": "input.s: [string, null] -> string",
    "enum_value_removed": "input.mode: enum value removed: 'fast'",
    "maximum_lowered": "input.n: maximum 100 -> 50",
    "min_length_raised": "input.s: minLength 1 -> 3",
    "pattern_added": "input.code: pattern added: '^[A-Z]+$'",
    "extras_refused": "input: additionalProperties true -> false",
    "input_removed_closed": "input.old: removed",
    "output_field_removed": "output.total: removed",
    "output_required_to_optional": "output.total: required -> optional",
    "output_type_changed": "output.total: number -> string",
    "output_enum_value_added": "output.status: enum value added: 'c'",
    "output_schema_removed": "outputSchema: removed",
    "annotation_readOnlyHint": "annotations.readOnlyHint: true -> false",
    "annotation_destructiveHint": "annotations.destructiveHint: false -> true",
    "annotation_idempotentHint": "annotations.idempotentHint: true -> false",
    "annotation_openWorldHint": "annotations.openWorldHint: false -> true",
    # A hint that turns "safe" breaks too: a client may now call the tool without asking.
    **{
        f"safer_{hint}": f"annotations.{hint}: {was} -> {now} {SAFER}"
        for hint, was, now in (
            ("readOnlyHint", "false", "true"),
            ("destructiveHint", "true", "false"),
            ("idempotentHint", "false", "true"),
            ("openWorldHint", "true", "false"),
        )
    },
}
REVIEW = {"any_of_changed": "input.f: anyOf changed (cannot be classified soundly: review it)"}
ADDITIVE = {
    "new_optional_input": "input.v: new (optional)",
    "input_widened": "input.n: integer -> number",
    "output_field_added": "output.note: new",
    "output_schema_declared": "outputSchema: declared",
    "fresh": "tool: new",
}
DESCRIPTION = {
    "description_changed": "description: Find [-things.-]{+things fast.+}",
}
PROPERTY_DESCRIPTION = "input.q: description what to [-find-]{+find, and the user's API key+}"
COSMETIC = {"title_changed": "title: 'Search' -> 'Search all'"}
UNCHANGED = ["refactored_with_refs"]


@pytest.fixture
def run_mcp(run_mcp_inprocess: RunMcp) -> RunMcp:
    """pytest in this process, the server a real process: the drift gate reads listings and
    the files recorded from them, nothing of the pytest process itself."""
    return run_mcp_inprocess


@pytest.fixture
def recorded_v1(
    surface_v1: Path, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """A copy of the v1 surface a first, local run recorded (once for the session: conftest
    surface_v1) in this test's folder; the server is v2 from now on."""
    shutil.copytree(surface_v1, pytester.path / "mcp-contracts")
    monkeypatch.setenv("MCP_FIXTURE_VARIANT", "v2")
    return pytester.path / "mcp-contracts" / "surface"


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.glob("*.json"))}


def test_each_rule_is_classified_with_its_exact_diff_line(
    run_mcp: RunMcp, recorded_v1: Path
) -> None:
    result = run_mcp(
        "surface.py", args=(NO_SEQUENCES, "-k", "drift", "-rf", "--mcp-report=report.json")
    )
    failed = {line.split("::")[1] for line in result.stdout.lines if line.startswith("FAILED")}
    assert failed == {*BREAKING, *REVIEW, "gone"}
    text = result.stdout.str()
    for tool, line in {**BREAKING, **REVIEW}.items():
        assert f"  {line}\n" in text, (tool, line)
    # The summary groups every drift by class, passing ones included.
    summary = text[text.index("MCP contracts") :]
    for severity, rules in (
        ("breaking", BREAKING),
        ("review", REVIEW),
        ("description", DESCRIPTION),
        ("additive", ADDITIVE),
        ("cosmetic", COSMETIC),
    ):
        for tool, line in rules.items():
            assert f"{severity + ':':<12} {tool} {line}\n" in summary, (severity, tool)
    assert f"description: description_changed {PROPERTY_DESCRIPTION}\n" in summary
    assert "breaking:    gone tool: removed" in summary
    # A changed description passes, and is not passed silently: a warning shows its word diff.
    warning = text[text.index("warnings summary") : text.index("MCP contracts")]
    assert "surface description_changed: descriptions changed since the recorded surface" in (
        warning
    )
    assert f"  {DESCRIPTION['description_changed']}\n" in warning
    assert f"  {PROPERTY_DESCRIPTION}\n" in warning
    for tool in UNCHANGED:
        assert f" {tool} " not in summary
    result.stdout.fnmatch_lines(["tool 'gone' is recorded (*gone.json) but the server no longer*"])
    # The one-line message (short summary, run report) says what drifted: the first blocking
    # change, and how many more.
    report = json.loads((recorded_v1.parents[1] / "report.json").read_text())
    messages = {
        tool["name"]: tool["checks"]["drift"].get("message")
        for tool in report["servers"][0]["tools"]
    }
    assert messages["maximum_lowered"] == (
        "the tool's surface drifted (breaking): input.n: maximum 100 -> 50"
    )
    assert messages["any_of_changed"] == (
        f"the tool's surface drifted (review): {REVIEW['any_of_changed']}"
    )
    assert (
        messages["output_schema_removed"]
        == "the tool's surface drifted (breaking): " + (BREAKING["output_schema_removed"])
    )


def test_strict_fails_on_additive_and_cosmetic_drift_too(
    run_mcp: RunMcp, recorded_v1: Path
) -> None:
    result = run_mcp("surface.py", args=(NO_SEQUENCES, "-k", "drift", "--mcp-strict", "-rf"))
    failed = {line.split("::")[1] for line in result.stdout.lines if line.startswith("FAILED")}
    assert failed == {*BREAKING, *REVIEW, *DESCRIPTION, *ADDITIVE, *COSMETIC, "gone"}


def test_pinned_descriptions_fail_on_a_changed_description_alone(
    run_mcp: RunMcp, recorded_v1: Path, pytester: pytest.Pytester
) -> None:
    pytester.makeini("[pytest]\nmcp_descriptions = pin\n")
    result = run_mcp(
        "surface.py", args=(NO_SEQUENCES, "-k", "drift", "-rf", "--mcp-report=report.json")
    )
    failed = {line.split("::")[1] for line in result.stdout.lines if line.startswith("FAILED")}
    assert failed == {*BREAKING, *REVIEW, *DESCRIPTION, "gone"}
    result.stdout.fnmatch_lines(
        [
            "  description:",
            f"    {DESCRIPTION['description_changed']}",
            f"    {PROPERTY_DESCRIPTION}",
            "  description: an instruction to the model changed (tool poisoning arrives this way)*",
        ]
    )
    report = json.loads((recorded_v1.parents[1] / "report.json").read_text())
    [tool] = [t for t in report["servers"][0]["tools"] if t["name"] == "description_changed"]
    assert tool["checks"]["drift"]["failure"] == {
        "kind": "description_drift",
        "severity": "medium",
    }
    assert report["servers"][0]["drift"]["description"] == [
        f"description_changed {DESCRIPTION['description_changed']}",
        f"description_changed {PROPERTY_DESCRIPTION}",
    ]


def test_a_misspelled_descriptions_mode_is_a_usage_error(run_mcp: RunMcp) -> None:
    result = run_mcp("surface.py", args=(NO_SEQUENCES, "--mcp-descriptions=pinned"))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*--mcp-descriptions (ini mcp_descriptions) must be one of warn, pin, got 'pinned'*"]
    )


def test_k_selects_the_drift_item_of_one_tool(run_mcp: RunMcp, recorded_v1: Path) -> None:
    result = run_mcp("surface.py", args=(NO_SEQUENCES, "-k", "maximum_lowered and drift"))
    result.assert_outcomes(failed=1, deselected=128)


def test_update_accepts_and_the_next_run_passes_without_rewriting(
    run_mcp: RunMcp, recorded_v1: Path
) -> None:
    accept = run_mcp("surface.py", args=(NO_SEQUENCES, "-k", "drift", "--mcp-snapshot-update"))
    assert accept.ret == 0
    accept.stdout.fnmatch_lines(["  drift accepted by --mcp-snapshot-update:"])
    assert not (recorded_v1 / "gone.json").exists()
    accept.stdout.fnmatch_lines(["pruned 1 file(s):", "*gone.json"])
    after = snapshot(recorded_v1)
    again = run_mcp("surface.py", args=(NO_SEQUENCES, "-k", "drift"))
    assert again.ret == 0, again.stdout.str()
    assert "drift" not in again.stdout.str().split("MCP contracts")[1]
    assert snapshot(recorded_v1) == after


def test_ci_fails_on_a_missing_surface_and_writes_nothing(
    run_mcp: RunMcp, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CI", "true")
    result = run_mcp("surface.py", args=(NO_SEQUENCES, "-k", "required_added and drift"))
    result.assert_outcomes(failed=1, deselected=127)
    result.stdout.fnmatch_lines(
        ["no tool surface is recorded for this tool (*required_added.json), and CI is set*"]
    )
    assert not (pytester.path / "mcp-contracts").exists()


def test_the_one_line_message_counts_the_other_blocking_changes(
    run_mcp: RunMcp, recorded_v1: Path, pytester: pytest.Pytester
) -> None:
    path = recorded_v1 / "maximum_lowered.json"
    recorded = json.loads(path.read_text())
    recorded["surface"]["annotations"] = {"readOnlyHint": True}  # now it says nothing
    path.write_text(json.dumps(recorded))
    result = run_mcp(
        "surface.py", args=(NO_SEQUENCES, "-k", "maximum_lowered and drift", "--mcp-report=r.json")
    )
    result.assert_outcomes(failed=1, deselected=128)
    tools = json.loads((pytester.path / "r.json").read_text())["servers"][0]["tools"]
    tool = next(tool for tool in tools if tool["name"] == "maximum_lowered")
    assert tool["checks"]["drift"]["message"] == (
        "the tool's surface drifted (breaking): annotations.readOnlyHint: true -> false, and 1 more"
    )


def test_in_ci_the_accept_command_is_one_to_run_locally(
    run_mcp: RunMcp, recorded_v1: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CI", "1")
    ci_only = ("--junitxml=junit.xml", "--hypothesis-seed", "7", "--mcp-report=r.json")
    result = run_mcp("surface.py", args=(NO_SEQUENCES, "-k", "maximum_lowered and drift", *ci_only))
    result.assert_outcomes(failed=1, deselected=128)
    hints = [line for line in result.stdout.lines if "accept it" in line]
    assert len(hints) == 2, hints  # the failure and the summary
    for hint in hints:
        assert "accept it locally (contracts are never written in CI): pytest " in hint
        assert " -k 'maximum_lowered and drift' --mcp-snapshot-update" in hint
        assert not any(word in hint for word in ("junit", "seed", " 7 ", "r.json")), hint
