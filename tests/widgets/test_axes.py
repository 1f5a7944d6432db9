"""The lean axis layout draws what pyqtgraph's own would: same tick texts at the same places."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import QRectF
from PySide6.QtGui import QFont, QImage, QPainter

from widgets.axes import (
    lean_bounding_rect,
    lean_draw_specs,
    lean_paint,
    lean_tick_values,
    make_lean,
    metrics_for,
    safe_paint,
)
from widgets.charts import Chart, Series, draw_chart
from widgets.matrix import LabelAxis, MatrixPlot
from widgets.theme import LIGHT


def _specs(fn, axis):
    image = QImage(700, 500, QImage.Format.Format_ARGB32)
    p = QPainter(image)
    try:
        return fn(axis, p)
    finally:
        p.end()


def _label_axis(qtbot, canvas, side, labels, wait_ms):
    """A LabelAxis on `side` of a new plot spanning the cells of `labels`, laid out once."""
    plot = canvas.addPlot(axisItems={side: LabelAxis(side)})
    axis = plot.getAxis(side)
    extent = (-0.5, len(labels) - 0.5)
    span = dict(xRange=extent) if side in ("top", "bottom") else dict(yRange=extent)
    plot.setRange(padding=0, **span)
    axis.set_labels(labels)
    qtbot.wait(wait_ms)
    return axis


def _texts(specs):
    """(text, centre along the axis, px) of each label; the rectangle's size differs a little
    (pyqtgraph rounds its measured text boxes), its centre must not."""
    _axis, _ticks, texts = specs
    return [(t, round(r.center().x(), 0), round(r.center().y(), 0)) for r, _flags, t in texts]


@pytest.mark.parametrize("levels", [(-1.3, 1.3), (0.0, 1.0), (-7.2, 7.2), (-0.0031, 0.0029)])
def test_numeric_tick_values_match_pyqtgraph(qtbot, levels):
    axis = pg.AxisItem("right")
    for size in (90, 250, 600):
        ours = lean_tick_values(axis, *levels, size)
        theirs = pg.AxisItem.tickValues(axis, *levels, size)
        assert [s for s, _ in ours] == [s for s, _ in theirs]
        for (_, a), (_, b) in zip(ours, theirs, strict=True):
            np.testing.assert_allclose(a, b, atol=1e-12)


def test_label_and_colour_bar_axes_lay_out_like_pyqtgraph(qtbot, canvas):
    mp = MatrixPlot(canvas.ci, 0, 0, "scores", row_axis="query i", col_axis="key j")
    words = ["the", "cat", "sat", "on", "a", "mat"]                     # distinct: matched by text below
    mp.set_data(np.random.default_rng(0).standard_normal((6, 6)), words, words)
    qtbot.wait(50)
    for axis in (mp.plot.getAxis("left"), mp.plot.getAxis("bottom"), mp.bar.getAxis("right")):
        lean = _texts(_specs(lean_draw_specs, axis))
        axis.lean_levels = getattr(axis, "lean_levels", None)
        stock = _texts(_specs(pg.AxisItem.generateDrawSpecs, axis))
        if isinstance(axis, LabelAxis):
            assert [t for t, *_ in lean] == words
        assert {t for t, *_ in lean} <= {t for t, *_ in stock}            # the same labels ...
        where = {t: xy for t, *xy in stock}
        for t, *xy in lean:
            assert abs(xy[0] - where[t][0]) <= 1 and abs(xy[1] - where[t][1]) <= 1   # ... in the same places
    bar = mp.bar.getAxis("right")
    assert lean_bounding_rect(bar) == pg.AxisItem.boundingRect(bar)


def test_relabelled_axis_is_laid_out_again(qtbot, canvas):
    axis = _label_axis(qtbot, canvas, "left", ["a", "b", "c"], 50)
    canvas.grab()
    assert axis.drawn_labels() == ["a", "b", "c"]
    axis.set_labels(["x", "y", "z"])
    canvas.grab()
    assert axis.drawn_labels() == ["x", "y", "z"]


def test_make_lean_keeps_fixed_ticks_on_pyqtgraphs_path(canvas):
    plot = canvas.addPlot()
    axis = make_lean(plot.getAxis("bottom"))
    axis.setTicks([[(0.0, "zero"), (1.0, "one")]])
    plot.setXRange(-0.5, 1.5, padding=0)
    assert [t for _r, _f, t in _specs(lean_draw_specs, axis)[2]] == ["zero", "one"]


def test_a_failing_paint_is_reported_not_fatal(qtbot, canvas, capsys):
    """PySide 6.11 crashes when an exception leaves a Python paint(); safe_paint stops it."""
    class Broken(pg.GraphicsObject):
        def boundingRect(self):
            return QRectF(0, 0, 1, 1)

        @safe_paint
        def paint(self, p, *args):
            raise RuntimeError("drawing went wrong")

    plot = canvas.addPlot()
    plot.addItem(Broken())
    canvas.grab()                                   # would end the process without the guard
    assert "drawing went wrong" in capsys.readouterr().err


def test_axes_without_a_tick_font_use_the_application_font_not_the_views(qtbot, canvas):
    """As pyqtgraph's QPicture painter did: a station's style sheet sets a larger view font."""
    axis = _label_axis(qtbot, canvas, "bottom", ["alpha", "beta", "gamma"], 20)
    image = QImage(700, 500, QImage.Format.Format_ARGB32)
    p = QPainter(image)
    big = QFont()
    big.setPointSizeF(QFont().pointSizeF() * 2)
    p.setFont(big)
    axis.picture = None
    lean_paint(axis, p)
    p.end()
    widths = {t: r.width() for r, _f, t in axis._lean_specs[2]}
    app_font = metrics_for(QFont(), image)
    assert widths["gamma"] == pytest.approx(app_font.horizontalAdvance("gamma"), abs=0.5)


def test_colour_bar_ticks_take_the_languages_decimal_comma(qtbot, canvas):
    """Colour bars said '0.5' in Swedish and Indonesian, beside '0,5' in the cells."""
    from widgets import i18n

    values = np.linspace(-1.3, 1.3, 36).reshape(6, 6)                       # [6, 6]
    found = {}
    try:
        for code in ("en", "sv", "id"):
            i18n.set_language(code)
            mp = MatrixPlot(canvas.ci, 0, 0, "scores", row_axis="query i", col_axis="key j")
            mp.set_data(values, list("abcdef"), list("abcdef"))
            qtbot.wait(50)
            found[code] = [t for _r, _f, t in _specs(lean_draw_specs, mp.bar.getAxis("right"))[2]]
            plain = make_lean(canvas.addPlot().getAxis("left"))          # a station's numeric axis
            found[code] += plain.tickStrings([-0.5, 0.0, 0.25], 1, 0.25)
            chart = canvas.addPlot()                                      # an instrument's chart
            line = Series(label="", x=np.array([0.0, 1.0]), y=np.array([0.0, 1.5]))     # [2], [2]
            draw_chart(chart, Chart(name="c", title="t", series=(line,)), LIGHT)
            found[code] += chart.getAxis("left").tickStrings([0.75], 1, 0.25)
            canvas.clear()
    finally:
        i18n.set_language("en")
    assert any("." in t for t in found["en"]), found
    for code in ("sv", "id"):
        assert found[code] == [t.replace(".", ",") for t in found["en"]], found
