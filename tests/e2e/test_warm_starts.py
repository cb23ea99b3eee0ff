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


def test_seen(request):
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
        "hash": hash("seen"),
    }
    worker = getattr(request.config, "workerinput", {}).get("workerid")
    with open(f"seen-{worker}.json" if worker else "seen.json", "w") as out:
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
    assert warm.pop("hash") != cold.pop("hash")  # seeds of their own, as in any two processes
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


def _workers_seen(pytester: pytest.Pytester) -> dict[str, dict[str, object]]:
    result = pytester.runpytest_subprocess(
        "-p", "no:randomly", "-p", "no:cacheprovider", "-n", "2", "--dist", "each"
    )
    assert result.parseoutcomes() == {"passed": 2}, result.stdout.str()
    return {
        worker: json.loads((pytester.path / f"seen-{worker}.json").read_text())
        for worker in ("gw0", "gw1")
    }


def test_the_xdist_workers_of_a_warm_run_see_what_cold_ones_see_each_with_its_own_hash_seed(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, seen_test: None
) -> None:
    """A warm run's two workers fork from two zygotes: like two cold workers they have hash
    seeds of their own, so a collection that followed a set's order would differ between
    them and xdist would fail the run, as a user's ``-n 2`` run does."""
    monkeypatch.setenv("CI", "true")
    warm = _workers_seen(pytester)
    monkeypatch.delenv(warm_servers.PYTEST_SOCKET_ENV)
    cold = _workers_seen(pytester)
    assert [seen.pop("warm") for seen in warm.values()] == [True, True]
    assert [seen.pop("warm") for seen in cold.values()] == [False, False]
    hashes = {seen.pop("hash") for run in (warm, cold) for seen in run.values()}
    assert len(hashes) == 4
    assert warm == cold
    assert warm["gw0"]["profile"] == "ci" and warm["gw0"]["argv0"] == "-c"
