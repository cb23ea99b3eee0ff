"""transport/inflight.py: calls sent ahead, handed back in input order, and what a window
does when something in flight cannot be told apart (noise, stderr, a death, a request).

The server here is a fake that answers in the order the calls were sent (as a server that
reads one request at a time does), so that what happens in flight is the same every run:
each input names what its call does to the connection."""

from __future__ import annotations

import threading
import time
from collections import Counter
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from pytest_mcp_contracts.transport.errors import ServerDied
from pytest_mcp_contracts.transport.inflight import CallWindow, Flown
from pytest_mcp_contracts.transport.managed import CallOutcome


class FakeConn:
    def __init__(self) -> None:
        self.alive = True
        self.unattributed = 0  # noise, stray messages, server requests
        self.lines = 0  # stderr lines written

    def stderr_mark(self) -> int:
        return self.lines

    def request_message(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        return {"jsonrpc": "2.0", "method": method, "params": params}


class FakeClient:
    def __init__(self) -> None:
        self.rewound: Counter[str] = Counter()

    def rewind(self, tool: str, elicitations: int) -> None:
        self.rewound[tool] += elicitations


class FakeServer:
    """Answers ``{"do": ...}`` inputs one at a time, in the order they were sent."""

    def __init__(self) -> None:
        self.conn = FakeConn()
        self.client = FakeClient()
        self.sent: list[str] = []
        self.revived: list[int] = []
        self.unseen: list[tuple[int, int]] = []
        self.noise_forgotten = 0
        self.pending_noise = False  # noise read before the window that no call was blamed for
        self._turn = threading.Condition()

    def live_connection(self) -> FakeConn | None:
        return self.conn if self.conn.alive else None

    def send_on(
        self,
        conn: FakeConn,
        method: str,
        params: dict[str, Any],
        arguments: dict[str, Any],
        _: str,
        limit: float | None = None,
    ) -> tuple[CallOutcome, int]:
        index = arguments["i"]
        with self._turn:  # the server reads one request at a time, in order
            self._turn.wait_for(lambda: len(self.sent) == index)
            outcome = CallOutcome(arguments, conn.request_message(method, params))
            what = arguments["do"]
            if not conn.alive:
                outcome.failure = ServerDied("the server has exited")
            elif what == "noise":
                conn.unattributed += 1
            elif what == "stderr":
                conn.lines += 1
            elif what == "elicit":
                conn.unattributed += 1
                outcome.client.asked["elicitation/create"] += 1
            elif what == "die":
                conn.alive = False
                outcome.failure = ServerDied("the server exited while answering tools/call")
            if outcome.failure is None:
                outcome.result = {"content": [], "i": index}
            self.sent.append(what)
            self._turn.notify_all()
        return outcome, 0

    def unsee_stderr(self, conn: FakeConn, start: int, end: int) -> None:
        if end > start:
            self.unseen.append((start, end))

    def forget_stdout_noise(self, conn: FakeConn) -> None:
        self.noise_forgotten += 1

    def noise_pending(self, conn: FakeConn) -> bool:
        return self.pending_noise

    def revive(self, context_upto: int) -> None:
        self.revived.append(context_upto)
        self.conn = FakeConn()


def inputs(*what: str) -> list[dict[str, Any]]:
    return [{"i": i, "do": do} for i, do in enumerate(what)]


def window(server: FakeServer, calls: list[dict[str, Any]], width: int = 3, **kw: Any) -> Any:
    return CallWindow(server, "tool", calls, width, **kw)  # type: ignore[arg-type]


def take(win: CallWindow, argument: dict[str, Any]) -> Flown:
    flown = win.take(argument)
    assert flown is not None
    return flown


def test_answers_come_back_in_input_order_with_at_most_width_sent_ahead() -> None:
    server = FakeServer()
    calls = inputs(*["ok"] * 7)
    win = window(server, calls, width=3)
    for index, argument in enumerate(calls):
        flown = take(win, argument)
        assert flown.index == index and flown.outcome.arguments is argument
        assert flown.quiet and flown.silent
        # Sent: this input and the two after it, never more.
        assert len(server.sent) <= index + 3
    win.close()
    assert len(server.sent) == 7  # each input once: nothing was sent again


def test_noise_in_flight_stops_the_window_for_good_and_is_forgotten() -> None:
    server = FakeServer()
    calls = inputs("ok", "ok", "noise", "ok", "ok", "ok")
    win = window(server, calls)
    assert take(win, calls[0]).quiet and take(win, calls[1]).quiet
    noisy = take(win, calls[2])
    assert not noisy.quiet  # the noise came before its answer: it may be anyone's in flight
    win.set_aside(noisy)
    assert win.stopped and server.noise_forgotten == 1
    # From here the caller sends each input itself, one at a time.
    assert win.take(calls[3]) is None
    assert len(server.sent) <= 5  # what was in flight was waited for, nothing more sent


def test_stderr_in_flight_pauses_the_window_and_hides_the_lines_sent_ahead() -> None:
    server = FakeServer()
    calls = inputs("ok", "stderr", "ok", "ok", "ok", "ok", "ok")
    win = window(server, calls)
    first = take(win, calls[0])
    assert first.quiet and first.silent
    loud = take(win, calls[1])
    assert loud.quiet and not loud.silent
    win.set_aside(loud)  # the caller sends it again alone
    assert not win.stopped
    assert server.unseen == [(0, 1)]  # the line the call sent ahead wrote
    # The calls in flight when the line came are not silent either: each is sent again
    # alone too (the window holds them, answered, while the caller does).
    for argument in calls[2:4]:
        after = take(win, argument)
        assert after.quiet and not after.silent
        win.set_aside(after)
    # Then the window goes on from a fresh start: what follows is silent again.
    assert all(take(win, argument).silent for argument in calls[4:])
    win.close()
    assert not server.revived and server.noise_forgotten == 0


def test_a_death_in_flight_revives_the_server_with_its_earlier_context() -> None:
    server = FakeServer()
    server.conn.lines = 4  # the server wrote 4 lines before the window opened
    calls = inputs("ok", "die", "ok", "ok")
    win = window(server, calls)
    assert take(win, calls[0]).quiet
    died = take(win, calls[1])
    assert died.outcome.failure is not None and not died.quiet
    win.set_aside(died)
    assert win.stopped
    assert server.revived == [4]  # context up to when the calls were sent
    assert server.live_connection() is not None
    assert win.take(calls[2]) is None


def test_a_call_sent_after_the_death_is_not_sent_and_says_so() -> None:
    server = FakeServer()
    calls = inputs("die", "ok", "ok")
    win = window(server, calls)
    take(win, calls[0])
    gone = win._pending[1].result()  # what the window holds for the next input
    assert isinstance(gone.outcome.failure, ServerDied) and not gone.quiet
    win.close()


def test_elicitations_of_answers_thrown_away_are_forgotten() -> None:
    server = FakeServer()
    calls = inputs("ok", "elicit", "elicit", "ok")
    win = window(server, calls, width=4)
    assert take(win, calls[0]).quiet
    asked = take(win, calls[1])
    assert not asked.quiet
    win.set_aside(asked)
    # The one set aside and the one sent ahead after it: both answers are thrown away.
    assert server.client.rewound["tool"] == 2
    assert win.stopped


def test_no_input_is_sent_after_the_deadline() -> None:
    server = FakeServer()
    calls = inputs(*["ok"] * 6)
    win = window(server, calls, width=2, deadline=time.monotonic() - 1)  # already passed
    assert win.take(calls[0]) is None  # never sent: the caller decides what to do
    win.close()
    assert server.sent == []


def test_inputs_that_come_in_another_order_stop_the_window() -> None:
    server = FakeServer()
    calls = inputs("ok", "ok", "ok")
    win = window(server, calls)
    take(win, calls[0])
    assert win.take(dict(calls[1])) is None  # equal, but not the input drawn
    assert win.stopped


def test_noise_no_call_was_blamed_for_yet_keeps_every_call_alone() -> None:
    server = FakeServer()
    server.pending_noise = True  # by its place on stdout it is the next call's
    calls = inputs("ok", "ok")
    win = window(server, calls)
    assert win.take(calls[0]) is None and win.stopped
    assert server.sent == []


def test_stderr_context_leaves_out_hidden_stretches_and_starts_with_carried_lines() -> None:
    from pytest_mcp_contracts.transport.stderr import ServerLog

    log = ServerLog()
    log.add("one\ntwo\nthree\nfour\n")
    assert log.before(4, 5) == "one\ntwo\nthree\nfour\n"
    assert log.before(4, 5, hidden=[(1, 3)]) == "one\nfour\n"  # lines 2 and 3: sent ahead
    assert log.before(2, 1) == "two\n"
    fresh = ServerLog()
    fresh.add("started\n")
    fresh.carry("old a\nold b\n")  # an earlier process's lines come first, as context
    assert fresh.before(fresh.mark(), 5) == "old a\nold b\nstarted\n"
    assert fresh.before(fresh.mark(), 5, hidden=[(0, 1)]) == "old a\nold b\n"
    assert fresh.since(0) == "started\n"  # the new process's own lines are its own


def test_a_client_forgets_elicitations_it_answered_to_answers_thrown_away() -> None:
    from pytest_mcp_contracts.transport.client import CallTranscript, Client

    client = Client()
    call = CallTranscript(tool="confirm")
    actions = [client.answer("elicitation/create", {"mode": "url"}, call)["action"]]
    actions.append(client.answer("elicitation/create", {"mode": "url"}, call)["action"])
    client.rewind("confirm", 1)
    actions.append(client.answer("elicitation/create", {"mode": "url"}, call)["action"])
    # accept, decline, then decline again: the second answer was thrown away
    assert actions == ["accept", "decline", "decline"]
    client.rewind("confirm", 10)  # never below none
    assert client.answer("elicitation/create", {"mode": "url"}, call)["action"] == "accept"


def test_a_server_that_writes_stderr_on_every_call_stops_the_window_at_its_second_pause() -> None:
    """A log line a request (FastMCP 1.x at INFO): each batch in flight would be set aside
    and sent again alone, every input twice. The second pause stops the window: from there
    the caller sends one at a time, each input once."""
    server = FakeServer()
    calls = inputs(*["stderr"] * 12)
    win = window(server, calls)
    for argument in calls:
        flown = take(win, argument) if not win.stopped else None
        if flown is None:
            assert win.stopped
            break
        assert not flown.silent
        win.set_aside(flown)
    assert win.stopped
    win.close()
    assert len(server.sent) <= 6  # two batches of three in flight, at the most


@given(
    written=st.lists(st.sampled_from(["a\n", "b\nc\n", "", "tail", "\n"]), max_size=30),
    keep=st.integers(1, 8),
    mark=st.integers(-2, 40),
    lines=st.integers(0, 6),
    hidden=st.lists(st.tuples(st.integers(-2, 40), st.integers(-2, 40)), max_size=3),
)
def test_stderr_since_and_before_read_from_the_newest_line_as_a_whole_copy_would(
    written: list[str], keep: int, mark: int, lines: int, hidden: list[tuple[int, int]]
) -> None:
    """``since`` and ``before`` run for every call: they walk back from the newest kept line
    instead of copying and numbering all of them, and give what the whole copy gives."""
    from pytest_mcp_contracts.transport.stderr import ServerLog

    log = ServerLog(keep=keep)
    for text in written:
        log.add(text)
    kept = list(log._lines)
    first = log.mark() - len(kept) + 1
    numbered = list(enumerate(kept, first))
    shown = [
        line
        for number, line in numbered
        if number <= mark and not any(start < number <= end for start, end in hidden)
    ]
    assert log.before(mark, lines, hidden) == ("".join(shown[-lines:]) if lines > 0 else "")
    new = log.mark() - mark
    own = kept[-new:] if new > 0 else []
    lost = max(0, new - len(own))
    text = "".join(own) + log._partial
    assert log.since(mark) == (f"({lost} earlier lines not kept)\n{text}" if lost else text)
