"""LabState without a window: the synchronous runner computes each edit before the call returns."""
from __future__ import annotations

import numpy as np
import pytest

from app.runner import SyncRunner
from app.state import LabState
from app.values import make_weights
from compute import forward


@pytest.fixture
def state(qapp):
    s = LabState(runner=SyncRunner())
    s.shown, s.said = [], []
    s.resultChanged.connect(s.shown.append)
    s.message.connect(lambda level, text: s.said.append((level, text)))
    s.start()
    return s


def _fresh(inputs):
    return forward(inputs.config, make_weights(inputs), inputs.tokens, backend=inputs.backend)


def test_every_edit_is_computed_and_equals_a_fresh_forward(state):
    assert state.result is not None and not state.busy
    assert state.set_text("the dog ran to the red hat")
    assert state.result.inputs == state.inputs
    want = _fresh(state.inputs)
    for key in want.keys():
        if key != "logits":
            np.testing.assert_allclose(state.result.trace[key], want[key], rtol=1e-6, atol=1e-6)
    assert state.result.labels == ("the", "dog", "ran", "to", "the", "red", "hat")


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


def test_the_query_stays_on_its_token_when_tokens_move(state):
    state.select(query=1)                          # "cat" in "the cat sat on the mat"
    state.move_token(1, 4)
    assert state.result.labels[state.selection.query] == "cat"
    state.insert_token(0, 5)
    assert state.result.labels[state.selection.query] == "cat"
