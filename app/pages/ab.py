"""A/B: side B (the same inputs with one change, a fresh forward pass) is computed off the UI thread
once per (result, condition); "keep" makes B the lab's inputs as one undoable edit. The calibrator
(app/instruments.py) tests its predictions on side B too (`sideReady`)."""
from __future__ import annotations

from PySide6.QtCore import Signal

from compute import ConfigError, WeightsError
from compute.instruments import ab, shared_kv
from compute.models.components import mistakes
from widgets.i18n import error_text, tr
from widgets.pages.instrument_views import Side, condition_of, side_b

from . import PageController


class Controller(PageController):
    sideReady = Signal(object)              # widgets.pages.instrument_views.Side: side B, the newest
    kept = Signal()                         # side B became the lab's inputs

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._for = None                    # (request id, condition) side B was asked for
        self.side: Side | None = None

    def wire(self, page) -> None:
        s = self.state                      # lambdas hold the state, never a QObject that dies first
        page.conditionChosen.connect(lambda cond: s.select(ab=cond))
        page.keepRequested.connect(self.keep)

    def request(self) -> None:
        """Side B for the result on screen and the selected condition (once per pair)."""
        result = self.state.result
        if result is None:
            return
        condition = condition_of(self.state.selection, result.inputs.config)
        key = (result.request_id, condition)
        if self._for == key:
            if self.side is not None and (self.side.request_id, self.side.condition) == key:
                self._ready(self.side)                  # computed already (a calibrator test again)
            return
        self._for = key
        self.background.run(("ab", key), lambda: side_b(result, condition))

    def done(self, tag, value, error) -> None:
        rid, condition = tag[1]
        if error is not None:
            known = isinstance(error, (ConfigError, MemoryError, WeightsError))
            why = (error_text(error) or tr("not enough memory")) if known else f"{type(error).__name__}: {error}"
            value = Side(rid, condition, None, None, error=why)
        if self._for == tag[1]:                         # the newest asked for: others are stale
            self._ready(value)

    def _ready(self, side: Side) -> None:
        self.side = side
        self.deliver(side)
        self.sideReady.emit(side)

    def keep(self) -> None:
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
        elif change == "mistake":
            ok = self._keep_mistake(result, value)
        else:                                               # another head: a view, not an edit
            s.select(head=int(value))
            ok = True
        if ok:
            s.select(ab=None)
            self.kept.emit()

    def _keep_mistake(self, result, key: str) -> bool:
        """The model loaded wrong as the lab's inputs: its config, and its rewritten weights
        registered as a set of their own, in one undoable edit."""
        s, inputs, cfg = self.state, result.inputs, result.inputs.config
        try:
            wrong = ab.loaded_wrong(cfg, result.weights, inputs.tokens, key)
        except (ConfigError, WeightsError) as exc:
            s.message.emit("error", error_text(exc))
            return False
        title = tr(next(m.title for m in mistakes(cfg) if m.key == key))
        text = tr("Load the model wrong: {mistake}").format(mistake=title)
        if wrong.weights is result.weights:                  # the same weights, another config
            return s.edit(text, config=wrong.cfg, preset="custom")
        entry = s.registry.get(inputs.weights)
        name = s.register_weights(wrong.weights, entry.tokenizer if entry is not None else None,
                                  tr("{weights}, loaded wrong: {mistake}").format(weights=s.weights_label(),
                                                                                  mistake=title))
        return s.edit(text, config=wrong.cfg, weights=name, preset="custom")
