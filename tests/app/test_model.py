"""Weights in the window: trained by default, random one click away, files, checkpoints, training."""
from __future__ import annotations

import numpy as np

from compute import PRESETS, Weights, trained_toy_weights

from .conftest import wait_render


def test_toy_starts_with_trained_weights_and_random_is_one_click_away(qtbot, window):
    win = window
    s = win.state
    assert s.inputs.weights == "trained" and win.controls.weights.currentData() == "trained"
    np.testing.assert_array_equal(s.result.weights["blocks.1.attn.W_Q"], trained_toy_weights()["blocks.1.attn.W_Q"])
    # layer 0 head 1 of the trained model looks one token back
    pattern = s.result.trace["pattern", 0][1]
    assert np.mean([pattern[i, i - 1] for i in range(1, 6)]) > 0.9
    win.controls.weights.setCurrentIndex(win.controls.weights.findData("random"))
    wait_render(qtbot, win, lambda: win.controls.weights.activated.emit(win.controls.weights.currentIndex()))
    assert s.inputs.weights == "random"
    np.testing.assert_array_equal(s.result.weights["embed.W_E"], Weights.random(PRESETS["toy"], 0)["embed.W_E"])
    wait_render(qtbot, win, win.undo_action.trigger)
    assert s.inputs.weights == "trained"


def test_new_sizes_switch_to_random_weights_with_a_message(qtbot, window):
    win = window
    wait_render(qtbot, win, lambda: win.controls.d_head.setValue(5))
    assert win.state.inputs.weights == "random" and "New sizes need new weights" in win.messages.text
    assert win.controls.weights.findData("trained") == -1          # trained weights do not fit d_head=5


def test_save_and_open_weights_round_trip(qtbot, window, tmp_path):
    win = window
    actions = win.model_actions
    path = tmp_path / "w.safetensors"
    assert actions.save_weights(str(path))
    assert path.exists() and "Saved the weights" in win.messages.text
    wait_render(qtbot, win, lambda: win.state.set_seed(3))
    with qtbot.waitSignal(win.rendered, timeout=30_000):
        actions.open_weights(str(path))
    assert win.state.inputs.weights == str(path.resolve())          # named by its path: sessions keep it
    np.testing.assert_array_equal(win.state.result.weights["blocks.0.attn.W_V"],
                                  trained_toy_weights()["blocks.0.attn.W_V"])
    bad = tmp_path / "bad.safetensors"
    bad.write_bytes(b"not a safetensors file")
    before = win.state.inputs
    with qtbot.waitSignal(win.state.message, timeout=10_000):
        actions.open_weights(str(bad))
    assert "bad.safetensors" in win.messages.text and win.state.inputs == before
    assert not actions.save_weights(str(tmp_path / "no" / "such" / "dir" / "w.safetensors"))
    assert "Could not save" in win.messages.text


def test_training_in_the_app_updates_the_views_and_is_one_undo_step(qtbot, window):
    win = window
    s = win.state
    panel = win.model_actions.panel
    before = s.inputs
    panel.steps.setValue(200)
    panel.every.setValue(40)
    during = []                                                          # views drawn while it trains
    s.resultChanged.connect(lambda r: during.append(r.inputs.weights) if win.model_actions.trainer.running else None)
    panel.start.click()
    qtbot.waitUntil(lambda: not win.model_actions.trainer.running and s.inputs.weights != before.weights
                    and not s.busy, timeout=120_000)
    assert len(panel.losses) == 5 and panel.losses[-1][0] == 200
    assert any(w.startswith("custom:") for w in during)                  # the views followed the training
    assert s.undo_stack.undoText().startswith("Train 200 steps")
    trained = s.result.weights
    from compute.instruments.training import train_toy

    again = train_toy(seed=0, steps=200, every=40)
    np.testing.assert_allclose(trained["blocks.1.attn.W_K"], again.weights["blocks.1.attn.W_K"], atol=1e-6)
    wait_render(qtbot, win, win.undo_action.trigger)
    assert s.inputs == before


def test_training_refuses_other_sizes(qtbot, window):
    win = window
    wait_render(qtbot, win, lambda: win.controls.d_model.setValue(12))
    win.model_actions.panel.start.click()
    assert "toy model's sizes" in win.messages.text and not win.model_actions.trainer.running


def test_open_a_gpt2_checkpoint_folder_and_type_with_its_tokenizer(qtbot, window, tmp_path):
    from tests.compute.test_checkpoint import make_checkpoint

    win = window
    s = win.state
    folder = make_checkpoint(tmp_path / "tiny-gpt2")
    with qtbot.waitSignal(win.rendered, timeout=30_000):
        win.model_actions.open_checkpoint(str(folder))
    assert s.inputs.config.d_vocab == 24 and s.inputs.config.n_ctx == 12
    assert s.labels()[:3] == ("the", "cat", "sat")                  # the folder's own vocabulary
    wait_render(qtbot, win, lambda: s.set_text("a big red dog ran"))
    assert list(s.inputs.tokens) == [6, 10, 11, 7, 8]
    with qtbot.waitSignal(s.message, timeout=5000):
        s.set_text("a " * 20)                                       # longer than n_ctx = 12
    assert "n_ctx=12 is too small" in win.messages.text
    bad = tmp_path / "empty"
    bad.mkdir()
    before = s.inputs
    with qtbot.waitSignal(s.message, timeout=10_000):
        win.model_actions.open_checkpoint(str(bad))
    qtbot.waitUntil(lambda: "config.json" in win.messages.text, timeout=10_000)
    assert s.inputs == before                                       # the previous model stays


def test_training_stopped_before_its_first_step_changes_nothing(qtbot, window):
    s = window.state
    trainer = window.model_actions.trainer
    before = s.inputs

    trainer._before = before                                # as start() records it
    trainer._on_finished(type("R", (), {"record": {"steps_done": 0, "final_loss": None}, "weights": None})(), None)
    assert s.inputs == before and s.undo_stack.count() == 0
    assert "before its first step" in window.messages.text


def test_edits_are_refused_while_training_runs(qtbot, window):
    s = window.state
    panel = window.model_actions.panel
    panel.steps.setValue(400)
    panel.every.setValue(100)
    panel.start.click()
    assert not s.set_text("a big dog") and "Training is running" in window.messages.text
    assert not window.undo_action.isEnabled() or s.undo_stack.count() == 0
    window.model_actions.trainer.stop()
    qtbot.waitUntil(lambda: not window.model_actions.trainer.running and not s.locked, timeout=60_000)
    qtbot.waitUntil(lambda: not s.busy, timeout=30_000)
    assert s.set_text("a big dog")
