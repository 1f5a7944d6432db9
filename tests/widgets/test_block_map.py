"""The block map: every station a live thumbnail on the residual stream, a click goes there,
and the exported `block_map` figure is the same picture."""
from __future__ import annotations

import numpy as np
import pytest

from app.values import Inputs, LabResult, Selection, make_weights, preset_config
from compute import forward, toy_tokenizer
from compute.stations import STATIONS
from widgets.block_map import BlockMap
from widgets.figure import FigureStyle, FigureWidget, figure_spec, natural_size
from widgets.views import BLOCK_MAP


@pytest.fixture(scope="module")
def result():
    tok = toy_tokenizer()
    inputs = Inputs(config=preset_config("toy"), tokens=tuple(tok.encode("the cat sat on the mat")), weights="trained")
    weights = make_weights(inputs)
    trace = forward(inputs.config, weights, inputs.tokens, backend="cpu")
    return LabResult(request_id=1, inputs=inputs, trace=trace, weights=weights,
                     labels=tuple(tok.labels(inputs.tokens)), compute_ms=0.0, token_label=tok.label)


def test_the_map_is_the_block_in_the_order_of_the_stream():
    assert [n.station for n in BLOCK_MAP if not n.stream] == ["layernorm", "projections", "scores", "softmax",
                                                            "weighted_sum", "heads", "mlp", "mlp"]
    assert {n.station for n in BLOCK_MAP} == set(STATIONS)                 # every station is on it
    assert [n.view for n in BLOCK_MAP if n.stream] == ["resid_pre", "resid_mid", "resid_post"]


def test_thumbnails_are_live_clickable_and_the_active_station_is_framed(qtbot, result):
    view = BlockMap()
    qtbot.addWidget(view)
    view.resize(1200, 500)
    view.show()
    sel = Selection(layer=1, head=1, query=5, station="scores")
    view.show_result(result, sel)
    plots = list(view.figure.plots.values())
    assert len(plots) == len(BLOCK_MAP)
    np.testing.assert_array_equal(plots[3].values, result.trace["attn_scores", 1][1])      # scores, layer 1 head 1
    np.testing.assert_array_equal(plots[-1].values, result.trace["resid_post", 1])
    assert len(view.frames) == 1 and view.frames[0].target is plots[3].plot              # the active one
    view.show_selection(Selection(layer=1, head=1, query=5, station="mlp"))
    assert [f.target for f in view.frames] == [p.plot for p in plots[8:]]                  # LN 2, MLP, +
    chosen = []
    view.chosen.connect(chosen.append)
    qtbot.wait(50)
    centre = plots[4].plot.vb.sceneBoundingRect().center()
    assert view.node_at(centre) == 4
    levels = {plots[k].levels for k, node in enumerate(BLOCK_MAP) if node.stream}
    assert len(levels) == 1                                                                # one scale for the stream


def test_the_exported_block_map_is_the_same_picture(qtbot, result):
    sel = Selection(layer=0, head=1, query=5)
    spec = figure_spec("block_map", result, sel)
    assert spec.flow == tuple(n.stream for n in BLOCK_MAP) and spec.columns == len(BLOCK_MAP)
    widget = FigureWidget()
    qtbot.addWidget(widget)
    widget.show_figure(spec, FigureStyle())
    widget.resize(*natural_size(spec, FigureStyle()))
    widget.show()
    assert widget.flow_item is not None and widget.flow_item.scene() is widget.scene()   # arrows, stream
    image = widget.grab().toImage()
    assert image.width() > 1000 and not image.isNull()
