"""The one panel vocabulary (widgets/views.py): a station on screen and its exported figure show the
same panels — names, titles, values, labels, colour scales — and the station draws exactly them."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from app.values import Inputs, LabResult, Selection, make_weights, preset_config
from compute import forward, toy_tokenizer
from compute.stations import STATIONS
from widgets.figure import figure_spec
from widgets.stations import STATION_CLASSES
from widgets.views import STATION_VIEWS, station_panels


@pytest.fixture(scope="module")
def result():
    tok = toy_tokenizer()
    inputs = Inputs(config=preset_config("toy"), tokens=tuple(tok.encode("the cat sat on the mat the cat")), seed=3)
    weights = make_weights(inputs)
    trace = forward(inputs.config, weights, inputs.tokens, backend="cpu")
    return LabResult(request_id=1, inputs=inputs, trace=trace, weights=weights,
                     labels=tuple(tok.labels(inputs.tokens)), compute_ms=0.0, token_label=tok.label)


SELECTIONS = [Selection(layer=1, head=0, query=5), Selection(layer=0, head=1, query=2, lock_scales=True)]


def _same(a, b):
    assert (a.name, a.title, a.rows, a.cols, a.row_axis, a.col_axis, a.kind, a.masked_text, a.levels,
            a.row_ticks, a.col_ticks) == (b.name, b.title, b.rows, b.cols, b.row_axis, b.col_axis, b.kind,
                                         b.masked_text, b.levels, b.row_ticks, b.col_ticks)
    np.testing.assert_array_equal(a.values, b.values)
    assert (a.masked is None) == (b.masked is None)
    if a.masked is not None:
        np.testing.assert_array_equal(a.masked, b.masked)


def test_every_station_has_a_view_and_a_class():
    assert tuple(STATION_VIEWS) == STATIONS
    assert [cls.key for cls in STATION_CLASSES] == list(STATIONS)


@pytest.mark.parametrize("sel", SELECTIONS)
@pytest.mark.parametrize("key", STATIONS)
def test_each_stations_panels_are_its_exported_figures_panels(qapp, result, key, sel):
    station = next(cls for cls in STATION_CLASSES if cls.key == key)()
    shown = station.panels(result, sel)
    spec = figure_spec(key, result, sel)
    assert len(shown) == len(spec.panels)
    for a, b in zip(shown, spec.panels, strict=True):
        _same(a, b)
    view = STATION_VIEWS[key]
    assert spec.grid == tuple((s.row, s.col, s.rowspan, s.colspan) for s in view.slots)   # the same places
    station.deleteLater()


@pytest.mark.parametrize("key", [k for k in STATIONS if k != "softmax"])
def test_a_station_draws_exactly_its_panels(qtbot, result, key):
    station = next(cls for cls in STATION_CLASSES if cls.key == key)()
    qtbot.addWidget(station)
    station.resize(1000, 700)
    station.show()
    sel = SELECTIONS[0]
    station.show_result(result, sel)
    for mp, p in zip(station.slot_plots, station_panels(key, result, sel), strict=True):
        np.testing.assert_array_equal(mp.values, np.atleast_2d(p.values))
        assert mp.name == p.title and mp.levels == (p.levels or mp.levels)
        assert list(mp.row_labels) == list(p.rows) and list(mp.col_labels) == list(p.cols)


@pytest.mark.parametrize(("key", "group"), [
    ("scores", ("attn_scores_raw", "attn_scores_scaled", "attn_scores")),     # ÷√d_head shows as paler
    ("weighted_sum", ("v", "terms", "z")),                                     # v → p·v → z
    ("embeddings", ("embed", "pos_embed", "resid_pre")),
    ("heads", ("result", "attn_out", "resid_pre", "resid_mid")),               # the residual add
])
def test_the_panels_a_lesson_compares_share_one_scale_by_default(result, key, group):
    for sel in SELECTIONS:
        levels = {p.name: p.levels for p in station_panels(key, result, sel)}
        assert len({levels[name] for name in group}) == 1 and levels[group[0]] is not None
    figure = {p.name: p.levels for p in figure_spec(key, result, SELECTIONS[0]).panels}
    assert len({figure[name] for name in group}) == 1                          # the figure too


def test_raw_scores_are_brighter_than_the_scaled_ones_by_sqrt_d_head(result):
    sel = SELECTIONS[0]
    panels = {p.name: p for p in station_panels("scores", result, sel)}
    raw, scaled = panels["attn_scores_raw"], panels["attn_scores_scaled"]
    top = float(np.abs(raw.values).max())
    assert raw.levels == (-top, top)                                            # the raw ones span it
    d_head = result.inputs.config.d_head
    assert float(np.abs(scaled.values).max()) == pytest.approx(top / np.sqrt(d_head), rel=1e-5)


def test_locking_the_scales_adds_a_stations_wider_groups(result):
    sel = SELECTIONS[0]
    free = {p.name: p.levels for p in station_panels("projections", result, sel)}
    lock = dataclasses.replace(sel, lock_scales=True)
    locked = {p.name: p.levels for p in station_panels("projections", result, lock)}
    assert free["ln1_out"] != free["q"] == free["k"] == free["v"]
    assert locked["ln1_out"] == locked["q"] == locked["k"] == locked["v"]


def test_masked_keys_are_marked_in_softmax_weighted_sum_and_the_head_lens(qtbot, result):
    from widgets.instruments import HeadLens

    sel = SELECTIONS[1]                                        # query 2 of 8: keys 3..7 are masked
    forbidden = np.arange(result.trace.T) > sel.query
    softmax = next(cls for cls in STATION_CLASSES if cls.key == "softmax")()
    qtbot.addWidget(softmax)
    softmax.resize(900, 600)
    softmax.show()
    softmax.show_result(result, sel)
    for band in softmax.mask_bands.values():                   # a hatched column per masked key, in both plots
        np.testing.assert_array_equal(band.opts["x"], np.flatnonzero(forbidden))
        assert (np.asarray(band.opts["height"]) > 0).all()
    assert len(softmax.labels_items) == sel.query + 1         # numbers only over the keys it can see
    for p in station_panels("weighted_sum", result, sel):     # Σ p·v: p, v and p·v hatch those rows
        if p.name in ("pattern", "v", "terms"):
            np.testing.assert_array_equal(p.masked.all(axis=1), forbidden)
            assert p.masked_text == ""
    lens = HeadLens()
    qtbot.addWidget(lens)
    lens.resize(900, 700)
    lens.show()
    lens.show_result(result, dataclasses.replace(sel, lens=((0, 0), (1, 1))))
    a, b, diff = lens.rows["pattern"]
    causal = np.triu(np.ones((8, 8), bool), 1)
    for mp in (a, b, diff):                                    # A, B and A − B
        np.testing.assert_array_equal(mp.masked, causal)
        assert mp.masked_text == ""                            # hatched cells carry no text


def test_hatched_cells_carry_no_text(result):
    sel = SELECTIONS[0]
    for key in STATIONS:
        for p in station_panels(key, result, sel):
            if p.masked is not None:
                assert p.masked_text == "", (key, p.name)
