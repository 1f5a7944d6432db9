"""The activation-patching page from the window's side: the run goes off the UI thread and its cells fill
in batch by batch, each equal to the one patch done by itself in the float64 reference; Stop stops it;
the two prompts and the metric are an undoable step kept in sessions; a head's cell opens that head."""
from __future__ import annotations

import json

import numpy as np
import pytest
from PySide6.QtCore import QCoreApplication

import app.pages.patching as patching_page
from app.pages import controller_for
from app.runner import SyncRunner
from app.session import SessionError, parse_session, session_dict
from app.state import LabState
from app.values import make_weights
from compute import Patch, forward
from compute.instruments.patching import PatchSetup
from widgets.pages import page_views
from widgets.pages.patching import run_of


@pytest.fixture
def state(qapp):
    s = LabState(runner=SyncRunner())
    s.said = []
    s.message.connect(lambda level, text: s.said.append((level, text)))
    s.start()
    return s


def _run(qtbot, state, ctrl, **select):
    runs = []
    ctrl.delivered.connect(runs.append)
    state.select(station="patching", **select)
    qtbot.waitUntil(lambda: bool(runs) and (runs[-1].finished or runs[-1].stopped), timeout=30_000)
    return runs


def test_cells_fill_in_and_each_equals_its_single_patch_in_the_float64_reference(qtbot, state):
    ctrl = controller_for("patching", state)
    runs = _run(qtbot, state, ctrl)
    setup = state.selection.patching                  # the default: the window's sentence, one token swapped
    assert setup is not None and len(setup.clean) == len(setup.corrupted)
    assert sum(a != b for a, b in zip(setup.clean, setup.corrupted, strict=True)) == 1
    assert len(runs) > 2 and np.isnan(runs[0].run.heads).all() and not runs[0].finished   # cells filled in
    assert [r.done for r in runs] == sorted(r.done for r in runs)
    last = runs[-1]
    assert last.finished and last.done == last.total and not np.isnan(last.run.heads).any()
    cfg, w = state.inputs.config, make_weights(state.inputs)
    clean = forward(cfg, w, list(setup.clean), "reference")
    m = last.run.metric
    assert m.answer == int(np.argmax(clean["logits"][-1]))                       # picked from the prediction
    for layer in range(cfg.n_layers):
        for head in range(cfg.n_heads):
            one = forward(cfg, w, list(setup.corrupted), "reference",
                          interventions=[Patch("z", layer, clean, head=head)])
            assert last.run.heads[layer, head] == pytest.approx(last.run.restored(m(one)), abs=1e-4)
        for p in range(len(setup.clean)):
            one = forward(cfg, w, list(setup.corrupted), "reference",
                          interventions=[Patch("resid_pre", layer, clean, positions=[p])])
            assert last.run.positions[layer, p] == pytest.approx(last.run.restored(m(one)), abs=1e-4)
    assert run_of(state.result, setup) is last                   # the figure draws the run on screen, not a new one
    views = page_views("patching", state.result, state.selection, last)
    assert "All 16 cells" in views.text and not views.waiting
    np.testing.assert_array_equal(views.data()["patch_heads"], last.run.heads)


def test_stop_stops_the_run_and_patch_runs_it_again(qtbot, state, monkeypatch):
    ctrl = controller_for("patching", state)
    real = patching_page.run_setup

    def stopping(cfg, w, setup, backend, on_run, cancelled):
        def seen(run):
            on_run(run)
            if run.done >= cfg.n_heads:
                ctrl.cancel()                     # Stop pressed after layer 0's heads
        return real(cfg, w, setup, backend, on_run=seen, cancelled=cancelled)
    monkeypatch.setattr(patching_page, "run_setup", stopping)
    runs = _run(qtbot, state, ctrl)
    last = runs[-1]
    assert last.stopped and not last.finished and last.done == state.inputs.config.n_heads
    assert "Stopped after 2 of 16 cells" in page_views("patching", state.result, state.selection, last).text
    monkeypatch.setattr(patching_page, "run_setup", real)
    texts = [" ".join(state.labels(p)) for p in (last.setup.clean, last.setup.corrupted)]
    assert ctrl.run_texts(*texts)                 # the same prompts again: a fresh run
    qtbot.waitUntil(lambda: ctrl.extra.finished, timeout=30_000)
    assert not ctrl._stop.is_set()
    QCoreApplication.instance().aboutToQuit.emit()  # quitting stops a run in flight (main.py waits for threads)
    assert ctrl._stop.is_set()


def test_prompts_and_metric_are_an_undoable_step_kept_in_sessions(qtbot, state):
    ctrl = controller_for("patching", state)
    _run(qtbot, state, ctrl)
    first = state.selection.patching
    assert ctrl.run_texts("the cat sat on the mat", "the dog sat on the mat")
    chosen = state.selection.patching
    assert chosen != first and chosen.answer is None
    assert ctrl.choose_metric(3, 5) and state.selection.patching.answer == 3
    qtbot.waitUntil(lambda: ctrl.extra.finished and ctrl.extra.setup.answer == 3, timeout=30_000)
    assert (ctrl.extra.run.metric.answer, ctrl.extra.run.metric.wrong) == (3, 5)
    data = session_dict(state.inputs, state.selection)
    assert data["patching"] == {"clean": list(chosen.clean), "corrupted": list(chosen.corrupted),
                                "answer": 3, "wrong": 5}
    back = parse_session(json.dumps(data))
    assert back.selection["patching"] == PatchSetup(chosen.clean, chosen.corrupted, 3, 5)
    state.undo_stack.undo()
    assert state.selection.patching == chosen
    state.undo_stack.undo()
    assert state.selection.patching == first
    del data["patching"]                                          # an older session: no run, still opens
    assert "patching" not in parse_session(json.dumps(data)).selection
    for bad, match in (({"clean": [1, 2], "corrupted": [1]}, "equal length"), ([1], "must be an object"),
                       ({"clean": [1, 2], "corrupted": [1, 99999]}, "99999"),
                       ({"clean": [1], "corrupted": [2], "answer": "x"}, "whole number")):
        data["patching"] = bad
        with pytest.raises(SessionError, match=match):
            parse_session(json.dumps(data))
    assert not ctrl.run_texts("the cat", "the cat sat")           # a clear message, nothing changes
    assert "equal length" in state.said[-1][1] and state.selection.patching == first
    state.select(station="scores")                                # (shown, the page would start its default at once)
    other = "random" if state.inputs.weights != "random" else "trained"
    assert state.set_weights(other)                               # other words: the prompts' ids mean other words
    assert state.selection.patching is None


def test_a_click_on_a_heads_cell_opens_that_head(qtbot, window):
    win = window
    win.state.select(station="patching")
    page = win.stations["patching"]
    qtbot.waitUntil(page.isVisible, timeout=5000)
    qtbot.waitUntil(lambda: page.extra is not None and page.extra.finished and "patch_heads" in page.widgets,
                    timeout=60_000)
    assert page.progress.value() == page.extra.total and not page.stop.isEnabled()
    assert page.clean.text() and page.answer.count() >= 1
    page._on_click(page.widgets["patch_heads"], (1, 0), None)
    assert (win.state.selection.station, win.state.selection.layer, win.state.selection.head) == ("scores", 1, 0)
