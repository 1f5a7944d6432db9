"""Issue 25 item 7: the score cell the Trace tab takes apart is marked where it lives: outlined in
every score map of Scores, and its key's bars outlined on Softmax (its query's row)."""
from __future__ import annotations

import dataclasses

import numpy as np

from app.values import Inputs, LabResult, Selection, make_weights, preset_config
from compute import forward, toy_tokenizer
from widgets.views import SCORE_MAPS, station_panels


def _result():
    tok = toy_tokenizer()
    inputs = Inputs(config=preset_config("toy"), tokens=tuple(tok.encode("the cat sat on the mat")), weights="trained")
    weights = make_weights(inputs)
    trace = forward(inputs.config, weights, inputs.tokens, backend="reference")
    return LabResult(request_id=1, inputs=inputs, trace=trace, weights=weights,
                     labels=tuple(tok.labels(inputs.tokens)), compute_ms=0.0, token_label=tok.label)


def test_scores_outline_the_traced_cell_in_every_score_map():
    result = _result()
    sel = Selection(layer=1, head=0, query=5, station="scores")
    assert all(p.outline is None for p in station_panels("scores", result, sel))
    traced = station_panels("scores", result, dataclasses.replace(sel, trace=("attn_scores", 4, 2)))
    outlined = {p.name for p in traced if p.outline == (4, 2, 1, 1)}
    assert outlined == set(SCORE_MAPS) & {p.name for p in traced} and len(outlined) >= 3
    q_traced = station_panels("scores", result, dataclasses.replace(sel, trace=("q", 4, 2)))
    assert all(p.outline is None for p in q_traced)                   # a q cell is not a score


def test_softmax_outlines_the_traced_key(qtbot):
    from widgets.stations import SoftmaxRowStation

    result = _result()
    page = SoftmaxRowStation()
    qtbot.addWidget(page)
    page.resize(1000, 600)
    page.show()
    sel = Selection(layer=1, head=0, query=5, station="softmax", trace=("attn_scores", 5, 3))
    page.show_result(result, sel)
    for box in page.key_box.values():
        np.testing.assert_array_equal(box.opts["x"], [3])
    page.show_selection(dataclasses.replace(sel, trace=("attn_scores", 2, 1)))   # another query's cell: not here
    assert all(len(box.opts["x"]) == 0 for box in page.key_box.values())
