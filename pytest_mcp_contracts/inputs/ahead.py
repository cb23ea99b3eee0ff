"""Random inputs drawn one ahead: hypothesis draws the next input while a call is out.

Run inline (``given(strategy)(call)``), a call's time is hypothesis's draw (pure Python,
its engine's bookkeeping included), then the request, the server's work and the answer,
then the judging, one after the other. Drawn ahead,
hypothesis draws in a thread of its own, exactly one input ahead: while the caller's thread
waits for the server (holding no GIL), the next input is drawn, so a call costs the longer
of the two, not their sum, on a machine with a core to spare. Calls are still made one at a
time, in the order hypothesis drew the inputs, each judged before the next is sent. Handing
each input over costs two thread switches: for a server that answers faster than a draw
(``worth_drawing_ahead``), the inputs are drawn between the calls instead.

Either way a failing input is shrunk by a second run. The drawing run cannot be told of a
failure found a call later (its test case has passed by then), so it is stopped, and a
second hypothesis run of the same test, given the failing input's choices as one it once
saw fail (the example database's secondary corpus, which hypothesis replays and shrinks),
makes each shrinking attempt a real call, as an inline run does. Drawn between the calls,
the first run stops at the failure and the same second run shrinks it: the inputs, their
order and what they shrink to do not depend on how fast the server is. What comes out is
what the inline run would raise: the shrunk failure, a ``FlakyFailure`` when the input did
not fail again, or the BaseException a call raised to stop everything.

Hypothesis internals used, each checked once (``replay_supported``): the choices of the
test case being run (``current_build_context().data.choices``), their serialization
(``hypothesis.database.choices_to_bytes``), a test's database key
(``_hypothesis_internal_database_key``, as ``hypothesis.find`` sets it) and the secondary
corpus under ``<key>.secondary``. Without them, inputs are drawn and shrunk inline, by one
``given`` run, as before.
"""

from __future__ import annotations

import contextlib
import hashlib
import statistics
import threading
from collections.abc import Callable, Sequence
from functools import cache
from typing import TYPE_CHECKING, Any, Final, NoReturn

if TYPE_CHECKING:
    from hypothesis import settings as Settings
    from hypothesis.strategies import SearchStrategy

__all__ = ["WORTH_DRAWING_AHEAD", "call_drawn", "replay_supported", "worth_drawing_ahead"]

#: The key the failing input is saved under for the second run (any constant will do: the
#: database is the run's own, in memory).
_KEY = b"pytest-mcp-contracts-ahead"


class _Abandoned(BaseException):
    """Raised in the drawing thread once the caller takes no more inputs: ends its run
    without a verdict (a BaseException, so that hypothesis does not shrink it)."""


class _Handoff:
    """One input at a time from the drawing thread to the caller: the drawer waits until
    the caller has taken it, so hypothesis draws exactly one input ahead. Two plain locks,
    one per direction, each held while its side has nothing to say (a Condition would cost a
    new lock per wait, twice a call)."""

    def __init__(self) -> None:
        self._item: tuple[Any, Any] | None = None
        self._ended: tuple[BaseException | None] | None = None  # (what ended the run,)
        self._abandoned = False
        self._ready = threading.Lock()  # released when an input, or the end, is there
        self._ready.acquire()
        self._taken = threading.Lock()  # released when the caller took it (or gave up)
        self._taken.acquire()

    def put(self, arguments: Any, choices: Any) -> None:
        if self._abandoned:
            raise _Abandoned
        self._item = (arguments, choices)
        self._ready.release()
        self._taken.acquire()
        if self._abandoned:
            raise _Abandoned

    def end(self, error: BaseException | None) -> None:
        self._ended = (error,)
        if self._abandoned:
            # Nobody takes any more, and an input the caller left untaken still holds
            # ``_ready`` released: a second release would raise in the drawing thread.
            return
        self._ready.release()

    def take(self) -> tuple[Any, Any] | tuple[BaseException | None]:
        """The next (arguments, choices), or (error,) once the drawing run has ended."""
        self._ready.acquire()
        item, self._item = self._item, None
        if item is None:
            assert self._ended is not None
            return self._ended
        self._taken.release()
        return item

    def abandon(self) -> None:
        """No more inputs are taken: a drawer waiting in ``put``, or coming to it, stops."""
        self._abandoned = True
        with contextlib.suppress(RuntimeError):  # not held: the drawer is not waiting
            self._taken.release()


@cache
def replay_supported() -> bool:
    """Whether the installed hypothesis has what drawing ahead relies on (tried once, on a
    one-example run)."""
    try:
        from hypothesis import Phase, given, settings
        from hypothesis import strategies as st
        from hypothesis.control import current_build_context
        from hypothesis.database import InMemoryExampleDatabase, choices_to_bytes
    except ImportError:
        return False
    seen: list[bytes] = []

    @settings(max_examples=1, database=None, phases=[Phase.generate])
    @given(st.booleans())
    def probe(_value: bool) -> None:
        seen.append(choices_to_bytes(current_build_context().data.choices))

    try:
        probe()
        InMemoryExampleDatabase().save(_KEY, seen[0])
    except Exception:
        return False
    return True


#: A call must take this long (seconds, the median of a tool's explicit calls) for drawing
#: ahead to pay: the two threads hand each input over (two thread switches of CPU), and what
#: they win is the part of the draw that the call's wait covers. A server faster than the
#: handoff (a standard-library one) loses by it (bench/README.md, figure 2, has both costs).
WORTH_DRAWING_AHEAD: Final = 0.00025


def worth_drawing_ahead(call_seconds: Sequence[float]) -> bool:
    """Whether calls this long (a tool's explicit ones) leave a draw time to hide in."""
    return bool(call_seconds) and statistics.median(call_seconds) >= WORTH_DRAWING_AHEAD


def call_drawn(
    strategy: SearchStrategy[Any],
    call: Callable[[Any], None],
    *,
    test_settings: Callable[..., Settings],
    seed: Any = None,
    digest: bytes = b"",
    ahead: bool = True,
) -> None:
    """Call ``call`` on the inputs hypothesis draws from ``strategy`` and shrink the first
    one for which it raises an Exception.

    With ``ahead``, each input is drawn while the call before it is out (in a thread of its
    own); else between the calls, as ``given`` does. Either way the inputs and their order
    are the same, and a failing input is shrunk the same way: by a second run, from its
    choices. ``test_settings(**overrides)`` makes a run's hypothesis settings (the second
    run's with its own ``database`` and ``phases``); ``seed`` is hypothesis's, when one was
    given; ``digest`` tells this test from others (a derandomized run draws by it). Raises
    what ``given(strategy)(call)`` run under those settings would."""
    if not replay_supported():
        _test(strategy, call, test_settings(), seed, digest)()
        return
    drawn = _drawn_ahead if ahead else _drawn_between
    found = drawn(strategy, call, test_settings(), seed, digest)
    if found is not None:
        failure, choices = found
        _shrink(strategy, call, failure, choices, test_settings, seed, digest)


def _drawn_between(
    strategy: SearchStrategy[Any],
    call: Callable[[Any], None],
    first_settings: Settings,
    seed: Any,
    digest: bytes,
) -> tuple[Exception, Any] | None:
    """Each input called as soon as it is drawn; the first failure, with its choices (the
    run stops there), or None."""
    from hypothesis.control import current_build_context

    found: list[tuple[Exception, Any]] = []

    def call_now(arguments: Any) -> None:
        try:
            call(arguments)
        except Exception as failure:
            found.append((failure, current_build_context().data.choices))
            raise _Abandoned from None

    with contextlib.suppress(_Abandoned):
        _test(strategy, call_now, first_settings, seed, digest)()
    return found[0] if found else None


def _drawn_ahead(
    strategy: SearchStrategy[Any],
    call: Callable[[Any], None],
    first_settings: Settings,
    seed: Any,
    digest: bytes,
) -> tuple[Exception, Any] | None:
    """Each input drawn while the call before it is out; the first failure, with its
    choices (the drawing stops there), or None."""
    from hypothesis.control import current_build_context

    handoff = _Handoff()

    def hand_over(arguments: Any) -> None:
        handoff.put(arguments, current_build_context().data.choices)

    drawing = _test(strategy, hand_over, first_settings, seed, digest)

    def draw() -> None:
        error: BaseException | None = None
        try:
            drawing()
        except _Abandoned:
            pass
        except BaseException as exc:  # handed to the caller's thread, raised there
            error = exc
        handoff.end(error)

    drawer = threading.Thread(target=draw, name="mcp-draw-ahead", daemon=True)
    drawer.start()
    try:
        while True:
            item = handoff.take()
            if len(item) == 1:
                if item[0] is not None:
                    raise item[0]
                return None
            arguments, choices = item
            try:
                call(arguments)
            except Exception as failure:
                return failure, choices
    finally:
        handoff.abandon()
        drawer.join()


def _test(
    strategy: SearchStrategy[Any],
    body: Callable[[Any], None],
    test_settings: Settings,
    seed: Any,
    digest: bytes,
) -> Callable[[], None]:
    """``body`` as a hypothesis test of ``strategy``'s values."""
    from hypothesis import given
    from hypothesis import seed as use_seed

    def run(arguments: Any) -> None:
        body(arguments)

    run._hypothesis_internal_add_digest = digest  # type: ignore[attr-defined]
    test = test_settings(given(strategy)(run))
    return use_seed(seed)(test) if seed is not None else test


def _shrink(
    strategy: SearchStrategy[Any],
    call: Callable[[Any], None],
    failure: Exception,
    choices: Any,
    test_settings: Callable[..., Settings],
    seed: Any,
    digest: bytes,
) -> NoReturn:
    """Run hypothesis again on the one failing input and shrink it, each attempt a call;
    raise the smallest failure, or a FlakyFailure when the input passed this time."""
    from hypothesis import Phase
    from hypothesis.database import InMemoryExampleDatabase, choices_to_bytes
    from hypothesis.errors import FlakyFailure

    database = InMemoryExampleDatabase()
    # The secondary corpus: inputs that once failed, not yet shrunk. One in the primary
    # corpus would be taken for an already shrunk failure and only replayed.
    database.save(_KEY + b".secondary", choices_to_bytes(choices))
    attempts = 0

    def attempt(arguments: Any) -> None:
        nonlocal attempts
        attempts += 1
        call(arguments)

    # A seed or a derandomized profile makes the shrinking, too, the same on every run; but
    # either would also switch the database off (hypothesis's seed() and derandomize), so
    # the seed is given to the test directly, as seed() does.
    if seed is None and test_settings().derandomize:
        seed = int.from_bytes(hashlib.sha256(digest).digest()[:16], "big")
    replay_settings = test_settings(
        database=database, derandomize=False, phases=[Phase.reuse, Phase.shrink]
    )
    replay = _test(strategy, attempt, replay_settings, None, digest)
    replay._hypothesis_internal_database_key = _KEY  # type: ignore[attr-defined]
    if seed is not None:
        replay._hypothesis_internal_use_seed = seed  # type: ignore[attr-defined]
    replay()
    if attempts == 0:  # the replay never reached the input: report it as it failed
        raise failure
    raise FlakyFailure(
        "the input that failed did not fail again when it was sent a second time", [failure]
    )
