"""Regression tests for problems a review found: each failed before its fix."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from compute import PRESETS, ConfigError, Weights, forward, register_backend, trained_toy_weights

from .conftest import wait_render

ROOT = Path(__file__).resolve().parents[2]


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


def test_a_failed_experiment_is_not_scored(qtbot, window, monkeypatch):
    s, ins = window.state, window.instruments
    window.calibrator.choose_change("d_head_x4")
    window.calibrator.set_prediction("sharper", True)
    s.runner.cancel()
    monkeypatch.setenv("QKV_LAB_MEMORY_BUDGET_GIB", "8")
    with qtbot.waitSignal(ins.calibrated, timeout=30_000):
        window.calibrator.apply.click()
        s.cancel()                                          # the new inputs never produce a view
    assert ins.total == 0 and "could not be computed" in window.calibrator.outcome.text()


def test_sessions_keep_weights_opened_from_a_file(qtbot, window, tmp_path):
    from app import session as sessions

    path = tmp_path / "w.safetensors"
    trained_toy_weights().save(path)
    with qtbot.waitSignal(window.rendered, timeout=30_000):
        window.model_actions.open_weights(str(path))
    ref = sessions.weights_reference(window.state.inputs)
    assert ref["kind"] == "file" and ref["path"] == str(path.resolve()) and "sha256" in ref


def test_sqrt_lab_shows_only_the_d_k_asked_for_last(qtbot, window):
    s, ins = window.state, window.instruments
    lab = window.sqrt_lab
    s.select(station="sqrt_dk")
    shown = []
    ins.sqrtReady.connect(lambda n: shown.append(n.spread.d_k))
    for d_k in (4096, 2048, 16):
        s.select(d_k=d_k)
    qtbot.waitUntil(lambda: 16 in shown, timeout=60_000)
    qtbot.wait(300)
    assert shown[-1] == 16 and lab.numbers.spread.d_k == 16


def test_kv_cache_resets_when_the_weights_change(qtbot, window):
    s, ins = window.state, window.instruments
    s.select(station="kv_cache")
    qtbot.waitUntil(lambda: ins.generation is not None, timeout=10_000)
    wait_render(qtbot, window, lambda: s.set_seed(5))
    assert ins.generation is None or ins.generation_weights is s.result.weights


def test_register_backend_works_through_forward():
    register_backend("reference-again", "compute.backends.reference:ReferenceBackend")
    cfg = PRESETS["toy"]
    trace = forward(cfg, Weights.random(cfg, 0), [1, 2], backend="reference-again")
    assert trace.backend == "reference"
    with pytest.raises(ConfigError, match="reference-again"):
        forward(cfg, Weights.random(cfg, 0), [1], backend="nope")


def test_broken_recent_files_value_is_ignored(tmp_path):
    from app.settings import Settings

    settings = Settings.from_file(tmp_path / "s.ini") if hasattr(Settings, "from_file") else Settings.memory()
    for raw in ("5", '"abc"', "{bad json"):
        settings.set("sessions/recent", raw)
        assert settings.recent_files() == []


def test_export_with_no_tokens_is_a_usage_error():
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    run = subprocess.run([sys.executable, str(ROOT / "main.py"), "export", "--tokens", "", "--view", "softmax",
                          "-o", "/tmp/qkv-empty.svg"], capture_output=True, text=True, timeout=120, env=env, cwd=ROOT)
    assert run.returncode == 2 and "at least one token" in run.stderr


def test_a_session_whose_inputs_fail_is_not_left_open(qtbot, window, tmp_path):
    """Opening a session whose weights no longer fit: the view goes back, and so must the file
    name, or Save would write the old view over the session."""
    s, files, model = window.state, window.file_actions, window.model_actions
    weights, session = tmp_path / "w.safetensors", tmp_path / "talk.qkvlab"
    assert model.save_weights(str(weights))
    with qtbot.waitSignal(window.rendered, timeout=30_000):
        model.open_weights(str(weights))
    wait_render(qtbot, window, lambda: s.set_tokens([5, 6, 7]))
    assert files.save_to(session)
    saved = session.read_text()
    wait_render(qtbot, window, lambda: s.set_config(n_heads=4))
    assert model.save_weights(str(weights))                       # the same file, another shape now
    files.new_session()
    qtbot.waitUntil(lambda: not s.busy, timeout=30_000)
    s.registry.clear()
    s.runner._weights.clear()                                      # as after a restart
    with qtbot.waitSignal(s.computeFailed, timeout=30_000):
        assert files.open_session(session)
    assert files.path != session and "talk" not in window.windowTitle()
    assert "was not opened" in window.messages.text
    assert session.read_text() == saved


def test_export_waits_for_the_views_to_show_the_last_change(qtbot, window, tmp_path):
    s = window.state
    s.set_config(n_layers=3)
    s.select(layer=2)
    if s.busy:                                                     # usually: the compute is running
        assert not window.file_actions.export_to(tmp_path / "f.png", "pattern")
        assert "Still computing" in window.messages.text and not (tmp_path / "f.png").exists()
    qtbot.waitUntil(lambda: not s.busy, timeout=30_000)
    assert window.file_actions.export_to(tmp_path / "f.png", "pattern")


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


def test_a_session_with_the_inputs_on_screen_stays_open_after_a_later_failure(qtbot, window, tmp_path):
    """Opening a session of exactly the view on screen computes nothing: a later, unrelated
    failure must not take its file name back."""
    s, files = window.state, window.file_actions
    session = tmp_path / "same.qkvlab"
    assert files.save_to(session)
    assert files.open_session(session)
    qtbot.waitUntil(lambda: not s.busy, timeout=30_000)
    assert files.path == session
    s.computeFailed.emit("something else went wrong")              # e.g. a later edit's weights
    assert files.path == session and "was not opened" not in window.messages.text
