"""The window's status bar: the backend in use, compute and render times, the sizes of the pass, and
the progress bar with its Cancel button while a pass runs (shown only after BUSY_MS: quick edits
never flash it). MainWindow composes it; it reads LabState and says what it reads."""
from __future__ import annotations

import re

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QLabel, QProgressBar, QPushButton

from compute import memory
from compute.backends import cuda_unsupported_here, cuda_unused_reason
from widgets.i18n import QT_TR_NOOP, message, num, tr

BUSY_MS = 250


def backend_words(label: str) -> str:
    """A backend's label (compute: "cpu (numba, 2 threads)", "CUDA (simulated)") in the window's
    language: the backend's name is the API, the words around it are translated."""
    label = re.sub(r"(\d+) threads\)", lambda m: tr("%n thread(s)", "", int(m.group(1))) + ")", label)
    for words in (QT_TR_NOOP("(simulated)"), QT_TR_NOOP("(not available here)")):
        label = label.replace(words, tr(words))
    return label


def localise_bytes(n: float) -> str:
    """memory.fmt_bytes with the reader's decimal comma ("1,5 MiB" in Swedish)."""
    return message(memory.bytes_message(n))


def copied_words(result) -> str:
    """On a GPU Trace, what the views have copied from the device so far (Trace.copied_bytes):
    " · 16.8 MB copied from the GPU"; "" on the CPU."""
    if result is None or result.trace.backend != "cuda":
        return ""
    return " · " + tr("{bytes} copied from the GPU").format(bytes=localise_bytes(result.trace.copied_bytes))


def recomputed_rows(trace) -> str:
    """The status bar's word on what a pass computed: "recomputed rows p..T−1" (an incremental
    pass took rows < p from the result on screen; a full pass is rows 0..T−1)."""
    p, T = trace.reused_rows, trace.T
    if p < T:
        return tr("recomputed rows {first}..{last}").format(first=p, last=T - 1)
    return tr("no row recomputed ({T} reused)").format(T=T)


class StatusBar(QObject):
    """The labels and the progress bar of `window.statusBar()`; `backend_label` is the controls'
    "in use" line, which says the same backend in more words."""

    def __init__(self, window, state, backend_label: QLabel):
        super().__init__(window)
        self.state, self.backend_label = state, backend_label
        self.last_render_ms = float("nan")
        bar = window.statusBar()
        self.backend, self.times, self.sizes = QLabel(), QLabel(), QLabel()
        for w in (self.backend, self.times, self.sizes):
            bar.addWidget(w)
        self.progress = QProgressBar()
        self.progress.setMaximumWidth(220)
        self.progress.setRange(0, 1000)
        self.progress.setTextVisible(True)
        self.cancel_button = QPushButton()
        self.cancel_button.clicked.connect(state.cancel)
        bar.addPermanentWidget(self.progress)
        bar.addPermanentWidget(self.cancel_button)
        self.progress.hide()
        self.cancel_button.hide()
        self.busy_timer = QTimer(self, singleShot=True, interval=BUSY_MS)

    def retranslate(self) -> None:
        self.cancel_button.setText(tr("Cancel"))
        self.cancel_button.setToolTip(tr("stop this computation (Esc)"))
        result = self.state.result
        if result is not None:
            self.show_backend(result)
            self.show_times(result)
        self.update_sizes()
        if self.progress.isVisible() and self.state.busy:
            self.progress.setFormat(tr("computing…"))

    def show_backend(self, result) -> None:
        trace = result.trace
        # macOS, Windows; on Linux what CUDA lacks (a library, with the command that installs it)
        elsewhere = (cuda_unsupported_here() or cuda_unused_reason()) if trace.backend == "cpu" else None
        label = backend_words(trace.backend_label)
        self.backend_label.setText(f"{label} · {message(elsewhere)}" if elsewhere else label)
        self.backend.setText(tr("backend {label}").format(label=label))

    def rendered(self, ms: float, early: bool) -> None:
        self.last_render_ms = ms
        if early:
            self.times.setText(tr("attention shown · render {render} ms · MLP computing…").format(
                render=num(ms, ".1f")))
        else:
            self.show_times(self.state.result)

    def show_times(self, result) -> None:
        compute = result.trace.timing_ms.get("forward", result.compute_ms) if result else float("nan")
        rows = f" · {recomputed_rows(result.trace)}" if result else ""
        self.times.setText(tr("compute {compute} ms{rows} · render {render} ms").format(
            compute=num(compute, ".1f"), rows=rows, render=num(self.last_render_ms, ".1f")) + copied_words(result))

    def update_sizes(self) -> None:
        inputs = self.state.inputs
        est = self.state.memory_estimate()                   # checkpointed where the cpu backend keeps it so
        self.sizes.setText(tr("T = {T} · n_layers {n_layers} · memory {memory}").format(
            T=len(inputs.tokens), n_layers=inputs.config.n_layers, memory=localise_bytes(est.total)))

    def busy(self, on: bool) -> None:
        """A pass started (the bar after BUSY_MS, `show_busy`) or ended (gone)."""
        if on:
            self.busy_timer.start()
        else:
            self.busy_timer.stop()
            self.progress.hide()
            self.cancel_button.hide()

    def show_busy(self) -> None:
        if self.state.busy:
            self.progress.setValue(0)
            self.progress.setFormat(tr("computing…"))
            self.progress.show()
            self.cancel_button.show()

    def on_progress(self, stage: str, fraction: float) -> None:
        self.progress.setValue(int(fraction * 1000))
        self.progress.setFormat(f"{tr(stage)} %p%")
