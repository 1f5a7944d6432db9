"""The instruments' app side: it asks compute for the numbers each instrument shows, runs the
slow ones off the UI thread, keeps the calibrator's experiment and score, and drives the KV-cache
generation. Widgets get finished numbers; every state change still goes through LabState."""
from __future__ import annotations

import dataclasses
import html
import random
import threading
import time
from types import SimpleNamespace

import numpy as np
from PySide6.QtCore import QObject, Signal

from compute import ConfigError, WeightsError, forward, memory, source_map
from compute.instruments import explain, kvcache, shared_kv, sqrt_dk
from widgets.circuit_views import clean_of, found_of
from widgets.i18n import error_text, message, num, tr
from widgets.instrument_views import Side, condition_of, side_b, without_first

from .state import LabResult, LabState

LAB_SAMPLES = 20_000            # q·k samples per d_k (fewer at large d_k: see _sqrt_numbers)
LAB_ROWS = 256                  # softmax rows for the gradient measurement
UNMASKED_MAX_BYTES = 2 << 30    # compute the mask view's unmasked twin only up to this size
KV_MAX_PARAMS = 150_000_000     # the KV-cache view works in float64: GPT-2-small-sized models at most
UNCHANGED = 5e-4                # a top weight that moves less than this has not changed
ONE_HOT = 0.999                 # a row this sure of one key cannot get sharper


def _decimals(*pairs: tuple[float, float]) -> int:
    """The fewest decimals (2 to 6) at which each (before, after) pair reads as two numbers."""
    for d in range(2, 7):
        if all(round(a, d) != round(b, d) for a, b in pairs if abs(a - b) >= 10 ** -6):
            return d
    return 6


def sharpening(before, after) -> tuple[str, bool]:
    """What happened to a softmax row's top weight (explain.RowSummary before / after), in words
    that are true at the precision shown, and whether it got sharper."""
    delta = after.top_weight - before.top_weight
    if abs(delta) < UNCHANGED:
        text = (tr("the top weight stayed {top}, entropy {entropy} nats: unchanged (already one-hot)")
                if before.top_weight >= ONE_HOT else
                tr("the top weight stayed {top}, entropy {entropy} nats: unchanged"))
        return text.format(top=num(before.top_weight, ".3f"), entropy=num(before.entropy, ".3f")), False
    d = _decimals((before.top_weight, after.top_weight), (before.entropy, after.entropy))
    text = (tr("the top weight went {top0} → {top1}, entropy {ent0} → {ent1} nats: sharper") if delta > 0 else
            tr("the top weight went {top0} → {top1}, entropy {ent0} → {ent1} nats: flatter"))
    return text.format(top0=num(before.top_weight, f".{d}f"), top1=num(after.top_weight, f".{d}f"),
                       ent0=num(before.entropy, f".{d}f"), ent1=num(after.entropy, f".{d}f")), delta > 0


INSTRUMENT_SOURCES = {"sqrt_dk": "sqrt_dk", "kv_cache": "kvcache", "rope": "rope_lab", "shared_kv": "shared_kv",
                      "windows": "receptive", "tiled_softmax": "tiled_softmax", "ab": "ab"}
# The calibrator's changes as A/B conditions (compute.instruments.ab); move_token and switch_head need the selection.
CALIBRATOR_CONDITIONS = {"scaling_off": ("scaling_off", None), "d_head_x4": ("d_head_x4", None),
                         "mask_off": ("mask_off", None)}


_THREADS: set[threading.Thread] = set()         # background work still running (see wait_for_background)


def wait_for_background(timeout: float) -> bool:
    """Wait (up to `timeout` s in all) for background work to end; True if all of it did. The app
    calls it before exiting: torch still running in a daemon thread while Python shuts down
    aborts the process."""
    end = time.monotonic() + timeout
    for thread in list(_THREADS):
        thread.join(max(0.0, end - time.monotonic()))
    return not any(t.is_alive() for t in _THREADS)


class Background(QObject):
    """Run a function on a daemon thread; `done(tag, value, error)` arrives on the UI thread."""

    done = Signal(object, object, object)

    def run(self, tag, fn) -> None:
        def work():
            try:
                value, error = fn(), None
            except Exception as exc:  # noqa: BLE001 - shown to the user as a message
                value, error = None, exc
            try:
                self.done.emit(tag, value, error)
            except RuntimeError:                      # the window closed meanwhile: nobody to tell
                pass
            finally:
                _THREADS.discard(threading.current_thread())

        thread = threading.Thread(target=work, daemon=True, name=f"qkv-{tag[0]}")
        _THREADS.add(thread)
        thread.start()


class Instruments(QObject):
    unmaskedReady = Signal(object)          # LabResult computed with causal=False
    sqrtReady = Signal(object)              # namespace of sqrt(d_k) lab numbers
    sqrtComputing = Signal(int)             # d_k being measured (the lab says so meanwhile)
    generationChanged = Signal(object)      # compute.instruments.kvcache.Generation or None
    calibrated = Signal(str, int, int, bool)  # outcome html, correct, total, can keep the change
    withoutFirstReady = Signal(object)      # widgets.instrument_views.WithoutFirst: the run without token 0
    abReady = Signal(object)                # widgets.instrument_views.Side: A/B's side B
    cleanReady = Signal(object)             # widgets.circuit_views.Clean: the pass without knocked-out heads
    foundReady = Signal(object)             # widgets.circuit_views.Found: the head finder's scores

    def __init__(self, state: LabState, parent: QObject | None = None):
        super().__init__(parent)
        self.state = state
        self.background = Background(self)
        self.background.done.connect(self._done)
        self._sqrt_cache: dict[int, SimpleNamespace] = {}
        self._sqrt_running: set[int] = set()
        self._unmasked_for = None
        self.generation: kvcache.Generation | None = None
        self._generation_weights = None
        self._kv_running = False
        self.correct = 0
        self.total = 0
        self._pending = None                # calibrator experiment waiting for its side B
        self._without_for = None            # request id the run without the first token was asked for
        self._clean_for = None              # request id the pass without knocked-out heads was asked for
        self._found_for = None              # weights uid the head finder was asked for
        self._found = None                  # widgets.circuit_views.Found, the latest
        self._b_for = None                  # (request id, condition) side B was asked for
        self.side: Side | None = None       # the newest side B
        state.resultChanged.connect(self._on_result)
        state.selectionChanged.connect(self._on_selection)

    # -- dot-product trace --------------------------------------------------------------------------
    def dot_trace(self, result: LabResult | None, sel):
        """The DotTrace of the selected cell, or None."""
        if result is None or sel.trace is None:
            return None
        name, row, col = sel.trace
        t = result.trace
        try:
            if name == "attn_scores":
                return explain.score_trace(t, sel.layer, sel.head, row, col)
            return explain.projection_trace(t, result.weights, name, sel.layer, sel.head, row, col)
        except (IndexError, KeyError):
            return None

    # -- code view ------------------------------------------------------------------------------------
    def code_for(self, station: str, which: str, result: LabResult | None):
        """(SourceView or None, note) for the code view."""
        in_use = result.trace.backend if result is not None else "cpu"
        backend = in_use if which == "backend in use" else which
        if station not in source_map.STATIONS:
            return None, tr("“{page}” is an instrument, not a step of the block: its numbers come from "
                            "compute/{module}.py.").format(page=station,
                                                           module=INSTRUMENT_SOURCES.get(station, "explain"))
        try:
            family = source_map.family_of(result.inputs.config) if result is not None else ()
            view = source_map.station_source(backend, station, family)
        except (KeyError, LookupError, ImportError, OSError) as exc:
            return None, tr("no source for {backend}: {why}").format(backend=backend, why=exc)
        note = (tr("this backend computed the views") if backend == in_use
                else tr("(the views were computed by {backend})").format(backend=in_use))
        return view, note

    # -- sqrt(d_k) lab ------------------------------------------------------------------------------------
    def request_sqrt(self, d_k: int) -> None:
        if d_k < 1:
            self.state.message.emit("error", tr("d_k = {d_k}: the lab needs d_k ≥ 1.").format(d_k=d_k))
            return
        if d_k in self._sqrt_cache:
            self.sqrtReady.emit(self._sqrt_cache[d_k])
            return
        if d_k in self._sqrt_running:
            return
        self.sqrtComputing.emit(d_k)
        self._sqrt_running.add(d_k)
        self.background.run(("sqrt", d_k), lambda: self._sqrt_numbers(d_k))

    @staticmethod
    def _sqrt_numbers(d_k: int) -> SimpleNamespace:
        n = min(LAB_SAMPLES, max(2000, (1 << 24) // d_k))              # bounded work per d_k
        curve = []
        for stop in sqrt_dk.D_K_STOPS:                                  # the whole curve, cheaply
            s = sqrt_dk.dot_product_spread(stop, n=2000, seed=7)
            curve.append((stop, s.std_raw, s.std_scaled))
        spread = sqrt_dk.dot_product_spread(d_k, n=n, seed=1)
        return SimpleNamespace(spread=spread,
                               hist_raw=np.histogram(spread.raw, bins=60),
                               hist_scaled=np.histogram(spread.raw / spread.sqrt_d_k, bins=60),
                               row=sqrt_dk.softmax_row(d_k, T=16, seed=2),
                               grads=sqrt_dk.softmax_gradients(d_k, T=16, rows=LAB_ROWS, seed=3),
                               curve=curve, grad_rows=LAB_ROWS)

    # -- the mask --------------------------------------------------------------------------------------------
    def request_unmasked(self) -> None:
        """The current inputs computed once more without the causal mask (for the mask view)."""
        result = self.state.result
        if result is None or self._unmasked_for == result.request_id:
            return
        self._unmasked_for = result.request_id
        inputs = result.inputs
        cfg = inputs.config.replace(causal=False)
        if memory.estimate(cfg, len(inputs.tokens)).compute > UNMASKED_MAX_BYTES:
            size = message(memory.bytes_message(UNMASKED_MAX_BYTES))
            self.state.message.emit("info", tr("The mask view compares with an unmasked run only up to {size} of "
                                               "intermediates.").format(size=size))
            return
        weights = result.weights

        def run():
            trace = forward(cfg, weights, inputs.tokens, backend=inputs.backend)
            return dataclasses.replace(result, trace=trace, inputs=dataclasses.replace(inputs, config=cfg))

        self.background.run(("unmasked", result.request_id), run)

    # -- KV cache -------------------------------------------------------------------------------------------
    @property
    def generation_weights(self):
        return self._generation_weights

    def kv_prefill(self) -> None:
        """Run the prompt once (off the UI thread) and keep every layer's k and v."""
        result = self.state.result
        if result is None or self._kv_running:
            return
        cfg = result.inputs.config
        if memory.weight_count(cfg) > KV_MAX_PARAMS:
            self.state.message.emit("info", tr("The KV-cache view computes in float64 and is for models up to {max} M "
                                               "parameters; this one has {n} M.").format(
                max=num(KV_MAX_PARAMS / 1e6, ".0f"), n=num(memory.weight_count(cfg) / 1e6, ",.0f")))
            return
        weights, tokens = result.weights, result.inputs.tokens
        self._kv_running = True
        self.background.run(("kv", "prefill"), lambda: (kvcache.prefill(cfg, weights, tokens), weights))

    def kv_step(self) -> None:
        if self.generation is None:
            self.kv_prefill()
            return
        if self._kv_running:
            return
        gen, weights = self.generation, self._generation_weights
        self._kv_running = True
        self.background.run(("kv", "step"), lambda: (kvcache.decode_step(gen, weights), weights))

    @staticmethod
    def cache_sizes(cfg) -> str:
        """The K/V cache's bytes per token and at full context, beside multi-head attention's
        (grouped K/V heads shrink it by n_heads / n_kv_heads, a window caps a layer's rows)."""
        return message(kvcache.cache_size(cfg).describe())

    def kv_reset(self) -> None:
        self.generation = None
        self._generation_weights = None
        self.generationChanged.emit(None)

    # -- calibrator -------------------------------------------------------------------------------------------
    def open_query(self, result: LabResult | None, sel) -> int | None:
        """A query worth predicting about: the selected one unless its row is already one-hot
        (nothing can sharpen it), else the latest query whose row is not; None if all are."""
        if result is None or result.trace.T == 0:
            return None
        def open_row(i):
            return explain.row_summary(result.trace, sel.layer, sel.head, i).top_weight < ONE_HOT
        if sel.query < result.trace.T and open_row(sel.query):
            return sel.query
        return next((i for i in range(result.trace.T - 1, -1, -1) if open_row(i)), None)

    def suggest(self) -> tuple[str, str]:
        change = random.choice(["scaling_off", "d_head_x4", "mask_off", "move_token", "switch_head"])
        question = "sharper" if change in ("scaling_off", "d_head_x4") else "top_key"
        return change, question

    def calibrate(self, change: str, question: str, prediction) -> None:
        """Predict, then test: the change is made to a copy (A/B's side B, off the UI thread), the
        A/B page shows both, and the prediction is measured on B; the lab's inputs stay."""
        s = self.state
        result, sel = s.result, s.selection
        if result is None or s.busy:
            s.message.emit("info", tr("Wait for the current computation, then try again."))
            return
        if prediction is None:
            s.message.emit("info", tr("Choose your answer first: predicting is the point."))
            return
        cfg = result.inputs.config
        if change == "move_token":
            if sel.query == 0:
                self.calibrated.emit(tr("That change cannot be made here: the query's token is at the front "
                                        "already."),
                                     self.correct, self.total, False)
                return
            condition = ("move_token", (sel.query, 0))
        elif change == "switch_head":
            condition = ("head", (sel.head + 1) % cfg.n_heads)
        elif change in CALIBRATOR_CONDITIONS:
            condition = CALIBRATOR_CONDITIONS[change]
        else:
            self.calibrated.emit(tr("That change cannot be made here."), self.correct, self.total, False)
            return
        self._pending = dict(question=question, prediction=prediction, query=sel.query, layer=sel.layer,
                             head=sel.head, labels=result.labels, key=(result.request_id, condition),
                             before=explain.row_summary(result.trace, sel.layer, sel.head, sel.query))
        s.select(ab=condition, station="ab")              # the test, side by side (request_b follows)
        self.request_b()

    def _measure(self, side: Side) -> None:
        p = self._pending
        self._pending = None
        if side.error:
            self.calibrated.emit(tr("The change could not be computed, so there is nothing to measure: {why}").format(
                why=html.escape(side.error)), self.correct, self.total, False)
            return
        head = side.edited.head if side.edited.head is not None else p["head"]
        after = explain.row_summary(side.trace, p["layer"], head, p["query"])
        result = self.state.result
        labels_b = [result.token_label(int(t)) for t in side.edited.tokens]
        if p["question"] == "top_key":
            right = after.top_key == p["prediction"]
            guess = tr("key {j} “{word}”").format(j=p["prediction"], word=p["labels"][p["prediction"]])
            seen = tr("in B, key {j} “{word}” takes the most weight ({weight})").format(
                j=after.top_key, word=labels_b[after.top_key], weight=num(after.top_weight, ".2f"))
        else:
            seen, sharper = sharpening(p["before"], after)
            right = sharper == p["prediction"]
            guess = tr("sharper") if p["prediction"] else tr("flatter or the same")
        self.total += 1
        self.correct += int(right)
        verdict = tr("✓ right") if right else tr("✗ not this time")
        mark = f"<b style='color:{'#188038' if right else '#d93025'}'>{verdict}</b>"
        self.calibrated.emit(tr("You predicted: {guess}.<br>Measured: {seen} — A and B side by side on the A/B "
                                "page.<br>{mark}").format(guess=f"<b>{html.escape(guess)}</b>", seen=html.escape(seen),
                                                          mark=mark), self.correct, self.total,
                             side.edited.head is None)

    # -- the run without the first token (windows and sinks), A/B's side B -----------------------------------
    def request_page_extra(self) -> None:
        station = self.state.selection.station
        if station == "windows":
            self.request_without_first()
        elif station == "ab":
            self.request_b()
        elif station == "knockout":
            self.request_clean()
        elif station == "head_finder":
            self.request_found()

    def request_clean(self) -> None:
        """The pass without the knocked-out heads (once per result that has some)."""
        result = self.state.result
        if result is None or not result.inputs.ablated or self._clean_for == result.request_id:
            return
        self._clean_for = result.request_id
        self.background.run(("clean", result.request_id), lambda: clean_of(result))

    def request_found(self) -> None:
        """The head finder's scores (once per weights)."""
        result = self.state.result
        if result is None:
            return
        if self._found is not None and self._found.weights_uid == result.weights.uid:
            self.foundReady.emit(self._found)
            return
        if self._found_for == result.weights.uid:
            return
        self._found_for = result.weights.uid
        self.background.run(("found", result.weights.uid), lambda: found_of(result))

    def request_without_first(self) -> None:
        result = self.state.result
        if result is None or len(result.inputs.tokens) < 2 or self._without_for == result.request_id:
            return
        self._without_for = result.request_id
        if memory.estimate(result.inputs.config, len(result.inputs.tokens) - 1).compute > UNMASKED_MAX_BYTES:
            self.state.message.emit("info", tr("The sinks view compares with a run without the first token only up "
                                               "to {size} of intermediates.").format(
                size=message(memory.bytes_message(UNMASKED_MAX_BYTES))))
            return
        self.background.run(("without_first", result.request_id), lambda: without_first(result))

    def request_b(self) -> None:
        """A/B's side B for the result on screen and the selected condition (once per pair)."""
        result = self.state.result
        if result is None:
            return
        condition = condition_of(self.state.selection, result.inputs.config)
        key = (result.request_id, condition)
        if self._b_for == key:
            if self.side is not None and (self.side.request_id, self.side.condition) == key:
                self._side_ready(self.side)                 # computed already (a calibrator test again)
            return
        self._b_for = key
        self.background.run(("ab", key), lambda: side_b(result, condition))

    def _side_ready(self, side: Side) -> None:
        self.side = side
        self.abReady.emit(side)
        p = self._pending
        if p is not None and p["key"] == (side.request_id, side.condition):
            self._measure(side)

    def keep_ab(self) -> None:
        """Make side B the lab's inputs: A/B's condition applied as one undoable edit."""
        s = self.state
        result = s.result
        if result is None or s.busy:
            s.message.emit("info", tr("Wait for the current computation, then try again."))
            return
        inputs, cfg = result.inputs, result.inputs.config
        change, value = condition_of(s.selection, cfg)
        if change == "mask_off":
            ok = s.set_config(causal=not cfg.causal)
        elif change == "scaling_off":
            ok = s.set_config(scale_scores=not cfg.scale_scores)
        elif change == "d_head_x4":
            ok = s.set_config(d_head=cfg.d_head * 4)
        elif change == "rope_theta":
            ok = s.set_config(rope_theta=float(value))
        elif change == "n_kv_heads":
            try:
                new, pooled = shared_kv.pool_kv(cfg, result.weights, int(value))
            except (ConfigError, WeightsError) as exc:
                s.message.emit("error", error_text(exc))
                return
            entry = s.registry.get(inputs.weights)
            name = s.register_weights(pooled, entry.tokenizer if entry is not None else None,
                                      tr("{weights}, K/V heads pooled to {n}").format(weights=s.weights_label(),
                                                                                      n=new.n_kv_heads))
            ok = s.edit(tr("Pool the K/V heads to {n}").format(n=new.n_kv_heads), config=new, weights=name,
                        preset="custom")
        elif change == "move_token":
            ok = s.move_token(*value)
        elif change == "weights":
            ok = s.set_weights("trained") if value == "trained" else s.set_seed(int(value))
        elif change == "knock_out":
            ok = (tuple(value) in inputs.ablated) or s.toggle_ablation(*value)
        else:                                               # another head: a view, not an edit
            s.select(head=int(value))
            ok = True
        if ok:
            s.select(ab=None)
            self.calibrated.emit(tr("The change is now the lab's (Edit ▸ Undo takes it back)."), self.correct,
                                 self.total, False)

    # -- plumbing ---------------------------------------------------------------------------------------------
    def _on_result(self, result: LabResult) -> None:
        if self.state.selection.station == "mask":
            self.request_unmasked()
        self.request_page_extra()

    def _on_selection(self, sel) -> None:
        if sel.station == "mask":
            self.request_unmasked()
        self.request_page_extra()

    def _done(self, tag, value, error) -> None:
        kind = tag[0]
        if kind == "kv":
            self._kv_running = False
            if error is None and tag[1] == "prefill":
                self.generation, self._generation_weights = value
            if error is None:
                self.generationChanged.emit(self.generation)
        if kind == "sqrt":
            self._sqrt_running.discard(tag[1])         # failed or not, it may be asked for again
        if kind == "ab":
            rid, condition = tag[1]
            if error is not None:
                known = isinstance(error, (ConfigError, MemoryError, WeightsError))
                why = (error_text(error) or tr("not enough memory")) if known else f"{type(error).__name__}: {error}"
                value = Side(rid, condition, None, None, error=why)
            if self._b_for == tag[1]:                  # the newest asked for: others are stale
                self._side_ready(value)
            return
        if kind in ("clean", "found") and error is None:
            current = self.state.result
            if kind == "found":
                self._found = value
                if current is not None and current.weights.uid == tag[1]:
                    self.foundReady.emit(value)
            elif current is not None and current.request_id == tag[1]:
                self.cleanReady.emit(value)
            return
        if kind == "found":
            self._found_for = None                       # failed: it may be asked for again
        if kind == "without_first":
            current = self.state.result
            if error is None and value is not None and current is not None and current.request_id == tag[1]:
                self.withoutFirstReady.emit(value)
                return
        if error is not None:
            if isinstance(error, (ConfigError, MemoryError)):
                self.state.message.emit("error", error_text(error) or tr("not enough memory"))
            else:
                self.state.message.emit("error", f"{kind}: {type(error).__name__}: {error}")
            return
        if kind == "sqrt":
            self._sqrt_cache[tag[1]] = value
            if tag[1] == self.state.selection.d_k:          # a slider dragged on: only the latest
                self.sqrtReady.emit(value)
        elif kind == "unmasked":
            current = self.state.result
            if current is not None and current.request_id == tag[1]:
                self.unmaskedReady.emit(value)
