"""Row kernels: LayerNorm, RMSNorm and the row softmax. One block per row, its threads striding along the row,
their partial results combined by a tree reduction in shared memory (warp shuffles would be
faster, but the simulator does not simulate them, and one code path is tested everywhere).
"""
from __future__ import annotations

import math

import numpy as np
from numba import cuda, float32

from .target import SIMULATOR, device_function, kernel

# Threads per row, a power of two (tree reduction). The simulator pays for every thread and barrier.
ROW_THREADS = 2 if SIMULATOR else 128
LN_EPS = np.float32(1e-5)
NEG_INF = np.float32(-np.inf)


def set_row_threads(n: int) -> int:
    """Change ROW_THREADS (simulator only, a power of two); returns the previous value."""
    global ROW_THREADS
    if not SIMULATOR:
        raise RuntimeError("ROW_THREADS is fixed once kernels are compiled for a GPU")
    if n < 1 or n & (n - 1):
        raise ValueError(f"ROW_THREADS must be a power of two, got {n}")
    old, ROW_THREADS = ROW_THREADS, n
    return old


@device_function
def _block_sum(partial, value):
    """Σ of `value` over the block's threads, returned to every thread (float32 tree reduction in
    the shared array `partial` [ROW_THREADS]; each reduction of a kernel has its own array, so no
    barrier is needed after it)."""
    tid = cuda.threadIdx.x
    partial[tid] = value
    cuda.syncthreads()
    step = ROW_THREADS // 2
    while step > 0:
        if tid < step:
            partial[tid] += partial[tid + step]
        cuda.syncthreads()
        step //= 2
    return partial[0]


@device_function
def _block_max(partial, value):
    """max of `value` over the block's threads, returned to every thread (as `_block_sum`)."""
    tid = cuda.threadIdx.x
    partial[tid] = value
    cuda.syncthreads()
    step = ROW_THREADS // 2
    while step > 0:
        if tid < step:
            partial[tid] = max(partial[tid], partial[tid + step])
        cuda.syncthreads()
        step //= 2
    return partial[0]


@kernel
def layer_norm(x, w, b, eps, mean, var, out):
    """out[t] = (x[t] - mean[t]) / sqrt(var[t] + eps) · w + b, mean and (biased) var over row t."""
    t = cuda.blockIdx.x
    T, d = x.shape
    if t >= T:                             # whole block leaves together: no barrier is split
        return
    tid = cuda.threadIdx.x
    sums = cuda.shared.array(ROW_THREADS, float32)                     # per-thread Σ x
    squares = cuda.shared.array(ROW_THREADS, float32)                  # per-thread Σ (x - mean)²
    s = float32(0.0)
    for c in range(tid, d, ROW_THREADS):
        s += x[t, c]
    mu = _block_sum(sums, s) / float32(d)                             # mean[t]
    ss = float32(0.0)
    for c in range(tid, d, ROW_THREADS):   # two passes: Σ(x - mean)² does not cancel like Σx² - ...
        diff = x[t, c] - mu
        ss += diff * diff
    sigma2 = _block_sum(squares, ss) / float32(d)                     # var[t], biased
    inv_std = float32(1.0) / math.sqrt(sigma2 + eps)
    for c in range(tid, d, ROW_THREADS):
        out[t, c] = (x[t, c] - mu) * inv_std * w[c] + b[c]
    if tid == 0:
        mean[t] = mu
        var[t] = sigma2


@kernel
def rms_norm(x, w, eps, scale, out):
    """scale[t] = sqrt(mean_c x[t, c]² + eps);  out[t] = x[t] / scale[t] · w  (RMSNorm: no mean, no bias)."""
    t = cuda.blockIdx.x
    T, d = x.shape
    if t >= T:                             # whole block leaves together: no barrier is split
        return
    tid = cuda.threadIdx.x
    squares = cuda.shared.array(ROW_THREADS, float32)                  # per-thread Σ x²
    ss = float32(0.0)
    for c in range(tid, d, ROW_THREADS):
        ss += x[t, c] * x[t, c]
    rms = math.sqrt(_block_sum(squares, ss) / float32(d) + eps)        # scale[t]
    inv = float32(1.0) / rms
    for c in range(tid, d, ROW_THREADS):
        out[t, c] = x[t, c] * inv * w[c]
    if tid == 0:
        scale[t] = rms


@kernel
def softmax_rows(attn_scores, causal, window, first_row, pattern):
    """pattern[h, i, j] = exp(s_ij - max_j s_ij) / Σ_j exp(s_ij - max_j s_ij), s = attn_scores[h]."""
    # A row with no allowed key (all -inf) is all zeros, as in PyTorch's SDPA. Keys outside
    # [lo, limit) (after i when causal; W or more away with a window W) are never exponentiated,
    # and are written as exact zeros. Row i is position first_row + i (an incremental pass's new
    # rows; 0.. in a full pass): the limits are that position's.
    i, h = cuda.blockIdx.x, cuda.blockIdx.y
    n, T = attn_scores.shape[1], attn_scores.shape[2]
    if i >= n:
        return
    tid = cuda.threadIdx.x
    maxima = cuda.shared.array(ROW_THREADS, float32)                   # per-thread max
    sums = cuda.shared.array(ROW_THREADS, float32)                     # per-thread Σ exp
    at = first_row + i                     # the query's position
    limit = at + 1 if causal else T        # keys >= limit are masked by causality
    lo = 0
    if window > 0:                         # and keys outside the window
        lo = max(at - window + 1, 0)
        if not causal:
            limit = min(at + window, T)
    m = NEG_INF
    for j in range(lo + tid, limit, ROW_THREADS):
        m = max(m, attn_scores[h, i, j])
    row_max = _block_max(maxima, m)
    if row_max == NEG_INF:                 # fully masked row (same answer in every thread)
        for j in range(tid, T, ROW_THREADS):
            pattern[h, i, j] = float32(0.0)
        return
    s = float32(0.0)
    for j in range(lo + tid, limit, ROW_THREADS):
        e = math.exp(attn_scores[h, i, j] - row_max)      # minus the max: no overflow; exp(-inf) = 0
        pattern[h, i, j] = e
        s += e
    inv_total = float32(1.0) / _block_sum(sums, s)
    for j in range(lo + tid, limit, ROW_THREADS):   # each thread rescales the entries it wrote
        pattern[h, i, j] *= inv_total
    for j in range(tid, lo, ROW_THREADS):
        pattern[h, i, j] = float32(0.0)
    for j in range(limit + tid, T, ROW_THREADS):
        pattern[h, i, j] = float32(0.0)


@kernel
def scale_mask_softmax(raw, causal, mask, has_mask, scale, window, scaled, masked, pattern):
    """scaled = raw · scale (1/sqrt(d_head) or 1); masked = scaled or -inf (forbidden j); pattern = softmax(masked)."""
    # The cuBLAS path's attention epilogue: raw [H, T, T] comes from a batched GEMM, and one read of
    # each row makes the three other maps. Forbidden: j > i when causal, outside the window, mask[i, j]
    # False when has_mask; `window` and the causal limit bound the keys that are ever exponentiated.
    i, h = cuda.blockIdx.x, cuda.blockIdx.y
    T = raw.shape[2]
    if i >= T:
        return
    tid = cuda.threadIdx.x
    maxima = cuda.shared.array(ROW_THREADS, float32)                   # per-thread max
    sums = cuda.shared.array(ROW_THREADS, float32)                     # per-thread Σ exp
    limit = i + 1 if causal else T         # keys >= limit are masked by causality
    lo = 0
    if window > 0:                         # and keys outside the window
        lo = max(i - window + 1, 0)
        if not causal:
            limit = min(i + window, T)
    m = NEG_INF
    for j in range(tid, T, ROW_THREADS):   # every key: the Trace shows scaled and masked everywhere
        s = raw[h, i, j] * scale
        scaled[h, i, j] = s
        allowed = lo <= j < limit and (not has_mask or mask[i, j])
        v = s if allowed else NEG_INF
        masked[h, i, j] = v
        m = max(m, v)
    row_max = _block_max(maxima, m)
    if row_max == NEG_INF:                 # fully masked row (same answer in every thread)
        for j in range(tid, T, ROW_THREADS):
            pattern[h, i, j] = float32(0.0)
        return
    total = float32(0.0)
    for j in range(tid, T, ROW_THREADS):   # each thread reads back only what it wrote: no barrier
        e = math.exp(masked[h, i, j] - row_max) if lo <= j < limit else float32(0.0)   # exp(-inf) = 0
        pattern[h, i, j] = e
        total += e
    inv_total = float32(1.0) / _block_sum(sums, total)
    for j in range(tid, limit, ROW_THREADS):   # the entries this thread wrote
        if j >= lo:
            pattern[h, i, j] *= inv_total


@kernel
def soft_cap_scores(scaled, cap, capped, masked):
    """capped = cap·tanh(scaled / cap) (Gemma 2); masked = capped where the mask allows (masked > -inf)."""
    # After the scores (numba path) or scale_mask_softmax (cuBLAS path), before the softmax: one read
    # of the scaled row; the forbidden keys stay -inf, the Trace shows every capped score.
    i, h = cuda.blockIdx.x, cuda.blockIdx.y
    if i >= scaled.shape[1]:
        return
    for j in range(cuda.threadIdx.x, scaled.shape[2], ROW_THREADS):
        c = cap * math.tanh(scaled[h, i, j] / cap)
        capped[h, i, j] = c
        if masked[h, i, j] != NEG_INF:
            masked[h, i, j] = c


# -- launch helpers --------------------------------------------------------------------------------
def launch_layer_norm(x, w, b, mean, var, out, eps=1e-5, stream=0):
    layer_norm[x.shape[0], ROW_THREADS, stream](x, w, b, np.float32(eps), mean, var, out)


def launch_rms_norm(x, w, scale, out, eps, stream=0):
    rms_norm[x.shape[0], ROW_THREADS, stream](x, w, np.float32(eps), scale, out)


def launch_softmax_rows(attn_scores, causal, pattern, window=0, stream=0, first_row=0):
    """attn_scores and pattern [H, n, T]: the rows of the positions first_row.."""
    H, n, _ = attn_scores.shape
    softmax_rows[(n, H), ROW_THREADS, stream](attn_scores, causal, window, first_row, pattern)


def launch_scale_mask_softmax(raw, causal, mask, has_mask, scale, window, scaled, masked, pattern, stream=0):
    """`scale` = 1/sqrt(d_head), or 1 for no scaling."""
    H, T, _ = raw.shape
    scale_mask_softmax[(T, H), ROW_THREADS, stream](raw, causal, mask, has_mask, np.float32(scale), window,
                                                    scaled, masked, pattern)


def launch_soft_cap_scores(scaled, cap, capped, masked, stream=0):
    """scaled, capped, masked [H, n, T] (rows of the maps, views too); `cap` > 0 (Gemma 2: 50)."""
    H, n, _ = scaled.shape
    soft_cap_scores[(n, H), ROW_THREADS, stream](scaled, np.float32(cap), capped, masked)
