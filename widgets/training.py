"""TrainPanel: train the toy model from the current seed and watch the patterns form.

Start / pause / stop, a progress bar, a live loss curve; the views update every few steps
(app/training.py does the work and feeds this panel)."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from .axes import localise_plot
from .i18n import Retranslate, num, tr
from .theme import LIGHT, LOSS_CURVE


class TrainPanel(Retranslate, QWidget):
    startRequested = Signal(int, int, int)      # seed, steps, update every
    pauseToggled = Signal(bool)
    stopRequested = Signal()
    saveRequested = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        self.intro = QLabel()
        self.intro.setWordWrap(True)
        layout.addWidget(self.intro)
        form = QFormLayout()
        self.seed = QSpinBox()
        self.seed.setRange(0, 2**31 - 1)
        self.steps = QSpinBox()
        self.steps.setRange(10, 100_000)
        self.steps.setSingleStep(500)
        self.steps.setValue(3000)
        self.every = QSpinBox()
        self.every.setRange(10, 5000)
        self.every.setValue(100)
        self.row_labels = [QLabel(), QLabel(), QLabel()]
        for label, box in zip(self.row_labels, (self.seed, self.steps, self.every), strict=True):
            form.addRow(label, box)
        layout.addLayout(form)
        row = QHBoxLayout()
        self.start = QPushButton()
        self.start.clicked.connect(lambda: self.startRequested.emit(self.seed.value(), self.steps.value(),
                                                                     self.every.value()))
        self.pause = QPushButton()
        self.pause.setCheckable(True)
        self.pause.toggled.connect(self._pause_toggled)
        self.stop = QPushButton()
        self.stop.clicked.connect(self.stopRequested)
        for b in (self.start, self.pause, self.stop):
            row.addWidget(b)
        layout.addLayout(row)
        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        layout.addWidget(self.progress)
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.status.setTextFormat(Qt.TextFormat.RichText)
        layout.addWidget(self.status)
        self.plot = pg.PlotWidget()
        localise_plot(self.plot.getPlotItem())
        self.plot.setBackground("w")
        self.plot.setLogMode(y=True)
        self.plot.setMenuEnabled(False)
        self.plot.setMinimumHeight(160)
        self.curve = self.plot.plot(pen=pg.mkPen(LOSS_CURVE, width=2))
        self.hint = pg.TextItem("", color=LIGHT.muted, anchor=(0.5, 0.5))
        self.plot.addItem(self.hint)
        self.hint.setPos(0.5, 0.5)
        layout.addWidget(self.plot, 1)
        self.save = QPushButton()
        self.save.clicked.connect(self.saveRequested)
        layout.addWidget(self.save)
        self.losses: list[tuple[int, float]] = []
        self._status: tuple | None = None          # what the status line says, to say again in a new language
        self.set_running(False)
        self.retranslate()

    def retranslate(self) -> None:
        self.intro.setText(tr("Train the toy model on repeating sequences (each token's successor is the one after "
                              "its last occurrence). Watch layer 0 learn to look one token back and layer 1 learn to "
                              "find where the current token appeared before."))
        self.seed.setToolTip(tr("training starts from the random weights of this seed, and draws its data from it"))
        self.every.setToolTip(tr("redraw the views after this many steps"))
        for label, text in zip(self.row_labels, (tr("seed"), tr("steps"), tr("update views every")), strict=True):
            label.setText(text)
        self.start.setText(tr("Train"))
        self.pause.setText(tr("Resume") if self.pause.isChecked() else tr("Pause"))
        self.stop.setText(tr("Stop"))
        self.save.setText(tr("Save weights…"))
        self.plot.setLabel("bottom", tr("step"))
        self.plot.setLabel("left", tr("loss"))
        self.hint.setText(tr("press Train: the loss appears here"))
        if self._status is None:
            self.status.setText(tr("not training"))
        elif self._status[0] == "step":
            self.add_status(*self._status[1:])
        else:
            self.status.setText(self._status[1]() if callable(self._status[1]) else self._status[1])
    def apply_palette(self, palette) -> None:
        """Follow the light or dark theme (the loss curve's background, axes and text)."""
        self.plot.setBackground(palette.background)
        for side in ("left", "bottom"):
            axis = self.plot.getAxis(side)
            axis.setTextPen(palette.foreground)
            axis.setPen(palette.muted)

    def _pause_toggled(self, on: bool) -> None:
        self.pause.setText(tr("Resume") if on else tr("Pause"))
        self.pauseToggled.emit(on)

    def set_running(self, running: bool) -> None:
        self.start.setEnabled(not running)
        self.pause.setEnabled(running)
        self.stop.setEnabled(running)
        for w in (self.seed, self.steps, self.every):
            w.setEnabled(not running)
        if not running:
            self.pause.blockSignals(True)
            self.pause.setChecked(False)
            self.pause.setText(tr("Pause"))
            self.pause.blockSignals(False)

    def reset_curve(self) -> None:
        self.hint.hide()
        self.losses = []
        self.curve.setData([], [])
        self.progress.setValue(0)

    def add_point(self, step: int, loss: float, total: int, seconds: float) -> None:
        self.losses.append((step, loss))
        xs, ys = np.array(self.losses).T
        self.curve.setData(xs, np.maximum(ys, 1e-6))
        self.progress.setValue(int(1000 * step / max(total, 1)))
        self.add_status(step, total, loss, seconds)

    def add_status(self, step: int, total: int, loss: float, seconds: float) -> None:
        self._status = ("step", step, total, loss, seconds)
        self.status.setText(tr("step <b>{step}</b> of {total} · loss <b>{loss}</b> · {seconds} s").format(
            step=num(step, ","), total=num(total, ","), loss=num(loss, ".3f"), seconds=f"{seconds:.0f}"))

    def set_status(self, html) -> None:
        """The status line: HTML, or a function that writes it (called again in a new language)."""
        self._status = ("html", html)
        self.status.setText(html() if callable(html) else html)
