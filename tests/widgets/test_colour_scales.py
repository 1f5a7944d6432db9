"""Robust colour scales (the numbers: compute/instruments/explain.py robust_scale; the panels:
widgets/views.py robust_levels): a real model's outlier dimension must not blank the residual
stream. The scale ends at a high percentile, the clipped outliers are marked and named under
their panel, one click gives the full range, and colour bars print their ends."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from app.values import Selection
from compute.instruments.explain import robust_scale
from widgets.matrix import MatrixPlot
from widgets.stations import STATION_CLASSES
from widgets.views import Panel, panel, robust_levels, station_panels

from .test_views import CONFIGS, make_result

RESIDUAL = {"layernorm": ("resid_pre", "ln1_out", "ln1_scale"),
            "heads": ("result", "attn_out", "resid_pre", "resid_mid"),
            "mlp": ("mlp_out", "resid_post")}


def _lit(p: Panel) -> float:
    """The fraction of a panel's cells drawn with at least 10 % of the scale's colour (not white)."""
    end = max(abs(p.levels[0]), abs(p.levels[1])) if p.levels else float(np.abs(p.values).max())
    v = np.abs(p.values[np.isfinite(p.values)])
    return float((v >= 0.1 * end).mean())


def test_one_outlier_dimension_does_not_set_the_scale():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(20, 576)).astype(np.float32)                   # [T, d_model]
    x[:, 507] = 1500.0                                                  # the model's outlier dimension
    x[0, 507] = 24_000.0
    s = robust_scale(x)
    end, top, cut = s.end, s.top, s.cut
    assert top == 24_000.0 and end < 5.0 < cut < 1500.0                  # the 99th percentile, not the outlier
    p = Panel("resid_pre", "resid_pre", x, tuple(f"t{i}" for i in range(20)), tuple(map(str, range(576))),
              col_axis="d_model")
    (q,) = robust_levels([p])
    assert q.levels == (-end, end)
    assert "d_model 507" in q.caption and "24,000" in q.caption and "clipped" in q.caption
    assert q.clipped is not None and tuple(q.clipped[0]) == (0, 507)   # the largest first, marked
    assert set(q.clipped[:, 1]) == {507}                                 # only the outliers are marked
    (full,) = robust_levels([p], full=True)
    assert full.levels == (-top, top) and full.clipped is None and "full range" in full.caption


def test_without_outliers_a_panel_keeps_its_full_range():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(60, 576))
    p = Panel("resid_pre", "resid_pre", x, (), ())
    assert robust_levels([p]) == [p]                                     # the plot's own full range
    s = robust_scale(x)
    assert not s.clips and s.end == s.top == float(np.abs(x).max())


def test_a_short_vector_with_one_huge_token_is_clipped_to_the_rest():
    scale = np.array([1006.7, 7.9, 6.8, 7.1, 6.7, 7.7, 8.3, 6.6, 7.2, 6.5])[:, None]   # ln1_scale [T, 1]
    p = Panel("ln1_scale", "ln1_scale", scale, tuple(f"t{i}" for i in range(10)), ("scale",), kind="sequential")
    (q,) = robust_levels([p])
    assert q.levels == (0.0, pytest.approx(8.3)) and q.caption.startswith("▲ t0 = 1,007")
    assert "±" not in q.caption and "clipped above 8.3" in q.caption       # a 0…8.3 scale clips one end
    (full,) = robust_levels([p], full=True)
    assert full.caption.startswith("full range 0…1,007") and "±" not in full.caption


@pytest.mark.parametrize("name", list(CONFIGS))
def test_the_toy_models_look_as_before(name):
    """Small toy matrices are never clipped: every station's scales are the full range."""
    result = make_result(CONFIGS[name])
    for key in ("embeddings", "layernorm", "projections", "scores", "weighted_sum", "heads", "mlp"):
        for p in station_panels(key, result, Selection(layer=1, head=1, query=5)):
            assert p.clipped is None and p.caption == "", (key, p.name)
            if p.levels is not None and not p.missing:                # nothing beyond the scale
                v = p.values[np.isfinite(p.values)]
                assert p.levels[0] <= v.min() + 1e-6 and v.max() <= p.levels[1] + 1e-6, (key, p.name)


@pytest.mark.parametrize("T", [20, 60])
@pytest.mark.parametrize("layer", [0, 2, 3, 15, 29])
def test_smollm2_residual_panels_are_not_blank(smol, T, layer):
    """The lecturer's complaint, in numbers: on SmolLM2 the residual panels were white (one value
    set the scale). Now most of their cells carry colour, and the outlier is named. Layer 0's
    mlp_out and resid_post (top 32, 99th percentile 7.3) stayed white at ±32 with no caption
    whenever their top was under 4 × the percentile: a scale set by a value more than 3 times the
    99th percentile now clips, says so, and marks the largest."""
    result = smol(T)
    sel = Selection(layer=layer, head=0, query=T - 1)
    for key, names in RESIDUAL.items():
        panels = {p.name: p for p in station_panels(key, result, sel)}
        for name in names:
            p = panels[name]
            top = float(np.abs(p.values).max())
            before = float((np.abs(p.values) >= 0.1 * top).mean())        # the old scale: the largest value
            assert _lit(p) >= min(0.2, 3 * before) or before > 0.2, (key, name, _lit(p), before)
            if p.caption:
                assert "clipped" in p.caption and p.levels[1] < top
            own = key != "heads"                                          # (Heads shares its scales)
            if own and p.values.size >= 200 and top > 3 * np.quantile(np.abs(p.values), 0.99):   # a tail
                assert "clipped" in p.caption and p.levels[1] < top, (key, name, p.levels, top)
                assert _lit(p) >= 0.3, (key, name, _lit(p))                 # most cells carry colour
                if top >= 4 * p.levels[1]:
                    assert p.clipped is not None and len(p.clipped) >= 1    # the outliers marked
    (logits,) = robust_levels([panel("logits", result, sel)])              # the export's logits panel
    assert _lit(logits) >= 0.2, _lit(logits)
    stream = {p.name: p for p in station_panels("heads", result, sel)}["resid_pre"]
    if not layer:
        return                                                           # layer 0's input: the embeddings
    assert "d_model 507" in stream.caption                               # SmolLM2's massive dimension
    full = {p.name: p for p in station_panels("heads", result, dataclasses.replace(sel, full_range=True))}
    assert full["resid_pre"].levels[1] == pytest.approx(float(np.abs(stream.values).max()))


def test_colour_bars_print_their_ends(canvas):
    mp = MatrixPlot(canvas.ci, 0, 0, "x")
    mp.set_data(np.array([[-3.0, 1.0], [2.0, 120.0]]), ["a", "b"], ["a", "b"])
    mp.apply_style(font_pt=15)                                           # presentation type: still room
    ticks = [t for level in mp.bar.getAxis("right")._tickLevels for t in level]
    assert [text for _v, text in ticks] == ["120", "0", "-120"]
    assert mp.bar.getAxis("right").minimumWidth() >= 30                  # room for "-120" at 15 pt


def test_a_click_on_the_caption_asks_for_the_full_range(qtbot, smol):
    station = next(cls for cls in STATION_CLASSES if cls.key == "heads")()
    qtbot.addWidget(station)
    station.resize(1280, 700)
    station.show()
    qtbot.waitExposed(station)
    station.show_result(smol(20), Selection(layer=15, head=0, query=19, station="heads"))
    pre = station.pre
    assert pre.caption_text and pre.caption.isVisible() and len(pre.clipped)
    from PySide6.QtCore import QPointF

    class Click:
        def scenePos(self):
            return pre.caption.sceneBoundingRect().center()
    with qtbot.waitSignal(station.rangeToggled, timeout=1000):
        station._on_caption_click(Click())
    assert isinstance(pre.caption.sceneBoundingRect().center(), QPointF)


def _luma(rgb) -> float:
    r, g, b = (float(c) / 255.0 for c in rgb[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def test_the_dark_sequential_map_starts_at_the_page_and_ends_bright():
    """On a dark projector page the pattern's weights of 0.1–0.3 read (they were navy on black)
    and the strongest weights glow; the canvas is the window's dark grey, not black."""
    from widgets.theme import CONTRAST_DARK, DARK, colormap

    assert CONTRAST_DARK.background == DARK.background == "#1e1f22"
    cm = colormap("blues", dark=True)
    at = {v: cm.map(np.array([v]), mode="byte")[0] for v in (0.0, 0.1, 0.3, 1.0)}
    page = _luma((0x1e, 0x1f, 0x22))
    assert abs(_luma(at[0.0]) - page) < 0.01                              # 0 is the page
    assert _luma(at[0.1]) - page >= 0.12 and _luma(at[0.3]) - page >= 0.3    # small weights show
    assert _luma(at[1.0]) >= 0.85                                         # the high end bright
    lum = [_luma(cm.map(np.array([v]), mode="byte")[0]) for v in np.linspace(0, 1, 21)]
    assert all(b > a for a, b in zip(lum, lum[1:], strict=False))          # rising all the way


def test_orange_and_purple_mean_query_and_key_only():
    """The tiled softmax's m and ℓ, RoPE's θ_d bars and the K/V groups are neither a query nor a
    key: none of them is drawn in the query's or the key's colour."""
    from widgets.charts import CATEGORY
    from widgets.theme import CONTRAST_DARK, CONTRAST_LIGHT, DARK, LIGHT

    def rgb(c):
        return np.array([int(c[k:k + 2], 16) for k in (1, 3, 5)], float)
    roles = [rgb(c) for pal in (LIGHT, DARK, CONTRAST_LIGHT, CONTRAST_DARK) for c in (pal.query, pal.key)]
    for colour in CATEGORY:
        assert min(np.abs(rgb(colour) - r).sum() for r in roles) > 60, colour
    import inspect

    import widgets.pages.instrument_views as iv
    source = inspect.getsource(iv)
    for name in ('Series("m"', 'Series("ℓ"', 'Series("θ_d"'):
        line = next(text for text in source.splitlines() if name in text)
        assert '"accent' not in line, line


def test_colour_bars_print_their_unit(qtbot):
    """Each colour bar says what its values are, chosen by the panel's Trace name: the pattern's
    a probability, a score map's a score, a weight's a weight, the residual stream's an activation;
    the word is drawn along the bar beside its ends, and dropped where the bar is shorter than it."""
    from widgets.views import colour_unit

    assert [colour_unit(n) for n in ("pattern", "attn_scores_raw", "W_out", "resid_post", "3:mlp_out", "logits")] == \
        ["probability", "score", "weight", "activation", "activation", "logit"]
    result = make_result(CONFIGS["llama"])
    for key, expected in (("scores", {"pattern": "probability", "attn_scores_raw": "score"}),
                          ("mlp", {"mlp_out": "activation", "W_out": "weight"})):
        st = next(cls for cls in STATION_CLASSES if cls.key == key)()
        qtbot.addWidget(st)
        st.resize(1280, 700)
        st.show()
        qtbot.waitExposed(st)
        st.show_result(result, Selection(layer=1, head=0, query=5, station=key))
        st.fit()
        for mp in st.plots:
            if mp.name in expected:
                axis = mp.bar.getAxis("right")
                assert mp.unit == expected[mp.name] and axis.labelText == mp.unit, (key, mp.name, axis.labelText)
                if mp.bar.isVisible():
                    assert axis.label.isVisible() == (mp._unit_length <= axis.geometry().height() - 4)
                    label, bar = axis.label.sceneBoundingRect(), mp.bar.sceneBoundingRect()
                    assert bar.contains(label.center()), (mp.name, label, bar)   # along its own bar
        st.close()
