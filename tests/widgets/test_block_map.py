"""The block map: every station a live thumbnail on the residual stream, a click goes there,
and the exported `block_map` figure is the same picture."""
from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt

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


def _result_for(cfg, text="the cat sat on the mat"):
    tok = toy_tokenizer()
    inputs = Inputs(config=cfg, tokens=tuple(tok.encode(text)), weights="random")
    weights = make_weights(inputs)
    trace = forward(inputs.config, weights, inputs.tokens, backend="reference")
    return LabResult(request_id=2, inputs=inputs, trace=trace, weights=weights,
                     labels=tuple(tok.labels(inputs.tokens)), compute_ms=0.0, token_label=tok.label)


def test_the_map_shows_shapes_layers_and_heads_and_clicks_select_them(qtbot):
    """Issue 25 item 8: the overview a lecture starts from: every station's shapes at this model's
    sizes, the layers with their kind where they differ, the selected layer's heads with their K/V
    head, filling the canvas, a click selects."""
    cfg = preset_config("toy").replace(windows=(None, 2), n_kv_heads=1)
    result = _result_for(cfg)
    view = BlockMap()
    qtbot.addWidget(view)
    view.resize(1280, 570)                          # the central area at 1280 × 800 presentation
    view.show()
    view.show_result(result, Selection(layer=1, head=1, query=5, station="scores"))
    qtbot.wait(50)
    T, d = result.trace.T, cfg.d_model
    lines = dict(zip([n.label for n in BLOCK_MAP], view.shapes.lines, strict=True))
    assert lines["resid_pre"] == [f"resid_pre [{T}, {d}]"]
    assert lines["Q · K · V"] == [f"q [{T}, 2, {cfg.d_head}]", f"k, v [{T}, 1, {cfg.d_head}]"]   # MQA: one K/V head
    assert lines["MLP"][0] == f"mlp_post [{T}, {cfg.d_mlp}]"
    assert view.layers.labels == ["L0\ndense", "L1\nW=2"] and view.layers.selected == 1
    assert view.heads.labels == ["h0\nK/V 0", "h1\nK/V 0"] and view.heads.selected == 1
    np.testing.assert_array_equal(_pixels(view.heads.images[1]).shape[:2], (T, T))
    for strip in (view.layers, view.heads):          # large, inside the strip, never overlapping
        rects = strip.tile_rects()
        assert min(r.width() for r in rects) >= (30 if strip is view.layers else 90), [r.width() for r in rects]
        assert all(strip.rect().contains(r.toRect()) for r in rects)
        assert all(not a.intersects(b) for k, a in enumerate(rects) for b in rects[k + 1:])
    covered = sum(r.width() * r.height() for s in (view.layers, view.heads) for r in s.tile_rects())
    covered += sum(mp.plot.vb.width() * mp.plot.vb.height() for mp in view.figure.plots.values())
    assert covered / (view.width() * view.height()) > 0.25
    layers, heads = [], []
    view.layerChosen.connect(layers.append)
    view.headChosen.connect(heads.append)
    qtbot.mouseClick(view.layers, Qt.MouseButton.LeftButton, pos=view.layers.tile_rects()[0].center().toPoint())
    qtbot.mouseClick(view.heads, Qt.MouseButton.LeftButton, pos=view.heads.tile_rects()[0].center().toPoint())
    assert layers == [0] and heads == [0]
    columns = view.shapes.columns()                 # each shape under its own thumbnail
    plots = list(view.figure.plots.values())
    for col, mp in zip(columns, plots, strict=True):
        centre = view.figure.mapToGlobal(view.figure.mapFromScene(mp.plot.sceneBoundingRect().center())).x()
        assert abs(view.shapes.mapToGlobal(col.center().toPoint()).x() - centre) <= 2


def test_dense_layers_say_no_kind_and_heads_of_their_own_no_group():
    from widgets.block_map import TileStrip  # noqa: F401 - the strip is importable on its own
    result = _result_for(preset_config("toy"))
    view = BlockMap()
    view.resize(1000, 500)
    view.show()
    view.show_result(result, Selection(layer=0, head=0, query=2))
    assert view.layers.labels == ["L0", "L1"] and view.heads.labels == ["h0", "h1"]


def _pixels(image):
    ptr = image.constBits()
    return np.frombuffer(ptr, np.uint8, image.sizeInBytes()).reshape(image.height(), image.width(), 4)


def _ink(image) -> float:
    """The fraction of a tile's pixels drawn visibly off the page (light theme: white)."""
    bits = image.constBits()
    rgba = np.frombuffer(bits, np.uint8, image.sizeInBytes()).reshape(image.height(), -1)[:, :4 * image.width()]
    rgb = rgba.reshape(image.height(), image.width(), 4)[..., :3].astype(float)   # [h, w, 3]
    return float((rgb.min(axis=-1) < 235).mean())


def test_the_layer_tiles_show_their_patterns_at_60_tokens(qtbot, smol):
    """SmolLM2 at 60 tokens: the layers' tiles (~34 px for 60 × 60 weights of ~1/60) were nearly
    blank on 0…1. Each is max-pooled to ≤ 32 cells a side on its own 0…99th-percentile scale: the
    median tile's inked pixels doubled (measured: 0.049 → 0.102; the sparsest 0.03 → 0.04)."""
    from compute.instruments.overview import pattern_thumbnail

    result = smol(60)
    view = BlockMap()
    qtbot.addWidget(view)
    view.resize(1272, 690)
    view.show()
    view.show_result(result, Selection(layer=3, head=0, query=59, station="scores"))
    tiles = view.layers.images
    assert len(tiles) == result.inputs.config.n_layers
    assert all(max(t.width(), t.height()) <= 32 for t in tiles)
    ink = [_ink(t) for t in tiles]
    assert min(ink) >= 0.035 and float(np.median(ink)) >= 0.09, ink
    values, (lo, hi) = pattern_thumbnail(result.trace["pattern", 3][0])
    assert lo == 0.0 and 0.0 < hi < 1.0 and values.shape == (30, 30)
