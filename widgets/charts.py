"""Charts: the line, bar, point, arrow and text plots the instrument pages show beside their
heatmaps, as plain values (`Chart`, `Series`) and one function that draws them (`draw_chart`).

Like a `widgets.views.Panel`, a Chart is what a person sees, picked from numbers compute made;
the page on screen and the exported figure draw the very same Chart with `draw_chart`, so the
figure equals the screen by construction.
"""
from __future__ import annotations

import html
import math
from dataclasses import dataclass, field

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QFont

from .axes import localise_plot
from .matrix import set_title
from .theme import CATEGORY, Palette  # noqa: F401 - CATEGORY: charts' colours of categories (widgets/theme.py)


@dataclass(frozen=True)
class Series:
    """One layer of a chart. style: "line", "points", "bars", "segments" (x, y hold the two ends
    of each segment one after the other), or "text" (one text per point)."""

    label: str                              # legend entry ("" = none)
    x: np.ndarray
    y: np.ndarray
    style: str = "line"
    colour: str = "foreground"              # a Palette field, or "#rrggbb"
    width: float = 2.0                      # line width (px); bars: bar width (data units)
    dashed: bool = False
    size: float = 9.0                       # points: symbol size (px)
    texts: tuple[str, ...] = ()
    colours: tuple[str, ...] = ()           # bars / points: one colour each


@dataclass(frozen=True)
class Chart:
    name: str                               # e.g. "pairs" (key of FigureSpec.data())
    title: str
    series: tuple[Series, ...]
    x_axis: str = ""
    y_axis: str = ""
    x_ticks: tuple[tuple[float, str], ...] | None = None
    y_ticks: tuple[tuple[float, str], ...] | None = None
    log_y: bool = False                     # y drawn as log10 (positive values only)
    aspect: bool = False                    # one unit of x = one unit of y (arrows keep their angles)
    x_range: tuple[float, float] | None = None
    y_range: tuple[float, float] | None = None
    axes: bool = True                       # False: no axes (a diagram)
    legend: bool = True
    kind: str = field(default="chart", init=False)

    @property
    def values(self) -> np.ndarray:
        """The first series' y, for FigureSpec.data() and the pages' content()."""
        return np.asarray(self.series[0].y) if self.series else np.zeros(0)


def colour_of(name: str, palette: Palette) -> str:
    return name if name.startswith("#") else getattr(palette, name)


def _log(y: np.ndarray) -> np.ndarray:
    y = np.asarray(y, np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(y > 0, np.log10(np.where(y > 0, y, 1.0)), np.nan)


def decade_ticks(lo: float, hi: float) -> list[tuple[float, str]]:
    """Ticks at powers of ten between 10^lo and 10^hi (log10 units)."""
    a, b = math.floor(lo), math.ceil(hi)
    step = max(1, (b - a) // 6)
    return [(float(e), f"1e{e}" if e not in (0, 1, -1) else {0: "1", 1: "10", -1: "0.1"}[e])
            for e in range(a, b + 1, step)]


def title_with_legend(chart: Chart, palette: Palette) -> str:
    """The title, and under it a key of the labelled series in their colours. In the title, not a
    pyqtgraph legend: that never covers the data, and it scales with an enlarged figure (a
    LegendItem ignores transformations and comes out tiny in a 300 dpi PNG)."""
    keyed = [s for s in chart.series if s.label] if chart.legend else []
    if not keyed:
        return html.escape(chart.title)
    glyphs = {"bars": "■", "points": "●", "line": "━", "segments": "━", "text": "A"}
    parts = [f"<span style='color:{colour_of(s.colour, palette)}'>{'╍' if s.dashed else glyphs[s.style]}</span>"
             f"&nbsp;{html.escape(s.label)}" for s in keyed]
    return f"{html.escape(chart.title)}<br><span style='font-size:85%'>{' &nbsp; '.join(parts)}</span>"


def draw_chart(plot: pg.PlotItem, chart: Chart, palette: Palette, font_pt: float = 10.0, line_scale: float = 1.0,
               title_size: str = "11pt") -> None:
    """Draw `chart` into `plot` (cleared first): its series, axes, ticks, legend and title."""
    plot.clear()                                          # also empties the legend
    localise_plot(plot)
    plot.setMenuEnabled(False)
    plot.setMouseEnabled(x=False, y=False)
    plot.hideButtons()
    set_title(plot, title_with_legend(chart, palette), palette.foreground, title_size)
    high = max(30.0, plot.titleLabel.item.boundingRect().height() + 2)        # pyqtgraph fixes 30 px: 2 lines
    plot.titleLabel.setMaximumHeight(high)
    plot.layout.setRowFixedHeight(0, high)
    font = QFont()
    font.setPointSizeF(font_pt)
    for side in ("left", "bottom"):
        axis = plot.getAxis(side)
        axis.setTextPen(palette.foreground)
        axis.setPen(pg.mkPen(palette.muted, width=line_scale))
        axis.setStyle(tickFont=font)
        axis.enableAutoSIPrefix(False)
    plot.setLabel("bottom", chart.x_axis, color=palette.muted, **{"font-size": f"{font_pt:.1f}pt"})
    plot.setLabel("left", chart.y_axis, color=palette.muted, **{"font-size": f"{font_pt:.1f}pt"})
    for side in ("left", "bottom"):                       # after setLabel, which shows an axis again
        plot.showAxis(side) if chart.axes else plot.hideAxis(side)
    ys = []
    for s in chart.series:
        x = np.asarray(s.x, np.float64)
        y = _log(s.y) if chart.log_y else np.asarray(s.y, np.float64)
        ys.append(y)
        colour = colour_of(s.colour, palette)
        name = None                                       # the legend is in the title (see title_with_legend)
        if s.style == "bars":
            brushes = [pg.mkBrush(colour_of(c, palette)) for c in s.colours] if s.colours else None
            base = math.floor(float(np.nanmin(y))) if chart.log_y and np.isfinite(y).any() else 0.0
            bars = pg.BarGraphItem(x=x, height=np.nan_to_num(y - base), y0=base, width=s.width, brush=colour,
                                   brushes=brushes, pen=pg.mkPen(None), name=name)
            plot.addItem(bars)
        elif s.style == "points":
            brushes = [pg.mkBrush(colour_of(c, palette)) for c in s.colours] if s.colours else pg.mkBrush(colour)
            plot.addItem(pg.ScatterPlotItem(x=x, y=y, size=s.size * line_scale, brush=brushes,
                                            pen=pg.mkPen(palette.background, width=1), name=name))
        elif s.style == "text":
            for xi, yi, text in zip(x, y, s.texts, strict=True):
                item = pg.TextItem(text, color=colour, anchor=(0.5, 0.5))
                small = QFont()
                small.setPointSizeF(font_pt * s.size / 9.0)
                item.setFont(small)
                item.setPos(float(xi), float(yi))
                plot.addItem(item)
        else:
            pen = pg.mkPen(colour, width=s.width * line_scale,
                           style=Qt.PenStyle.DashLine if s.dashed else Qt.PenStyle.SolidLine)
            connect = "pairs" if s.style == "segments" else "finite"
            plot.addItem(pg.PlotDataItem(x, y, pen=pen, connect=connect, name=name, antialias=True))
    view = plot.getViewBox()
    view.setAspectLocked(chart.aspect, ratio=1.0)
    if chart.x_ticks is not None:
        plot.getAxis("bottom").setTicks([list(chart.x_ticks)])
    else:
        plot.getAxis("bottom").setTicks(None)
    y_ticks = chart.y_ticks
    if chart.log_y and y_ticks is None:
        finite = np.concatenate([y[np.isfinite(y)] for y in ys]) if ys else np.zeros(0)
        if finite.size:
            y_ticks = tuple(decade_ticks(float(finite.min()), float(finite.max())))
    plot.getAxis("left").setTicks([list(y_ticks)] if y_ticks is not None else None)
    if chart.x_range is not None:
        plot.setXRange(*chart.x_range, padding=0.02)
    else:
        plot.enableAutoRange(axis="x")
    if chart.y_range is not None:
        plot.setYRange(*chart.y_range, padding=0.02)
    else:
        plot.enableAutoRange(axis="y")
