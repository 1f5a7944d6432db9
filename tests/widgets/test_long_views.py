"""Views of long texts: a T×T map marks its query row's strongest keys, and the Softmax row becomes a
sparse plot of its top keys with their tokens — on screen and in figures (the same Panels)."""
from __future__ import annotations

import numpy as np

from app.values import Inputs, LabResult, Selection
from compute import PRESETS, Weights, forward, toy_tokenizer
from widgets.matrix import MatrixPlot
from widgets.views import MARKED_KEYS, TOP_KEYS, panel


def long_result(T=300):
    cfg = PRESETS["toy"].replace(n_ctx=512)
    tok = toy_tokenizer()
    words = tok.encode("the cat sat on the mat and")
    inputs = Inputs(config=cfg, tokens=tuple((words * T)[:T]), seed=1)
    weights = Weights.random(cfg, 1)
    trace = forward(cfg, weights, inputs.tokens, backend="cpu")
    return LabResult(request_id=1, inputs=inputs, trace=trace, weights=weights,
                     labels=tuple(tok.labels(inputs.tokens)), compute_ms=0.0, token_label=tok.label)


def test_long_maps_mark_the_query_rows_strongest_keys_and_the_softmax_row_is_sparse(canvas):
    res = long_result()
    sel = Selection(layer=1, head=1, query=250)
    row = np.asarray(res.trace["pattern", 1][1, 250])                   # [T]
    strongest = set(np.argsort(-row)[:MARKED_KEYS].tolist())
    for name in ("attn_scores_raw", "attn_scores", "pattern"):
        p = panel(name, res, sel)
        assert p.marks.shape == (MARKED_KEYS, 2) and set(p.marks[:, 0]) == {250}
        assert set(p.marks[:, 1].tolist()) == strongest, name
    sparse = panel("pattern_row", res, sel)
    keys = [int(c.split()[0]) for c in sparse.cols]
    assert len(keys) == TOP_KEYS and keys == sorted(keys) and all(k <= 250 for k in keys)   # in key order, seen
    assert set(keys) >= strongest and sparse.cols[0].split()[1] == res.labels[keys[0]]      # each with its token
    np.testing.assert_array_equal(sparse.values[0], row[keys])
    mp = MatrixPlot(canvas.ci, 0, 0, "pattern", kind="sequential")
    p = panel("pattern", res, sel)
    mp.set_data(p.values, p.rows, p.cols, masked=p.masked, levels=p.levels)
    mp.set_marks(p.marks)
    xs, ys = mp.key_marks.getData()
    assert sorted(xs.tolist()) == sorted(float(k) for k in strongest) and set(ys.tolist()) == {250.0}
    mp.set_marks(None)
    assert len(mp.key_marks.getData()[0]) == 0


def test_short_maps_have_no_marks_and_keep_the_full_softmax_row():
    res = long_result(T=40)
    sel = Selection(layer=0, head=0, query=30)
    assert panel("pattern", res, sel).marks is None
    assert panel("pattern_row", res, sel).values.shape == (1, 40)
