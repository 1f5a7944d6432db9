"""The four oldest instrument pages on screen: the head lens, the mask, the √d_k lab and the KV
cache. Like the stations they draw what app/ hands them (Trace values, or numbers app/ got from
compute.instruments: explain, sqrt_dk and kvcache) and emit intents; they compute nothing
themselves. Their figures (widgets/pages/classic_views.py) are drawn from the same numbers."""
from __future__ import annotations

import html

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QSlider, QSpinBox, QStackedWidget, QVBoxLayout, QWidget

from compute.instruments import explain, sqrt_dk

from ..axes import localise_plot
from ..i18n import QT_TR_NOOP, Retranslate, num, page_title, tr
from ..matrix import LabelAxis, MatrixPlot, set_title
from ..matrix import idx_labels as _idx
from ..matrix import symmetric_levels as _sym
from ..stations import Same, Station
from ..theme import BARS, LIGHT, REMEDY, WARN
from ..views import kv_head
from . import PageKind
from .classic_views import head_lens_views, kv_cache_views, mask_views, sqrt_dk_views

KEY_ROWS = ("key", None)      # rows are key positions (the cached k and v)

# -- 2. head lens (page) --------------------------------------------------------------------------------
class HeadLens(Station):
    """Two heads side by side, with shared colour scales, and their difference."""

    key = "head_lens"
    headsChosen = Signal(int, int, int, int)        # layer A, head A, layer B, head B

    @property
    def formula(self) -> str:
        return tr("compare two heads: their k, v, pattern and share of attn_out, and A − B")

    def __init__(self, palette=LIGHT, parent=None):
        super().__init__(palette, parent)
        bar = QHBoxLayout()
        self.spins = []
        self.spin_labels = []
        for _ in range(4):
            label = QLabel()
            bar.addWidget(label)
            self.spin_labels.append(label)
            spin = QSpinBox()
            spin.setKeyboardTracking(False)
            spin.valueChanged.connect(self._emit)
            bar.addWidget(spin)
            self.spins.append(spin)
        bar.addStretch(1)
        self.layout().insertLayout(1, bar)
        self._updating = False
        self._set_spin_labels()

    def _set_spin_labels(self) -> None:
        for label, text in zip(self.spin_labels, (tr("A: layer"), tr("head"), "  " + tr("B: layer"), tr("head")),
                               strict=True):
            label.setText(text)

    def retranslate(self) -> None:
        self._set_spin_labels()
        super().retranslate()

    def build(self):
        self.rows = {}
        for r, name in enumerate(("k", "v", "pattern", "result")):
            kind = "sequential" if name == "pattern" else "diverging"
            roles = ("query", "key") if name == "pattern" else ("key" if name in "kv" else "query", None)
            a = self.matrix(r, 0, f"{name} · A", kind=kind, roles=roles)
            b = self.matrix(r, 1, f"{name} · B", kind=kind, roles=roles)
            d = self.matrix(r, 2, f"{name} · A − B", roles=roles)
            self.rows[name] = (a, b, d)
        self.canvas.ci.layout.setRowStretchFactor(2, 4)     # the T×T patterns get the most room

    def _emit(self) -> None:
        if not self._updating:
            self.headsChosen.emit(*(s.value() for s in self.spins))

    def _data_key(self, result, sel):
        return (Same(result), sel.lens, sel.layer if sel.lens is None else None,
                sel.head if sel.lens is None else None, sel.query, sel.show_values)

    def content(self, result, sel):
        t = result.trace
        (la, ha), (lb, hb) = explain.lens_heads(t, sel.lens, sel.layer, sel.head, sel.query)
        data = {"lens": np.array(((la, ha), (lb, hb)))}               # what the spin boxes show
        for tag, (layer, head) in (("A", (la, ha)), ("B", (lb, hb))):
            g = kv_head(result.inputs.config, head)                   # k, v: the K/V head this head reads
            for name in ("k", "v", "pattern", "result"):              # one head each (Trace.read)
                data[f"{name}_{tag}"] = t.read(name, layer, head=g if name in "kv" else head)
        return data

    def draw(self, result, sel, d):
        cfg, labels = result.inputs.config, result.labels
        self._updating = True
        (la, ha), (lb, hb) = (tuple(int(v) for v in row) for row in d["lens"])
        for spin, hi, value in zip(self.spins, (cfg.n_layers - 1, cfg.n_heads - 1) * 2, (la, ha, lb, hb), strict=True):
            spin.setMaximum(hi)
            spin.setValue(value)
        self._updating = False
        cols = {"k": _idx(cfg.d_head), "v": _idx(cfg.d_head), "pattern": labels, "result": _idx(cfg.d_model)}
        for name, (a, b, diff) in self.rows.items():
            A, B = d[f"{name}_A"], d[f"{name}_B"]
            masked = result.trace.forbidden(la) if name == "pattern" else None
            levels = (0.0, 1.0) if name == "pattern" else _sym(A, B)      # one scale for A and B
            kv = name in ("k", "v") and cfg.n_kv_heads < cfg.n_heads
            for mp, layer, head in ((a, la, ha), (b, lb, hb)):
                mp.set_title(tr("{name} · layer {layer} head {head}").format(name=name, layer=layer, head=head)
                             + (tr(" (K/V head {g})").format(g=kv_head(cfg, head)) if kv else ""))
            if name == "pattern":              # each head's own mask; their difference has both
                masked_b = result.trace.forbidden(lb)
                masked_d = masked | masked_b
            else:
                masked_b = masked_d = None
            a.set_data(A, labels, cols[name], masked=masked, levels=levels)
            b.set_data(B, labels, cols[name], masked=masked_b, levels=levels)
            diff.set_data(np.asarray(A, np.float64) - np.asarray(B, np.float64), labels, cols[name],
                          masked=masked_d)

    def shapes(self, result, sel):
        return tr("rows: k, v [T, d_head] · pattern [T, T] · result [T, d_model]; one colour scale per row for A "
                  "and B")

    def where(self, sel) -> str:
        return ""                                   # each panel says its layer and head



# -- 4. the mask (page) --------------------------------------------------------------------------------
class MaskView(Station):
    """The pattern with and without the causal mask, and where the 'answer' would be."""

    key = "mask"

    @property
    def formula(self) -> str:
        return tr("without the mask, query i can see key i+1 — the very token it has to predict")

    def build(self):
        roles = ("query", "key")
        self.with_mask = self.matrix(0, 0, "", kind="sequential", roles=roles)
        self.without = self.matrix(0, 1, "", kind="sequential", roles=roles)
        self.answer_boxes: list = []
        self.stats = QLabel()
        self.stats.setWordWrap(True)
        self.stats.setTextFormat(Qt.TextFormat.RichText)
        self.layout().addWidget(self.stats)

    def _data_key(self, result, sel):
        return (Same(result), Same(self.unmasked), sel.layer, sel.head, sel.show_values)

    unmasked = None

    def set_unmasked(self, result) -> None:
        """The same inputs computed with causal=False (app/ computes it on demand)."""
        self.unmasked = result
        self._refresh()

    set_extra = set_unmasked                          # what app/pages/mask.py computed

    def show_result(self, result, sel) -> None:
        if self.unmasked is not None and self.unmasked.request_id != result.request_id:
            self.unmasked = None                      # it belonged to other inputs
        super().show_result(result, sel)

    def content(self, result, sel):
        t, L, h = result.trace, sel.layer, sel.head
        data = {"pattern": t.read("pattern", L, head=h), "forbidden": t.forbidden(L)}
        if self.unmasked is not None and self.unmasked.request_id == result.request_id:
            data["pattern_unmasked"] = self.unmasked.trace.read("pattern", L, head=h)
            data.update(explain.mask_shares(data["pattern_unmasked"]))
        return data

    def draw(self, result, sel, d):
        labels = result.labels
        T = len(labels)
        self.with_mask.set_axis_titles(tr("query i"), tr("key j"))
        self.without.set_axis_titles("", tr("key j"))
        self.without.set_title(tr("pattern without it"))
        self.with_mask.set_title(tr("pattern with the causal mask") if result.inputs.config.causal
                                 else tr("pattern (the mask is off now)"))
        self.with_mask.set_data(d["pattern"], labels, labels, masked=d["forbidden"], levels=(0, 1))
        for plot, box in self.answer_boxes:
            plot.removeItem(box)
        self.answer_boxes = []
        if "pattern_unmasked" not in d:
            self.without.set_data(np.zeros((T, T)), labels, labels, levels=(0, 1))
            self.stats.setText(tr("computing the unmasked pattern…"))
            return
        P = d["pattern_unmasked"]
        self.without.set_data(P, labels, labels, levels=(0, 1))
        if T <= 64:
            pen = pg.mkPen(WARN, width=2)
            for i in range(T - 1):          # the 'answer' cell: the next token
                box = pg.QtWidgets.QGraphicsRectItem(i + 1 - 0.42, i - 0.42, 0.84, 0.84)   # one box per cell
                pen.setCosmetic(True)
                box.setPen(pen)
                box.setZValue(12)
                self.without.plot.addItem(box)
                self.answer_boxes.append((self.without.plot, box))
        answer, future = d["answer_share"], d["future_share"]
        self.answer_share, self.future_share = answer, future
        self.stats.setText(tr(
            "<span style='color:{warn}'>Red boxes</span>: key j = i+1, the token query i must predict. Without the "
            "mask, query rows put <b>{answer}</b> of their weight on it on average, and <b>{future}</b> on all "
            "future keys; with the mask: 0%. Trained without the mask, a model would learn to read the answer there "
            "— and fail at generation, where the next token does not exist yet.").format(
            warn=WARN, answer=num(answer, ".1%"), future=num(future, ".1%")))

    def shapes(self, result, sel):
        return f"[T, T] = [{result.trace.T}, {result.trace.T}]"


# -- 3. the sqrt(d_k) lab (page) ----------------------------------------------------------------------
class SqrtDkLab(Retranslate, QWidget):
    """Spread of q·k for random unit-variance vectors against sqrt(d_k); softmax rows and gradients
    with and without the scaling. The numbers come in through `show_numbers`."""

    dkChosen = Signal(int)
    key = "sqrt_dk"

    def __init__(self, stops, palette=LIGHT, parent=None):
        super().__init__(parent)
        self.stops = list(stops)
        self.palette = palette
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 2, 4, 2)
        self.header = QLabel()
        self.header.setTextFormat(Qt.TextFormat.RichText)
        self.header.setWordWrap(True)
        layout.addWidget(self.header)
        row = QHBoxLayout()
        row.addWidget(QLabel("d_k"))
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setRange(0, len(self.stops) - 1)
        self.slider.setTickPosition(QSlider.TickPosition.TicksBelow)
        self.slider.setTickInterval(1)
        self.slider.setPageStep(1)
        self.slider.valueChanged.connect(lambda i: self.dkChosen.emit(self.stops[i]))
        row.addWidget(self.slider, 1)
        self.dk_label = QLabel()
        self.dk_label.setMinimumWidth(80)
        row.addWidget(self.dk_label)
        layout.addLayout(row)
        body = QHBoxLayout()
        self.canvas = pg.GraphicsLayoutWidget()
        self.canvas.setBackground(palette.background)
        body.addWidget(self.canvas, 1)
        self.grads = QLabel()
        self.grads.setTextFormat(Qt.TextFormat.RichText)
        self.grads.setWordWrap(True)
        self.grads.setAlignment(Qt.AlignmentFlag.AlignTop)
        self.grads.setFixedWidth(230)
        body.addWidget(self.grads)
        layout.addLayout(body, 1)
        self.hist_raw = self._plot(0, 0, "q·k")
        self.hist_scaled = self._plot(0, 1, "q·k / √d_k")
        self.row_raw = self._plot(1, 0, "", labels=True)
        self.row_scaled = self._plot(1, 1, "", labels=True)
        # One x scale for both histograms: dividing by √d_k visibly narrows the spread.
        self.hist_scaled.setXLink(self.hist_raw)
        self.hist_scaled.setYLink(self.hist_raw)
        self.curve = self._plot(2, 0, "")
        self.curve.setLogMode(x=True, y=True)
        # Powers of two only: pyqtgraph's automatic log ticks pile up at projector font sizes.
        self.curve.getAxis("left").setTicks([[(np.log10(v), f"{v:g}") for v in (1, 2, 4, 8, 16, 32, 64)]])
        self.canvas.removeItem(self.curve)
        self.canvas.addItem(self.curve, row=2, col=0, colspan=2)
        self.numbers = None
        self._computing: int | None = None
        self.retranslate()

    def retranslate(self) -> None:
        """Titles and the numbers' sentences in the window's language."""
        ink = self.palette.foreground
        set_title(self.row_raw, tr("softmax, unscaled"), ink)
        set_title(self.row_scaled, tr("softmax, scaled"), ink)
        set_title(self.curve, tr("std of q·k against d_k"), ink)
        self.curve.getAxis("bottom").setTicks([[(np.log10(d), num(d, ",")) for d in (4, 16, 64, 256, 1024, 4096)]])
        if self.numbers is not None:
            self.show_numbers(self.numbers)
        elif self._computing is not None:
            self.set_computing(self._computing)
        else:
            self.header.setText(self._heading())

    def _heading(self, rest: str = "") -> str:
        return f"<b style='font-size:13pt'>{page_title(self.key)}</b>" + (f"&nbsp;&nbsp;{rest}" if rest else "")

    def _plot(self, r, c, title, labels=False):
        plot = localise_plot(self.canvas.addPlot(row=r, col=c, enableMenu=False,
                                                 axisItems={"bottom": LabelAxis("bottom")} if labels else None))
        plot.setMenuEnabled(False)
        plot.setMouseEnabled(x=False, y=False)
        plot.hideButtons()
        set_title(plot, title, self.palette.foreground)
        for side in ("left", "bottom"):
            plot.getAxis(side).setTextPen(self.palette.foreground)
            plot.getAxis(side).setPen(self.palette.muted)
        return plot

    def apply_style(self, palette=None, sequential=None, diverging=None, font_pt=None, line_scale=1.0) -> None:
        """Theme and presentation: colours, axis text and sizes follow; the numbers stay."""
        if palette is not None:
            self.palette = palette
            self.canvas.setBackground(palette.background)
        font = None
        if font_pt is not None:
            font = QFont()
            font.setPointSizeF(font_pt)
            self.grads.setStyleSheet(f"font-size: {font_pt:.0f}pt;")
        for plot in (self.hist_raw, self.hist_scaled, self.row_raw, self.row_scaled, self.curve):
            for side in ("left", "bottom"):
                axis = plot.getAxis(side)
                axis.setTextPen(self.palette.foreground)
                axis.setPen(self.palette.muted)
                if font is not None:
                    axis.setStyle(tickFont=font)
        if self.numbers is not None:
            self.show_numbers(self.numbers)

    def set_computing(self, d_k: int) -> None:
        self._computing = d_k
        self.dk_label.setText(f"d_k = {num(d_k, ',')}")
        self.header.setText(self._heading(tr("measuring d_k = {d_k} …").format(d_k=num(d_k, ","))))

    def set_dk(self, d_k: int) -> None:
        index = self.stops.index(d_k) if d_k in self.stops else 0
        if self.slider.value() != index:
            self.slider.blockSignals(True)
            self.slider.setValue(index)
            self.slider.blockSignals(False)

    def show_numbers(self, n) -> None:
        """n: a namespace with spread (compute.instruments.sqrt_dk.Spread), row (RowStats), grads (Gradients),
        curve [(d_k, std_raw, std_scaled)]; the closing line is sqrt_note(d_k)."""
        self.numbers = n
        d_k = n.spread.d_k
        self.set_dk(d_k)
        self.dk_label.setText(f"d_k = {num(d_k, ',')}")
        self.header.setText(self._heading(tr(
            "q, k with unit-variance entries: q·k sums %n product(s), so its spread is about √{d_k} = "
            "<b>{sqrt}</b>; measured <b>{std}</b> over {samples} samples. Divided by √d_k: <b>{scaled}</b>.", "",
            d_k).format(d_k=num(d_k, ","), sqrt=num(n.spread.sqrt_d_k, ".1f"), std=num(n.spread.std_raw, ".2f"),
                        samples=num(len(n.spread.raw), ","), scaled=num(n.spread.std_scaled, ".3f"))))
        ink = self.palette.foreground
        for plot, (counts, edges), spread, colour in (
                (self.hist_raw, n.hist_raw, n.spread.sqrt_d_k, WARN),
                (self.hist_scaled, n.hist_scaled, 1.0, REMEDY)):
            plot.clear()
            plot.addItem(pg.PlotDataItem(edges, counts, stepMode="center", fillLevel=0,
                                         brush=pg.mkBrush(colour + "80"), pen=pg.mkPen(colour)))
            for x in (-spread, spread):
                plot.addItem(pg.InfiniteLine(pos=x, angle=90, pen=pg.mkPen(ink, style=Qt.PenStyle.DashLine)))
        edges = n.hist_raw[1]
        self.hist_raw.setXRange(float(edges[0]), float(edges[-1]), padding=0.02)
        top = max(float(n.hist_raw[0].max()), float(n.hist_scaled[0].max()))
        self.hist_raw.setYRange(0, top * 1.05, padding=0)
        set_title(self.hist_raw, tr("q·k (dashed: ±√d_k = ±{sqrt})").format(sqrt=num(n.spread.sqrt_d_k, ".1f")), ink)
        set_title(self.hist_scaled, tr("q·k / √d_k, on the same scale (dashed: ±1)"), ink)
        self.curve.clear()
        dks = np.array([c[0] for c in n.curve], float)
        self.curve.addItem(pg.PlotDataItem(dks, np.sqrt(dks), pen=pg.mkPen(ink, width=2), name="√d_k"))
        # PlotDataItems (not bare scatter items) so the log axes transform them too
        self.curve.addItem(pg.PlotDataItem(dks, [c[1] for c in n.curve], pen=None, symbol="o",
                                           symbolBrush=WARN, symbolSize=9))
        self.curve.addItem(pg.PlotDataItem(dks, [c[2] for c in n.curve], pen=None, symbol="o",
                                           symbolBrush=REMEDY, symbolSize=9))
        self.curve.addItem(pg.PlotDataItem([d_k], [n.spread.std_raw], pen=None, symbol="o", symbolSize=17,
                                           symbolPen=pg.mkPen(self.palette.query, width=3), symbolBrush=None))
        self.curve.setLabel("left", "std", color=ink)
        self.curve.setLabel("bottom", "d_k", color=ink)
        set_title(self.curve, tr("std of q·k (red), of q·k/√d_k (blue); line √d_k"), ink)
        keys = [str(j) for j in range(n.row.T)]
        for plot, row, mx, _entropy in ((self.row_raw, n.row.row_raw, n.row.max_raw, n.row.entropy_raw),
                                   (self.row_scaled, n.row.row_scaled, n.row.max_scaled, n.row.entropy_scaled)):
            plot.clear()
            plot.addItem(pg.BarGraphItem(x=np.arange(n.row.T), height=row, width=0.7, brush=BARS))
            plot.getAxis("bottom").set_labels(keys)
            plot.setYRange(0, 1.05, padding=0)
            which = tr("softmax, unscaled: max {max}") if plot is self.row_raw else tr("softmax, scaled: max {max}")
            set_title(plot, which.format(max=num(mx, ".2f")), ink)
        g = n.grads
        self.grads.setText(tr(
            "<b>One softmax row of {T} keys</b><br>entropy unscaled <b>{raw}</b>, scaled <b>{scaled}</b> nats "
            "(uniform: {uniform})<br><br><b>Gradients through the softmax</b><br>(torch autograd, {rows} rows of "
            "{T} keys)<br><br>median ‖∂L/∂scores‖ per row<br>&nbsp;&nbsp;unscaled: <b>{g_raw}</b><br>&nbsp;&nbsp;"
            "scaled: <b>{g_scaled}</b><br><br>rows passing back almost nothing (&lt; 1e-3)<br>&nbsp;&nbsp;unscaled: "
            "<b>{s_raw}</b>&nbsp;&nbsp;scaled: <b>{s_scaled}</b>").format(
            T=n.row.T, raw=num(n.row.entropy_raw, ".2f"), scaled=num(n.row.entropy_scaled, ".2f"),
            uniform=num(float(np.log(n.row.T)), ".2f"), rows=n.grad_rows, g_raw=num(g.grad_scores_raw, ".2e"),
            g_scaled=num(g.grad_scores_scaled, ".2e"), s_raw=num(g.stalled_raw, ".0%"),
            s_scaled=num(g.stalled_scaled, ".0%")) + f"<br><br>{sqrt_note(d_k)}")


def sqrt_note(d_k: int) -> str:
    """The √d_k lab's closing line, for the d_k on show."""
    if d_k == 4096:
        return tr("At d_model = 4096 with one head (d_k = 4096) the unscaled spread is about 64: exp(64) ≈ 6·10²⁷, "
                  "so one key takes all the weight.")
    return tr("Slide to 4096 for the d_model = 4096 case.")


# -- 5. KV cache (page) ------------------------------------------------------------------------------------
class KVCacheView(Retranslate, QWidget):
    """Generation step by step: cached K and V rows grow, one new query row per decode step. The
    page opens empty, asking for the prefill: nothing is computed until the lecturer asks."""

    key = "kv_cache"
    prefillRequested = Signal()
    stepRequested = Signal()
    resetRequested = Signal()

    def __init__(self, palette=LIGHT, parent=None):
        super().__init__(parent)
        self.palette = palette
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 2, 4, 2)
        self.header = QLabel()
        self.header.setTextFormat(Qt.TextFormat.RichText)
        self.header.setWordWrap(True)
        layout.addWidget(self.header)
        row = QHBoxLayout()
        self.prefill = QPushButton()
        self.step = QPushButton()
        self.reset = QPushButton()
        self.prefill.clicked.connect(self.prefillRequested)
        self.step.clicked.connect(self.stepRequested)
        self.reset.clicked.connect(self.resetRequested)
        for b in (self.prefill, self.step, self.reset):
            row.addWidget(b)
        row.addStretch(1)
        layout.addLayout(row)
        self.counter = QLabel()
        self.counter.setTextFormat(Qt.TextFormat.RichText)
        self.counter.setWordWrap(True)
        layout.addWidget(self.counter)
        # The empty state: one sentence and one button, where the caches will appear.
        self.body = QStackedWidget()
        empty = QWidget()
        column = QVBoxLayout(empty)
        column.addStretch(1)
        self.empty_text = QLabel()
        self.empty_text.setObjectName("emptyState")
        self.empty_text.setWordWrap(True)
        self.empty_text.setAlignment(Qt.AlignmentFlag.AlignCenter)
        column.addWidget(self.empty_text)
        self.empty_button = QPushButton()
        self.empty_button.setObjectName("emptyAction")
        self.empty_button.clicked.connect(self.prefillRequested)
        column.addWidget(self.empty_button, 0, Qt.AlignmentFlag.AlignHCenter)
        column.addStretch(2)
        self.body.addWidget(empty)
        self.canvas = pg.GraphicsLayoutWidget()
        self.canvas.setBackground(palette.background)
        self.body.addWidget(self.canvas)
        layout.addWidget(self.body, 1)
        self.k = MatrixPlot(self.canvas.ci, 0, 0, "", palette=palette, roles=KEY_ROWS)
        self.v = MatrixPlot(self.canvas.ci, 0, 1, "", palette=palette, roles=KEY_ROWS)
        self.p = MatrixPlot(self.canvas.ci, 0, 2, "", kind="sequential", palette=palette, roles=KEY_ROWS)
        self.q = MatrixPlot(self.canvas.ci, 1, 0, "", palette=palette)
        self._step_plots = {self.p: (0, 2, 1, 1), self.q: (1, 0, 1, 2)}   # shown once a step exists
        lay = self.canvas.ci.layout
        for c, stretch in enumerate((4, 4, 1)):
            lay.setColumnStretchFactor(c, stretch)
        lay.setRowStretchFactor(0, 8)
        lay.setRowStretchFactor(1, 1)
        self.state = None
        self._shown = None                          # the arguments of the last show_generation
        self._show_step_plots(False)
        self._apply_font(10.0)
        self.retranslate()

    def retranslate(self) -> None:
        self.prefill.setText(tr("Prefill the prompt"))
        self.step.setText(tr("Decode one token ▶"))
        self.reset.setText(tr("Reset"))
        self.empty_text.setText(tr("Prefill the prompt: it runs once and keeps every layer's k and v. Then decode "
                                   "one token at a time."))
        self.empty_button.setText(tr("Prefill the prompt"))
        self.p.set_title(tr("its pattern"))
        self.k.set_title(tr("K cache (rows: positions)"))
        self.v.set_title(tr("V cache"))
        self.q.set_title(tr("the new query row q (after a decode step)"))
        if self._shown is not None:
            self.show_generation(*self._shown)
        else:
            self.header.setText(self._empty_header())

    @staticmethod
    def _empty_header() -> str:
        return (f"<b style='font-size:13pt'>{page_title('kv_cache')}</b>&nbsp;&nbsp;"
                + tr("Prefill runs the prompt once and keeps every layer's k and v; each decode step then computes "
                     "one new row."))

    def _show_step_plots(self, on: bool) -> None:
        """The new query row and its pattern exist only after a decode step: no empty frames before."""
        for mp, (r, c, rs, cs) in self._step_plots.items():
            if mp.plot.isVisible() == on and (mp.plot in self.canvas.ci.items) == on:
                continue
            if on:
                self.canvas.ci.addItem(mp.plot, row=r, col=c, rowspan=rs, colspan=cs)
            elif mp.plot in self.canvas.ci.items:
                self.canvas.ci.removeItem(mp.plot)
            mp.plot.setVisible(on)

    def _apply_font(self, font_pt: float) -> None:
        self.empty_text.setStyleSheet(f"font-size: {font_pt * 1.5:.0f}pt; color: {self.palette.muted};")
        self.empty_button.setStyleSheet(f"font-size: {font_pt * 1.4:.0f}pt; padding: 8px 22px;")

    def apply_style(self, palette=None, sequential=None, diverging=None, font_pt=None, line_scale=1.0) -> None:
        if palette is not None:
            self.palette = palette
            self.canvas.setBackground(palette.background)
        for mp in (self.k, self.v, self.p, self.q):
            mp.apply_style(self.palette, cmap=sequential if mp.kind == "sequential" else diverging,
                           font_pt=font_pt, line_scale=line_scale)
        self._apply_font(font_pt or 10.0)

    def show_generation(self, gen, labels, layer: int, head: int, note: str = "", sizes: str = "") -> None:
        """gen: compute.instruments.kvcache.Generation or None; labels: token words of gen.tokens; sizes: the
        cache's bytes beside multi-head attention's (compute.instruments.kvcache.cache_size(cfg).describe())."""
        self.state = gen
        self._shown = (gen, labels, layer, head, note, sizes)
        self.step.setEnabled(gen is not None)
        self.reset.setEnabled(gen is not None)
        if gen is None:
            self.header.setText(self._empty_header())
            self.counter.setText(" ".join(filter(None, (note, html.escape(sizes)))))
            self.body.setCurrentIndex(0)
            for mp in (self.k, self.v, self.q, self.p):
                mp.set_data(np.zeros((0, 0)), [], [])
            self._show_step_plots(False)
            return
        self.body.setCurrentIndex(1)
        t = len(gen.tokens)
        cfg, cache = gen.cfg, gen.caches[layer]
        g = kv_head(cfg, head)                                              # the K/V head query head reads
        K = cache.k[:, g]                                                   # [rows, d_head] (rows ≤ W)
        V = cache.v[:, g]
        rows = [labels[p] if p < len(labels) else str(p) for p in cache.positions]
        dh = _idx(K.shape[1])
        rope = cfg.components.positions.rotates
        self.k.set_title((tr("K cache (rot_k: after RoPE), K/V head {g}") if rope else tr("K cache, K/V head {g}"))
                         .format(g=g))
        self.v.set_title(tr("V cache, K/V head {g}").format(g=g))
        self.q.set_title((tr("the new query row rot_q (after RoPE) of head {head} (after a decode step)") if rope
                          else tr("the new query row q of head {head} (after a decode step)")).format(head=head))
        self.k.set_data(K, rows, dh)
        self.v.set_data(V, rows, dh)
        for mp in (self.k, self.v):
            mp.highlight(row=len(rows) - 1 if gen.steps else None)
        self._show_step_plots(bool(gen.steps))
        if gen.steps:
            step = gen.steps[-1]
            self.q.set_data(step.q[layer][head][None, :], [f"{step.position}:{labels[-1]}"], dh)
            self.p.set_data(step.pattern[layer][head][:, None], rows, ["p"], levels=(0, 1))
        else:
            self.q.set_data(np.zeros((0, 0)), [], [])
            self.p.set_data(np.zeros((0, 0)), [], [])
        prompt = " ".join(labels[: len(gen.prompt)])
        made = " ".join(labels[len(gen.prompt):])
        shared = ""
        if cfg.n_kv_heads < cfg.n_heads:
            first = g * cfg.n_groups
            shared = tr("; query head {head} reads K/V head {g}, shared by query heads {first}–{last} (one cached "
                        "K/V head for {n})").format(head=head, g=g, first=first, last=first + cfg.n_groups - 1,
                                                     n=cfg.n_groups)
        ring = (tr("; a window of {W}: this layer keeps a ring of its last {W} rows").format(W=cache.window)
                if cache.window is not None else "")
        query = self.palette.query
        generated = (tr(" → generated: {words}").format(words=f"<b style=color:{query}>{html.escape(made)}</b>")
                     if made else "")
        self.header.setText(
            f"<b style='font-size:13pt'>{page_title('kv_cache')}</b>&nbsp;&nbsp;"
            + tr("prompt: {words}").format(words=f"<b>{html.escape(prompt)}</b>") + generated
            + f"<br><span style='color:{self.palette.muted}'>"
            + tr("layer {layer}, head {head} · %n cached row(s)", "", len(rows)).format(layer=layer, head=head)
            + shared + ring + tr("; the outlined row is new this step, the others are reused as they are")
            + "</span>")
        sizes = f"<br>{html.escape(sizes)}" if sizes else ""
        if gen.steps:
            s = gen.steps[-1]
            self.counter.setText(tr(
                "step {step}: with the cache <b>{cached}</b> multiply-adds; recomputing all %n position(s) would take "
                "<b>{recompute}</b> ({ratio}×). Saved so far: <b>{saved}</b>.", "", t).format(
                step=len(gen.steps), cached=num(s.macs_cached, ","), recompute=num(s.macs_recompute, ","),
                ratio=num(s.macs_recompute / s.macs_cached, ".1f"), saved=num(gen.macs_saved, ","))
                + f" {note}{sizes}")
        else:
            self.counter.setText(tr("prefill: {macs} multiply-adds for %n position(s) at once. Decode one token ▶ to "
                                    "see the new query row and its pattern.", "", t).format(
                macs=num(gen.prefill_macs, ",")) + f" {note}{sizes}")


PAGES = (
    PageKind("head_lens", HeadLens, head_lens_views,
             QT_TR_NOOP("the head lens: two heads' k, v, pattern and share of attn_out side by side, and A − B")),
    PageKind("sqrt_dk", lambda: SqrtDkLab(sqrt_dk.D_K_STOPS), sqrt_dk_views,
             QT_TR_NOOP("the √d_k lab: the spread of q·k against √d_k, a softmax row unscaled and scaled, the std "
                        "over d_k")),
    PageKind("mask", MaskView, mask_views,
             QT_TR_NOOP("the mask: the pattern with the causal mask and without it, the next token boxed")),
    PageKind("kv_cache", KVCacheView, kv_cache_views,
             QT_TR_NOOP("the KV cache: the cached k and v rows after one decode step, the new query row and its "
                        "pattern")),
)
