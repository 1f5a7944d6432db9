"""Element-wise kernels: embeddings, RoPE, GELU, SiLU·gate and GELU·gate, the heads' sum, residual adds.

Each thread starts at its (row t, column c) from cuda.grid(2) and strides by the grid size, so a
launch of any size covers any array; the loop bounds are the bounds guards.
"""
from __future__ import annotations

import math

import numpy as np
from numba import cuda, float32

from .target import SIMULATOR, cdiv, kernel

THREADS = (4, 2) if SIMULATOR else (32, 8)          # block shape: (columns, rows)
MAX_BLOCKS = (2, 2) if SIMULATOR else (1024, 1024)  # the grid-stride loops cover the rest
GELU_C = np.float32(math.sqrt(2.0 / math.pi))
GELU_A = np.float32(0.044715)


@kernel
def embed(tokens, W_E, W_pos, has_pos, scale, embed_out, resid_pre):
    """embed[t] = W_E[tokens[t]] · scale;  resid_pre[t] = embed[t] + W_pos[t]  (scale: 1, or √d_model: Gemma)."""
    # The first block's input; with RoPE there is no W_pos.
    T, d_model = embed_out.shape
    c0, t0 = cuda.grid(2)
    dc, dt = cuda.gridsize(2)
    for t in range(t0, T, dt):
        for c in range(c0, d_model, dc):
            e = W_E[tokens[t], c] * scale
            embed_out[t, c] = e
            resid_pre[t, c] = e + W_pos[t, c] if has_pos else e


@kernel
def rope(x, cos, sin, out):
    """out[t, n] = x[t, n] with each pair (i, i + r/2), i < r/2 = cos.shape[1], turned by angle(t, i)."""
    # (x_i, x_{i+r/2}) -> (x_i cos - x_{i+r/2} sin, x_{i+r/2} cos + x_i sin); dims from r on are copied.
    T, n_heads, d_head = x.shape
    half = cos.shape[1]
    c0, t0 = cuda.grid(2)
    dc, dt = cuda.gridsize(2)
    for t in range(t0, T, dt):
        for c in range(c0, n_heads * d_head, dc):
            n, e = c // d_head, c % d_head
            if e < half:
                out[t, n, e] = x[t, n, e] * cos[t, e] - x[t, n, e + half] * sin[t, e]
            elif e < 2 * half:
                i = e - half
                out[t, n, e] = x[t, n, e] * cos[t, i] + x[t, n, i] * sin[t, i]
            else:
                out[t, n, e] = x[t, n, e]


@kernel
def gelu(x, out):
    """out = 0.5·x·(1 + tanh(sqrt(2/π)·(x + 0.044715·x³)))  (GPT-2's tanh approximation)."""
    T, d = x.shape
    c0, t0 = cuda.grid(2)
    dc, dt = cuda.gridsize(2)
    for t in range(t0, T, dt):
        for c in range(c0, d, dc):
            v = x[t, c]
            out[t, c] = float32(0.5) * v * (float32(1.0) + math.tanh(GELU_C * (v + GELU_A * v * v * v)))


@kernel
def gelu_erf(x, out):
    """out = 0.5·x·(1 + erf(x/√2))  (the exact GELU: GPT-NeoX, Pythia)."""
    T, d = x.shape
    c0, t0 = cuda.grid(2)
    dc, dt = cuda.gridsize(2)
    for t in range(t0, T, dt):
        for c in range(c0, d, dc):
            v = x[t, c]
            out[t, c] = float32(0.5) * v * (float32(1.0) + math.erf(v * float32(0.7071067811865476)))


@kernel
def silu_gate(gate, up, out):
    """out = SiLU(gate) · up = gate / (1 + e^(-gate)) · up  (SwiGLU: mlp_post from mlp_pre and mlp_pre_linear)."""
    T, d = out.shape
    c0, t0 = cuda.grid(2)
    dc, dt = cuda.gridsize(2)
    for t in range(t0, T, dt):
        for c in range(c0, d, dc):
            g = gate[t, c]
            out[t, c] = g / (float32(1.0) + math.exp(-g)) * up[t, c]


@kernel
def gelu_gate(gate, up, out):
    """out = GELU(gate) · up with GPT-2's tanh GELU  (GeGLU, Gemma: mlp_post from mlp_pre and mlp_pre_linear)."""
    T, d = out.shape
    c0, t0 = cuda.grid(2)
    dc, dt = cuda.gridsize(2)
    for t in range(t0, T, dt):
        for c in range(c0, d, dc):
            g = gate[t, c]
            out[t, c] = float32(0.5) * g * (float32(1.0) + math.tanh(GELU_C * (g + GELU_A * g * g * g))) * up[t, c]


@kernel
def sum_heads(result, b_O, attn_out):
    """attn_out[t] = Σ_h result[t, h] + b_O: the heads' shares added back together."""
    T, n_heads, d_model = result.shape
    c0, t0 = cuda.grid(2)
    dc, dt = cuda.gridsize(2)
    for t in range(t0, T, dt):
        for c in range(c0, d_model, dc):
            total = b_O[c]
            for h in range(n_heads):
                total += result[t, h, c]
            attn_out[t, c] = total


@kernel
def sum_heads_residual(result, b_O, resid_pre, attn_out, resid_mid):
    """attn_out[t] = Σ_h result[t, h] + b_O;  resid_mid[t] = resid_pre[t] + attn_out[t]  (one pass over result)."""
    T, n_heads, d_model = result.shape
    c0, t0 = cuda.grid(2)
    dc, dt = cuda.gridsize(2)
    for t in range(t0, T, dt):
        for c in range(c0, d_model, dc):
            total = b_O[c]
            for h in range(n_heads):
                total += result[t, h, c]
            attn_out[t, c] = total
            resid_mid[t, c] = resid_pre[t, c] + total


@kernel
def add(a, b, out):
    """out = a + b: the residual adds (resid_mid = resid_pre + attn_out, resid_post = resid_mid + mlp_out)."""
    T, d = out.shape
    c0, t0 = cuda.grid(2)
    dc, dt = cuda.gridsize(2)
    for t in range(t0, T, dt):
        for c in range(c0, d, dc):
            out[t, c] = a[t, c] + b[t, c]


@kernel
def gather(src, out):
    """out[t, c] = src[t, c]: a strided view (one head src[:, h] of [T, n, d]) packed for the bus."""
    T, d = out.shape
    c0, t0 = cuda.grid(2)
    dc, dt = cuda.gridsize(2)
    for t in range(t0, T, dt):
        for c in range(c0, d, dc):
            out[t, c] = src[t, c]


# -- launch helpers --------------------------------------------------------------------------------
def _grid(T: int, d: int):
    """(grid, block) for a [T, d] output: one thread per element up to MAX_BLOCKS."""
    bx, by = THREADS
    return (min(cdiv(d, bx), MAX_BLOCKS[0]), min(cdiv(T, by), MAX_BLOCKS[1])), THREADS


def launch_embed(tokens, W_E, W_pos, embed_out, resid_pre, has_pos=True, stream=0, scale=1.0):
    embed[(*_grid(*embed_out.shape), stream)](tokens, W_E, W_pos, has_pos, np.float32(scale), embed_out, resid_pre)


def launch_rope(x, cos, sin, out, stream=0):
    T, n_heads, d_head = x.shape
    rope[(*_grid(T, n_heads * d_head), stream)](x, cos, sin, out)


def launch_silu_gate(gate, up, out, stream=0):
    silu_gate[(*_grid(*out.shape), stream)](gate, up, out)


def launch_gelu_gate(gate, up, out, stream=0):
    gelu_gate[(*_grid(*out.shape), stream)](gate, up, out)


def launch_gelu(x, out, stream=0):
    gelu[(*_grid(*out.shape), stream)](x, out)


def launch_gelu_erf(x, out, stream=0):
    gelu_erf[(*_grid(*out.shape), stream)](x, out)


def launch_sum_heads(result, b_O, attn_out, stream=0):
    sum_heads[(*_grid(*attn_out.shape), stream)](result, b_O, attn_out)


def launch_sum_heads_residual(result, b_O, resid_pre, attn_out, resid_mid, stream=0):
    sum_heads_residual[(*_grid(*attn_out.shape), stream)](result, b_O, resid_pre, attn_out, resid_mid)


def launch_add(a, b, out, stream=0):
    add[(*_grid(*out.shape), stream)](a, b, out)


def launch_gather(src, out, stream=0):
    gather[(*_grid(*out.shape), stream)](src, out)
