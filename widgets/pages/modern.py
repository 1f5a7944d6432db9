"""The instrument pages for modern attention: the RoPE lab, shared K/V heads, windows and sinks,
the tiled softmax, and A/B. Each draws the views widgets/instrument_views.py picks (the same its
exported figure has) and emits intents; app/ turns them into LabState.select calls or edits, and
computes what a page waits for off the UI thread (`set_extra`)."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QPen
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QPushButton, QSlider, QSpinBox

from compute import Config
from compute.instruments import ab, rope_lab, shared_kv
from compute.instruments import tiled_softmax as tiled
from compute.models.components import mistakes

from ..charts import Chart, Series, colour_of, draw_chart
from ..i18n import QT_TR_NOOP, language, num, tr
from ..matrix import MatrixPlot
from ..stations import Same, Station
from ..theme import LIGHT
from ..views import colour_unit
from . import PageKind, page_views
from .instrument_views import (
    PageViews,
    ab_views,
    condition_of,
    default_key,
    default_window,
    formula,
    rope_views,
    shared_kv_views,
    tile_of,
    tiled_views,
    windows_views,
)


def _lean_title(plot: pg.PlotItem) -> None:
    """A title that asks for no width of its own: a long title must not widen its column at its
    neighbours' cost (the grid hands out preferred widths before the stretch factors)."""
    label = plot.titleLabel
    if getattr(label, "_lean", False):
        return
    relaxed = label.updateMin

    def update_min() -> None:
        relaxed()
        label._sizeHint[Qt.SizeHint.PreferredSize] = (0, label._sizeHint[Qt.SizeHint.PreferredSize][1])
        label.updateGeometry()

    label.updateMin = update_min
    label._lean = True
    update_min()


STRIP_PX = 56                             # a strip's cells at 10 pt (ModernPage.fit)


class ModernPage(Station):
    """A page drawn from a PageViews: heatmaps and charts in a grid, a bar of controls over them and
    a line of numbers under them. The grid is laid out again only when its structure changes."""

    key = ""

    def __init__(self, palette=LIGHT, parent=None):
        self.extra = None                     # what app/ computed for the page (set_extra)
        self.views: PageViews | None = None
        self.widgets: dict[str, MatrixPlot | pg.PlotItem] = {}
        self.offsets: dict[int, int] = {}     # id(MatrixPlot) -> the query of its row 0
        self._structure: tuple | None = None
        self._boxes: list = []
        self._page_style: dict | None = None
        self._line_scale = 1.0
        self._cached: tuple | None = None
        self._said: list = []                 # (setter, source text) of the controls' words
        super().__init__(palette, parent)
        self.bar = QHBoxLayout()
        self.bar.setContentsMargins(2, 0, 2, 0)
        self.layout().insertLayout(1, self.bar)
        self.build_controls()
        self.bar.addStretch(1)
        self.text = QLabel()
        self.text.setWordWrap(True)
        self.text.setTextFormat(Qt.TextFormat.RichText)
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.layout().addWidget(self.text)

    # -- building --------------------------------------------------------------------------------------
    def build(self) -> None:
        """Nothing yet: the grid follows the first views drawn (`_lay_out`)."""

    def build_controls(self) -> None:
        """The page's own controls, added to self.bar."""

    def _lay_out(self, views: PageViews) -> None:
        ci = self.canvas.ci
        ci.clear()
        self.plots, self.roles, self.offsets, self.widgets, self._boxes = [], {}, {}, {}, []
        self._strips: list[MatrixPlot] = []
        for item in views.items:
            v = item.view
            if isinstance(v, Chart):
                plot = ci.addPlot(row=item.row, col=item.col, rowspan=item.rowspan, colspan=item.colspan,
                                   enableMenu=False)
                self.widgets[v.name] = plot
            else:
                mp = self.matrix(item.row, item.col, "", kind=v.kind, roles=item.roles, rowspan=item.rowspan,
                                 colspan=item.colspan, colorbar=item.colorbar)
                self.offsets[id(mp)] = item.row_offset
                for side in item.bare:
                    mp.plot.getAxis(side).bare = True
                if {"left", "bottom"} <= set(item.bare):     # a strip: a few px of cells under its title
                    self._strips.append(mp)
                if self._page_style is not None:
                    s = self._page_style
                    mp.apply_style(self.palette, cmap=s["sequential"] if v.kind == "sequential" else s["diverging"],
                                   font_pt=s["font_pt"], line_scale=s["line_scale"])
                self.widgets[v.name] = mp
        lay = ci.layout
        for col in range(views.columns):
            lay.setColumnStretchFactor(col, views.col_stretch[col] if col < len(views.col_stretch) else 1)
        rows = max((i.row + i.rowspan for i in views.items), default=1)
        for row in range(rows):
            lay.setRowStretchFactor(row, views.row_stretch[row] if row < len(views.row_stretch) else 1)

    def fit(self) -> None:
        """As a station's; a strip is its title and STRIP_PX of cells, so that the room the square
        panels leave goes to them, not to the strips (pyqtgraph's grid would share it out)."""
        for mp in getattr(self, "_strips", ()):
            mp.plot.setMaximumHeight(mp.plot.titleLabel.boundingRect().height() + STRIP_PX * self.font_scale ** 0.5)
        super().fit()

    @staticmethod
    def structure(views: PageViews) -> tuple:
        return tuple((type(i.view).__name__, i.view.name, getattr(i.view, "kind", ""), i.row, i.col, i.rowspan,
                      i.colspan, i.colorbar, i.bare) for i in views.items) + (views.col_stretch, views.row_stretch)

    # -- data ------------------------------------------------------------------------------------------
    def set_extra(self, extra) -> None:
        """What app/ computed for this page (the run without the first token, A/B's side B)."""
        self.extra = extra
        self._cached = self._drawn_for = None          # the same object may come back changed (a decode step)
        self._refresh()

    def views_of(self, result, sel, extra) -> PageViews:
        """This page's views: its row in the page table (widgets/pages/__init__.py)."""
        return page_views(self.key, result, sel, extra)

    def page_views(self, result, sel) -> PageViews:
        key = (Same(result), Same(self.extra), sel, language())      # a new language: the words again
        if self._cached is None or self._cached[0] != key:
            self._cached = (key, self.views_of(result, sel, self.extra))
        return self._cached[1]

    def content(self, result, sel) -> dict[str, np.ndarray]:
        return self.page_views(result, sel).data()

    def _data_key(self, result, sel) -> tuple:
        return (Same(result), Same(self.extra), sel.layer, sel.head, sel.query, sel.key, sel.show_values, sel.kv_heads,
                sel.window, sel.tile, sel.tile_step, sel.ab, sel.lens, sel.d_k, self.font_scale)

    def draw(self, result, sel, data) -> None:
        views = self.page_views(result, sel)
        self.views = views
        structure = self.structure(views)
        if structure != self._structure:
            self._structure = structure
            self._lay_out(views)
        for box in self._boxes:
            box[0].removeItem(box[1])
        self._boxes = []
        font_pt = 10 * self.font_scale
        for item in views.items:
            target = self.widgets[item.view.name]
            if isinstance(item.view, Chart):
                draw_chart(target, self.chart_to_draw(item.view), self.palette, font_pt=font_pt,
                           line_scale=self._line_scale, title_size=self.title_size)
                continue
            p = item.view
            target.set_title(p.title)
            target.set_axis_titles(p.row_axis, p.col_axis)
            target.set_data(p.values, p.rows, p.cols, masked=p.masked, levels=p.levels, masked_text=p.masked_text,
                            row_ticks=p.row_ticks, col_ticks=p.col_ticks)
            target.set_unit(colour_unit(p.name))      # what the colour bar's values are
            for x, y, w, h in item.boxes:
                box = pg.QtWidgets.QGraphicsRectItem(x, y, w, h)
                pen = QPen(pg.mkColor(colour_of(item.box_colour, self.palette)), 2.5 * self._line_scale)
                pen.setCosmetic(True)
                box.setPen(pen)
                box.setZValue(11)
                target.plot.addItem(box)
                self._boxes.append((target.plot, box))
        for target in self.widgets.values():
            _lean_title(target if isinstance(target, pg.PlotItem) else target.plot)
        self.text.setText(f"<span style='font-size:{10 * self.font_scale:.0f}pt'>{views.text}</span>")
        self.sync_controls(result, sel)

    def chart_to_draw(self, chart: Chart) -> Chart:
        """The chart as the screen shows it now (a page may hold one back until asked)."""
        return chart

    def sync_controls(self, result, sel) -> None:
        """Set the page's controls to the selection (signals blocked)."""

    # -- linking: rows of a block of queries ------------------------------------------------------------------
    def key_of(self, sel) -> int | None:
        return sel.key

    def highlight(self, sel) -> None:
        hover = sel.hover or (None, None)
        query = hover[0] if hover[0] is not None else sel.query
        key = hover[1] if hover[1] is not None else self.key_of(sel)
        for mp in self.plots:
            row_role, col_role = self.roles[id(mp)]
            at = {"query": query, "key": key}
            row, col = at.get(row_role), at.get(col_role)
            if row is not None and row_role == "query":
                row -= self.offsets.get(id(mp), 0)
            cell = (row, col) if row is not None and col is not None else None
            mp.highlight(row=row, col=col, cell=cell)

    def _roles_to_pair(self, mp, cell):
        query, key = super()._roles_to_pair(mp, cell)
        if query is not None and self.roles[id(mp)][0] == "query":
            query += self.offsets.get(id(mp), 0)
        return query, key

    # -- the header ----------------------------------------------------------------------------------------
    @property
    def formula(self) -> str:
        return formula(self.key)

    def shapes(self, result, sel) -> str:
        return self.page_views(result, sel).shapes

    def apply_style(self, palette=None, sequential=None, diverging=None, font_pt=None, line_scale=1.0) -> None:
        self._page_style = dict(sequential=sequential or "blues", diverging=diverging or "diverging",
                           font_pt=font_pt, line_scale=line_scale)
        self._line_scale = line_scale
        super().apply_style(palette, sequential, diverging, font_pt, line_scale)

    # -- small helpers for the controls ------------------------------------------------------------------------
    def add_label(self, text: str) -> QLabel:
        """A label in the controls' bar; `text` is source text (QT_TR_NOOP), said in the window's language."""
        label = QLabel()
        self.say(label.setText, text)
        self.bar.addWidget(label)
        return label

    def say(self, setter, text: str) -> None:
        """setter(tr(text)) now and again whenever the language changes (`text` marked QT_TR_NOOP)."""
        self._said.append((setter, text))
        setter(tr(text))

    def retranslate(self) -> None:
        for setter, text in getattr(self, "_said", ()):
            setter(tr(text))
        super().retranslate()

    @staticmethod
    def set_quietly(widget, fn, *args) -> None:
        widget.blockSignals(True)
        try:
            fn(*args)
        finally:
            widget.blockSignals(False)


# -- 1. the RoPE lab ----------------------------------------------------------------------------------------------
class RopeLab(ModernPage):
    """One query i, one key j, one head: every pair of dimensions before and after its rotation."""

    key = "rope"
    keyChosen = Signal(int)
    thetaChosen = Signal(float)
    rotaryChosen = Signal(int)

    def build_controls(self) -> None:
        self.rope_labels = [self.add_label(QT_TR_NOOP("key j"))]
        self.key_spin = QSpinBox()
        self.key_spin.setKeyboardTracking(False)
        self.key_spin.valueChanged.connect(self.keyChosen)
        self.bar.addWidget(self.key_spin)
        self.rope_labels.append(self.add_label(QT_TR_NOOP("   θ")))
        self.theta = QSlider(Qt.Orientation.Horizontal)
        self.theta.setMinimumWidth(160)
        self.theta.setPageStep(1)
        self.theta.setTickPosition(QSlider.TickPosition.TicksBelow)
        self.theta.valueChanged.connect(lambda n: self.thetaChosen.emit(self.theta_stops[n]))
        self.bar.addWidget(self.theta)
        self.theta_label = self.add_label("")
        self.rope_labels.append(self.add_label(QT_TR_NOOP("   rotary_dim")))
        self.rotary = QSlider(Qt.Orientation.Horizontal)
        self.rotary.setMinimumWidth(120)
        self.rotary.setPageStep(1)
        self.rotary.valueChanged.connect(lambda n: self.rotaryChosen.emit(2 * n))
        self.bar.addWidget(self.rotary)
        self.rotary_label = self.add_label("")
        self.reveal = QPushButton()
        self.say(self.reveal.setText, QT_TR_NOOP("Predict, then show ▶"))
        self.reveal.setCheckable(True)
        self.say(self.reveal.setToolTip,
                 QT_TR_NOOP("Both positions move by Δ: does the score change? The key moves away?"))
        self.reveal.toggled.connect(lambda _on: self._redraw_now())
        self.bar.addSpacing(12)
        self.bar.addWidget(self.reveal)
        self.theta_stops: list[float] = list(rope_lab.THETA_STOPS)

    def retranslate(self) -> None:
        super().retranslate()
        if hasattr(self, "reveal"):
            self.reveal.setText(tr("Hide the test") if self.reveal.isChecked() else tr("Predict, then show ▶"))

    def _redraw_now(self) -> None:
        self.reveal.setText(tr("Hide the test") if self.reveal.isChecked() else tr("Predict, then show ▶"))
        self._drawn_for = None
        self._refresh()

    def key_of(self, sel) -> int | None:
        return default_key(sel, self.result.trace.T) if self.result is not None else sel.key

    def chart_to_draw(self, chart: Chart) -> Chart:
        if chart.name != "move" or self.reveal.isChecked():
            return chart
        # Before the answer: the score now at Δ = 0 and a dashed level across the range it will be
        # tested over, so the prediction has axes, a start and a scale (the curves stay hidden).
        start = chart.series[-1]
        steps = chart.series[0].x
        level = Series(tr("the score now"), steps, np.full(steps.shape, float(start.y[0])), colour="muted",
                       width=1.4, dashed=True)
        return Chart("move", tr("Predict: i and j both move by Δ. Does the score change?"), (level, start),
                     x_axis=chart.x_axis, y_axis=chart.y_axis)

    def sync_controls(self, result, sel) -> None:
        cfg, T = result.inputs.config, result.trace.T
        rope = cfg.components.positions.rotates
        for w in (self.key_spin, self.theta, self.rotary, self.reveal, self.theta_label, self.rotary_label,
                  *self.rope_labels):
            w.setVisible(rope)
        self.set_quietly(self.key_spin, self.key_spin.setRange, 0, max(T - 1, 0))
        self.set_quietly(self.key_spin, self.key_spin.setValue, default_key(sel, T))
        if not rope:
            self.theta_label.setText("")
            self.rotary_label.setText("")
            return
        self.theta_stops = sorted(set(rope_lab.THETA_STOPS) | {cfg.rope_theta})
        self.set_quietly(self.theta, self.theta.setRange, 0, len(self.theta_stops) - 1)
        self.set_quietly(self.theta, self.theta.setValue, self.theta_stops.index(cfg.rope_theta))
        self.theta_label.setText(num(cfg.rope_theta, ",.0f"))
        self.set_quietly(self.rotary, self.rotary.setRange, 1, cfg.d_head // 2)
        self.set_quietly(self.rotary, self.rotary.setValue, cfg.rotary_dim // 2)
        self.rotary_label.setText(tr("{r} of {dh}").format(r=cfg.rotary_dim, dh=cfg.d_head))


# -- 2. shared K/V heads ---------------------------------------------------------------------------------------------
class SharedKV(ModernPage):
    """Query heads coloured by the K/V head they read, a group's scores side by side, the cache meter."""

    key = "shared_kv"
    kvChosen = Signal(int)
    abRequested = Signal(object)          # an A/B condition: ("n_kv_heads", n)

    def build_controls(self) -> None:
        self.add_label(QT_TR_NOOP("what if n_kv_heads ="))
        self.kv = QSlider(Qt.Orientation.Horizontal)
        self.kv.setMinimumWidth(160)
        self.kv.setPageStep(1)
        self.kv.setTickPosition(QSlider.TickPosition.TicksBelow)
        self.kv.valueChanged.connect(lambda n: self.kvChosen.emit(self.choices[n]))
        self.bar.addWidget(self.kv)
        self.kv_label = self.add_label("")
        self.try_ab = QPushButton()
        self.say(self.try_ab.setText, QT_TR_NOOP("Compare in A/B"))
        self.say(self.try_ab.setToolTip,
                 QT_TR_NOOP("this model with its K/V heads pooled to this number, beside itself"))
        self.try_ab.clicked.connect(lambda: self.abRequested.emit(("n_kv_heads", self.choices[self.kv.value()])))
        self.bar.addSpacing(12)
        self.bar.addWidget(self.try_ab)
        self.choices: list[int] = [1]

    def sync_controls(self, result, sel) -> None:
        cfg = result.inputs.config
        self.choices = list(shared_kv.kv_choices(cfg))
        n = sel.kv_heads if sel.kv_heads in self.choices else cfg.n_kv_heads
        self.set_quietly(self.kv, self.kv.setRange, 0, len(self.choices) - 1)
        self.set_quietly(self.kv, self.kv.setValue, self.choices.index(n))
        kind = "MQA" if n == 1 else tr("multi-head") if n == cfg.n_heads else "GQA"
        self.kv_label.setText(f"{n} ({kind})")
        self.try_ab.setEnabled(n != cfg.n_kv_heads)


# -- 3. windows, banded layers and sinks ------------------------------------------------------------------------------
class WindowsSinks(ModernPage):
    """A windowed layer beside a dense one, the reach through layers, and the attention sinks."""

    key = "windows"
    windowChosen = Signal(int)

    def build_controls(self) -> None:
        self.add_label(QT_TR_NOOP("window W ="))
        self.window = QSpinBox()
        self.window.setKeyboardTracking(False)
        self.window.setRange(1, 1 << 20)
        self.window.valueChanged.connect(self.windowChosen)
        self.bar.addWidget(self.window)
        self.window_note = self.add_label("")

    def sync_controls(self, result, sel) -> None:
        cfg, T = result.inputs.config, result.trace.T
        self.set_quietly(self.window, self.window.setValue, default_window(cfg, sel, T))
        own = [w for w in (cfg.window(layer) for layer in range(cfg.n_layers)) if w is not None]
        self.window_note.setText(tr("keys (the model's: ") + (", ".join(sorted({str(w) for w in own})) if own
                                                              else tr("none, every layer dense")) + ")")


# -- 4. the tiled softmax ------------------------------------------------------------------------------------------
class TiledSoftmax(ModernPage):
    """One block of queries meets the keys tile by tile; ◀ ▶ step through the tiles."""

    key = "tiled_softmax"
    tileChosen = Signal(int)
    stepChosen = Signal(object)           # steps done, or None: all

    def build_controls(self) -> None:
        self.add_label(QT_TR_NOOP("tile B_r = B_c ="))
        self.tile = QComboBox()
        self.tile.activated.connect(lambda n: self.tileChosen.emit(int(self.tile.itemData(n))))
        self.bar.addWidget(self.tile)
        self.bar.addSpacing(12)
        self.back = QPushButton("◀")
        self.say(self.back.setToolTip, QT_TR_NOOP("one tile back"))
        self.forward = QPushButton()
        self.say(self.forward.setText, QT_TR_NOOP("next tile ▶"))
        self.say(self.forward.setToolTip, QT_TR_NOOP("the next tile arrives: predict m and ℓ first"))
        self.reset = QPushButton()
        self.say(self.reset.setText, QT_TR_NOOP("from the start"))
        self.to_end = QPushButton()
        self.say(self.to_end.setText, QT_TR_NOOP("all tiles"))
        self.back.clicked.connect(lambda: self._step(-1))
        self.forward.clicked.connect(lambda: self._step(+1))
        self.reset.clicked.connect(lambda: self.stepChosen.emit(0))
        self.to_end.clicked.connect(lambda: self.stepChosen.emit(None))
        for b in (self.reset, self.back, self.forward, self.to_end):
            self.bar.addWidget(b)
        self.step_label = self.add_label("")
        self.steps = 0
        self.step = 0

    def _step(self, delta: int) -> None:
        n = max(0, min(self.step + delta, self.steps))
        self.stepChosen.emit(None if n == self.steps else n)

    def sync_controls(self, result, sel) -> None:
        T = result.trace.T
        choices = [t for t in tiled.TILE_CHOICES if t < T] + [T] if T else [1]
        choices = sorted(set(choices))
        if [self.tile.itemData(n) for n in range(self.tile.count())] != choices:
            self.tile.blockSignals(True)
            self.tile.clear()
            for t in choices:
                self.tile.addItem(str(t), t)
            self.tile.blockSignals(False)
        tile = tile_of(sel, T)
        self.set_quietly(self.tile, self.tile.setCurrentIndex, max(0, self.tile.findData(tile)))
        views = self.views
        steps = [i.view for i in views.items if i.view.name == "memory"][0].series[0].x if views else []   # every tile
        self.steps = len(steps)
        self.step = self.steps if sel.tile_step is None else max(0, min(sel.tile_step, self.steps))
        self.step_label.setText(tr("  step {n} of {N}").format(n=self.step, N=self.steps))
        self.back.setEnabled(self.step > 0)
        self.forward.setEnabled(self.step < self.steps)


# -- 5. A/B -----------------------------------------------------------------------------------------------------
CHANGE_TITLES = {
    "mask_off": QT_TR_NOOP("the causal mask off (on)"),
    "scaling_off": QT_TR_NOOP("the 1/√d_head scaling off (on)"),
    "d_head_x4": QT_TR_NOOP("d_head × 4 (random weights)"),
    "rope_theta": QT_TR_NOOP("another RoPE θ"),
    "n_kv_heads": QT_TR_NOOP("another n_kv_heads (pooled K/V)"),
    "move_token": QT_TR_NOOP("the query's token moved"),
    "weights": QT_TR_NOOP("other weights"),
    "head": QT_TR_NOOP("another head"),
    "knock_out": QT_TR_NOOP("a head knocked out"),
    "mistake": QT_TR_NOOP("the model loaded wrong"),      # offered when the model has a part to get wrong
}


class ABView(ModernPage):
    """Two conditions side by side on shared colour scales, with B − A."""

    key = "ab"
    conditionChosen = Signal(object)      # (change, value) of compute.instruments.ab
    keepRequested = Signal()

    def build_controls(self) -> None:
        self.add_label(QT_TR_NOOP("B = A with"))
        self.change = QComboBox()
        for key, text in CHANGE_TITLES.items():
            self.change.addItem(tr(text), key)
        self.change.activated.connect(self._change_chosen)
        self.bar.addWidget(self.change)
        self.value = QComboBox()
        self.value.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.value.activated.connect(lambda n: self.conditionChosen.emit((self.change.currentData(),
                                                                          self.value.itemData(n))))
        self.bar.addWidget(self.value)
        self.keep = QPushButton()
        self.say(self.keep.setText, QT_TR_NOOP("Make B the lab's inputs"))
        self.say(self.keep.setToolTip, QT_TR_NOOP("apply this change to the lab (an undoable edit)"))
        self.keep.clicked.connect(self.keepRequested)
        self.bar.addSpacing(12)
        self.bar.addWidget(self.keep)
        self._cfg = None
        self._sel = None

    def retranslate(self) -> None:
        if hasattr(self, "change"):
            for n in range(self.change.count()):
                self.change.setItemText(n, tr(CHANGE_TITLES[self.change.itemData(n)]))
        super().retranslate()

    def _change_chosen(self, n: int) -> None:
        change = self.change.itemData(n)
        cfg, sel = self._cfg, self._sel
        if cfg is None:
            return
        try:
            self.conditionChosen.emit(ab.default_condition(change, cfg, sel.head, sel.query))
        except ValueError:
            self.conditionChosen.emit((change, None))

    def _offer(self, cfg) -> None:
        """The changes this model allows in the first box: 'loaded wrong' only with a part to get wrong."""
        keys = [k for k in CHANGE_TITLES if k != "mistake" or mistakes(cfg)]
        if keys != [self.change.itemData(n) for n in range(self.change.count())]:
            self.change.blockSignals(True)
            self.change.clear()
            for key in keys:
                self.change.addItem(tr(CHANGE_TITLES[key]), key)
            self.change.blockSignals(False)

    def sync_controls(self, result, sel) -> None:
        cfg, labels = result.inputs.config, result.labels
        self._cfg, self._sel = cfg, sel
        self._offer(cfg)
        change, value = condition_of(sel, cfg)
        self.set_quietly(self.change, self.change.setCurrentIndex, max(0, self.change.findData(change)))
        options: list[tuple[str, object]] = []
        if change == "rope_theta":
            options = [(f"θ = {num(t, ',.0f')}", t) for t in sorted(set(rope_lab.THETA_STOPS) | {value})]
        elif change == "n_kv_heads":
            options = [(tr("{n} K/V heads").format(n=n), n) for n in shared_kv.kv_choices(cfg)]
        elif change == "move_token":
            src = value[0]
            options = [(tr("{src} → position {d}").format(src=src, d=d), (src, d)) for d in range(len(labels))
                       if d != src] or [("—", value)]
        elif change == "weights":
            options = [(tr("random, seed {s}").format(s=s), s) for s in (0, 1, 2, 3)]
            if result.inputs.preset == "toy" or cfg.same_shapes(Config()):
                options.append((tr("the trained toy weights"), "trained"))
        elif change == "head":
            options = [(tr("head {h}").format(h=h), h) for h in range(cfg.n_heads)]
        elif change == "knock_out":
            options = [(f"{la}.{h}", (la, h)) for la in range(cfg.n_layers) for h in range(cfg.n_heads)]
        elif change == "mistake":
            options = [(tr(m.title), m.key) for m in mistakes(cfg)] or [("—", value)]
        self.value.blockSignals(True)
        self.value.clear()
        for text, data in options:
            self.value.addItem(text, data)
        self.value.setCurrentIndex(max(0, next((n for n, (_, d) in enumerate(options) if d == value), 0)))
        self.value.setVisible(bool(options))
        self.value.blockSignals(False)
        waiting = self.views is not None and bool(self.views.waiting)
        self.keep.setEnabled(not waiting and change != "head")


PAGES = (
    PageKind("rope", RopeLab, lambda r, s, e=None, m=False: rope_views(r, s),
             QT_TR_NOOP("the RoPE lab: q and k pair by pair before and after the rotation, the pairs' shares of "
                        "the score")),
    PageKind("shared_kv", SharedKV, lambda r, s, e=None, m=False: shared_kv_views(r, s),
             QT_TR_NOOP("shared K/V heads: who reads which K/V head, a group's scores, the cache bytes")),
    PageKind("windows", WindowsSinks, windows_views,
             QT_TR_NOOP("windows and sinks: a windowed layer beside a dense one, the reach through layers, the "
                        "sinks")),
    PageKind("tiled_softmax", TiledSoftmax, lambda r, s, e=None, m=False: tiled_views(r, s),
             QT_TR_NOOP("the tiled softmax: one query block tile by tile, the running m and ℓ, the bytes "
                        "moved")),
    PageKind("ab", ABView, ab_views, QT_TR_NOOP("A/B: the scores and pattern under two conditions, and B − A")),
)

