"""Random inputs drawn one ahead of the calls, or between them (inputs/ahead.py), with pure
functions in place of calls: the same inputs as an inline hypothesis run, one call each in
the order drawn, and a failure shrunk (or called flaky) as the inline run would, the same
way whichever way the inputs were drawn."""

from __future__ import annotations

import contextlib
import threading
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import seed as use_seed
from hypothesis import strategies as st
from hypothesis.errors import FlakyFailure

from pytest_mcp_contracts.inputs.ahead import call_drawn, replay_supported, worth_drawing_ahead

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


def _no_drawer_left() -> bool:
    return not [t for t in threading.enumerate() if t.name == "mcp-draw-ahead"]


class Bug(Exception):
    pass


@pytest.fixture(params=[True, False], ids=["ahead", "between"])
def ahead(request: pytest.FixtureRequest) -> bool:
    return bool(request.param)


def test_the_installed_hypothesis_can_replay_a_failing_input() -> None:
    # Else every run silently draws and shrinks inline: correct, but the calls pay for every
    # draw.
    assert replay_supported()


def test_only_calls_that_take_longer_than_a_draw_are_worth_drawing_ahead() -> None:
    assert worth_drawing_ahead([0.001, 0.0009, 0.002])  # an SDK server, about 1 ms a call
    assert not worth_drawing_ahead([0.00005, 0.00006, 0.01])  # a fast one, one slow call
    assert not worth_drawing_ahead([])  # nothing known: between the calls, as given() does


def test_the_inputs_are_an_inline_runs_in_its_order_one_call_each(ahead: bool) -> None:
    inline: list[dict[str, Any]] = []

    def record(arguments: dict[str, Any]) -> None:
        inline.append(arguments)

    use_seed(7)(_settings()(given(ARGUMENTS)(record)))()
    drawn: list[dict[str, Any]] = []
    threads: set[str] = set()

    def call(arguments: dict[str, Any]) -> None:
        threads.add(threading.current_thread().name)
        drawn.append(arguments)

    call_drawn(ARGUMENTS, call, test_settings=_settings, seed=7, ahead=ahead)
    assert drawn == inline and len(drawn) == 60
    # Every call is made by the caller's thread; only the drawing is elsewhere.
    assert threads == {threading.current_thread().name}
    assert _no_drawer_left()


def _failing_run(ahead: bool, **how: Any) -> tuple[list[dict[str, Any]], Any]:
    calls: list[dict[str, Any]] = []

    def call(arguments: dict[str, Any]) -> None:
        calls.append(arguments)
        if arguments["n"] > 1000 and len(arguments["text"]) > 1:
            raise Bug(arguments)

    with pytest.raises(Bug) as found:
        call_drawn(ARGUMENTS, call, **{"test_settings": _settings, "ahead": ahead, **how})
    return calls, found.value.args[0]


def test_a_failing_input_is_shrunk_with_a_call_per_attempt(ahead: bool) -> None:
    calls, smallest = _failing_run(ahead, seed=3)
    assert smallest == {"text": "00", "n": 1001}
    first = next(i for i, a in enumerate(calls) if a["n"] > 1000 and len(a["text"]) > 1)
    # The failing input is sent again first (the replay), then smaller ones.
    assert calls[first + 1] == calls[first]
    assert len(calls) > first + 2
    assert _no_drawer_left()


@pytest.mark.parametrize(
    "how",
    [{"seed": 5}, {"test_settings": lambda **kw: _settings(**{"derandomize": True, **kw})}],
    ids=["seed", "derandomized"],
)
def test_a_run_sends_and_shrinks_alike_however_its_inputs_are_drawn(how: dict[str, Any]) -> None:
    # How the inputs are drawn depends on how fast the server answered: it must not change
    # what is sent, nor what a failure shrinks to.
    ahead, between, again = (_failing_run(mode, **how) for mode in (True, False, True))
    assert ahead == between == again
    assert ahead[1]["n"] == 1001 and len(ahead[1]["text"]) == 2


def test_an_input_that_does_not_fail_again_is_flaky(ahead: bool) -> None:
    failed: list[dict[str, Any]] = []

    def call(arguments: dict[str, Any]) -> None:
        if arguments["n"] > 1000 and not failed:
            failed.append(arguments)
            raise Bug(arguments)

    with pytest.raises(FlakyFailure) as found:
        call_drawn(ARGUMENTS, call, test_settings=_settings, seed=3, ahead=ahead)
    assert [type(e) for e in found.value.exceptions] == [Bug]
    assert found.value.exceptions[0].args[0] == failed[0]


class Stop(BaseException):
    pass


def test_a_base_exception_from_a_call_ends_the_run_at_once(ahead: bool) -> None:
    calls: list[dict[str, Any]] = []

    def call(arguments: dict[str, Any]) -> None:
        calls.append(arguments)
        if len(calls) == 5:
            raise Stop

    with pytest.raises(Stop):
        call_drawn(ARGUMENTS, call, test_settings=_settings, seed=3, ahead=ahead)
    assert len(calls) == 5  # not shrunk, nothing sent after it
    assert _no_drawer_left()


def test_an_error_while_drawing_is_raised_in_the_callers_thread(ahead: bool) -> None:
    def refuse_large(arguments: dict[str, Any]) -> dict[str, Any]:
        if arguments["n"] > 1000:
            raise ValueError("no large n")
        return arguments

    calls: list[dict[str, Any]] = []
    with pytest.raises(ValueError, match="no large n"):
        strategy = ARGUMENTS.map(refuse_large)
        call_drawn(strategy, calls.append, test_settings=_settings, seed=3, ahead=ahead)
    assert calls and all(arguments["n"] <= 1000 for arguments in calls)
    assert _no_drawer_left()


def test_a_derandomized_run_draws_the_same_inputs_by_its_digest(ahead: bool) -> None:
    def run(digest: bytes) -> list[dict[str, Any]]:
        calls: list[dict[str, Any]] = []
        derandomized = lambda **kw: _settings(**{"derandomize": True, **kw})  # noqa: E731
        call_drawn(ARGUMENTS, calls.append, test_settings=derandomized, digest=digest, ahead=ahead)
        return calls

    assert run(b"server::echo") == run(b"server::echo")
    assert run(b"server::echo") != run(b"server::other")


def test_a_caller_that_stops_with_an_input_waiting_leaves_the_drawer_quiet() -> None:
    """The caller gives up (a BaseException from a call: --mcp-max-call-time, the time
    budget) while the next input waits in the handoff: the drawer ends without an error of
    its own (it used to release a lock the untaken input held released: "release unlocked
    lock" in the thread, a pytest warning on the user's run)."""
    from pytest_mcp_contracts.inputs.ahead import _Abandoned, _Handoff

    handoff = _Handoff()
    errors: list[BaseException] = []

    def drawer() -> None:
        with contextlib.suppress(_Abandoned):
            handoff.put({"n": 1}, None)  # waits until taken, or abandoned
        try:
            handoff.end(None)
        except BaseException as exc:
            errors.append(exc)

    thread = threading.Thread(target=drawer)
    thread.start()
    while handoff._item is None:  # the input is there, not taken
        thread.join(0.001)
    handoff.abandon()
    thread.join()
    assert errors == []
