"""Activation patching: two prompts of equal length (clean and corrupted), a metric (the logit difference
of two answer tokens, picked from the predictions), and how much of the clean metric each patch of a
clean value into the corrupted pass restores — every head's z (layer × head) and resid_pre at every
position (layer × position). The numbers are compute.instruments.patching's (`run_setup`); app/pages/
patching.py runs them off the UI thread and hands the page each batch as it ends (`PatchedRun`), so the
cells fill in; a cell not yet done is hatched. The page's whole row is this module."""
from __future__ import annotations

import html

import numpy as np
from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QLabel, QLineEdit, QProgressBar, QPushButton

from compute.instruments.patching import PatchedRun, run_setup, swapped_setup

from ..i18n import QT_TR_NOOP, tr
from ..matrix import idx_labels
from ..views import Panel
from . import PageKind
from .circuit_pages import CircuitPage
from .circuit_views import _label
from .instrument_views import Item, PageViews, _t

FORMULA = ("restored = (m(patched) − m(corrupted)) / (m(clean) − m(corrupted)),&nbsp; "
           "m = logit(answer) − logit(wrong) at the last position")


def prompt_text(result, ids) -> str:
    """A prompt as the tokenizer's words: joined as they are when they carry their spaces, else by spaces."""
    words = [str(result.token_label(int(t))) for t in ids]
    return "".join(words) if any(w[:1].isspace() for w in words) else " ".join(words)


def setup_of(result, sel):
    """The setup the page shows: the session's or the user's (Selection.patching), else the window's
    sentence with its middle token swapped (the controller may start from a better default)."""
    if sel.patching is not None:
        return sel.patching
    return swapped_setup(result.inputs.tokens, result.inputs.config.d_vocab)


# The run the window finished last, by (weights uid, setup, backend): a figure of it needs no second run.
_FINISHED: dict = {}


def remember(run: PatchedRun, backend: str) -> None:
    """Keep a finished run for the figures of the same weights, setup and backend (one at a time)."""
    _FINISHED.clear()
    _FINISHED[(run.weights_uid, run.setup, backend)] = run


def run_of(result, setup) -> PatchedRun:
    inputs = result.inputs
    kept = _FINISHED.get((result.weights.uid, setup, inputs.backend))
    return kept if kept is not None else run_setup(inputs.config, result.weights, setup, inputs.backend)


def matches(extra, result, sel) -> bool:
    """Whether `extra` is a run of these weights and of the selected setup (any setup while none is chosen)."""
    return (isinstance(extra, PatchedRun) and extra.weights_uid == result.weights.uid
            and (sel.patching is None or extra.setup == sel.patching))


def _panel(name: str, title: str, values: np.ndarray, rows, cols, row_axis: str, col_axis: str) -> Panel:
    done = np.isfinite(values)
    return Panel(name, title, np.where(done, values, 0.0), rows, cols, row_axis, col_axis, masked=~done,
                 levels=(-1.0, 1.0), masked_text="")


def patching_views(result, sel, extra: PatchedRun | None = None, compute_missing: bool = False) -> PageViews:
    cfg = result.inputs.config
    L, H = cfg.n_layers, cfg.n_heads
    if not matches(extra, result, sel):
        extra = run_of(result, setup_of(result, sel)) if compute_missing else None
    setup = extra.setup if extra is not None else setup_of(result, sel)
    T = len(setup.clean)
    heads = extra.run.heads if extra is not None else np.full((L, H), np.nan)         # [L, H]
    positions = extra.run.positions if extra is not None else np.full((L, T), np.nan)  # [L, T]
    cols = tuple(_label(result, c) if c == x else f"{_label(result, c)}→{_label(result, x)}"
                 for c, x in zip(setup.clean, setup.corrupted, strict=True))
    rows = tuple(idx_labels(L))
    items = (Item(_panel("patch_heads", tr("each head's z patched in"), heads, rows, tuple(idx_labels(H)),
                         tr("layer"), tr("head")), 0, 0),
             Item(_panel("patch_positions", tr("resid_pre at one position patched in"), positions, rows, cols,
                         "", tr("position (clean→corrupted)")), 0, 1))
    clean, corrupted = (html.escape(prompt_text(result, p)) for p in (setup.clean, setup.corrupted))
    if extra is None:
        text = _t("Clean “{clean}”, corrupted “{corrupted}”: running the two prompts…", clean=clean,
                  corrupted=corrupted)
        return PageViews("patching", items, text=text, waiting=tr("the patching run"), col_stretch=(H, max(T, H)),
                         panel_size=(420, 520), shapes=f"[n_layers, n_heads] = [{L}, {H}] · [n_layers, T] = [{L}, {T}]")
    run = extra.run
    a, b = (html.escape(_label(result, t)) for t in (run.metric.answer, run.metric.wrong))
    text = _t("Metric m = logit(“{a}”) − logit(“{b}”) at the last position: {mc:.2f} on the clean prompt “{clean}”, "
              "{mx:.2f} on the corrupted “{corrupted}”. Each cell is the share of that difference a patch of the "
              "clean value into the corrupted pass restores (1 = all of it, 0 = nothing; a patch at layer l reuses "
              "the corrupted pass's layers before l). Hatched: not done yet. Click a head to open it.",
              a=a, b=b, mc=run.clean_metric, mx=run.corrupted_metric, clean=clean, corrupted=corrupted)
    if abs(run.clean_metric - run.corrupted_metric) < 1e-6:
        text += " " + tr("The two prompts give the same metric: there is nothing to restore (choose other answers).")
    if extra.finished:
        best = np.unravel_index(int(np.nanargmax(heads)), heads.shape) if np.isfinite(heads).any() else None
        text += " " + _t("All {n} cells in {s:.1f} s.", n=extra.total, s=run.seconds)
        if best is not None:
            text += " " + _t("The head that restores most: <b>{L}.{h}</b> ({v:.2f}).", L=int(best[0]), h=int(best[1]),
                             v=float(heads[best]))
    elif extra.stopped:
        text += " " + _t("Stopped after {done} of {n} cells.", done=extra.done, n=extra.total)
    else:
        text += " " + _t("{done} of {n} cells, {s:.1f} s…", done=extra.done, n=extra.total, s=run.seconds)
    return PageViews("patching", items, text=text, col_stretch=(H, max(T, H)), panel_size=(420, 520),
                     shapes=f"[n_layers, n_heads] = [{L}, {H}] · [n_layers, T] = [{L}, {T}]")


class Patching(CircuitPage):
    """Two prompts, the metric's two tokens, a run with its progress and Stop; a head's cell opens it."""

    key = "patching"
    runRequested = Signal(str, str)            # (clean text, corrupted text): patch these
    metricChosen = Signal(object, object)      # (answer id, wrong id)
    cancelRequested = Signal()

    @property
    def formula(self) -> str:
        return FORMULA

    def build_controls(self) -> None:
        self.clean_label, self.corrupted_label = QLabel(), QLabel()
        self.say(self.clean_label.setText, QT_TR_NOOP("clean"))
        self.say(self.corrupted_label.setText, QT_TR_NOOP("corrupted"))
        self.clean, self.corrupted = QLineEdit(), QLineEdit()
        for edit in (self.clean, self.corrupted):
            edit.setMinimumWidth(150)
            edit.returnPressed.connect(self._run)
        self.go = QPushButton()
        self.say(self.go.setText, QT_TR_NOOP("Patch"))
        self.go.clicked.connect(self._run)
        self.answer_label, self.wrong_label = QLabel(), QLabel()
        self.say(self.answer_label.setText, QT_TR_NOOP("metric: logit of"))
        self.say(self.wrong_label.setText, QT_TR_NOOP("minus the logit of"))
        self.answer, self.wrong = QComboBox(), QComboBox()
        for box in (self.answer, self.wrong):
            box.activated.connect(self._metric)
        self.stop = QPushButton()
        self.say(self.stop.setText, QT_TR_NOOP("Stop"))
        self.stop.clicked.connect(self.cancelRequested)
        self.progress = QProgressBar()
        self.progress.setMaximumWidth(120)
        for w in (self.clean_label, self.clean, self.corrupted_label, self.corrupted, self.go, self.answer_label,
                  self.answer, self.wrong_label, self.wrong, self.stop, self.progress):
            self.bar.addWidget(w)

    def head_maps(self) -> tuple[str, ...]:
        return ("patch_heads",)

    def _run(self) -> None:
        self.runRequested.emit(self.clean.text(), self.corrupted.text())

    def _metric(self, _index: int) -> None:
        a, b = self.answer.currentData(), self.wrong.currentData()
        if a is not None and b is not None:
            self.metricChosen.emit(int(a), int(b))

    def set_prompts(self, clean: str, corrupted: str) -> None:
        """The two prompts' text in the boxes (the controller's words for the setup shown)."""
        for edit, text in ((self.clean, clean), (self.corrupted, corrupted)):
            if edit.text() != text:
                self.set_quietly(edit, edit.setText, text)
                edit.setCursorPosition(0)                           # the prompt's start in view

    def _fill(self, box: QComboBox, result, tokens, current: int) -> None:
        tokens = tuple(dict.fromkeys(tuple(tokens) + (current,)))
        box.blockSignals(True)
        box.clear()
        for t in tokens:
            box.addItem(_label(result, t), int(t))
        box.setCurrentIndex(tokens.index(current))
        box.blockSignals(False)

    def sync_controls(self, result, sel) -> None:
        extra = self.extra if matches(self.extra, result, sel) else None
        running = extra is None or not (extra.finished or extra.stopped)
        self.stop.setEnabled(running)
        for box in (self.answer, self.wrong):
            box.setEnabled(extra is not None)
        if extra is None:
            self.progress.setRange(0, 0)                            # busy: the two prompts' passes
            return
        self.progress.setRange(0, extra.total)
        self.progress.setValue(extra.done)
        self._fill(self.answer, result, extra.clean_top, extra.run.metric.answer)
        self._fill(self.wrong, result, extra.corrupted_top, extra.run.metric.wrong)


PAGES = (PageKind("patching", Patching, patching_views,
                  QT_TR_NOOP("activation patching: how much of the clean metric each head's z and each position's "
                             "resid_pre restores")),)
