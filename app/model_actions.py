"""Model menu: trained or random weights, weights files, real models (Hugging Face folders of
GPT-2, Llama, Mistral and Qwen2, GGUF files, the packaged SmolLM2, a download from the hub),
saving, and the Train tab. MainWindow makes one ModelActions; it connects the Model rows of
app/actions.py and the real-model entries of the preset list.

Opening or downloading a model runs off the UI thread (a `ModelJob`) with a progress dialog whose
Cancel stops it at the next tensor or chunk; a model whose weights or one block do not fit is
refused with the estimate before its weights are read (compute.memory); nothing changes until the
model is in memory, then it is one undoable edit.
"""
from __future__ import annotations

import threading
import time
from pathlib import Path

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QFileDialog, QInputDialog, QMessageBox, QProgressDialog

from compute import (
    CheckpointError,
    ConfigError,
    WeightsError,
    checkpoint_config,
    load_checkpoint,
    memory,
    progress,
    real_models,
)
from compute.progress import Cancelled
from widgets.i18n import error_text, message, tr
from widgets.training import TrainPanel

from .background import Background
from .download import REPOS, DownloadError, fetch
from .state import preset_tokens
from .training import Trainer
from .values import model_label, real_model_of

# The sentence a newly opened model starts with: a repeat, so previous-token and induction heads show.
OPEN_TEXT = "the cat sat on the mat. the cat sat on the mat."
OPEN_T = 64                      # tokens the memory check allows for (the sentence is far shorter)
def _is_file(p: Path) -> bool:
    """Path.is_file, False for a path the file system refuses to look at (a name over 255 bytes)."""
    try:
        return p.is_file()
    except (OSError, ValueError):
        return False


def _exists(p: Path) -> bool:
    """Path.exists, True for a path the file system refuses to look at (a name over 255 bytes):
    the loader then says why it cannot be opened."""
    try:
        return p.exists()
    except (OSError, ValueError):
        return True


def model_filter() -> str:
    return tr("GGUF file or a Hugging Face folder's config.json (*.gguf config.json *.safetensors)")


class ModelJob(QObject):
    """One slow model step off the UI thread: `work(report)` runs inside compute.progress.reporting,
    so compute's loaders and the download report stages; `cancel()` makes the next report raise
    Cancelled. `progress(stage, fraction)` at most every 50 ms, then `done(value, error)`."""

    progress = Signal(str, float)
    done = Signal(object, object)

    def __init__(self, work, parent=None):
        super().__init__(parent)
        self._work = work
        self._cancel = threading.Event()
        self._last = 0.0

    def cancel(self) -> None:
        self._cancel.set()

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    def _report(self, stage: str, fraction: float) -> None:
        if self._cancel.is_set():
            raise Cancelled()
        now = time.monotonic()
        if now - self._last >= 0.05 or fraction >= 1.0:
            self._last = now
            self.progress.emit(stage, fraction)

    def run_here(self):
        """Run on this thread: (value, error)."""
        try:
            with progress.reporting(self._report):
                return self._work(self._report), None
        except Exception as exc:  # noqa: BLE001 - shown to the user as a message
            return None, exc
        except BaseException as exc:  # a Rust panic in a library (pyo3's PanicException): a message too
            if type(exc).__name__ != "PanicException":
                raise
            return None, exc

    def start(self) -> None:
        """Run on the one background worker (app/background.py); `done` arrives on the UI thread."""
        worker = Background(self)
        worker.done.connect(self._finished)
        worker.run(("model",), self.run_here)

    def _finished(self, _tag, outcome, error) -> None:
        value, error = outcome if error is None else (None, error)
        if self._cancel.is_set() and error is None:
            error = Cancelled()                       # cancelled after its last report: still cancelled
        self.done.emit(value, error)


def not_found(source: str) -> str:
    """A --model that names nothing here: a file (.gguf) or a folder as it says, and the packaged
    model it was probably meant to be."""
    import difflib

    close = difflib.get_close_matches(source.lower(), list(real_models.MODELS), n=1, cutoff=0.6)
    if close:
        return tr("{source!r}: no such file or folder. Did you mean {key} ({title}, packaged with the lab)?").format(
            source=source, key=close[0], title=tr(real_models.MODELS[close[0]].title))
    if source.lower().endswith(".gguf"):
        return tr("{source!r}: no such GGUF file").format(source=source)
    text = tr("{source!r}: no such model folder or file (a Hugging Face folder, a .gguf file, or one of: {keys})")
    return text.format(source=source, keys=", ".join(real_models.MODELS))


def _open(source: str, key: str | None = None):
    """The work of opening a model: its config first, refused with the memory estimate if the
    weights or one block do not fit, then the weights; (Checkpoint, token ids of OPEN_TEXT)."""
    # A packaged model in chunks is joined into the lab's cache first (progress, Cancel).
    path = real_models.MODELS[key].prepare() if key is not None else Path(source).expanduser()
    cfg = checkpoint_config(path)
    try:
        memory.check(cfg, min(cfg.n_ctx, OPEN_T), include_weights=True)
    except ConfigError as exc:
        raise CheckpointError(tr("not opened, too large for this machine: {why}").format(why=error_text(exc)),
                              path) from None
    loaded = real_models.load(key) if key is not None else load_checkpoint(path)
    try:
        ids = loaded.tokenizer.encode(OPEN_TEXT)[: loaded.cfg.n_ctx]
    except Exception:  # noqa: BLE001 - a tokenizer that cannot encode plain text: start from id 0
        ids = []
    return loaded, tuple(ids) or (0,)


class ModelActions(QObject):
    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.state = window.state
        self.trainer = Trainer(self.state, self)
        self.panel = TrainPanel()
        window.tabs.addTab(self.panel, tr("Train"))
        self.background = Background(self)
        self.background.done.connect(self._loaded)
        p = self.panel
        p.startRequested.connect(self._start)
        p.pauseToggled.connect(self.trainer.pause)
        p.stopRequested.connect(self.trainer.stop)
        p.saveRequested.connect(lambda: self.save_weights())
        self.trainer.snapshot.connect(self._progress)
        self.trainer.finished.connect(lambda result, error: p.set_running(False))
        window.controls.configChanged.connect(self.on_config_changed)
        window.ask_shape_change = self.ask_shape_change
        a = window.actions
        a.connect("use_trained", lambda: self.state.set_weights("trained", tr("Use trained weights")))
        a.connect("use_random", lambda: self.state.set_seed(self.state.inputs.seed))
        a.connect("open_weights", lambda: self.open_weights())
        a.connect("open_checkpoint", lambda: self.open_model())
        a.connect("download", lambda: self.download())
        a.connect("save_weights", lambda: self.save_weights())
        a.connect("train", self._show_train)
        window.controls.weightsChosen.connect(self._weights_chosen)
        window.controls.realModelChosen.connect(self.open_real_model)
        self._set_real_models()
        self.job: ModelJob | None = None
        self._what = ""
        self.dialog: QProgressDialog | None = None
        self._theme = None
        self.state.selectionChanged.connect(self._theme_changed)

    def _set_real_models(self) -> None:
        """The real models in the preset list: their titles, or the command that installs one."""
        self.window.controls.set_real_models([
            (m.key, tr(m.title) if m.available else tr("{title} — install: {command}").format(
                title=tr(m.title), command=m.install_command), message(m.status_message()),
             str(m.path.resolve()) if m.available else "") for m in real_models.entries()])

    def retranslate(self) -> None:
        self._set_real_models()

    def _theme_changed(self, sel) -> None:
        theme = getattr(sel, "theme", "light")
        if theme != self._theme:
            from widgets.theme import DARK, LIGHT

            self._theme = theme
            self.panel.apply_palette(DARK if theme == "dark" else LIGHT)

    def _weights_chosen(self, source: str) -> None:
        if source == "trained":
            self.state.set_weights("trained", tr("Use trained weights"))
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
            self.panel.set_status(lambda: tr("starting… (loading torch)"))
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
            path, _ = QFileDialog.getSaveFileName(self.window, tr("Save weights"), "weights.safetensors",
                                                  "safetensors (*.safetensors)")
            if not path:
                return False
        try:
            saved = result.weights.save(path)
        except OSError as exc:
            self.state.message.emit("error", tr("Could not save the weights to {path}: {why}").format(
                path=repr(path), why=exc.strerror or exc))
            return False
        self.state.message.emit("info", tr("Saved the weights to {path} ({size}).").format(
            path=saved, size=message(memory.bytes_message(saved.stat().st_size))))
        return True

    def open_weights(self, path: str | None = None) -> None:
        """Load a .safetensors file; its stored config becomes the config (one undo step)."""
        if path is None:
            path, _ = QFileDialog.getOpenFileName(self.window, tr("Open weights"), "", "safetensors (*.safetensors)")
            if not path:
                return
        from compute import Weights

        self.background.run(("weights", path), lambda: Weights.load(path))

    def open_checkpoint(self, folder: str | None = None) -> None:
        """A Hugging Face folder or a GGUF file (the older menu entry's name)."""
        self.open_model(folder)

    # -- real models: folders, GGUF files, the packaged SmolLM2, downloads ------------------------------
    def open_model(self, path: str | None = None) -> bool:
        """Open a Hugging Face folder (gpt2, llama, mistral, qwen2) or a GGUF file, off the UI thread.
        The dialog takes a .gguf file, or a folder's config.json (or a .safetensors in it)."""
        if path is None:
            path, _ = QFileDialog.getOpenFileName(self.window, tr("Open model folder or GGUF file"), "", model_filter())
            if not path:
                return False
        p = Path(path).expanduser()
        if _is_file(p) and p.suffix.lower() != ".gguf":
            p = p.parent                                   # config.json or weights: their folder
        real = real_model_of(str(p.resolve()))            # the packaged file, chosen by hand
        title, preset = (real.title, real.preset) if real is not None else (p.name, "custom")
        return self._run_job(tr("Opening {what}").format(what=tr(title)), lambda report: _open(str(p)),
                           lambda value: self._opened(value, str(p), title, preset))

    def open_real_model(self, key: str) -> bool:
        """The packaged real model (SmolLM2-135M), in one click; when it is not installed, the
        command that installs it."""
        model = real_models.MODELS[key]
        if not model.available:
            self.state.message.emit("error", message(model.status_message()))
            self.window._on_inputs(self.state.inputs)      # the preset list shows what is in use again
            return False
        return self._run_job(tr("Opening {what}").format(what=tr(model.title)),
                             lambda report: _open(str(model.path), key),
                             lambda value: self._opened(value, str(model.path), model.title, model.preset))

    def open_now(self, source: str) -> bool:
        """Open a model on this thread (the command line's --model, before the window is shown): a
        compute.loaders.real_models key or a path. False, with a message, if it cannot be opened."""
        key = source if source in real_models.MODELS else None
        model = real_models.MODELS[key] if key else None
        if model is not None and not model.available:
            self.state.message.emit("error", message(model.status_message()))
            return False
        p = model.path if model is not None else Path(source).expanduser()
        if model is None and not _exists(p):
            self.state.message.emit("error", not_found(source))
            return False
        if _is_file(p) and p.suffix.lower() != ".gguf" and model is None:
            p = p.parent
        value, error = ModelJob(lambda report: _open(str(p), key)).run_here()
        if error is not None:
            self._failed(p.name, error)
            return False
        return self._opened(value, str(p), model.title if model else p.name, model.preset if model else "custom")

    def download(self, repo: str | None = None, endpoint: str | None = None, cache_dir=None) -> bool:
        """Model ▸ Download…: fetch a repo's safetensors, config and tokenizer from the Hugging Face
        hub into its cache (progress, Cancel), then open it. Offline, the message says so."""
        if repo is None:
            items = [f"{r} — {tr(what)}" for r, what in REPOS.items()]
            choice, ok = QInputDialog.getItem(self.window, tr("Download a model"),
                                              tr("From the Hugging Face hub (safetensors only):"), items, 0, False)
            if not ok:
                return False
            repo = choice.split(" — ")[0]

        def opened(folder) -> None:
            self._run_job(tr("Opening {what}").format(what=repo), lambda report: _open(str(folder)),
                        lambda value: self._opened(value, str(folder), repo, "custom"))

        return self._run_job(tr("Downloading {what}").format(what=repo),
                           lambda report: fetch(repo, report, endpoint=endpoint, cache_dir=cache_dir), opened)

    def cancel(self) -> None:
        """Stop the open or download in progress (its dialog's Cancel)."""
        if self.job is not None:
            self._cancel_job(self.job, self._what)

    def _cancel_job(self, job: ModelJob, what: str) -> None:
        """Cancel: the job stops at its next report, and the window is free at once — a job that
        does not stop soon (a stalled read) is abandoned, and whatever it ends with is dropped."""
        job.cancel()
        if self.job is job:
            self.job = None
            self._close_dialog()
            self._failed(what, Cancelled())

    @property
    def busy(self) -> bool:
        return self.job is not None

    def _run_job(self, what: str, work, then) -> bool:
        if self.job is not None:
            self.state.message.emit("info", tr("A model is being opened: wait for it, or cancel it first."))
            return False
        job = self.job = ModelJob(work, self)
        self._what = what
        dialog = self.dialog = QProgressDialog(f"{what}…", tr("Cancel"), 0, 1000, self.window)
        dialog.setWindowTitle("QKV Lab")
        dialog.setWindowModality(Qt.WindowModality.WindowModal)
        dialog.setMinimumDuration(300)                    # a quick open never flashes a dialog
        dialog.setAutoClose(False)
        dialog.setAutoReset(False)
        dialog.canceled.connect(lambda: self._cancel_job(job, what))
        dialog.rejected.connect(lambda: self._cancel_job(job, what))      # Esc
        job.progress.connect(lambda stage, fraction: self._progress_shown(stage, fraction, what)
                             if self.job is job else None)
        job.done.connect(lambda value, error: self._job_done(job, what, value, error, then))
        self.state.message.emit("info", f"{what}…")
        job.start()
        return True

    def _progress_shown(self, stage: str, fraction: float, what: str) -> None:
        if self.dialog is not None:
            self.dialog.setLabelText(f"{what}: {tr(stage)}…")
            self.dialog.setValue(int(fraction * 1000))

    def _close_dialog(self) -> None:
        dialog, self.dialog = self.dialog, None
        if dialog is not None:
            dialog.canceled.disconnect()
            dialog.rejected.disconnect()
            dialog.close()
            dialog.deleteLater()

    def _job_done(self, job: ModelJob, what: str, value, error, then) -> None:
        if self.job is not job:
            return                                        # cancelled and abandoned: the window moved on
        self.job = None
        self._close_dialog()
        if error is not None:
            self._failed(what, error)
            return
        then(value)

    def _failed(self, what: str, error) -> None:
        if isinstance(error, Cancelled):
            self.state.message.emit("info", tr("{what} cancelled: the model on screen stays.").format(what=what))
        elif isinstance(error, (WeightsError, CheckpointError, DownloadError, ConfigError, ValueError, OSError,
                                MemoryError)):
            self.state.message.emit("error", error_text(error) or tr("{what}: not enough memory").format(what=what))
        else:
            self.state.message.emit("error", tr("{what} failed: {why}").format(
                what=what, why=f"{type(error).__name__}: {error}"))

    def _opened(self, value, source: str, title: str, preset: str) -> bool:
        """A model in memory: its weights under its path, with its tokenizer, as one undoable edit."""
        loaded, ids = value
        cfg, weights, tokenizer = loaded
        s = self.state
        path = str(Path(source).expanduser().resolve())
        label = model_label(title, loaded)
        s.register_weights(weights, tokenizer, label=label, name=path)
        ok = s.edit(tr("Open model {title}").format(title=tr(title)), config=cfg, tokens=tuple(ids), weights=path,
                    preset=preset)
        s.prune_registry()
        if ok:
            s.select(query=len(ids) - 1, key=None, hover=None, trace=None)
            notes = " ".join(getattr(loaded.info, "notes", ()))
            heads = (tr("%n head(s) sharing {kv} K/V heads", "", cfg.n_heads).format(kv=cfg.n_kv_heads)
                     if cfg.n_kv_heads < cfg.n_heads else tr("%n head(s)", "", cfg.n_heads))
            s.message.emit("info", (tr("Opened {label}: %n layer(s), {heads}, d_model {d_model}. Type text to tokenize "
                                       "it with the model's own tokenizer.", "", cfg.n_layers).format(
                label=label, heads=heads, d_model=cfg.d_model) + f" {notes}").strip())
        return ok

    def _loaded(self, tag, value, error) -> None:
        kind, where = tag
        if error is not None:
            if isinstance(error, (WeightsError, CheckpointError, ValueError, OSError, MemoryError)):
                self.state.message.emit("error", error_text(error))
            else:
                self.state.message.emit("error", tr("Could not open {where}: {why}").format(
                    where=where, why=f"{type(error).__name__}: {error}"))
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
            s.edit(tr("Open weights {name}").format(name=Path(where).name), config=cfg, tokens=tuple(tokens),
                   weights=path, preset="custom")
            s.prune_registry()                          # a refused edit keeps nothing in memory
            return

    def on_config_changed(self, field: str, value, drag: bool) -> None:
        """A size changed in the controls. On a loaded model new shapes would throw its weights
        away: ask first, and offer the what-ifs that keep the model."""
        s = self.state
        try:
            cfg = s.inputs.config.replace(**{field: value})
        except ConfigError:
            cfg = None                                    # set_config says why
        if cfg is not None and not cfg.same_shapes(s.inputs.config) and s.inputs.weights not in ("random", "trained"):
            # the window's attribute: a test answers for the user
            choice = self.window.ask_shape_change(field, getattr(s.inputs.config, field), value)
            if choice != "random":
                s.inputsChanged.emit(s.inputs)            # the controls go back to the model's sizes
                if choice == "ab":
                    s.select(ab=("d_head_x4", None), station="ab")
                elif choice == "sqrt_dk":
                    s.select(station="sqrt_dk")
                return
        s.set_config(merge=drag, **{field: value})

    def ask_shape_change(self, field: str, old, new) -> str:
        """'random' (new weights of the new shape), 'ab' or 'sqrt_dk' (keep the model, open that
        what-if), or 'cancel'."""
        box = QMessageBox(QMessageBox.Icon.Question, tr("Change the model's shape?"),
                          tr("{model} has {field} = {old}. With {field} = {new} its trained weights no longer "
                             "fit: the lab would draw random weights of the new shape from seed {seed} (the words "
                             "stay).").format(model=self.state.weights_label(), field=field, old=old, new=new,
                                              seed=self.state.inputs.seed), parent=self.window)
        choices = {box.addButton(tr("Use random weights"), QMessageBox.ButtonRole.AcceptRole): "random"}
        if field == "d_head":
            choices[box.addButton(tr("Keep the model: A/B d_head × 4"), QMessageBox.ButtonRole.ActionRole)] = "ab"
            choices[box.addButton(tr("Keep the model: the √d_k lab"), QMessageBox.ButtonRole.ActionRole)] = "sqrt_dk"
        box.setDefaultButton(box.addButton(QMessageBox.StandardButton.Cancel))
        box.exec()
        return choices.get(box.clickedButton(), "cancel")
