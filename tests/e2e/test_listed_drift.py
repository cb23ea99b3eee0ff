"""The drift gate of prompts, resources and templates: a fixture server in two versions
(tests/servers/surface_versions.py), recorded, checked in CI, drifted, accepted; the
classes themselves are unit-tested in tests/unit/contracts/test_drift.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ..conftest import NO_SEQUENCES, RunMcp

SERVER = "surface_versions.py"
DRIFT = (NO_SEQUENCES, "-k", "drift", "-rf")
FILES = [
    "echo.json",
    "prompts/review.json",
    "prompts/summarize.json",
    "resources/config_app_settings.json",
    "resources/file_docs_guide.md.json",
    "resources/status_app.json",
    "templates/users_user_id_profile.json",
]
# What v2 breaks, item by item, with the first line of its failure (what a short summary,
# a step summary and the run report show).
BROKEN = {
    "prompt:review": "the prompt's surface drifted (breaking): arguments.style: removed, and "
    "'tone' added (optional): renamed to 'tone'?",
    "prompt:summarize": "the prompt's surface drifted (breaking): arguments.length: optional "
    "-> required",
    "resource:config_app_settings": "resource 'config://app/settings' is recorded "
    "(*config_app_settings.json) but the server no longer lists it",
    "template:users_user_id_profile": "the template's surface drifted (breaking): "
    "uriTemplate: 'users://{user_id}/profile' -> 'users://{org}/{user_id}/profile': "
    "variables added org",
}
NEW = ["prompt:translate", "template:users_org_user_id_profile"]


def folder(pytester: pytest.Pytester) -> Path:
    return pytester.path / "mcp-contracts" / "surface-versions"


def files(pytester: pytest.Pytester) -> dict[str, bytes]:
    root = folder(pytester)
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*.json"))}


def failed(result: pytest.RunResult) -> set[str]:
    prefix = "FAILED mcp:surface-versions::"
    return {
        line.removeprefix(prefix).split("::drift")[0]
        for line in result.stdout.lines
        if line.startswith(prefix)
    }


@pytest.fixture
def recorded_v1(
    run_mcp_inprocess: RunMcp, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> dict[str, bytes]:
    monkeypatch.setenv("MCP_FIXTURE_VARIANT", "v1")
    first = run_mcp_inprocess(SERVER, args=DRIFT)
    first.assert_outcomes(passed=7, deselected=15)
    recorded = files(pytester)
    assert sorted(recorded) == FILES
    prompt = json.loads(recorded["prompts/summarize.json"])
    assert prompt["prompt"] == "summarize"
    assert prompt["surface"]["arguments"] == [
        {"name": "text", "required": True},
        {"name": "length", "required": False},
    ]
    return recorded


def test_ci_on_v1_passes_and_v2_fails_exactly_its_drifted_entries(
    run_mcp_inprocess: RunMcp,
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    recorded_v1: dict[str, bytes],
) -> None:
    monkeypatch.setenv("CI", "true")
    for seed in ("1", "2"):
        same = run_mcp_inprocess(SERVER, args=(*DRIFT, f"--hypothesis-seed={seed}"))
        same.assert_outcomes(passed=7, deselected=15)
    monkeypatch.setenv("MCP_FIXTURE_VARIANT", "v2")
    # In CI, the two new entries fail too: nothing is recorded for them, and CI records none.
    ci = run_mcp_inprocess(SERVER, args=DRIFT)
    assert failed(ci) == {*BROKEN, *NEW}
    ci.stdout.fnmatch_lines(
        ["*translate::drift - no prompt surface is recorded for this prompt (*), and CI is set*"]
    )
    monkeypatch.delenv("CI")
    strict = run_mcp_inprocess(
        SERVER, args=(NO_SEQUENCES, "--mcp-strict", "-k", "translate and drift")
    )
    strict.assert_outcomes(failed=1, deselected=23)
    strict.stdout.fnmatch_lines(["a new prompt drifted in (--mcp-strict)"])
    local = run_mcp_inprocess(SERVER, args=(*DRIFT, "--mcp-report=report.json"))
    assert failed(local) == set(BROKEN)
    local.assert_outcomes(failed=4, passed=5, deselected=15, warnings=1)
    local.stdout.fnmatch_lines_random(list(BROKEN.values()))
    # The changed description warns with its word diff; the new entries are listed.
    local.stdout.fnmatch_lines_random(
        [
            "*description: The user [[]-guide.-[]]{+guide, and the API key it needs.+}",
            "*additive:    prompt translate prompt: new",
            "*additive:    template users://{org}/{user_id}/profile template: new",
        ]
    )
    report = json.loads((pytester.path / "report.json").read_text(encoding="utf-8"))
    (server,) = report["servers"]
    assert len(server["drift"]["breaking"]) == 4
    assert server["drift"]["description"] == [
        "resource file:///docs/guide.md description: The user [-guide.-]{+guide, and the API key "
        "it needs.+}"
    ]
    gone = {e["node_name"]: e for e in server["listed"] if not e["listed"]}
    assert {n: e["checks"]["drift"]["outcome"] for n, e in gone.items()} == {
        "resource:config_app_settings": "failed",
        "template:users_user_id_profile": "failed",
    }
    # Nothing of the drifted entries was written; the new ones were recorded.
    after = files(pytester)
    assert {name: after[name] for name in recorded_v1} == recorded_v1
    assert sorted(set(after) - set(recorded_v1)) == [
        "prompts/translate.json",
        "templates/users_org_user_id_profile.json",
    ]


def test_update_accepts_prunes_the_removed_and_ci_then_passes(
    run_mcp_inprocess: RunMcp,
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    recorded_v1: dict[str, bytes],
) -> None:
    monkeypatch.setenv("MCP_FIXTURE_VARIANT", "v2")
    # Under -k not every item of the server ran: the removed resource is not pruned.
    partial = run_mcp_inprocess(SERVER, args=(*DRIFT, "--mcp-snapshot-update", "-k", "prompt"))
    assert partial.ret == 0
    partial.stdout.fnmatch_lines(
        [
            "  drift accepted by --mcp-snapshot-update:",
            "    breaking:*prompt review arguments.style: removed, and 'tone' added *",
        ]
    )
    assert "resources/config_app_settings.json" in files(pytester)
    accept = run_mcp_inprocess(SERVER, args=(*DRIFT, "--mcp-snapshot-update"))
    accept.assert_outcomes(passed=9, deselected=15)
    accept.stdout.fnmatch_lines(
        [
            "  drift accepted by --mcp-snapshot-update:",
            "    breaking:    resource config://app/settings resource: removed",
            "pruned 2 file(s):",
            "*resources/config_app_settings.json",
            "*templates/users_user_id_profile.json",
        ]
    )
    accepted = files(pytester)
    assert sorted(accepted) == [
        "echo.json",
        "prompts/review.json",
        "prompts/summarize.json",
        "prompts/translate.json",
        "resources/file_docs_guide.md.json",
        "resources/status_app.json",
        "templates/users_org_user_id_profile.json",
    ]
    monkeypatch.setenv("CI", "true")
    again = run_mcp_inprocess(SERVER, args=DRIFT)
    again.assert_outcomes(passed=7, deselected=15)  # the removed entries' items went with them
    assert files(pytester) == accepted


def test_n2_writes_and_prunes_the_same_files_as_a_serial_run(
    run_mcp: RunMcp,
    run_mcp_inprocess: RunMcp,
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    recorded_v1: dict[str, bytes],
) -> None:
    monkeypatch.setenv("MCP_FIXTURE_VARIANT", "v2")
    serial = run_mcp_inprocess(
        SERVER, args=(*DRIFT, "--mcp-snapshot-update", "--mcp-report=s.json")
    )
    assert serial.ret == 0
    accepted = files(pytester)
    for path in folder(pytester).rglob("*.json"):
        path.unlink()
    for name, data in recorded_v1.items():
        (folder(pytester) / name).parent.mkdir(parents=True, exist_ok=True)
        (folder(pytester) / name).write_bytes(data)
    parallel = run_mcp(
        SERVER, args=(*DRIFT, "--mcp-snapshot-update", "-n", "2", "--mcp-report=p.json")
    )
    assert parallel.ret == 0, parallel.stdout.str()
    assert files(pytester) == accepted
    # The same drift, and the removed entries' items reported once, whichever worker ran them.
    reports = [
        json.loads((pytester.path / name).read_text(encoding="utf-8"))["servers"][0]
        for name in ("s.json", "p.json")
    ]
    drift, listed = (
        [r["drift"] for r in reports],
        [
            sorted(
                (e["node_name"], e["listed"], e["checks"]["drift"]["outcome"]) for e in r["listed"]
            )
            for r in reports
        ],
    )
    assert drift[0] == drift[1] and len(drift[0]["breaking"]) == 4
    assert listed[0] == listed[1]
    assert [e for e in listed[0] if not e[1]] == [
        ("resource:config_app_settings", False, "passed"),
        ("template:users_user_id_profile", False, "passed"),
    ]
    parallel.stdout.fnmatch_lines(["pruned 2 file(s):"])


def test_reads_and_gets_record_content_contracts_and_a_changed_json_shape_fails_its_read(
    run_mcp_inprocess: RunMcp, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The read and get items learn content contracts: a JSON resource's shape (read until
    it rests on ESTABLISHED reads), a template's JSON, a prompt's messages. v2's status
    resource lost a member: its read fails with the content drift, in CI and locally; in CI
    the new entries that return content fail for want of a recorded contract; the text
    resource records none."""
    calls = (NO_SEQUENCES, "-k", "read or get", "-rf")
    monkeypatch.setenv("MCP_FIXTURE_VARIANT", "v1")
    record = run_mcp_inprocess(SERVER, args=calls)
    record.assert_outcomes(passed=6, deselected=16)
    recorded = files(pytester)
    status = json.loads(recorded["resources/status_app.json"])["content"]
    assert status["schema"]["required"] == ["state", "uptime"]
    assert status["kinds"] == ["json-text"]
    # A text resource has no content contract (and its drift item, which records its
    # surface, was not selected): no file.
    assert "resources/file_docs_guide.md.json" not in recorded
    review = json.loads(recorded["prompts/review.json"])["content"]
    assert list(review["schema"]["properties"]) == ["message1_user_text"]
    monkeypatch.setenv("CI", "true")
    for seed in ("1", "2", "3"):
        same = run_mcp_inprocess(SERVER, args=(*calls, f"--hypothesis-seed={seed}"))
        same.assert_outcomes(passed=6, deselected=16)
    assert files(pytester) == recorded
    monkeypatch.setenv("MCP_FIXTURE_VARIANT", "v2")
    ci = run_mcp_inprocess(SERVER, args=calls)
    ci.stdout.fnmatch_lines_random(
        [
            "FAILED mcp:surface-versions::resource:status_app::read - the content "
            "drifted from the recorded contract: $.uptime: missing (was always present)",
            "FAILED mcp:surface-versions::prompt:translate::get - no content contract is "
            "recorded for this prompt (*), and CI is set, so none is written",
            "FAILED mcp:surface-versions::template:users_org_user_id_profile::read - no "
            "content contract is recorded *",
        ]
    )
    ci.assert_outcomes(failed=3, passed=3, deselected=18)
    monkeypatch.delenv("CI")
    local = run_mcp_inprocess(SERVER, args=calls)
    local.assert_outcomes(failed=1, passed=5, deselected=18)
    local.stdout.fnmatch_lines(["*if the change is intended, *--mcp-snapshot-update*"])
