"""The four oldest instrument pages on screen: the head lens, the mask, the √d_k lab and the KV
cache. Like every instrument page they are ModernPages: they draw the views
widgets/pages/classic_views.py picks (the same their exported figures have) and emit intents;
app/pages/ computes what they wait for (the unmasked run, the √d_k lab's numbers, the KV-cache
generation) off the UI thread and hands it in (`set_extra`)."""
from __future__ import annotations

import dataclasses

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QSlider, QSpinBox, QStackedWidget, QVBoxLayout, QWidget

from compute.instruments import sqrt_dk

from ..i18n import QT_TR_NOOP, num, tr
from ..theme import LIGHT
from . import PageKind
from .classic_views import LENS_ROWS, head_lens_views, kv_cache_views, lens_pair, mask_views, sqrt_dk_views
from .modern import ModernPage


# -- the head lens ----------------------------------------------------------------------------------------------
class HeadLens(ModernPage):
    """Two heads side by side, with shared colour scales, and their difference."""

    key = "head_lens"
    headsChosen = Signal(int, int, int, int)        # layer A, head A, layer B, head B

    @property
    def formula(self) -> str:
        return tr("compare two heads: their k, v, pattern and share of attn_out, and A − B")

    def build_controls(self) -> None:
        self.spins: list[QSpinBox] = []
        for n, text in enumerate((QT_TR_NOOP("A: layer"), QT_TR_NOOP("head"), QT_TR_NOOP("B: layer"),
                                  QT_TR_NOOP("head"))):
            if n == 2:
                self.bar.addSpacing(16)
            self.add_label(text)
            spin = QSpinBox()
            spin.setKeyboardTracking(False)
            spin.valueChanged.connect(self._emit)
            self.bar.addWidget(spin)
            self.spins.append(spin)

    def _emit(self) -> None:
        self.headsChosen.emit(*(s.value() for s in self.spins))

    def sync_controls(self, result, sel) -> None:
        cfg = result.inputs.config
        (la, ha), (lb, hb) = lens_pair(result, sel)
        for spin, hi, value in zip(self.spins, (cfg.n_layers - 1, cfg.n_heads - 1) * 2, (la, ha, lb, hb), strict=True):
            self.set_quietly(spin, spin.setMaximum, hi)
            self.set_quietly(spin, spin.setValue, value)

    @property
    def rows(self) -> dict:
        """Each row's panels (A, B, A − B) by name: k, v, pattern, result."""
        return {name: tuple(self.widgets[f"{name}_{tag}"] for tag in ("A", "B", "diff")) for name in LENS_ROWS}

    def where(self, sel) -> str:
        return ""                                   # each panel says its layer and head


# -- the mask ---------------------------------------------------------------------------------------------------
class MaskView(ModernPage):
    """The pattern with and without the causal mask, and where the 'answer' would be."""

    key = "mask"

    @property
    def formula(self) -> str:
        return tr("without the mask, query i can see key i+1 — the very token it has to predict")

    @property
    def unmasked(self):
        """The same inputs computed with causal=False (app/pages/mask.py), for this result only."""
        extra = self.extra
        return extra if extra is not None and self.result is not None and \
            extra.request_id == self.result.request_id else None

    @property
    def with_mask(self):
        return self.widgets["pattern"]

    @property
    def without(self):
        return self.widgets["pattern_unmasked"]


# -- the √d_k lab -----------------------------------------------------------------------------------------------
class SqrtDkLab(ModernPage):
    """Spread of q·k for random unit-variance vectors against sqrt(d_k); softmax rows and gradients
    with and without the scaling. The numbers come in through `set_extra` (app/pages/sqrt_dk.py)."""

    key = "sqrt_dk"
    dkChosen = Signal(int)

    @property
    def formula(self) -> str:
        return "scores = q·kᵀ / √d_k"

    def build_controls(self) -> None:
        self.stops = list(sqrt_dk.D_K_STOPS)
        self.add_label("d_k")
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setRange(0, len(self.stops) - 1)
        self.slider.setTickPosition(QSlider.TickPosition.TicksBelow)
        self.slider.setTickInterval(1)
        self.slider.setPageStep(1)
        self.slider.setMinimumWidth(240)
        self.slider.valueChanged.connect(lambda i: self.dkChosen.emit(self.stops[i]))
        self.bar.addWidget(self.slider, 1)
        self.dk_label = QLabel()
        self.dk_label.setMinimumWidth(80)
        self.bar.addWidget(self.dk_label)

    def __init__(self, palette=LIGHT, parent=None):
        super().__init__(palette, parent)
        # The numbers in words stand beside the charts (a column), not under them: five lines
        # under the canvas squeezed the histograms to slivers on a projector.
        layout = self.layout()
        row = QHBoxLayout()
        at = layout.indexOf(self.canvas)
        for w in (self.canvas, self.text):
            layout.removeWidget(w)
        row.addWidget(self.canvas, 1)
        row.addWidget(self.text)
        self.text.setAlignment(Qt.AlignmentFlag.AlignTop)
        self.text.setFixedWidth(300)
        layout.insertLayout(at, row, 1)

    def apply_style(self, palette=None, sequential=None, diverging=None, font_pt=None, line_scale=1.0) -> None:
        super().apply_style(palette, sequential, diverging, font_pt, line_scale)
        self.text.setFixedWidth(int(300 + 16 * ((font_pt or 10.0) - 10.0)))      # 380 px at 15 pt

    @property
    def numbers(self):
        """The lab's numbers on show (compute.instruments.sqrt_dk.LabNumbers), or None."""
        return self.extra

    def views_of(self, result, sel, extra):
        """While another d_k is measured, the last numbers stay on screen and the line says so."""
        if extra is not None and extra.spread.d_k != sel.d_k:
            views = super().views_of(result, dataclasses.replace(sel, d_k=extra.spread.d_k), extra)
            return dataclasses.replace(views, waiting=tr("measuring d_k = {d_k}…").format(d_k=num(sel.d_k, ",")))
        return super().views_of(result, sel, extra)

    def sync_controls(self, result, sel) -> None:
        index = self.stops.index(sel.d_k) if sel.d_k in self.stops else 0
        self.set_quietly(self.slider, self.slider.setValue, index)
        self.dk_label.setText(f"d_k = {num(sel.d_k, ',')}")
        if self.views is not None and self.views.waiting:
            self.text.setText(self.views.waiting)

    def where(self, sel) -> str:
        return ""                                   # random vectors: no layer or head of the model

    @property
    def hist_raw(self):
        return self.widgets["hist_raw"]

    @property
    def hist_scaled(self):
        return self.widgets["hist_scaled"]


# -- the KV cache -------------------------------------------------------------------------------------------------
class KVCacheView(ModernPage):
    """Generation step by step: cached K and V rows grow, one new query row per decode step. The
    page opens empty, asking for the prefill: nothing is computed until the lecturer asks."""

    key = "kv_cache"
    prefillRequested = Signal()
    stepRequested = Signal()
    resetRequested = Signal()

    @property
    def formula(self) -> str:
        return tr("Prefill runs the prompt once and keeps every layer's k and v; each decode step then computes "
                  "one new row.")

    def build_controls(self) -> None:
        self.prefill, self.step, self.reset = QPushButton(), QPushButton(), QPushButton()
        for button, text, signal in ((self.prefill, QT_TR_NOOP("Prefill the prompt"), self.prefillRequested),
                                     (self.step, QT_TR_NOOP("Decode one token ▶"), self.stepRequested),
                                     (self.reset, QT_TR_NOOP("Reset"), self.resetRequested)):
            self.say(button.setText, text)
            button.clicked.connect(signal)
            self.bar.addWidget(button)
        # The empty state: one sentence and one button where the caches will appear.
        self.body = QStackedWidget()
        empty = QWidget()
        column = QVBoxLayout(empty)
        column.addStretch(1)
        self.empty_text = QLabel()
        self.empty_text.setObjectName("emptyState")
        self.empty_text.setWordWrap(True)
        self.empty_text.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.say(self.empty_text.setText, QT_TR_NOOP("Prefill the prompt: it runs once and keeps every layer's k and "
                                                     "v. Then decode one token at a time."))
        column.addWidget(self.empty_text)
        self.empty_button = QPushButton()
        self.empty_button.setObjectName("emptyAction")
        self.say(self.empty_button.setText, QT_TR_NOOP("Prefill the prompt"))
        self.empty_button.clicked.connect(self.prefillRequested)
        column.addWidget(self.empty_button, 0, Qt.AlignmentFlag.AlignHCenter)
        column.addStretch(2)
        self.body.addWidget(empty)
        layout = self.layout()
        at = layout.indexOf(self.canvas)
        layout.removeWidget(self.canvas)
        self.body.addWidget(self.canvas)
        layout.insertWidget(at, self.body, 1)
        self._show_empty(True)
        self._empty_font(10.0)

    def _show_empty(self, on: bool) -> None:
        self.body.setCurrentIndex(0 if on else 1)
        self.step.setEnabled(not on)
        self.reset.setEnabled(not on)

    def set_extra(self, extra) -> None:
        self._show_empty(extra is None)
        super().set_extra(extra)

    def sync_controls(self, result, sel) -> None:
        self._show_empty(self.extra is None)

    def highlight(self, sel) -> None:
        super().highlight(sel)
        gen = self.extra
        if gen is not None and gen.steps:                 # the row new this step, outlined
            for name in ("k_cache", "v_cache"):
                mp = self.widgets.get(name)
                if mp is not None and mp.values is not None:
                    mp.highlight(row=mp.values.shape[0] - 1)

    def apply_style(self, palette=None, sequential=None, diverging=None, font_pt=None, line_scale=1.0) -> None:
        super().apply_style(palette, sequential, diverging, font_pt, line_scale)
        self._empty_font(font_pt or 10.0)

    def _empty_font(self, pt: float) -> None:
        self.empty_text.setStyleSheet(f"font-size: {pt * 1.5:.0f}pt; color: {self.palette.muted};")
        self.empty_button.setStyleSheet(f"font-size: {pt * 1.4:.0f}pt; padding: 8px 22px;")

    @property
    def k(self):
        return self.widgets["k_cache"]

    @property
    def v(self):
        return self.widgets["v_cache"]


PAGES = (
    PageKind("head_lens", HeadLens, head_lens_views,
             QT_TR_NOOP("the head lens: two heads' k, v, pattern and share of attn_out side by side, and A − B")),
    PageKind("sqrt_dk", SqrtDkLab, sqrt_dk_views,
             QT_TR_NOOP("the √d_k lab: the spread of q·k against √d_k, a softmax row unscaled and scaled, the std "
                        "over d_k")),
    PageKind("mask", MaskView, mask_views,
             QT_TR_NOOP("the mask: the pattern with the causal mask and without it, the next token boxed")),
    PageKind("kv_cache", KVCacheView, kv_cache_views,
             QT_TR_NOOP("the KV cache: the cached k and v rows after one decode step, the new query row and its "
                        "pattern")),
)
