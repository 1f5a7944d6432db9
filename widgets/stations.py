"""The stations of a block, each a labelled set of views drawn from one LabResult + Selection.

A station reads names from the Trace (and the weights it used) and draws; it never computes
(derived numbers come from compute.explain). `content()` returns exactly the arrays a station
shows, by their DESIGN.md names, so tests can check what a person sees.
"""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QCursor, QFont
from PySide6.QtWidgets import QLabel, QToolTip, QVBoxLayout, QWidget

from compute import explain
from compute.generate import top_predictions

from .axes import make_lean
from .matrix import LabelAxis, MatrixPlot, connect_mouse, format_value, set_title
from .matrix import idx_labels as _idx
from .matrix import symmetric_levels as _sym
from .theme import LIGHT, Palette

SUB = {"h": "h", "i": "i"}


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
    key = ""
    title = ""
    formula = ""

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
        self.build()
        for item in self.canvas.ci.items:                 # every axis lays out the lean way
            if isinstance(item, pg.PlotItem):
                for side in ("left", "bottom", "right", "top"):
                    axis = item.getAxis(side)
                    if not isinstance(axis, LabelAxis) and not hasattr(axis, "lean_levels"):
                        make_lean(axis, levels=2)
        connect_mouse(self.canvas, lambda: self.plots, self._on_hover, self._on_click)

    # -- building --------------------------------------------------------------------------------
    def matrix(self, row: int, col: int, title: str, kind: str = "diverging", roles=(None, None),
               row_axis: str = "", col_axis: str = "", **kw) -> MatrixPlot:
        mp = MatrixPlot(self.canvas.ci, row, col, title, kind=kind, row_axis=row_axis, col_axis=col_axis,
                        palette=self.palette, **kw)
        self.plots.append(mp)
        self.roles[id(mp)] = roles
        return mp

    def build(self) -> None:
        raise NotImplementedError

    # -- data ------------------------------------------------------------------------------------
    def content(self, result, sel) -> dict[str, np.ndarray]:
        """The arrays this station shows for a result and selection (no drawing)."""
        raise NotImplementedError

    def draw(self, result, sel, data: dict[str, np.ndarray]) -> None:
        raise NotImplementedError

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

    def header_html(self, result, sel) -> str:
        cfg = result.inputs.config
        where = f"layer {sel.layer}, head {sel.head}" if cfg.n_layers else ""
        f = self.font_scale
        return (f"<b style='font-size:{13 * f:.0f}pt'>{self.title}</b>&nbsp;&nbsp;"
                f"<span style='font-size:{11 * f:.0f}pt'>{self.formula}</span>"
                f"<br><span style='color:{self.palette.muted}; font-size:{10 * f:.0f}pt'>"
                f"{self.shapes(result, sel)} · {where}</span>")

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
        self._drawn_for = None                        # titles and headers are written at draw time
        self._refresh()

    def shapes(self, result, sel) -> str:
        return ""

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


# -- 1. embeddings ---------------------------------------------------------------------------------
class EmbeddingsStation(Station):
    key = "embeddings"
    title = "Embeddings"
    formula = "resid_pre = embed + pos_embed = W_E[tokens] + W_pos[:T]"

    def build(self):
        self.embed = self.matrix(0, 0, "embed = W_E[tokens]", roles=("query", None), row_axis="token",
                                 col_axis="d_model")
        self.pos = self.matrix(0, 1, "pos_embed = W_pos[:T]", roles=("query", None), col_axis="d_model")
        self.sum = self.matrix(0, 2, "resid_pre (layer 0)", roles=("query", None), col_axis="d_model")

    def content(self, result, sel):
        t = result.trace
        return {"embed": t["embed"], "pos_embed": t["pos_embed"], "resid_pre": t["resid_pre", 0]}

    def draw(self, result, sel, d):
        labels, cols = result.labels, _idx(result.inputs.config.d_model)
        shared = _sym(d["embed"], d["pos_embed"], d["resid_pre"]) if sel.lock_scales else None
        self.embed.set_data(d["embed"], labels, cols, levels=shared)
        self.pos.set_data(d["pos_embed"], labels, cols, levels=shared)
        self.sum.set_data(d["resid_pre"], labels, cols, levels=shared)

    def shapes(self, result, sel):
        return f"[T, d_model] = [{result.trace.T}, {result.inputs.config.d_model}]"

    def header_html(self, result, sel):
        return super().header_html(result, sel).replace(f", head {sel.head}", "").replace(
            f"layer {sel.layer}", "before the first block")


# -- 2. LayerNorm ----------------------------------------------------------------------------------
class LayerNormStation(Station):
    key = "layernorm"
    title = "LayerNorm"
    formula = "ln1_out = (resid_pre − ln1_mean) / √(ln1_var + ε) · w + b"

    def build(self):
        self.inp = self.matrix(0, 0, "resid_pre", roles=("query", None), row_axis="token", col_axis="d_model")
        self.mean = self.matrix(0, 1, "ln1_mean", roles=("query", None), colorbar=False)
        self.var = self.matrix(0, 2, "ln1_var", kind="sequential", roles=("query", None), colorbar=False)
        self.out = self.matrix(0, 3, "ln1_out", roles=("query", None), col_axis="d_model")
        for col, stretch in enumerate((4, 1, 1, 4)):
            self.canvas.ci.layout.setColumnStretchFactor(col, stretch)

    def content(self, result, sel):
        t, L = result.trace, sel.layer
        return {"resid_pre": t["resid_pre", L], "ln1_mean": t["ln1_mean", L], "ln1_var": t["ln1_var", L],
                "ln1_out": t["ln1_out", L]}

    def draw(self, result, sel, d):
        labels, cols = result.labels, _idx(result.inputs.config.d_model)
        self.inp.set_data(d["resid_pre"], labels, cols)
        self.mean.set_data(d["ln1_mean"][:, None], labels, ["mean"])
        self.var.set_data(d["ln1_var"][:, None], labels, ["var"])
        self.out.set_data(d["ln1_out"], labels, cols)

    def shapes(self, result, sel):
        return f"[T, d_model] = [{result.trace.T}, {result.inputs.config.d_model}], ε = 1e-5, biased variance"

    def header_html(self, result, sel):
        return super().header_html(result, sel).replace(f", head {sel.head}", "")   # no heads here


# -- 3. projections --------------------------------------------------------------------------------
class ProjectionStation(Station):
    key = "projections"
    title = "Q · K · V"
    formula = "q = ln1_out · W_Q[h] + b_Q[h]   (likewise k, v)"

    def build(self):
        self.x = self.matrix(0, 0, "ln1_out", roles=("query", None), row_axis="token", col_axis="d_model",
                             rowspan=2)
        self.wq = self.matrix(0, 1, "W_Q[h]", row_axis="d_model", col_axis="d_head")
        self.wk = self.matrix(0, 2, "W_K[h]", col_axis="d_head")
        self.wv = self.matrix(0, 3, "W_V[h]", col_axis="d_head")
        self.q = self.matrix(1, 1, "q[:, h]  (query i)", roles=("query", None), row_axis="token",
                             col_axis="d_head")
        self.k = self.matrix(1, 2, "k[:, h]  (key j)", roles=("key", None), col_axis="d_head")
        self.v = self.matrix(1, 3, "v[:, h]  (value j)", roles=("key", None), col_axis="d_head")
        for mp, name in ((self.q, "q"), (self.k, "k"), (self.v, "v")):
            mp.trace_name = name                       # a click explains the cell
        for col, stretch in enumerate((5, 4, 4, 4)):
            self.canvas.ci.layout.setColumnStretchFactor(col, stretch)

    def highlight(self, sel) -> None:
        super().highlight(sel)
        if sel.trace is None:
            return
        name, row, col = sel.trace
        if name in ("q", "k", "v"):
            # the pairs: ln1_out's row times the weight matrix's column
            self.x.highlight(row=row)
            weights = {"q": self.wq, "k": self.wk, "v": self.wv}
            for key, mp in weights.items():
                mp.highlight(col=col if key == name else None)
            out = {"q": self.q, "k": self.k, "v": self.v}[name]
            out.highlight(row=row, cell=(row, col))
        elif name == "attn_scores":
            self.q.highlight(row=row)                  # q_i · k_j, pair by pair
            self.k.highlight(row=col)

    def content(self, result, sel):
        t, w, L, h = result.trace, result.weights, sel.layer, sel.head
        p = f"blocks.{L}.attn."
        return {"ln1_out": t["ln1_out", L], "W_Q": w[p + "W_Q"][h], "W_K": w[p + "W_K"][h], "W_V": w[p + "W_V"][h],
                "q": t["q", L][:, h], "k": t["k", L][:, h], "v": t["v", L][:, h]}

    def draw(self, result, sel, d):
        cfg, labels = result.inputs.config, result.labels
        dm, dh = _idx(cfg.d_model), _idx(cfg.d_head)
        self.x.set_data(d["ln1_out"], labels, dm)
        levels = _sym(d["W_Q"], d["W_K"], d["W_V"])
        for mp, name in ((self.wq, "W_Q"), (self.wk, "W_K"), (self.wv, "W_V")):
            mp.set_data(d[name], dm, dh, levels=levels)
        levels = _sym(d["q"], d["k"], d["v"])
        for mp, name in ((self.q, "q"), (self.k, "k"), (self.v, "v")):
            mp.set_data(d[name], labels, dh, levels=levels)

    def shapes(self, result, sel):
        cfg = result.inputs.config
        return (f"W_Q[h]: [d_model, d_head] = [{cfg.d_model}, {cfg.d_head}] · q[:, h]: [T, d_head] = "
                f"[{result.trace.T}, {cfg.d_head}]")


# -- 4. scores ---------------------------------------------------------------------------------------
class ScoresStation(Station):
    key = "scores"
    title = "Scores"
    formula = "attn_scores_raw = q·kᵀ → ÷ √d_head → causal mask (−∞) → softmax = pattern"

    def build(self):
        roles = ("query", "key")
        self.raw = self.matrix(0, 0, "attn_scores_raw = q·kᵀ", roles=roles, row_axis="query i", col_axis="key j")
        self.scaled = self.matrix(0, 1, "attn_scores_scaled", roles=roles, col_axis="key j")
        self.masked = self.matrix(1, 0, "attn_scores (masked)", roles=roles, row_axis="query i", col_axis="key j")
        self.pattern = self.matrix(1, 1, "pattern = softmax(attn_scores)", kind="sequential", roles=roles,
                                   col_axis="key j")
        for mp in (self.raw, self.scaled, self.masked, self.pattern):
            mp.trace_name = "attn_scores"

    def content(self, result, sel):
        t, L, h = result.trace, sel.layer, sel.head
        return {"attn_scores_raw": t["attn_scores_raw", L][h], "attn_scores_scaled": t["attn_scores_scaled", L][h],
                "attn_scores": t["attn_scores", L][h], "pattern": t["pattern", L][h]}

    def draw(self, result, sel, d):
        labels = result.labels
        cfg = result.inputs.config
        forbidden = np.isneginf(d["attn_scores"])                      # where the mask said −∞
        shared = _sym(d["attn_scores_raw"], d["attn_scores_scaled"]) if sel.lock_scales else None
        self.scaled.set_title(f"attn_scores_scaled = raw ÷ √{cfg.d_head}" if cfg.scale_scores
                              else "attn_scores_scaled (scaling off)")
        self.masked.set_title("attn_scores (masked: −∞)" if cfg.causal else "attn_scores (no mask)")
        self.raw.set_data(d["attn_scores_raw"], labels, labels, levels=shared)
        self.scaled.set_data(d["attn_scores_scaled"], labels, labels, levels=shared)
        self.masked.set_data(d["attn_scores"], labels, labels, masked=forbidden, levels=shared)
        # Long rows spread their weight thin (≈ 1/T): past 32 tokens the scale runs to the largest weight.
        top = float(d["pattern"].max()) if d["pattern"].size else 1.0
        p_levels = (0.0, 1.0) if len(labels) <= 32 or top <= 0 else (0.0, top)
        self.pattern.set_data(d["pattern"], labels, labels, masked=forbidden, levels=p_levels, masked_text="0")

    def shapes(self, result, sel):
        T = result.trace.T
        return f"[T, T] = [{T}, {T}] = {T * T:,} scores per head"


# -- 5. softmax row --------------------------------------------------------------------------------
class SoftmaxRowStation(Station):
    key = "softmax"
    title = "Softmax row"
    formula = "pattern[h, i, j] = exp(s_ij − max_j s_ij) / Σ_j exp(s_ij − max_j s_ij)"

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
        t, L, h, i = result.trace, sel.layer, sel.head, sel.query
        if t.T == 0:
            return {"attn_scores": np.zeros(0), "pattern": np.zeros(0)}
        return {"attn_scores": t["attn_scores", L][h, i], "pattern": t["pattern", L][h, i]}

    def draw(self, result, sel, d):
        labels = result.labels
        T = len(d["pattern"])
        x = np.arange(T)
        scores, probs = d["attn_scores"], d["pattern"]
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
        word = labels[sel.query] if T else ""
        set_title(self.scores_plot, f"attn_scores[h, i, :] for query i = {sel.query} (“{word}”) — grey: "
                  "masked, −∞", self.palette.foreground, self.title_size)
        set_title(self.probs_plot, "pattern[h, i, :] — the weights on each key", self.palette.foreground,
                  self.title_size)
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

    def shapes(self, result, sel):
        return f"one row of [T, T], T = {result.trace.T}"


# -- 6. weighted sum ---------------------------------------------------------------------------------
class WeightedSumStation(Station):
    key = "weighted_sum"
    title = "Weighted V"
    formula = "z[i, h] = Σ_j pattern[h, i, j] · v[j, h]"

    def build(self):
        self.p = self.matrix(0, 0, "pattern[h, i, j]", kind="sequential", roles=("key", None),
                             row_axis="key j", colorbar=False)
        self.v = self.matrix(0, 1, "v[j, h]", roles=("key", None), col_axis="d_head")
        self.terms = self.matrix(0, 2, "pattern[h, i, j] · v[j, h]", roles=("key", None), col_axis="d_head")
        self.z = self.matrix(1, 2, "z[i, h] = Σ_j (column sums)", col_axis="d_head")
        lay = self.canvas.ci.layout
        lay.setColumnStretchFactor(0, 1)
        lay.setColumnStretchFactor(1, 4)
        lay.setColumnStretchFactor(2, 4)
        lay.setRowStretchFactor(0, 6)
        lay.setRowStretchFactor(1, 1)

    def content(self, result, sel):
        t, L, h, i = result.trace, sel.layer, sel.head, sel.query
        if t.T == 0:
            z0 = np.zeros((0, result.inputs.config.d_head))
            return {"pattern": np.zeros(0), "v": z0, "terms": z0, "z": np.zeros(result.inputs.config.d_head)}
        terms, z = explain.weighted_terms(t, L, h, i)
        return {"pattern": t["pattern", L][h, i], "v": t["v", L][:, h], "terms": terms, "z": z}

    def draw(self, result, sel, d):
        labels = result.labels
        dh = _idx(result.inputs.config.d_head)
        self.p.set_data(d["pattern"][:, None], labels, ["p"], levels=(0.0, 1.0))
        self.v.set_data(d["v"], labels, dh)
        levels = _sym(d["terms"], d["z"])
        self.terms.set_data(d["terms"], labels, dh, levels=levels)
        word = labels[sel.query] if labels else ""
        self.z.set_data(d["z"][None, :], [f"i={sel.query} {word}"], dh, levels=levels)

    def shapes(self, result, sel):
        return f"v[:, h]: [T, d_head] = [{result.trace.T}, {result.inputs.config.d_head}] · query i = {sel.query}"


# -- 7. heads and W_O --------------------------------------------------------------------------------
class HeadsStation(Station):
    key = "heads"
    title = "Heads → W_O"
    formula = ("z_concat = [z_0 | z_1 | …];&nbsp; attn_out = Σ_h z_h · W_O[h] + b_O;&nbsp; "
               "resid_mid = resid_pre + attn_out")

    def build(self):
        self.zc = self.matrix(0, 0, "z_concat (heads side by side)", roles=("query", None), row_axis="token",
                              col_axis="head · d_head")
        self.wo = self.matrix(0, 1, "W_O (stacked per head)", row_axis="head · d_head", col_axis="d_model")
        self.res = self.matrix(1, 0, "result[:, h] = z_h · W_O[h]", roles=("query", None), row_axis="token",
                               col_axis="d_model")
        self.out = self.matrix(1, 1, "attn_out = Σ_h result + b_O", roles=("query", None), col_axis="d_model")
        self.mid = self.matrix(1, 2, "resid_mid", roles=("query", None), col_axis="d_model")
        self.lines: list = []
        self._lines_key: tuple | None = None
        self._wo_drawn: tuple | None = None       # (id of the W_O array drawn, numbers shown?)
        self._wo_source = None

    def content(self, result, sel):
        t, w, L, h = result.trace, result.weights, sel.layer, sel.head
        W_O = w[f"blocks.{L}.attn.W_O"]
        return {"z_concat": t["z_concat", L], "W_O": W_O.reshape(-1, W_O.shape[-1]),
                "result": t["result", L][:, h], "attn_out": t["attn_out", L], "resid_mid": t["resid_mid", L]}

    def draw(self, result, sel, d):
        cfg, labels = result.inputs.config, result.labels
        # Columns of the concatenation: named "h0", "h1", … at each head's first column (tooltips
        # still say head and column).
        hd = [f"{c // cfg.d_head}·{c % cfg.d_head}" for c in range(cfg.d_concat)]
        hd_ticks = [f"h{c // cfg.d_head}" if c % cfg.d_head == 0 else "" for c in range(cfg.d_concat)]
        dm = _idx(cfg.d_model)
        self.zc.set_data(d["z_concat"], labels, hd, col_ticks=hd_ticks)
        W_O = result.weights[f"blocks.{sel.layer}.attn.W_O"]                # the array Weights keeps
        if self._wo_drawn != (id(W_O), self.wo.show_values) or self.wo.values is None:
            self.wo.set_data(d["W_O"], hd, dm, row_ticks=hd_ticks)  # weights: only when they change
            self._wo_drawn = (id(W_O), self.wo.show_values)
            self._wo_source = W_O                                   # kept alive: its id stays unique
        levels = _sym(d["result"], d["attn_out"])
        self.res.set_title(f"result[:, {sel.head}] = z_{sel.head} · W_O[{sel.head}]")
        self.res.set_data(d["result"], labels, dm, levels=levels)
        self.out.set_data(d["attn_out"], labels, dm, levels=levels)
        self.mid.set_data(d["resid_mid"], labels, dm)
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

    def shapes(self, result, sel):
        cfg = result.inputs.config
        return (f"z_concat: [T, n_heads·d_head] = [{result.trace.T}, {cfg.d_concat}] · W_O: "
                f"[n_heads·d_head, d_model] = [{cfg.d_concat}, {cfg.d_model}]")


# -- 8. MLP and residual -----------------------------------------------------------------------------
class MLPStation(Station):
    key = "mlp"
    title = "MLP & residual"
    formula = "mlp_out = GELU(ln2_out · W_in + b_in) · W_out + b_out;&nbsp; resid_post = resid_mid + mlp_out"

    def build(self):
        self.ln2 = self.matrix(0, 0, "ln2_out", roles=("query", None), row_axis="token", col_axis="d_model")
        self.pre = self.matrix(0, 1, "mlp_pre = ln2_out · W_in + b_in", roles=("query", None), col_axis="d_mlp")
        self.post = self.matrix(0, 2, "mlp_post = GELU(mlp_pre)", roles=("query", None), col_axis="d_mlp")
        self.out = self.matrix(1, 0, "mlp_out", roles=("query", None), row_axis="token", col_axis="d_model")
        self.resid = self.matrix(1, 1, "resid_post", roles=("query", None), col_axis="d_model")
        self.logit_plot = self.canvas.addPlot(row=1, col=2, axisItems={"left": LabelAxis("left")})
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
        t, L = result.trace, sel.layer
        data = {"ln2_out": t["ln2_out", L], "mlp_pre": t["mlp_pre", L], "mlp_post": t["mlp_post", L],
                "mlp_out": t["mlp_out", L], "resid_post": t["resid_post", L]}
        if t.T:
            top = top_predictions(t, sel.query, k=8)
            data.update(top_ids=np.array([p.token for p in top]), top_logits=np.array([p.logit for p in top]),
                        top_probs=np.array([p.prob for p in top]))
        return data

    def draw(self, result, sel, d):
        cfg, labels = result.inputs.config, result.labels
        dm, dmlp = _idx(cfg.d_model), _idx(cfg.d_mlp)
        self.ln2.set_data(d["ln2_out"], labels, dm)
        levels = _sym(d["mlp_pre"], d["mlp_post"])
        self.pre.set_data(d["mlp_pre"], labels, dmlp, levels=levels)
        self.post.set_data(d["mlp_post"], labels, dmlp, levels=levels)
        self.out.set_data(d["mlp_out"], labels, dm)
        self.resid.set_data(d["resid_post"], labels, dm)
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

    def shapes(self, result, sel):
        cfg = result.inputs.config
        return f"mlp_pre: [T, d_mlp] = [{result.trace.T}, {cfg.d_mlp}] · logits via W_Eᵀ (tied)"


STATION_CLASSES = [EmbeddingsStation, LayerNormStation, ProjectionStation, ScoresStation, SoftmaxRowStation,
                   WeightedSumStation, HeadsStation, MLPStation]
