"""The suite's warm starts (tests/warm_servers.py): a pytest run forked from the zygote sees
what a cold ``python -m pytest`` sees, so the tests that run pytest warm test what users run.
"""

from __future__ import annotations

import json
import os

import pytest

from .. import warm_servers

# What a run under test takes from its process: its folder, its path, its environment, and
# what hypothesis and pytest make of them. Written by a test of the run, as JSON.
SEEN = """
import json, os, sys

import hypothesis
from hypothesis import configuration


def test_seen():
    seen = {
        "warm": "--serve" in sys.orig_argv,
        "cwd": os.getcwd(),
        "path": [p for p in sys.path if p.startswith(os.getcwd())],
        "argv0": os.path.basename(sys.argv[0]),
        "variable": os.environ.get("MCP_TEST_SEEN"),
        "profile": hypothesis.settings.get_current_profile_name(),
        "storage": str(configuration.storage_directory("x").path),
        "bytecode": sys.dont_write_bytecode,
        "main": sys.modules["__main__"].__name__,
    }
    with open("seen.json", "w") as out:
        json.dump(seen, out)
"""


def _seen(pytester: pytest.Pytester) -> tuple[dict[str, object], dict[str, int]]:
    result = pytester.runpytest_subprocess("-p", "no:randomly", "-p", "no:cacheprovider")
    seen = json.loads((pytester.path / "seen.json").read_text())
    return seen, result.parseoutcomes()


@pytest.fixture
def seen_test(pytester: pytest.Pytester) -> None:
    """The run's test that writes what it sees, where a zygote of pytest runs listens."""
    if not os.environ.get(warm_servers.PYTEST_SOCKET_ENV):
        pytest.skip("no zygote for pytest runs in this session (MCP_TEST_COLD_PYTEST)")
    pytester.makepyfile(test_seen=SEEN)


def test_a_warm_pytest_run_sees_what_a_cold_one_sees(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, seen_test: None
) -> None:
    (pytester.path / "extra-on-the-path").mkdir()
    monkeypatch.setenv("PYTHONPATH", "extra-on-the-path")  # relative: to the run's folder
    monkeypatch.setenv("MCP_TEST_SEEN", "yes")
    monkeypatch.setenv("CI", "true")  # hypothesis loads its "ci" profile on import
    warm, warm_outcomes = _seen(pytester)
    monkeypatch.delenv(warm_servers.PYTEST_SOCKET_ENV)
    cold, cold_outcomes = _seen(pytester)
    assert (warm.pop("warm"), cold.pop("warm")) == (True, False)
    assert warm == cold
    assert warm["profile"] == "ci" and warm["variable"] == "yes"
    assert str(pytester.path / "extra-on-the-path") in warm["path"]
    assert warm["storage"].startswith(str(pytester.path / ".hypothesis"))
    # No warning of the zygote's (its imports before pytest's, its storage read) in the run.
    assert warm_outcomes == cold_outcomes == {"passed": 1}


def test_what_the_interpreter_reads_as_it_starts_gets_a_cold_start(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, seen_test: None
) -> None:
    monkeypatch.setenv("PYTHONHASHSEED", "123")  # a forked process keeps the zygote's
    seen, outcomes = _seen(pytester)
    assert outcomes == {"passed": 1}
    assert seen["warm"] is False
