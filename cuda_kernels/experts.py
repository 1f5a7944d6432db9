"""A mixture of experts on the device (compute/models/components.py `Experts`): the router's
softmax and top-k, one expert's output put into the slots that chose it, and the weighted sum.

The experts themselves are the MLP's own products (products.matmul_bias, elementwise.silu_gate),
run once per expert over every row; `scatter_expert` keeps the rows that chose that expert. That
spends E/k times the products a gather would, and needs no per-expert row lists on the host.
"""
from __future__ import annotations

import math

from numba import cuda, float32

from .elementwise import _grid
from .target import SIMULATOR, cdiv, kernel

ROW_THREADS = 4 if SIMULATOR else 128


@kernel
def route(logits, normalise, probs, weights, chosen):
    """Per row t: probs = softmax(logits[t]); chosen[t] = the k largest probs, largest first (ties:
    the lower expert); weights[t] = probs on the chosen (÷ their sum when `normalise`), else 0."""
    T, E = logits.shape
    k = chosen.shape[1]
    t0 = cuda.grid(1)
    for t in range(t0, T, cuda.gridsize(1)):
        m = logits[t, 0]
        for e in range(1, E):
            m = max(m, logits[t, e])
        total = float32(0.0)
        for e in range(E):
            p = math.exp(logits[t, e] - m)
            probs[t, e] = p
            total += p
        for e in range(E):
            probs[t, e] = probs[t, e] / total
            weights[t, e] = float32(0.0)
        picked = float32(0.0)
        for s in range(k):
            best = -1
            for e in range(E):
                taken = False
                for r in range(s):
                    if chosen[t, r] == e:
                        taken = True
                if not taken and (best < 0 or probs[t, e] > probs[t, best]):
                    best = e
            chosen[t, s] = best
            picked += probs[t, best]
        for s in range(k):
            e = chosen[t, s]
            weights[t, e] = probs[t, e] / picked if normalise else probs[t, e]


@kernel
def scatter_expert(out_e, chosen, e, expert_out):
    """expert_out[t, s] = out_e[t] for every slot s where row t chose expert e."""
    T, d = out_e.shape
    k = chosen.shape[1]
    c0, t0 = cuda.grid(2)
    dc, dt = cuda.gridsize(2)
    for t in range(t0, T, dt):
        for s in range(k):
            if chosen[t, s] == e:
                for c in range(c0, d, dc):
                    expert_out[t, s, c] = out_e[t, c]


@kernel
def mix(expert_out, weights, chosen, resid_mid, mlp_out, resid_post):
    """mlp_out[t] = Σ_s weights[t, chosen[t, s]] · expert_out[t, s];  resid_post = resid_mid + mlp_out."""
    T, d = mlp_out.shape
    k = chosen.shape[1]
    c0, t0 = cuda.grid(2)
    dc, dt = cuda.gridsize(2)
    for t in range(t0, T, dt):
        for c in range(c0, d, dc):
            acc = float32(0.0)
            for s in range(k):
                acc += weights[t, chosen[t, s]] * expert_out[t, s, c]
            mlp_out[t, c] = acc
            resid_post[t, c] = resid_mid[t, c] + acc


def launch_route(logits, normalise, probs, weights, chosen, stream=0):
    T = logits.shape[0]
    route[(max(1, min(cdiv(T, ROW_THREADS), 1024)), ROW_THREADS, stream)](logits, normalise, probs, weights, chosen)


def launch_scatter_expert(out_e, chosen, e, expert_out, stream=0):
    scatter_expert[(*_grid(*out_e.shape), stream)](out_e, chosen, e, expert_out)


def launch_mix(expert_out, weights, chosen, resid_mid, mlp_out, resid_post, stream=0):
    mix[(*_grid(*mlp_out.shape), stream)](expert_out, weights, chosen, resid_mid, mlp_out, resid_post)
