"""Training in the app: compute.instruments.training.train_toy off the UI thread (app/background.py), its
snapshots shown live.

Each snapshot becomes the weights in use without an undo step (a preview), so the audience
watches the pattern form; when the run ends, the whole run is one undo step from the weights
before training to the final ones, which stay available (and can be saved) for the session.
"""
from __future__ import annotations

import dataclasses
import threading
import time

from PySide6.QtCore import QObject, Signal

from compute import PRESETS
from widgets.i18n import num, tr

from .background import Background


class Trainer(QObject):
    snapshot = Signal(int, float, object)       # step, loss, Weights (queued to the UI thread)
    finished = Signal(object, object)           # TrainResult or None, error text or None
    started = Signal(int)                       # total steps

    def __init__(self, state, parent: QObject | None = None):
        super().__init__(parent)
        self.state = state
        self.control = None
        self._thread: threading.Thread | None = None
        self._before = None                      # Inputs before the run (the undo target)
        self._total = 0
        self._t0 = 0.0
        self._latest = None
        self._live_name: str | None = None
        self.background = Background(self)          # the run, off the UI thread (app/background.py)
        self.background.progress.connect(lambda _tag, snap: self.snapshot.emit(*snap))
        self.background.done.connect(self._on_done)
        self.snapshot.connect(self._on_snapshot)
        self.finished.connect(self._on_finished)

    @property
    def running(self) -> bool:
        # True until the UI thread has handled `finished` (not just until the worker exits), so
        # nothing sees "not running" while the run's undo step is still on its way.
        return self._thread is not None

    def start(self, seed: int, steps: int, every: int) -> bool:
        from compute.instruments.training import TrainControl, train_toy  # torch loads only when training

        if self.running:
            return False
        cfg = self.state.inputs.config
        if not cfg.same_shapes(PRESETS["toy"]) or not cfg.causal:
            self.state.message.emit("error", tr("Training runs on the toy model's sizes with the causal mask (load "
                                                "the toy preset first)."))
            return False
        self._before = self.state.inputs
        self.control = TrainControl()
        self._total, self._t0 = steps, time.perf_counter()
        control, report = self.control, self.background.report
        self.state.lock(tr("Training is running: pause or stop it before editing (the views follow the weights as "
                           "they train)."))
        self._thread = self.background.run(("train",), lambda: train_toy(
            seed=seed, steps=steps, cfg=cfg, every=every, control=control,
            callback=lambda step, loss, w: report(("train",), (step, loss, w))))
        self.started.emit(steps)
        return True

    def shutdown(self, timeout: float = 30.0) -> bool:
        """Stop a run and wait for its thread (before the app exits, beside app.background.wait_for_background)."""
        thread = self._thread
        if thread is None:
            return True
        self.stop()
        if self.control is not None:
            self.control.resume()                  # a paused run must wake up to see the stop
        thread.join(timeout)
        return not thread.is_alive()

    def pause(self, on: bool) -> None:
        if self.control is not None:
            (self.control.pause if on else self.control.resume)()

    def stop(self) -> None:
        if self.control is not None:
            self.control.stop()

    def _on_done(self, _tag, result, error) -> None:
        # The panel must hear about any end: an error in words (a ValueError says it all).
        text = None if error is None else str(error) if isinstance(error, ValueError) else \
            f"{type(error).__name__}: {error}"
        self.finished.emit(None if error is not None else result, text)

    def _on_snapshot(self, step: int, loss: float, weights) -> None:
        self._latest = (step, loss)
        name = self.state.register_weights(weights, label=tr("training, step {step}").format(step=step))
        self.state.preview(weights=name)
        if self._live_name is not None:
            self.state.registry.pop(self._live_name, None)   # previews are not in the undo history
        self._live_name = name

    def _on_finished(self, result, error) -> None:
        before = self._before
        self._thread = None
        self._live_name = None
        self.state.lock(None)
        if error is not None or result is None or not result.record.get("steps_done"):
            # Nothing trained (an error, or stopped before the first step): back to the weights before.
            if before is not None and self.state.inputs != before:
                self.state.preview(weights=before.weights, seed=before.seed)
            self.state.prune_registry()
            self.state.message.emit("error" if error else "info",
                                    tr("Training stopped: {why}").format(why=error) if error
                                    else tr("Training stopped before its first step."))
            return
        rec = result.record
        name = self.state.register_weights(
            result.weights, label=tr("trained here: seed {seed}, %n step(s)", "", rec["steps_done"]).format(
                seed=rec["seed"]))
        new = dataclasses.replace(before, weights=name)
        self.state.push_inputs(before, new, tr("Train %n step(s) (seed {seed})", "", rec["steps_done"]).format(
            seed=rec["seed"]))
        loss = rec.get("final_loss")
        done = (tr("Training stopped after %n step(s) in {seconds} s", "", rec["steps_done"]) if rec["stopped"]
                else tr("Training finished after %n step(s) in {seconds} s", "", rec["steps_done"]))
        self.state.message.emit("info", done.format(seconds=f"{rec['wall_s']:.0f}")
                                + (tr("; final loss {loss}").format(loss=num(loss, ".3f")) if loss is not None else "")
                                + tr(". Undo returns to the weights before."))
