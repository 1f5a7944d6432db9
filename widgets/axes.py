"""Leaner pyqtgraph axes, once the slowest part of repainting a station, and `safe_paint`.

pyqtgraph measures every tick label by asking the painter for a bounding rectangle and builds a
Point per tick; after each edit a station regenerates ~12 axes that way (about 6 ms at the toy
size, a third of a frame). `lean_draw_specs` lays out the same ticks, labels and axis line with
one cached font-metrics object: same tickValues / tickStrings, tick length and alpha, text
offset, text-fill limits and bounds clipping. `lean_paint` draws from those specs directly
(pyqtgraph records a QPicture and replays it), `lean_tick_values` and `lean_bounding_rect` skip
numpy and repeated geometry work. Axes with fixed ticks (setTicks) keep pyqtgraph's own code.
`make_lean` fits all of this to an existing axis (a ColorBarItem's, a plain plot's).
"""
from __future__ import annotations

import functools
import math
import traceback
import types

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPen

from .i18n import localise_number

_METRICS: dict[tuple, QFontMetricsF] = {}
_REPORTED: set[tuple] = set()


def safe_paint(paint):
    """For Python paint() overrides: an exception escaping one crashes PySide 6.11 outright
    (shiboken faults while reporting it), so report it here (once per kind) and skip that item.
    Overrides restore their painter state in `finally` blocks, so nothing leaks into later items."""

    @functools.wraps(paint)
    def guarded(self, p, *args):
        try:
            return paint(self, p, *args)
        except Exception as exc:  # noqa: BLE001 - one item not drawn beats the whole app gone
            kind = (paint.__qualname__, type(exc).__name__, str(exc))
            if kind not in _REPORTED:
                _REPORTED.add(kind)
                traceback.print_exc()
    return guarded


_ALIGN = {
    "left": Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
    "right": Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
    "top": Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignBottom,
    "bottom": Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop,
}


def metrics_for(font: QFont, device=None) -> QFontMetricsF:
    """Font metrics, cached per font and device resolution (a QFontMetricsF costs ~20 us)."""
    dpi = device.logicalDpiY() if device is not None else 0
    key = (font.key(), dpi)
    m = _METRICS.get(key)
    if m is None:
        m = QFontMetricsF(font, device) if device is not None else QFontMetricsF(font)
        if len(_METRICS) > 64:
            _METRICS.clear()
        _METRICS[key] = m
    return m


_WIDTHS: dict[tuple, float] = {}


def text_widths(font: QFont, texts) -> np.ndarray:
    """Advance widths of `texts` in `font` [len(texts)], remembered per word: token words repeat
    across edits and plots, so a 1024-token axis measures only the words it has not seen."""
    key = font.key()
    metrics = metrics_for(font)
    if len(_WIDTHS) > 100_000:
        _WIDTHS.clear()
    out = np.empty(len(texts))
    for n, text in enumerate(texts):
        w = _WIDTHS.get((key, text))
        if w is None:
            w = _WIDTHS[(key, text)] = metrics.horizontalAdvance(text)
        out[n] = w
    return out


def lean_draw_specs(axis: pg.AxisItem, p):
    """(axisSpec, tickSpecs, textSpecs) for AxisItem.drawPicture, as pyqtgraph would make them."""
    if axis._tickLevels is not None:                          # fixed ticks: pyqtgraph's own path
        return pg.AxisItem.generateDrawSpecs(axis, p)
    style = axis.style
    if style["tickFont"] is not None:
        p.setFont(style["tickFont"])
    orient = axis.orientation
    bounds = axis.mapRectFromParent(axis.geometry())
    view = axis.linkedView()
    tick_bounds = bounds if view is None or axis.grid is False else view.mapRectToItem(axis, view.boundingRect())
    if orient == "left":
        span = (QPointF(bounds.right() - 1, bounds.top() - 1), QPointF(bounds.right() - 1, bounds.bottom() + 1))
        tick_start, tick_stop, tick_dir, along = tick_bounds.right(), bounds.right(), -1, 0
    elif orient == "right":
        span = (QPointF(bounds.left() + 1, bounds.top() - 1), QPointF(bounds.left() + 1, bounds.bottom() + 1))
        tick_start, tick_stop, tick_dir, along = tick_bounds.left(), bounds.left(), 1, 0
    elif orient == "top":
        span = (QPointF(bounds.left() - 1, bounds.bottom() - 1), QPointF(bounds.right() + 1, bounds.bottom() - 1))
        tick_start, tick_stop, tick_dir, along = tick_bounds.bottom(), bounds.bottom(), -1, 1
    else:
        span = (QPointF(bounds.left() - 1, bounds.top() + 1), QPointF(bounds.right() + 1, bounds.top() + 1))
        tick_start, tick_stop, tick_dir, along = tick_bounds.top(), bounds.top(), 1, 1
    ends = [axis.mapToDevice(pt) for pt in span]
    if None in ends:
        return None
    length = math.hypot(ends[1].x() - ends[0].x(), ends[1].y() - ends[0].y())
    if length == 0:
        return None

    lo, hi = axis.range
    levels = axis.tickValues(lo, hi, length)[:getattr(axis, "lean_levels", None)]
    dif = hi - lo
    if dif == 0:
        scale, offset = 1.0, 0.0
    elif along == 0:
        scale = -bounds.height() / dif
        offset = lo * scale - bounds.height()
    else:
        scale = bounds.width() / dif
        offset = lo * scale
    x_min, x_max = sorted((lo * scale - offset, hi * scale - offset))

    positions: list[list[float | None]] = []
    tick_specs = []
    for i, (_spacing, values) in enumerate(levels):
        tick_length = style["tickLength"] / (i * 0.5 + 1.0)
        alpha = style["tickAlpha"]
        if alpha is None:
            alpha = 255 / (i + 1)
            if axis.grid is not False:                        # grid lines fade as they crowd
                alpha *= axis.grid / 255.0 * min(max(0.05 * length / (len(values) + 1), 0.0), 1.0)
        elif isinstance(alpha, float):
            alpha = min(255, max(0, int(round(alpha * 255))))
        pen = axis.tickPen()
        if pen.brush().style() == Qt.BrushStyle.SolidPattern:
            pen = QPen(pen)
            colour = QColor(pen.color())
            colour.setAlpha(int(alpha))
            pen.setColor(colour)
        row = []
        for v in values:
            x = v * scale - offset
            if x < x_min or x > x_max:
                row.append(None)
                continue
            row.append(x)
            end = tick_stop if axis.grid is not False else tick_stop + tick_length * tick_dir
            if end == tick_start:
                continue                                      # zero-length ticks draw nothing
            a = QPointF(x, tick_start) if along == 1 else QPointF(tick_start, x)
            b = QPointF(x, end) if along == 1 else QPointF(end, x)
            tick_specs.append((pen, a, b))
        positions.append(row)
    axis_spec = (axis.pen(), span[0], span[1])
    if not style["showValues"]:
        return axis_spec, tick_specs, []

    m = metrics_for(p.font(), p.device())
    text_h = m.height() * 0.8                                 # as pyqtgraph trims its rectangles
    gap = max(0, style["tickLength"]) + style["tickTextOffset"][along]
    item_rect = axis.boundingRect()
    flags = _ALIGN[orient] | Qt.TextFlag.TextDontClip
    text_specs = []
    along_sizes: list[float] = []
    widest = 0.0                                              # over every level so far
    last_across = 0.0
    for i in range(min(len(levels), style["maxTextLevel"] + 1)):
        spacing, values = levels[i]
        strings = axis.tickStrings(values, axis.autoSIPrefixScale * axis.scale, spacing)
        if not strings:
            continue
        sizes = []
        for j, s in enumerate(strings):
            if positions[i][j] is None:
                sizes.append(None)
                continue
            w = m.horizontalAdvance(s)
            sizes.append(w)
            along_sizes.append(text_h if along == 0 else w)
        widest = max([widest] + [w for w in sizes if w is not None])
        across = (widest if along == 0 else text_h) if along_sizes else 0.0
        if i > 0:                                             # sparser levels stop when crowded
            fill = sum(along_sizes) / length
            if any(len(text_specs) >= n and fill >= limit for n, limit in style["textFillLimits"]):
                break
        last_across = across
        for j, s in enumerate(strings):
            x, w = positions[i][j], sizes[j]
            if x is None:
                continue
            if orient == "left":
                rect = QRectF(tick_stop - gap - w, x - text_h / 2, w, text_h)
            elif orient == "right":
                rect = QRectF(tick_stop + gap, x - text_h / 2, w, text_h)
            elif orient == "top":
                rect = QRectF(x - w / 2, tick_stop - gap - text_h, w, text_h)
            else:
                rect = QRectF(x - w / 2, tick_stop + gap, w, text_h)
            if item_rect & rect != rect:                      # outside the axis: not drawn
                continue
            text_specs.append((rect, flags, s))
    axis._updateMaxTextSize(last_across)
    return axis_spec, tick_specs, text_specs


def lean_tick_values(axis: pg.AxisItem, lo: float, hi: float, size: float):
    """pyqtgraph's tick values for a linear axis, at most `axis.lean_levels` levels, without its
    numpy round trip per level (a few ticks each: plain Python is ~10x faster here)."""
    if axis.logMode:
        return pg.AxisItem.tickValues(axis, lo, hi, size)
    lo, hi = sorted((lo, hi))
    lo, hi = lo * axis.scale, hi * axis.scale
    seen: list[float] = []
    levels = []
    for spacing, offset in axis.tickSpacing(lo, hi, size)[:getattr(axis, "lean_levels", None)]:
        start = math.ceil((lo - offset) / spacing) * spacing + offset
        values = [start + k * spacing for k in range(max(0, int((hi - start) / spacing) + 1))]
        values = [v for v in values if all(abs(v - s) > spacing * 0.01 for s in seen)]   # not on a coarser tick
        seen.extend(values)
        levels.append((spacing / axis.scale, [v / axis.scale for v in values]))
    return levels


def lean_bounding_rect(axis: pg.AxisItem) -> QRectF:
    """pyqtgraph's AxisItem.boundingRect, remembered per size: Qt asks for it dozens of times
    per repaint, and pyqtgraph computes it in Python each time."""
    if axis.grid is not False:
        return pg.AxisItem.boundingRect(axis)
    geo = axis.geometry()
    key = (geo.width(), geo.height(), axis.style["tickLength"], axis.style["hideOverlappingLabels"])
    cached = getattr(axis, "_lean_rect", None)
    if cached is None or cached[0] != key:
        cached = axis._lean_rect = (key, pg.AxisItem.boundingRect(axis))
    return QRectF(cached[1])


_LAID_OUT = object()   # stands in for pyqtgraph's cached QPicture: None still means "lay out again"


@safe_paint
def lean_paint(axis: pg.AxisItem, p, *_args) -> None:
    """Draw the axis straight from its cached specs (pyqtgraph records a QPicture first and
    replays it: twice the text drawing after every edit). Without a tick font, the application
    font, as pyqtgraph's QPicture painter had (the view's own font can be larger)."""
    font = axis.style["tickFont"] or QFont()
    if axis.picture is None:
        p.save()
        try:
            p.setFont(font)
            axis._lean_specs = axis.generateDrawSpecs(p)
        finally:
            p.restore()
        axis.picture = _LAID_OUT
    specs = getattr(axis, "_lean_specs", None)
    if specs is not None:
        p.save()
        try:
            p.setFont(font)
            axis.drawPicture(p, *specs)
        finally:
            p.restore()


def localise_ticks(axis: pg.AxisItem) -> pg.AxisItem:
    """pyqtgraph writes numeric ticks as "0.5": write them in the reader's separators ("0,5" in
    Swedish and Indonesian), at each redraw (the language may change). Label axes keep theirs."""
    if getattr(axis.tickStrings, "__func__", None) is pg.AxisItem.tickStrings:
        plain = axis.tickStrings
        axis.tickStrings = lambda values, scale, spacing: [localise_number(t) for t in plain(values, scale, spacing)]
    return axis


def localise_plot(plot: pg.PlotItem) -> pg.PlotItem:
    """localise_ticks on each of a plot's numeric axes."""
    for side in ("left", "bottom", "right", "top"):
        localise_ticks(plot.getAxis(side))
    return plot


def make_lean(axis: pg.AxisItem, levels: int | None = None) -> pg.AxisItem:
    """Give an existing axis (e.g. a ColorBarItem's) the lean layout, with at most `levels`
    tick levels (a colour bar reads best with major and minor ticks, not pyqtgraph's third)."""
    axis.lean_levels = levels
    localise_ticks(axis)
    # No SI prefixes: with them every setRange re-renders the axis label's HTML (~0.1 ms), and a
    # colour bar's label is hidden, so it never showed one anyway.
    axis.enableAutoSIPrefix(False)
    axis.generateDrawSpecs = types.MethodType(lean_draw_specs, axis)
    axis.tickValues = types.MethodType(lean_tick_values, axis)
    axis.boundingRect = types.MethodType(lean_bounding_rect, axis)
    axis.paint = types.MethodType(lean_paint, axis)
    return axis
