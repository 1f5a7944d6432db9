"""Knocking heads out from the window's side: an undoable edit of the inputs, computed with compute.Ablate,
kept in sessions (and an old session, without the field, still opens as it did)."""
from __future__ import annotations

import json

import numpy as np
import pytest
from PySide6.QtCore import Qt

from app.runner import SyncRunner
from app.session import SessionError, parse_session, session_dict
from app.state import LabState
from app.values import make_weights
from compute import Ablate, forward


@pytest.fixture
def state(qapp):
    s = LabState(runner=SyncRunner())
    s.said = []
    s.message.connect(lambda level, text: s.said.append((level, text)))
    s.start()
    return s


def test_a_knocked_out_head_is_an_undoable_edit_computed_with_ablate(state):
    clean = state.result.trace
    assert state.toggle_ablation(1, 0)
    inputs = state.inputs
    assert inputs.ablated == ((1, 0),)
    want = forward(inputs.config, make_weights(inputs), inputs.tokens, interventions=[Ablate(1, 0)])
    np.testing.assert_allclose(state.result.trace["logits"], want["logits"], atol=1e-5)
    assert np.allclose(state.result.trace["z", 1][:, 0], 0.0)
    assert state.toggle_ablation(0, 1) and state.inputs.ablated == ((0, 1), (1, 0))
    assert state.toggle_ablation(1, 0) and state.inputs.ablated == ((0, 1),)        # a second click: back
    state.undo_stack.undo()
    state.undo_stack.undo()
    state.undo_stack.undo()
    assert state.inputs.ablated == ()
    np.testing.assert_allclose(state.result.trace["logits"], clean["logits"], atol=1e-6)
    assert not state.toggle_ablation(7, 0) and "no head 0 in layer 7" in state.said[-1][1]


def test_knocked_out_heads_are_kept_in_a_session(state):
    state.toggle_ablation(1, 1)
    data = session_dict(state.inputs, state.selection)
    assert data["inputs"]["ablated"] == [[1, 1]]
    back = parse_session(json.dumps(data))
    assert back.inputs.ablated == ((1, 1),)
    del data["inputs"]["ablated"]                                                   # an older session
    assert parse_session(json.dumps(data)).inputs.ablated == ()
    assert "ablated" not in session_dict(parse_session(json.dumps(data)).inputs, state.selection)["inputs"]
    for bad, match in (([[9, 0]], "no head 0 in layer 9"), ("1.1", "list of \\[layer, head\\] pairs"),
                       ([[1, True]], "pairs")):
        data["inputs"]["ablated"] = bad
        with pytest.raises(SessionError, match=match):
            parse_session(json.dumps(data))


def test_a_click_on_the_knockout_map_knocks_the_head_out_in_the_window(qtbot, window):
    from tests.app.conftest import wait_render

    win = window
    win.state.select(station="knockout")
    page = win.stations["knockout"]
    qtbot.waitUntil(page.isVisible, timeout=5000)
    page._refresh()
    qtbot.waitUntil(lambda: "dla" in page.widgets, timeout=30_000)
    wait_render(qtbot, win, lambda: page._on_click(page.widgets["dla"], (1, 0), None))
    assert win.state.inputs.ablated == ((1, 0),)
    qtbot.waitUntil(lambda: page.views is not None and not page.views.waiting and "→" in page.text.text(),
                    timeout=30_000)
    assert page.reset.isEnabled()
    wait_render(qtbot, win, win.state.undo_stack.undo)
    assert win.state.inputs.ablated == ()
    win.state.select(station="head_finder")
    finder = win.stations["head_finder"]
    qtbot.waitUntil(lambda: finder.views is not None and not finder.views.waiting, timeout=60_000)
    finder._on_click(finder.widgets["finder_induction"], (1, 1), None)
    assert (win.state.selection.station, win.state.selection.layer, win.state.selection.head) == ("scores", 1, 1)


def test_ab_shows_a_head_knocked_out_and_keeps_it_as_the_labs_inputs(state):
    from app.pages.ab import Controller
    from compute.instruments import ab

    ab_page = Controller(state, key="ab")
    cfg, w = state.inputs.config, state.result.weights
    b, tb = ab.run(cfg, w, state.inputs.tokens, ("knock_out", (1, 0)), backend="reference")
    want = forward(cfg, w, state.inputs.tokens, "reference", interventions=[Ablate(1, 0)])
    np.testing.assert_allclose(tb["logits"], want["logits"], atol=1e-12)
    assert "1.0 knocked out" in str(b.note)
    state.select(ab=("knock_out", (1, 0)), station="ab")
    ab_page.keep()
    assert state.inputs.ablated == ((1, 0),) and state.selection.ab is None


def test_a_right_click_on_a_station_knocks_the_head_shown_out_and_puts_it_back(qtbot, window):
    win = window
    win.state.select(station="scores", layer=1, head=0)
    page = win.stations["scores"]
    qtbot.waitUntil(page.isVisible, timeout=5000)
    assert page.canvas.contextMenuPolicy() == Qt.ContextMenuPolicy.CustomContextMenu
    menu = win.head_menu()
    knock = menu.actions()[0]
    assert knock.text() == "Knock head 1.0 out"
    knock.trigger()
    qtbot.waitUntil(lambda: win.state.result.inputs.ablated == ((1, 0),), timeout=30_000)
    back = win.head_menu().actions()
    assert [a.text() for a in back[:2]] == ["Put head 1.0 back", "Put every head back"]
    back[0].trigger()
    qtbot.waitUntil(lambda: win.state.inputs.ablated == (), timeout=30_000)
    win.head_menu().actions()[-1].trigger()
    assert win.state.selection.station == "knockout"
    assert win.stations["embeddings"].canvas.contextMenuPolicy() != Qt.ContextMenuPolicy.CustomContextMenu
    assert win.block_map.figure.contextMenuPolicy() == Qt.ContextMenuPolicy.CustomContextMenu
