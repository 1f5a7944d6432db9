"""Figures for slides and papers: one named view, or a composed multi-panel figure, drawn from a
LabResult + Selection in a publication style (white paper, chosen font size, colour-blind-safe
colour maps, optional numbers in the cells).

View names are the Trace's (docs/ARCHITECTURE.md, "Names"): every Trace name that is a matrix once
a layer and a head are chosen (`pattern` = pattern[layer][head]), the per-head weights (`W_Q` =
blocks.L.attn.W_Q[h]), and composed figures named after the stations plus `block` and
`all_heads`. The panels come from widgets/views.py — a station's figure is made of the very panels
the station shows on screen. `figure_spec()` only picks arrays; `FigureWidget` draws one.
"""
from __future__ import annotations

import dataclasses
import html
import itertools
import math
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainterPath, QPen, QPolygonF

from compute.stations import PAGE

from .axes import safe_paint
from .charts import Chart, draw_chart
from .i18n import QT_TR_NOOP, tr
from .matrix import MatrixPlot
from .pages import page_kinds
from .theme import (
    DARK,
    DEFAULT_DIVERGING,
    DEFAULT_SEQUENTIAL,
    DIVERGING_MAPS,
    FIGURE,
    FIGURE_HATCH,
    SEQUENTIAL_MAPS,
    Palette,
    ui_font,
)
from .views import (
    ALIASES,
    BLOCK_MAP,
    SINGLE_VIEWS,
    STATION_VIEWS,
    Panel,
    block_map_panels,
    colour_unit,
    panel,
    share_levels,
    station_panels,
    station_view,
    view_words,
)


@dataclass(frozen=True)
class FigureSpec:
    view: str
    title: str
    panels: tuple[Panel, ...]
    grid: tuple[tuple[int, int, int, int], ...]      # (row, col, rowspan, colspan) per panel
    columns: int
    rows: int
    panel_size: tuple[int, int] = (360, 320)          # logical px per grid cell at 10 pt
    col_stretch: tuple[int, ...] = ()
    subtitle: str = ""                                # the tokens, in quotes
    flow: tuple[bool, ...] = ()                       # a block map: per panel, on the residual stream?
    boxes: tuple = ()                                 # (panel name, (x, y, w, h)) outlines over a panel

    def data(self) -> dict[str, np.ndarray]:
        """The matrices shown, by panel name."""
        return {p.name: p.values for p in self.panels}


@dataclass(frozen=True)
class FigureStyle:
    """How an exported figure looks ("figure mode")."""

    theme: str = "light"                 # light: white paper, black ink; dark: for dark slides
    font_pt: float = 10.0
    sequential: str = DEFAULT_SEQUENTIAL  # SEQUENTIAL_MAPS; the app's default too
    diverging: str = DEFAULT_DIVERGING    # DIVERGING_MAPS
    show_values: bool = True             # numbers in the cells, where they fit
    title: bool = True
    line_scale: float = 1.0

    def __post_init__(self) -> None:
        if self.theme not in ("light", "dark"):
            raise ValueError(f"theme {self.theme!r}: choose light or dark")
        if self.sequential not in SEQUENTIAL_MAPS:
            raise ValueError(f"colour map {self.sequential!r}: choose one of {', '.join(SEQUENTIAL_MAPS)}")
        if self.diverging not in DIVERGING_MAPS:
            raise ValueError(f"diverging map {self.diverging!r}: choose one of {', '.join(DIVERGING_MAPS)}")
        if not 4 <= self.font_pt <= 72:
            raise ValueError(f"font size {self.font_pt:g} pt: choose 4 to 72")

    @property
    def palette(self) -> Palette:
        return FIGURE if self.theme == "light" else DARK

    def cmap_for(self, kind: str) -> str:
        return self.sequential if kind == "sequential" else self.diverging


# -- composing figures ---------------------------------------------------------------------------------
def _grid(n: int, columns: int) -> tuple[tuple[int, int, int, int], ...]:
    return tuple((k // columns, k % columns, 1, 1) for k in range(n))


def _station_figure(key: str):
    """A station's figure: exactly the station's panels, in its slots' places (the model's own)."""

    def build(result, sel):
        view = station_view(key, result.inputs.config)
        grid = tuple((s.row, s.col, s.rowspan, s.colspan) for s in view.slots)
        return station_panels(key, result, sel), view.columns, grid, view.panel_size, view.col_stretch
    return build


def _composed_block(result, sel):
    names = ("resid_pre", "ln1_out", "q", "k", "v",
             "attn_scores", "pattern", "z", "attn_out", "resid_mid",
             "ln2_out", "mlp_pre", "mlp_post", "mlp_out", "resid_post")
    panels = share_levels([panel(n, result, sel) for n in names], ("q", "k", "v"))
    return panels, 5, None, (300, 280), ()


def _composed_block_map(result, sel):
    return block_map_panels(result, sel), len(BLOCK_MAP), None, (150, 230), ()


def _composed_all_heads(result, sel):
    n = result.inputs.config.n_heads
    panels = []
    for h in range(n):
        p = panel("pattern", result, dataclasses.replace(sel, head=h))
        panels.append(dataclasses.replace(p, name=f"pattern/{h}", title=tr("pattern, head {h}").format(h=h)))
    return panels, min(n, 4), None, (340, 310), ()


def _slot_words(view) -> str:
    """The panels of a station in words; those only some model families have say which."""
    conds: dict[str, set[str]] = {}
    for s in view.slots:
        conds.setdefault(view_words(s.view), set()).add(s.when)
    for when, changes in view.family.items():
        for s in changes.get("slots", ()):
            conds.setdefault(view_words(s.view), set()).add(s.when or when)
    return ", ".join(w if "" in c or len(c) > 1 else f"{w} ({c.pop()})" for w, c in conds.items())


def _instrument_figure(views_of):
    """An instrument page's figure: its panels and charts (its row in widgets/pages/), with what the
    page waits for on screen (a second forward pass, the √d_k lab's numbers) computed here."""

    def build(result, sel):
        views = views_of(result, sel, None, True)
        grid = tuple((i.row, i.col, i.rowspan, i.colspan) for i in views.items)
        boxes = tuple((i.view.name, box) for i in views.items for box in i.boxes)
        return [i.view for i in views.items], views.columns, grid, views.panel_size, views.col_stretch, boxes
    return build


_COMPOSED_WORDS = {
    "block": QT_TR_NOOP("the whole block for one head: 15 panels from resid_pre to resid_post"),
    "all_heads": QT_TR_NOOP("pattern of every head in the layer"),
    "block_map": QT_TR_NOOP("the block as one picture: each station a thumbnail along the residual stream"),
}

# name -> (description, builder(result, sel) -> (panels, columns, grid or None, panel size, column stretch))
COMPOSED_VIEWS: dict[str, tuple[str, Callable]] = {
    **{key: ("station: " + _slot_words(view), _station_figure(key)) for key, view in STATION_VIEWS.items()},
    "block": (_COMPOSED_WORDS["block"], _composed_block),
    "all_heads": (_COMPOSED_WORDS["all_heads"], _composed_all_heads),
    "block_map": (_COMPOSED_WORDS["block_map"], _composed_block_map),
    **{kind.key: (kind.words, _instrument_figure(kind.views)) for kind in page_kinds()},
}
_COMPOSED_WORDS.update({key: text for key, (text, _) in COMPOSED_VIEWS.items() if key not in STATION_VIEWS})


def view_description(view: str) -> str:
    """What a view shows, in the window's language (the export dialog; COMPOSED_VIEWS and
    SINGLE_VIEWS keep the English for `qkv-lab export --help`)."""
    if view in SINGLE_VIEWS:
        return tr(SINGLE_VIEWS[view][0])
    if view in STATION_VIEWS:
        return tr("station: {panels}").format(panels=_slot_words(STATION_VIEWS[view]))
    return tr(_COMPOSED_WORDS.get(view, view))


def _needs(view: str) -> tuple[bool, bool]:
    """(depends on the layer, depends on the head), for the figure title."""
    if view in SINGLE_VIEWS:
        return SINGLE_VIEWS[view][1:]
    if view in PAGE:
        return PAGE[view].layer, PAGE[view].head
    return True, view != "all_heads"


def view_names() -> list[str]:
    return list(SINGLE_VIEWS) + list(COMPOSED_VIEWS)


def canonical(view: str) -> str:
    return ALIASES.get(view, view)


def is_single(view: str) -> bool:
    return canonical(view) in SINGLE_VIEWS


def describe_views() -> str:
    """A help text listing every view name (CLI --help, docs)."""
    single = ", ".join(SINGLE_VIEWS)
    composed = "; ".join(f"{k} ({d})" for k, (d, _) in COMPOSED_VIEWS.items())
    return f"single views: {single} (aliases: ln1 = ln1_out, ln2 = ln2_out). composed figures: {composed}."


def views_help(width: int = 100) -> str:
    """Every view name, for `qkv-lab export --help`: single views wrapped, composed ones a line each."""
    import textwrap

    single = textwrap.fill(", ".join(SINGLE_VIEWS) + " (aliases: ln1 = ln1_out, ln2 = ln2_out)", width,
                           initial_indent="  ", subsequent_indent="  ")
    pad = max(len(name) for name in COMPOSED_VIEWS) + 2                  # "tiled_softmax" and its words apart
    composed = "\n".join(f"  {name:<{pad}}{text}" for name, (text, _) in COMPOSED_VIEWS.items())
    return ("single views (one matrix; --layer and --head pick it, e.g. pattern = pattern[layer][head]):\n"
            f"{single}\ncomposed figures (several panels; SVG/PDF/PNG only):\n{composed}")


def figure_title(view: str, result, sel) -> tuple[str, str]:
    """(heading, subtitle): "pattern · toy · layer 0 · head 1" and the tokens in quotes."""
    cfg, inputs = result.inputs.config, result.inputs
    name = inputs.preset if inputs.preset != "custom" else "custom"
    parts = [view, name]
    needs_layer, needs_head = _needs(view)
    if needs_layer and cfg.n_layers > 1:
        parts.append(tr("layer {layer}").format(layer=sel.layer))
    if needs_head and cfg.n_heads > 1:
        parts.append(tr("head {head}").format(head=sel.head))
    text = " ".join(result.labels)
    if len(text) > 80:
        text = text[:77] + "…"
    subtitle = f"“{text}”" if text else ""
    if name != "toy" and getattr(inputs, "weights", "") == "random":   # noise, not the real model's attention
        subtitle = " · ".join(filter(None, (subtitle, tr("random weights (seed {seed})").format(seed=inputs.seed))))
    return " · ".join(parts), subtitle


def figure_spec(view: str, result, sel) -> FigureSpec:
    """The panels of a view for this result and selection (KeyError for an unknown view)."""
    view = canonical(view)
    if view in SINGLE_VIEWS:
        one = panel(view, result, sel)
        rows, cols = one.values.shape if one.values.ndim == 2 else (1, one.values.size)
        # Column vectors and single rows get a narrow / short figure; matrices a near-square one.
        size = (220, 480) if cols == 1 else (640, 200) if rows == 1 else (560, 500)
        title, subtitle = figure_title(view, result, sel)
        return FigureSpec(view, title, (one,), ((0, 0, 1, 1),), 1, 1, size, subtitle=subtitle)
    if view not in COMPOSED_VIEWS:
        raise KeyError(view)
    panels, columns, grid, size, stretch, *more = COMPOSED_VIEWS[view][1](result, sel)
    grid = grid or _grid(len(panels), columns)
    n_rows = max(r + rs for r, _, rs, _ in grid)
    n_cols = max(c + cs for _, c, _, cs in grid)
    title, subtitle = figure_title(view, result, sel)
    flow = tuple(node.stream for node in BLOCK_MAP) if view == "block_map" else ()
    return FigureSpec(view, title, tuple(panels), grid, n_cols, n_rows, size, stretch, subtitle, flow,
                      boxes=more[0] if more else ())


MAX_PANEL_PX = 900                                # beyond this, labels thin out (index:word)


def natural_size(spec: FigureSpec, style: FigureStyle) -> tuple[int, int]:
    """Logical size (px at 96 dpi) that suits the figure; larger fonts get larger panels."""
    scale = max(1.0, style.font_pt / 10.0)
    pw, ph = spec.panel_size
    if spec.flow:                                 # a block map: thumbnails, no axes to make room for
        heading = sum(QFontMetricsF(ui_font(size, bold)).height() / scale + 4
                      for _text, size, bold in _title_lines(spec, style)) if style.title else 0
        return int(round((pw * spec.columns + 40) * scale)), int(round((ph + 60 + heading) * scale))
    # Wide enough that every column label fits (no thinning of the tokens), within reason.
    font = QFont()
    font.setPointSizeF(style.font_pt)
    metrics = QFontMetricsF(font)
    need, square = 0.0, False
    for one, (_, _, _, cs) in zip(spec.panels, spec.grid, strict=True):
        if isinstance(one, Chart):
            continue                              # charts take the room they are given
        rows, cols = one.values.shape
        if all(t.isdigit() or "·" in t for t in one.cols):
            continue                              # index columns may thin out (every 2nd, 5th …)
        cell = max((metrics.horizontalAdvance(t) for t in one.cols), default=0.0) + 12
        side = max((metrics.horizontalAdvance(t) for t in one.rows), default=0.0)
        need = max(need, (cols * cell + side + 11 * style.font_pt + 30) / cs / scale)
        square = square or (rows == cols and rows > 1)
    grown = min(max(pw, need), MAX_PANEL_PX)
    if grown > pw and square:
        ph = ph * grown / pw                      # keep T×T cells square-ish
    pw = grown
    width = pw * spec.columns
    title_h = 0.0
    if style.title:
        for text, size, bold in _title_lines(spec, style):
            font = QFont()
            font.setPointSizeF(size)
            font.setBold(bold)
            metrics = QFontMetricsF(font)
            width = max(width, metrics.horizontalAdvance(text) / scale + 40)   # never clip the title
            title_h += metrics.height() / scale + 4
    return int(round(width * scale)), int(round((ph * spec.rows + title_h + 8) * scale))


def _title_lines(spec: FigureSpec, style: FigureStyle) -> list[tuple[str, float, bool]]:
    lines = [(spec.title, style.font_pt * 1.3, True)]
    if spec.subtitle:
        lines.append((spec.subtitle, style.font_pt * 1.1, False))
    return lines


def title_html(spec: FigureSpec, style: FigureStyle) -> str:
    lines = _title_lines(spec, style)
    parts = [f"<div align='center' style='font-size:{size:.1f}pt; font-weight:{'bold' if bold else 'normal'}'>"
             f"{html.escape(text)}</div>" for text, size, bold in lines]
    return "".join(parts)


# -- drawing ----------------------------------------------------------------------------------------
# Few-cell images are handed to the plot nearest-neighbour enlarged: SVG and PDF viewers smooth a
# 6×6 bitmap into a blur; a 600×600 one stays crisp cells.
CRISP_PIXELS = 600
CRISP_MAX = 4_000_000


class FigureWidget(pg.GraphicsLayoutWidget):
    """Draws a FigureSpec in a FigureStyle: a title over a grid of MatrixPlots."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.plots: dict[str, MatrixPlot] = {}
        self.charts: dict[str, pg.PlotItem] = {}
        self.title_label = None
        self.flow_item = None
        self.spec: FigureSpec | None = None
        self.style: FigureStyle | None = None

    def show_figure(self, spec: FigureSpec, style: FigureStyle, palette: Palette | None = None) -> None:
        """Draw `spec` in `style` (on screen, the block map passes the window's palette)."""
        self.spec, self.style = spec, style
        pal = palette or style.palette
        self.ci.clear()
        self.plots = {}
        self.charts = {}
        self._chart_views: list = []
        self.hatches: list[LineHatch] = []
        if getattr(self, "flow_item", None) is not None:
            self.scene().removeItem(self.flow_item)
            self.flow_item = None
        self.setBackground(pal.background)
        self.ci.setContentsMargins(8, 8, 8, 40 if spec.flow else 8)   # room for the stream under a map
        self.ci.setSpacing(max(10, style.font_pt * 1.2))
        top = 0
        self.title_label = None
        if style.title and spec.title:
            self.title_label = self.ci.addLabel(title_html(spec, style), row=0, col=0, colspan=spec.columns,
                                                color=pal.foreground)
            item = self.title_label.item        # centre each line under the widest one
            item.setTextWidth(item.document().idealWidth())
            top = 1
        for one, (r, c, rs, cs) in zip(spec.panels, spec.grid, strict=True):
            if isinstance(one, Chart):
                plot = self.ci.addPlot(row=top + r, col=c, rowspan=rs, colspan=cs, enableMenu=False)
                draw_chart(plot, one, pal, font_pt=style.font_pt, line_scale=style.line_scale,
                           title_size=f"{style.font_pt * 1.1:.1f}pt")
                self.charts[one.name] = plot
                self._chart_views.append((plot, one))
                continue
            mp = MatrixPlot(self.ci, top + r, c, one.title, kind=one.kind, row_axis=one.row_axis,
                            col_axis=one.col_axis, palette=pal, rowspan=rs, colspan=cs, colorbar=not spec.flow)
            mp.apply_style(pal, cmap=style.cmap_for(one.kind), font_pt=style.font_pt, line_scale=style.line_scale)
            mp.show_values = style.show_values and not spec.flow
            if spec.flow:                         # thumbnails: the picture, not the labels
                mp.plot.hideAxis("left")
                mp.plot.hideAxis("bottom")
            mp.set_data(one.values, one.rows, one.cols, masked=one.masked, levels=one.levels,
                        masked_text=one.masked_text, row_ticks=one.row_ticks, col_ticks=one.col_ticks,
                        stairs=False)
            mp.set_message(one.missing)               # a name this model lacks: why, in its place
            mp.set_unit(colour_unit(one.name))        # what the colour bar's values are
            mp.set_clipped(one.clipped, one.caption)  # outliers beyond a robust scale: marked and named
            mp.set_marks(one.marks)                   # a long map: the query's strongest keys
            _crisp(mp)
            for name, (x, y, w, h) in spec.boxes:
                if name == one.name:
                    box = pg.QtWidgets.QGraphicsRectItem(x, y, w, h)
                    pen = QPen(QColor(pal.foreground), 2.5 * style.line_scale)
                    pen.setCosmetic(True)
                    box.setPen(pen)
                    box.setZValue(11)
                    mp.plot.addItem(box)
            # Stretch factors only share out spare room: cap a single column / row instead.
            rows, cols = mp.values.shape
            scale = max(1.0, style.font_pt / 10.0)
            if cols == 1 and spec.columns > 1:
                mp.plot.setMaximumWidth(190 * scale)
            if rows == 1 and spec.rows > 1:
                mp.plot.setMaximumHeight(150 * scale)
            if one.masked is not None and one.masked.any():
                # Qt's pattern brushes come out as grey blocks in SVG viewers: hatch with lines.
                mp.hatch.setBrush(QBrush(Qt.BrushStyle.NoBrush))
                hatch = LineHatch(mp.hatch.rect(), FIGURE_HATCH if style.theme == "light" else pal.masked)
                mp.plot.addItem(hatch)
                self.hatches.append(hatch)
            mp.set_outline(one.outline)
            self.plots[one.name] = mp
        for col, stretch in enumerate(spec.col_stretch):
            self.ci.layout.setColumnStretchFactor(col, stretch)
        if spec.flow:
            self.flow_item = FlowLines(list(self.plots.values()), spec.flow, pal)
            self.scene().addItem(self.flow_item)
            self._fit_thumbnails()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        spec = getattr(self, "spec", None)             # pyqtgraph resizes before __init__ ends
        if spec is not None and spec.flow:
            self._fit_thumbnails()
        if spec is not None:
            self.ci.layout.activate()
            for mp in self.plots.values():
                mp.fit_caption()                          # what a robust scale clips, at the panel's width

    def _fit_thumbnails(self) -> None:
        """Block-map thumbnails as square tiles of one size, within the height there is (the
        figure's title and the stream under the row take theirs), the row centred in what is left."""
        plots = list(self.plots.values())
        if not plots:
            return
        room = (self.width() - 16) / max(len(plots), 1) - self.ci.layout.horizontalSpacing()
        title = plots[0].plot.titleLabel.boundingRect().height()
        heading = self.title_label.boundingRect().height() + self.ci.layout.verticalSpacing() if self.title_label else 0
        avail = self.height() - 16 - 40 - heading
        cap = max(min(title + 8 + room, avail), title + 20)          # square tiles, one size for all
        for col, mp in enumerate(plots):
            mp.plot.setMaximumHeight(cap)
            mp.plot.setPreferredWidth(1)                             # the columns share the width equally
            self.ci.layout.setColumnStretchFactor(col, 1)
        spare = max(0.0, avail - cap)
        self.ci.setContentsMargins(8, 8 + spare / 2, 8, 40 + spare / 2)
        self.ci.layout.activate()
        for mp in plots:
            mp.fit_title()                                           # "+ resid_post" in a narrow tile

    @contextmanager
    def rendering_at(self, scale: float):
        """Numbers in cells are sized in device pixels: scale them with an enlarged render."""
        items = [mp.text for mp in self.plots.values()] + self.hatches
        for item in items:
            item.px_scale = scale
        self._redraw_charts(scale)                    # their lines and dots are sized in pixels too
        try:
            yield
        finally:
            for item in items:
                item.px_scale = 1.0
            self._redraw_charts(1.0)

    def _redraw_charts(self, scale: float) -> None:
        style = self.style
        for plot, chart in getattr(self, "_chart_views", ()):
            draw_chart(plot, chart, style.palette, font_pt=style.font_pt, line_scale=style.line_scale * scale,
                       title_size=f"{style.font_pt * 1.1:.1f}pt")


class FlowLines(pg.GraphicsObject):
    """The block map's arrows: one from each node to the next, and the residual stream under
    the nodes, from the input past each branch into its add. Laid out at paint time from where
    the thumbnails are, so it follows any size."""

    def __init__(self, plots: list[MatrixPlot], stream: tuple[bool, ...], palette: Palette):
        super().__init__()
        self.plots, self.stream, self.palette = plots, stream, palette
        self.setZValue(50)

    def _rects(self) -> list[QRectF]:
        return [mp.plot.vb.sceneBoundingRect() for mp in self.plots]

    def boundingRect(self) -> QRectF:
        rects = self._rects()
        if not rects:
            return QRectF()
        box = rects[0]
        for r in rects[1:]:
            box = box.united(r)
        return box.adjusted(-20, -20, 20, 60)

    @staticmethod
    def _head(p, tip: QPointF, dx: float, dy: float, size: float) -> None:
        """An arrowhead at `tip` pointing along (dx, dy) (a unit vector)."""
        back = QPointF(tip.x() - dx * size, tip.y() - dy * size)
        side = QPointF(-dy * size * 0.5, dx * size * 0.5)
        p.drawPolygon(QPolygonF([tip, back + side, back - side]))

    @safe_paint
    def paint(self, p, *args) -> None:
        rects = self._rects()
        if len(rects) < 2:
            return
        p.save()
        try:
            p.setRenderHint(p.RenderHint.Antialiasing, True)
            ink, stream = QColor(self.palette.muted), QColor(self.palette.foreground)
            for k in range(len(rects) - 1):                 # node → next node, at mid-height
                a, b = rects[k], rects[k + 1]
                y = (a.center().y() + b.center().y()) / 2
                gap = b.left() - a.right()
                if gap < 8:
                    continue
                p.setPen(QPen(ink, 1.6))
                p.setBrush(ink)
                start, tip = QPointF(a.right() + 3, y), QPointF(b.left() - 3, y)
                p.drawLine(QLineF(start, QPointF(tip.x() - 5, y)))
                self._head(p, tip, 1.0, 0.0, min(11.0, gap * 0.5))
            bus = max(r.bottom() for r in rects) + 26
            adds = [k for k, on in enumerate(self.stream) if on]
            p.setPen(QPen(stream, 3.5))
            p.setBrush(stream)
            for a, b in itertools.pairwise(adds):           # the skip path: under the branch, into the add
                x0, x1 = rects[a].center().x(), rects[b].center().x()
                path = QPainterPath(QPointF(x0, rects[a].bottom() + 3))
                path.lineTo(x0, bus)
                path.lineTo(x1, bus)
                path.lineTo(x1, rects[b].bottom() + 10)
                p.setBrush(Qt.BrushStyle.NoBrush)
                p.drawPath(path)
                p.setBrush(stream)
                self._head(p, QPointF(x1, rects[b].bottom() + 3), 0.0, -1.0, 12.0)
            if len(adds) > 1:
                p.setPen(QPen(stream))
                font = QFont()
                font.setItalic(True)
                p.setFont(font)
                x0 = rects[adds[0]].center().x() + 8
                p.drawText(QRectF(x0, bus - 20, rects[adds[1]].center().x() - x0, 18),
                           Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignBottom, tr("residual stream"))
        finally:
            p.restore()


class LineHatch(pg.GraphicsObject):
    """Diagonal lines over a rectangle, under the image: they show through the masked (NaN)
    cells. Plain lines survive every format, unlike a pattern brush."""

    SPACING_PX = 7.0

    def __init__(self, rect: QRectF, colour: str):
        super().__init__()
        self._rect = QRectF(rect)
        self._colour = QColor(colour)
        self.px_scale = 1.0
        self.setZValue(-10)

    def boundingRect(self) -> QRectF:
        return self._rect

    @safe_paint
    def paint(self, p, *args) -> None:
        r = p.transform().mapRect(self._rect)
        if r.isEmpty():
            return
        p.save()
        p.resetTransform()
        pen = QPen(self._colour, 0.8 * self.px_scale)
        p.setPen(pen)
        step = self.SPACING_PX * self.px_scale
        left, top, right, bottom = r.left(), r.top(), r.right(), r.bottom()
        c = math.ceil((left + top) / step) * step         # lines x + y = c ("/" on screen)
        lines = []
        while c <= right + bottom:
            x0, x1 = max(left, c - bottom), min(right, c - top)
            if x1 > x0:
                lines.append(QLineF(x0, c - x0, x1, c - x1))
            c += step
        p.drawLines(lines)
        p.restore()


def _crisp(mp: MatrixPlot) -> None:
    image = mp.image.image
    if image is None or mp.values is None or image.size == 0:
        return
    rows, cols = image.shape[:2]
    k = max(1, math.ceil(CRISP_PIXELS / max(1, min(rows, cols))))
    while k > 1 and rows * cols * k * k > CRISP_MAX:
        k -= 1
    if k == 1:
        return
    big = np.repeat(np.repeat(image, k, axis=0), k, axis=1)
    full_rows, full_cols = mp.values.shape
    mp.image.setImage(big, levels=mp.levels, autoLevels=False)
    mp.image.setRect(QRectF(-0.5, -0.5, full_cols, full_rows))


__all__ = ["ALIASES", "COMPOSED_VIEWS", "FigureSpec", "FigureStyle", "FigureWidget", "Panel", "SINGLE_VIEWS",
           "canonical", "describe_views", "figure_spec", "figure_title", "is_single", "natural_size",
           "view_description", "view_names"]
