"""Sessions from hostile places: pipes and devices as the session or its weights never hang (File ▸
Open, --session, export --session, the start-up restore); an unknown weights kind is never a path;
a session whose inputs fail leaves no view state behind; big checksums are taken off the UI thread."""
from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import app.session as session_module
from app.file_actions import restore_last_session
from app.session import SessionError, load_session, parse_session, run_checks, session_dict
from app.state import Inputs, Selection, preset_config
from compute import safe_io

from ..compute.test_safe_io import finishes
from .conftest import wait_render

ROOT = Path(__file__).resolve().parents[2]
DEVICES = [d for d in ("/dev/zero", "/dev/urandom") if os.path.exists(d)]


def _doc(weights_ref: dict, **sel) -> dict:
    inputs = Inputs(config=preset_config("toy"), tokens=(5, 6, 3, 0, 10), seed=4)
    doc = session_dict(inputs, Selection(**sel), None)
    doc["inputs"]["weights"] = weights_ref
    return doc


def _write(path: Path, doc: dict) -> Path:
    path.write_text(json.dumps(doc))
    return path


# -- the session file itself ----------------------------------------------------------------------------
def test_a_pipe_or_device_as_the_session_is_refused_at_once(tmp_path):
    fifo = tmp_path / "talk.qkvlab"
    os.mkfifo(fifo)
    with pytest.raises(SessionError, match="named pipe, not a regular file, not a session file"):
        finishes(lambda: load_session(fifo))
    for device in DEVICES:
        with pytest.raises(SessionError, match="a device"):
            finishes(lambda device=device: load_session(device))
    with pytest.raises(SessionError, match="is a folder"):
        load_session(tmp_path)
    big = tmp_path / "big.qkvlab"
    big.write_bytes(b" " * (session_module.MAX_BYTES + 1))
    with pytest.raises(SessionError, match="too large"):
        load_session(big)
    with pytest.raises(SessionError, match="cannot read"):
        load_session("~no-such-user-qkv/x.qkvlab")


# -- its weights ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["fifo", *DEVICES])
def test_a_pipe_or_device_as_the_weights_is_a_warning_not_a_hang(tmp_path, kind):
    target = tmp_path / "w.safetensors"
    if kind == "fifo":
        os.mkfifo(target)
    else:
        target = Path(kind)
    path = _write(tmp_path / "s.qkvlab", _doc({"kind": "file", "path": str(target), "sha256": "00" * 32,
                                                "seed": 3}))
    data = finishes(lambda: load_session(path))
    assert data.inputs.weights == "random" and data.inputs.seed == 3
    assert "not a weights file" in data.warnings[0] and not data.checks
    folder = _write(tmp_path / "f.qkvlab", _doc({"kind": "folder", "path": str(target), "seed": 3}))
    assert finishes(lambda: load_session(folder)).inputs.weights == "random"


def test_the_start_up_restore_does_not_hang_on_a_pipe(qtbot, window, tmp_path, settings):
    fifo = tmp_path / "w.safetensors"
    os.mkfifo(fifo)
    settings.last_session = json.dumps(_doc({"kind": "file", "path": str(fifo), "sha256": "ab" * 32, "seed": 1}))
    finishes(lambda: parse_session(settings.last_session, "the last session"))   # the part that hung
    assert restore_last_session(window, settings)
    assert window.state.inputs.weights == "random"
    qtbot.waitUntil(lambda: "not a weights file" in window.messages.text, timeout=30_000)


def test_cli_export_of_a_session_with_device_weights_finishes(tmp_path):
    device = DEVICES[0] if DEVICES else None
    if device is None:
        pytest.skip("no /dev/zero here")
    _write(tmp_path / "s.qkvlab", _doc({"kind": "file", "path": device, "sha256": "00" * 32, "seed": 2}))
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    run = subprocess.run([sys.executable, str(ROOT / "main.py"), "export", "--session", "s.qkvlab", "-o", "f.svg"],
                         capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "not a weights file" in run.stderr and (tmp_path / "f.svg").exists()


def test_an_unknown_weights_kind_is_never_used_as_a_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    from compute import PRESETS, Weights

    Weights.random(PRESETS["toy"], 9).save(tmp_path / "w.safetensors")     # a file by that name is right here
    for kind in ("w.safetensors", "../etc/passwd", "gguf", ""):
        data = parse_session(json.dumps(_doc({"kind": kind, "seed": 5})), "s", tmp_path)
        assert data.inputs.weights == "random" and data.inputs.seed == 5
        assert "a kind this version does not know" in data.warnings[0]


def test_hostile_paths_in_a_session_are_not_found_rather_than_errors(tmp_path):
    for stored, relative in (("/a\0b", None), ("~no-such-user-qkv/w", None), ("x" * 5000, "y" * 5000),
                             ("/tmp", "\0")):
        ref = {"kind": "file", "path": stored, "seed": 1}
        if relative is not None:
            ref["relative"] = relative
        data = parse_session(json.dumps(_doc(ref)), "s", tmp_path)
        assert data.inputs.weights == "random" and data.warnings


# -- checksums off the UI thread -------------------------------------------------------------------------
def test_big_weights_are_hashed_later_not_while_opening(tmp_path, monkeypatch):
    weights = tmp_path / "w.safetensors"
    weights.write_bytes(b"w" * 4096)
    digest = safe_io.sha256_file(weights)
    weights.write_bytes(b"v" * 4096)                                # changed since: a new version
    monkeypatch.setattr(session_module, "INLINE_HASH_BYTES", 1024)   # as if it were 500 MB
    threads = []
    real = safe_io.sha256_file
    monkeypatch.setattr(safe_io, "sha256_file", lambda p, *a, **k: (threads.append(threading.current_thread()),
                                                                     real(p, *a, **k))[1])
    data = load_session(_write(tmp_path / "s.qkvlab", _doc({"kind": "file", "path": str(weights),
                                                             "sha256": digest, "seed": 0})))
    assert threads == [] and data.warnings == () and len(data.checks) == 1
    assert data.inputs.weights == str(weights)
    assert "changed since the session was saved" in run_checks(data)[0]


def test_the_window_reports_a_changed_big_weights_file_after_opening(qtbot, window, tmp_path, monkeypatch):
    s, files, model = window.state, window.file_actions, window.model_actions
    weights, session = tmp_path / "w.safetensors", tmp_path / "talk.qkvlab"
    assert model.save_weights(str(weights))
    with qtbot.waitSignal(window.rendered, timeout=30_000):
        model.open_weights(str(weights))
    assert files.save_to(session)
    assert json.loads(session.read_text())["inputs"]["weights"]["sha256"]   # known from loading it
    wait_render(qtbot, window, lambda: s.set_seed(4))                       # other weights on screen
    monkeypatch.setattr(session_module, "INLINE_HASH_BYTES", 16)
    data = json.loads(session.read_text())
    data["inputs"]["weights"]["sha256"] = "0" * 64                          # as if the file changed
    session.write_text(json.dumps(data))
    with qtbot.waitSignal(window.rendered, timeout=30_000):
        assert files.open_session(session)
    qtbot.waitUntil(lambda: "changed since the session was saved" in window.messages.text, timeout=30_000)


# -- a session whose inputs fail ----------------------------------------------------------------------------
def test_a_session_whose_inputs_fail_leaves_no_view_state_and_never_says_opened(qtbot, window, tmp_path):
    s, files, model = window.state, window.file_actions, window.model_actions
    weights, session = tmp_path / "w.safetensors", tmp_path / "talk.qkvlab"
    assert model.save_weights(str(weights))
    with qtbot.waitSignal(window.rendered, timeout=30_000):
        model.open_weights(str(weights))
    s.select(layer=1, head=1, station="heads")
    assert files.save_to(session)
    wait_render(qtbot, window, lambda: s.set_config(n_heads=4))
    assert model.save_weights(str(weights))                       # the same file, another shape now
    files.new_session()
    qtbot.waitUntil(lambda: not s.busy, timeout=30_000)
    s.select(layer=0, head=0, station="embeddings")
    before = s.selection
    s.registry.clear()
    s.runner._weights.clear()
    said = []
    s.message.connect(lambda level, text: said.append((level, text)))
    with qtbot.waitSignal(s.computeFailed, timeout=30_000):
        assert files.open_session(session)
    qtbot.waitUntil(lambda: not s.busy, timeout=30_000)
    assert not any("Opened talk.qkvlab" in text for _level, text in said)
    assert (s.selection.layer, s.selection.head, s.selection.station) == (before.layer, before.head, before.station)
    assert dataclasses.replace(s.selection, hover=None) == dataclasses.replace(before, hover=None)


def test_a_session_that_opens_says_so_once_it_is_on_screen(qtbot, window, tmp_path):
    s, files = window.state, window.file_actions
    session = tmp_path / "talk.qkvlab"
    wait_render(qtbot, window, lambda: s.set_seed(11))
    s.select(layer=1, station="softmax")
    assert files.save_to(session)
    wait_render(qtbot, window, lambda: s.set_seed(12))
    said = []
    s.message.connect(lambda level, text: said.append((level, text, s.result.inputs.seed if s.result else None)))
    with qtbot.waitSignal(window.rendered, timeout=30_000):
        assert files.open_session(session)
    qtbot.waitUntil(lambda: any("Opened talk.qkvlab" in t for _l, t, _seed in said), timeout=30_000)
    assert [seed for _l, t, seed in said if "Opened" in t] == [11]          # said with its view on screen
    assert s.selection.layer == 1 and s.selection.station == "softmax"
