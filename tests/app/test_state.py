"""LabState without a window: the synchronous runner computes each edit before the call returns."""
from __future__ import annotations

import os

import numpy as np
import pytest

from app.runner import SyncRunner
from app.state import LabState
from app.values import make_weights
from compute import forward
from tests.compute.helpers import max_scaled_error
from tests.compute.test_incremental import TOL

from .conftest import wait_render


@pytest.fixture
def state(qapp):
    s = LabState(runner=SyncRunner())
    s.shown, s.said = [], []
    s.resultChanged.connect(s.shown.append)
    said = s.said                  # the lambda holds the list, not the state: a state no test holds is freed
    s.message.connect(lambda level, text: said.append((level, text)))
    s.start()
    return s


def _fresh(inputs):
    return forward(inputs.config, make_weights(inputs), inputs.tokens, backend=inputs.backend)


def test_every_edit_is_computed_and_equals_a_fresh_forward(state):
    assert state.result is not None and not state.busy
    assert state.set_text("the dog ran to the red hat")
    assert state.result.inputs == state.inputs
    assert state.result.trace.reused_rows == 1                    # "the" stays: rows 1.. are new
    want = _fresh(state.inputs)
    for key in want.keys():
        if key != "logits":
            assert max_scaled_error(state.result.trace[key], want[key]) <= TOL, key
    assert state.result.labels == ("the", "dog", "ran", "to", "the", "red", "hat")


def test_on_the_mlp_station_the_worker_makes_the_querys_logits_row(state):
    """The next-token bars need the query's row of logits (262,144 × 640 multiply-adds on Gemma 3): the
    compute makes it with the pass (app/runner.py make_ahead), so the view only reads it."""
    state.select(station="mlp")
    assert state.set_text("the dog ran to the red hat")
    trace, query = state.result.trace, state.selection.query
    assert ("logits row", query) in trace._lazy                     # made before the view asked
    np.testing.assert_array_equal(trace.logits_rows([query])[0], _fresh(state.inputs).logits_rows([query])[0])
    state.select(station="scores")
    assert state.set_text("the cat sat on the mat")
    assert not any(isinstance(k, tuple) and k[0] == "logits row" for k in state.result.trace._lazy)


@pytest.mark.parametrize("edit", ["type", "delete", "replace", "move_in_tail"])
def test_edits_at_the_end_compute_only_the_rows_after_them(state, edit):
    """The trace on screen goes with each request: the pass reuses its rows before the edit
    (float32 rounding apart, the same Trace a fresh pass gives)."""
    T = len(state.inputs.tokens)
    if edit == "type":
        assert state.set_text("the cat sat on the mat and")
        first = T
    elif edit == "delete":
        assert state.remove_token(T - 1)
        first = T - 1
    elif edit == "replace":
        assert state.replace_token(T - 1, 3)
        first = T - 1
    else:
        assert state.move_token(T - 1, T - 2)
        first = T - 2
    trace = state.result.trace
    assert trace.reused_rows == first and trace.T == len(state.inputs.tokens)
    want = _fresh(state.inputs)
    for key in want.keys():
        if key != "logits":
            assert max_scaled_error(trace[key], want[key]) <= TOL, key


def test_undo_and_redo_bring_back_each_result(state):
    first = state.result
    state.set_config(d_head=6)
    assert state.result.inputs.config.d_head == 6
    state.undo_stack.undo()
    assert state.result.inputs == first.inputs
    np.testing.assert_array_equal(state.result.trace["pattern", 1], first.trace["pattern", 1])
    state.undo_stack.redo()
    assert state.result.inputs.config.d_head == 6


def test_a_refused_edit_changes_nothing_and_says_why(state):
    before, n = state.inputs, len(state.shown)
    assert not state.set_config(n_heads=0)
    assert state.inputs == before and len(state.shown) == n
    assert state.said[-1][0] == "error" and "n_heads" in state.said[-1][1]


def test_inputs_that_fail_to_compute_go_back_to_the_view_on_screen(state, tmp_path):
    before = state.inputs
    state.set_weights(str(tmp_path / "missing.safetensors"))
    assert state.inputs == before                  # the step was undone
    assert any(level == "error" for level, _ in state.said)


def test_shape_fields_beyond_the_sizes_draw_new_random_weights(state):
    """Every field of Config.shape_key decides the weights (n_kv_heads reshapes W_K and W_V): an edit
    of one on random weights draws weights of the new shapes instead of reusing the old ones."""
    assert state.set_weights("random")
    assert state.set_config(n_kv_heads=1)                       # 2 query heads share one K/V head
    assert state.result is not None and state.result.inputs == state.inputs
    assert state.result.weights["blocks.0.attn.W_K"].shape[0] == 1
    assert all(level != "error" for level, _ in state.said)
    assert state.set_config(mlp="swiglu")                       # W_gate appears
    assert "blocks.0.mlp.W_gate" in state.result.weights


@pytest.mark.parametrize("threaded", [False, True], ids=["SyncRunner", "Runner"])
def test_a_failed_step_rolls_back_one_step_on_either_runner(qapp, qtbot, tmp_path, threaded):
    """The test double behaves as the threaded runner: a step whose inputs fail to compute goes
    back to the step on screen (one step), and Undo then goes back one more."""
    from app.runner import Runner

    s = LabState(runner=Runner() if threaded else SyncRunner())

    def settle(action=None):
        if action is not None:
            action()
        qtbot.waitUntil(lambda: not s.busy and s.runner.is_idle(), timeout=60_000)

    try:
        settle(s.start)
        first = s.inputs
        settle(lambda: s.set_config(d_head=6))                 # step 1, computed and shown
        step1 = s.inputs
        assert s.result.inputs == step1 and s.undo_stack.index() == 1
        settle(lambda: s.set_weights(str(tmp_path / "missing.safetensors")))   # step 2 fails
        assert s.inputs == step1 and s.result.inputs == step1 and s.undo_stack.index() == 1
        settle(s.undo_stack.undo)                               # back to the start, one step
        assert s.inputs == first and s.result.inputs == first and s.undo_stack.index() == 0
    finally:
        s.runner.shutdown()


def test_the_query_stays_on_its_token_when_tokens_move(state):
    state.select(query=1)                          # "cat" in "the cat sat on the mat"
    state.move_token(1, 4)
    assert state.result.labels[state.selection.query] == "cat"
    state.insert_token(0, 5)
    assert state.result.labels[state.selection.query] == "cat"


def test_an_empty_sequence_is_refused_with_a_message(qtbot, window):
    s = window.state
    before = s.inputs
    assert not s.set_text("   ")
    assert "at least one token" in window.messages.text and s.inputs == before
    for _ in range(5):
        s.remove_token(0)
    assert len(s.inputs.tokens) == 1 and not s.remove_token(0)


def test_separate_edits_of_one_field_are_separate_undo_steps(qtbot, window):
    s = window.state
    c = window.controls
    wait_render(qtbot, window, lambda: c.d_head.setValue(6))
    wait_render(qtbot, window, lambda: c.d_head.setValue(8))
    assert s.undo_stack.count() == 2
    wait_render(qtbot, window, window.undo_action.trigger)
    assert s.inputs.config.d_head == 6
    wait_render(qtbot, window, window.undo_action.trigger)
    c.causal.setChecked(False)
    qtbot.waitUntil(lambda: not s.busy, timeout=10_000)
    c.causal.setChecked(True)
    qtbot.waitUntil(lambda: not s.busy, timeout=10_000)
    assert s.undo_stack.count() == 2                        # mask off, mask on: two steps


def test_a_refused_size_change_does_not_announce_new_weights(qtbot, window):
    s = window.state
    said = []
    s.message.connect(lambda level, text: said.append((level, text)))
    assert s.inputs.weights == "trained"
    assert not s.set_config(n_ctx=2)                               # fewer positions than tokens
    assert said and all("New sizes need new weights" not in text for _level, text in said)


def test_unusable_weights_with_nothing_on_screen_fall_back_to_random(qtbot, tmp_path):
    """A session opened at start-up whose weights file is damaged: show random weights instead
    of a window where every edit fails the same way."""
    from app.main_window import MainWindow
    from app.state import LabState

    bad = tmp_path / "w.safetensors"
    bad.write_bytes(b"garbage" * 10)
    state = LabState()
    win = MainWindow(state)
    qtbot.addWidget(win)
    win.show()
    assert state.set_weights(str(bad))                             # accepted: read only when computed
    said = []
    state.message.connect(lambda level, text: said.append((level, text)))
    with qtbot.waitSignal(win.rendered, timeout=60_000):
        state.start()
    assert state.inputs.weights == "random" and state.result.inputs == state.inputs
    assert any(level == "warning" and "showing random weights" in text for level, text in said)
    state.runner.shutdown()


def test_the_score_maps_of_the_visible_station_come_made(state):
    """A Trace makes its score maps from q and k when first read; the runner makes those the
    visible station draws, so that the UI thread only draws them."""
    state.select(station="mlp", layer=1)
    assert state.set_text("the dog ran")
    assert not state.result.trace.is_ready("attn_scores", 1)
    state.select(station="scores")
    assert state.set_text("the dog ran to")
    trace = state.result.trace

    def made(name, layer):                                        # the whole map, or the viewed head's cut of it
        return trace.is_ready(name, layer) or any(isinstance(k, tuple) and k[0] in ("read", "part")
                                                  and k[1] == (name, layer) for k in trace._lazy)

    assert all(made(name, 1) for name in ("attn_scores_raw", "attn_scores_scaled", "attn_scores"))
    assert not made("attn_scores", 0)                             # only the layer shown


@pytest.mark.parametrize("threaded", [False, True], ids=["SyncRunner", "Runner"])
def test_a_state_with_undo_steps_is_freed_at_once_not_by_the_garbage_collector(qapp, qtbot, threaded):
    """No reference cycle runs through a LabState: its undo commands and its stack hold it weakly.
    A LabState left in a cycle is freed by the garbage collector, on whichever thread allocates
    when it runs (a runner's, the Background's), tearing its Qt objects down mid-operation of
    another: a segfault (the next test)."""
    import gc
    import weakref
    from functools import partial

    from app.runner import Runner

    def settle(state, action) -> None:                      # no closure over `s`: it must go at `del s`
        action()
        qtbot.waitUntil(lambda: state.result is not None and not state.busy and state.runner.is_idle(),
                        timeout=60_000)

    gc.collect()
    gc.disable()
    try:
        s = LabState(runner=Runner() if threaded else SyncRunner())
        settle(s, s.start)
        for d_head in (6, 8):
            settle(s, partial(s.set_config, d_head=d_head))
        settle(s, s.undo_stack.undo)                         # a step to redo as well as one to undo
        assert s.undo_stack.count() == 2 and s.undo_stack.index() == 1
        s.runner.shutdown()
        freed = weakref.ref(s)
        del s
        assert freed() is None, "a reference cycle keeps the LabState for the garbage collector"
    finally:
        gc.enable()


def test_states_dropped_while_others_edit_never_crash_the_garbage_collector(tmp_path):
    """In a process of its own (a segfault must fail the test, not end the suite): states made,
    edited and dropped one after another, with the collector running as it likes and then on a
    worker thread. Freed from cycles, this crashed (PySide6 6.11) 3 times in 3."""
    import subprocess
    import sys
    from pathlib import Path

    script = tmp_path / "drop_states.py"
    script.write_text(
        "import faulthandler, gc, os, threading\n"
        "faulthandler.enable()\n"
        "os.environ['QT_QPA_PLATFORM'] = 'offscreen'\n"
        "from PySide6.QtWidgets import QApplication\n"
        "app = QApplication([])\n"
        "from app.runner import SyncRunner\n"
        "from app.state import LabState\n"
        "for _ in range(6):\n"
        "    s = LabState(runner=SyncRunner())\n"
        "    s.start(); s.set_config(d_head=6); s.set_config(d_head=8)\n"
        "worker = threading.Thread(target=gc.collect)\n"
        "worker.start(); worker.join()\n"
        "print('survived')\n", encoding="utf-8")
    root = Path(__file__).resolve().parents[2]
    env = dict(os.environ, PYTHONPATH=str(root))
    run = subprocess.run([sys.executable, str(script)], cwd=root, env=env, capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0 and "survived" in run.stdout, (run.returncode, run.stderr[-2000:])


def test_find_token_moves_the_query_to_the_next_occurrence_around_the_end(state):
    assert state.set_text("the cat sat on the mat and the dog")
    state.select(query=0)
    assert [state.find_token(" THE ") for _ in range(3)] == [4, 7, 0]     # case folded, stripped, around the end
    assert state.selection.query == 0
    assert state.find_token("do") == 8 and state.selection.query == 8       # part of a token's text
    state.said.clear()
    assert state.find_token("zebra") is None and state.selection.query == 8
    assert state.said and "zebra" in state.said[-1][1]
    assert state.find_token("   ") is None and len(state.said) == 1          # nothing to find: nothing said


def test_the_token_strips_search_box_moves_the_query_through_the_state(qtbot, window):
    s = window.state
    wait_render(qtbot, window, lambda: s.set_text("the dog sat on the red mat"))
    s.select(query=0)
    window.tokens.search.setText("mat")
    window.tokens.search.returnPressed.emit()                                # Enter in the box
    assert s.selection.query == 6 and window.tokens.selected_index == 6
