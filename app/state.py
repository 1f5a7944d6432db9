"""LabState: the single source of truth. Views read it; every edit goes through it.

Inputs (config, tokens, seed, weights, backend) change only by undoable commands that replace a
frozen `Inputs`; each change is validated first (an impossible value is refused with a message
and nothing changes), then handed to the runner. Results come back as one immutable `LabResult`.
Pure view state (layer, head, query, key, hover, station, colour lock) is a frozen `Selection`
with its own signal; it never triggers a recompute.
"""
from __future__ import annotations

import dataclasses
import weakref
import zlib
from contextlib import nullcontext
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoCommand, QUndoStack

from compute import PRESETS, ConfigError, InterventionError, memory
from compute.backends import nvidia_gpu_present
from compute.forward import check_budget, resolve_backend
from compute.stations import EARLY_STATIONS, INSTRUMENT_PAGES, PAGES, STATIONS
from compute.tokenizer import VocabularyError
from widgets.i18n import error_text, num, tr
from widgets.i18n import message as in_language

from .runner import Runner
from .values import (
    SEED_MAX,
    Inputs,
    LabResult,
    Selection,
    WeightsEntry,
    preset_config,
    preset_tokens,
    preset_weights,
    tokenizer_for,
)

# Re-exported: sessions, the CLI and tools read these names from here.
__all__ = ["INSTRUMENT_PAGES", "PAGES", "SEED_MAX", "STATIONS", "Inputs", "LabResult", "LabState", "Selection",
           "preset_config", "preset_tokens", "preset_weights"]

# The stations that draw score maps (widgets/views.py), and which: a Trace makes these from q and k
# when first read, ~30 ms for 12 heads at T=1024; the runner makes them before the UI draws.
SCORE_MAPS: dict[str, tuple[str, ...]] = {
    "scores": ("attn_scores_raw", "attn_scores_scaled", "attn_scores_capped", "attn_scores", "pattern"),
    "softmax": ("attn_scores", "pattern"),
}
# Stations that show the next token after the query (from its row of logits).
PREDICTING = ("mlp",)


class _InputsCommand(QUndoCommand):
    """Replace Inputs; consecutive commands with the same merge key (a slider drag) merge.

    A command holds its LabState weakly, and so does the stack: the state owns the stack, which owns
    the commands, and a strong reference back would make a cycle that only the garbage collector
    frees, on whatever thread it runs, tearing Qt objects down in an order Qt does not expect (a
    segfault, tests/app/test_state.py)."""

    def __init__(self, state: LabState, old: Inputs, new: Inputs, text: str, merge_key: str | None = None):
        super().__init__(text)
        self._state, self._old, self._new = weakref.ref(state), old, new
        # Qt merges commands of one id: the same key gives the same id, with no table that grows
        self._merge_id = -1 if merge_key is None else zlib.crc32(merge_key.encode()) & 0x7FFFFFFF

    def id(self) -> int:  # noqa: A003 - Qt's name
        return self._merge_id

    def mergeWith(self, other: QUndoCommand) -> bool:  # noqa: N802 - Qt's name
        if not isinstance(other, _InputsCommand) or other._merge_id != self._merge_id:
            return False
        self._new = other._new
        self.setText(other.text())
        self.setObsolete(self._new == self._old)        # dragged back to the start: no step at all
        return True

    def redo(self) -> None:
        if (state := self._state()) is not None:
            state._apply(self._new)

    def undo(self) -> None:
        if (state := self._state()) is not None:
            state._apply(self._old)


class _PatchingCommand(QUndoCommand):
    """Choose an activation-patching run (Selection.patching): view state, but an undoable step."""

    def __init__(self, state: LabState, old, new, text: str):
        super().__init__(text)
        self._state, self._old, self._new = state, old, new

    def redo(self) -> None:
        self._state.select(patching=self._new)

    def undo(self) -> None:
        self._state.select(patching=self._old)


class _UndoStack(QUndoStack):
    """The undo stack, whose operations hold the runner's results until the stack has its new
    index (`Runner.held`): a failed step is then rolled back to the step on screen, one step,
    whichever runner computes (the threaded one delivers after the operation by nature)."""

    def __init__(self, state: LabState):
        super().__init__(state)
        self._owner = weakref.ref(state)            # weakly: see _InputsCommand

    def _hold(self):
        # A runner without `held` (a test's own double) delivers as it likes.
        state = self._owner()
        return getattr(state.runner, "held", nullcontext)() if state is not None else nullcontext()

    def push(self, cmd: QUndoCommand) -> None:
        with self._hold():
            super().push(cmd)

    def undo(self) -> None:
        with self._hold():
            super().undo()

    def redo(self) -> None:
        with self._hold():
            super().redo()

    def setIndex(self, idx: int) -> None:  # noqa: N802 - Qt's name
        with self._hold():
            super().setIndex(idx)


class LabState(QObject):
    inputsChanged = Signal(object)        # Inputs
    resultChanged = Signal(object)        # LabResult
    partialResult = Signal(object)        # LabResult of the newest request, trace.complete False
    selectionChanged = Signal(object)     # Selection
    busyChanged = Signal(bool)
    progressChanged = Signal(str, float)  # stage, fraction
    message = Signal(str, str)            # level ("info" | "warning" | "error"), text
    messageWithdrawn = Signal(str)        # the text of an earlier message that no longer holds
    computeFailed = Signal(str)           # the newest inputs could not be computed (after the revert)
    lockChanged = Signal(bool)            # edits refused (training runs) or accepted again

    def __init__(self, runner=None, parent: QObject | None = None):
        super().__init__(parent)
        from compute.backends.blas import keep_blas_single_threaded

        keep_blas_single_threaded()                   # views' own products must not wake BLAS's pool
        self.undo_stack = _UndoStack(self)
        self._inputs = Inputs(config=preset_config("toy"), tokens=preset_tokens("toy"),
                              weights=preset_weights("toy"))
        self._custom = 0
        self._selection = Selection(query=len(self._inputs.tokens) - 1)   # the last token sees them all
        self._result: LabResult | None = None
        self._latest_request = 0
        self._cancelled_request: int | None = None   # a request cancelled by the user (see cancel)
        self._busy = False
        self.early_results = False                # set_early_results: a window draws partialResult
        self.incremental = True                   # requests reuse the rows of the result on screen
        self._shown_index = 0            # undo-stack index whose inputs the views show
        self._locked: str | None = None  # why edits are refused right now (e.g. training runs)
        self._text_error: str | None = None  # the message of the last sentence that could not be used
        self.runner = runner if runner is not None else Runner(self)
        self.registry = self.runner.registry       # in-memory weights by name, shared with the runner
        self.runner.finished.connect(self._on_finished)
        self.runner.partial.connect(self._on_partial)
        self.runner.failed.connect(self._on_failed)
        self.runner.progress.connect(self._on_progress)

    # -- reading ---------------------------------------------------------------------------------
    @property
    def inputs(self) -> Inputs:
        return self._inputs

    @property
    def selection(self) -> Selection:
        return self._selection

    @property
    def result(self) -> LabResult | None:
        return self._result

    @property
    def busy(self) -> bool:
        return self._busy

    @property
    def tokenizer(self):
        """The tokenizer of the weights in use (a checkpoint's own), else the toy vocabulary."""
        return tokenizer_for(self._inputs.words_from(), self.registry)

    def weights_label(self, inputs: Inputs | None = None) -> str:
        inputs = inputs or self._inputs
        source = inputs.weights
        if source == "random":
            return tr("random (seed {seed})").format(seed=inputs.seed)
        if source == "trained":
            return tr("trained on the repeat task")
        entry = self.registry.get(source)
        return in_language(entry.label) if entry is not None and entry.label else source

    def labels(self, tokens=None) -> tuple[str, ...]:
        return tuple(self.tokenizer.labels(self._inputs.tokens if tokens is None else tokens))

    def memory_estimate(self) -> memory.MemoryEstimate:
        """What the pass of the current inputs needs where it runs: the cpu backend keeps a long pass
        checkpointed (compute.memory.checkpointed), so its estimate is that one (no backend is loaded to ask)."""
        backend = self._inputs.backend
        on_cpu = backend == "cpu" or (backend == "auto" and not nvidia_gpu_present())
        return memory.estimate(self._inputs.config, len(self._inputs.tokens), checkpoints=on_cpu)

    def set_early_results(self, on: bool) -> None:
        """Ask the runner for early results (a layer's attention before the rest of the pass):
        only a window that draws `partialResult` and tells the runner when it has painted them
        (app/early.py) turns this on; without one the worker would wait for a paint in vain."""
        self.early_results = on

    # -- starting --------------------------------------------------------------------------------
    def start(self) -> None:
        """Compute the initial inputs (no undo entry)."""
        self._request()

    # -- undoable edits ----------------------------------------------------------------------------
    def edit(self, text: str, merge_key: str | None = None, **changes: Any) -> bool:
        """Replace fields of Inputs as one undoable step; False (with a message) if refused."""
        if "vocabulary" not in changes and ("weights" in changes or (
                "config" in changes and changes["config"].d_vocab != self._inputs.config.d_vocab)):
            changes["vocabulary"] = ""                  # other weights or another vocabulary: their own words
        try:
            new = dataclasses.replace(self._inputs, **changes)
        except (TypeError, ConfigError) as exc:
            self.message.emit("error", error_text(exc))
            return False
        if new == self._inputs:
            return True
        problem = self._check(new)
        if problem:
            self.message.emit("error", problem)
            self.inputsChanged.emit(self._inputs)      # controls snap back to the last good values
            return False
        self.undo_stack.push(_InputsCommand(self, self._inputs, new, text, merge_key))
        self.prune_registry()
        return True

    def _check(self, new: Inputs) -> str | None:
        if self._locked:
            return self._locked
        if not new.tokens:
            return tr("The sequence needs at least one token: type a word or add one with +.")
        if not 0 <= new.seed <= SEED_MAX:
            return tr("The weight seed must be a whole number from 0 to {max} (it was {seed}).").format(
                max=num(SEED_MAX, ","), seed=num(new.seed, ","))
        try:
            new.config.validate_tokens(new.tokens)
            check_budget(resolve_backend(new.backend)[0], new.config, len(new.tokens),
                         include_weights=new.weights_key() != self._inputs.weights_key())   # a GPU's, or the host's
        except ConfigError as exc:
            return error_text(exc)
        return None

    def _apply(self, inputs: Inputs) -> None:
        if self._selection.patching is not None and inputs.words_from() != self._inputs.words_from():
            # Other words: the patching prompts' ids meant something else (the page starts from its default).
            self._selection = dataclasses.replace(self._selection, patching=None)
        self._inputs = inputs
        self._clamp_selection()
        self.inputsChanged.emit(inputs)
        if self._result is not None and self._result.inputs == inputs:
            self._show_again()                            # undo back to what is on screen
        else:
            self._request()

    def _show_again(self) -> None:
        self._latest_request += 1                         # anything in flight is now stale
        self.runner.cancel()
        self._set_busy(False)
        self.resultChanged.emit(self._result)

    def set_config(self, text: str | None = None, merge: bool = False, **fields: Any) -> bool:
        """Change Config fields (re-validated). New shapes mean new weights drawn from the seed."""
        old = self._inputs.config
        if "d_model" in fields and "d_mlp" not in fields and old.d_mlp == 4 * old.d_model:
            fields["d_mlp"] = 4 * fields["d_model"]          # keep GPT-2's d_mlp = 4 · d_model
        try:
            cfg = self._inputs.config.replace(**fields)
        except ConfigError as exc:
            self.message.emit("error", error_text(exc))
            self.inputsChanged.emit(self._inputs)
            return False
        name = ", ".join(f"{k}={v}" for k, v in fields.items())
        key = "config:" + ",".join(sorted(fields)) if merge else None
        changes = dict(config=cfg, preset="custom")
        notice = None
        if not cfg.same_shapes(self._inputs.config) and self._inputs.weights != "random":
            # Loaded or trained weights have one shape: new sizes need new weights.
            changes["weights"] = "random"
            if cfg.d_vocab == self._inputs.config.d_vocab and self._inputs.words_from() in self.registry:
                changes["vocabulary"] = self._inputs.words_from()   # the same vocabulary: words stay words
            notice = tr("New sizes need new weights: drawn at random from seed {seed}; the weights in use "
                        "({weights}) have the old shapes.").format(seed=self._inputs.seed, weights=self.weights_label())
        ok = self.edit(text or tr("Set {fields}").format(fields=name), merge_key=key, **changes)
        if ok and notice:                                  # said only when the change happened
            self.message.emit("info", notice)
        return ok

    def load_preset(self, name: str) -> bool:
        if name not in PRESETS:
            self.message.emit("error", tr("no preset named {name}").format(name=repr(name)))
            return False
        tokens = preset_tokens(name)
        ok = self.edit(tr("Load preset {name}").format(name=name), config=preset_config(name), tokens=tokens,
                       preset=name, weights=preset_weights(name))
        if ok:
            self.select(query=len(tokens) - 1, key=None, hover=None)
        return ok

    def set_tokens(self, tokens, text: str | None = None) -> bool:
        return self.edit(text or tr("Edit tokens"), tokens=tuple(int(t) for t in tokens))

    def set_text(self, text: str) -> bool:
        tok = self.tokenizer
        try:
            ids = tok.encode(text)
        except VocabularyError as exc:
            self._text_error = error_text(exc)
            self.message.emit("error", self._text_error)
            return False
        except BaseException as exc:  # noqa: BLE001 - a tokenizer's failure (a Rust panic is a BaseException)
            if isinstance(exc, (KeyboardInterrupt, SystemExit, GeneratorExit)):
                raise
            self._text_error = tr("This text was not tokenized ({why}); the tokens stay as they were.").format(
                why=str(exc) or type(exc).__name__)
            self.message.emit("error", self._text_error)
            return False
        if not self.set_tokens(ids, tr("Type “{text}”").format(text=text.strip())):
            return False
        if self._text_error:                               # a sentence that works answers the one that did not
            self.messageWithdrawn.emit(self._text_error)
            self._text_error = None
        dropped = tok.left_out(text) if hasattr(tok, "left_out") else []
        if dropped:
            marks = " ".join(f"“{mark}”" for mark in dropped)
            self.message.emit("info", tr("Left out {marks}: the toy vocabulary has no punctuation marks.").format(
                marks=marks))
        return True

    def text(self) -> str:
        """The tokens as text (the tokenizer's decoding; the toy's words joined by spaces)."""
        tok = self.tokenizer
        return tok.decode(self._inputs.tokens) if hasattr(tok, "decode") else " ".join(self.labels())

    def append_text(self, more: str) -> bool:
        """Words typed after the text: encoded alone and added at the end, so the pass recomputes
        only their rows (an append at T = 485 is the incremental path, not a new sequence)."""
        tok = self.tokenizer
        try:
            ids = tok.encode(more)
        except VocabularyError as exc:
            self._text_error = error_text(exc)
            self.message.emit("error", self._text_error)
            return False
        if not ids:
            return True
        T = len(self._inputs.tokens)
        follow = self._selection.query == T - 1             # the query on the last token moves on with it
        if not self.set_tokens(list(self._inputs.tokens) + ids, tr("Add “{word}”").format(word=more.strip())):
            return False
        if follow:
            self.select(query=T + len(ids) - 1)
        return True

    def move_token(self, src: int, dst: int) -> bool:
        toks = list(self._inputs.tokens)
        if not (0 <= src < len(toks) and 0 <= dst < len(toks)) or src == dst:
            return False
        tok = toks.pop(src)
        toks.insert(dst, tok)
        query = self._selection.query
        ok = self.set_tokens(toks, tr("Move “{word}” to position {i}").format(word=self.tokenizer.label(tok), i=dst))
        if ok:                                         # the tracked query stays on its token
            if query == src:
                self.select(query=dst)
            elif src < query <= dst:
                self.select(query=query - 1)
            elif dst <= query < src:
                self.select(query=query + 1)
        return ok

    def replace_token(self, index: int, token_id: int) -> bool:
        toks = list(self._inputs.tokens)
        if not 0 <= index < len(toks):
            return False
        old = toks[index]
        toks[index] = int(token_id)
        return self.set_tokens(toks, tr("Replace “{old}” with “{new}”").format(old=self.tokenizer.label(old),
                                                                              new=self.tokenizer.label(token_id)))

    def insert_token(self, index: int, token_id: int) -> bool:
        toks = list(self._inputs.tokens)
        index = max(0, min(index, len(toks)))
        toks.insert(index, int(token_id))
        query = self._selection.query
        ok = self.set_tokens(toks, tr("Add “{word}”").format(word=self.tokenizer.label(token_id)))
        if ok and index <= query:
            self.select(query=query + 1)               # the tracked query stays on its token
        return ok

    def remove_token(self, index: int) -> bool:
        toks = list(self._inputs.tokens)
        if not 0 <= index < len(toks):
            return False
        tok = toks.pop(index)
        query = self._selection.query
        ok = self.set_tokens(toks, tr("Remove “{word}”").format(word=self.tokenizer.label(tok)))
        if ok and index < query:
            self.select(query=query - 1)               # the tracked query stays on its token
        return ok

    def set_seed(self, seed: int) -> bool:
        """Random weights from this seed (also the way back from trained or loaded weights)."""
        return self.edit(tr("Random weights, seed {seed}").format(seed=seed), seed=int(seed), weights="random")

    def set_weights(self, source: str, text: str | None = None) -> bool:
        """Use other weights: "random", "trained", a registered name, a file or a folder."""
        return self.edit(text or tr("Use {source} weights").format(source=source), weights=source)

    def register_weights(self, weights, tokenizer=None, label: str = "", name: str | None = None) -> str:
        """Keep weights in memory under a name: a file or folder path they were loaded from, or a
        new "custom:<n>" for weights made in this session (training)."""
        if name is None:
            self._custom += 1
            name = f"custom:{self._custom}"
        self.registry[name] = WeightsEntry(weights, tokenizer, label or name)
        return name

    def lock(self, reason: str | None) -> None:
        """Refuse edits with this reason (None: accept them again); undo/redo follow."""
        self._locked = reason
        self.lockChanged.emit(reason is not None)

    @property
    def locked(self) -> bool:
        return self._locked is not None

    def push_inputs(self, old: Inputs, new: Inputs, text: str) -> None:
        """One undo step from `old` to `new` (after live previews that were not undoable)."""
        self._inputs = old
        self.undo_stack.push(_InputsCommand(self, old, new, text))
        self.prune_registry()

    def prune_registry(self) -> None:
        """Forget in-memory weights that neither the inputs nor any undo step refer to any more."""
        used = {self._inputs.weights, self._inputs.vocabulary}
        for i in range(self.undo_stack.count()):
            cmd = self.undo_stack.command(i)
            if isinstance(cmd, _InputsCommand):
                used.update((cmd._old.weights, cmd._new.weights, cmd._old.vocabulary, cmd._new.vocabulary))
        for name in [n for n in self.registry if n not in used]:
            del self.registry[name]

    def preview(self, **changes: Any) -> None:
        """Show inputs without an undo step (live training updates); push_inputs ends it."""
        self._apply(dataclasses.replace(self._inputs, **changes))

    def toggle_ablation(self, layer: int, head: int) -> bool:
        """Knock head `head` of layer `layer` out (its z = 0), or put it back: one undoable step."""
        cfg, pair = self._inputs.config, (int(layer), int(head))
        if not (0 <= pair[0] < cfg.n_layers and 0 <= pair[1] < cfg.n_heads):
            self.message.emit("error", tr("There is no head {head} in layer {layer}.").format(head=head, layer=layer))
            return False
        now = self._inputs.ablated
        if pair in now:
            return self.edit(tr("Put head {layer}.{head} back").format(layer=layer, head=head),
                             ablated=tuple(p for p in now if p != pair))
        return self.edit(tr("Knock head {layer}.{head} out").format(layer=layer, head=head),
                         ablated=tuple(sorted(now + (pair,))))

    def clear_ablations(self) -> bool:
        return self.edit(tr("Put every head back"), ablated=())

    def set_patching(self, setup) -> bool:
        """Make `setup` (a compute.instruments.patching.PatchSetup: two prompts and a metric) the patching
        page's run, one undoable step; a setup this model cannot run is refused with a message."""
        try:
            setup = setup.check(self._inputs.config)
        except (InterventionError, ConfigError) as exc:
            self.message.emit("error", tr("Activation patching: {why}").format(why=error_text(exc) or str(exc)))
            return False
        if setup == self._selection.patching:
            return True
        self.undo_stack.push(_PatchingCommand(self, self._selection.patching, setup, tr("Patch two prompts")))
        return True

    def set_backend(self, backend: str) -> bool:
        return self.edit(tr("Backend {backend}").format(backend=backend), backend=backend)

    # -- view state (not undoable, never recomputes) ---------------------------------------------
    def find_token(self, text: str) -> int | None:
        """Move the query to the next token after it (around to the start) whose text holds `text`
        (case folded; the tokenizers' space marks Ġ and ▁ read as spaces, the ends stripped): its
        position, or None, said in a message, when no token holds it."""
        needle = _search_key(text)
        if not needle:
            return None
        labels = self.labels()
        T, start = len(labels), self._selection.query
        for i in (*range(start + 1, T), *range(0, min(start + 1, T))):
            if needle in _search_key(labels[i]):
                self.select(query=i, key=None)
                return i
        self.message.emit("info", tr("No token holds “{text}”.").format(text=text.strip()))
        return None

    def select(self, **changes: Any) -> None:
        old = self._selection
        if "hover" not in changes and any(f in changes and changes[f] != getattr(old, f) for f in ("station", "query")):
            # The hover belongs to the canvas the mouse was on: after a station or query change by
            # key or chip it would keep outlining the old row while the chips and Softmax moved on.
            changes["hover"] = None
        new = dataclasses.replace(old, **changes)
        new = self._clamped(new)
        if new != self._selection:
            self._selection = new
            self.selectionChanged.emit(new)

    def _clamped(self, s: Selection) -> Selection:
        cfg, T = self._inputs.config, len(self._inputs.tokens)
        lens = None if s.lens is None else tuple((min(max(la, 0), cfg.n_layers - 1), min(max(ha, 0), cfg.n_heads - 1))
                                                 for la, ha in s.lens)
        trace = s.trace
        if trace is not None:
            name, row, col = trace
            limit = T if name == "attn_scores" else cfg.d_head
            if not (0 <= row < T and 0 <= col < limit):
                trace = None
        patching = s.patching
        if patching is not None:
            try:
                patching = patching.check(cfg)                   # another model: its ids may not exist there
            except (InterventionError, ConfigError):
                patching = None
        return dataclasses.replace(
            s, lens=lens, trace=trace, patching=patching,
            layer=min(max(s.layer, 0), cfg.n_layers - 1),
            head=min(max(s.head, 0), cfg.n_heads - 1),
            query=min(max(s.query, 0), max(T - 1, 0)),
            key=None if s.key is None or T == 0 else min(max(s.key, 0), T - 1),
            hover=None if s.hover is None or T == 0 or any(x is not None and x >= T for x in s.hover)
            else s.hover,
            station=s.station if s.station in PAGES else STATIONS[0],
        )

    def _clamp_selection(self) -> None:
        new = self._clamped(self._selection)
        if new != self._selection:
            self._selection = new
            self.selectionChanged.emit(new)

    # -- computing -------------------------------------------------------------------------------
    def _request(self) -> None:
        self._latest_request += 1
        self._set_busy(True)
        # Stations drawn from a layer's attention half can show it before the MLP is done (when a
        # window draws early results: the worker waits for their paint).
        sel = self._selection
        early = None
        if self.early_results and sel.station in EARLY_STATIONS:
            early = 0 if sel.station == "embeddings" else sel.layer
        # The Trace on screen: the pass computes only the rows the edit changed (compute.forward reuse=).
        on_screen = self._result.trace if self._result is not None and self.incremental else None
        # Score maps are made from q and k on first access: the worker makes the visible station's.
        # The cut the station draws: one head's maps (Scores), one query's row of them (Softmax).
        # The MLP station's next-token bars: the query's row of logits (the worker makes it too).
        rows = sel.query if sel.station in ("softmax", *PREDICTING) else None
        names = SCORE_MAPS.get(sel.station, ()) + (("logits",) if sel.station in PREDICTING else ())
        warm = (sel.layer, sel.head, rows, names) if names else None
        self.runner.submit(self._latest_request, self._inputs, early, reuse=on_screen, warm=warm)

    def _on_partial(self, result: LabResult) -> None:
        if result.request_id != self._latest_request or result.request_id == self._cancelled_request:
            self.runner.partial_shown()                   # nobody will paint it: let the worker go on
            return
        self.partialResult.emit(result)

    def cancel(self) -> None:
        # A result already computed but not yet shown is cancelled too (a toy compute takes ~1 ms:
        # it can finish between the click and its handling).
        self._cancelled_request = self._latest_request if self._busy else None
        self.runner.cancel()

    def _on_finished(self, result: LabResult) -> None:
        if result.request_id != self._latest_request:
            return                                        # a newer edit is on its way: drop this
        if result.request_id == self._cancelled_request:
            self._on_failed(result.request_id, tr("Computation cancelled."), True)
            return
        self._result = result
        self._shown_index = self.undo_stack.index()
        self._set_busy(False)
        if result.notice:
            self.message.emit("warning", result.notice)
        self.resultChanged.emit(result)

    def _on_failed(self, request_id: int, text: str, cancelled: bool) -> None:
        if request_id != self._latest_request:
            return
        self._set_busy(False)
        if self._result is not None and self._result.inputs != self._inputs:
            # The inputs never produced a view: go back to exactly the state on screen, whether the
            # step was an edit, an undo, a redo (the stack moves back) or a preview (it does not).
            if self.undo_stack.index() != self._shown_index:
                self.undo_stack.setIndex(self._shown_index)
                text += tr(" — the settings on screen are back (Undo/Redo tries that step again)")
            else:
                self._apply(self._result.inputs)
        if cancelled and self._result is None:             # nothing on screen: empty views need a reason
            self.message.emit("warning", text + " " + tr("Nothing has been computed yet, so the views are empty: any "
                                                         "edit (a token, a size, another preset) computes again."))
        else:
            self.message.emit("info" if cancelled else "error", text)
        if not cancelled:
            self.computeFailed.emit(text)
        if not cancelled and self._result is None and self._inputs.weights != "random":
            # Nothing on screen yet and these weights cannot be used (e.g. a session's weights file
            # is damaged): every edit would fail the same way. Show random weights instead.
            self.message.emit("warning", text + tr(" — showing random weights (seed {seed}) instead; open other "
                                                   "weights from the Model menu.").format(seed=self._inputs.seed))
            self.preview(weights="random")

    def _on_progress(self, request_id: int, stage: str, fraction: float) -> None:
        if request_id == self._latest_request:
            self.progressChanged.emit(stage, fraction)

    def _set_busy(self, busy: bool) -> None:
        if busy != self._busy:
            self._busy = busy
            self.busyChanged.emit(busy)


def _search_key(text: str) -> str:
    """A token's text as a search compares it: case folded, Ġ and ▁ (a space before the word) as spaces,
    the ends stripped."""
    return text.replace("Ġ", " ").replace("▁", " ").casefold().strip()
