"""Keep hypothesis-jsonschema working with the installed hypothesis.

Why this exists: hypothesis 6.170.10 turned ``hypothesis.internal.conjecture.utils.many``
into a context manager (``with many(...) as elements: for _ in elements: ...``) and
dropped its ``more()`` method.  hypothesis-jsonschema 0.23.1, the latest release, still
drives it the old way (``while elements.more(): ...``) in
``_from_schema.from_object_schema``, so with hypothesis >= 6.170.10 every object schema
fails with ``AttributeError: 'many' object has no attribute 'more'``.

Rather than patch hypothesis, which other code relies on, we give only
hypothesis-jsonschema's ``_from_schema`` module (which calls the utils module ``cu``) a
stand-in whose ``many`` speaks the old protocol.  With an older hypothesis, whose
``many`` still has ``more()``, nothing is changed.
"""

from __future__ import annotations

import types
from collections.abc import Iterator
from typing import Any

__all__ = ["install"]


class _OldStyleMany:
    """Drives a context-manager ``many`` through the old ``more()``/``reject()`` protocol."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self._elements: Iterator[None] | None = None

    def more(self) -> bool:
        if self._elements is None:
            self._elements = iter(self._inner.__enter__())
        try:
            next(self._elements)
        except StopIteration:
            # The old protocol has no explicit end, so close the span when the loop stops.
            self._inner.__exit__(None, None, None)
            return False
        return True

    def reject(self, why: str | None = None) -> None:
        self._inner.reject(why)


class _UtilsProxy(types.ModuleType):
    """Stands in for ``hypothesis.internal.conjecture.utils`` inside hypothesis-jsonschema."""

    def __init__(self, utils: types.ModuleType) -> None:
        super().__init__(utils.__name__, utils.__doc__)
        self._utils = utils

    def __getattr__(self, name: str) -> Any:
        return getattr(self._utils, name)

    def many(self, *args: Any, **kwargs: Any) -> _OldStyleMany:
        return _OldStyleMany(self._utils.many(*args, **kwargs))


def install() -> None:
    """Adapt hypothesis-jsonschema to the installed hypothesis, if it needs it.  Idempotent."""
    from hypothesis.internal.conjecture import utils
    from hypothesis_jsonschema import _from_schema

    if hasattr(utils.many, "more"):
        return
    namespace = vars(_from_schema)
    if namespace.get("cu") is utils:
        namespace["cu"] = _UtilsProxy(utils)
