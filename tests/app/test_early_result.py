"""Early results: a station drawn from a layer's attention half shows it before the MLP is done."""
from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from app import runner as runner_module
from app.runner import Runner
from app.state import Inputs
from compute import Config, Weights, forward
from compute.names import ATTENTION_NAMES, LAYER_NAMES

from .conftest import wait_render


@pytest.fixture
def early_always(monkeypatch):
    """Early results for any size (the app publishes them only for long passes)."""
    monkeypatch.setattr(runner_module, "PARTIAL_AFTER_S", 0.0)
    monkeypatch.setattr(runner_module, "PARTIAL_MIN_MACS", 0.0)


def _inputs(T=40, layers=2):
    cfg = Config(d_model=32, n_heads=4, d_head=8, n_ctx=64, d_vocab=50, n_layers=layers)
    tokens = tuple(int(t) for t in np.random.default_rng(T).integers(0, 50, T))
    return Inputs(config=cfg, tokens=tokens, preset="", seed=3, weights="random", backend="cpu")


def test_runner_hands_out_the_layers_attention_before_the_whole_pass(qtbot, early_always):
    runner = Runner()
    seen = []
    runner.partial.connect(lambda r: (seen.append(("partial", r)), runner.partial_shown()))
    runner.finished.connect(lambda r: seen.append(("finished", r)))
    inputs = _inputs()
    with qtbot.waitSignal(runner.finished, timeout=30_000):
        runner.submit(7, inputs, early_layer=1)
    runner.shutdown()
    assert [kind for kind, _ in seen] == ["partial", "finished"]
    early, full = seen[0][1].trace, seen[1][1].trace
    assert not early.complete and full.complete and seen[0][1].request_id == 7
    for name in LAYER_NAMES:                                     # layer 0 whole, layer 1 up to resid_mid
        assert early.has(name, 0)
        assert early.has(name, 1) == (name in ATTENTION_NAMES)
        if name in ATTENTION_NAMES:
            assert early[name, 1] is full[name, 1]               # the very arrays of the final Trace
            assert not early[name, 1].flags.writeable
    with pytest.raises(KeyError, match="not computed yet"):
        early["mlp_out", 1]
    with pytest.raises(KeyError, match="not computed yet"):
        early["logits"]
    ref = forward(inputs.config, Weights.random(inputs.config, inputs.seed), inputs.tokens, backend="reference")
    np.testing.assert_allclose(early["pattern", 1], ref["pattern", 1], atol=1e-5)
    np.testing.assert_allclose(early["resid_mid", 1], ref["resid_mid", 1], atol=1e-4)


def test_small_passes_get_no_early_result(qtbot):
    runner = Runner()
    seen = []
    runner.partial.connect(lambda r: seen.append(r))
    with qtbot.waitSignal(runner.finished, timeout=30_000):
        runner.submit(1, _inputs(), early_layer=0)
    runner.shutdown()
    assert seen == []                                            # 1e9 multiply-adds at least


def test_an_incremental_pass_of_a_few_rows_gets_no_early_result(qtbot, monkeypatch):
    """Early results are for passes with much to compute: the threshold counts the rows a pass
    recomputes, so typing at the end (one row) paints once, from the full result."""
    from compute.instruments.kvcache import block_macs

    inputs = _inputs()
    monkeypatch.setattr(runner_module, "PARTIAL_AFTER_S", 0.0)
    monkeypatch.setattr(runner_module, "PARTIAL_MIN_MACS",        # more than 2 rows', less than 40's
                        block_macs(inputs.config.replace(causal=False), 20, 41))
    runner = Runner()
    seen, done = [], []
    runner.partial.connect(lambda r: (seen.append(r.request_id), runner.partial_shown()))
    runner.finished.connect(done.append)
    with qtbot.waitSignal(runner.finished, timeout=30_000):
        runner.submit(1, inputs, early_layer=0)
    longer = Inputs(config=inputs.config, tokens=inputs.tokens + (5,), preset="", seed=3, weights="random",
                    backend="cpu")
    with qtbot.waitSignal(runner.finished, timeout=30_000):
        runner.submit(2, longer, early_layer=0, reuse=done[-1].trace)
    runner.shutdown()
    assert seen == [1] and done[-1].trace.reused_rows == 40


def test_a_newer_request_releases_a_worker_waiting_for_the_paint(qtbot, early_always, monkeypatch):
    monkeypatch.setattr(runner_module, "PARTIAL_WAIT_S", 60.0)   # nobody paints: only submit frees it
    runner = Runner()
    partials, failed, finished = [], [], []
    runner.partial.connect(partials.append)
    runner.failed.connect(lambda rid, text, cancelled: failed.append((rid, cancelled)))
    runner.finished.connect(finished.append)
    with qtbot.waitSignal(runner.partial, timeout=30_000):
        runner.submit(1, _inputs(), early_layer=0)
    t0 = time.perf_counter()
    with qtbot.waitSignal(runner.finished, timeout=30_000):
        runner.submit(2, _inputs(T=30))
    runner.shutdown()
    assert time.perf_counter() - t0 < 10
    assert failed == [(1, True)] and [r.request_id for r in finished] == [2]


def _count_draws(station):
    calls = []
    original = station.draw

    def draw(result, sel, data):
        calls.append(result)
        return original(result, sel, data)

    station.draw = draw
    return calls


def _settle(qtbot, win):
    qtbot.waitUntil(lambda: not win.state.busy, timeout=30_000)
    qtbot.wait(50)


def test_the_window_draws_an_early_result_once_and_keeps_it(qtbot, window, early_always):
    win, s = window, window.state
    assert s.inputs.config.n_layers == 2                        # the toy model
    s.select(layer=1, station="scores")
    qtbot.waitUntil(win.stations["scores"].isVisible, timeout=5000)
    station = win.stations["scores"]
    draws = _count_draws(station)
    rendered = []
    win.rendered.connect(rendered.append)
    wait_render(qtbot, win, lambda: s.move_token(0, 3))
    early = station.result
    assert not early.trace.complete                            # painted before the pass was done
    _settle(qtbot, win)
    assert station.result is s.result and s.result.trace.complete
    assert s.result.request_id == early.request_id
    assert len(draws) == 1 and len(rendered) == 1               # drawn once, `rendered` once
    assert station.pattern.values is not None
    np.testing.assert_array_equal(station.pattern.values, s.result.trace["pattern", 1][s.selection.head])
    assert win.status_times.text().startswith("compute ")
    # The MLP station needs the whole pass: it never gets an early result.
    s.select(station="mlp")
    qtbot.waitUntil(win.stations["mlp"].isVisible, timeout=5000)
    mlp_draws = _count_draws(win.stations["mlp"])
    early_seen = []
    s.partialResult.connect(early_seen.append)
    wait_render(qtbot, win, lambda: s.move_token(0, 3))
    _settle(qtbot, win)
    assert early_seen == [] and len(mlp_draws) == 1


def test_cancel_after_an_early_result_brings_back_the_view_of_the_inputs_shown(qtbot, window, early_always):
    win, s = window, window.state
    before = s.result
    station = win.stations["scores"]
    gate = threading.Event()
    early = s.runner._early

    def held(*args):                                           # the worker stops after the early result
        early(*args)
        gate.wait(30)

    s.runner._early = held
    try:
        wait_render(qtbot, win, lambda: s.move_token(0, 3))
        assert not station.result.trace.complete and s.busy
        s.cancel()
    finally:
        gate.set()
    _settle(qtbot, win)
    assert s.result is before and s.inputs == before.inputs    # the edit is undone, the old result kept
    assert station.result is before
    np.testing.assert_array_equal(station.pattern.values,
                                  before.trace["pattern", s.selection.layer][s.selection.head])
    assert win.status_times.text().startswith("compute ")


def test_undo_back_to_a_result_whose_early_part_was_drawn_still_renders(qtbot, window, early_always):
    win, s = window, window.state
    s.select(layer=1, station="scores")
    qtbot.waitUntil(win.stations["scores"].isVisible, timeout=5000)
    wait_render(qtbot, win, lambda: s.move_token(0, 3))          # drawn early, then completed
    _settle(qtbot, win)
    shown = s.result
    gate = threading.Event()
    s.runner._early = lambda *args: gate.wait(30)              # the next pass stalls at its early point
    try:
        s.move_token(1, 4)
        qtbot.waitUntil(lambda: s.busy, timeout=5000)
        with qtbot.waitSignal(win.rendered, timeout=10_000):    # undo shows the result on screen again
            s.undo_stack.undo()
    finally:
        gate.set()
    _settle(qtbot, win)
    assert s.result.inputs == s.inputs
    assert win.stations["scores"].result is s.result or win.stations["scores"].result is shown


def test_a_state_without_a_window_asks_for_no_early_results(qtbot, early_always):
    from app.state import LabState

    s = LabState()
    seen = []
    s.partialResult.connect(seen.append)
    with qtbot.waitSignal(s.resultChanged, timeout=30_000):
        s.start()
    s.runner.shutdown()
    assert seen == [] and not s.early_results
