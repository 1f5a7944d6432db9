"""The instrument pages' views and charts: a page draws exactly its figure's panels and charts, a
chart draws its series, and an enlarged figure enlarges the charts' lines with it."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
import pytest

from app.values import Inputs, Selection, compute_result, preset_config, preset_tokens
from compute import Config
from widgets.charts import Chart, Series, decade_ticks, draw_chart, title_with_legend
from widgets.figure import FigureStyle, FigureWidget, figure_spec
from widgets.pages import page_kind, page_views
from widgets.theme import LIGHT

MODERN_PAGES = ("rope", "shared_kv", "windows", "tiled_softmax", "ab")
MODERN_CLASSES = tuple(page_kind(k).widget for k in MODERN_PAGES)
ROPE = Config(d_model=16, n_heads=4, n_kv_heads=2, d_head=8, n_ctx=32, d_vocab=16, n_layers=2, norm="rmsnorm",
              positions="rope", rope_theta=100.0, mlp="swiglu", attn_bias=False, mlp_bias=False)


@pytest.fixture(scope="module", params=["toy", "rope"])
def result(request):
    if request.param == "toy":
        inputs = Inputs(config=preset_config("toy"), tokens=preset_tokens("toy"), weights="trained")
    else:
        inputs = Inputs(config=ROPE, tokens=tuple(preset_tokens("toy")) * 2, weights="random", preset="custom")
    return compute_result(inputs, request_id=7)


@pytest.mark.parametrize("cls", MODERN_CLASSES, ids=lambda c: c.key)
def test_a_page_draws_exactly_its_figures_views(qtbot, result, cls):
    page = cls()
    qtbot.addWidget(page)
    page.resize(1200, 800)
    page.show()
    sel = Selection(query=len(result.labels) - 1, head=1, station=cls.key, tile=2, tile_step=1)
    spec = figure_spec(cls.key, result, sel)
    full = page_views(cls.key, result, sel, compute_missing=True)
    extra = None
    if cls.key in ("windows", "ab"):                       # what app/ hands the page, made the same way
        from widgets.pages.instrument_views import condition_of, side_b, without_first

        extra = without_first(result) if cls.key == "windows" else side_b(result, condition_of(sel, ROPE))
        page.set_extra(extra)
    if cls.key == "rope" and result.inputs.config.positions == "rope":
        page.reveal.setChecked(True)                       # the test a lecturer holds back until asked
    page.show_result(result, sel)
    shown = page.content(result, sel)
    assert set(shown) == set(spec.data()) == set(full.data())
    for name, values in shown.items():
        np.testing.assert_array_equal(values, spec.data()[name], err_msg=name)
    for item in page.views.items:                          # and each is on screen
        target = page.widgets[item.view.name]
        if isinstance(item.view, Chart):
            assert target.items or not item.view.series, item.view.name
        else:
            np.testing.assert_array_equal(target.values, item.view.values, err_msg=item.view.name)
    assert page.text.text() and page.header.text()


def test_every_modern_page_is_in_the_page_table():
    from compute.stations import INSTRUMENT_PAGES, PAGE

    assert set(MODERN_PAGES) <= set(INSTRUMENT_PAGES)
    assert [cls.key for cls in MODERN_CLASSES] == list(MODERN_PAGES)
    assert all(PAGE[k].kind == "instrument" for k in MODERN_PAGES)


def test_a_chart_draws_its_series_and_keys_them_in_the_title(qapp):
    win = pg.GraphicsLayoutWidget()
    plot = win.addPlot()
    x = np.arange(4.0)
    chart = Chart("c", "a <title>", (Series("bars", x, x + 1, style="bars"), Series("", x, x, style="points"),
                                     Series("line", x, 2 * x, dashed=True),
                                     Series("", x, x, style="text", texts=("a", "b", "c", "d"))), log_y=True)
    draw_chart(plot, chart, LIGHT)
    kinds = sorted(type(item).__name__ for item in plot.items)
    assert kinds.count("TextItem") == 4 and "BarGraphItem" in kinds and "ScatterPlotItem" in kinds
    title = title_with_legend(chart, LIGHT)
    assert "a &lt;title&gt;" in title and "■</span>&nbsp;bars" in title and "╍</span>&nbsp;line" in title
    assert title_with_legend(Chart("c", "t", chart.series, legend=False), LIGHT) == "t"
    assert decade_ticks(-2.3, 0.2)[0] == (-3.0, "1e-3") and (0.0, "1") in decade_ticks(-2.3, 0.2)


def test_an_enlarged_figure_enlarges_the_chart_lines(qapp, result):
    sel = Selection(query=len(result.labels) - 1, station="tiled_softmax")
    widget = FigureWidget()
    widget.show_figure(figure_spec("tiled_softmax", result, sel), FigureStyle())

    def widths():
        plot = widget.charts["running"]
        return [item.opts["pen"].widthF() for item in plot.listDataItems() if isinstance(item, pg.PlotDataItem)]

    normal = widths()
    with widget.rendering_at(3.0):
        assert widths() == pytest.approx([3 * w for w in normal])
    assert widths() == pytest.approx(normal)
    widget.deleteLater()


def test_the_rope_labs_third_chart_has_a_start_before_the_answer(qtbot):
    """Issue 25 item 7: before 'Predict, then show' the chart was empty axes; now it shows the score
    at Δ = 0 and a dashed level over the range tested, and no curve that gives the answer away."""
    from widgets.pages.modern import RopeLab

    result = compute_result(Inputs(config=ROPE, tokens=tuple(preset_tokens("toy")) * 2, weights="random",
                                   preset="custom"), request_id=8)
    page = RopeLab()
    qtbot.addWidget(page)
    page.resize(1200, 800)
    page.show()
    page.show_result(result, Selection(query=len(result.labels) - 1, head=1, station="rope"))
    full = {i.view.name: i.view for i in page.views.items}["move"]
    hidden = page.chart_to_draw(full)
    assert not page.reveal.isChecked() and len(hidden.series) == 2
    level, start = hidden.series
    assert level.dashed and np.all(level.y == start.y[0]) and level.x[-1] == full.series[0].x[-1]
    assert not any(np.array_equal(s.y, full.series[0].y) or np.array_equal(s.y, full.series[1].y)
                   for s in hidden.series)
    assert page.widgets["move"].items                                   # drawn: not empty axes


def test_ab_shows_a_in_its_place_while_b_computes(qtbot):
    """Issue 25 item 7: while B computes, A is drawn where and as large as it will be beside B
    (B's places held, blank and named), so nothing moves when B arrives."""
    from widgets.pages.instrument_views import ab_views, condition_of, side_b

    result = compute_result(Inputs(config=preset_config("toy"), tokens=preset_tokens("toy"), weights="trained"),
                            request_id=9)
    sel = Selection(query=len(result.labels) - 1, head=1, station="ab")
    waiting = ab_views(result, sel)
    done = ab_views(result, sel, side_b(result, condition_of(sel, result.inputs.config)))
    assert waiting.waiting and not done.waiting
    places = lambda v: [(i.view.name, i.row, i.col, i.rowspan, i.colspan) for i in v.items]  # noqa: E731
    assert sorted(places(waiting)) == sorted(places(done))
    shown = {i.view.name: i.view for i in waiting.items}
    np.testing.assert_array_equal(shown["pattern/A"].values, result.trace["pattern", 0][1])
    assert not shown["pattern/B"].values.any() and "computing" in shown["pattern/B"].title


def test_the_tiled_softmax_has_no_slivers_in_a_projectors_canvas(qtbot):
    """Issue 25 item 7: at 1280 × 800 presentation the three rows left each [B_r, T] map a 1-row
    sliver and the memory chart none; in two rows every block row is at least 10 px and the charts
    have room."""
    from widgets.pages.modern import TiledSoftmax

    result = compute_result(Inputs(config=ROPE, tokens=tuple(preset_tokens("toy")) * 3, weights="random",
                                   preset="custom"), request_id=10)
    page = TiledSoftmax()
    qtbot.addWidget(page)
    page.resize(1260, 560)                        # the page's part of the window in presentation
    page.show()
    page.show_result(result, Selection(query=5, head=1, station="tiled_softmax", tile=4))
    qtbot.wait(50)
    for name in ("attn_scores", "pattern_tiled", "pattern", "difference"):
        mp = page.widgets[name]
        rows = mp.values.shape[0]
        assert mp.plot.vb.height() / rows >= 10, (name, mp.plot.vb.height(), rows)
    for name in ("memory", "running"):
        assert page.widgets[name].vb.height() >= 60, name
