"""Figure widgets: style checks, title text, sizes, crisp cells, line hatching, restyling in place."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
import pytest

from compute import PRESETS, Weights, forward, toy_tokenizer
from widgets.figure import (
    FigureSpec,
    FigureStyle,
    FigureWidget,
    LineHatch,
    Panel,
    figure_spec,
    natural_size,
    title_html,
)
from widgets.matrix import MatrixPlot
from widgets.theme import DARK, FIGURE


class _Result:
    """The few LabResult fields a figure reads."""

    def __init__(self, tokens):
        cfg = PRESETS["toy"]
        self.inputs = type("I", (), {"config": cfg, "preset": "toy"})()
        self.weights = Weights.random(cfg, 0)
        self.trace = forward(cfg, self.weights, tokens, backend="reference")
        self.labels = tuple(toy_tokenizer().labels(tokens))
        self.token_label = toy_tokenizer().label


class _Sel:
    layer, head, query, lock_scales = 0, 1, 3, False


@pytest.fixture(scope="module")
def result():
    return _Result(toy_tokenizer().encode("the cat sat on the mat"))


def test_style_is_checked():
    for bad in ({"theme": "blue"}, {"sequential": "jet"}, {"diverging": "viridis"}, {"font_pt": 2}):
        with pytest.raises(ValueError):
            FigureStyle(**bad)
    assert FigureStyle().palette == FIGURE and FigureStyle(theme="dark").palette == DARK
    assert FigureStyle().cmap_for("sequential") == "blues" and FigureStyle().cmap_for("diverging") == "diverging"


def test_title_escapes_tokens_and_larger_fonts_make_larger_figures(qapp, result):
    spec = figure_spec("pattern", result, _Sel())
    assert spec.title == "pattern · toy · layer 0 · head 1" and spec.subtitle == "“the cat sat on the mat”"
    odd = FigureSpec("x", "a <b> & c", spec.panels, spec.grid, 1, 1)
    assert "a &lt;b&gt; &amp; c" in title_html(odd, FigureStyle())
    small, big = natural_size(spec, FigureStyle()), natural_size(spec, FigureStyle(font_pt=20))
    assert big[0] > 1.8 * small[0] and big[1] > 1.8 * small[1]


def test_figure_draws_crisp_cells_hatched_masks_and_chosen_maps(qtbot, result):
    widget = FigureWidget()
    qtbot.addWidget(widget)
    spec = figure_spec("scores", result, _Sel())
    widget.show_figure(spec, FigureStyle(sequential="cividis", font_pt=12))
    widget.resize(*natural_size(spec, FigureStyle(font_pt=12)))
    widget.show()
    pattern = widget.plots["pattern"]
    big = pattern.image.image                                         # 6×6 cells enlarged nearest-neighbour
    k = big.shape[0] // 6
    assert big.shape == (6 * k, 6 * k) and k >= 100
    shown = pattern.values.astype(np.float32)
    shown[pattern.masked] = np.nan
    np.testing.assert_array_equal(big[k // 2::k, k // 2::k], shown)
    assert pattern.cmap.name == "cividis" and widget.plots["attn_scores_raw"].cmap.name == "diverging"
    assert len(widget.hatches) == 2                                   # attn_scores and pattern
    assert all(isinstance(h, LineHatch) for h in widget.hatches)
    assert pattern.plot.getAxis("bottom").style["tickFont"].pointSizeF() == 12
    assert widget.title_label is not None


def test_matrix_plot_restyles_in_place(qtbot):
    canvas = pg.GraphicsLayoutWidget()
    qtbot.addWidget(canvas)
    mp = MatrixPlot(canvas.ci, 0, 0, "pattern", kind="sequential")
    mp.set_data(np.eye(3), ["a", "b", "c"], ["a", "b", "c"], levels=(0.0, 1.0))
    mp.apply_style(DARK, cmap="viridis", font_pt=16, line_scale=2)
    assert mp.palette == DARK and mp.cmap.name == "viridis" and mp.title_size == "17.6pt"
    assert mp._bands["row"].pen().widthF() == 5.0 and mp.text.max_px == 21
    np.testing.assert_array_equal(mp.values, np.eye(3))                # the data stays


def test_single_column_and_row_panels_are_capped(qtbot, result):
    widget = FigureWidget()
    qtbot.addWidget(widget)
    spec = figure_spec("layernorm", result, _Sel())
    widget.show_figure(spec, FigureStyle())
    assert widget.plots["ln1_mean"].plot.maximumWidth() == 190
    assert widget.plots["resid_pre"].plot.maximumWidth() > 10_000
    one = Panel("x", "x", np.ones((1, 4)), ("r",), ("a", "b", "c", "d"))
    spec = FigureSpec("x", "x", (one, one), ((0, 0, 1, 1), (1, 0, 1, 1)), 1, 2)
    widget.show_figure(spec, FigureStyle())
    assert widget.plots["x"].plot.maximumHeight() == 150
