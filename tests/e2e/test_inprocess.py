"""The in-process layer (conftest.run_inprocess): pytest run in this process against fixture
servers as --mcp-app targets. These check that one such run leaves nothing behind that the
next run, or the rest of this test process, would see: the fixture module, its environment,
hypothesis's profile and seed."""

from __future__ import annotations

import sys

import pytest
from hypothesis import core, settings

from ..conftest import NO_SEQUENCES, RunMcp


def test_each_run_imports_the_fixture_afresh_and_reads_its_environment(
    run_inprocess: RunMcp, monkeypatch: pytest.MonkeyPatch
) -> None:
    # thresholds.py reads MCP_FIXTURE_BUGS on import: a module kept from the first run
    # would keep its bug.
    args = (NO_SEQUENCES, "-k", "resize and contract", "--mcp-call-timeout=5")
    run_inprocess("thresholds.py", args=args).assert_outcomes(failed=1, deselected=27)
    assert "mcp_app_thresholds" not in sys.modules
    monkeypatch.setenv("MCP_FIXTURE_BUGS", "0")
    run_inprocess("thresholds.py", args=args).assert_outcomes(passed=1, deselected=27)
    assert "mcp_app_thresholds" not in sys.modules


def test_hypothesis_profile_and_seed_are_a_fresh_processs_and_restored(
    run_inprocess: RunMcp, monkeypatch: pytest.MonkeyPatch
) -> None:
    profile, seed = settings.get_current_profile_name(), core.global_force_seed
    monkeypatch.setenv("MCP_FIXTURE_BUGS", "0")
    args = (NO_SEQUENCES, "-v", "-k", "resize and contract")  # -v: the profile in the header
    seeded = run_inprocess("thresholds.py", args=(*args, "--hypothesis-seed=3"))
    seeded.assert_outcomes(passed=1, deselected=27)
    seeded.stdout.fnmatch_lines(["*hypothesis profile 'default'*"])
    # A CI variable makes hypothesis load its "ci" profile on import, as a new process would.
    monkeypatch.setenv("CI", "true")
    ci = run_inprocess("thresholds.py", args=args)
    ci.assert_outcomes(passed=1, deselected=27)
    ci.stdout.fnmatch_lines(["*hypothesis profile 'ci'*"])
    monkeypatch.delenv("CI")
    local = run_inprocess("thresholds.py", args=args)
    local.assert_outcomes(passed=1, deselected=27)
    local.stdout.fnmatch_lines(["*hypothesis profile 'default'*"])
    assert (settings.get_current_profile_name(), core.global_force_seed) == (profile, seed)
