"""Runner: computes off the UI thread, newest request first.

One worker thread takes the newest request; a request that arrives while another computes
cancels it at its next stage boundary (compute.progress), so rapid edits coalesce and only the
latest inputs are ever finished. Weights are made on the worker too (GPT-3-sized ones take
seconds) and kept for the next request with the same recipe.

Incremental passes: a request carries the Trace on screen (`reuse`); `compute.forward` then
computes only the rows after the tokens' common prefix with it (typing, deleting or replacing the
last tokens costs a row per layer, not the whole block) and the Trace says how many it reused.

Early results: a request may name the layer whose attention the visible station draws. When the
backend publishes that layer's attention half (compute.progress.publish) and the compute has run
for a while, `partial` carries it to the UI at once, and the worker waits (briefly) until the UI
has painted it, so the paint has the cores to itself; then the pass goes on to `finished`. Only a
pass with much to compute gets one (PARTIAL_MIN_MACS per layer for the rows it recomputes): an
incremental pass of a few rows is done sooner than a second paint would take.
"""
from __future__ import annotations

import threading
import time
import traceback
from collections import OrderedDict
from contextlib import contextmanager, nullcontext

from PySide6.QtCore import QObject, Signal

from compute import (
    BackendUnavailable,
    Cancelled,
    CheckpointError,
    ConfigError,
    Weights,
    WeightsError,
    forward,
    partial_trace,
    progress,
)
from compute.forward import resolve_backend, reusable_rows
from compute.models import block_macs
from widgets.i18n import error_text, tr

from .background import spawn
from .values import WeightsEntry, make_result, make_weights, register_vocabulary, tokenizer_for

PROGRESS_AFTER_S = 0.05
PROGRESS_EVERY_S = 0.03
# An early result is worth its extra paint only when the pass is long: published this late or
# later, for a layer of at least this many multiply-adds (andrea-120m: ~1.9e9 at T=256).
PARTIAL_AFTER_S = 0.02
PARTIAL_MIN_MACS = 1e9
# How long the worker waits for the UI to paint an early result before it goes on regardless.
PARTIAL_WAIT_S = 0.5
# `nice` of the compute threads (Linux): with both cores computing, the UI thread still gets one.
COMPUTE_NICE = 10


class Runner(QObject):
    finished = Signal(object)             # LabResult
    partial = Signal(object)              # LabResult whose trace is partial (trace.complete False)
    failed = Signal(int, str, bool)       # request id, message, cancelled?
    progress = Signal(int, str, float)    # request id, stage, fraction

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self._cond = threading.Condition()
        self._pending: tuple[int, object] | None = None
        self._running_id: int | None = None
        self._cancel_id: int | None = None
        self._weights: OrderedDict[tuple, Weights] = OrderedDict()
        self._stopping = False
        self._t_run = self._t_progress = 0.0
        self._last_stage: str | None = None
        self._painted = threading.Event()                  # the UI has shown an early result
        self._painted.set()
        self.registry: dict[str, WeightsEntry] = {}       # named in-memory weights (LabState fills it)
        # The one long-lived thread: its own shutdown stops and joins it (app/background.py spawn).
        self._thread = spawn(self._loop, "runner", tracked=False)

    # -- UI thread -------------------------------------------------------------------------------
    def submit(self, request_id: int, inputs, early_layer: int | None = None, reuse=None,
               warm: tuple | None = None) -> None:
        """Compute `inputs`; with `early_layer`, publish that layer's attention half early; with
        `reuse` (the Trace on screen), compute only the rows it does not already have; `warm`
        (layer, head, rows, names): what the visible station reads of values a Trace makes on first
        access (one head's score maps, or a query's row of them), made here, so that the UI thread
        only draws (and a GPU Trace copies just that cut)."""
        with self._cond:
            self._pending = (request_id, inputs, early_layer, reuse, warm)
            if self._running_id is not None:
                self._cancel_id = self._running_id        # latest wins
            self._cond.notify()
        self._painted.set()                               # a waiting worker goes on (and stops)

    def partial_shown(self) -> None:
        """The UI has painted (or passed over) the early result: the worker may go on."""
        self._painted.set()

    def cancel(self) -> None:
        """Cancel what runs and what waits; a waiting request reports that it was cancelled."""
        with self._cond:
            dropped, self._pending = self._pending, None
            self._cancel_id = self._running_id
        self._painted.set()
        if dropped is not None:
            self.failed.emit(dropped[0], tr("Computation cancelled."), True)

    def shutdown(self, timeout: float = 5.0) -> None:
        """Stop the worker (cancelling what runs) and wait for it."""
        with self._cond:
            self._stopping = True
            self._pending = None
            self._cancel_id = self._running_id
            self._cond.notify()
        self._painted.set()
        self._thread.join(timeout)

    def is_idle(self) -> bool:
        with self._cond:
            return self._pending is None and self._running_id is None

    def held(self):
        """Results held during an undo-stack operation (SyncRunner's `held`): here they cross to the
        UI thread as queued signals, delivered by the event loop after the operation anyway."""
        return nullcontext()

    # -- worker thread ---------------------------------------------------------------------------
    def _loop(self) -> None:
        from compute.backends.blas import lower_priority

        lower_priority(COMPUTE_NICE)                       # the UI thread first when it wakes
        while True:
            with self._cond:
                while self._pending is None and not self._stopping:
                    self._cond.wait()
                if self._stopping:
                    return
                request_id, inputs, early_layer, reuse, warm = self._pending
                self._pending = None
                self._running_id = request_id
                self._cancel_id = None
            try:
                self._run(request_id, inputs, early_layer, reuse, warm)
            finally:
                with self._cond:
                    self._running_id = None
                # While waiting, hold no Trace: the one reused is the view of an earlier edit, and
                # its arrays would stay out of the buffer pool until the next request.
                inputs = reuse = None

    def _check(self, request_id: int, stage: str, fraction: float) -> None:
        if self._cancel_id == request_id or self._stopping:
            raise Cancelled(stage)
        # Progress reaches the UI when a stage starts or PROGRESS_EVERY_S later, and not at all in
        # a compute's first moments: a toy-sized edit would otherwise queue ~15 events ahead of
        # its result.
        now = time.perf_counter()
        if now - self._t_run >= PROGRESS_AFTER_S and (stage != self._last_stage
                                                      or now - self._t_progress >= PROGRESS_EVERY_S):
            self._t_progress, self._last_stage = now, stage       # a new stage is always shown
            self.progress.emit(request_id, stage, fraction)

    def _early(self, request_id: int, inputs, early_layer, weights, new_rows: int, warm, layer: int,
               arrays: dict) -> None:
        """compute.progress.publish listener (worker thread): hand the wanted layer's attention
        to the UI and wait until it is painted (or a newer request, or PARTIAL_WAIT_S). `new_rows`:
        how many rows the pass computes (all T, or those after the rows it reuses)."""
        if (layer != early_layer or time.perf_counter() - self._t_run < PARTIAL_AFTER_S
                or block_macs(inputs.config.replace(causal=False), new_rows, len(inputs.tokens))
                < PARTIAL_MIN_MACS):
            return
        self._painted.clear()                             # before the check: a submit now still frees us
        if self._cancel_id == request_id or self._stopping:
            raise Cancelled("attention")                  # not for a request already replaced
        trace = partial_trace(inputs.config, arrays, backend=inputs.backend, weights_uid=weights.uid)
        make_ahead(trace, warm)
        self.partial.emit(make_result(request_id, inputs, trace, weights,
                                      tokenizer_for(inputs.words_from(), self.registry), self._t_run))
        self._painted.wait(PARTIAL_WAIT_S)

    def _run(self, request_id: int, inputs, early_layer: int | None = None, reuse=None, warm=None) -> None:
        t0 = self._t_run = time.perf_counter()
        self._t_progress, self._last_stage = 0.0, None
        weights = None
        new_rows = len(inputs.tokens)

        def early(layer: int, arrays: dict) -> None:
            self._early(request_id, inputs, early_layer, weights, new_rows, warm, layer, arrays)

        try:
            with progress.reporting(lambda stage, f: self._check(request_id, stage, f),
                                    early if early_layer is not None else None):
                weights = cached_weights(self._weights, inputs, self.registry)
                new_rows -= reused_rows(reuse, inputs, weights)
                trace = forward(inputs.config, weights, inputs.tokens, backend=inputs.backend, reuse=reuse,
                                interventions=inputs.interventions())
            make_ahead(trace, warm)
        except Exception as exc:  # noqa: BLE001 - every failure reaches the user as a message
            self.failed.emit(request_id, *failure(exc))
            return
        self.finished.emit(make_result(request_id, inputs, trace, weights,
                                       tokenizer_for(inputs.words_from(), self.registry), t0))


def make_ahead(trace, warm: tuple | None) -> None:
    """Read the cut `warm` = (layer, head, rows, names) of `trace` now, on this (the worker's) thread:
    the view's own reads (Trace.read) then find it made. "logits" in names: the logits of query row
    `rows` (the next-token bars' one row, kept by the Trace: 262,144 × 640 multiply-adds for Gemma)."""
    if warm is not None:
        layer, head, rows, names = warm
        for name in names:
            if name == "logits":
                if trace.complete and rows is not None and rows < trace.T:
                    trace.logits_rows([rows])                          # [1, d_vocab], kept for the view
                continue
            fits = layer < trace.n_layers and head < trace.cfg.n_heads and (rows is None or rows < trace.T)
            if fits and trace.has(name, layer):
                trace.read(name, layer, head=head, rows=rows)


def reused_rows(reuse, inputs, weights: Weights) -> int:
    """How many rows `forward(..., reuse=reuse)` will take from `reuse` for these inputs (0: none)."""
    if reuse is None:
        return 0
    try:
        backend = resolve_backend(inputs.backend)[0]
        ids = inputs.config.validate_tokens(inputs.tokens)
    except (ConfigError, BackendUnavailable):
        return 0                                           # forward says why
    return reusable_rows(reuse, inputs.config, weights, ids, None, backend)


def cached_weights(cache: OrderedDict, inputs, registry: dict) -> Weights:
    """The weights of `inputs`, made once per recipe (GPT-3-sized ones take seconds to draw)."""
    register_vocabulary(inputs, registry)                  # the words of a reopened session's vocabulary
    key = inputs.weights_key()
    if key not in cache:
        cache.clear()                                      # free the old set before making the new
        cache[key] = make_weights(inputs, registry)
    return cache[key]


def failure(exc: BaseException) -> tuple[str, bool]:
    """(message for the user, was it a cancel) for whatever stopped a computation."""
    if isinstance(exc, Cancelled):
        return tr("Computation cancelled."), True
    if isinstance(exc, (ConfigError, WeightsError, CheckpointError, BackendUnavailable)):
        return error_text(exc), False
    if isinstance(exc, MemoryError):
        return tr("Out of memory: use fewer tokens, fewer layers or smaller dimensions."), False
    traceback.print_exception(exc)                         # a bug: the message says so, the log has the rest
    return tr("Computation failed: {error}").format(error=f"{type(exc).__name__}: {exc}"), False


class SyncRunner(QObject):
    """The Runner's interface, computing on the calling thread: `submit` emits `finished` (or
    `failed`) before it returns. LabState runs on it without a window or a worker (tests, scripts);
    there are no early results and nothing to cancel."""

    finished = Signal(object)
    partial = Signal(object)
    failed = Signal(int, str, bool)
    progress = Signal(int, str, float)

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self.registry: dict[str, WeightsEntry] = {}
        self._weights: OrderedDict[tuple, Weights] = OrderedDict()
        self._held = 0
        self._pending: list[tuple] = []

    def submit(self, request_id: int, inputs, early_layer: int | None = None, reuse=None, warm=None) -> None:
        t0 = time.perf_counter()
        try:
            weights = cached_weights(self._weights, inputs, self.registry)
            trace = forward(inputs.config, weights, inputs.tokens, backend=inputs.backend, reuse=reuse,
                            interventions=inputs.interventions())
            make_ahead(trace, warm)
        except Exception as exc:  # noqa: BLE001 - as the threaded runner does
            self._deliver(self.failed, request_id, *failure(exc))
            return
        self._deliver(self.finished, make_result(request_id, inputs, trace, weights,
                                                 tokenizer_for(inputs.words_from(), self.registry), t0))

    def partial_shown(self) -> None:
        pass

    def cancel(self) -> None:
        pass

    def shutdown(self, timeout: float = 5.0) -> None:
        pass

    def is_idle(self) -> bool:
        return True

    @contextmanager
    def held(self):
        """Within: results wait, and are delivered when the outermost `held` ends. LabState holds
        them during an undo-stack operation (push, undo, redo), as the threaded runner's queued
        signals wait for the event loop: a result then meets the stack's new index, not the old."""
        self._held += 1
        try:
            yield
        finally:
            self._held -= 1
            while not self._held and self._pending:
                signal, args = self._pending.pop(0)
                signal.emit(*args)

    def _deliver(self, signal, *args) -> None:
        if self._held:
            self._pending.append((signal, args))
        else:
            signal.emit(*args)
