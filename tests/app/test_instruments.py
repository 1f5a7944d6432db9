"""Each teaching instrument driven through its widget, its numbers checked independently."""
from __future__ import annotations

import html

import numpy as np
import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtTest import QTest

from compute import forward

from .conftest import wait_render


def _station(qtbot, win, key):
    win.state.select(station=key)
    page = win.pages[key]
    qtbot.waitUntil(page.isVisible, timeout=5000)
    if hasattr(page, "_refresh"):
        page._refresh()
    return page


def _click_cell(station, mp, i, j):
    scene = mp.plot.getViewBox().mapViewToScene(QPointF(j, i))
    QTest.mouseClick(station.canvas.viewport(), Qt.MouseButton.LeftButton, pos=station.canvas.mapFromScene(scene))


def _reference(win, **changes):
    inputs = win.state.inputs
    cfg = inputs.config.replace(**changes) if changes else inputs.config
    return forward(cfg, win.state.result.weights, inputs.tokens, backend="reference")


def test_clicking_q_explains_the_cell_and_lights_its_pairs(qtbot, window):
    win = window
    proj = _station(qtbot, win, "projections")
    _click_cell(proj, proj.q, 4, 2)
    qtbot.waitUntil(lambda: win.state.selection.trace == ("q", 4, 2), timeout=5000)
    panel = win.trace_panel
    assert win.tabs.currentWidget() is panel
    dot = panel.dot
    ref = _reference(win)
    L, h = win.state.selection.layer, win.state.selection.head
    W_Q = win.state.result.weights[f"blocks.{L}.attn.W_Q"][h].astype(np.float64)
    np.testing.assert_allclose(dot.products, ref["ln1_out", L][4] * W_Q[:, 2], atol=1e-6)   # independent
    assert dot.total == pytest.approx(ref["q", L][4, h, 2], abs=1e-5)
    assert panel.table.rowCount() == 8 and "✓ the same" in panel.summary.text()
    proj._refresh()
    assert proj.x._bands["row"].isVisible() and proj.x._bands["row"].rect().y() == 3.5     # ln1_out row 4
    assert proj.wq._bands["col"].isVisible() and proj.wq._bands["col"].rect().x() == 1.5   # W_Q column 2
    assert not proj.wk._bands["col"].isVisible()
    panel.cleared.emit()
    assert win.state.selection.trace is None and panel.table.rowCount() == 0


def test_clicking_a_score_traces_it_to_its_probability(qtbot, window):
    win = window
    scores = _station(qtbot, win, "scores")
    _click_cell(scores, scores.pattern, 5, 1)
    qtbot.waitUntil(lambda: win.state.selection.trace == ("attn_scores", 5, 1), timeout=5000)
    dot = win.trace_panel.dot
    ref = _reference(win)
    h = win.state.selection.head
    assert dot.total == pytest.approx(ref["attn_scores_raw", 0][h, 5, 1], abs=1e-5)
    assert dot.scaled == pytest.approx(ref["attn_scores_raw", 0][h, 5, 1] / 2, abs=1e-5)
    assert dot.probability == pytest.approx(ref["pattern", 0][h, 5, 1], abs=1e-6)
    assert "allowed by the mask" in win.trace_panel.summary.text()
    win.state.select(trace=("attn_scores", 1, 5))
    assert "forbidden" in win.trace_panel.summary.text() and win.trace_panel.dot.probability == 0.0


def test_code_view_shows_the_line_that_scales(qtbot, window):
    win = window
    _station(qtbot, win, "scores")
    win.tabs.setCurrentWidget(win.code_view)
    code = win.code_view
    # It opens on the reference function (reads like the equations), coloured, lines unwrapped,
    # in the dock as it is.
    assert "attn_scores_raw * scale" in code.key_line_text and "reference.py" in code.where.text()
    doc = code.text.document()
    colours = {r.format.foreground().color().name() for n in range(doc.blockCount())
               for r in doc.findBlockByNumber(n).layout().formats()}
    assert {"#7b1fa2", "#6a737d"} <= colours                                       # keywords, comments
    assert code.text.lineWrapMode() == code.text.LineWrapMode.NoWrap
    assert code.text.font().pointSizeF() >= 11
    # The dock keeps the width it had on every tab (the station is not squeezed: test_presentation);
    # the code view's pop-out button gives it a window of its own.
    code.which.setCurrentText("backend in use")
    code.which.activated.emit(code.which.currentIndex())
    assert "* scale" in code.key_line_text and "cpu_kernels.py" in code.where.text()
    code.which.setCurrentText("cuda")
    code.which.activated.emit(code.which.currentIndex())
    assert "raw * scale" in code.key_line_text and "products.py" in code.where.text()
    _station(qtbot, win, "tiled_softmax")                      # an instrument page: its own code, not an empty pane
    assert "tiled_softmax.py" in code.where.text() and code.key_line_text.strip()
    assert "def tiled_attention(" in code.text.toPlainText()
    win.state.select(station="mlp")
    code.which.setCurrentText("backend in use")
    code.which.activated.emit(code.which.currentIndex())
    assert "tanh_u" in code.key_line_text and "cpu_kernels.py" in code.where.text()   # the tanh GELU that ran


def test_head_lens_shows_two_heads_and_their_difference(qtbot, window):
    win = window
    lens = _station(qtbot, win, "head_lens")
    spins = lens.spins
    spins[0].setValue(1)
    spins[1].setValue(0)
    spins[2].setValue(0)
    spins[3].setValue(1)
    assert win.state.selection.lens == ((1, 0), (0, 1))
    lens._refresh()
    ref = _reference(win)
    np.testing.assert_allclose(lens.rows["pattern"][0].values, ref["pattern", 1][0], atol=1e-6)
    np.testing.assert_allclose(lens.rows["k"][1].values, ref["k", 0][:, 1], atol=1e-5)
    np.testing.assert_allclose(lens.rows["result"][2].values, ref["result", 1][:, 0] - ref["result", 0][:, 1],
                               atol=1e-5)
    a, b, _ = lens.rows["v"]
    assert a.levels == b.levels                                       # one colour scale for A and B


def test_sqrt_dk_lab_measures_sqrt_dk(qtbot, window):
    win = window
    lab = _station(qtbot, win, "sqrt_dk")
    lab.slider.setValue(lab.stops.index(64))
    qtbot.waitUntil(lambda: lab.numbers is not None and lab.numbers.spread.d_k == 64, timeout=60_000)
    n = lab.numbers
    assert len(n.spread.raw) == 20_000
    assert abs(n.spread.std_raw - 8.0) / 8.0 < 0.05 and abs(n.spread.std_scaled - 1.0) < 0.05
    # The two histograms on one x scale: the scaled one is about 8 times narrower there.
    raw_x, scaled_x = lab.hist_raw.getViewBox().viewRange()[0], lab.hist_scaled.getViewBox().viewRange()[0]
    assert np.allclose(raw_x, scaled_x) and raw_x[1] - raw_x[0] > 40
    lab.slider.setValue(lab.stops.index(4096))
    qtbot.waitUntil(lambda: lab.numbers.spread.d_k == 4096, timeout=60_000)
    g = lab.numbers.grads
    assert abs(lab.numbers.spread.std_raw - 64) / 64 < 0.05
    assert g.stalled_raw > 0.5 and g.grad_scores_raw < 0.01 * g.grad_scores_scaled
    assert "85%" in lab.text.text() or f"{g.stalled_raw:.0%}" in lab.text.text()


def test_mask_view_compares_with_the_unmasked_run(qtbot, window):
    win = window
    mask = _station(qtbot, win, "mask")
    qtbot.waitUntil(lambda: mask.unmasked is not None, timeout=30_000)
    mask._refresh()
    ref = _reference(win, causal=False)
    L, h = win.state.selection.layer, win.state.selection.head
    np.testing.assert_allclose(mask.without.values, ref["pattern", L][h], atol=1e-5)
    P = ref["pattern", L][h]
    assert f"<b>{np.mean([P[i, i + 1] for i in range(5)]):.1%}</b>" in mask.text.text()
    assert (mask.with_mask.values[np.triu_indices(6, 1)] == 0).all()


def test_kv_cache_view_decodes_with_cached_rows(qtbot, window):
    win = window
    kv = _station(qtbot, win, "kv_cache")
    assert win.controllers["kv_cache"].generation is None and kv.body.currentIndex() == 0        # the empty state ...
    assert "Prefill the prompt" in kv.empty_text.text() and kv.empty_button.isVisible()
    with qtbot.waitSignal(win.controllers["kv_cache"].generationChanged, timeout=10_000):
        kv.empty_button.click()                                                   # ... asks for the prefill
    assert kv.body.currentIndex() == 1 and "q_row" not in kv.widgets              # no query row before a step
    for n in (1, 2):                                       # each step runs off the UI thread
        with qtbot.waitSignal(win.controllers["kv_cache"].generationChanged, timeout=10_000):
            kv.step.click()
        assert len(win.controllers["kv_cache"].generation.steps) == n
    gen = win.controllers["kv_cache"].generation
    assert len(gen.tokens) == 8 and len(gen.steps) == 2
    full = forward(win.state.inputs.config, win.state.result.weights, gen.tokens, backend="reference")
    np.testing.assert_allclose(kv.k.values, full["k", 0][:, 0], atol=1e-9)     # the cache is the real k
    assert kv.k._bands["row"].rect().y() == 6.5                                  # the new row is marked
    assert kv.widgets["q_row"].plot.isVisible() and kv.widgets["p_row"].plot.isVisible()
    assert gen.steps[-1].next_token == int(np.argmax(full["logits"][7]))
    assert f"{gen.macs_saved:,}" in kv.text.text()
    kv.reset.click()
    assert win.controllers["kv_cache"].generation is None


def test_time_controller_plays_through_the_stations_and_stops(qtbot, window):
    win = window
    win.state.select(station="embeddings")
    win._play_timer.setInterval(30)
    seen = []
    win.state.selectionChanged.connect(lambda s: seen.append(s.station))
    win.station_bar.play.setChecked(True)
    qtbot.waitUntil(lambda: not win.station_bar.play.isChecked(), timeout=90_000)   # each station built on first show
    order = [s for i, s in enumerate(seen) if i == 0 or seen[i - 1] != s]
    assert order[-1] == "mlp" and "scores" in order and order.index("scores") < order.index("mlp")
    assert win.station_bar.buttons["mlp"].isChecked()


def test_calibrator_tests_the_prediction_on_an_ab_copy(qtbot, window):
    win = window
    s = win.state
    cal = win.calibrator
    sel = s.selection
    inputs = s.inputs
    before = float(s.result.trace["pattern", sel.layer][sel.head, sel.query].max())
    cal.choose_change("scaling_off")
    cal.set_prediction("sharper", True)
    with qtbot.waitSignal(win.instruments.calibrated, timeout=30_000):
        cal.apply.click()
    assert s.inputs == inputs                                    # the lab is as it was: B is a copy
    assert s.selection.station == "ab" and s.selection.ab == ("scaling_off", None)
    after_ref = forward(inputs.config.replace(scale_scores=False), s.result.weights, inputs.tokens,
                        backend="reference")
    after = float(after_ref["pattern", sel.layer][sel.head, sel.query].max())
    expected_right = after > before
    assert win.instruments.total == 1 and win.instruments.correct == int(expected_right)
    text = cal.outcome.text()
    assert "Measured" in text and any(f"→ {after:.{d}f}" in text for d in range(2, 7))     # B's top weight
    assert f"{win.instruments.correct} of 1" in cal.score.text()
    page = win.stations["ab"]
    qtbot.waitUntil(lambda: page.views is not None and not page.views.waiting, timeout=10_000)
    page._refresh()
    np.testing.assert_allclose(page.widgets["pattern/B"].values, after_ref["pattern", sel.layer][sel.head], atol=1e-5)
    with qtbot.waitSignal(win.rendered, timeout=30_000):
        cal.keep.click()                                         # now the lab's, one undoable step
    assert not s.inputs.config.scale_scores and s.selection.ab is None
    s.undo_stack.undo()
    qtbot.waitUntil(lambda: s.inputs.config.scale_scores and not s.busy, timeout=10_000)
    # a key question after switching heads, checked against the reference
    cal.choose_change("switch_head")
    cal.set_prediction("top_key", 0)
    with qtbot.waitSignal(win.instruments.calibrated, timeout=10_000):
        cal.apply.click()
    ref = forward(s.inputs.config, s.result.weights, s.inputs.tokens, backend="reference")
    top = int(np.argmax(ref["pattern", s.selection.layer][(sel.head + 1) % 2, s.selection.query]))
    assert win.instruments.total == 2 and (f"key {top} " in cal.outcome.text())


def test_a_failed_experiment_is_not_scored(qtbot, window, monkeypatch):
    ins = window.instruments
    window.calibrator.choose_change("d_head_x4")
    window.calibrator.set_prediction("sharper", True)
    monkeypatch.setenv("QKV_LAB_MEMORY_BUDGET_GIB", "0.000001")          # B cannot fit: refused, not run
    with qtbot.waitSignal(ins.calibrated, timeout=30_000):
        window.calibrator.apply.click()
    assert ins.total == 0 and "could not be computed" in window.calibrator.outcome.text()
    assert not window.calibrator.keep.isEnabled()
    assert "B cannot be computed" in window.stations["ab"].text.text()


def test_sqrt_lab_shows_only_the_d_k_asked_for_last(qtbot, window):
    s, lab_page = window.state, window.controllers["sqrt_dk"]
    lab = window.pages["sqrt_dk"]
    s.select(station="sqrt_dk")
    shown = []
    lab_page.delivered.connect(lambda n: shown.append(n.spread.d_k))
    for d_k in (4096, 2048, 16):
        s.select(d_k=d_k)
    qtbot.waitUntil(lambda: 16 in shown, timeout=60_000)
    qtbot.wait(300)
    assert shown[-1] == 16 and lab.numbers.spread.d_k == 16


def test_kv_cache_resets_when_the_weights_change(qtbot, window):
    s, ins = window.state, window.controllers["kv_cache"]
    s.select(station="kv_cache")
    with qtbot.waitSignal(ins.generationChanged, timeout=10_000):
        window.pages["kv_cache"].prefill.click()
    wait_render(qtbot, window, lambda: s.set_seed(5))
    assert ins.generation is None or ins.generation_weights is s.result.weights


def test_kv_cache_of_grouped_heads_and_a_window(qtbot, window):
    """GQA: the K/V head the query head reads, its bytes beside multi-head attention's; a window: a
    ring of its last W rows, each the real rot_k / v of its position."""
    from compute.instruments import kvcache

    win, s = window, window.state
    cfg = s.inputs.config.replace(n_heads=4, d_head=2, n_kv_heads=2, positions="rope", norm="rmsnorm",
                                  windows=(None, 3))
    wait_render(qtbot, win, lambda: s.edit("family", config=cfg, weights="random", preset="custom"))
    s.select(layer=1, head=3)                              # query head 3 reads K/V head 1
    kv = _station(qtbot, win, "kv_cache")
    kv.empty_button.click()                                # the page opens empty: prefill the prompt
    qtbot.waitUntil(lambda: win.controllers["kv_cache"].generation is not None, timeout=10_000)
    for _ in range(2):
        with qtbot.waitSignal(win.controllers["kv_cache"].generationChanged, timeout=10_000):
            kv.step.click()
    gen = win.controllers["kv_cache"].generation
    full = forward(cfg, s.result.weights, gen.tokens, backend="reference")
    T = len(gen.tokens)
    np.testing.assert_allclose(kv.k.values, full["rot_k", 1][T - 3:, 1], atol=1e-9)   # the ring: last 3 rows
    np.testing.assert_allclose(kv.v.values, full["v", 1][T - 3:, 1], atol=1e-9)
    assert kv.k.row_labels == list(s.labels(gen.tokens)[T - 3:])
    assert "K/V head 1" in kv.k.name and "shared by query heads 2–3" in kv.text.text()
    assert "ring of its last 3 rows" in kv.text.text() and "rot_q (after RoPE) of head 3" in kv.widgets["q_row"].name
    size = kvcache.cache_size(cfg)
    assert size.ratio_per_token > 1 and html.escape(size.describe()) in kv.text.text()
    s.select(layer=0)                                       # a dense layer keeps every row
    np.testing.assert_allclose(kv.k.values, full["rot_k", 0][:, 1], atol=1e-9)


def test_predict_says_unchanged_on_a_one_hot_row(qtbot, window):
    """Query 0 sees only key 0: its row is one-hot, and no change of scaling can sharpen it."""
    s, cal, ins = window.state, window.calibrator, window.instruments
    s.select(query=0)
    cal.choose_change("scaling_off")
    cal.set_prediction("sharper", True)
    with qtbot.waitSignal(ins.calibrated, timeout=30_000):
        cal.apply.click()
    text = cal.outcome.text()
    assert "unchanged (already one-hot)" in text and "1.000" in text
    assert "sharper" not in text.split("Measured:")[1] and "not this time" in text     # "yes, sharper" is wrong


def test_predict_shows_enough_decimals_to_see_the_change():
    from app.instruments import sharpening
    from compute.instruments.explain import RowSummary

    text, sharper = sharpening(RowSummary(0, 0.9951, 0.031), RowSummary(0, 0.9983, 0.012))
    assert sharper and "0.995 → 0.998" in text and "sharper" in text        # not "1.00 → 1.00"
    text, sharper = sharpening(RowSummary(0, 0.50001, 0.7), RowSummary(0, 0.50002, 0.7))
    assert not sharper and "unchanged" in text and "one-hot" not in text


def test_predict_moves_off_a_one_hot_query(qtbot, window):
    s, win = window.state, window
    s.select(query=0)
    win.tabs.setCurrentWidget(win.calibrator)
    q = s.selection.query
    assert q != 0 and s.result.trace["pattern", s.selection.layer][s.selection.head, q].max() < 0.999
    assert "already one-hot" in win.calibrator.reason.text() and win.calibrator.reason.isVisibleTo(win.calibrator)
