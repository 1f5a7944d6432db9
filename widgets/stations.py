"""The stations of a block, each a labelled set of views drawn from one LabResult + Selection.

A station draws the panels widgets/views.py gives it (`station_panels`: the same panels its
exported figure has); it never computes (derived numbers come from compute.explain via the views).
`content()` returns exactly the arrays a station shows, by their Trace names, so tests can check
what a person sees. Most stations are heatmaps only and need no class of their own; the softmax
row (bars), Heads·W_O (head dividers) and the MLP (the next-token bars) add to that.
"""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QCursor, QFont
from PySide6.QtWidgets import QLabel, QToolTip, QVBoxLayout, QWidget

from compute import Config, explain
from compute.generate import top_predictions
from compute.stations import PAGE

from .axes import make_lean
from .matrix import LabelAxis, MatrixPlot, connect_mouse, format_value, set_title
from .theme import LIGHT, Palette
from .views import STATION_VIEWS, kv_head, kv_sharers, station_panels, station_shapes, station_view, view_kind

SUB = {"h": "h", "i": "i"}
# Pages that read a query head's K/V head: their header says which one, and who shares it.
KV_PAGES = frozenset({"projections", "scores", "softmax", "weighted_sum"})


class Canvas(pg.GraphicsLayoutWidget):
    """A GraphicsLayoutWidget that says when it has finished painting (render timing)."""

    painted = Signal()

    def paintEvent(self, event) -> None:
        super().paintEvent(event)
        self.painted.emit()


class Station(QWidget):
    """Base: a header (title, formula, shapes) over a pyqtgraph canvas of MatrixPlots."""

    hovered = Signal(object)            # (query|None, key|None) or None
    clicked = Signal(object)            # (query|None, key|None)
    traced = Signal(object)             # (name, row, col): explain this cell (dot-product trace)
    key = ""                            # a compute.stations.PAGE key: its title, its view

    def __init__(self, palette: Palette = LIGHT, parent: QWidget | None = None):
        super().__init__(parent)
        self.palette = palette
        self.result = None
        self.selection = None
        self._dirty = False
        self._drawn_for: tuple | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 2, 4, 2)
        layout.setSpacing(2)
        self.header = QLabel()
        self.header.setObjectName("stationHeader")
        self.header.setTextFormat(Qt.TextFormat.RichText)
        self.header.setWordWrap(True)
        layout.addWidget(self.header)
        self.canvas = Canvas()
        self.canvas.setBackground(palette.background)
        self.canvas.ci.setSpacing(14)
        layout.addWidget(self.canvas, 1)
        self.plots: list[MatrixPlot] = []
        self.roles: dict[int, tuple[str | None, str | None]] = {}   # id(plot) -> (row role, col role)
        # The slots of the model on screen (widgets/views.py station_view): GPT-2's until a result
        # of another model family arrives, then `rebuild` makes that family's plots.
        self.view = station_view(self.key, Config()) if self.key in STATION_VIEWS else None
        self._style: tuple = ()                           # the last apply_style's maps, font, lines
        self.build()
        self._lean_axes()
        connect_mouse(self.canvas, lambda: self.plots, self._on_hover, self._on_click)

    def _lean_axes(self) -> None:
        for item in self.canvas.ci.items:                 # every axis lays out the lean way
            if isinstance(item, pg.PlotItem):
                for side in ("left", "bottom", "right", "top"):
                    axis = item.getAxis(side)
                    if not isinstance(axis, LabelAxis) and not hasattr(axis, "lean_levels"):
                        make_lean(axis, levels=2)

    # -- building --------------------------------------------------------------------------------
    def matrix(self, row: int, col: int, title: str, kind: str = "diverging", roles=(None, None),
               row_axis: str = "", col_axis: str = "", **kw) -> MatrixPlot:
        mp = MatrixPlot(self.canvas.ci, row, col, title, kind=kind, row_axis=row_axis, col_axis=col_axis,
                        palette=self.palette, **kw)
        self.plots.append(mp)
        self.roles[id(mp)] = roles
        return mp

    def build(self) -> None:
        """One heatmap per slot of the station's view (widgets/views.py) for the model on screen."""
        view = self.view
        self.slot_plots: list[MatrixPlot] = []
        for slot in view.slots:
            mp = self.matrix(slot.row, slot.col, "", kind=view_kind(slot.view), roles=slot.roles,
                             rowspan=slot.rowspan, colspan=slot.colspan, colorbar=slot.colorbar)
            mp.trace_name = slot.trace                 # a click explains the cell
            self.slot_plots.append(mp)
            if slot.attr:
                setattr(self, slot.attr, mp)
        lay = self.canvas.ci.layout
        for col in range(max(view.columns, len(view.col_stretch), lay.columnCount())):
            lay.setColumnStretchFactor(col, view.col_stretch[col] if col < len(view.col_stretch) else 1)
        for row in range(max(len(view.row_stretch), lay.rowCount())):
            lay.setRowStretchFactor(row, view.row_stretch[row] if row < len(view.row_stretch) else 1)

    def rebuild(self, view) -> None:
        """New plots for another set of slots (a model of another family: RMSNorm's scale instead
        of LayerNorm's mean and variance, RoPE's rotated q and k, SwiGLU's branches)."""
        for slot in self.view.slots:
            if slot.attr and getattr(self, slot.attr, None) in self.plots:
                delattr(self, slot.attr)
        self.canvas.ci.clear()
        self.plots, self.roles = [], {}
        self.view = view
        self.build()
        self._lean_axes()
        if self._style:
            self._style_plots(*self._style)
        self._drawn_for = None

    # -- data ------------------------------------------------------------------------------------
    def panels(self, result, sel):
        """The panels this station shows (widgets/views.py), exactly those of its exported figure."""
        return station_panels(self.key, result, sel)

    def content(self, result, sel) -> dict[str, np.ndarray]:
        """The arrays this station shows for a result and selection (no drawing), by name."""
        return {p.name: p.values for p in self.panels(result, sel)}

    def draw(self, result, sel, data: dict[str, np.ndarray]) -> None:
        panels = self.panels(result, sel)
        slots = self.view.slots
        # A row axis is named once per row of panels when its neighbours share it ("token").
        left = {r: p.row_axis for s, p in zip(slots, panels, strict=True) if s.col == 0
                for r in range(s.row, s.row + s.rowspan)}
        for slot, mp, p in zip(slots, self.slot_plots, panels, strict=True):
            mp.row_axis_shown = slot.col == 0 or left.get(slot.row) != p.row_axis
            self.draw_panel(mp, p)

    def draw_panel(self, mp: MatrixPlot, p) -> None:
        mp.set_title(p.title)
        mp.set_axis_titles(p.row_axis if mp.row_axis_shown else "", p.col_axis)
        mp.set_data(p.values, p.rows, p.cols, masked=p.masked, levels=p.levels, masked_text=p.masked_text,
                    row_ticks=p.row_ticks, col_ticks=p.col_ticks)
        mp.set_message(p.missing)                     # a name this model lacks: why, never old data

    def highlight(self, sel) -> None:
        hover = sel.hover or (None, None)
        query = hover[0] if hover[0] is not None else sel.query
        key = hover[1] if hover[1] is not None else sel.key
        for mp in self.plots:
            row_role, col_role = self.roles[id(mp)]
            row = {"query": query, "key": key}.get(row_role)
            col = {"query": query, "key": key}.get(col_role)
            cell = (row, col) if row is not None and col is not None else None
            mp.highlight(row=row, col=col, cell=cell)

    # -- updates -----------------------------------------------------------------------------------
    def _data_key(self, result, sel) -> tuple:
        return (id(result), sel.layer, sel.head, sel.query, sel.lock_scales, sel.show_values)

    @staticmethod
    def _fits(result, sel) -> bool:
        cfg = result.inputs.config
        return sel.query < max(result.trace.T, 1) and sel.layer < cfg.n_layers and sel.head < cfg.n_heads

    def can_draw(self, result, sel) -> bool:
        """Whether `result` holds all this station shows for `sel`: an early, partial one may not,
        and a selection made for newer inputs (more tokens, layers, heads) waits for their result."""
        if not self._fits(result, sel):
            return False
        if result.trace.complete:
            return True
        try:
            self.content(result, sel)
        except KeyError:
            return False
        return True

    def show_result(self, result, sel) -> None:
        prev = self.result
        self.result, self.selection = result, sel
        if (prev is not None and not prev.trace.complete and prev.request_id == result.request_id
                and self._drawn_for == self._data_key(prev, sel)):
            # The full result of a request whose early part is on screen: the same arrays.
            self._drawn_for = self._data_key(result, sel)
        self._refresh()

    def show_selection(self, sel) -> None:
        self.selection = sel
        self._refresh()

    def _refresh(self) -> None:
        if self.result is None or self.selection is None:
            return
        if not self.isVisible():
            self._dirty = True
            return
        key = self._data_key(self.result, self.selection)
        if key != self._drawn_for:
            self.redraw()
        self.highlight(self.selection)

    def redraw(self) -> None:
        result, sel = self.result, self.selection
        if not self._fits(result, sel):
            return                                        # a selection for newer inputs: wait for them
        view = station_view(self.key, result.inputs.config) if self.view is not None else None
        if view is not None and view.slots != self.view.slots:
            self.rebuild(view)                            # another model family: its own panels
        elif view is not None:
            self.view = view                              # the same panels; its formula, its shapes
        try:
            data = self.content(result, sel)
        except KeyError:
            if result.trace.complete:
                raise
            return                                        # early result without this: wait for the rest
        for mp in self.plots:
            mp.show_values = sel.show_values
        self.draw(result, sel, data)
        self.header.setText(self.header_html(result, sel))
        self._drawn_for = self._data_key(result, sel)
        self._dirty = False

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self._dirty or (self.result is not None and self._drawn_for is None):
            self._refresh()

    @property
    def title(self) -> str:
        return PAGE[self.key].title if self.key in PAGE else ""

    @property
    def formula(self) -> str:
        return self.view.formula if self.view is not None else ""

    def where(self, sel) -> str:
        """Which layer and head the views show (what this page depends on, from the page table);
        with grouped K/V heads, which K/V head the query head reads and who shares it."""
        page = PAGE.get(self.key)
        if page is not None and not page.layer:
            return "before the first block"
        if page is not None and not page.head:
            return f"layer {sel.layer}"
        text = f"layer {sel.layer}, head {sel.head}"
        cfg = self.result.inputs.config if self.result is not None else None
        if cfg is not None and cfg.n_kv_heads < cfg.n_heads and self.key in KV_PAGES:
            first, last = kv_sharers(cfg, sel.head)
            text += f" · K/V head {kv_head(cfg, sel.head)}, shared by query heads {first}–{last}"
        return text

    def header_html(self, result, sel) -> str:
        f = self.font_scale
        return (f"<b style='font-size:{13 * f:.0f}pt'>{self.title}</b>&nbsp;&nbsp;"
                f"<span style='font-size:{11 * f:.0f}pt'>{self.formula}</span>"
                f"<br><span style='color:{self.palette.muted}; font-size:{10 * f:.0f}pt'>"
                f"{self.shapes(result, sel)} · {self.where(sel)}</span>")

    # -- appearance: themes and presentation mode (no new data, no recompute) -------------------------
    font_scale = 1.0
    title_size = "11pt"

    def text_font(self, scale: float = 1.0, bold: bool = False) -> QFont:
        """Labels drawn in a plot (values over bars): 10 pt, times presentation mode's scale."""
        font = QFont()
        font.setPointSizeF(10 * scale * self.font_scale)
        font.setBold(bold)
        return font

    def apply_style(self, palette: Palette | None = None, sequential: str | None = None,
                    diverging: str | None = None, font_pt: float | None = None, line_scale: float = 1.0) -> None:
        """Restyle every plot in place: palette, colour maps by kind, font size, line width."""
        if palette is not None:
            self.palette = palette
            self.canvas.setBackground(palette.background)
        if font_pt is not None:
            self.font_scale = font_pt / 10.0
            self.title_size = f"{font_pt * 1.1:.1f}pt"
        old = self._style or (None, None, None, 1.0)
        self._style = (sequential or old[0], diverging or old[1], font_pt or old[2], line_scale)
        self._style_plots(*self._style)
        self._drawn_for = None                        # titles and headers are written at draw time
        self._refresh()

    def _style_plots(self, sequential, diverging, font_pt, line_scale) -> None:
        for mp in self.plots:
            cmap = sequential if mp.kind == "sequential" else diverging
            mp.apply_style(self.palette, cmap=cmap, font_pt=font_pt, line_scale=line_scale)
        mine = {id(mp.plot) for mp in self.plots}
        for item in self.canvas.ci.items:             # plain plots (bars): axes and their text
            if isinstance(item, pg.PlotItem) and id(item) not in mine:
                for side in ("left", "bottom"):
                    axis = item.getAxis(side)
                    axis.setTextPen(self.palette.foreground)
                    if font_pt is not None:
                        font = QFont()
                        font.setPointSizeF(font_pt)
                        axis.setStyle(tickFont=font)
                for child in item.items:
                    if isinstance(child, pg.TextItem):
                        child.setColor(self.palette.foreground)

    def shapes(self, result, sel) -> str:
        return station_shapes(self.key, result, sel) if self.key in STATION_VIEWS else ""

    # -- mouse -------------------------------------------------------------------------------------
    def _roles_to_pair(self, mp: MatrixPlot, cell: tuple[int, int]) -> tuple[int | None, int | None]:
        row_role, col_role = self.roles[id(mp)]
        pair = {"query": None, "key": None}
        if row_role:
            pair[row_role] = cell[0]
        if col_role:
            pair[col_role] = cell[1]
        return pair["query"], pair["key"]

    def _on_hover(self, mp, cell, scene_pos) -> None:
        if mp is None:
            QToolTip.hideText()
            self.hovered.emit(None)
            return
        QToolTip.showText(QCursor.pos(), mp.describe(*cell), self.canvas)
        pair = self._roles_to_pair(mp, cell)
        self.hovered.emit(pair if pair != (None, None) else None)

    def _on_click(self, mp, cell, event) -> None:
        pair = self._roles_to_pair(mp, cell)
        if pair != (None, None):
            self.clicked.emit(pair)
        if getattr(mp, "trace_name", None):
            self.traced.emit((mp.trace_name, cell[0], cell[1]))


# -- the stations that draw more than heatmaps ----------------------------------------------------------
class ProjectionStation(Station):
    """Q·K·V, where a traced cell lights its multiplication pairs: ln1_out's row times a weight
    column (q, k, v), or q_i beside k_j (a score)."""

    key = "projections"

    def highlight(self, sel) -> None:
        super().highlight(sel)
        if sel.trace is None:
            return
        name, row, col = sel.trace
        if name in ("q", "k", "v"):
            self.x.highlight(row=row)
            for key, mp in {"q": self.wq, "k": self.wk, "v": self.wv}.items():
                mp.highlight(col=col if key == name else None)
            out = {"q": self.q, "k": self.k, "v": self.v}[name]
            out.highlight(row=row, cell=(row, col))
        elif name == "attn_scores":
            # q_i · k_j, pair by pair (with RoPE the scores multiply the rotated rot_q and rot_k)
            (getattr(self, "rq", None) or self.q).highlight(row=row)
            (getattr(self, "rk", None) or self.k).highlight(row=col)


class SoftmaxRowStation(Station):
    """One query's scores and probabilities as bars over the keys (its figure: the same two rows
    as heatmaps)."""

    key = "softmax"

    def build(self):
        self.scores_plot = self.canvas.addPlot(row=0, col=0, axisItems={"bottom": LabelAxis("bottom")})
        self.probs_plot = self.canvas.addPlot(row=1, col=0, axisItems={"bottom": LabelAxis("bottom")})
        for plot in (self.scores_plot, self.probs_plot):
            plot.setMenuEnabled(False)
            plot.setMouseEnabled(x=False, y=False)
            plot.hideButtons()
            plot.showGrid(y=True, alpha=0.25)
            for side in ("left", "bottom"):
                plot.getAxis(side).setTextPen(self.palette.foreground)
                plot.getAxis(side).enableAutoSIPrefix(False)
        self.score_bars = pg.BarGraphItem(x=[], height=[], width=0.7)
        self.prob_bars = pg.BarGraphItem(x=[], height=[], width=0.7)
        self.scores_plot.addItem(self.score_bars)
        self.probs_plot.addItem(self.prob_bars)
        self.labels_items: list[pg.TextItem] = []
        self.sum_text = pg.TextItem(anchor=(1, 0), color=self.palette.foreground)
        self.sum_text.setFont(QFont("", 12, QFont.Weight.Bold))
        self.probs_plot.addItem(self.sum_text)

    def content(self, result, sel):
        if result.trace.T == 0:
            return {"attn_scores": np.zeros((1, 0)), "pattern": np.zeros((1, 0))}
        return super().content(result, sel)

    def draw(self, result, sel, d):
        labels = result.labels
        scores_panel, probs_panel = self.panels(result, sel) if labels else (None, None)
        scores, probs = d["attn_scores"][0], d["pattern"][0]                 # [T] each
        T = len(probs)
        x = np.arange(T)
        allowed = np.isfinite(scores)
        shown = np.where(allowed, scores, 0.0)
        top = int(np.argmax(probs)) if T else -1
        brushes = [pg.mkBrush("#1a73e8" if a else "#dadce0") for a in allowed]
        pbrush = [pg.mkBrush(self.palette.accent if j == top else "#4292c6") if allowed[j]
                  else pg.mkBrush("#dadce0") for j in range(T)]
        if T:
            self.score_bars.setOpts(x=x, height=shown, width=0.7, brushes=brushes, pens=[pg.mkPen(None)] * T)
            self.prob_bars.setOpts(x=x, height=probs, width=0.7, brushes=pbrush, pens=[pg.mkPen(None)] * T)
        else:                                     # no tokens: empty bars (pyqtgraph fails on empty pens)
            for bars in (self.score_bars, self.prob_bars):
                bars.setOpts(x=[], height=[], width=0.7, brushes=None, pens=None)
        for plot in (self.scores_plot, self.probs_plot):
            plot.getAxis("bottom").set_labels(labels)
            plot.setXRange(-0.6, max(T - 0.4, 0.6), padding=0)
        if scores_panel is not None:
            set_title(self.scores_plot, scores_panel.title, self.palette.foreground, self.title_size)
            set_title(self.probs_plot, probs_panel.title, self.palette.foreground, self.title_size)
        self.probs_plot.setYRange(0, 1.15, padding=0)
        for item in self.labels_items:
            self.probs_plot.removeItem(item)
        self.labels_items = []
        if 0 < T <= 32:
            for j in range(T):
                item = pg.TextItem(format_value(float(probs[j])) if allowed[j] else "0", anchor=(0.5, 1),
                                   color=self.palette.foreground)
                item.setPos(j, float(probs[j]) + 0.01)
                item.setFont(self.text_font())
                self.probs_plot.addItem(item)
                self.labels_items.append(item)
        total = float(probs.sum()) if T else 0.0
        ent = abs(explain.row_entropy(probs)) if T else 0.0
        self.sum_text.setText(f"Σ_j = {total:.3f}   max = {probs.max() if T else 0:.3f}   entropy = {ent:.2f} nats")
        self.sum_text.setPos(max(T - 0.5, 0.5), 1.14)
        self.sum_text.setFont(self.text_font(1.2, bold=True))


class HeadsStation(Station):
    """z_concat and the stacked W_O with a line between heads; W_O is redrawn only when it changes."""

    key = "heads"

    def build(self):
        super().build()
        self.lines: list = []
        self._lines_key: tuple | None = None
        self._wo_drawn: tuple | None = None       # (id of the W_O array drawn, numbers shown?)
        self._wo_source = None

    def draw_panel(self, mp, p) -> None:
        if mp is self.wo:
            W_O = self.result.weights[f"blocks.{self.selection.layer}.attn.W_O"]   # the array Weights keeps
            if self._wo_drawn == (id(W_O), mp.show_values) and mp.values is not None:
                return                                                # weights: only when they change
            self._wo_drawn = (id(W_O), mp.show_values)
            self._wo_source = W_O                                     # kept alive: its id stays unique
        super().draw_panel(mp, p)

    def draw(self, result, sel, d):
        super().draw(result, sel, d)
        cfg = result.inputs.config
        lines_key = (cfg.n_heads, cfg.d_head, self.palette.foreground)
        if lines_key == self._lines_key:
            return
        self._lines_key = lines_key
        for plot, line in self.lines:
            plot.removeItem(line)
        self.lines = []
        pen = pg.mkPen(self.palette.foreground, width=2)
        for h in range(1, cfg.n_heads if cfg.n_heads <= 16 else 1):      # 95 lines would hide the data
            edge = h * cfg.d_head - 0.5
            for mp, angle in ((self.zc, 90), (self.wo, 0)):
                line = pg.InfiniteLine(pos=edge, angle=angle, pen=pen)
                mp.plot.addItem(line)
                self.lines.append((mp.plot, line))


class MLPStation(Station):
    """The MLP's heatmaps and, beside them, the next token the model predicts after the query."""

    key = "mlp"

    def build(self):
        super().build()
        self._logit_title = None
        # Beside the second row of heatmaps: column 2 (GELU) or 3 (SwiGLU's wider first row).
        self.logit_plot = self.canvas.addPlot(row=1, col=self.view.columns - 1, axisItems={"left": LabelAxis("left")})
        self.logit_plot.setMenuEnabled(False)
        self.logit_plot.setMouseEnabled(x=False, y=False)
        self.logit_plot.hideButtons()
        self.logit_plot.invertY(True)
        for side in ("left", "bottom"):
            self.logit_plot.getAxis(side).setTextPen(self.palette.foreground)
            self.logit_plot.getAxis(side).enableAutoSIPrefix(False)
        self.logit_bars = pg.BarGraphItem(x0=[], y=[], height=0.7, width=[])
        self.logit_plot.addItem(self.logit_bars)

    def content(self, result, sel):
        data = super().content(result, sel)
        t = result.trace
        if t.T:
            top = top_predictions(t, sel.query, k=8)
            data.update(top_ids=np.array([p.token for p in top]), top_logits=np.array([p.logit for p in top]),
                        top_probs=np.array([p.prob for p in top]))
        return data

    def draw(self, result, sel, d):
        super().draw(result, sel, d)
        labels = result.labels
        if "top_ids" in d:
            probs = d["top_probs"]
            n = len(probs)
            names = [result.token_label(int(t)) for t in d["top_ids"]]
            self.logit_bars.setOpts(x0=np.zeros(n), y=np.arange(n), height=0.7, width=probs,
                                    brush=pg.mkBrush("#4292c6"), pen=pg.mkPen(None))
            self.logit_plot.getAxis("left").set_labels(names)
            self.logit_plot.setXRange(0, max(float(probs.max()) * 1.15, 1e-12), padding=0)
            self.logit_plot.setYRange(-0.6, n - 0.4, padding=0)
            word = labels[sel.query] if labels else ""
            title = (f"next token after i = {sel.query} (“{word}”)", self.palette.foreground, self.title_size)
            if title != getattr(self, "_logit_title", None):         # HTML labels: re-laid out only on change
                self._logit_title = title
                set_title(self.logit_plot, *title)
                self.logit_plot.setLabel("bottom", "softmax(logits) after the last layer")


def station_class(key: str) -> type[Station]:
    """The Station class of a key: its own where it draws more than heatmaps, else a plain one."""
    special = {cls.key: cls for cls in (ProjectionStation, SoftmaxRowStation, HeadsStation, MLPStation)}
    return special.get(key) or type(f"{key.title().replace('_', '')}Station", (Station,), {"key": key})


STATION_CLASSES = [station_class(key) for key in STATION_VIEWS]
