"""The RoPE lab: one query, one key and one head of a rotary model, pair of dimensions by pair.

RoPE (HF's rotate_half convention, the one convention inside; docs/ARCHITECTURE.md, "Model
families") rotates each pair of dimensions (d, d + r/2) of q and k, r = rotary_dim, by
position · θ_d, with θ_d = rope_theta^(−2d / r). A rotation keeps each pair's length, and the dot
product of two rotated pairs depends only on the difference of their angles:

    q_rot[d] · k_rot[d] = |q_d| |k_d| cos(φ_q,d − φ_k,d + (i − j) θ_d)

so the score q_rot · k_rot = Σ_d q_rot[d] · k_rot[d] (+ the dimensions past r, not rotated) sees
the positions only through i − j: shift both by the same offset and it stays; move the key away
and it changes, quickly through the fast pairs (θ_0 = 1 radian per position) and barely through
the slow ones. Everything here is a restatement of that, in float64, from the Trace's q and k
before the rotation (`q`, `k`); the Trace's `rot_q`, `rot_k` are what the model used.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..config import Config
from ..i18n import QT_TR_NOOP, Message
from ..trace import Trace


def frequencies(rotary_dim: int, theta: float) -> np.ndarray:
    """θ_d = theta^(−2d / rotary_dim) for pairs d = 0 … rotary_dim/2 − 1, radians per position."""
    d = np.arange(rotary_dim // 2, dtype=np.float64)                          # [r/2]
    return theta ** (-2.0 * d / rotary_dim)                                   # [r/2]


def pairs(x: np.ndarray, rotary_dim: int) -> np.ndarray:
    """The rotated pairs of a head vector: pair d is (x[d], x[d + r/2]). x [..., d_head] → [..., r/2, 2]."""
    half = rotary_dim // 2
    return np.stack([x[..., :half], x[..., half:2 * half]], axis=-1)         # [..., r/2, 2]


def rotate_pairs(p: np.ndarray, angle: np.ndarray) -> np.ndarray:
    """Each 2-D pair turned by its angle: (a, b) → (a cos α − b sin α, b cos α + a sin α). p [..., P, 2].
    cos and sin in float64, then in p's dtype, as the backends do (a float32 angle of 7,000 rad
    would be off by 5e-4)."""
    angle = np.asarray(angle, np.float64)
    c, s = np.cos(angle).astype(p.dtype), np.sin(angle).astype(p.dtype)       # [..., P]
    a, b = p[..., 0], p[..., 1]                                               # [..., P]
    return np.stack([a * c - b * s, b * c + a * s], axis=-1)                 # [..., P, 2]


def rotate(x: np.ndarray, position, rotary_dim: int, theta: float) -> np.ndarray:
    """x [..., d_head] at `position` (a number, or one per leading index, [...]) rotated the RoPE
    way; dimensions from rotary_dim on pass through. In x's own dtype (float32 stays float32)."""
    x = np.asarray(x)
    half = rotary_dim // 2
    pos = np.broadcast_to(np.asarray(position, np.float64), x.shape[:-1])    # [...]
    angle = pos[..., None] * frequencies(rotary_dim, theta)                   # [..., r/2]
    turned = rotate_pairs(pairs(x, rotary_dim), angle)                        # [..., r/2, 2]
    return np.concatenate([turned[..., 0], turned[..., 1], x[..., 2 * half:]], axis=-1)  # [..., d_head]


def rope_score(q: np.ndarray, k: np.ndarray, i, j, rotary_dim: int, theta: float) -> np.ndarray:
    """q_rot · k_rot for q [d_head] at position i and k [d_head] at position j (i, j numbers or
    arrays of the same shape), computed in q's dtype: the raw score before ÷ √d_head."""
    i, j = np.broadcast_arrays(np.asarray(i, np.float64), np.asarray(j, np.float64))
    q_rot = rotate(np.broadcast_to(q, i.shape + q.shape), i, rotary_dim, theta)    # [..., d_head]
    k_rot = rotate(np.broadcast_to(k, j.shape + k.shape), j, rotary_dim, theta)    # [..., d_head]
    return (q_rot * k_rot).sum(axis=-1)                                           # [...]


@dataclass(frozen=True)
class PairView:
    """One (query i, key j, head) of one layer, pair by pair."""

    layer: int
    head: int                         # the query head
    kv_head: int                      # the K/V head it reads (GQA)
    query: int                        # i
    key: int                          # j
    theta: float
    rotary_dim: int
    d_head: int
    freq: np.ndarray                  # [P] θ_d, P = rotary_dim / 2
    q: np.ndarray                     # [P, 2] q's pairs before the rotation
    k: np.ndarray                     # [P, 2] k's pairs before
    q_rot: np.ndarray                 # [P, 2] after: turned by i · θ_d
    k_rot: np.ndarray                 # [P, 2] after: turned by j · θ_d
    angle_q: np.ndarray               # [P] i · θ_d (radians)
    angle_k: np.ndarray               # [P] j · θ_d
    contributions: np.ndarray         # [P] q_rot[d] · k_rot[d]
    unrotated: np.ndarray             # [P] q[d] · k[d]: the pair's share without RoPE
    rest: float                       # Σ over dimensions ≥ rotary_dim (not rotated)
    score: float                      # Σ contributions + rest = attn_scores_raw[h, i, j]
    scale: float                      # 1/√d_head (or 1 with scaling off)
    q_vec: np.ndarray                 # [d_head] q before the rotation (for the demonstrations)
    k_vec: np.ndarray                 # [d_head]

    @property
    def relative(self) -> np.ndarray:
        """(i − j) · θ_d [P]: the only angle the score sees."""
        return self.angle_q - self.angle_k

    @property
    def norms(self) -> tuple[np.ndarray, np.ndarray]:
        """|q_d| and |k_d| [P] each (the same before and after: a rotation keeps lengths)."""
        return np.linalg.norm(self.q, axis=-1), np.linalg.norm(self.k, axis=-1)


def pair_view(trace: Trace, layer: int, head: int, query: int, key: int) -> PairView:
    """The pairs of q_i (head `head`) and k_j (its K/V head) before and after RoPE, from the Trace."""
    cfg = trace.cfg
    if not cfg.components.positions.rotates:
        raise KeyError(learned_reason(cfg))
    r, theta = cfg.rotary_dim, cfg.components.rotary(layer).base            # the layer's base (Gemma 3)
    g = int(head) // cfg.n_groups
    q_name, k_name = cfg.components.rope_inputs                               # q, k (QK-norm: q_normed, k_normed)
    q_vec = np.asarray(trace.read(q_name, layer, head=head, rows=query), np.float64)   # [d_head]
    k_vec = np.asarray(trace.read(k_name, layer, head=g, rows=key), np.float64)        # [d_head]
    freq = frequencies(r, theta)                                              # [P]
    angle_q, angle_k = query * freq, key * freq                               # [P] each
    q, k = pairs(q_vec, r), pairs(k_vec, r)                                   # [P, 2] each
    q_rot, k_rot = rotate_pairs(q, angle_q), rotate_pairs(k, angle_k)         # [P, 2] each
    contributions = (q_rot * k_rot).sum(axis=-1)                              # [P]
    rest = float(q_vec[r:] @ k_vec[r:])                                       # dims past r: as they are
    return PairView(layer=layer, head=head, kv_head=g, query=query, key=key, theta=theta, rotary_dim=r,
                    d_head=cfg.d_head, freq=freq, q=q, k=k, q_rot=q_rot, k_rot=k_rot, angle_q=angle_q,
                    angle_k=angle_k, contributions=contributions, unrotated=(q * k).sum(axis=-1), rest=rest,
                    score=float(contributions.sum()) + rest,
                    scale=cfg.components.attention.scale, q_vec=q_vec, k_vec=k_vec)


def shifted_scores(view: PairView, offsets: np.ndarray) -> np.ndarray:
    """The same q and k vectors with both positions moved by Δ: score at (i + Δ, j + Δ) [n]."""
    offsets = np.asarray(offsets, np.float64)                                 # [n]
    return rope_score(view.q_vec, view.k_vec, view.query + offsets, view.key + offsets,
                      view.rotary_dim, view.theta)                            # [n]


def distance_scores(view: PairView, distances: np.ndarray) -> np.ndarray:
    """The query kept at i, the same key vector placed at i − distance: score [n]."""
    distances = np.asarray(distances, np.float64)                             # [n]
    return rope_score(view.q_vec, view.k_vec, np.full_like(distances, view.query), view.query - distances,
                      view.rotary_dim, view.theta)                            # [n]


def learned_reason(cfg: Config) -> str:
    """Why a learned-position model has nothing to rotate, and what its W_pos does instead."""
    return Message(QT_TR_NOOP("This model has learned positions: no RoPE, nothing is rotated. W_pos [n_ctx, d_model] = "
                              "[{n_ctx}, {d_model}] gives each position a vector that is added to the token's "
                              "embedding before the first block (pos_embed = W_pos[:T]); q and k then carry content "
                              "and absolute position mixed in one vector, and no position past n_ctx = {n_ctx} has a "
                              "row."), n_ctx=cfg.n_ctx, d_model=cfg.d_model)


def position_similarity(pos_embed: np.ndarray) -> np.ndarray:
    """Cosine similarity of the learned position vectors pos_embed [T, d_model] → [T, T]: what
    W_pos has learned about nearness (a trained model's neighbours are alike)."""
    p = np.asarray(pos_embed, np.float64)                                     # [T, d_model]
    unit = p / np.maximum(np.linalg.norm(p, axis=1, keepdims=True), 1e-30)    # [T, d_model]
    return unit @ unit.T                                                      # [T, T]


THETA_STOPS: tuple[float, ...] = (10.0, 100.0, 1e3, 1e4, 1e5, 5e5, 1e6, 1e7)
