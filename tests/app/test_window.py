"""The lab window driven through its real widgets, offscreen."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QPointF, Qt, QTimer
from PySide6.QtGui import QColor, QDrag, QDropEvent
from PySide6.QtTest import QTest

from app.state import STATIONS
from app.values import make_weights
from compute import Weights, forward

from .conftest import settle, wait_render

ROOT = Path(__file__).resolve().parents[2]


def _show_station(qtbot, win, key):
    win.state.select(station=key)
    station = win.stations[key]
    qtbot.waitUntil(station.isVisible, timeout=5000)
    station._refresh()
    return station


def _expected_content(win, key):
    """What a station should show, recomputed from scratch with the reference backend."""
    s = win.state
    cfg, inputs = s.inputs.config, s.inputs
    weights = make_weights(inputs)                         # independently of the runner's cache
    ref = forward(cfg, weights, inputs.tokens, backend="reference")
    fake = type(s.result)(request_id=0, inputs=inputs, trace=ref, weights=s.result.weights,
                          labels=s.result.labels, compute_ms=0.0, token_label=s.result.token_label)
    return win.stations[key].content(fake, s.selection)


def _assert_station_matches_reference(qtbot, win, key):
    station = _show_station(qtbot, win, key)
    shown = station.content(win.state.result, win.state.selection)
    expected = _expected_content(win, key)
    assert shown.keys() == expected.keys()
    for name in shown:
        a, b = np.asarray(shown[name], np.float64), np.asarray(expected[name], np.float64)
        assert a.shape == b.shape, (key, name)
        fin = np.isfinite(b)
        assert np.array_equal(fin, np.isfinite(a)), (key, name)
        assert np.allclose(a[fin], b[fin], atol=1e-4), (key, name)
    for mp in station.plots:                         # and what is drawn is what content() gave
        assert mp.values is not None


def test_every_station_shows_the_reference_numbers(qtbot, window):
    for key in STATIONS:
        _assert_station_matches_reference(qtbot, window, key)
    scores = window.stations["scores"]
    np.testing.assert_allclose(scores.pattern.values, window.state.result.trace["pattern", 0][0])
    assert scores.raw.row_labels == ["the", "cat", "sat", "on", "the", "mat"]


def test_drag_a_chip_reorders_tokens_and_every_view(qtbot, window, monkeypatch):
    win = window
    row = win.tokens.row
    qtbot.waitUntil(lambda: row.chips and row.chips[-1].geometry().right() > 0)
    source, target = row.chips[1], row.chips[4]           # drag "cat" past the second "the"

    def fake_exec(drag, *args):
        # Qt's drag loop cannot run offscreen: deliver the drop the user would make, to the real row.
        pos = QPointF(target.geometry().center().x() + 2, target.geometry().center().y())
        event = QDropEvent(pos, Qt.DropAction.MoveAction, drag.mimeData(), Qt.MouseButton.LeftButton,
                           Qt.KeyboardModifier.NoModifier)
        row.dropEvent(event)
        return Qt.DropAction.MoveAction

    monkeypatch.setattr(QDrag, "exec", fake_exec)
    centre = source.rect().center()
    with qtbot.waitSignal(win.rendered, timeout=30_000):
        QTest.mousePress(source, Qt.MouseButton.LeftButton, pos=centre)
        QTest.mouseMove(source, centre + QPoint(30, 0))
    assert win.state.labels() == ("the", "sat", "on", "the", "cat", "mat")
    assert list(win.state.result.trace["tokens"]) == [0, 2, 3, 0, 1, 4]
    assert [c.text() for c in win.tokens.row.chips] == ["the", "sat", "on", "the", "cat", "mat"]
    for key in STATIONS:
        _assert_station_matches_reference(qtbot, win, key)
    assert win.stations["scores"].pattern.col_labels == ["the", "sat", "on", "the", "cat", "mat"]
    assert win.undo_action.text() == "Undo Move “cat” to position 4"


def _drop_chip(monkeypatch, row, src, dst):
    """Drag chip `src` onto chip `dst` (Qt's drag loop cannot run offscreen: the drop the user would
    make goes to the real row)."""
    source, target = row.chips[src], row.chips[dst]

    def fake_exec(drag, *args):
        pos = QPointF(target.geometry().center().x() + 2, target.geometry().center().y())
        row.dropEvent(QDropEvent(pos, Qt.DropAction.MoveAction, drag.mimeData(), Qt.MouseButton.LeftButton,
                                 Qt.KeyboardModifier.NoModifier))
        return Qt.DropAction.MoveAction

    monkeypatch.setattr(QDrag, "exec", fake_exec)
    centre = source.rect().center()
    QTest.mousePress(source, Qt.MouseButton.LeftButton, pos=centre)
    QTest.mouseMove(source, centre + QPoint(30, 0))


def test_typing_and_dragging_at_the_end_recompute_only_the_tail(qtbot, window, monkeypatch):
    """Typing a word, dragging within the tail, replacing and deleting the last token: each pass
    reuses the rows before the edit (the status bar says which it computed), and every station
    shows the numbers of a fresh compute of the new tokens."""
    win = window
    row = win.tokens.row
    qtbot.waitUntil(lambda: row.chips and row.chips[-1].geometry().right() > 0)
    win.tokens.edit.clear()
    QTest.keyClicks(win.tokens.edit, "the cat sat on the mat and the")
    with qtbot.waitSignal(win.rendered, timeout=30_000):
        QTest.keyClick(win.tokens.edit, Qt.Key.Key_Return)
    assert win.state.labels() == ("the", "cat", "sat", "on", "the", "mat", "and", "the")
    assert win.state.result.trace.reused_rows == 6
    assert "recomputed rows 6..7" in win.status_times.text()
    for key in STATIONS:
        _assert_station_matches_reference(qtbot, win, key)

    qtbot.waitUntil(lambda: len(row.chips) == 8 and row.chips[-1].geometry().right() > 0)
    with qtbot.waitSignal(win.rendered, timeout=30_000):
        _drop_chip(monkeypatch, row, 5, 7)                           # "mat" to the end
    assert win.state.labels() == ("the", "cat", "sat", "on", "the", "and", "the", "mat")
    assert win.state.result.trace.reused_rows == 5
    assert "recomputed rows 5..7" in win.status_times.text()
    for key in STATIONS:
        _assert_station_matches_reference(qtbot, win, key)

    wait_render(qtbot, win, lambda: win.tokens.replaceRequested.emit(7, 1))    # the chip menu's "cat"
    assert win.state.labels()[-1] == "cat" and win.state.result.trace.reused_rows == 7
    assert "recomputed rows 7..7" in win.status_times.text()
    wait_render(qtbot, win, lambda: win.tokens.removeRequested.emit(7))
    assert win.state.result.trace.T == 7 and win.state.result.trace.reused_rows == 7
    assert "no row recomputed" in win.status_times.text()
    for key in STATIONS:
        _assert_station_matches_reference(qtbot, win, key)


def test_changing_d_head_changes_projection_and_score_views(qtbot, window):
    win = window
    proj = _show_station(qtbot, win, "projections")
    assert proj.wq.values.shape == (8, 4)
    wait_render(qtbot, win, lambda: win.controls.d_head.setValue(6))
    proj._refresh()
    assert win.state.inputs.config.d_head == 6
    assert proj.wq.values.shape == (8, 6) and proj.q.values.shape == (6, 6)
    assert win.state.result.weights["blocks.0.attn.W_Q"].shape == (2, 8, 6)
    scores = _show_station(qtbot, win, "scores")
    assert scores.raw.values.shape == (6, 6)
    assert "√6" in scores.scaled.name
    heads = _show_station(qtbot, win, "heads")
    assert heads.zc.values.shape == (6, 12) and heads.wo.values.shape == (12, 8)
    _assert_station_matches_reference(qtbot, win, "projections")


def test_slider_drag_is_one_undo_step(qtbot, window):
    win = window
    slider = win.controls.d_head_slider
    slider.setSliderDown(True)
    for v in (5, 6, 7, 8):
        slider.setValue(v)
    slider.setSliderDown(False)
    qtbot.waitUntil(lambda: win.state.result.inputs.config.d_head == 8, timeout=30_000)
    assert win.state.undo_stack.count() == 1
    wait_render(qtbot, win, win.undo_action.trigger)
    assert win.state.inputs.config.d_head == 4 and win.controls.d_head.value() == 4


def _cell_scene_pos(mp, i, j):
    return mp.plot.getViewBox().mapViewToScene(QPointF(j, i))


def test_hover_and_click_link_every_view(qtbot, window):
    win = window
    scores = _show_station(qtbot, win, "scores")
    scene_pos = _cell_scene_pos(scores.pattern, 4, 2)
    view_pos = scores.canvas.mapFromScene(scene_pos)
    QTest.mouseMove(scores.canvas.viewport(), view_pos)
    qtbot.waitUntil(lambda: win.state.selection.hover == (4, 2), timeout=5000)
    for mp in scores.plots:                               # every T×T view: row 4 and column 2
        assert mp._bands["row"].isVisible() and mp._bands["row"].rect().y() == 3.5
        assert mp._bands["col"].isVisible() and mp._bands["col"].rect().x() == 1.5
    # A station change drops the hover (the mouse was on another canvas; it would freeze the
    # query's outline there): the same hover shown in the other stations' views.
    proj = _show_station(qtbot, win, "projections")
    assert win.state.selection.hover is None
    win.state.select(hover=(4, 2))
    assert proj.q._bands["row"].rect().y() == 3.5 and proj.q._bands["row"].isVisible()     # q_i
    assert proj.k._bands["row"].rect().y() == 1.5 and proj.k._bands["row"].isVisible()     # k_j
    ws = _show_station(qtbot, win, "weighted_sum")
    win.state.select(hover=(4, 2))
    assert ws.v._bands["row"].rect().y() == 1.5 and ws.v._bands["row"].isVisible()         # v_j
    # a click selects the query: the token strip, the softmax row and the weighted sum follow
    win.state.select(hover=None, station="scores")
    scores._refresh()
    scene_pos = _cell_scene_pos(scores.raw, 3, 1)
    QTest.mouseClick(scores.canvas.viewport(), Qt.MouseButton.LeftButton, pos=scores.canvas.mapFromScene(scene_pos))
    qtbot.waitUntil(lambda: win.state.selection.query == 3 and win.state.selection.key == 1, timeout=5000)
    assert win.tokens.row.chips[3].isChecked()
    soft = _show_station(qtbot, win, "softmax")
    np.testing.assert_allclose(soft.content(win.state.result, win.state.selection)["pattern"][0],
                               win.state.result.trace["pattern", 0][0, 3])
    # switching head switches everything head-dependent
    win.controls.head.setValue(1)
    assert win.state.selection.head == 1
    scores = _show_station(qtbot, win, "scores")
    np.testing.assert_allclose(scores.raw.values, win.state.result.trace["attn_scores_raw", 0][1])


def test_undo_and_redo_restore_inputs_and_views(qtbot, window):
    win = window
    s = win.state
    first = s.inputs
    wait_render(qtbot, win, lambda: s.move_token(0, 2))
    wait_render(qtbot, win, lambda: win.controls.seed.setValue(7))
    wait_render(qtbot, win, lambda: s.set_text("a dog ran to the red hat"))
    assert s.undo_stack.count() == 3
    assert win.undo_action.text().startswith("Undo Type")
    states = []
    for _ in range(3):
        states.append(s.inputs)
        win.undo_action.trigger()
        qtbot.waitUntil(lambda: not s.busy and s.result.inputs == s.inputs, timeout=30_000)
    assert s.inputs == first
    assert s.result.trace["tokens"].tolist() == list(first.tokens)
    for expected in reversed(states):
        win.redo_action.trigger()
        qtbot.waitUntil(lambda: not s.busy and s.result.inputs == s.inputs, timeout=30_000)
        assert s.inputs == expected
    assert win.controls.seed.value() == 7 and s.labels()[1] == "dog"


def test_bad_values_show_a_message_and_keep_the_last_good_view(qtbot, window):
    win = window
    s = win.state
    before_result, before_inputs = s.result, s.inputs
    win.controls.n_ctx.setValue(3)                        # 6 tokens need n_ctx >= 6
    assert "n_ctx=3 is too small for T=6" in win.messages.text
    assert win.controls.n_ctx.value() == 16 and s.inputs == before_inputs and s.result is before_result
    win.tokens.edit.setText("the zebra sat")
    QTest.keyClick(win.tokens.edit, Qt.Key.Key_Return)
    assert "zebra" in win.messages.text and "the cat sat on mat" in win.messages.text
    assert s.inputs == before_inputs
    win.controls.n_heads.setValue(9)                      # d_head stays 4: fine, new weights
    qtbot.waitUntil(lambda: s.result.inputs.config.n_heads == 9, timeout=30_000)
    assert s.result.weights["blocks.0.attn.W_Q"].shape == (9, 8, 4)


def test_memory_refusal_before_anything_is_allocated(qtbot, window, monkeypatch):
    win = window
    monkeypatch.setenv("QKV_LAB_MEMORY_BUDGET_GIB", "2")
    before = win.state.inputs
    win.controls.preset.setCurrentText("gpt3-175b")
    win.controls.preset.activated.emit(win.controls.preset.currentIndex())
    assert "GiB" in win.messages.text and "memory budget of 2.00 GiB" in win.messages.text
    assert win.state.inputs == before and win.controls.preset.currentText() == "toy"
    assert not win.state.busy


def test_loading_a_preset_restores_its_tokens_and_undo_brings_the_old_ones_back(qtbot, window):
    win = window
    s = win.state
    wait_render(qtbot, win, lambda: s.set_text("a big dog"))
    wait_render(qtbot, win, lambda: s.load_preset("toy"))
    assert s.labels() == ("the", "cat", "sat", "on", "the", "mat")
    wait_render(qtbot, win, win.undo_action.trigger)
    assert s.labels() == ("a", "big", "dog")


def test_rapid_edits_coalesce_and_stale_results_are_dropped(qtbot, window):
    win = window
    s = win.state
    shown = []
    s.resultChanged.connect(lambda r: shown.append(r.inputs.seed))
    for seed in range(1, 21):
        s.set_seed(seed)
    qtbot.waitUntil(lambda: not s.busy and s.result.inputs.seed == 20, timeout=30_000)
    assert shown[-1] == 20 and len(shown) < 20
    assert shown == sorted(shown)                          # never an older result after a newer one
    assert s.inputs.weights == "random"                    # a new seed means random weights
    expected = forward(s.inputs.config, Weights.random(s.inputs.config, 20), s.inputs.tokens, backend="reference")
    np.testing.assert_allclose(s.result.trace["pattern", 1], expected["pattern", 1], atol=1e-5)


def test_the_compute_runs_off_the_ui_thread_which_keeps_handling_events(qtbot, window, monkeypatch):
    """What the UI's responsiveness rests on, without timing it (benchmarks/responsiveness.py
    measures the heartbeat): the pass runs on the runner's thread, and it can wait for the UI
    thread to handle an event in the middle of it; a pass on the UI thread would wait forever."""
    import threading

    import app.runner as runner

    s = window.state
    qtbot.waitUntil(lambda: not s.busy, timeout=30_000)
    seen, handled = [], threading.Event()

    def forward_waiting_for_the_ui(*args, **kwargs):
        seen.append(threading.current_thread())
        QTimer.singleShot(0, window, handled.set)          # runs only when the UI thread handles events
        seen.append(handled.wait(timeout=20))
        return forward(*args, **kwargs)

    monkeypatch.setattr(runner, "forward", forward_waiting_for_the_ui)
    s.set_seed(s.inputs.seed + 1)
    qtbot.waitUntil(lambda: not s.busy and s.result.inputs.seed == s.inputs.seed, timeout=60_000)
    assert len(seen) == 2 and seen[0] is not threading.main_thread(), seen
    assert seen[1], "the UI thread handled no event while the pass ran"


def test_a_large_compute_can_be_cancelled(qtbot, window):
    win = window
    s = win.state
    before = s.inputs
    progress = []
    s.progressChanged.connect(lambda stage, f: progress.append(f))
    s.load_preset("andrea-120m")
    s.set_tokens(list(s.inputs.tokens) * 16)              # T = 1024, 12 layers: seconds of work
    qtbot.waitUntil(lambda: len(progress) > 3, timeout=60_000)
    win.cancel_button.click()
    qtbot.waitUntil(lambda: not s.busy, timeout=30_000)
    assert "cancelled" in win.messages.text.lower()
    # Neither edit ever produced a view: the controls go back to what the views show (the toy),
    # and both steps wait in Redo.
    assert s.inputs == before == s.result.inputs
    assert s.undo_stack.canRedo() and s.undo_stack.index() == 0


def test_cancel_with_a_request_waiting_never_leaves_the_lab_busy(qtbot, window):
    s = window.state
    shown = s.result
    s.set_seed(3)
    s.set_seed(4)                       # one runs, one waits
    s.cancel()
    qtbot.waitUntil(lambda: not s.busy, timeout=30_000)
    assert s.inputs == shown.inputs and s.result is shown


def test_a_failure_after_undo_returns_to_the_state_on_screen_only(qtbot, window, tmp_path):
    from compute import trained_toy_weights

    s = window.state
    path = tmp_path / "w.safetensors"
    trained_toy_weights().save(path)
    wait_render(qtbot, window, lambda: s.set_seed(7))
    wait_render(qtbot, window, lambda: s.set_weights(str(path), "Use a file"))
    wait_render(qtbot, window, lambda: s.set_seed(9))
    assert s.undo_stack.index() == 3
    path.unlink()                                  # the file the previous step needs is gone
    s.registry.clear()
    s.runner._weights.clear()
    with qtbot.waitSignal(s.message, timeout=30_000):
        window.undo_action.trigger()               # back to "Use a file": fails to load
    qtbot.waitUntil(lambda: not s.busy, timeout=30_000)
    assert "file not found" in window.messages.text
    assert s.undo_stack.index() == 3 and s.inputs.seed == 9       # exactly one step, redone
    assert s.inputs == s.result.inputs


def test_main_smoke_starts_draws_and_quits():
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    run = subprocess.run([sys.executable, str(ROOT / "main.py"), "--smoke"], capture_output=True, text=True,
                         timeout=180, env=env, cwd=ROOT)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "smoke: rendered" in run.stdout and "T=6" in run.stdout


def test_main_rejects_unknown_preset():
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    run = subprocess.run([sys.executable, str(ROOT / "main.py"), "--preset", "gpt9", "--smoke"],
                         capture_output=True, text=True, timeout=120, env=env, cwd=ROOT)
    assert run.returncode == 2 and "unknown preset" in run.stderr


def test_the_app_keeps_openblas_to_one_thread(window):
    """The forward pass splits its own products over two threads; OpenBLAS's pool, woken by a
    product on the UI thread, would spin on the cores the next forward needs."""
    from threadpoolctl import threadpool_info

    pools = [i for i in threadpool_info() if i["internal_api"] == "openblas"]
    assert pools and all(i["num_threads"] == 1 for i in pools)


def test_the_tracked_query_stays_on_its_token_when_others_move(qtbot, window):
    s = window.state
    wait_render(qtbot, window, lambda: s.set_tokens([0, 1, 2, 3, 4, 5]))
    s.select(query=3)
    tracked = s.inputs.tokens[3]
    for edit in (lambda: s.insert_token(0, 7), lambda: s.remove_token(1), lambda: s.move_token(0, 4),
                 lambda: s.move_token(5, 0), lambda: s.move_token(s.selection.query, 1)):
        wait_render(qtbot, window, edit)
        assert s.inputs.tokens[s.selection.query] == tracked


# -- the lecture hall: a laptop on a projector (1280×800) and a desktop (1600×1000) -------------------
def _laid_out(qtbot, win, size, present=False):
    """The window at `size` (in presentation mode if asked), every station drawn for it."""
    if present:
        win.file_actions.presentation.enter()
        settle(qtbot, win)                # offscreen, full screen is the (small) virtual screen first
    win.setGeometry(0, 0, *size)
    settle(qtbot, win)
    return win


def _tokens(win, qtbot, n):
    words = "the cat sat on a mat the dog ran to a big red hat and it is the cat saw".split()
    if n > win.state.inputs.config.n_ctx:
        wait_render(qtbot, win, lambda: win.state.set_config(n_ctx=n))
    wait_render(qtbot, win, lambda: win.state.set_text(" ".join((words * 4)[:n])))


@pytest.mark.parametrize("present", [False, True], ids=["window", "presentation"])
@pytest.mark.parametrize("n", [6, 12, 16, 32])
def test_every_token_is_labelled_on_both_axes_at_1280x800(qtbot, window, n, present):
    win = window
    _tokens(win, qtbot, n)
    _laid_out(qtbot, win, (1280, 800), present)
    labels = list(win.state.labels())
    query = win.state.selection.query
    # On a projector the scores beside the pattern are thumbnails (no labels): the pattern takes the room.
    scores = ("pattern",) if present else ("raw", "scaled", "masked", "pattern")
    for key, names in (("scores", scores), ("mask", ("with_mask", "without"))):
        page = _show_station(qtbot, win, key)
        if key == "mask":
            qtbot.waitUntil(lambda p=page: p.unmasked is not None, timeout=30_000)
            page._refresh()
        # Panels beside one with the same rows share its row labels (they line up): they draw none.
        followers = {id(mp) for chain in getattr(page, "_row_chains", ()) for mp in chain[1:]}
        for name in names:
            mp = getattr(page, name)
            left, bottom = mp.plot.getAxis("left"), mp.plot.getAxis("bottom")
            if id(mp) in followers:
                assert not left.drawn_labels(), (key, name)
                assert bottom.drawn_labels() == labels or (present and key == "mask" and n > 16), (key, name)
                continue
            assert [i for i, _t, bold in left.layout_.items if bold] == [query]     # the query, bold
            assert left.layout_.px >= (14 if present else 6)
            if present and key == "mask" and n > 16:
                continue              # two 32 × 32 maps side by side: at 14 px the labels thin out (query kept)
            assert left.drawn_labels() == labels, (key, name)          # the first one (0:the) included
            assert bottom.drawn_labels() == labels, (key, name)
        if key == "scores" and present:
            assert all(not mp.plot.getAxis("left").drawn_labels() for mp in (page.raw, page.scaled, page.masked))


@pytest.mark.parametrize(("size", "present"), [((1280, 800), True), ((1280, 800), False), ((1600, 1000), False)])
def test_t_by_t_cells_are_square(qtbot, window, size, present):
    win = window
    _tokens(win, qtbot, 12)
    _laid_out(qtbot, win, size, present)
    for key in ("scores", "mask", "head_lens"):
        page = _show_station(qtbot, win, key)
        if key == "mask":
            qtbot.waitUntil(lambda p=page: p.unmasked is not None, timeout=30_000)
            page._refresh()
        squares = [mp for mp in page.plots if mp.square]
        assert squares, key
        for mp in squares:
            vb = mp.plot.vb
            (x0, x1), (y0, y1) = vb.viewRange()
            cell_w, cell_h = vb.width() / (x1 - x0), vb.height() / (y1 - y0)
            assert abs(cell_w - cell_h) < 1.0, (key, mp.name, cell_w, cell_h)


@pytest.mark.parametrize(("size", "present"), [((1600, 1000), False), ((1280, 800), True)])
def test_the_toy_shows_numbers_in_every_station(qtbot, window, size, present):
    """The number workbench: every matrix of the toy's sizes (d_model, d_head wide) shows its
    numbers; only the 32-wide MLP hidden layer cannot. Matrices of one shape agree (q, k, v)."""
    win = window
    _laid_out(qtbot, win, size, present)
    for key in STATIONS:
        page = _show_station(qtbot, win, key)
        if key == "softmax":
            assert len(page.labels_items) == win.state.selection.query + 1     # a number over each bar
            continue
        shown = {}
        for mp in page.plots:
            if present and mp.text.number_px:
                assert mp.text.number_px >= 12, (key, mp.name, mp.text.number_px)   # read from the back row
            if present and key == "mlp":
                continue            # on a projector numbers are ≥ 12 px or hidden: the MLP's small ones hide
            if mp.values.shape[1] <= 8:
                assert mp.text.number_px and mp.text.number_px >= 10, (key, mp.name, mp.text.number_px)
            shown.setdefault((mp.values.shape, mp.kind), set()).add(bool(mp.text.number_px))
        assert all(len(v) == 1 for v in shown.values()), (key, shown)      # all of one shape, or none


def test_the_window_at_1280_leaves_the_station_room(qtbot, window):
    win = _laid_out(qtbot, window, (1280, 800))
    win._size_docks()
    qtbot.wait(100)
    controls, notes = win.docks["controls"], win.docks["notes"]
    assert win.tabifiedDockWidgets(notes) == [controls]                   # one dock of tabs, on the right
    assert win.stack.width() >= 900
    win.state.select(station="scores")
    scores = win.stations["scores"]
    scores._refresh()
    win._on_traced(("attn_scores", 2, 1))                                 # a trace brings the instruments forward
    assert win.tabs.currentWidget() is win.trace_panel and win.trace_panel.isVisible()


def test_block_map_opens_over_the_station_and_a_click_goes_there(qtbot, window):
    win = window
    win.state.select(station="scores")
    QTest.keyClick(win, Qt.Key.Key_0, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(win.block_map.isVisible, timeout=5000)
    assert win.stack.currentWidget() is win.block_map and win.actions["block_map"].isChecked()
    plots = list(win.block_map.figure.plots.values())
    assert [f.target for f in win.block_map.frames] == [plots[3].plot]      # Scores, framed
    win.state.select(hover=(1, 0))                                        # hovering keeps the map
    assert win.stack.currentWidget() is win.block_map
    target = plots[5].plot.vb.sceneBoundingRect().center()                # Σ p·v
    view = win.block_map.figure
    QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=view.mapFromScene(target))
    qtbot.waitUntil(lambda: win.state.selection.station == "weighted_sum", timeout=5000)
    assert win.stack.currentWidget() is win.stations["weighted_sum"] and not win.actions["block_map"].isChecked()


def test_the_scores_outline_follows_the_query_after_a_trace_click(qtbot, window):
    """Hovering q on Q·K·V and clicking a cell (the Trace opens), then Scores and Alt+←: the
    hover of the hidden station kept the old row outlined while the chips and Softmax moved on."""
    win, s = window, window.state
    s.select(station="projections")
    proj = win.stations["projections"]
    proj.hovered.emit((2, None))                           # the mouse over q's row 2 ...
    proj.traced.emit(("q", 2, 1))                          # ... clicks q[2, 1]
    assert s.selection.trace == ("q", 2, 1)
    q_row = proj.q._bands["row"]
    assert proj.q.traced and q_row.pen().style() == Qt.PenStyle.DashLine    # the trace: dashed ink
    assert QColor(q_row.pen().color()).name() == proj.q.palette.foreground.lower()
    s.select(station="scores")                             # Ctrl+4: the mouse never left q
    win.actions["prev_query"].trigger()                    # Alt+←
    query = s.selection.query
    scores = win.stations["scores"]
    qtbot.waitUntil(lambda: scores.isVisible())
    for mp in scores.plots:
        band = mp._bands["row"]
        assert band.isVisible() and band.rect().center().y() == query, (mp.name, band.rect(), query)
        assert not mp.traced
    s.select(query=1)                                      # a chip click
    assert all(mp._bands["row"].rect().center().y() == 1 for mp in scores.plots)


def test_the_end_of_a_long_text_is_reachable_and_an_append_there_is_incremental(qtbot, window):
    """T = 485: the strip stopped at 256 chips ("… +229 more") and the type box started empty, so
    appending a word meant re-pasting everything (and a full pass)."""
    win, s = window, window.state
    wait_render(qtbot, win, lambda: s.load_preset("andrea-120m"), timeout=120_000)
    wait_render(qtbot, win, lambda: s.set_config(n_layers=1), timeout=120_000)
    words = [s.tokenizer.encode(w)[0] for w in "the cat sat on the mat and".split()]
    wait_render(qtbot, win, lambda: s.set_tokens((words * 70)[:485]), timeout=120_000)
    qtbot.waitUntil(lambda: not s.busy and s.result.trace.T == 485, timeout=120_000)   # the full pass is in
    before = s.inputs.tokens
    s.select(query=484)                                     # the query on the last token follows the append
    strip = win.tokens
    qtbot.waitUntil(lambda: strip._more is not None, timeout=30_000)
    assert "229" in strip._more.text() and strip.add_button.isVisible()
    assert strip.edit.text() == s.text() and strip.edit.text().endswith("and the cat")   # the whole text
    strip._more.click()                                     # "… +229 more": type at the end
    assert strip.edit.hasFocus() and strip.edit.cursorPosition() == len(strip.edit.text())
    QTest.keyClicks(strip.edit, " dog")
    wait_render(qtbot, win, lambda: QTest.keyClick(strip.edit, Qt.Key.Key_Return), timeout=120_000)
    qtbot.waitUntil(lambda: not s.busy, timeout=60_000)
    assert s.inputs.tokens == before + tuple(s.tokenizer.encode("dog"))
    assert s.result.trace.reused_rows == 485                  # the incremental path: one new row
    assert strip.edit.text().endswith("and the cat dog") and s.selection.query == 485


def test_a_mixture_of_experts_mlp_station_shows_the_router_and_equals_the_reference(qtbot, window):
    """A model with 4 experts, 2 per token: the MLP station becomes the router's (router_probs and
    expert_weights, token × expert), and shows the reference backend's numbers."""
    s = window.state
    wait_render(qtbot, window, lambda: s.set_config(norm="rmsnorm", positions="rope", mlp="swiglu", mlp_bias=False,
                                                    n_experts=4, experts_per_token=2))
    assert s.inputs.config.components.experts is not None, window.messages.text
    station = _show_station(qtbot, window, "mlp")
    assert station.router.col_labels == ["e0", "e1", "e2", "e3"]
    assert not hasattr(station, "pre") or station.pre is None or not station.pre.isVisible()
    _assert_station_matches_reference(qtbot, window, "mlp")
