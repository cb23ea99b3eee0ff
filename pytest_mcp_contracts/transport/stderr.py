"""What a server wrote beside the protocol (stderr; in-process, its log records): kept as
numbered lines, so that a call can show exactly what it made the server write."""

from __future__ import annotations

import collections
import itertools
import re
import threading
from collections.abc import Sequence
from typing import Final

STDERR_TAIL_LINES: Final = 40
# Lines of server output kept so that a call can show everything it wrote, tracebacks
# included; each line is cut at _STDERR_LINE_CHARS, so this bounds memory too.
STDERR_KEPT_LINES: Final = 400
_STDERR_LINE_CHARS: Final = 2000


class ServerLog:
    """What a server wrote beside the protocol (stderr; in-process, its log records) as
    numbered lines, so that a call can take exactly the lines written while it ran.

    Thread-safe: a reader thread adds, the caller takes ``mark()`` before a request and
    ``since(mark)`` after the answer.
    """

    def __init__(self, keep: int = STDERR_KEPT_LINES) -> None:
        self._lines: collections.deque[str] = collections.deque(maxlen=keep)
        self._count = 0  # lines ever completed
        self._partial = ""  # the line being written, not yet ended by a newline
        self._cut = False  # the current line was over the length cap: skip to its end
        self._lock = threading.Lock()

    def add(self, text: str) -> None:
        with self._lock:
            pieces = text.split("\n")
            for piece in pieces[:-1]:
                self._append_line(piece)
            self._extend_partial(pieces[-1])

    def end(self) -> None:
        """The stream ended: a last line without newline still counts."""
        with self._lock:
            if self._partial:
                self._append_line("")

    def _extend_partial(self, piece: str) -> None:
        if self._cut:
            return
        self._partial += piece
        if len(self._partial) > _STDERR_LINE_CHARS:
            self._partial = self._partial[:_STDERR_LINE_CHARS] + "…"
            self._cut = True

    def _append_line(self, piece: str) -> None:
        self._extend_partial(piece)
        self._lines.append(self._partial + "\n")
        self._count += 1
        self._partial, self._cut = "", False

    def mark(self) -> int:
        with self._lock:
            return self._count

    def carry(self, text: str) -> None:
        """Put lines before everything this log holds, numbered before its first line:
        what an earlier process of the server wrote, as context for this one's first calls
        (ManagedServer.revive). As many as there is room for, the newest kept."""
        with self._lock:
            room = (self._lines.maxlen or 0) - len(self._lines)
            carried = text.splitlines(keepends=True)[-room:] if room > 0 else []
            self._lines.extendleft(reversed(carried))

    def since(self, mark: int) -> str:
        """The lines completed after ``mark`` (and the unfinished one), oldest first."""
        with self._lock:
            new = self._count - mark
            # From the newest back: a call's own lines are few, the log keeps hundreds.
            kept = list(itertools.islice(reversed(self._lines), new)) if new > 0 else []
            lost = max(0, new - len(kept))
            text = "".join(reversed(kept)) + self._partial
        return f"({lost} earlier lines not kept)\n{text}" if lost else text

    def before(self, mark: int, lines: int, hidden: Sequence[tuple[int, int]] = ()) -> str:
        """Up to ``lines`` lines completed before ``mark``: context, not the call's own.
        The lines completed between the marks of a ``hidden`` pair are left out."""
        shown: list[str] = []
        if lines <= 0:
            return ""
        with self._lock:
            # From the newest kept line (numbered ``_count``) back, until enough are found:
            # this runs for every call, and the log keeps hundreds of lines.
            number = self._count
            for line in reversed(self._lines):
                if number <= mark and not any(start < number <= end for start, end in hidden):
                    shown.append(line)
                    if len(shown) == lines:
                        break
                number -= 1
        return "".join(reversed(shown))

    def tail(self, lines: int = STDERR_TAIL_LINES) -> str:
        with self._lock:
            return "".join(list(self._lines)[-lines:]) + self._partial


def last_words(stderr: str) -> str:
    """The line of a server's stderr that says why it ended: the last exception line of a
    traceback (Python's ``ValueError: ...``, inside exception groups too), else the last
    line with any text."""
    lines = [line.strip(" \t|+-") for line in stderr.splitlines()]
    lines = [line for line in lines if line]
    for line in reversed(lines):
        if _EXCEPTION_LINE.match(line):
            return line
    return lines[-1] if lines else ""


_EXCEPTION_LINE = re.compile(r"^[A-Za-z_][\w.]*(Error|Exception|Exit|Interrupt|Group)\b.*")
