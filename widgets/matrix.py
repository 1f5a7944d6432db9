"""MatrixPlot: one labelled heatmap (pyqtgraph) with token ticks, a colour bar, values in the
cells when they are few enough to read, hatched masked cells, and row/column highlights.

Display conversions live here: masked cells (-inf in `attn_scores`, forbidden zeros in `pattern`)
become NaN, which the ImageItem leaves transparent over a hatched background. The causal mask (the
strict upper triangle) is drawn instead as a hatched staircase over the image: pyqtgraph's NaN
handling costs ~5 ms per 1024 x 1024 map, a staircase nothing.
"""
from __future__ import annotations

import dataclasses
import html
import itertools
import math
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QLineF, QPointF, QRectF, Qt, QTimer
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontMetricsF,
    QImage,
    QPainter,
    QPainterPath,
    QPen,
    QPolygonF,
    QStaticText,
)
from PySide6.QtWidgets import QGraphicsItem, QGraphicsPathItem, QGraphicsRectItem
from shiboken6 import isValid

from compute.instruments.overview import Overview, colour_cells, display_cells, pool_factors

from .axes import make_lean, metrics_for, safe_paint, text_widths
from .i18n import language, localise_number, num, tr
from .theme import BLACK, LIGHT, MASKED_INK, WHITE, Palette, colormap

# Highlight bands: (key, width in px before line scaling). A row or column band takes the colour
# of what the rows or columns are (palette.role_colour: query orange, key purple); the cell, ink.
# A traced cell's pairs (the Trace tab) are dashed ink instead: orange would say "the query is here".
BANDS = (("row", 2.5), ("col", 2.0), ("cell", 2.0))
BAND_WIDTH = dict(BANDS)

MAX_CELLS_FOR_VALUES = 1024
MIN_NUMBER_PX = 10          # smaller cell numbers are not read: colours only
PRESENT_NUMBER_PX = 12      # ... on a projector (then hover shows a cell's number)
# Larger matrices are drawn from every k-th row/column (a 12288 × 12288 W_O would need 600 MB
# of pixels); coordinates, highlights and tooltips stay in the full matrix's indices.
MAX_DISPLAY = 2048
# A side of more cells than its panel has pixels (and more than OVERVIEW_FROM) is drawn as an
# overview of half the panel's pixels (at least OVERVIEW_MIN cells): each block's largest value, where
# Qt's scaling would drop rows and columns (a sink column first) and colour a million cells per map.
OVERVIEW_FROM = 256
OVERVIEW_MIN = 128


NICE_STEPS = (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 2500, 5000, 10_000, 20_000, 50_000,
              100_000, 200_000, 500_000, 1_000_000)


FULL_LABELS = 32          # up to this many cells every label is drawn (smaller, or turned, to fit)
MIN_LABEL_PX = 6.0        # the smallest label type; below it labels thin out instead
PRESENT_LABEL_PX = 14.0   # ... on a projector (type of 14 pt and more): read from the back row
LABEL_GAP = 4.0           # px between a label and the axis line


def _label_line(font: QFont) -> float:
    """The room a label needs across its line: ascent and a little of the descent (neighbouring
    labels' descenders and ascenders may share a pixel row; the ascent already holds room for
    accents above the capitals)."""
    m = metrics_for(font)
    return m.ascent() + 0.3 * m.descent()


@dataclass(frozen=True)
class LabelLayout:
    """What a LabelAxis draws: the type size, whether bottom labels are turned upright, the step
    between labels, and (position, text, emphasised) per label."""

    px: float
    turned: bool
    step: int
    items: tuple[tuple[int, str, bool], ...]


class LabelAxis(pg.AxisItem):
    """An axis of cell labels (tokens or indices) laid out for legibility.

    Up to FULL_LABELS cells every label is drawn: the type shrinks to the cell pitch (down to
    MIN_LABEL_PX), and bottom labels wider than their cell are turned upright. Beyond that the
    labels are thinned evenly (every 2nd, 5th, 10th … as "index:word"); so are index labels along
    the bottom (0 1 2 … need no turning: every 5th says where the others are). The emphasised
    label (the selected or hovered query or key) is always drawn, bold, in its role colour;
    thinned neighbours that would touch it give way. End labels are kept inside the axis.
    Drawn from its own layout (`layout_for`), laid out when labels, range, size or type change.
    """

    def __init__(self, orientation: str, **kw):
        super().__init__(orientation, **kw)
        self.labels: list[str] = []
        self._labels_t: tuple[str, ...] = ()
        self._sparse = False                              # blanks in the labels do the thinning
        self._describing = True                           # indices, or labels that say where they are
        self._widths: dict[str, tuple[np.ndarray, np.ndarray]] = {}   # font key -> label, "i:" widths
        self.emphasis: int | None = None
        self.emphasis_colour = QColor(LIGHT.query)
        self.force_full = False                           # a station's trial: every label at the least size
        self.min_px = MIN_LABEL_PX                        # the least type size before labels thin out
        self.bare = False                                 # a thumbnail beside the lesson's main panel: no labels
        self.layout_: LabelLayout | None = None           # the layout drawn last (tests, tools)
        self._laid_for: tuple | None = None
        self.enableAutoSIPrefix(False)

    # -- inputs --------------------------------------------------------------------------------------
    def set_labels(self, labels: Sequence[str]) -> None:
        labels = list(labels)
        if labels != self.labels:
            self.labels = labels
            self._labels_t = tuple(labels)
            self._sparse = "" in labels
            self._describing = all(lab == str(i) or "·" in lab for i, lab in enumerate(labels))
            self._widths.clear()
            self._relayout()

    def set_emphasis(self, index: int | None, colour: str | None = None) -> None:
        """The label drawn bold (and always drawn): the selected or hovered row / column."""
        if colour is not None:
            self.emphasis_colour = QColor(colour)
        if index != self.emphasis:
            self.emphasis = index
            self._relayout()

    def setRange(self, mn, mx):  # noqa: N802 - pyqtgraph's name
        super().setRange(mn, mx)
        self._relayout()

    def setStyle(self, **kwds):  # noqa: N802 - pyqtgraph's name
        super().setStyle(**kwds)
        self._laid_for = None
        self._relayout()

    def resizeEvent(self, ev=None):  # noqa: N802 - Qt's name
        super().resizeEvent(ev)
        self._relayout()

    # -- layout --------------------------------------------------------------------------------------
    def _base_font(self) -> QFont:
        return QFont(self.style["tickFont"]) if self.style["tickFont"] is not None else QFont()

    def _font(self, px: float, bold: bool = False) -> QFont:
        font = self._base_font()
        font.setPixelSize(max(1, int(round(px))))
        font.setBold(bold)
        return font

    def _base_px(self) -> float:
        font = self._base_font()
        if font.pixelSize() > 0:
            return float(font.pixelSize())
        return font.pointSizeF() * 96.0 / 72.0

    def _label_widths(self, px: float) -> tuple[np.ndarray, np.ndarray]:
        """Pixel widths of the labels [n] and of their "index:" prefixes [n] at a type size
        (shared by every axis of the same labels: a station's eight axes measure them once)."""
        font = self._font(px)
        key = font.key()
        if key not in self._widths:
            if len(self._widths) > 8:
                self._widths.clear()
            shared = (key, self._labels_t)
            if shared not in _AXIS_WIDTHS:
                if len(_AXIS_WIDTHS) > 32:
                    _AXIS_WIDTHS.clear()
                _AXIS_WIDTHS[shared] = (text_widths(font, self.labels), _index_widths(font, len(self.labels)))
            self._widths[key] = _AXIS_WIDTHS[shared]
        return self._widths[key]

    def _along(self) -> float:
        return self.width() if self.orientation in ("top", "bottom") else self.height()

    def layout_for(self, lo: float, hi: float, length: float) -> LabelLayout:
        """The labels drawn over `length` px showing the range lo..hi (cell i spans i ± 0.5)."""
        n = len(self.labels)
        lo, hi = sorted((lo, hi))
        base = self._base_px()
        if n == 0 or length <= 0 or hi <= lo or self.bare:
            return LabelLayout(base, False, 1, ())
        pitch = length / (hi - lo)                          # px per cell
        visible = range(max(0, math.ceil(lo)), min(n - 1, math.floor(hi)) + 1)
        if self._sparse:
            marks = [i for i in self._sparse_marks(lo, hi, length) if lo <= i <= hi]
            layout = LabelLayout(base, False, 1, tuple((i, self.labels[i], i == self.emphasis) for i in marks))
            return layout if self.orientation in ("left", "right") else self._ends_apart(layout, lo, pitch, length)
        vertical = self.orientation in ("left", "right")
        if len(visible) <= FULL_LABELS and not (self._describing and not vertical):
            fit = self._fit_all(pitch, base, vertical)
            if fit is None and self.force_full:
                fit = (self.min_px, not vertical)
            if fit is not None:
                px, turned = fit
                return LabelLayout(px, turned, 1, tuple((i, self.labels[i], i == self.emphasis) for i in visible))
        layout = self._thinned(lo, hi, pitch, base, vertical)
        return layout if vertical else self._ends_apart(layout, lo, pitch, length)

    def _ends_apart(self, layout: LabelLayout, lo: float, pitch: float, length: float) -> LabelLayout:
        """Along the bottom the end labels are drawn inside the axis (paint): one moved in may
        touch its neighbour ("10001500" over 1,536 columns), which then gives way (unless it is
        the emphasised one: then the end label does)."""
        items = list(layout.items)
        if len(items) < 2:
            return layout
        font = self._font(layout.px)

        def span(item):
            w = metrics_for(self._font(layout.px, item[2]) if item[2] else font).horizontalAdvance(item[1])
            x = min(max((item[0] - lo) * pitch, w / 2), length - w / 2)     # as paint places it
            return x - w / 2, x + w / 2
        for end, inner in ((0, 1), (-1, -2)):
            if len(items) < 2:
                break
            a, b = sorted((span(items[end]), span(items[inner])))
            if b[0] < a[1] + 4:                                    # closer than 4 px: one gives way
                del items[end if items[inner][2] else inner]
        return dataclasses.replace(layout, items=tuple(items))

    def _fit_all(self, pitch: float, base: float, vertical: bool) -> tuple[float, bool] | None:
        """(type px, turned) at which every label fits its cell, or None."""
        def line(px):                                       # a label's height along a vertical run
            return _label_line(self._font(px))
        if not vertical:
            widest = float(self._label_widths(base)[0].max(initial=0.0))
            for shrink in (1.0, 0.9, 0.8):                  # a little smaller before turning upright
                if widest * shrink + 4 <= pitch:
                    return base * shrink, False
        px = base
        while px >= self.min_px:
            if line(px) <= pitch:
                return px, not vertical
            px -= 0.5
        return None

    def full_fits(self) -> bool:
        """Whether the labels drawn now are every label, each within its cell."""
        layout, n = self.layout_, len(self.labels)
        lo, hi = sorted(self.range)
        if layout is None or layout.step != 1 or self._sparse or n == 0 or hi <= lo:
            return layout is not None and layout.step == 1
        pitch = self._along() / (hi - lo)
        font = self._font(layout.px)
        if self.orientation in ("left", "right") or layout.turned:
            return _label_line(font) <= pitch + 0.05
        return float(self._label_widths(layout.px)[0].max(initial=0.0)) + 4 <= pitch + 0.05

    def _thinned(self, lo, hi, pitch, base, vertical) -> LabelLayout:
        n = len(self.labels)
        indexed = not self._describing
        word_w, index_w = self._label_widths(base)
        full_w = word_w + (index_w if indexed else 0.0)
        line = metrics_for(self._font(base)).height() * 1.05
        step = NICE_STEPS[-1]
        for candidate in NICE_STEPS if self._describing else NICE_STEPS[1:]:   # indices may all fit
            need = line if vertical else float(full_w[::candidate].max(initial=0.0)) + 10
            if need <= pitch * candidate:
                step = candidate
                break
        first = max(0, math.ceil(lo))
        picks = list(range(first + (-first) % step, min(n - 1, math.floor(hi)) + 1, step))   # multiples of step
        e = self.emphasis
        if e is not None and 0 <= e < n and lo <= e <= hi:
            half = (lambda i: line / 2) if vertical else (lambda i: full_w[i] / 2 + 5)
            picks = [i for i in picks if i == e or abs(i - e) * pitch >= half(i) + half(e)]
            if e not in picks:
                picks = sorted([*picks, e])

        def text(i):
            return f"{i}:{self.labels[i]}" if indexed else self.labels[i]
        return LabelLayout(base, False, step, tuple((i, text(i), i == e) for i in picks))

    def _sparse_marks(self, lo: float, hi: float, size: float) -> list[int]:
        """The non-blank labels (e.g. "h0", "h1", … at each head's first column), every k-th one
        when their neighbours would touch (12 heads across a narrow plot)."""
        marks = [i for i, lab in enumerate(self.labels) if lab]
        if len(marks) < 2:
            return marks
        px_per_cell = size / max(hi - lo, 1e-9)
        gap = min(b - a for a, b in itertools.pairwise(marks)) * px_per_cell          # px between neighbours
        font = self._font(self._base_px())
        if self.orientation in ("left", "right"):
            need = metrics_for(font).height() * 1.05
        else:
            need = float(text_widths(font, [self.labels[i] for i in marks]).max()) + 6
        k = 1
        while k < len(marks) and gap * k < need:
            k += 1
        return marks[::k]

    def _relayout(self) -> None:
        """Lay the labels out for the axis's size and range now; make room across the axis."""
        if not hasattr(self, "_laid_for"):
            return                                            # pyqtgraph's __init__ resizes us first
        lo, hi = self.range
        key = (lo, hi, self._along(), len(self.labels), id(self.labels), self.emphasis,
               self._base_font().key(), self.force_full, self.bare, self.min_px)
        if key == self._laid_for:
            return
        self._laid_for = key
        layout = self.layout_ = self.layout_for(lo, hi, self._along())
        across = 0.0
        if layout.items:
            bold = [t for _i, t, b in layout.items if b]
            plain = [t for _i, t, b in layout.items if not b]
            widths = [*text_widths(self._font(layout.px), plain), *text_widths(self._font(layout.px, True), bold)]
            height = metrics_for(self._font(layout.px)).height()
            if self.orientation in ("left", "right") or layout.turned:
                across = max(widths) + LABEL_GAP
            else:
                across = height + LABEL_GAP * 0.5
        self._set_across(across)
        self.update()

    def _set_across(self, px: float) -> None:
        """The axis's thickness across its line: only a real change re-lays the plot out."""
        px = math.ceil(px)
        if self.orientation in ("left", "right"):
            if abs(px - self.textWidth) >= 1:
                self.textWidth = px
                self._updateWidth()
        elif abs(px - self.textHeight) >= 1:
            self.textHeight = px
            self._updateHeight()

    # -- pyqtgraph's hooks: ticks and strings are the laid-out labels ----------------------------------
    def tickValues(self, minVal, maxVal, size):  # noqa: N802 - pyqtgraph's name
        layout = self.layout_for(minVal, maxVal, size)
        return [(layout.step, [i for i, _t, _b in layout.items])] if layout.items else []

    def tickStrings(self, values, scale, spacing):  # noqa: N802 - pyqtgraph's name
        drawn = {i: t for i, t, _b in (self.layout_.items if self.layout_ is not None else ())}
        return [drawn.get(int(round(v)), self.labels[int(round(v))] if 0 <= int(round(v)) < len(self.labels) else "")
                for v in values]

    def drawn_labels(self) -> list[str]:
        """The texts on the axis now, in order along it."""
        return [t for _i, t, _b in self.layout_.items] if self.layout_ is not None else []

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt's name
        return self.mapRectFromParent(self.geometry())

    @safe_paint
    def paint(self, p: QPainter, *_args) -> None:
        layout = self.layout_
        rect = self.boundingRect()
        p.save()
        try:
            p.setRenderHint(QPainter.RenderHint.TextAntialiasing, True)
            p.setPen(self.pen())
            side = self.orientation
            edge = {"left": QLineF(rect.topRight(), rect.bottomRight()),
                    "right": QLineF(rect.topLeft(), rect.bottomLeft()),
                    "top": QLineF(rect.bottomLeft(), rect.bottomRight()),
                    "bottom": QLineF(rect.topLeft(), rect.topRight())}[side]
            p.drawLine(edge)
            if layout is None or not layout.items:
                return
            r0, r1 = self.range                                 # reversed when the view is inverted
            length = self._along()
            if r1 == r0 or length <= 0:
                return
            plain, bold = self._font(layout.px), self._font(layout.px, True)
            height = metrics_for(plain).height()
            ink = self.textPen().color()
            for i, text, emphasised in layout.items:
                font = bold if emphasised else plain
                p.setFont(font)
                p.setPen(self.emphasis_colour if emphasised else ink)
                w = metrics_for(font).horizontalAdvance(text)
                t = (i - r0) / (r1 - r0) * length               # px from the axis's start (r0)
                if side in ("left", "right"):
                    y = rect.top() + length - t                     # r0 at the bottom, as pyqtgraph
                    y = min(max(y, rect.top() + height / 2), rect.bottom() - height / 2)
                    if side == "left":
                        box = QRectF(rect.right() - LABEL_GAP - w, y - height / 2, w, height)
                        p.drawText(box, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, text)
                    else:
                        box = QRectF(rect.left() + LABEL_GAP, y - height / 2, w, height)
                        p.drawText(box, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, text)
                    continue
                x = rect.left() + t
                if layout.turned:                               # upright, reading upwards to the matrix
                    x = min(max(x, rect.left() + height / 2), rect.right() - height / 2)
                    p.save()
                    p.translate(x, rect.top() + LABEL_GAP * 0.5)
                    p.rotate(-90)
                    p.drawText(QRectF(-w, -height / 2, w, height),
                               Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, text)
                    p.restore()
                    continue
                x = min(max(x, rect.left() + w / 2), rect.right() - w / 2)   # the end labels stay inside
                top = rect.top() + LABEL_GAP * 0.5 if side == "bottom" else rect.bottom() - LABEL_GAP * 0.5 - height
                p.drawText(QRectF(x - w / 2, top, w, height), Qt.AlignmentFlag.AlignCenter, text)
        finally:
            p.restore()


_LUMINANCE: dict[int, tuple] = {}
_AXIS_WIDTHS: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}   # (font key, labels) -> label, "i:" widths
_INDEX_WIDTHS: dict[tuple, np.ndarray] = {}


def _index_widths(font: QFont, n: int) -> np.ndarray:
    """Widths of "0:", "1:", … "n-1:" [n] in `font` (the same for any labels of that count)."""
    key = (font.key(), n)
    if key not in _INDEX_WIDTHS:
        if len(_INDEX_WIDTHS) > 32:
            _INDEX_WIDTHS.clear()
        _INDEX_WIDTHS[key] = text_widths(font, [f"{i}:" for i in range(n)])
    return _INDEX_WIDTHS[key]


def _luminance(cmap: pg.ColorMap) -> np.ndarray:
    """Relative luminance of a colour map's 256 steps [256], cached per map object."""
    hit = _LUMINANCE.get(id(cmap))
    if hit is None or hit[0] is not cmap:
        lut = cmap.getLookupTable(nPts=256, alpha=False).astype(np.float64) / 255.0     # [256, 3]
        hit = _LUMINANCE[id(cmap)] = (cmap, lut @ np.array([0.2126, 0.7152, 0.0722]))    # [256]
    return hit[1]


def idx_labels(n: int) -> list[str]:
    """Axis labels for plain indices 0..n-1."""
    return [str(i) for i in range(n)]


def symmetric_levels(*arrays: np.ndarray) -> tuple[float, float]:
    """Symmetric levels covering the finite values of all arrays (one shared colour scale)."""
    m = 0.0
    for a in arrays:
        lo, hi = finite_range(a)
        m = max(m, abs(lo), abs(hi))
    return (-m, m) if m > 0 else (-1.0, 1.0)


_CAUSAL: dict[int, tuple[np.ndarray, QPainterPath]] = {}


def causal_mask(n: int) -> tuple[np.ndarray, QPainterPath]:
    """The causal mask of n tokens (True above the diagonal: key j > query i) and the outline of
    its cells in plot coordinates (cell (i, j) spans j ± 0.5, i ± 0.5): a staircase."""
    if n not in _CAUSAL:
        if len(_CAUSAL) > 8:
            _CAUSAL.clear()
        upper = np.triu(np.ones((n, n), np.bool_), 1)                      # [n, n]
        corners = [QPointF(0.5, -0.5)]
        for i in range(n - 1):                                           # row i: keys i+1 .. n-1
            corners += [QPointF(i + 0.5, i + 0.5), QPointF(i + 1.5, i + 0.5)]
        corners += [QPointF(n - 0.5, -0.5)]
        path = QPainterPath()
        if n > 1:
            path.addPolygon(QPolygonF(corners))
            path.closeSubpath()
        _CAUSAL[n] = (upper, path)
    return _CAUSAL[n]


def finite_range(a: np.ndarray) -> tuple[float, float]:
    """(min, max) of the finite values of `a`, (0, 0) if there are none. fmin/fmax skip NaN
    without the boolean-indexed copy (a 1024 x 1024 map: ~0.5 ms instead of ~2 ms)."""
    a = np.asarray(a)
    if a.size == 0:
        return 0.0, 0.0
    with np.errstate(invalid="ignore"):
        lo, hi = float(np.fmin.reduce(a, axis=None)), float(np.fmax.reduce(a, axis=None))
    if math.isfinite(lo) and math.isfinite(hi):
        return lo, hi
    finite = a[np.isfinite(a)]                            # rare: infinities (a masked map's -inf)
    return (float(finite.min()), float(finite.max())) if finite.size else (0.0, 0.0)


def decimals_for(values: np.ndarray) -> int | None:
    """Decimals that give the largest value two significant digits (2..4), or None for
    scientific notation when even 4 decimals would print zeros."""
    finite = np.abs(values[np.isfinite(values)])
    top = float(finite.max()) if finite.size else 0.0
    if top == 0.0 or top >= 1.0:
        return 2
    d = 1 - math.floor(math.log10(top))
    return d if d <= 4 else None


def format_value(v: float, decimals: int | None = 2) -> str:
    """A cell's number as a person reads it (with the decimal comma in Swedish and Indonesian)."""
    if not np.isfinite(v):
        return "−∞" if v < 0 else ("+∞" if v > 0 else "NaN")
    if v == 0:
        return "0"
    if decimals is None:
        return localise_number(f"{v:.1e}")
    a = abs(v)
    if a >= 100:
        return f"{v:.0f}"
    if a >= 10 and decimals <= 2:
        return localise_number(f"{v:.1f}")
    text = f"{v:.{decimals}f}"
    return "0" if float(text) == 0 else localise_number(text)


def set_title(plot: pg.PlotItem, text: str, colour: str, size: str = "11pt") -> None:
    """A plot title that is clipped rather than widen the whole layout beyond the window."""
    label = plot.titleLabel
    if not getattr(label, "_relaxed", False):
        original = label.updateMin

        def update_min() -> None:                     # keep the height, drop the minimum width
            original()
            label.setMinimumWidth(0)
            label._sizeHint[Qt.SizeHint.MinimumSize] = (0, label._sizeHint[Qt.SizeHint.MinimumSize][1])
            label.updateGeometry()

        label.updateMin = update_min
        label.setFlag(QGraphicsItem.GraphicsItemFlag.ItemClipsChildrenToShape)
        label._relaxed = True
    plot.setTitle(text, size=size, color=colour)
    # Centre the title over the whole plot (axis, image and colour bar), not just the image.
    columns = plot.layout.columnCount()
    if getattr(label, "_span", 1) != columns:
        plot.layout.removeItem(label)
        plot.layout.addItem(label, 0, 0, 1, columns)
        label._span = columns


_STATIC: dict[tuple, QStaticText] = {}


def _static_text(font_key: str, font: QFont, text: str) -> QStaticText:
    """A QStaticText of `text` in `font`, cached (cell numbers repeat across cells, plots and edits)."""
    st = _STATIC.get((font_key, text))
    if st is None:
        if len(_STATIC) > 20_000:
            _STATIC.clear()
        st = _STATIC[(font_key, text)] = QStaticText(text)
        st.setTextFormat(Qt.TextFormat.PlainText)
        st.prepare(font=font)
    return st


class CellText(pg.GraphicsObject):
    """Numbers centred in each cell, drawn in screen pixels so they never stretch."""

    def __init__(self):
        super().__init__()
        self._values: np.ndarray | None = None
        self._masked: np.ndarray | None = None
        self._colours: list[list[QColor]] = []
        self.max_px = 15                              # largest number size: the axis type's size
        self.min_px = MIN_NUMBER_PX                   # smallest: below it the cells show colours only
        self.px_scale = 1.0                           # > 1 while a figure renders into a larger image
        self.number_px: float | None = None           # set by a station: one size for a group, 0 = none
        self.decimals_shown: int | None = None        # set by a station: fewer decimals in narrow cells
        self.masked_colour = QColor(MASKED_INK)
        self.masked_background = QColor(255, 255, 255, 200)   # behind a masked cell's text, over the hatch
        self.setZValue(5)

    def set_values(self, values: np.ndarray | None, colours=None, masked=None, masked_text: str = "") -> None:
        self.prepareGeometryChange()
        self._values = values
        self._decimals = decimals_for(values) if values is not None else 2
        self._masked = masked
        self._masked_text = masked_text
        self._colours = colours or []
        self._texts = None
        self._layout_key = None                       # texts and font are laid out again
        self.update()

    def boundingRect(self) -> QRectF:
        if self._values is None:
            return QRectF()
        rows, cols = self._values.shape
        return QRectF(-0.5, -0.5, cols, rows)

    def texts(self, decimals: int | None = None) -> tuple[list[list[str]], list[list[bool]]]:
        """The text of every cell ("" in a masked one unless told otherwise), and which are
        masked; `decimals` fewer than the matrix's own when its cells are narrow."""
        d = self._decimals if decimals is None else decimals
        if self._texts is None or self._texts[0] != (d, language()):    # a new language: its decimal mark
            rows, cols = self._values.shape
            hidden = self._masked.tolist() if self._masked is not None else [[False] * cols for _ in range(rows)]
            texts = [[self._masked_text if hidden[i][j] else format_value(float(self._values[i, j]), d)
                      for j in range(cols)] for i in range(rows)]
            self._texts = ((d, language()), texts, hidden)
        return self._texts[1], self._texts[2]

    def fewer_decimals(self) -> int | None:
        """One decimal less than the matrix's own (at least one), or None if there is none to drop."""
        d = self._decimals
        return d - 1 if d is not None and d > 1 else None

    def fit_px(self, cell_w: float, cell_h: float, decimals: int | None = None) -> float | None:
        """The number size for cells of this many device px: from the cell's shorter side up to
        the axis type, shrunk until the widest number fits; None when even MIN_NUMBER_PX does not."""
        if self._values is None or self._values.size == 0:
            return None
        ps = self.px_scale
        px = float(int(min(self.max_px * ps, min(cell_w, cell_h) * 0.5)))
        if px < self.min_px * ps:
            return None
        texts, _hidden = self.texts(decimals)
        widest = max((t for row in texts for t in row), key=len, default="")
        while px >= self.min_px * ps:
            font = QFont()
            font.setPixelSize(int(px))
            if metrics_for(font).horizontalAdvance(widest) <= cell_w * 0.9:
                return px / ps
            px -= 1
        return None

    def _lay_out(self, cell_w: float, cell_h: float, ps: float):
        texts, hidden = self.texts(self.decimals_shown)
        px = self.fit_px(cell_w, cell_h, self.decimals_shown)
        if px is not None and self.number_px is not None:
            px = min(px, self.number_px) if self.number_px > 0 else None   # the group's size, or none
        if px is None:
            return texts, hidden, None, None
        font = QFont()
        font.setPixelSize(int(round(px * ps)))
        return texts, hidden, font, QFontMetricsF(font)

    @safe_paint
    def paint(self, p: QPainter, *args) -> None:
        if self._values is None:
            return
        tr = p.transform()
        cell_w, cell_h = abs(tr.m11()), abs(tr.m22())
        ps = self.px_scale
        rows, cols = self._values.shape
        # Texts and font depend only on the values and the cell size: made once per change.
        key = (round(cell_w, 1), round(cell_h, 1), ps, self.max_px, self.number_px, self.decimals_shown)
        if getattr(self, "_layout_key", None) != key:
            self._layout_key = key
            self._layout = self._lay_out(cell_w, cell_h, ps)
        texts, hidden, font, metrics = self._layout[:4]
        if font is None:
            return                                    # numbers would overlap: colours only
        if len(self._layout) == 4:                    # lay out the texts once per change (cached)
            key_f = font.key()
            statics = [[_static_text(key_f, font, t) if t else None for t in row] for row in texts]
            halves = [[(st.size().width() / 2, st.size().height() / 2) if st is not None else None
                       for st in row] for row in statics]
            self._layout = self._layout + (statics, halves)
        statics, halves = self._layout[4], self._layout[5]
        m11, m22, dx, dy = tr.m11(), tr.m22(), tr.dx(), tr.dy()   # cells are axis-aligned: no shear
        th = metrics.height()
        p.save()
        try:
            p.resetTransform()
            p.setFont(font)
            pen = None
            for i in range(rows):
                cy = m22 * i + dy
                for j in range(cols):
                    static = statics[i][j]
                    if static is None:
                        continue
                    cx = m11 * j + dx
                    hw, hh = halves[i][j]
                    masked = hidden[i][j]
                    if masked:                            # keep the hatch from striking the "−∞" through
                        p.setPen(Qt.PenStyle.NoPen)
                        p.setBrush(self.masked_background)
                        p.drawRect(QRectF(cx - hw - 2.0, cy - th / 2, 2 * hw + 4.0, th))
                        pen = None
                    colour = self.masked_colour if masked else self._colours[i][j]
                    if colour is not pen:
                        p.setPen(colour)
                        pen = colour
                    # Laid-out text shared by every cell and plot showing the same number: drawText
                    # would lay each string out again on every repaint.
                    p.drawStaticText(QPointF(cx - hw, cy - hh), static)
        finally:
            p.restore()


def _packed(lut: np.ndarray) -> np.ndarray:
    """A colour map's lookup table [n, 3 or 4] uint8 as QImage ARGB32 pixels [n] uint32."""
    lut = np.asarray(lut, np.uint32)
    alpha = lut[:, 3] if lut.shape[1] > 3 else np.uint32(255)
    return (alpha << 24) | (lut[:, 0] << 16) | (lut[:, 1] << 8) | lut[:, 2]


class MapImage(pg.ImageItem):
    """The ImageItem of a heatmap that colours its cells itself, and after an edit that kept most
    cells (`set_cells` with `changed`) only the rows and columns the edit made again, on the
    same colour scale; a new scale or colour map colours them all (pyqtgraph colours every cell
    of every image on each change: 1,024² cells four times per edit)."""

    def __init__(self):
        super().__init__(axisOrder="row-major")
        self._changed: tuple[int, int] | None = None
        self._pixels: np.ndarray | None = None           # [r, c] uint32 ARGB32 as drawn
        self._coloured_with: tuple | None = None
        self._lut_packed: tuple | None = None

    def setImage(self, image=None, autoLevels=None, **kargs):  # noqa: N802 - pyqtgraph's name
        self._changed = None                              # anyone else's image: coloured in full
        super().setImage(image, autoLevels=autoLevels, **kargs)

    def set_cells(self, cells: np.ndarray, levels: tuple[float, float],
                  changed: tuple[int, int] | None = None) -> None:
        """Show display cells [r, c]; `changed` = (row, col): only rows from `row` and, above them,
        columns from `col` differ from the cells shown before (None: any may)."""
        before = self._changed                            # what changed since the last paint, if unpainted
        super().setImage(cells, levels=levels, autoLevels=False)
        self._changed = None if changed is None or before is None else (min(before[0], changed[0]),
                                                                         min(before[1], changed[1]))

    def render(self):
        image, lut = self.image, self.lut
        if image is None or image.ndim != 2 or image.size == 0 or lut is None or callable(lut) \
                or self.levels is None or np.ndim(self.levels) != 1:
            self._pixels = self._coloured_with = None
            return super().render()
        if self._lut_packed is None or self._lut_packed[0] is not lut:
            self._lut_packed = (lut, _packed(lut))
        packed = self._lut_packed[1]                                       # [n] uint32
        levels = (float(self.levels[0]), float(self.levels[1]))
        r, c = image.shape
        old, changed = self._pixels, self._changed
        same = old is not None and changed is not None and self._coloured_with == (levels, id(lut))
        pixels = old if same and old.shape == (r, c) else np.empty((r, c), np.uint32)   # [r, c]
        if not same:
            colour_cells(image, levels, packed, pixels)
        else:
            br, bc = min(changed[0], r, old.shape[0]), min(changed[1], c, old.shape[1])
            if pixels is not old:
                pixels[:br, :bc] = old[:br, :bc]
            colour_cells(image[br:], levels, packed, pixels[br:])
            if bc < c:
                colour_cells(image[:br, bc:], levels, packed, pixels[:br, bc:])
        self._pixels, self._coloured_with, self._changed = pixels, (levels, id(lut)), (r, c)   # all coloured
        self.qimage = pg.functions.ndarray_to_qimage(pixels.view(np.uint8).reshape(r, c, 4),
                                                     QImage.Format.Format_ARGB32)
        self._renderRequired = False
        self._unrenderable = False


class MatrixPlot:
    """A heatmap in a GraphicsLayout. Rows go down (row 0 on top), columns go right."""

    def __init__(self, layout: pg.GraphicsLayout, row: int, col: int, title: str, *,
                 kind: str = "diverging", row_axis: str = "", col_axis: str = "",
                 palette: Palette = LIGHT, colorbar: bool = True, rowspan: int = 1, colspan: int = 1,
                 roles: tuple[str | None, str | None] = ("query", "key")):
        self.kind = kind
        self.palette = palette
        self.roles = roles                             # what the rows / columns are: "query", "key", None
        self._line_scale = 1.0
        self.name = title
        self.title_size = "11pt"
        # enableMenu=False: no right-click menu is ever shown, and building one per plot (a
        # ViewBoxMenu of a dozen widgets) was a sixth of a window's construction
        self.plot: pg.PlotItem = layout.addPlot(row=row, col=col, rowspan=rowspan, colspan=colspan, enableMenu=False,
                                                axisItems={"left": LabelAxis("left"), "bottom": LabelAxis("bottom")})
        set_title(self.plot, title, palette.foreground)
        self.plot.invertY(True)
        self.plot.setMenuEnabled(False)
        self.plot.setMouseEnabled(x=True, y=True)     # a zoom into a region: drag a box, or the wheel
        self.plot.vb.setMouseMode(pg.ViewBox.RectMode)
        self.plot.hideButtons()
        self.plot.setDefaultPadding(0.0)
        for side in ("left", "bottom"):
            axis = self.plot.getAxis(side)
            axis.setTextPen(palette.foreground)
            axis.setPen(palette.grid)
            axis.setStyle(tickLength=0)
        self.plot.setLabel("left", row_axis, color=palette.muted)
        self.plot.setLabel("bottom", col_axis, color=palette.muted)
        self._axis_titles = (row_axis, col_axis)
        self.row_axis_shown = True                     # a station names a shared row axis once per row

        self.hatch = QGraphicsRectItem()
        self.hatch.setBrush(QBrush(QColor(palette.masked), Qt.BrushStyle.BDiagPattern))
        self.hatch.setPen(QPen(Qt.PenStyle.NoPen))
        self.hatch.setZValue(-10)
        self.plot.addItem(self.hatch)
        # The causal triangle: background, then hatch, over the image (below text and highlights).
        self.stairs = QGraphicsPathItem()
        self.stairs.setBrush(QBrush(QColor(palette.background)))
        self.stairs_hatch = QGraphicsPathItem()
        self.stairs_hatch.setBrush(QBrush(QColor(palette.masked), Qt.BrushStyle.BDiagPattern))
        for z, item in enumerate((self.stairs, self.stairs_hatch)):
            item.setPen(QPen(Qt.PenStyle.NoPen))
            item.setZValue(1 + z)
            self.plot.addItem(item)

        self.image = MapImage()
        # setRect in set_data places cell (i, j) centred on (j, i)
        self.plot.addItem(self.image)
        self.cmap = colormap(kind, palette.dark)
        self.image.setColorMap(self.cmap)
        self.bar = None
        self._bar_placed = colorbar        # in the plot's layout (show_colorbar takes it out and back)
        if colorbar:
            self.bar = pg.ColorBarItem(values=(0, 1), colorMap=self.cmap, interactive=False, width=10,
                                       colorMapMenu=False, pen=palette.grid)
            self.bar.setImageItem(self.image, insert_in=self.plot)
            self.bar.getAxis("right").setTextPen(palette.foreground)
            make_lean(self.bar.getAxis("right"), levels=1)      # major ticks: a scale, not a ruler

        self.unit = ""                                      # the colour bar's unit ("probability", …)
        set_title(self.plot, title, palette.foreground)     # again: now spanning the colour bar too
        self.text = CellText()
        self.plot.addItem(self.text)
        # Each band is a coloured outline over a thin halo of the page colour: it reads on any cell.
        self._bands, self._halos = {}, {}
        self.traced = False                                 # bands show a traced pair, not the roles
        for key, _width in BANDS:
            for store, z in ((self._halos, 9), (self._bands, 10)):
                item = QGraphicsRectItem()
                item.setBrush(QBrush(Qt.BrushStyle.NoBrush))
                item.setZValue(z)
                item.setVisible(False)
                self.plot.addItem(item)
                store[key] = item
        self._style_bands()
        # An outlined block (the selected head's columns of z_concat, its rows of W_O).
        self.outline = QGraphicsRectItem()
        self.outline.setBrush(QBrush(Qt.BrushStyle.NoBrush))
        self.outline.setZValue(8)
        self.outline.setVisible(False)
        self.plot.addItem(self.outline)
        # Cells a robust colour scale clips (widgets/views.py robust_levels): marked, named below.
        self.clip_marks = pg.ScatterPlotItem(pxMode=True, symbol="t1", size=9)
        self.clip_marks.setZValue(12)
        self.plot.addItem(self.clip_marks)
        # A long map's query row's strongest keys (widgets/views.py query_marks): rings over the cells.
        self.key_marks = pg.ScatterPlotItem(pxMode=True, symbol="o", size=9)
        self.key_marks.setZValue(12)
        self.plot.addItem(self.key_marks)
        self.marks: np.ndarray | None = None
        self.caption = pg.LabelItem("", justify="left")
        self.caption.setVisible(False)
        self.caption_text = ""
        self.caption_lines: list[str] = []          # as drawn (fit_caption)
        self.clipped: np.ndarray | None = None
        self.trace_name: str | None = None             # set when a click may explain a cell
        self.values: np.ndarray | None = None          # what is shown (exact numbers, for tooltips)
        self.masked: np.ndarray | None = None
        self.levels: tuple[float, float] = (0.0, 1.0)
        self.row_labels: list[str] = []
        self.col_labels: list[str] = []
        self.show_values = True
        self.masked_text = ""
        self.square = False                            # T×T: a station keeps its cells square
        self._axes_key: tuple | None = None
        self.decimation = (1, 1)                       # cells per drawn pixel block now (a zoom re-pools)
        self.overview = Overview()                     # the whole map's display cells, kept between edits
        self._whole = (1, 1)                           # the whole map's pooling factors
        self._source: tuple | None = None              # (values, masked) the zoom re-pools from
        self.region: tuple[int, int, int, int] | None = None   # (row0, row1, col0, col1) drawn re-pooled
        # The timer is the view box's child: it goes with it (a closed window's panels never re-pool).
        # Qt's connections hold their callables strongly and the collector cannot see through them: they
        # hold this plot weakly, or a page's rebuilt grid would keep every old plot (and its C++ items).
        me = weakref.ref(self)
        self._region_timer = QTimer(self.plot.vb, singleShot=True, interval=40,
                                    timeout=lambda: (m := me()) is not None and m.show_region())
        timer = self._region_timer
        self.plot.vb.sigRangeChanged.connect(lambda *_a: timer.start())
        self.plot.vb.sigResized.connect(lambda *_a: timer.start())      # another size: other factors

    def set_axis_titles(self, row_axis: str, col_axis: str) -> None:
        """The names of the row and column axes ("query i", "key j"); re-laid out only on change."""
        if (row_axis, col_axis) != self._axis_titles:
            self._axis_titles = (row_axis, col_axis)
            style = {"color": self.palette.muted}
            if getattr(self, "_label_pt", None):
                style["font-size"] = f"{self._label_pt:.1f}pt"     # as apply_style sized them
            self.plot.setLabel("left", row_axis, **style)
            self.plot.setLabel("bottom", col_axis, **style)

    def fit_title(self) -> None:
        """A title wider than its panel is set smaller (to 70 %), before it would be clipped."""
        if not self.name:
            return
        size = float(self.title_size.rstrip("pt"))
        font = QFont()
        room = self.plot.geometry().width() - 8
        # Smaller, to 70 %; then an equation's left side alone ("attn_scores_raw"; the header has
        # the rest), smaller again: never clipped.
        short = self.name.split(" = ")[0] if " = " in self.name else self.name
        for text, scale in ((self.name, 1.0), (self.name, 0.9), (self.name, 0.8), (self.name, 0.7), (short, 0.8),
                            (short, 0.7), (short, 0.6)):
            font.setPointSizeF(size * scale)
            if metrics_for(font).horizontalAdvance(text) * 1.1 <= room:     # a margin: HTML sets it a little wider
                break
        fitted = f"{size * scale:.1f}pt"
        self.shown_title = text
        if (text, fitted) != getattr(self, "_titled", None):
            self._titled = (text, fitted)
            set_title(self.plot, text, self.palette.foreground, fitted)

    def set_title(self, text: str) -> None:
        if (text, self.title_size) == getattr(self, "_titled", None):
            return                                    # unchanged: no HTML layout again
        self._titled = (text, self.title_size)
        self.name = text
        set_title(self.plot, text, self.palette.foreground, self.title_size)

    def apply_style(self, palette: Palette | None = None, cmap: str | None = None,
                    font_pt: float | None = None, line_scale: float = 1.0) -> None:
        """Restyle in place (theme, colour map, font size, line width); the data stays.
        Themes, presentation mode and exported figures use it; nothing else changes."""
        pal = self.palette = palette or self.palette
        self._line_scale = line_scale
        tick_font = None
        if font_pt is not None:
            tick_font = QFont()
            tick_font.setPointSizeF(font_pt)
            self.title_size = f"{font_pt * 1.1:.1f}pt"
            self.text.max_px = round(font_pt * 96 / 72)          # numbers at most as large as the axis type
            self.text.min_px = PRESENT_NUMBER_PX if font_pt >= 14 else MIN_NUMBER_PX
            self._label_pt = font_pt
        for side in ("left", "bottom"):
            axis = self.plot.getAxis(side)
            axis.setTextPen(pal.foreground)
            axis.setPen(pg.mkPen(pal.grid, width=line_scale))
            if tick_font is not None:
                if isinstance(axis, LabelAxis):       # projector type: labels thin out rather than shrink
                    axis.min_px = PRESENT_LABEL_PX if font_pt >= 14 else MIN_LABEL_PX
                axis.setStyle(tickFont=tick_font)
            if axis.labelText:
                style = dict(axis.labelStyle or {}, color=pal.muted)
                if font_pt is not None:
                    style["font-size"] = f"{font_pt:.1f}pt"
                axis.setLabel(axis.labelText, **style)
        self.hatch.setBrush(QBrush(QColor(pal.masked), Qt.BrushStyle.BDiagPattern))
        self.stairs.setBrush(QBrush(QColor(pal.background)))
        self.stairs_hatch.setBrush(QBrush(QColor(pal.masked), Qt.BrushStyle.BDiagPattern))
        self._style_bands()
        self._cmap_name = cmap if cmap is not None else getattr(self, "_cmap_name", self.kind)
        cm = colormap(self._cmap_name, pal.dark)               # the page's variant of the chosen map
        if cm is not self.cmap:
            self.cmap = cm
            self.image.setColorMap(self.cmap)
            if self.bar is not None:
                self.bar.setColorMap(self.cmap)
        if self.bar is not None:
            axis = self.bar.getAxis("right")
            axis.setTextPen(pal.foreground)
            if tick_font is not None:
                axis.setStyle(tickFont=tick_font)
            if self.values is not None:
                self._bar_ends()                      # the ends' room at the new size, the unit's colour
        self.text.masked_colour = QColor(pal.muted)
        bg = QColor(pal.background)
        bg.setAlpha(200)
        self.text.masked_background = bg
        set_title(self.plot, self.name, pal.foreground, self.title_size)
        self._titled = (self.name, self.title_size)     # the next fit_title fits it again
        self._update_text()

    # -- data ----------------------------------------------------------------------------------
    def set_data(self, values: np.ndarray, row_labels: Sequence[str], col_labels: Sequence[str], *,
                 masked: np.ndarray | None = None, levels: tuple[float, float] | None = None,
                 masked_text: str = "", row_ticks: Sequence[str] | None = None,
                 col_ticks: Sequence[str] | None = None, stairs: bool = True,
                 kept: tuple[int, int | None] = (0, 0)) -> None:
        """Show `values` [rows, cols]; labels name rows and columns in tooltips and on the axes
        (row_ticks / col_ticks, if given, label the axes instead: "" leaves a position blank).
        A causal `masked` is drawn as a hatched staircase over the image unless `stairs` is False
        (figures: their vector hatching shows through NaN holes, as for any other mask).
        `kept` = (rows, cols): the first rows (and, of a T×T map, key columns; None: every column)
        hold what the last set_data showed there (an edit after them): only the rest is drawn again."""
        values = np.asarray(values)
        self.masked_text = masked_text
        if values.ndim == 1:
            values = values[None, :]
        rows, cols = values.shape
        self.values, self.masked = values, masked
        self.row_labels, self.col_labels = list(row_labels), list(col_labels)
        # Queries × keys (the same tokens both ways): a station keeps these cells square.
        self.square = rows == cols and rows > 1 and self.row_labels == self.col_labels
        # At most MAX_DISPLAY cells a side, and no more than half the panel's pixels: Qt drops columns when
        # it scales an image down (the sink column first, at the edge), never a cell two pixels wide.
        sr, sc = self.decimation = self._whole = self._whole_factors(rows, cols)
        use_stairs, stairs = stairs, None
        if (use_stairs and masked is not None and (sr, sc) == (1, 1) and rows == cols and rows > 1
                and np.isfinite(values[0, 0])):
            upper, path = causal_mask(rows)
            if np.array_equal(masked, upper):
                stairs = path
        # Causal: the staircase covers the masked cells; they show a value already shown. More cells
        # than pixels: each pixel shows its block's value of largest |x| (max-pooled, not every n-th
        # cell), so a sink column or a one-cell stripe stays in the overview. Kept rows are not made again.
        changed = self.overview.update(values, (sr, sc), masked, float(values[0, 0]) if stairs is not None else None,
                                       kept[0], kept[1])
        display = self.overview.cells                                       # [rows/sr, cols/sc]
        self.levels = levels if levels is not None else self.auto_levels(display)
        self._source = (values, masked)
        self.region = None
        if rows == 0 or cols == 0:
            self.image.clear()
        else:
            self.image.set_cells(display, self.levels, changed)
            self.image.setRect(QRectF(-0.5, -0.5, cols, rows))           # full-matrix coordinates
        if self.bar is not None:
            self.bar.setLevels(self.levels)
            self._bar_ends()
        self.hatch.setRect(QRectF(-0.5, -0.5, cols, rows) if masked is not None and masked.any() else QRectF())
        for item in (self.stairs, self.stairs_hatch):
            item.setPath(stairs if stairs is not None else QPainterPath())
        # Axes repaint slowly (text): only touch them when their labels or extent really change.
        self.plot.getAxis("left").set_labels(self.row_labels if row_ticks is None else row_ticks)
        self.plot.getAxis("bottom").set_labels(self.col_labels if col_ticks is None else col_ticks)
        if (rows, cols) != self._axes_key:
            # A zoom (drag a box, or the wheel) stays inside the matrix and shows at least two cells
            # a side; the labels of the region it shows come back (LabelAxis lays out the range).
            self.plot.vb.setLimits(xMin=-0.5, xMax=cols - 0.5, yMin=-0.5, yMax=rows - 0.5,
                                   minXRange=min(2.0, cols), minYRange=min(2.0, rows))
            self.plot.setRange(xRange=(-0.5, cols - 0.5), yRange=(-0.5, rows - 0.5), padding=0)
            self._axes_key = (rows, cols)
        if self._whole != (1, 1) and zoomed(self):
            self.show_region()                         # a zoom stays: its region from the new values
        self._update_text()

    def _whole_factors(self, rows: int, cols: int) -> tuple[int, int]:
        """The whole map's pooling factors for the panel's size now (1: every cell drawn)."""
        px_h, px_w = self._pixel_budget()                                   # ≥ 2 px a cell
        sr = pool_factors(rows, 1, min(MAX_DISPLAY, px_h) if rows > max(OVERVIEW_FROM, 2 * px_h) else MAX_DISPLAY)[0]
        sc = pool_factors(1, cols, min(MAX_DISPLAY, px_w) if cols > max(OVERVIEW_FROM, 2 * px_w) else MAX_DISPLAY)[1]
        return sr, sc

    def _pixel_budget(self) -> tuple[int, int]:
        """Cells a side the panel draws without Qt dropping any: half its pixels (at least OVERVIEW_MIN)."""
        vb = self.plot.vb
        views = vb.scene().views() if vb.scene() is not None else []
        ratio = views[0].devicePixelRatioF() if views else 1.0
        return tuple(max(OVERVIEW_MIN, int(n * ratio) // 2) for n in (vb.height(), vb.width()))

    def visible_cells(self) -> tuple[int, int, int, int]:
        """(row0, row1, col0, col1): the cells the view shows now (ends exclusive)."""
        rows, cols = self.values.shape
        (x0, x1), (y0, y1) = self.plot.vb.viewRange()
        y0, y1 = sorted((y0, y1))
        return (max(0, math.floor(y0 + 0.5)), min(rows, math.ceil(y1 + 0.5)),
                max(0, math.floor(x0 + 0.5)), min(cols, math.ceil(x1 + 0.5)))

    def show_region(self) -> None:
        """Draw what the view shows: the whole map's overview, or, zoomed into a long map, the
        region pooled again from the full-resolution values (to the panel's pixels), so that at
        enough zoom each drawn cell is one query and one key (the labels come back as they fit)."""
        if not isValid(self.plot.vb):                  # its window closed while a re-pool was due
            return
        self._region_timer.stop()
        if self.values is None or self._source is None or self.overview.cells is None:
            return
        values, masked = self._source
        rows, cols = values.shape
        if rows and cols and self._whole_factors(rows, cols) != self._whole:   # resized: the whole overview again
            self._whole = self._whole_factors(rows, cols)
            self.overview.update(values, self._whole, masked, None)
            self.region, self.decimation = None, self._whole
            self.image.set_cells(self.overview.cells, self.levels)
        if self._whole == (1, 1):
            return
        r0, r1, c0, c1 = region = self.visible_cells()
        if region == (0, rows, 0, cols) or r1 <= r0 or c1 <= c0:
            if self.region is not None:                # zoomed out again: the overview kept for the whole map
                self.region, self.decimation = None, self._whole
                self.image.set_cells(self.overview.cells, self.levels)
                self.image.setRect(QRectF(-0.5, -0.5, cols, rows))
            return
        if region == self.region:
            return
        px_h, px_w = self._pixel_budget()
        factors = (pool_factors(r1 - r0, 1, min(MAX_DISPLAY, px_h))[0],
                   pool_factors(1, c1 - c0, min(MAX_DISPLAY, px_w))[1])
        cut = None if masked is None else np.asarray(masked)[r0:r1, c0:c1]
        cells = display_cells(values[r0:r1, c0:c1], factors, cut)           # [(r1-r0)/fr, (c1-c0)/fc]
        self.region, self.decimation = region, factors
        self.image.set_cells(cells, self.levels)
        self.image.setRect(QRectF(c0 - 0.5, r0 - 0.5, c1 - c0, r1 - r0))

    def set_marks(self, cells: np.ndarray | None) -> None:
        """Ring the cells [n, 2] (row, col) — a query's strongest keys — in the key role's colour; None: none."""
        self.marks = None if cells is None or not len(cells) else np.asarray(cells)
        if self.marks is None:
            self.key_marks.setData([], [])
            return
        self.key_marks.setData(x=self.marks[:, 1].astype(float), y=self.marks[:, 0].astype(float),
                               pen=pg.mkPen(self._band_colour("col"), width=2.0), brush=pg.mkBrush(None))

    def set_clipped(self, cells: np.ndarray | None, caption: str = "") -> None:
        """Mark the cells the colour scale clips [n, 2] (row, col) and say so under the panel
        (`caption`; "" takes it away). A click on the caption asks for the full range."""
        self.clipped = None if cells is None or not len(cells) else np.asarray(cells)
        if self.clipped is None:
            self.clip_marks.setData([], [])
        else:
            pen = pg.mkPen(self.palette.background, width=1.5)
            self.clip_marks.setData(x=self.clipped[:, 1].astype(float), y=self.clipped[:, 0].astype(float),
                                    pen=pen, brush=pg.mkBrush(self.palette.foreground))
        if caption == self.caption_text:
            return
        self.caption_text = caption
        lay = self.plot.layout
        if caption:
            if self.caption not in [lay.itemAt(k) for k in range(lay.count())]:
                lay.addItem(self.caption, 4, 0, 1, lay.columnCount())
                self.caption.setMinimumWidth(0)
            self.caption.setVisible(True)
            self.fit_caption()
        elif self.caption.isVisible():
            self.caption.setVisible(False)
            lay.removeItem(self.caption)

    def fit_caption(self) -> None:
        """The caption in the axis type's size, a little smaller (to 80 %) to fit its panel on one
        line, else on two (broken at its last " · "), cut short (…) only where a line still does not fit:
        what the scale clips stays readable from the back row."""
        self.fit_unit()
        if not self.caption_text:
            return
        size = getattr(self, "_label_pt", None) or 9.0
        room = max(40.0, self.plot.geometry().width() - 8)
        font = QFont()
        lines = [self.caption_text]
        for scale in (0.9, 0.8):
            font.setPointSizeF(size * scale)
            if metrics_for(font).horizontalAdvance(self.caption_text) <= room:
                break
        else:
            head, sep, tail = self.caption_text.rpartition(" · ")        # the count after the last one
            lines = [head, tail] if sep else lines
            lines = [metrics_for(font).elidedText(t, Qt.TextElideMode.ElideRight, room) for t in lines]
        text = "<br>".join(html.escape(t) for t in lines)
        key = (text, f"{size * scale:.1f}pt", self.palette.foreground)
        self.caption_lines = lines                    # as drawn (tests, tools)
        if key != getattr(self, "_captioned", None):
            self._captioned = key
            self.caption.setText(text, size=key[1], color=self.palette.foreground)
            self.caption.setMinimumWidth(0)
            self.caption._sizeHint[Qt.SizeHint.MinimumSize] = (0, self.caption._sizeHint[Qt.SizeHint.MinimumSize][1])
            # One height per line count whatever the type's scale: panels side by side keep their rows on one line.
            font.setPointSizeF(size * 0.9)
            line = metrics_for(font).height() * len(lines) + 6.0
            self.caption.setMinimumHeight(line)
            self.caption.setMaximumHeight(line)
            self.caption.updateGeometry()
        self.caption.setToolTip(self.caption_text)

    def set_message(self, text: str | None) -> None:
        """Say `text` in place of the matrix (a name this model does not have: set_data an empty
        one first); None or "" takes it away."""
        item = getattr(self, "_message", None)
        self._message_text = text or None
        if self.bar is not None:
            self.bar.setVisible(not text and self._bar_placed)   # no colour scale for data that is not there
        if not text:
            if item is not None:
                item.setVisible(False)
            return
        if item is None:
            item = self._message = pg.TextItem(anchor=(0.5, 0.5))
            self.plot.addItem(item)
        item.setColor(self.palette.muted)
        item.setText(text)
        item.setVisible(True)
        self._axes_key = None                          # the next matrix sets its own range again
        self.fit_message()

    def fit_message(self) -> None:
        """The missing-name sentence in the axis type's size, wrapped to its panel, in its middle
        (a layout pass may have set another range since)."""
        item = getattr(self, "_message", None)
        if not getattr(self, "_message_text", None) or item is None:
            return
        font = QFont()
        font.setPointSizeF(getattr(self, "_label_pt", None) or 9.0)
        item.setFont(font)
        item.setTextWidth(max(80.0, min(420.0, self.plot.vb.width() - 12)))
        item.setPos(0.5, 0.5)
        if self.plot.vb.viewRange() != [[0.0, 1.0], [0.0, 1.0]]:    # an empty matrix's limits held it at -0.5
            self.plot.vb.setLimits(xMin=0.0, xMax=1.0, yMin=0.0, yMax=1.0, minXRange=1.0, minYRange=1.0)
            self.plot.setRange(xRange=(0, 1), yRange=(0, 1), padding=0)

    def auto_levels(self, display: np.ndarray, span: tuple[float, float] | None = None) -> tuple[float, float]:
        lo, hi = span if span is not None else finite_range(display)
        if self.kind == "sequential":
            return (0.0, hi if hi > 0 else 1.0)
        m = max(abs(lo), abs(hi))
        return (-m, m) if m > 0 else (-1.0, 1.0)

    def _update_text(self) -> None:
        v = self.values
        if v is None or not self.show_values or v.size > MAX_CELLS_FOR_VALUES or v.size == 0:
            self.text.set_values(None)
            return
        # Black or white text per cell, from the luminance of the cell's colour (vectorised).
        lo, hi = self.levels
        lum = _luminance(self.cmap)                                                       # [256]
        with np.errstate(invalid="ignore"):
            finite = np.where(np.isfinite(v), np.asarray(v, np.float64), lo)                 # [rows, cols]
            k = np.clip((finite - lo) / ((hi - lo) or 1.0) * 255, 0, 255)
        dark_text = lum[k.astype(np.int64)] > 0.5                                         # [rows, cols]
        black, white = QColor(BLACK), QColor(WHITE)
        colours = [[black if d else white for d in row] for row in dark_text]
        self.text.set_values(v, colours, self.masked, self.masked_text)

    def _bar_ends(self) -> None:
        """The colour bar prints its ends (and 0 between them for a signed scale), so a scale of
        ±23,989 never reads as a bar with one "0"."""
        lo, hi = self.levels
        if not (math.isfinite(lo) and math.isfinite(hi)) or hi <= lo:
            return
        decimals = decimals_for(np.array([lo, hi]))
        eps = 1e-6 * (hi - lo)                        # just inside: an end tick on the edge counts as outside
        ticks = [(hi - eps, format_value(hi, decimals)), (lo + eps, format_value(lo, decimals))]
        if lo < 0 < hi:
            ticks.insert(1, (0.0, "0"))
        axis = self.bar.getAxis("right")
        font = axis.style["tickFont"] or QFont()
        key = (ticks, font.pointSizeF(), self.unit, self.palette.muted)
        if getattr(axis, "_ends", None) != key:
            axis._ends = key
            axis.setStyle(hideOverlappingLabels=False)
            axis.setTicks([ticks])
            # pyqtgraph drops a label wider than the axis: make room for the widest end (and the unit, turned)
            widest = max(metrics_for(font).horizontalAdvance(text) for _v, text in ticks)
            unit_pt = 0.75 * (font.pointSizeF() if font.pointSizeF() > 0 else 9.0)
            axis.setLabel(self.unit, **{"font-size": f"{unit_pt:.1f}pt", "color": self.palette.muted})
            unit_font = QFont()
            unit_font.setPointSizeF(unit_pt)
            self._unit_length = metrics_for(unit_font).horizontalAdvance(self.unit)
            axis.showLabel(bool(self.unit))
            # the turned label sits at the axis's right edge (pyqtgraph: x = width − its height + 5): just
            # past the widest end, not a column away
            room = axis.label.boundingRect().height() - 12 if self.unit else 8
            axis.setWidth(math.ceil(widest + axis.style["tickTextOffset"][0] + 2 + room))
        self.fit_unit()

    def set_unit(self, unit: str) -> None:
        """What the colour bar's values are ("probability", "score", "activation", "weight"), printed
        along the bar; dropped where the bar is shorter than the word."""
        if unit != self.unit:
            self.unit = unit
            if self.bar is not None and self.values is not None:
                self._bar_ends()

    def fit_unit(self) -> None:
        """The unit along the bar only where the bar is long enough for it (a thin strip keeps its ends)."""
        if self.bar is None or not self.unit:
            return
        axis = self.bar.getAxis("right")
        fits = getattr(self, "_unit_length", 0.0) <= axis.geometry().height() - 4 or axis.geometry().height() <= 0
        if axis.label.isVisible() != fits:
            axis.label.setVisible(fits)

    def set_show_values(self, on: bool) -> None:
        self.show_values = on
        self._update_text()

    # -- highlights ------------------------------------------------------------------------------
    def _band_colour(self, key: str) -> str:
        if key == "cell" or self.traced:
            return self.palette.foreground
        return self.palette.role_colour(self.roles[0] if key == "row" else self.roles[1])

    def _style_bands(self) -> None:
        for key, width in BANDS:
            pen = QPen(QColor(self._band_colour(key)), width * self._line_scale)
            pen.setCosmetic(True)
            if self.traced:
                pen.setStyle(Qt.PenStyle.DashLine)
            self._bands[key].setPen(pen)
            halo = QPen(QColor(self.palette.background), pen.widthF() + 2.0)
            halo.setCosmetic(True)
            self._halos[key].setPen(halo)

    def highlight(self, row: int | None = None, col: int | None = None, cell: tuple[int, int] | None = None,
                  traced: bool = False) -> None:
        """Outline a row, a column and a cell: in their roles' colours, or dashed ink when `traced`
        (the pairs of a cell explained in the Trace tab)."""
        if traced != self.traced:
            self.traced = traced
            self._style_bands()
        rows, cols = (0, 0) if self.values is None else self.values.shape
        # Outlines no thicker than a quarter of a cell: at T = 64 a 2.5 px line would hide the row.
        sx, sy = self.plot.getViewBox().viewPixelSize()
        cell_px = min(1.0 / sx if sx else 99.0, 1.0 / sy if sy else 99.0)
        shown = {}
        for key, rect in (("row", QRectF(-0.5, (row or 0) - 0.5, cols, 1)),
                          ("col", QRectF((col or 0) - 0.5, -0.5, 1, rows)),
                          ("cell", QRectF((cell or (0, 0))[1] - 0.5, (cell or (0, 0))[0] - 0.5, 1, 1))):
            index = {"row": row, "col": col, "cell": cell}[key]
            visible = index is not None and (
                (key == "row" and 0 <= row < rows) or (key == "col" and 0 <= col < cols)
                or (key == "cell" and 0 <= cell[0] < rows and 0 <= cell[1] < cols))
            shown[key] = bool(visible)
            band, halo = self._bands[key], self._halos[key]
            width = max(1.0, min(BAND_WIDTH[key] * self._line_scale, cell_px / 4))
            if band.pen().widthF() != width:                     # hovering: most moves keep the width
                pen = band.pen()
                pen.setWidthF(width)
                band.setPen(pen)
                pen = halo.pen()
                pen.setWidthF(width + 2.0)
                halo.setPen(pen)
            for item in (band, halo):
                item.setRect(rect)
                item.setVisible(bool(visible))
        # The highlighted row's and column's labels are drawn bold, in their role colour.
        self.plot.getAxis("left").set_emphasis(row if shown["row"] else None, self._band_colour("row"))
        self.plot.getAxis("bottom").set_emphasis(col if shown["col"] else None, self._band_colour("col"))

    def show_colorbar(self, on: bool) -> None:
        """Show or drop the colour bar (panels sharing one scale need one bar per row); a dropped
        bar gives its width back to the matrix."""
        if self.bar is None or on == self._bar_placed:
            return
        lay = self.plot.layout
        if on:
            lay.addItem(self.bar, 2, 5)
            lay.setColumnFixedWidth(4, 5)
        else:
            lay.removeItem(self.bar)
            lay.setColumnFixedWidth(4, 0)
        self._bar_placed = on
        self.bar.setVisible(on and not getattr(self, "_message_text", None))
        shown = getattr(self, "_titled", None) or (self.name, self.title_size)
        set_title(self.plot, shown[0], self.palette.foreground, shown[1])   # re-centred, as fitted

    def set_outline(self, rect: tuple[int, int, int, int] | None) -> None:
        """Outline a block of cells (row, col, rows, cols), e.g. the selected head's; None: none."""
        if rect is None:
            self.outline.setVisible(False)
            return
        r, c, nr, nc = rect
        pen = QPen(QColor(self.palette.foreground), 3.0 * self._line_scale)
        pen.setCosmetic(True)
        self.outline.setPen(pen)
        self.outline.setRect(QRectF(c - 0.5, r - 0.5, nc, nr))
        self.outline.setVisible(True)

    # -- mouse -------------------------------------------------------------------------------------
    def cell_at(self, scene_pos) -> tuple[int, int] | None:
        """(row, col) of the cell under a scene position, or None outside the matrix."""
        vb = self.plot.getViewBox()
        if self.values is None or not vb.sceneBoundingRect().contains(scene_pos):
            return None
        p = vb.mapSceneToView(scene_pos)
        i, j = int(round(p.y())), int(round(p.x()))
        rows, cols = self.values.shape
        return (i, j) if 0 <= i < rows and 0 <= j < cols else None

    def describe(self, i: int, j: int) -> str:
        v = self.values[i, j]
        masked = self.masked is not None and self.masked[i, j]
        r = self.row_labels[i] if i < len(self.row_labels) else str(i)
        c = self.col_labels[j] if j < len(self.col_labels) else str(j)
        value = "−∞" if not np.isfinite(v) and v < 0 else num(float(v), ".6g")
        shown = tr("{value} (masked)").format(value=value) if masked else value
        rows, cols = self.decimation
        note = "" if (rows, cols) == (1, 1) else "\n" + tr(
            "(the overview shows the largest value of each {rows} × {cols} cells; zoom in for each cell)").format(
            rows=rows, cols=cols)
        return f"{self.name}\n" + tr("row {i} ({row}) · column {j} ({col})").format(i=i, row=r, j=j, col=c) + \
            f"\n= {shown}{note}"


def zoomed(mp: MatrixPlot) -> bool:
    """Whether a zoom shows less than the whole matrix."""
    if mp.values is None:
        return False
    rows, cols = mp.values.shape
    (x0, x1), (y0, y1) = mp.plot.vb.viewRange()
    return x1 - x0 < cols - 0.01 or y1 - y0 < rows - 0.01


def reset_zoom(mp: MatrixPlot) -> bool:
    """The whole matrix again (a double-click); whether it was zoomed."""
    if not zoomed(mp):
        return False
    rows, cols = mp.values.shape
    mp.plot.setRange(xRange=(-0.5, cols - 0.5), yRange=(-0.5, rows - 0.5), padding=0)
    return True


def connect_mouse(widget: pg.GraphicsLayoutWidget, plots: Callable[[], Sequence[MatrixPlot]],
                  on_hover: Callable[[MatrixPlot | None, tuple[int, int] | None, object], None],
                  on_click: Callable[[MatrixPlot, tuple[int, int], object], None]) -> None:
    """Route scene mouse moves/clicks to the MatrixPlot under the pointer."""

    def moved(scene_pos):
        for mp in plots():
            cell = mp.cell_at(scene_pos)
            if cell is not None:
                on_hover(mp, cell, scene_pos)
                return
        on_hover(None, None, scene_pos)

    def clicked(event):
        for mp in plots():
            cell = mp.cell_at(event.scenePos())
            if cell is not None:
                if event.double() and reset_zoom(mp):      # a double-click: the whole matrix again
                    return
                on_click(mp, cell, event)
                return

    widget.scene().sigMouseMoved.connect(moved)
    widget.scene().sigMouseClicked.connect(clicked)
