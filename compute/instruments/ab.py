"""A/B: the same inputs under two conditions. A is what the lab shows; B is a copy with one
change, computed by a fresh forward pass of the edited inputs (nothing of A is reused).

A condition is a (change, value) pair, a plain hashable tuple so that it can sit in the view
state. The changes: the causal mask on/off, the 1/√d_head scaling on/off, d_head × 4 (new shapes,
so random weights from the seed), another RoPE θ, another number of K/V heads (the model's own K/V
heads mean-pooled or copied: compute.instruments.shared_kv.pool_kv), one token moved, other weights (random
from a seed, or the trained toy weights), another head of the same pass, and the model loaded wrong
(one classic mistake of compute.models.components.mistakes: RoPE pairs, QK-norm, windows, ...).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..circuits import Ablate
from ..config import Config, ConfigError
from ..forward import check_budget, forward, resolve_backend
from ..i18n import QT_TR_NOOP, Message, Number
from ..models.components import mistakes
from ..trace import Trace
from ..weights import Weights
from .shared_kv import pool_kv

CHANGES: tuple[str, ...] = ("mask_off", "scaling_off", "d_head_x4", "rope_theta", "n_kv_heads", "move_token",
                            "weights", "head", "knock_out", "mistake")


@dataclass(frozen=True)
class Edited:
    """The B side's inputs: its config, weights and tokens, the head it shows, and a note."""

    cfg: Config
    weights: Weights
    tokens: tuple[int, ...]
    head: int | None                  # the head B shows (None: the same as A)
    note: str
    interventions: tuple = ()         # compute.Ablate of a knocked-out head (change 'knock_out')


def default_condition(change: str, cfg: Config, head: int = 0, query: int = 0) -> tuple:
    """A sensible value for a change on this model: θ ten times smaller, MQA, the query's token
    moved to the front, random weights from seed 1, the next head."""
    if change == "rope_theta":
        return (change, cfg.rope_theta / 10 if cfg.rope_theta > 100 else cfg.rope_theta * 100)
    if change == "n_kv_heads":
        return (change, 1 if cfg.n_kv_heads != 1 else cfg.n_heads)
    if change == "move_token":
        return (change, (int(query), 0))
    if change == "weights":
        return (change, 1)
    if change == "head":
        return (change, (int(head) + 1) % cfg.n_heads)
    if change == "knock_out":
        return (change, (0, int(head) % cfg.n_heads))
    if change == "mistake":
        known = mistakes(cfg)
        if not known:
            raise ConfigError("mistake", None, Message(QT_TR_NOOP("this model has none of the parts that are "
                                                                  "classically loaded wrong (RoPE, QK-norm, windows, "
                                                                  "parallel attention and MLP)")))
        return (change, known[0].key)
    if change not in CHANGES:
        raise ConfigError("change", change, f"must be one of {', '.join(CHANGES)}")
    return (change, None)


def edit(cfg: Config, weights: Weights, tokens, condition: tuple, seed: int = 0, trained=None) -> Edited:
    """B's inputs for `condition`; ConfigError (naming the field) when the change cannot be made
    on this model. `trained`: a function giving the trained toy weights, for change 'weights' with
    value 'trained'."""
    change, value = condition
    tokens = tuple(int(t) for t in tokens)
    same = dict(weights=weights, tokens=tokens, head=None)
    if change == "mask_off":
        note = Message(QT_TR_NOOP("causal mask off")) if cfg.causal else Message(QT_TR_NOOP("causal mask on"))
        return Edited(cfg.replace(causal=not cfg.causal), note=note, **same)
    if change == "scaling_off":
        on = not cfg.scale_scores
        note = Message(QT_TR_NOOP("1/√d_head scaling on")) if on else Message(QT_TR_NOOP("1/√d_head scaling off"))
        return Edited(cfg.replace(scale_scores=on), note=note, **same)
    if change == "d_head_x4":
        new = cfg.replace(d_head=cfg.d_head * 4)
        return Edited(new, Weights.random(new, seed), tokens, None,
                      Message(QT_TR_NOOP("d_head {old} → {new}: new shapes, random weights (seed {seed})"),
                              old=cfg.d_head, new=new.d_head, seed=str(seed)))
    if change == "rope_theta":
        if not cfg.components.positions.rotates:
            raise ConfigError("rope_theta", value, Message(QT_TR_NOOP("this model has learned positions, no RoPE to "
                                                                      "change")))
        note = Message(QT_TR_NOOP("RoPE θ {old} → {new}"), old=Number(cfg.rope_theta, "g"),
                       new=Number(float(value), "g"))
        return Edited(cfg.replace(rope_theta=float(value)), note=note, **same)
    if change == "n_kv_heads":
        new, pooled = pool_kv(cfg, weights, int(value))
        how = (QT_TR_NOOP("n_kv_heads {old} → {new} (the K/V heads copied, not retrained)")
               if new.n_kv_heads > cfg.n_kv_heads else
               QT_TR_NOOP("n_kv_heads {old} → {new} (the K/V heads mean-pooled, not retrained)"))
        return Edited(new, pooled, tokens, None, Message(how, old=cfg.n_kv_heads, new=new.n_kv_heads))
    if change == "move_token":
        src, dst = (int(v) for v in value)
        if not (0 <= src < len(tokens) and 0 <= dst < len(tokens)):
            raise ConfigError("move_token", value, Message(QT_TR_NOOP("positions must be 0..{last}"),
                                                           last=str(len(tokens) - 1)))
        moved = list(tokens)
        moved.insert(dst, moved.pop(src))
        return Edited(cfg, weights, tuple(moved), None, Message(QT_TR_NOOP("the token at {src} moved to {dst}"),
                                                                src=str(src), dst=str(dst)))
    if change == "weights":
        if value == "trained":
            if trained is None:
                raise ConfigError("weights", value, Message(QT_TR_NOOP("the trained weights are not available here")))
            return Edited(cfg, trained(), tokens, None, Message(QT_TR_NOOP("the trained toy weights")))
        return Edited(cfg, Weights.random(cfg, int(value)), tokens, None,
                      Message(QT_TR_NOOP("random weights (seed {seed})"), seed=str(int(value))))
    if change == "head":
        h = int(value)
        if not 0 <= h < cfg.n_heads:
            raise ConfigError("head", h, Message(QT_TR_NOOP("this model has heads 0..{last}"),
                                                 last=str(cfg.n_heads - 1)))
        return Edited(cfg, weights, tokens, h, Message(QT_TR_NOOP("head {h} of the same pass"), h=str(h)))
    if change == "knock_out":
        layer, h = (int(v) for v in value)
        if not (0 <= layer < cfg.n_layers and 0 <= h < cfg.n_heads):
            raise ConfigError("knock_out", value, Message(QT_TR_NOOP("this model has layers 0..{layers} and heads "
                                                                     "0..{heads}"), layers=str(cfg.n_layers - 1),
                                                          heads=str(cfg.n_heads - 1)))
        return Edited(cfg, weights, tokens, None, Message(QT_TR_NOOP("head {layer}.{h} knocked out (z = 0)"),
                                                          layer=str(layer), h=str(h)), (Ablate(layer, h),))
    if change == "mistake":
        return loaded_wrong(cfg, weights, tokens, value)
    raise ConfigError("change", change, f"must be one of {', '.join(CHANGES)}")


def loaded_wrong(cfg: Config, weights: Weights, tokens, key: str) -> Edited:
    """B = the same model with the mistake `key` (one of mistakes(cfg)): its fields set, its
    weights permuted or dropped, the tokens the same."""
    known = {m.key: m for m in mistakes(cfg)}
    if key not in known:
        raise ConfigError("mistake", key, Message(QT_TR_NOOP("this model cannot be loaded wrong that way; its "
                                                             "mistakes: {known}"), known=", ".join(known) or "—"))
    m = known[key]
    new = cfg.replace(**dict(m.fields)) if m.fields else cfg
    if m.permuted or m.dropped or not new.same_shapes(cfg):                # weights made for the wrong config
        wrong = Weights.from_dict(new, m.weights({n: weights[n] for n in weights.names()}),
                                  source=f"the weights loaded wrong ({key})")
    else:
        wrong = weights
    return Edited(new, wrong, tuple(int(t) for t in tokens), None,
                  Message(QT_TR_NOOP("loaded wrong: {mistake}"), mistake=Message(m.title)))


def run(cfg: Config, weights: Weights, tokens, condition: tuple, backend: str = "auto", a: Trace | None = None,
        seed: int = 0, trained=None) -> tuple[Edited, Trace]:
    """B: the edited inputs and a fresh forward pass of them (A's own Trace when only the head
    changes and `a` is given). Refused before anything is allocated if it would not fit."""
    b = edit(cfg, weights, tokens, condition, seed=seed, trained=trained)
    if condition[0] == "head" and a is not None:
        return b, a
    check_budget(resolve_backend(backend)[0], b.cfg, len(b.tokens), include_weights=b.weights is not weights)
    return b, forward(b.cfg, b.weights, b.tokens, backend=backend, interventions=b.interventions or None)


def difference(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """B − A in float64, and where it is undefined [same shape] (a masked −inf on either side)."""
    a64, b64 = np.asarray(a, np.float64), np.asarray(b, np.float64)
    undefined = ~(np.isfinite(a64) & np.isfinite(b64))
    with np.errstate(invalid="ignore"):
        return np.where(undefined, np.nan, b64 - a64), undefined
