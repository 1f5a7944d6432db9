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

from .i18n import tr


class TrainPanel(QWidget):
    startRequested = Signal(int, int, int)      # seed, steps, update every
    pauseToggled = Signal(bool)
    stopRequested = Signal()
    saveRequested = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        intro = QLabel("Train the toy model on repeating sequences (each token's successor is the one "
                       "after its last occurrence). Watch layer 0 learn to look one token back and layer 1 "
                       "learn to find where the current token appeared before.")
        intro.setWordWrap(True)
        layout.addWidget(intro)
        form = QFormLayout()
        self.seed = QSpinBox()
        self.seed.setRange(0, 2**31 - 1)
        self.seed.setToolTip(tr("training starts from the random weights of this seed, and draws its data from it"))
        self.steps = QSpinBox()
        self.steps.setRange(10, 100_000)
        self.steps.setSingleStep(500)
        self.steps.setValue(3000)
        self.every = QSpinBox()
        self.every.setRange(10, 5000)
        self.every.setValue(100)
        self.every.setToolTip(tr("redraw the views after this many steps"))
        form.addRow(tr("seed"), self.seed)
        form.addRow(tr("steps"), self.steps)
        form.addRow(tr("update views every"), self.every)
        layout.addLayout(form)
        row = QHBoxLayout()
        self.start = QPushButton(tr("Train"))
        self.start.clicked.connect(lambda: self.startRequested.emit(self.seed.value(), self.steps.value(),
                                                                     self.every.value()))
        self.pause = QPushButton(tr("Pause"))
        self.pause.setCheckable(True)
        self.pause.toggled.connect(self._pause_toggled)
        self.stop = QPushButton(tr("Stop"))
        self.stop.clicked.connect(self.stopRequested)
        for b in (self.start, self.pause, self.stop):
            row.addWidget(b)
        layout.addLayout(row)
        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        layout.addWidget(self.progress)
        self.status = QLabel(tr("not training"))
        self.status.setWordWrap(True)
        self.status.setTextFormat(Qt.TextFormat.RichText)
        layout.addWidget(self.status)
        self.plot = pg.PlotWidget()
        self.plot.setBackground("w")
        self.plot.setLogMode(y=True)
        self.plot.setLabel("bottom", "step")
        self.plot.setLabel("left", "loss")
        self.plot.setMenuEnabled(False)
        self.plot.setMinimumHeight(160)
        self.curve = self.plot.plot(pen=pg.mkPen("#1a73e8", width=2))
        self.hint = pg.TextItem("press Train: the loss appears here", color="#5f6368", anchor=(0.5, 0.5))
        self.plot.addItem(self.hint)
        self.hint.setPos(0.5, 0.5)
        layout.addWidget(self.plot, 1)
        self.save = QPushButton(tr("Save weights…"))
        self.save.clicked.connect(self.saveRequested)
        layout.addWidget(self.save)
        self.losses: list[tuple[int, float]] = []
        self.set_running(False)

    def apply_palette(self, palette) -> None:
        """Follow the light or dark theme (the loss curve's background, axes and text)."""
        self.plot.setBackground(palette.background)
        for side in ("left", "bottom"):
            axis = self.plot.getAxis(side)
            axis.setTextPen(palette.foreground)
            axis.setPen(palette.muted)

    def _pause_toggled(self, on: bool) -> None:
        self.pause.setText("Resume" if on else "Pause")
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
            self.pause.setText("Pause")
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
        self.status.setText(f"step <b>{step:,}</b> of {total:,} · loss <b>{loss:.3f}</b> · {seconds:.0f} s")

    def set_status(self, html: str) -> None:
        self.status.setText(html)
