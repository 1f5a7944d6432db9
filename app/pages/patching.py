"""Activation patching: the two prompts and the metric are Selection.patching (an undoable step, kept in
sessions); the run goes off the UI thread, one batch per layer, and each batch's maps reach the page as
it ends (cells fill in). Stop cancels at the next layer; new prompts, a new metric, other weights or
another backend cancel the run before and start their own."""
from __future__ import annotations

import dataclasses
import threading

from PySide6.QtCore import QCoreApplication, Signal

from compute import ConfigError, InterventionError
from compute.instruments.patching import DEFAULT_PROMPTS, PatchSetup, run_setup, swapped_setup
from compute.progress import Cancelled
from widgets.i18n import error_text, tr
from widgets.pages.patching import prompt_text, remember

from . import PageController


class Controller(PageController):
    partial = Signal(object)                 # (key, PatchedRun so far), from the worker thread (queued)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._key = None                     # (weights uid, setup, backend) of the run asked for last
        self._stop = threading.Event()
        self._last = None                    # the latest PatchedRun of that run
        self.partial.connect(self._on_partial)
        app = QCoreApplication.instance()
        if app is not None:                  # a run in flight ends at its next layer: quitting need not wait for it
            app.aboutToQuit.connect(self.cancel)

    def wire(self, page) -> None:
        s = self.state                       # lambdas hold the state, never a QObject that dies first
        page.headClicked.connect(lambda la, h: s.select(layer=la, head=h, station="scores"))
        page.runRequested.connect(self.run_texts)
        page.metricChosen.connect(self.choose_metric)
        page.cancelRequested.connect(self.cancel)

    # -- what is patched --------------------------------------------------------------------------------
    def default_setup(self) -> PatchSetup:
        """France / Italy where the model's tokenizer makes the two prompts equally long, else the
        window's sentence with its middle token swapped."""
        cfg = self.state.inputs.config
        try:
            tok = self.state.tokenizer
            return PatchSetup(*(tuple(tok.encode(text)) for text in DEFAULT_PROMPTS)).check(cfg)
        except Exception:  # noqa: BLE001 - the toy vocabulary has no "France": the window's sentence then
            return swapped_setup(self.state.inputs.tokens, cfg.d_vocab)

    def setup(self) -> PatchSetup:
        return self.state.selection.patching or self.default_setup()

    def run_texts(self, clean: str, corrupted: str) -> bool:
        """Patch these two prompts (the metric picked anew from their predictions)."""
        tok = self.state.tokenizer
        try:
            ids = [tuple(int(t) for t in tok.encode(text)) for text in (clean, corrupted)]
        except Exception as exc:  # noqa: BLE001 - a word the vocabulary lacks: said, nothing changes
            self.state.message.emit("error", tr("Activation patching: {why}").format(why=error_text(exc) or str(exc)))
            return False
        setup = PatchSetup(*ids)
        if setup == self.state.selection.patching:              # the same again (after Stop): run it again
            self._key = None
            self.request()
            return True
        return self.state.set_patching(setup)

    def choose_metric(self, answer: int, wrong: int) -> bool:
        if answer == wrong:
            self.state.message.emit("error", tr("Activation patching needs two different answer tokens."))
            return False
        return self.state.set_patching(dataclasses.replace(self.setup(), answer=int(answer), wrong=int(wrong)))

    def cancel(self) -> None:
        self._stop.set()

    # -- running -------------------------------------------------------------------------------------------
    def request(self) -> None:
        result = self.state.result
        if result is None:
            return
        if self.state.selection.patching is None:
            # The default becomes the selection (no undo step): the figure, the session and the page agree.
            self.state.select(patching=self.default_setup())    # selectionChanged asks again, with it
            return
        setup = self.setup()
        key = (result.weights.uid, setup, result.inputs.backend)
        if key == self._key:
            return
        self._show_prompts(setup)
        self._stop.set()                                        # the run before, if any, ends at its next layer
        self._stop = stop = threading.Event()
        self._key, self._last = key, None
        inputs, weights = result.inputs, result.weights
        try:
            setup.check(inputs.config)
        except (InterventionError, ConfigError) as exc:
            self.state.message.emit("error", tr("Activation patching: {why}").format(why=error_text(exc) or str(exc)))
            return
        self.background.run(("patch", key), lambda: run_setup(
            inputs.config, weights, setup, inputs.backend, on_run=lambda run: self.partial.emit((key, run)),
            cancelled=stop.is_set))

    def _show_prompts(self, setup: PatchSetup) -> None:
        """The setup's prompts in the page's boxes (only when the run changes: never over what is being typed)."""
        result = self.state.result
        if self.page is not None and result is not None:
            self.page.set_prompts(*(prompt_text(result, p) for p in (setup.clean, setup.corrupted)))

    def attach(self, page) -> None:
        super().attach(page)
        if self._key is not None:
            self._show_prompts(self._key[1])

    def _on_partial(self, item) -> None:
        key, run = item
        if key == self._key:
            self._last = run
            self.deliver(run)

    def done(self, tag, value, error) -> None:
        if tag[1] != self._key:
            return                                              # a run that was replaced
        if error is None:
            remember(value, tag[1][2])                          # its figure (export) needs no second run
            self.deliver(value)
            return
        if not isinstance(error, Cancelled):
            self.fail(tr("Activation patching"), error)
        if self._last is not None:
            self.deliver(dataclasses.replace(self._last, stopped=True))
