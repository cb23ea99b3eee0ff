"""Random inputs drawn one ahead of the calls (inputs/ahead.py), with pure functions in place
of calls: the same inputs as an inline hypothesis run, one call each in the order drawn, and
a failure shrunk (or called flaky) as the inline run would."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import seed as use_seed
from hypothesis import strategies as st
from hypothesis.errors import FlakyFailure

from pytest_mcp_contracts.inputs.ahead import call_drawn_ahead, replay_supported

ARGUMENTS = st.fixed_dictionaries({"text": st.text(), "n": st.integers()})


def _settings(**overrides: Any) -> Any:
    chosen: dict[str, Any] = {
        "max_examples": 60,
        "deadline": None,
        "database": None,
        "report_multiple_bugs": False,
        "suppress_health_check": [HealthCheck.too_slow],
    }
    return settings(**{**chosen, **overrides})


class Bug(Exception):
    pass


def test_the_installed_hypothesis_can_replay_a_failing_input() -> None:
    # Else every run silently draws inline: correct, but the calls pay for every draw.
    assert replay_supported()


def test_the_inputs_are_an_inline_runs_in_its_order_one_call_each() -> None:
    inline: list[dict[str, Any]] = []

    def record(arguments: dict[str, Any]) -> None:
        inline.append(arguments)

    use_seed(7)(_settings()(given(ARGUMENTS)(record)))()
    ahead: list[dict[str, Any]] = []
    threads: set[str] = set()

    def call(arguments: dict[str, Any]) -> None:
        threads.add(threading.current_thread().name)
        ahead.append(arguments)

    call_drawn_ahead(ARGUMENTS, call, test_settings=_settings, seed=7)
    assert ahead == inline and len(ahead) == 60
    # Every call is made by the caller's thread; only the drawing is elsewhere.
    assert threads == {threading.current_thread().name}
    assert not [t for t in threading.enumerate() if t.name == "mcp-draw-ahead"]


def test_a_failing_input_is_shrunk_with_a_call_per_attempt() -> None:
    calls: list[dict[str, Any]] = []

    def call(arguments: dict[str, Any]) -> None:
        calls.append(arguments)
        if arguments["n"] > 1000:
            raise Bug(arguments)

    with pytest.raises(Bug) as found:
        call_drawn_ahead(ARGUMENTS, call, test_settings=_settings, seed=3)
    assert found.value.args[0] == {"text": "", "n": 1001}
    first = next(i for i, arguments in enumerate(calls) if arguments["n"] > 1000)
    # The failing input is sent again first (the replay), then smaller ones.
    assert calls[first + 1] == calls[first]
    assert len(calls) > first + 2


def test_an_input_that_does_not_fail_again_is_flaky() -> None:
    failed: list[dict[str, Any]] = []

    def call(arguments: dict[str, Any]) -> None:
        if arguments["n"] > 1000 and not failed:
            failed.append(arguments)
            raise Bug(arguments)

    with pytest.raises(FlakyFailure) as found:
        call_drawn_ahead(ARGUMENTS, call, test_settings=_settings, seed=3)
    assert [type(e) for e in found.value.exceptions] == [Bug]
    assert found.value.exceptions[0].args[0] == failed[0]


class Stop(BaseException):
    pass


def test_a_base_exception_from_a_call_ends_the_run_at_once() -> None:
    calls: list[dict[str, Any]] = []

    def call(arguments: dict[str, Any]) -> None:
        calls.append(arguments)
        if len(calls) == 5:
            raise Stop

    with pytest.raises(Stop):
        call_drawn_ahead(ARGUMENTS, call, test_settings=_settings, seed=3)
    assert len(calls) == 5  # not shrunk, nothing sent after it
    assert not [t for t in threading.enumerate() if t.name == "mcp-draw-ahead"]


def test_an_error_while_drawing_is_raised_in_the_callers_thread() -> None:
    def refuse_large(arguments: dict[str, Any]) -> dict[str, Any]:
        if arguments["n"] > 1000:
            raise ValueError("no large n")
        return arguments

    calls: list[dict[str, Any]] = []
    with pytest.raises(ValueError, match="no large n"):
        call_drawn_ahead(ARGUMENTS.map(refuse_large), calls.append, test_settings=_settings, seed=3)
    assert calls and all(arguments["n"] <= 1000 for arguments in calls)
    assert not [t for t in threading.enumerate() if t.name == "mcp-draw-ahead"]


def test_a_derandomized_run_draws_the_same_inputs_by_its_digest() -> None:
    def run(digest: bytes) -> list[dict[str, Any]]:
        calls: list[dict[str, Any]] = []
        derandomized = lambda **kw: _settings(**{"derandomize": True, **kw})  # noqa: E731
        call_drawn_ahead(ARGUMENTS, calls.append, test_settings=derandomized, digest=digest)
        return calls

    assert run(b"server::echo") == run(b"server::echo")
    assert run(b"server::echo") != run(b"server::other")


@pytest.mark.parametrize(
    "how", [{"seed": 5}, {"test_settings": lambda **kw: _settings(**{"derandomize": True, **kw})}]
)
def test_a_seeded_or_derandomized_run_shrinks_the_same_way_each_time(how: dict[str, Any]) -> None:
    def run() -> tuple[list[dict[str, Any]], Any]:
        calls: list[dict[str, Any]] = []

        def call(arguments: dict[str, Any]) -> None:
            calls.append(arguments)
            if arguments["n"] > 1000 and len(arguments["text"]) > 1:
                raise Bug(arguments)

        with pytest.raises(Bug) as found:
            call_drawn_ahead(ARGUMENTS, call, **{"test_settings": _settings, **how})
        return calls, found.value.args[0]

    first, again = run(), run()
    assert first == again
    assert first[1]["n"] == 1001 and len(first[1]["text"]) == 2
