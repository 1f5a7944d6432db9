"""`cpu`: float32, BLAS for the matrix products, numba for the fused row-wise steps.

Uses the causal structure: the softmax never exponentiates a masked key, and pattern @ v skips
the blocks of the pattern above the diagonal, which are known to be zero.

Threads: OpenBLAS's own worker threads keep spinning after each product and steal the cores from
the numba kernel that follows (measured on a 2-core machine: the softmax took 45 ms after a
product, 18 ms alone). So during a forward pass BLAS runs single-threaded, and each large product
is split in two along its leading axis, one half on a helper thread; idle threads then sleep.
The softmax, the largest row-wise step, is split the same way (heads) on the same two threads.
"""
from __future__ import annotations

import os
import threading
import time
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from threadpoolctl import ThreadpoolController

from ..config import Config
from ..names import layer_values
from ..weights import Weights
from .. import memory, progress
from . import cpu_kernels as K
from .base import Backend, BackendOutput
from .pool import BufferPool

# Row-block height for the causal pattern @ v: blocks above the diagonal are skipped.
CAUSAL_BLOCK = 128
# Products smaller than this many multiply-adds run in one call (splitting costs ~50 us).
SPLIT_MIN_MACS = 1 << 22
# numba's parallel kernels are entered by one thread at a time (the app computes off-thread,
# tests may too; not every numba threading layer is safe for concurrent entry).
_KERNEL_LOCK = threading.RLock()
_BLAS = ThreadpoolController()
_N_SPLIT = max(1, min(2, os.cpu_count() or 1))
_HELPER = ThreadPoolExecutor(max_workers=_N_SPLIT - 1, thread_name_prefix="qkv-blas") if _N_SPLIT > 1 else None


def keep_blas_single_threaded() -> None:
    """Limit OpenBLAS to one thread for the whole process (an application's choice, made by
    app/). The forward pass splits its products over its own two threads; a BLAS call anywhere
    else (a view computing a row of logits on the UI thread) would otherwise wake OpenBLAS's pool,
    whose threads then spin on the cores the next forward needs (measured in the app: andrea-120m
    T=256 took 53 ms with the MLP station shown, 27 ms with this)."""
    global _GLOBAL_LIMIT
    if _GLOBAL_LIMIT is not None:
        return
    with _KERNEL_LOCK:                                 # not while a forward holds its own limit
        if _GLOBAL_LIMIT is None:
            _GLOBAL_LIMIT = _BLAS.limit(limits=1, user_api="blas")


_GLOBAL_LIMIT = None


def matmul(a: np.ndarray, b: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """a @ b (numpy broadcasting rules); large products are split along the leading output axis
    between this thread and a helper, each running single-threaded BLAS."""
    if out is None:
        batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        out = np.empty(batch + (a.shape[-2], b.shape[-1]), np.result_type(a, b))
    n = out.shape[0]
    macs = out.size * a.shape[-1]
    if _HELPER is None or n < 2 or macs < SPLIT_MIN_MACS:
        return np.matmul(a, b, out=out)
    h = n // 2
    # The leading output axis is a's rows for a 2-D a, else the batch axis of a (and of b if 3-D).
    a1, a2 = a[:h], a[h:]
    b1, b2 = (b[:h], b[h:]) if b.ndim == 3 and a.ndim == 3 else (b, b)
    first = _HELPER.submit(np.matmul, a1, b1, out=out[:h])
    np.matmul(a2, b2, out=out[h:])
    first.result()
    return out


def halves(kernel, split: tuple[int, ...], *args) -> None:
    """Run a row-wise kernel with the arguments at positions `split` cut in two along their first
    axis: one half on the BLAS helper thread, one here, each with the serial build. Numba's own
    pool would wake other threads onto the cores the products just used (measured at andrea-120m,
    T=1024: the softmax took 13-17 ms that way, 10.5 ms split like this). Only for kernels whose
    serial build vectorises as well as the parallel one (bias_gelu's does not: 33 ms vs 2.6 ms)."""
    n = args[split[0]].shape[0]
    if _HELPER is None or n < 2 or args[split[0]].size < K.PARALLEL_MIN_SIZE:
        kernel(*args)                                  # small: one thread (or numba's choice)
        return
    h = n // 2
    first = [a[:h] if i in split else a for i, a in enumerate(args)]
    second = [a[h:] if i in split else a for i, a in enumerate(args)]
    pending = _HELPER.submit(kernel.serial, *first)
    kernel.serial(*second)
    pending.result()


class _Prepared:
    """Per-weights layouts for one fused projection per block, made once and reused."""

    def __init__(self, cfg: Config, weights: Weights):
        H, dh, dm = cfg.n_heads, cfg.d_head, cfg.d_model
        self.W_QKV, self.b_QKV = [], []
        for layer in range(cfg.n_layers):
            p = f"blocks.{layer}.attn."
            # [H, d_model, dh] -> [d_model, H*dh] for each of Q, K, V, side by side: [d_model, 3*H*dh]
            mats = [weights[p + n].transpose(1, 0, 2).reshape(dm, H * dh) for n in ("W_Q", "W_K", "W_V")]
            self.W_QKV.append(np.ascontiguousarray(np.concatenate(mats, axis=1)))  # [d_model, 3*H*dh]
            self.b_QKV.append(np.concatenate([weights[p + n].reshape(-1) for n in ("b_Q", "b_K", "b_V")]))


class CpuBackend(Backend):
    name = "cpu"
    dtype = np.dtype(np.float32)

    def __init__(self) -> None:
        self._prepared: OrderedDict[int, _Prepared] = OrderedDict()
        self._prep_lock = threading.Lock()
        # Recycles the big outputs of dropped Traces (see pool.py); a quarter of the budget at most.
        self.pool = BufferPool(max_bytes=min(4 << 30, memory.budget_bytes() // 4))
        memory.register_reclaimer(self.pool.release)

    def label(self) -> str:
        import numba

        return f"cpu (numba, {numba.get_num_threads()} threads)"

    def _prepare(self, cfg: Config, weights: Weights) -> _Prepared:
        key = (weights.uid, cfg.n_heads, cfg.d_head)
        with self._prep_lock:
            if key not in self._prepared:
                self._prepared[key] = _Prepared(cfg, weights)
                while len(self._prepared) > 2:          # the current weights and the previous
                    self._prepared.popitem(last=False)
            self._prepared.move_to_end(key)
            return self._prepared[key]

    def warm_up(self) -> None:
        """Compile (or load from cache) every kernel with tiny inputs."""
        x = np.ones((2, 4), np.float32)
        m, v, o = np.empty(2, np.float32), np.empty(2, np.float32), np.empty_like(x)
        raw = np.ones((1, 2, 2), np.float32)
        s1, s2, s3 = np.empty_like(raw), np.empty_like(raw), np.empty_like(raw)
        res = np.ones((2, 1, 4), np.float32)
        with _KERNEL_LOCK:
            K.layer_norm(x, x[0], x[0], m, v, o)
            K.scale_mask_softmax(raw, np.float32(1.0), True, np.ones((1, 1), np.bool_), False, s1, s2, s3)
            K.bias_gelu(x, x[0], o)
            heads = np.empty((2, 2, 2), np.float32)                       # [H=2, T=2, dh=2]
            K.bias_split_heads(np.ones((2, 12), np.float32), np.ones(12, np.float32), heads, heads.copy(), heads.copy())
            K.add_rows(x, x, o)
            K.add_bias(o, x[0])
            K.sum_heads_plus_bias(res, x[0], o)

    def run(self, cfg: Config, weights: Weights, tokens: np.ndarray,
            attn_mask: np.ndarray | None) -> BackendOutput:
        with _KERNEL_LOCK, _BLAS.limit(limits=1, user_api="blas"):
            return self._run(cfg, weights, tokens, attn_mask)

    def _run(self, cfg, weights, tokens, attn_mask) -> BackendOutput:
        t_start = time.perf_counter()
        timing: dict[str, float] = {}
        last = [t_start]

        n_stages = 1 + 7 * cfg.n_layers
        done = [0]

        def lap(stage: str) -> None:  # time since the previous lap, summed over layers
            now = time.perf_counter()
            timing[stage] = timing.get(stage, 0.0) + (now - last[0]) * 1e3
            last[0] = now
            done[0] += 1
            progress.report(stage, done[0] / n_stages)
        prep = self._prepare(cfg, weights)
        new = self.pool.empty
        T, H, dh, dm, dmlp = len(tokens), cfg.n_heads, cfg.d_head, cfg.d_model, cfg.d_mlp
        hd = H * dh
        f32 = np.float32
        scale = f32(1.0 / np.sqrt(dh)) if cfg.scale_scores else f32(1.0)
        mask = np.ones((1, 1), np.bool_) if attn_mask is None else np.ascontiguousarray(attn_mask, np.bool_)
        out: dict = {"tokens": tokens}

        # mode="clip" (ids were validated by forward): "raise" would copy through a buffer
        embed = np.take(weights["embed.W_E"], tokens, axis=0, out=new((T, dm)), mode="clip")  # [T, d_model]
        pos_embed = weights["pos_embed.W_pos"][:T]                          # [T, d_model] (read-only view)
        resid = new((T, dm))                                      # [T, d_model]
        K.add_rows(embed, pos_embed, resid)
        out["embed"], out["pos_embed"] = embed, pos_embed
        lap("embed")

        for layer in range(cfg.n_layers):
            wb = weights.block(layer)
            resid_pre = resid                                               # [T, d_model]
            ln1_mean, ln1_var = np.empty(T, f32), np.empty(T, f32)          # [T], [T]
            ln1_out = new((T, dm))                                # [T, d_model]
            K.layer_norm(resid_pre, wb["ln1.w"], wb["ln1.b"], ln1_mean, ln1_var, ln1_out)
            lap("ln1")

            qkv = matmul(ln1_out, prep.W_QKV[layer], out=new((T, 3 * hd)))  # [T, 3*H*dh] one product
            # Head-major copies of q, k, v (made with the bias add) let BLAS run at full speed per head.
            qh, kh, vh = new((H, T, dh)), new((H, T, dh)), new((H, T, dh))  # [H, T, dh] each
            K.bias_split_heads(qkv, prep.b_QKV[layer], qh, kh, vh)
            q = qkv[:, 0 * hd:1 * hd].reshape(T, H, dh)                      # [T, H, dh] (view)
            k = qkv[:, 1 * hd:2 * hd].reshape(T, H, dh)                      # [T, H, dh] (view)
            v = qkv[:, 2 * hd:3 * hd].reshape(T, H, dh)                      # [T, H, dh] (view)
            lap("qkv")

            attn_scores_raw = matmul(qh, kh.transpose(0, 2, 1), out=new((H, T, T)))  # [H, T, T]  q_i . k_j
            lap("scores")
            attn_scores_scaled = new((H, T, T))                             # [H, T, T]
            attn_scores = new((H, T, T))                                    # [H, T, T]
            pattern = new((H, T, T))                                        # [H, T, T]
            halves(K.scale_mask_softmax, (0, 5, 6, 7), attn_scores_raw, scale, cfg.causal, mask,
                   attn_mask is not None, attn_scores_scaled, attn_scores, pattern)  # split by head
            lap("softmax")

            zh = new((H, T, dh))                                  # [H, T, dh]
            if cfg.causal:
                # Row block [r0, r1) only sees keys < r1: the rest of its pattern rows are zero.
                for r0 in range(0, T, CAUSAL_BLOCK):
                    r1 = min(r0 + CAUSAL_BLOCK, T)
                    matmul(pattern[:, r0:r1, :r1], vh[:, :r1], out=zh[:, r0:r1])  # [H, r1-r0, dh]
            else:
                matmul(pattern, vh, out=zh)                                 # [H, T, dh]
            z = new((T, H, dh))                                             # [T, H, dh]
            z[...] = zh.transpose(1, 0, 2)
            z_concat = z.reshape(T, hd)                                     # [T, H*dh] (view)
            lap("pattern @ v")

            # Each head's share of attn_out, z_h @ W_O[h]; computed head-major for BLAS and
            # handed out as a [T, H, d_model] view (no copy of the largest per-head array).
            result = matmul(zh, wb["attn.W_O"], out=new((H, T, dm))).transpose(1, 0, 2)  # [T, H, d_model]
            attn_out = new((T, dm))                               # [T, d_model]
            halves(K.sum_heads_plus_bias, (0, 2), result, wb["attn.b_O"], attn_out)  # split by token
            resid_mid = new((T, dm))                              # [T, d_model]
            K.add_rows(resid_pre, attn_out, resid_mid)
            lap("W_O")

            ln2_mean, ln2_var = np.empty(T, f32), np.empty(T, f32)          # [T], [T]
            ln2_out = new((T, dm))                                # [T, d_model]
            K.layer_norm(resid_mid, wb["ln2.w"], wb["ln2.b"], ln2_mean, ln2_var, ln2_out)
            mlp_pre = matmul(ln2_out, wb["mlp.W_in"], out=new((T, dmlp)))   # [T, d_mlp] (bias below)
            mlp_post = new((T, dmlp))                                       # [T, d_mlp]
            K.bias_gelu(mlp_pre, wb["mlp.b_in"], mlp_post)                  # mlp_pre += b_in; GELU(mlp_pre)
            mlp_out = matmul(mlp_post, wb["mlp.W_out"])                     # [T, d_model]
            K.add_bias(mlp_out, wb["mlp.b_out"])
            resid_post = new((T, dm))                             # [T, d_model]
            K.add_rows(resid_mid, mlp_out, resid_post)
            resid = resid_post
            lap("mlp")

            out.update(layer_values(layer, locals()))

        ln_final_out = new((T, dm))                               # [T, d_model]
        K.layer_norm(resid, weights["ln_final.w"], weights["ln_final.b"],
                     np.empty(T, f32), np.empty(T, f32), ln_final_out)
        out["ln_final_out"] = ln_final_out
        W_E = weights["embed.W_E"]                                          # [d_vocab, d_model]

        def logits_fn(rows):
            return ln_final_out[rows] @ W_E.T                               # [R, d_vocab] (tied)

        timing["total"] = (time.perf_counter() - t_start) * 1e3
        return BackendOutput(out, logits_fn, timing)
