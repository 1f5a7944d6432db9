"""MatrixPlot: one labelled heatmap (pyqtgraph) with token ticks, a colour bar, values in the
cells when they are few enough to read, hatched masked cells, and row/column highlights.

Display conversions live here: masked cells (-inf in `attn_scores`, forbidden zeros in `pattern`)
become NaN, which the ImageItem leaves transparent over a hatched background. The causal mask (the
strict upper triangle) is drawn instead as a hatched staircase over the image: pyqtgraph's NaN
handling costs ~5 ms per 1024 x 1024 map, a staircase nothing.
"""
from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainter, QPainterPath, QPen, QPolygonF, QStaticText
from PySide6.QtWidgets import QGraphicsItem, QGraphicsPathItem, QGraphicsRectItem

from .axes import lean_bounding_rect, lean_draw_specs, lean_paint, make_lean, metrics_for, safe_paint, text_widths
from .theme import LIGHT, Palette, colormap

# Highlight bands: (key, palette colour, width in px before line scaling)
BANDS = (("row", "accent", 2.5), ("col", "accent2", 2.0), ("cell", "foreground", 2.0))
BAND_WIDTH = {key: width for key, _colour, width in BANDS}

MAX_CELLS_FOR_VALUES = 1024
# Larger matrices are drawn from every k-th row/column (a 12288 × 12288 W_O would need 600 MB
# of pixels); coordinates, highlights and tooltips stay in the full matrix's indices.
MAX_DISPLAY = 2048


NICE_STEPS = (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 2500, 5000, 10_000, 20_000, 50_000,
              100_000, 200_000, 500_000, 1_000_000)


def tick_list(labels: Sequence[str], step: int = 1, with_index: bool | None = None) -> list[tuple[int, str]]:
    """(position, text) for every `step`-th label. Thinned word labels read 'index:word'."""
    # Indices, and 'head·column' labels, already say where they are; words get their index.
    self_describing = all(lab == str(i) or "·" in lab for i, lab in enumerate(labels))
    if with_index is None:
        with_index = step > 1 and not self_describing
    return [(i, f"{i}:{labels[i]}" if with_index else labels[i]) for i in range(0, len(labels), step)]


class LabelAxis(pg.AxisItem):
    """An axis of cell labels (tokens or indices) that thins itself to what fits in its pixels."""

    def __init__(self, orientation: str, **kw):
        super().__init__(orientation, **kw)
        self.labels: list[str] = []
        self._sparse = False                              # blanks in the labels do the thinning
        self._describing = True                           # indices, or labels that say where they are
        self._ticks: dict[int, list[tuple[int, str]]] = {}    # step -> (position, text), per label set
        self._widths: tuple | None = None                     # (font key, label widths, "i:" widths)
        self.enableAutoSIPrefix(False)

    def set_labels(self, labels: Sequence[str]) -> None:
        labels = list(labels)
        if labels != self.labels:
            self.labels = labels
            self._sparse = "" in labels
            self._describing = all(lab == str(i) or "·" in lab for i, lab in enumerate(labels))
            self._ticks.clear()
            self._widths = None
            self.picture = None
            self.update()

    def _tick_list(self, step: int) -> list[tuple[int, str]]:
        if step not in self._ticks:
            self._ticks[step] = tick_list(self.labels, step, with_index=step > 1 and not self._describing)
        return self._ticks[step]

    def _label_widths(self, font: QFont) -> tuple[np.ndarray, np.ndarray]:
        """Pixel widths of the labels [n] and of their "index:" prefixes [n], once per label set."""
        key = font.key()
        if self._widths is None or self._widths[0] != key:
            self._widths = (key, text_widths(font, self.labels),
                            text_widths(font, [f"{i}:" for i in range(len(self.labels))]))
        return self._widths[1], self._widths[2]

    def _step(self, minVal: float, maxVal: float, size: float) -> int:
        n = len(self.labels)
        px_per_cell = size / max(maxVal - minVal, 1e-9)
        font = self.style["tickFont"] or QFont()
        metrics = metrics_for(font)
        for step in NICE_STEPS:
            if step > 1 and step >= n:
                return step
            if self.orientation in ("left", "right"):
                need = metrics.height() * 1.05
            else:
                word_w, index_w = self._label_widths(font)
                indexed = step > 1 and not self._describing          # "index:word" labels
                need = float(((index_w[::step] if indexed else 0.0) + word_w[::step]).max(initial=0.0)) + 10
            if need <= px_per_cell * step:
                return step
        return NICE_STEPS[-1]

    generateDrawSpecs = lean_draw_specs                  # noqa: N815 - pyqtgraph's name
    boundingRect = lean_bounding_rect                    # noqa: N815 - Qt's name
    paint = lean_paint

    def tickValues(self, minVal, maxVal, size):  # noqa: N802 - pyqtgraph's name
        if not self.labels or size <= 0:
            return []
        lo, hi = sorted((minVal, maxVal))                 # an inverted axis gives them reversed
        if self._sparse:
            return [(1, [i for i in self._sparse_marks(lo, hi, size) if lo <= i <= hi])]
        step = self._step(lo, hi, size)
        return [(step, [i for i in range(0, len(self.labels), step) if lo <= i <= hi])]

    def _sparse_marks(self, lo: float, hi: float, size: float) -> list[int]:
        """The non-blank labels (e.g. "h0", "h1", … at each head's first column), every k-th one
        when their neighbours would touch (12 heads across a narrow plot)."""
        marks = [i for i, lab in enumerate(self.labels) if lab]
        if len(marks) < 2:
            return marks
        px_per_cell = size / max(hi - lo, 1e-9)
        gap = min(b - a for a, b in itertools.pairwise(marks)) * px_per_cell          # px between neighbours
        font = self.style["tickFont"] or QFont()
        if self.orientation in ("left", "right"):
            need = metrics_for(font).height() * 1.05
        else:
            need = float(text_widths(font, [self.labels[i] for i in marks]).max()) + 6
        k = 1
        while k < len(marks) and gap * k < need:
            k += 1
        return marks[::k]

    def tickStrings(self, values, scale, spacing):  # noqa: N802 - pyqtgraph's name
        if self._sparse:
            return [self.labels[int(round(v))] if 0 <= int(round(v)) < len(self.labels) else "" for v in values]
        step = int(spacing)
        texts = self._tick_list(step)
        return [texts[int(round(v)) // step][1] if int(round(v)) % step == 0 and 0 <= int(round(v)) < len(self.labels)
                else "" for v in values]


_LUMINANCE: dict[int, tuple] = {}


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
    if not np.isfinite(v):
        return "−∞" if v < 0 else ("+∞" if v > 0 else "NaN")
    if v == 0:
        return "0"
    if decimals is None:
        return f"{v:.1e}"
    a = abs(v)
    if a >= 100:
        return f"{v:.0f}"
    if a >= 10 and decimals <= 2:
        return f"{v:.1f}"
    text = f"{v:.{decimals}f}"
    return "0" if float(text) == 0 else text


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
        self.max_px = 15                              # largest number size; figures raise it with the font
        self.px_scale = 1.0                           # > 1 while a figure renders into a larger image
        self.masked_colour = QColor("#3c4043")
        self.masked_background = QColor(255, 255, 255, 200)   # behind "−∞", over the hatch
        self.setZValue(5)

    def set_values(self, values: np.ndarray | None, colours=None, masked=None, masked_text: str = "−∞") -> None:
        self.prepareGeometryChange()
        self._values = values
        self._decimals = decimals_for(values) if values is not None else 2
        self._masked = masked
        self._masked_text = masked_text
        self._colours = colours or []
        self._layout_key = None                       # texts and font are laid out again
        self.update()

    def boundingRect(self) -> QRectF:
        if self._values is None:
            return QRectF()
        rows, cols = self._values.shape
        return QRectF(-0.5, -0.5, cols, rows)

    def _lay_out(self, rows: int, cols: int, cell_w: float, cell_h: float, ps: float):
        hidden = self._masked.tolist() if self._masked is not None else [[False] * cols for _ in range(rows)]
        texts = [[self._masked_text if hidden[i][j] else format_value(float(self._values[i, j]), self._decimals)
                  for j in range(cols)] for i in range(rows)]
        font = QFont()
        font.setPixelSize(int(max(10 * ps, min(cell_h * 0.38, self.max_px * ps))))   # >= 10 px: legible
        widest = max((len(t) for row in texts for t in row), default=1)
        metrics = QFontMetricsF(font)
        while metrics.horizontalAdvance("8" * widest) > cell_w * 0.92 and font.pixelSize() > 10 * ps:
            font.setPixelSize(font.pixelSize() - 1)
            metrics = QFontMetricsF(font)
        if metrics.horizontalAdvance("8" * widest) > cell_w * 0.98:
            return texts, hidden, None, metrics
        return texts, hidden, font, metrics

    @safe_paint
    def paint(self, p: QPainter, *args) -> None:
        if self._values is None:
            return
        tr = p.transform()
        cell_w, cell_h = abs(tr.m11()), abs(tr.m22())
        ps = self.px_scale
        if cell_h < 14 * ps or cell_w < 14 * ps:
            return
        rows, cols = self._values.shape
        # Texts and font depend only on the values and the cell size: made once per change.
        key = (round(cell_w, 1), round(cell_h, 1), ps, self.max_px)
        if getattr(self, "_layout_key", None) != key:
            self._layout_key = key
            self._layout = self._lay_out(rows, cols, cell_w, cell_h, ps)
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


class MatrixPlot:
    """A heatmap in a GraphicsLayout. Rows go down (row 0 on top), columns go right."""

    def __init__(self, layout: pg.GraphicsLayout, row: int, col: int, title: str, *,
                 kind: str = "diverging", row_axis: str = "", col_axis: str = "",
                 palette: Palette = LIGHT, colorbar: bool = True, rowspan: int = 1, colspan: int = 1):
        self.kind = kind
        self.palette = palette
        self.name = title
        self.title_size = "11pt"
        self.plot: pg.PlotItem = layout.addPlot(row=row, col=col, rowspan=rowspan, colspan=colspan,
                                                axisItems={"left": LabelAxis("left"), "bottom": LabelAxis("bottom")})
        set_title(self.plot, title, palette.foreground)
        self.plot.invertY(True)
        self.plot.setMenuEnabled(False)
        self.plot.setMouseEnabled(x=False, y=False)
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

        self.image = pg.ImageItem(axisOrder="row-major")
        # setRect in set_data places cell (i, j) centred on (j, i)
        self.plot.addItem(self.image)
        self.cmap = colormap(kind)
        self.image.setColorMap(self.cmap)
        self.bar = None
        if colorbar:
            self.bar = pg.ColorBarItem(values=(0, 1), colorMap=self.cmap, interactive=False, width=10,
                                       colorMapMenu=False, pen=palette.grid)
            self.bar.setImageItem(self.image, insert_in=self.plot)
            self.bar.getAxis("right").setTextPen(palette.foreground)
            make_lean(self.bar.getAxis("right"), levels=2)

        set_title(self.plot, title, palette.foreground)     # again: now spanning the colour bar too
        self.text = CellText()
        self.plot.addItem(self.text)
        self._bands = {}
        for key, colour, width in BANDS:
            pen = QPen(QColor(getattr(palette, colour)), width)
            pen.setCosmetic(True)
            item = QGraphicsRectItem()
            item.setPen(pen)
            item.setBrush(QBrush(Qt.BrushStyle.NoBrush))
            item.setZValue(10)
            item.setVisible(False)
            self.plot.addItem(item)
            self._bands[key] = item
        self.trace_name: str | None = None             # set when a click may explain a cell
        self.values: np.ndarray | None = None          # what is shown (exact numbers, for tooltips)
        self.masked: np.ndarray | None = None
        self.levels: tuple[float, float] = (0.0, 1.0)
        self.row_labels: list[str] = []
        self.col_labels: list[str] = []
        self.show_values = True
        self.masked_text = "−∞"
        self._axes_key: tuple | None = None
        self.decimation = (1, 1)
        self._line_scale = 1.0

    def set_axis_titles(self, row_axis: str, col_axis: str) -> None:
        """The names of the row and column axes ("query i", "key j"); re-laid out only on change."""
        if (row_axis, col_axis) != self._axis_titles:
            self._axis_titles = (row_axis, col_axis)
            self.plot.setLabel("left", row_axis, color=self.palette.muted)
            self.plot.setLabel("bottom", col_axis, color=self.palette.muted)

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
            self.text.max_px = max(15, round(font_pt * 96 / 72))
        for side in ("left", "bottom"):
            axis = self.plot.getAxis(side)
            axis.setTextPen(pal.foreground)
            axis.setPen(pg.mkPen(pal.grid, width=line_scale))
            if tick_font is not None:
                axis.setStyle(tickFont=tick_font)
            if axis.labelText:
                style = dict(axis.labelStyle or {}, color=pal.muted)
                if font_pt is not None:
                    style["font-size"] = f"{font_pt:.1f}pt"
                axis.setLabel(axis.labelText, **style)
        self.hatch.setBrush(QBrush(QColor(pal.masked), Qt.BrushStyle.BDiagPattern))
        self.stairs.setBrush(QBrush(QColor(pal.background)))
        self.stairs_hatch.setBrush(QBrush(QColor(pal.masked), Qt.BrushStyle.BDiagPattern))
        for key, colour, width in BANDS:
            pen = QPen(QColor(getattr(pal, colour)), width * line_scale)
            pen.setCosmetic(True)
            self._bands[key].setPen(pen)
        if cmap is not None:
            self.cmap = colormap(cmap)
            self.image.setColorMap(self.cmap)
            if self.bar is not None:
                self.bar.setColorMap(self.cmap)
        if self.bar is not None:
            axis = self.bar.getAxis("right")
            axis.setTextPen(pal.foreground)
            if tick_font is not None:
                axis.setStyle(tickFont=tick_font)
        self.text.masked_colour = QColor(pal.muted)
        bg = QColor(pal.background)
        bg.setAlpha(200)
        self.text.masked_background = bg
        set_title(self.plot, self.name, pal.foreground, self.title_size)
        self._update_text()

    # -- data ----------------------------------------------------------------------------------
    def set_data(self, values: np.ndarray, row_labels: Sequence[str], col_labels: Sequence[str], *,
                 masked: np.ndarray | None = None, levels: tuple[float, float] | None = None,
                 masked_text: str = "−∞", row_ticks: Sequence[str] | None = None,
                 col_ticks: Sequence[str] | None = None, stairs: bool = True) -> None:
        """Show `values` [rows, cols]; labels name rows and columns in tooltips and on the axes
        (row_ticks / col_ticks, if given, label the axes instead: "" leaves a position blank).
        A causal `masked` is drawn as a hatched staircase over the image unless `stairs` is False
        (figures: their vector hatching shows through NaN holes, as for any other mask)."""
        values = np.asarray(values)
        self.masked_text = masked_text
        if values.ndim == 1:
            values = values[None, :]
        rows, cols = values.shape
        self.values, self.masked = values, masked
        self.row_labels, self.col_labels = list(row_labels), list(col_labels)
        sr, sc = max(1, math.ceil(rows / MAX_DISPLAY)), max(1, math.ceil(cols / MAX_DISPLAY))
        self.decimation = (sr, sc)
        use_stairs, stairs = stairs, None
        if (use_stairs and masked is not None and (sr, sc) == (1, 1) and rows == cols and rows > 1
                and np.isfinite(values[0, 0])):
            upper, path = causal_mask(rows)
            if np.array_equal(masked, upper):
                stairs = path
        if stairs is not None:
            # Causal: the staircase covers the masked cells; give them a value already shown.
            display = np.where(masked, values[0, 0], values).astype(np.float32, copy=False)  # [T, T]
            hidden = ~np.isfinite(display)                                  # [T, T] (rare: inf, NaN)
        else:
            display = values[::sr, ::sc]                                    # [rows/sr, cols/sc] (view)
            span = None
            if masked is None and display.size:
                with np.errstate(invalid="ignore"):                         # min/max are NaN if any is
                    lo, hi = float(display.min()), float(display.max())
                if math.isfinite(lo) and math.isfinite(hi):
                    span = (lo, hi)
            if span is not None:
                # All finite, nothing masked: drawn as it is (pyqtgraph only reads it), no NaN pass.
                display = np.ascontiguousarray(display, dtype=np.float32)  # [rows/sr, cols/sc]
                self.levels = levels if levels is not None else self.auto_levels(display, span)
                hidden = None
            else:
                display = display.astype(np.float32, copy=True)            # [rows/sr, cols/sc] for drawing
                hidden = ~np.isfinite(display)                              # [rows/sr, cols/sc]
                if masked is not None:
                    hidden |= masked[::sr, ::sc]
        if hidden is not None:
            if hidden.any():
                display[hidden] = np.nan                                    # transparent over the hatch
            self.levels = levels if levels is not None else self.auto_levels(display)
        if rows == 0 or cols == 0:
            self.image.clear()
        else:
            self.image.setImage(display, levels=self.levels, autoLevels=False)
            self.image.setRect(QRectF(-0.5, -0.5, cols, rows))           # full-matrix coordinates
        if self.bar is not None:
            self.bar.setLevels(self.levels)
        self.hatch.setRect(QRectF(-0.5, -0.5, cols, rows) if masked is not None and masked.any() else QRectF())
        for item in (self.stairs, self.stairs_hatch):
            item.setPath(stairs if stairs is not None else QPainterPath())
        # Axes repaint slowly (text): only touch them when their labels or extent really change.
        self.plot.getAxis("left").set_labels(self.row_labels if row_ticks is None else row_ticks)
        self.plot.getAxis("bottom").set_labels(self.col_labels if col_ticks is None else col_ticks)
        if (rows, cols) != self._axes_key:
            self.plot.setRange(xRange=(-0.5, cols - 0.5), yRange=(-0.5, rows - 0.5), padding=0)
            self._axes_key = (rows, cols)
        self._update_text()

    def set_message(self, text: str | None) -> None:
        """Say `text` in place of the matrix (a name this model does not have: set_data an empty
        one first); None or "" takes it away."""
        item = getattr(self, "_message", None)
        if self.bar is not None:
            self.bar.setVisible(not text)              # no colour scale for data that is not there
        if not text:
            if item is not None:
                item.setVisible(False)
            return
        if item is None:
            item = self._message = pg.TextItem(anchor=(0.5, 0.5))
            self.plot.addItem(item)
        item.setColor(self.palette.muted)
        item.setText(text)
        item.setTextWidth(260)
        item.setPos(0.5, 0.5)
        item.setVisible(True)
        self.plot.setRange(xRange=(0, 1), yRange=(0, 1), padding=0)
        self._axes_key = None                          # the next matrix sets its own range again

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
        black, white = QColor("#000000"), QColor("#ffffff")
        colours = [[black if d else white for d in row] for row in dark_text]
        self.text.set_values(v, colours, self.masked, self.masked_text)

    def set_show_values(self, on: bool) -> None:
        self.show_values = on
        self._update_text()

    # -- highlights ------------------------------------------------------------------------------
    def highlight(self, row: int | None = None, col: int | None = None, cell: tuple[int, int] | None = None) -> None:
        rows, cols = (0, 0) if self.values is None else self.values.shape
        # Outlines no thicker than a quarter of a cell: at T = 64 a 2.5 px line would hide the row.
        sx, sy = self.plot.getViewBox().viewPixelSize()
        cell_px = min(1.0 / sx if sx else 99.0, 1.0 / sy if sy else 99.0)
        for key, rect in (("row", QRectF(-0.5, (row or 0) - 0.5, cols, 1)),
                          ("col", QRectF((col or 0) - 0.5, -0.5, 1, rows)),
                          ("cell", QRectF((cell or (0, 0))[1] - 0.5, (cell or (0, 0))[0] - 0.5, 1, 1))):
            index = {"row": row, "col": col, "cell": cell}[key]
            visible = index is not None and (
                (key == "row" and 0 <= row < rows) or (key == "col" and 0 <= col < cols)
                or (key == "cell" and 0 <= cell[0] < rows and 0 <= cell[1] < cols))
            band = self._bands[key]
            width = max(1.0, min(BAND_WIDTH[key] * self._line_scale, cell_px / 4))
            if band.pen().widthF() != width:                     # hovering: most moves keep the width
                pen = band.pen()
                pen.setWidthF(width)
                band.setPen(pen)
            band.setRect(rect)
            band.setVisible(bool(visible))

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
        shown = "−∞ (masked)" if masked and not np.isfinite(v) else (
            f"{v:.6g} (masked)" if masked else f"{v:.6g}")
        note = "" if self.decimation == (1, 1) else (
            f"\n(drawn from every {self.decimation[0]}th row / {self.decimation[1]}th column)")
        return f"{self.name}\nrow {i} ({r}) · column {j} ({c})\n= {shown}{note}"


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
                on_click(mp, cell, event)
                return

    widget.scene().sigMouseMoved.connect(moved)
    widget.scene().sigMouseClicked.connect(clicked)
