"""Model menu: trained or random weights, weights files, GPT-2 checkpoint folders, saving, and
the Train tab. MainWindow makes one ModelActions; it connects the Model rows of app/actions.py."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QFileDialog

from compute import CheckpointError, WeightsError, load_checkpoint, memory
from widgets.training import TrainPanel

from .instruments import Background
from .state import preset_tokens
from .training import Trainer


class ModelActions(QObject):
    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.state = window.state
        self.trainer = Trainer(self.state, self)
        self.panel = TrainPanel()
        window.tabs.addTab(self.panel, "Train")
        self.background = Background(self)
        self.background.done.connect(self._loaded)
        p = self.panel
        p.startRequested.connect(self._start)
        p.pauseToggled.connect(self.trainer.pause)
        p.stopRequested.connect(self.trainer.stop)
        p.saveRequested.connect(lambda: self.save_weights())
        self.trainer.snapshot.connect(self._progress)
        self.trainer.finished.connect(lambda result, error: p.set_running(False))
        a = window.actions
        a.connect("use_trained", lambda: self.state.set_weights("trained", "Use trained weights"))
        a.connect("use_random", lambda: self.state.set_seed(self.state.inputs.seed))
        a.connect("open_weights", lambda: self.open_weights())
        a.connect("open_checkpoint", lambda: self.open_checkpoint())
        a.connect("save_weights", lambda: self.save_weights())
        a.connect("train", self._show_train)
        window.controls.weightsChosen.connect(self._weights_chosen)
        self._theme = None
        self.state.selectionChanged.connect(self._theme_changed)

    def _theme_changed(self, sel) -> None:
        theme = getattr(sel, "theme", "light")
        if theme != self._theme:
            from widgets.theme import DARK, LIGHT

            self._theme = theme
            self.panel.apply_palette(DARK if theme == "dark" else LIGHT)

    def _weights_chosen(self, source: str) -> None:
        if source == "trained":
            self.state.set_weights("trained", "Use trained weights")
        elif source == "random":
            self.state.set_seed(self.state.inputs.seed)

    # -- training ------------------------------------------------------------------------------------
    def _show_train(self) -> None:
        self.window.docks["notes"].show()
        self.window.tabs.setCurrentWidget(self.panel)

    def _start(self, seed: int, steps: int, every: int) -> None:
        if self.trainer.start(seed, steps, every):
            self.panel.reset_curve()
            self.panel.set_running(True)
            self.panel.set_status("starting… (loading torch)")
            self._total = steps

    def _progress(self, step: int, loss: float, weights) -> None:
        import time

        self.panel.add_point(step, loss, getattr(self, "_total", step), time.perf_counter() - self.trainer._t0)

    # -- files -----------------------------------------------------------------------------------------
    def save_weights(self, path: str | None = None) -> bool:
        result = self.state.result
        if result is None:
            return False
        if path is None:
            path, _ = QFileDialog.getSaveFileName(self.window, "Save weights", "weights.safetensors",
                                                  "safetensors (*.safetensors)")
            if not path:
                return False
        try:
            saved = result.weights.save(path)
        except OSError as exc:
            self.state.message.emit("error", f"Could not save the weights to {path!r}: {exc.strerror or exc}")
            return False
        self.state.message.emit("info", f"Saved the weights to {saved} ({memory.fmt_bytes(saved.stat().st_size)}).")
        return True

    def open_weights(self, path: str | None = None) -> None:
        """Load a .safetensors file; its stored config becomes the config (one undo step)."""
        if path is None:
            path, _ = QFileDialog.getOpenFileName(self.window, "Open weights", "", "safetensors (*.safetensors)")
            if not path:
                return
        from compute import Weights

        self.background.run(("weights", path), lambda: Weights.load(path))

    def open_checkpoint(self, folder: str | None = None) -> None:
        """Open a Hugging Face GPT-2 folder (config.json, model.safetensors, tokenizer files)."""
        if folder is None:
            folder = QFileDialog.getExistingDirectory(self.window, "Open a GPT-2 checkpoint folder")
            if not folder:
                return
        self.state.message.emit("info", f"Loading {folder} …")
        self.background.run(("checkpoint", folder), lambda: load_checkpoint(folder))

    def _loaded(self, tag, value, error) -> None:
        kind, where = tag
        if error is not None:
            if isinstance(error, (WeightsError, CheckpointError, ValueError, OSError, MemoryError)):
                self.state.message.emit("error", str(error))
            else:
                self.state.message.emit("error", f"Could not open {where}: {type(error).__name__}: {error}")
            return                                                   # nothing changed
        s = self.state
        # The weights are named by their path (so sessions can point at the file or folder again)
        # and kept in memory under it, with a checkpoint's tokenizer.
        path = str(Path(where).expanduser().resolve())
        if kind == "weights":
            weights = value
            cfg = weights.cfg
            s.register_weights(weights, label=Path(where).name, name=path)
            fits = len(s.inputs.tokens) <= cfg.n_ctx and max(s.inputs.tokens, default=0) < cfg.d_vocab
            tokens = s.inputs.tokens if fits else tuple(t % cfg.d_vocab for t in preset_tokens("toy"))[: cfg.n_ctx]
            s.edit(f"Open weights {Path(where).name}", config=cfg, tokens=tuple(tokens), weights=path, preset="custom")
            s.prune_registry()                          # a refused edit keeps nothing in memory
            return
        cfg, weights, tokenizer = value
        s.register_weights(weights, tokenizer, label=Path(where).name, name=path)
        try:
            ids = tokenizer.encode("the cat sat on the mat . the cat sat on the mat .")[: cfg.n_ctx]
        except Exception:  # noqa: BLE001 - a tokenizer that cannot encode plain text: start from id 0
            ids = [0]
        ok = s.edit(f"Open model {Path(where).name}", config=cfg, tokens=tuple(ids), weights=path, preset="custom")
        s.prune_registry()
        if ok:
            s.message.emit("info", f"Opened {Path(where).name}: {cfg.describe()}. Type text to tokenize it "
                                   "with the model's own tokenizer.")

