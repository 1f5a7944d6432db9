"""Reference leaks, in the style of pyqtgraph's ref-cycle tests: a dropped Trace, station and
window must be collected (a weakref dies after gc.collect()); a long session holds one Trace,
not one per edit."""
from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest
import shiboken6

from app.main_window import MainWindow
from app.state import LabState
from app.values import Inputs, Selection, compute_result, preset_config, preset_tokens
from compute import PRESETS, Config, Weights, forward
from compute.backends import get_backend
from compute.backends.pool import BufferPool
from widgets.stations import STATION_CLASSES

from .conftest import wait_render


def _collected(ref: weakref.ref) -> bool:
    for _ in range(3):                      # cycles through Qt wrappers can take a pass or two
        gc.collect()
        if ref() is None:
            return True
    return False


def _referrers(obj) -> str:
    return ", ".join(sorted({type(r).__name__ for r in gc.get_referrers(obj)}))


@pytest.mark.parametrize("backend", ["reference", "cpu"])
def test_a_dropped_trace_is_collected(backend):
    cfg = PRESETS["toy"]
    trace = forward(cfg, Weights.random(cfg, 0), [1, 2, 3, 4], backend=backend)
    trace["logits"]                          # the lazy part too
    ref = weakref.ref(trace)
    del trace
    assert _collected(ref)


def test_a_dropped_station_is_collected(qtbot):
    result = compute_result(Inputs(config=preset_config("toy"), tokens=preset_tokens("toy"), weights="random"))
    for cls in STATION_CLASSES:
        station = cls()
        qtbot.addWidget(station)
        station.show()
        station.show_result(result, Selection())
        station._refresh()
        ref = weakref.ref(station)
        station.hide()
        shiboken6.delete(station)
        del station
        assert _collected(ref), cls.__name__


def test_a_closed_window_and_its_state_are_collected(qtbot):
    state = LabState()
    win = MainWindow(state)
    win.show()
    with qtbot.waitSignal(win.rendered, timeout=60_000):
        state.start()
    wait_render(qtbot, win, lambda s=state: s.set_seed(3))
    refs = [weakref.ref(win), weakref.ref(state), weakref.ref(state.result.trace)]
    win.close()
    state.runner.shutdown()
    shiboken6.delete(win)
    del win, state
    alive = [r() for r in refs if not _collected(r)]
    assert not alive, [f"{type(o).__name__} held by {_referrers(o)}" for o in alive]


def test_a_long_session_holds_one_trace_not_one_per_edit(qtbot, window):
    s = window.state
    refs = []
    for seed in range(12):
        wait_render(qtbot, window, lambda seed=seed: s.set_seed(seed + 1))
        refs.append(weakref.ref(s.result.trace))
        s.select(station=("scores", "heads", "mlp", "projections")[seed % 4])
    gc.collect()
    alive = [i for i, r in enumerate(refs) if r() is not None]
    assert alive == [len(refs) - 1], f"Traces {alive} of {len(refs)} still held"


def test_the_buffer_pool_keeps_only_what_the_next_pass_can_reuse(monkeypatch):
    """The pool recycles the big arrays of dropped Traces; Traces of many sizes must not fill it
    to its cap with shapes that never come back (the andrea-120m soak grew by ~0.7 GB so)."""
    cfg = Config(d_model=64, n_heads=2, d_head=32, n_ctx=128, d_vocab=64, n_layers=1, d_mlp=16384)
    backend = get_backend("cpu")
    # A pool of its own: Traces that earlier tests in this process still hold (or that the
    # garbage collector frees in the middle of the loop) count as "in use" in the shared one,
    # and its bound lets free arrays grow to match them (CI under xdist: 285 MB held vs 7.9 MB).
    gc.collect()
    pool = BufferPool(max_bytes=backend.pool.max_bytes)
    monkeypatch.setattr(backend, "pool", pool)
    if not pool.enabled:
        pytest.skip("this interpreter does not count references the way the pool relies on")
    w = Weights.random(cfg, 0)
    biggest = 0
    for T in range(16, 61):                                        # mlp_pre/post are pooled from T=16
        trace = forward(cfg, w, np.arange(T) % 64, backend="cpu")
        biggest = max(biggest, sum(a.nbytes for a in trace._arrays.values() if a.nbytes >= 1 << 20))
        del trace
    assert biggest > 0 and pool.held_bytes() <= 3 * biggest, (pool.held_bytes(), biggest)
    trace = forward(cfg, w, np.arange(60) % 64, backend="cpu")     # and the same size again is recycled
    hits = pool.hits
    del trace
    forward(cfg, w, np.arange(60) % 64, backend="cpu")
    assert pool.hits > hits
