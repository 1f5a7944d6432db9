"""Issue 25 item 7: the head lens page opens on the selected head (A) and the one most different
from it (B), not on layer 0/1 head 1 whatever is selected; the spin boxes say which."""
from __future__ import annotations

import numpy as np

from app.values import Inputs, LabResult, Selection, make_weights, preset_config
from compute import forward, toy_tokenizer
from compute.instruments import explain
from widgets.pages.classic import HeadLens
from widgets.pages.classic_views import head_lens_views


def test_the_lens_opens_on_the_selected_head_and_its_opposite(qtbot):
    tok = toy_tokenizer()
    inputs = Inputs(config=preset_config("toy"), tokens=tuple(tok.encode("the cat sat on the mat")), weights="trained")
    weights = make_weights(inputs)
    trace = forward(inputs.config, weights, inputs.tokens, backend="reference")
    result = LabResult(request_id=1, inputs=inputs, trace=trace, weights=weights,
                       labels=tuple(tok.labels(inputs.tokens)), compute_ms=0.0, token_label=tok.label)
    sel = Selection(layer=1, head=0, query=5, station="head_lens")
    assert sel.lens is None
    far = explain.most_different_head(trace, 1, 0, sel.query)
    page = HeadLens()
    qtbot.addWidget(page)
    page.resize(1200, 700)
    page.show()
    page.show_result(result, sel)
    assert [s.value() for s in page.spins] == [1, 0, *far]
    np.testing.assert_array_equal(page.rows["pattern"][0].values, trace["pattern", 1][0])
    np.testing.assert_array_equal(page.rows["pattern"][1].values, trace["pattern", far[0]][far[1]])
    views = head_lens_views(result, sel)                                 # the exported figure: the same two
    panels = {i.view.name: i.view for i in views.items}
    np.testing.assert_array_equal(panels["pattern_B"].values, trace["pattern", far[0]][far[1]])
