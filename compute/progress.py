"""Progress reports and cooperative cancellation for long computations, without threading APIs
in the signatures: a caller installs a callback for its thread, the backends report stages.

    with progress.reporting(lambda stage, fraction: ...):   # may raise Cancelled to stop
        forward(cfg, weights, tokens)
"""
from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

_local = threading.local()


class Cancelled(Exception):
    """Raised by a progress callback to stop the computation; nothing partial is returned."""


@contextmanager
def reporting(callback: Callable[[str, float], None] | None,
              on_partial: Callable[[int, dict], None] | None = None) -> Iterator[None]:
    """Install `callback` (stages) and `on_partial` (see `publish`) for this thread."""
    previous = getattr(_local, "callback", None), getattr(_local, "on_partial", None)
    _local.callback, _local.on_partial = callback, on_partial
    try:
        yield
    finally:
        _local.callback, _local.on_partial = previous


def wants_partial() -> bool:
    """Whether anyone listens to `publish` on this thread (a backend can skip collecting)."""
    return getattr(_local, "on_partial", None) is not None


def publish(layer: int, arrays: dict) -> None:
    """A backend hands out what is final so far: every value of the layers before `layer`, and
    `layer`'s attention half (resid_pre .. resid_mid). The arrays are never written again, so a
    view may draw them while the rest of the pass runs (the app shows a layer's attention maps
    before its MLP is done). The listener may raise Cancelled, like a progress callback."""
    on_partial = getattr(_local, "on_partial", None)
    if on_partial is not None:
        on_partial(layer, arrays)


def report(stage: str, fraction: float) -> None:
    """Tell the installed callback (if any) that `stage` is reached, `fraction` (0..1) done."""
    callback = getattr(_local, "callback", None)
    if callback is not None:
        callback(stage, min(max(fraction, 0.0), 1.0))
