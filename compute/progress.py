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
def reporting(callback: Callable[[str, float], None] | None) -> Iterator[None]:
    previous = getattr(_local, "callback", None)
    _local.callback = callback
    try:
        yield
    finally:
        _local.callback = previous


def report(stage: str, fraction: float) -> None:
    """Tell the installed callback (if any) that `stage` is reached, `fraction` (0..1) done."""
    callback = getattr(_local, "callback", None)
    if callback is not None:
        callback(stage, min(max(fraction, 0.0), 1.0))
