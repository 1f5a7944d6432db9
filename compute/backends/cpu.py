"""`cpu`: float32, BLAS for the matrix products, numba for the fused row-wise steps.

Uses the causal structure: the softmax never exponentiates a masked key, and pattern @ v skips
the keys after a block's last query, whose pattern entries are known to be zero.

Attention runs one block of query rows of one head at a time: its scores, softmax, pattern @ v
and share through W_O follow each other while the block (~1 MB) is still in cache, instead of
each step streaming all heads' T x T arrays through memory again. Of the T x T maps the Trace
keeps `pattern`; the three score maps are made from q and k when a view reads them (score_maps).

Incremental passes (forward(..., reuse=trace), `Reuse`): with the causal mask a row depends only
on the positions up to its own, so a pass whose tokens share their first p ids with an earlier
Trace computes rows p..T-1 only, every stage on those n = T - p rows, attention against all T
keys (rows < p from the KeyCache). The Trace's values are the earlier rows (shared, read-only:
rows.py) followed by the new ones; a full pass is the case p = 0.

Threads: OpenBLAS's own worker threads keep spinning after each product and steal the cores from
the numba kernel that follows (measured on a 2-core machine: the softmax took 45 ms after a
product, 18 ms alone). So during a forward pass BLAS runs single-threaded on two threads of our
own: this one and a helper. Row-wise stretches (LayerNorm, the q/k/v product and head split; the
MLP from LayerNorm to its residual) run on two halves of the rows, each half straight through
without waiting for the other; the attention blocks are shared out between the same two threads.
Idle threads sleep.
"""
from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from functools import lru_cache, partial

import numpy as np

from .. import memory, progress
from ..config import Config
from ..models.components import GeGLU, RMSNorm
from ..models.functions import rope_angles
from ..names import attention_names, mlp_names
from ..trace import Lazy
from ..weights import Weights
from . import checkpoints
from . import cpu_kernels as K
from .base import Backend, BackendOutput, Reuse, Stopwatch
from .blas import (  # noqa: F401 - where they were: the API (keep_blas_single_threaded, lower_priority), tests
    _HELPER,
    _N_SPLIT,
    BLAS,
    KERNEL_LOCK,
    keep_blas_single_threaded,
    lower_priority,
)
from .pool import BufferPool
from .reference import softmax_rows
from .rows import Once, RowParts, leading_rows, rows_value

# Attention works on blocks of query rows whose scores take about this many bytes (L2-sized).
BLOCK_BYTES = 1 << 20
# pattern @ v runs on sub-blocks of this many rows, each with only the keys its rows may see.
PV_ROWS = 64
# A checkpointed pass runs each layer on this many query rows at a time (chunked_layer).
CHUNK_ROWS = 1024
# Row stages smaller than this many multiply-adds run on one thread (splitting costs ~50 us).
SPLIT_MIN_MACS = 1 << 22
# numba's kernels are entered one thread at a time; the BLAS controller (compute/backends/blas.py).
_KERNEL_LOCK = KERNEL_LOCK
_BLAS = BLAS
class _Stopped(Exception):
    """The other half of a row-split step was cancelled: stop at the next checkpoint."""


def _no_check() -> None:
    pass


def on_two_threads(here, there, stop) -> None:
    """there() on the helper thread while here() runs on this one. If here() raises (a Cancelled
    from compute.progress, say), stop() tells there() to finish early; either way the helper is
    waited for, so it never writes into arrays after the pass has ended, and here()'s exception
    is the one reported."""
    pending = _HELPER.submit(there)
    try:
        here()
    except BaseException:
        stop()
        try:
            pending.result()
        except Exception:  # noqa: BLE001 - ours is the one to report
            pass
        raise
    pending.result()


def by_rows(step, T: int, split: bool, checkpoint=_no_check) -> None:
    """Run step(r0, r1, checkpoint) for rows [0, T//2) on the helper thread and [T//2, T) here,
    each half through all its stages without waiting for the other (rows are independent), or
    once on all rows when not `split`. The `checkpoint` given here (e.g. a compute.progress report,
    which may raise Cancelled) runs between stages on this thread; the helper's half then stops at
    its own next checkpoint."""
    if _HELPER is None or T < 2 or not split:
        step(0, T, checkpoint)
        return
    h = T // 2
    stop = threading.Event()

    def helper_check() -> None:
        if stop.is_set():
            raise _Stopped

    def helper() -> None:
        try:
            step(0, h, helper_check)
        except _Stopped:
            pass

    on_two_threads(lambda: step(h, T, checkpoint), helper, stop.set)


def block_rows(T: int) -> int:
    """Query rows per attention block: ~BLOCK_BYTES of scores, at least 16 rows."""
    return max(16, min(T, BLOCK_BYTES // (4 * max(T, 1))))


def attention_blocks(items, qh, kh, vh, W_O, scale, cap, causal, mask, has_mask, groups, window, p,
                     scratch, pattern, z, res, part) -> None:
    """Attention for the (head, first row, end row) blocks taken from the iterator `items`
    (shared with another thread: each block is taken once). Rows r of the arrays here are query
    positions i = p + r (an incremental pass computes only rows >= p; the keys are all T
    of kh and vh). For rows r0:r1 of head h, in order: scores, scale (+ soft-cap: `cap` > 0) + mask + softmax,
    pattern @ v and the head's share through W_O, added to `part` (this thread's partial sum over
    heads; the caller adds the parts and b_O). qh [H, n, dh] and kh, vh [KV, T, dh] are
    head-major (BLAS is slower on the strided [T, H, dh] views); query head h reads K/V head
    h // groups. The block's scores go to this thread's `scratch` ([3, rows, T]: raw, scaled,
    masked, while in cache; the Trace makes its score maps from q and k when a view reads them).
    z is [n, H, dh] and written in place. With a `window` W (0 = none), a row's keys start at
    i - W + 1: pattern @ v skips the ones before. `pattern` None (a checkpointed pass keeps no T×T
    map): each block's pattern rows stay in `scratch[3]`."""
    T = kh.shape[1]
    for h, r0, r1 in items:
        g = h // groups                                                         # this head's K/V head
        raw, scaled, masked = scratch[0, :r1 - r0], scratch[1, :r1 - r0], scratch[2, :r1 - r0]   # [R, T] each
        rows = pattern[h, r0:r1] if pattern is not None else scratch[3, :r1 - r0]   # [R, T]
        np.matmul(qh[h, r0:r1], kh[g].T, out=raw)                               # [R, T]  q_i . k_j
        K.scale_mask_softmax(raw, p + r0, scale, cap, causal, mask, has_mask, scaled, masked,
                             rows, window)                                      # [R, T] pattern rows
        for s0 in range(r0, r1, PV_ROWS):              # causal: keys after a row's own are 0
            s1 = min(s0 + PV_ROWS, r1)
            i0, i1 = p + s0, p + s1                                             # query positions
            keys = i1 if causal else (min(T, i1 - 1 + window) if window else T)
            first = max(0, i0 - window + 1) if window else 0                    # the window: keys before are 0
            np.matmul(rows[s0 - r0:s1 - r0, first:keys], vh[g, first:keys], out=z[s0:s1, h])   # [S, dh]  z = p @ v
        np.matmul(z[r0:r1, h], W_O[h], out=res[h, r0:r1])                        # [R, d_model]  z_h @ W_O[h]
        K.add_into(part[r0:r1], res[h, r0:r1])                                   # [R, d_model]


def score_maps(q_heads, k_heads, H: int, T: int, groups: int, scale, causal: bool, mask, has_mask: bool,
               window: int, p: int = 0, before: dict | None = None, new=np.empty, cap: float = 0.0) -> dict:
    """attn_scores_raw, attn_scores_scaled (with a soft-cap `cap` > 0, attn_scores_capped) and attn_scores
    of one layer as Lazy values, made from q and k (head-major [H, T, dh] and [KV, T, dh], given by the
    Once-s `q_heads`, `k_heads`) when a view first reads them, as the pass computed them: the same products
    per block of rows, then raw * scale, (then cap·tanh(scaled / cap),) then -inf where the mask forbids.
    Each map is 4·H·T² bytes (50 MB at T=1024 and 12 heads): kept for every layer they were most of a
    Trace; the pass keeps only `pattern`.

    `before`: the maps of the Trace an incremental pass reused (p rows), those a view had made: then
    only the new parts are computed — rows >= p, and the new keys' column of the earlier queries
    (raw and scaled have q_i·k_j there; attn_scores has -inf, the causal mask) — and the block of
    rows and keys < p is copied."""
    rows = block_rows(T)
    before = before or {}
    cap = np.float32(cap)                                                   # the kernels' type: 0 = no soft-cap

    def raw_of() -> np.ndarray:
        qh, kh = q_heads(), k_heads()                                       # [H, T, dh], [KV, T, dh]
        raw = new((H, T, T))                                                # [H, T, T]
        old = before.get("attn_scores_raw")
        first = p if old is not None else 0                                 # rows < first: copied
        if first:
            raw[:, :p, :p] = old[:, :p, :p]                                 # [H, p, p] the earlier scores
        for h in range(H):
            g = h // groups
            if first:
                np.matmul(qh[h, :p], kh[g, p:].T, out=raw[h, :p, p:])       # [p, T-p] earlier queries, new keys
            for r0 in range(first, T, rows):
                np.matmul(qh[h, r0:r0 + rows], kh[g].T, out=raw[h, r0:r0 + rows])   # [R, T] q_i . k_j
        return raw

    def scaled_of() -> np.ndarray:
        old = before.get("attn_scores_scaled")
        if old is None or not p:
            return raw() * scale                                            # [H, T, T]
        r, scaled = raw(), new((H, T, T))                                   # [H, T, T] each
        scaled[:, :p, :p] = old[:, :p, :p]
        np.multiply(r[:, :p, p:], scale, out=scaled[:, :p, p:])             # [H, p, T-p]
        np.multiply(r[:, p:], scale, out=scaled[:, p:])                     # [H, T-p, T]
        return scaled

    def masked_of() -> np.ndarray:
        masked = new((H, T, T))                                             # [H, T, T]
        old = before.get("attn_scores")
        first = p if old is not None else 0
        if first:
            masked[:, :p, :p] = old[:, :p, :p]
            masked[:, :p, p:] = -np.inf                                     # reuse is causal: keys after the query
        r = raw()
        for h in range(H):                                                  # rows >= first: scaled (capped) or -inf
            K.scale_mask(r[h, first:], first, scale, cap, causal, mask, has_mask, window, masked[h, first:])
        return masked

    def capped_of() -> np.ndarray:
        capped, sc = new((H, T, T)), scaled()                               # [H, T, T] each
        for h in range(H):                                                  # all rows: the cap is elementwise
            K.soft_cap_map(sc[h], cap, capped[h])                           # cap·tanh(scaled / cap)
        return capped

    raw = Once(raw_of)
    scaled = Once(scaled_of)
    masked = Once(masked_of)
    made = {"attn_scores_raw": raw, "attn_scores_scaled": scaled, "attn_scores": masked}
    if cap > 0:                                                             # Gemma 2
        made["attn_scores_capped"] = Once(capped_of)

    def read(name: str, index: tuple) -> np.ndarray:
        """value[index] (Trace.read's cut: a head, query rows[, keys]): one head's rows from its q and k
        alone (a view of one head of another layer: 1/H of the layer's maps), the made map's cut else."""
        head = index[0]
        if made[name].done or isinstance(head, slice):
            return made[name]()[index]
        h = int(head)
        positions = np.arange(T)[index[1]]                                  # [R] or one position
        one = np.ndim(positions) == 0
        positions = np.atleast_1d(positions)
        r = qh_rows = q_heads()[h][positions] @ k_heads()[h // groups].T    # [R, T]  q_i · k_j
        if name == "attn_scores_scaled":
            r = qh_rows * scale                                             # [R, T]
        elif name == "attn_scores_capped":
            r = np.empty_like(qh_rows)                                      # [R, T] cap·tanh(scaled / cap)
            K.soft_cap_map(qh_rows * scale, cap, r)
        elif name == "attn_scores":
            r = np.empty_like(qh_rows)                                      # [R, T] scaled (capped), or -inf
            runs = np.flatnonzero(np.diff(positions, prepend=-2) != 1)      # contiguous stretches of queries
            for a, b in zip(runs, [*runs[1:], len(positions)], strict=True):
                K.scale_mask(qh_rows[a:b], int(positions[a]), scale, cap, causal, mask, has_mask, window, r[a:b])
        r = r[:, index[2]] if len(index) > 2 else r
        r = r[0] if one else r
        return np.ascontiguousarray(r) if r.ndim else np.array(r)          # one cell stays 0-d (ascontiguousarray: 1-d)

    shape = (H, T, T)
    return {name: Lazy(once, shape, read=partial(read, name)) for name, once in made.items()}


def made_before(trace, key) -> np.ndarray | None:
    """The array of `trace`'s value `key` if it exists without work: an array, or a Lazy made already."""
    if trace is None:
        return None
    value = trace.stored(key)
    if isinstance(value, np.ndarray):
        return value
    made = getattr(value, "make", None)
    return made() if isinstance(made, Once) and made.done else None


@lru_cache(maxsize=8)
def rope_tables(T: int, rotary_dim: int, theta: float) -> tuple[np.ndarray, np.ndarray]:
    """cos and sin [T, rotary_dim / 2] as float32 (the angles in float64, as the reference has them)."""
    cos, sin = rope_angles(T, rotary_dim, theta)                             # [T, r/2] each, float64
    cos, sin = cos.astype(np.float32), sin.astype(np.float32)
    cos.setflags(write=False)
    sin.setflags(write=False)
    return cos, sin


class _Prepared:
    """Per-weights layouts made once and reused: one fused q/k/v projection per block, and zeros
    for the biases a model does not have (so every kernel has one form)."""

    def __init__(self, cfg: Config, weights: Weights):
        H, KV, dh, dm = cfg.n_heads, cfg.n_kv_heads, cfg.d_head, cfg.d_model

        def zeros(n: int, dtype=np.float32) -> np.ndarray:
            z = np.zeros(n, dtype)
            z.setflags(write=False)                      # read-only like real weights: one kernel type
            return z

        self.W_QKV, self.b_QKV, self.blocks = [], [], []
        for layer in range(cfg.n_layers):
            wb = weights.block(layer)
            # [n, d_model, dh] -> [d_model, n*dh] for Q (H heads), K and V (KV heads): [d_model, (H+2KV)*dh]
            mats = [wb[n].transpose(1, 0, 2).reshape(dm, -1) for n in ("attn.W_Q", "attn.W_K", "attn.W_V")]
            self.W_QKV.append(np.ascontiguousarray(np.concatenate(mats, axis=1)))  # [d_model, (H+2KV)*dh]
            if cfg.attn_bias:
                self.b_QKV.append(np.concatenate([wb[n].reshape(-1) for n in ("attn.b_Q", "attn.b_K", "attn.b_V")]))
            else:
                self.b_QKV.append(np.zeros((H + 2 * KV) * dh, np.float32))   # as concatenate gives
            full = dict(wb)
            for short, shape in (("attn.b_O", dm), ("mlp.b_in", cfg.d_mlp), ("mlp.b_out", dm),
                                 ("mlp.b_gate", cfg.d_mlp), ("ln1.b", dm), ("ln2.b", dm)):
                full.setdefault(short, zeros(shape, np.float32))
            self.blocks.append(full)
        self.ln_final_b = weights["ln_final.b"] if "ln_final.b" in weights else zeros(dm, np.float32)


class KeyCache:
    """Every layer's keys (rotated, with RoPE) and values, head-major [KV, capacity, dh], as the
    last pass left them: an incremental pass attends over them after writing its own rows. The
    cache is the backend's own (no Trace ever hands it out), so it is written in place.

    `owner` is the Trace value it matches (that pass's layer-0 `k`, by identity: a new Trace
    keeps the object its backend returned) and `valid[l]` how many leading rows of layer l equal
    that Trace's. A pass taking p rows from that Trace lowers `valid` to p before it writes a
    layer's rows, so a pass stopped half-way leaves the cache true for what it says; the pass that
    completes makes itself the owner (`valid` is then T everywhere). Rows the cache does not have
    are copied from the Trace."""

    SLACK = 64                                            # rows of room beyond T (up to n_ctx)

    def __init__(self) -> None:
        self.key = None
        self.k: list[np.ndarray] = []
        self.v: list[np.ndarray] = []
        self.valid: list[int] = []
        self._owner = None

    def nbytes(self) -> int:
        return sum(a.nbytes for a in self.k + self.v)

    def prepare(self, cfg: Config, weights: Weights, T: int, prev, p: int) -> int:
        """Make room for T rows and have rows [0, p) of every layer equal `prev`'s (a Trace; None
        with p = 0). Returns how many of those rows were copied from the Trace (0: all were here)."""
        KV, dh, L = cfg.n_kv_heads, cfg.d_head, cfg.n_layers
        key = (weights.uid, cfg)
        if p == 0 or not self.owns(prev, key):
            self.valid = [0] * L                          # other inputs or another Trace: nothing here is theirs
        self._owner = None if self.valid == [0] * L else self._owner
        if key != self.key or self.k[0].shape[1] < T:
            room = max(min(cfg.n_ctx, T + self.SLACK), 1)
            k = [np.empty((KV, room, dh), np.float32) for _ in range(L)]  # [KV, room, dh] each
            v = [np.empty((KV, room, dh), np.float32) for _ in range(L)]
            for layer in range(L if key == self.key else 0):  # same shapes: keep the valid rows
                n = min(self.valid[layer], p)
                k[layer][:, :n], v[layer][:, :n] = self.k[layer][:, :n], self.v[layer][:, :n]
            self.k, self.v = k, v
        self.key = key
        copied = 0
        for layer in range(L):
            have = min(self.valid[layer], p)
            if have < p:                                  # rows [have, p) from the Trace
                k_name = cfg.components.cached_key                 # rot_k with RoPE, else k
                self.k[layer][:, have:p] = prev[k_name, layer][have:p].transpose(1, 0, 2)   # [KV, p-have, dh]
                self.v[layer][:, have:p] = prev["v", layer][have:p].transpose(1, 0, 2)
                copied += p - have
            self.valid[layer] = p
        return copied

    def owns(self, trace, key=None) -> bool:
        """Whether this cache holds rows of `trace` (its last complete pass made it)."""
        owner = self._owner() if self._owner is not None else None
        return (owner is not None and trace is not None and (key is None or key == self.key)
                and trace.stored(("k", 0)) is owner)

    def owned_by(self, k0, T: int) -> None:
        """The pass that returned `k0` as its layer-0 `k` completed: the cache holds its T rows."""
        self._owner = weakref.ref(k0)
        self.valid = [T] * len(self.valid)


class CpuBackend(Backend):
    name = "cpu"
    dtype = np.dtype(np.float32)
    supports_reuse = True
    lazy_scores = True
    checkpointing = True                        # large Traces keep layer inputs only (compute.memory.checkpointed)

    def __init__(self) -> None:
        self._prepared: OrderedDict[int, _Prepared] = OrderedDict()
        self._prep_lock = threading.Lock()
        # Recycles the big outputs of dropped Traces (see pool.py): two full passes' worth and the
        # values views made (a 12-layer andrea-120m Trace at T=1024 is 1.7 GB; with the Scores station's
        # maps the working set is ~3.9 GB), a third of the budget at most; released when memory is short.
        self.pool = BufferPool(max_bytes=min(5 << 30, memory.budget_bytes() // 3))
        memory.register_reclaimer(self.pool.release)
        # k and v of the last passes, for the next ones: two, so that a pass of other inputs (a
        # script's, an instrument's) does not take the cache of the Trace on screen.
        self._key_caches = [KeyCache(), KeyCache()]
        # The layers of checkpointed Traces made again for a view, most recently read kept (checkpoints.py).
        self.layers = checkpoints.LayerLRU()
        memory.register_reclaimer(self.layers.release)

    def key_cache(self, cfg: Config, prev) -> KeyCache:
        """The KeyCache for a pass reusing `prev`: the one holding its rows, else the least recently
        used; a pass without the causal mask (never reused) gets one of its own."""
        if not cfg.causal:
            return KeyCache()
        chosen = next((c for c in self._key_caches if c.owns(prev)), self._key_caches[-1])
        self._key_caches.remove(chosen)
        self._key_caches.insert(0, chosen)
        return chosen

    def label(self) -> str:
        import numba

        return f"cpu (numba, {numba.get_num_threads()} threads)"

    def _prepare(self, cfg: Config, weights: Weights) -> _Prepared:
        key = (weights.uid, cfg.shape_key())
        with self._prep_lock:
            if key not in self._prepared:
                self._prepared[key] = _Prepared(cfg, weights)
                while len(self._prepared) > 2:          # the current weights and the previous
                    self._prepared.popitem(last=False)
            self._prepared.move_to_end(key)
            return self._prepared[key]

    def warm_up_configs(self) -> tuple[Config, ...]:
        """A GPT-2 and a LLaMA-family model (every component the kernels have), tiny."""
        gpt2 = Config(d_model=8, n_heads=2, d_head=4, n_ctx=8, d_vocab=10, n_layers=1)
        llama = Config(d_model=8, n_heads=2, n_kv_heads=1, d_head=4, n_ctx=8, d_vocab=10, n_layers=2,
                       norm="rmsnorm", positions="rope", mlp="swiglu", attn_bias=False, mlp_bias=False,
                       tied_embeddings=False, windows=(None, 2))
        return gpt2, llama

    def warm_up(self) -> None:
        """Compile (or load from numba's cache) every kernel, with the argument types a pass gives
        them: a tiny pass, one with a listener for early results, then the strided head views and
        parallel builds that only larger passes use. (compute.forward.warm_up adds an incremental
        pass and the lazy maps, through forward: this module never imports it.)"""
        from ..trace import partial_trace

        for cfg in self.warm_up_configs():
            ids = cfg.validate_tokens(np.arange(4))                        # read-only, as forward gives them
            w = Weights.random(cfg, 0)
            self.run(cfg, w, ids, None)
            # With a listener for early results: published arrays turn read-only, a type of its own.
            with progress.reporting(None, lambda layer, arrays, cfg=cfg: partial_trace(cfg, arrays)):
                self.run(cfg, w, ids, np.tri(4, dtype=np.bool_))
        with _KERNEL_LOCK:
            heads = np.empty((2, 4, 2), np.float32)                       # [H=2, T=4, dh=2]
            K.bias_split_heads.serial(np.ones((2, 12), np.float32), np.ones(12, np.float32),
                                      heads[:, :2], heads[:, 2:], heads[:, :2])   # half the rows
            x = np.ones((300, 300), np.float32)                           # >= PARALLEL_MIN_SIZE
            K.heads_sum_residual(x, x, True, x[0], x, x.copy(), x.copy())

    def run(self, cfg: Config, weights: Weights, tokens: np.ndarray,
            attn_mask: np.ndarray | None, reuse: Reuse | None = None) -> BackendOutput:
        with _KERNEL_LOCK, _BLAS.limit(limits=1, user_api="blas"):
            return self._run(cfg, weights, tokens, attn_mask, reuse)

    def _run(self, cfg: Config, weights: Weights, tokens: np.ndarray, attn_mask: np.ndarray | None,
             reuse: Reuse | None) -> BackendOutput:
        """Every Trace name for `tokens`. With `reuse` (rows p > 0 of an earlier Trace), only rows
        >= p are computed; rows < p of each value are that Trace's (shared: compute/backends/rows.py),
        keys and values < p come from the KeyCache (or that Trace when the cache has other rows)."""
        watch = Stopwatch(n_stages=1 + 4 * cfg.n_layers)
        prep = self._prepare(cfg, weights)
        new = self.pool.empty
        T, dm = len(tokens), cfg.d_model
        prev, p = (reuse.trace, reuse.rows) if reuse is not None else (None, 0)
        mask = np.ones((1, 1), np.bool_) if attn_mask is None else np.ascontiguousarray(attn_mask, np.bool_)
        keys = self.key_cache(cfg, prev)
        copied = keys.prepare(cfg, weights, T, prev, p)                     # k, v rows < p ready
        out: dict = {"tokens": tokens}

        def keep(key, rows: np.ndarray, axis: int = 0):
            """The value of `key`: the earlier Trace's rows < p, then `rows` (this pass's, >= p)."""
            return rows_value(leading_rows(prev, key, p, axis) + (rows,), axis, new=new) if p else rows

        W_pos = weights["pos_embed.W_pos"] if cfg.components.positions.embeds else None
        embed, resid = embed_stage(weights["embed.W_E"], W_pos, tokens, p, new,
                                   cfg.components.embed_scale)              # [n, d_model] each
        out["embed"] = keep("embed", embed)
        if W_pos is not None:
            out["pos_embed"] = W_pos[:T]                                    # [T, d_model] (read-only view)
        watch.lap("embed")
        # A Trace too large to keep (compute.memory.checkpointed) keeps each layer's input and output
        # only; the rest of a layer is made again from its input when read (checkpoints.py).
        ck = memory.checkpointed(cfg, T)
        for layer in range(cfg.n_layers):
            wb = prep.blocks[layer]
            seeded = ck and p == 0 and progress.wants_partial()            # early results: keep what was made
            if ck:
                out["resid_pre", layer] = keep(("resid_pre", layer), resid)
                again = partial(layer_values, cfg, prep, layer, mask, attn_mask is not None, new)
                stored = checkpoints.Layer(again, made(out["resid_pre", layer]), cfg, layer, mask,
                                           attn_mask is not None, self.layers,
                                           make_qk=partial(layer_qk, cfg, prep, layer, new),
                                           make_head=partial(head_qk, cfg, prep, layer, new),
                                           before=checkpoints.earlier_maps(prev, layer, p), new=new)
                out.update(stored.lazy_values(T))
            if ck and not seeded:                                          # nothing of the layer kept but its output
                resid = chunked_layer(cfg, wb, prep.W_QKV[layer], prep.b_QKV[layer], resid, p, keys, layer, mask,
                                      attn_mask is not None, new, watch, cfg.window(layer) or 0)
                if progress.wants_partial():
                    progress.publish(layer, dict(out))
                out["resid_post", layer] = keep(("resid_post", layer), resid)
                continue
            attn = attention_half(cfg, wb, prep.W_QKV[layer], prep.b_QKV[layer], resid, p, keys, layer,
                                  mask, attn_mask is not None, new, watch, cfg.window(layer) or 0, keep_pattern=not ck)
            if seeded:
                stored.seed(attn, complete=False)
            else:
                out.update({(name, layer): keep((name, layer), value, axis=1 if name == "pattern" else 0)
                            for name, value in attn.items()})
                maps = self._score_maps(cfg, out, layer, mask, attn_mask is not None, prev, p)
                out.update({(name, layer): value for name, value in maps.items()})
            if progress.wants_partial():                                   # this layer's attention is final
                progress.publish(layer, dict(out))
            mlp_in = cfg.components.mlp_reads(resid, attn["resid_mid"])   # resid_pre's rows when parallel
            mlp = mlp_half(cfg, wb, mlp_in, attn["resid_mid"], new, watch)
            if ck:
                out["resid_post", layer] = keep(("resid_post", layer), mlp["resid_post"])
                if seeded:
                    stored.seed({**attn, **mlp}, complete=True)
            else:
                out.update({(name, layer): keep((name, layer), value) for name, value in mlp.items()})
            resid = mlp["resid_post"]

        n = T - p
        ln_final_out = new((n, dm))                                         # [n, d_model] rows >= p
        stats = (np.empty(n, np.float32), np.empty(n, np.float32))          # not kept in the Trace
        by_rows(partial(norm_rows, cfg, resid, weights["ln_final.w"], prep.ln_final_b, stats, ln_final_out),
                n, split=n * dm >= 1 << 18)
        out["ln_final_out"] = keep("ln_final_out", ln_final_out)
        unembed = weights["embed.W_E"].T if cfg.tied_embeddings else weights["unembed.W_U"]   # [d_model, d_vocab]
        final = made(out["ln_final_out"])

        cap = cfg.components.final_softcap                                  # Gemma 2: logits capped

        def logits_fn(rows):
            logits = final()[rows] @ unembed                                # [R, d_vocab]
            return logits if cap is None else cap.apply(logits)

        for value in out.values():                                          # this pass's rows, final now
            if isinstance(value, Lazy) and isinstance(value.make, RowParts):
                value.make.freeze()
        keys.owned_by(out["k", 0], T)
        timing = watch.finish()
        if p:
            timing["kv_rows_copied"] = float(copied)
        return BackendOutput(out, logits_fn, timing, reused_rows=p)

    def _score_maps(self, cfg: Config, out: dict, layer: int, mask, has_mask: bool, prev, p: int) -> dict:
        """The layer's three score maps, as Lazy values made from its q and k (rotated, with RoPE),
        and from the earlier Trace's maps where a view made them."""
        q_name, k_name = cfg.components.score_inputs                       # rot_q, rot_k with RoPE
        q, k = made(out[q_name, layer]), made(out[k_name, layer])          # [T, H, dh], [T, KV, dh]
        scale = np.float32(cfg.components.attention.scale)                  # 1/√d_head, 1/√q_p_a_s or 1
        names = ("attn_scores_raw", "attn_scores_scaled", "attn_scores")   # (the capped map: made anew, elementwise)
        before = {name: made_before(prev, (name, layer)) for name in names} if p else {}
        return score_maps(Once(lambda: head_major(q())), Once(lambda: head_major(k())), cfg.n_heads,
                          len(out["tokens"]), cfg.n_groups, scale, cfg.causal, mask, has_mask,
                          cfg.window(layer) or 0, p, {n: a for n, a in before.items() if a is not None},
                          self.pool.empty, np.float32(cfg.components.attention.cap))


def chunked_layer(cfg: Config, wb, W_QKV, b_QKV, resid_pre, p: int, keys: KeyCache, layer: int, mask,
                  has_mask: bool, new, watch: Stopwatch, window: int) -> np.ndarray:
    """resid_post of rows p..T-1 of one layer of a checkpointed pass, CHUNK_ROWS query rows at a time:
    causal, a chunk's keys are its own and the earlier rows', already in `keys` (an incremental pass per
    chunk), so only one chunk's intermediates exist at once (SmolLM2 at T=8192: ~80 MB, not ~600 MB)."""
    n = len(resid_pre)
    chunk = n if not cfg.causal else max(CHUNK_ROWS, 1)
    if n <= chunk:
        attn = attention_half(cfg, wb, W_QKV, b_QKV, resid_pre, p, keys, layer, mask, has_mask, new, watch, window,
                              keep_pattern=False)
        mlp_in = cfg.components.mlp_reads(resid_pre, attn["resid_mid"])     # resid_pre when parallel
        return mlp_half(cfg, wb, mlp_in, attn["resid_mid"], new, watch)["resid_post"]
    resid_post = new((n, cfg.d_model))                                      # [n, d_model]
    for c0 in range(0, n, chunk):
        c1 = min(n, c0 + chunk)
        attn = attention_half(cfg, wb, W_QKV, b_QKV, resid_pre[c0:c1], p + c0, keys, layer, mask, has_mask, new,
                              watch, window, keep_pattern=False)
        mlp_in = cfg.components.mlp_reads(resid_pre[c0:c1], attn["resid_mid"])
        resid_post[c0:c1] = mlp_half(cfg, wb, mlp_in, attn["resid_mid"], new, watch)["resid_post"]   # [c, d_model]
    return resid_post


def layer_values(cfg: Config, prep: _Prepared, layer: int, mask, has_mask: bool, new, resid_pre) -> dict:
    """Every value of one layer but the T×T maps, all rows, from its input: a checkpointed Trace's
    layer made again (checkpoints.Layer). Its keys and values go to buffers of its own."""
    T, KV, dh = len(resid_pre), cfg.n_kv_heads, cfg.d_head
    keys = KeyCache()
    keys.k, keys.v = {layer: new((KV, T, dh))}, {layer: new((KV, T, dh))}     # [KV, T, dh] each
    watch = Stopwatch()
    with _KERNEL_LOCK, _BLAS.limit(limits=1, user_api="blas"):
        attn = attention_half(cfg, prep.blocks[layer], prep.W_QKV[layer], prep.b_QKV[layer], resid_pre, 0, keys,
                              layer, mask, has_mask, new, watch, cfg.window(layer) or 0, keep_pattern=False)
        mlp_in = cfg.components.mlp_reads(resid_pre, attn["resid_mid"])     # resid_pre when parallel
        mlp = mlp_half(cfg, prep.blocks[layer], mlp_in, attn["resid_mid"], new, watch)
    return {**attn, **mlp}


def layer_qk(cfg: Config, prep: _Prepared, layer: int, new, resid_pre) -> dict:
    """A layer's norm 1 and q, k, v (with QK-norm and RoPE), all rows, from its input: what its T×T
    maps are made of (checkpoints.Layer), as attention_half makes them, without the attention itself."""
    T, H, KV, dh, dm = len(resid_pre), cfg.n_heads, cfg.n_kv_heads, cfg.d_head, cfg.d_model
    hd, kvd, f32, c = H * dh, KV * dh, np.float32, cfg.components
    stats = norm_stats(cfg, T)                                              # [T] each
    ln1_out = new((T, dm)) if c.pre_norm else resid_pre                     # [T, d_model] (OLMo 2: no norm)
    qkv = new((T, hd + 2 * kvd))                                            # [T, (H+2KV)*dh]
    qh, kh, vh = new((H, T, dh)), new((KV, T, dh)), new((KV, T, dh))        # [H|KV, T, dh] each
    qkn = None
    if c.attention.qk_norm is not None:
        qkn = (new((H, T, dh)), new((KV, T, dh)), np.empty((H, T), f32), np.empty((KV, T), f32))
    rot = None
    if c.positions.rotates:
        cos, sin = rope_tables(T, c.positions.rotary_dim, c.rotary(layer).base)  # [T, r/2] each, this layer's base
        rot = (cos, sin, new((H, T, dh)), new((KV, T, dh)))
    with _KERNEL_LOCK, _BLAS.limit(limits=1, user_api="blas"):
        by_rows(partial(ln1_qkv_rows, cfg, resid_pre, prep.blocks[layer], prep.W_QKV[layer], prep.b_QKV[layer],
                        stats, ln1_out, qkv, qh, kh, vh, qkn, rot), T, split=T * dm * (hd + 2 * kvd) >= SPLIT_MIN_MACS)
    out = dict(zip(c.norm.stat_names("ln1"), stats, strict=True)) if c.pre_norm else {}   # ln1_mean, ... | ln1_scale
    if c.pre_norm:
        out["ln1_out"] = ln1_out
    out.update(q=qkv[:, :hd].reshape(T, H, dh), k=qkv[:, hd:hd + kvd].reshape(T, KV, dh),
               v=qkv[:, hd + kvd:].reshape(T, KV, dh))                     # [T, H|KV, dh] (views)
    if qkn is not None:
        out.update(q_normed=qkn[0].transpose(1, 0, 2), k_normed=qkn[1].transpose(1, 0, 2))
    if rot is not None:
        out.update(rot_q=rot[2].transpose(1, 0, 2), rot_k=rot[3].transpose(1, 0, 2))
    return out


def head_qk(cfg: Config, prep: _Prepared, layer: int, new, resid_pre, head: int):
    """One head's score inputs, all rows, from the layer's input: (q of `head`, k of its K/V head),
    [T, d_head] each, rotated with RoPE and normed with a QK-norm, as layer_qk makes them but through
    the two heads' columns of the fused product only (a 2·d_head-wide product instead of (H+2KV)·d_head:
    Scores on another layer of SmolLM2 at T=4096 needs ~1/8 of layer_qk's work). None where a head
    cannot be made alone (OLMo 2's QK-norm runs over all heads of a row)."""
    c = cfg.components
    if c.attention.qk_norm is not None and c.attention.qk_norm_all_heads:
        return None
    T, H, dh = len(resid_pre), cfg.n_heads, cfg.d_head
    g = head // cfg.n_groups                                                # its K/V head
    wb = prep.blocks[layer]
    cols = np.r_[head * dh:(head + 1) * dh, (H + g) * dh:(H + g + 1) * dh]   # q_h's and k_g's columns
    W, b = prep.W_QKV[layer][:, cols], prep.b_QKV[layer][cols]              # [d_model, 2dh], [2dh]
    with _BLAS.limit(limits=1, user_api="blas"):                            # serial kernels: no lock (as read_map)
        ln1_out = resid_pre
        if c.pre_norm:
            ln1_out = new((T, cfg.d_model))                                 # [T, d_model]
            norm_rows(cfg, resid_pre, wb["ln1.w"], wb["ln1.b"], norm_stats(cfg, T), ln1_out, 0, T, _no_check)
        qk = ln1_out @ W                                                    # [T, 2dh]  ln1_out · [W_Q[h] | W_K[g]]
        qk += b                                                             # + [b_Q[h] | b_K[g]]
        qh, kh = np.ascontiguousarray(qk[:, :dh]), np.ascontiguousarray(qk[:, dh:])   # [T, dh] each
        if c.attention.qk_norm is not None:                                 # each head's RMSNorm over d_head
            eps = c.attention.qk_norm.eps
            scale = np.empty(T, np.float32)                                 # [T] (not kept)
            qn, kn = np.empty_like(qh), np.empty_like(kh)                   # [T, dh] each
            K.rms_norm.serial(qh, wb["attn.q_norm.w"], scale, qn, eps)
            K.rms_norm.serial(kh, wb["attn.k_norm.w"], scale, kn, eps)
            qh, kh = qn, kn
        if c.positions.rotates:
            cos, sin = rope_tables(T, c.positions.rotary_dim, c.rotary(layer).base)   # [T, r/2] each
            rq, rk = np.empty((1, T, dh), np.float32), np.empty((1, T, dh), np.float32)
            K.rope.serial(qh[None], cos, sin, rq)                           # [1, T, dh] rot_q of the head
            K.rope.serial(kh[None], cos, sin, rk)                           # [1, T, dh] rot_k of its K/V head
            qh, kh = rq[0], rk[0]
    return qh, kh


def made(value):
    """A function returning the array of a value as a pass gives it (an array, or a Lazy: made once)."""
    return (lambda: value) if isinstance(value, np.ndarray) else value.make


def head_major(x: np.ndarray) -> np.ndarray:
    """[T, heads, dh] -> [heads, T, dh] contiguous (a free view when x is already a transposed one)."""
    heads = x.transpose(1, 0, 2)                                            # [heads, T, dh] (view)
    return heads if heads.flags.c_contiguous else np.ascontiguousarray(heads)   # [heads, T, dh]


# -- the stages of a pass, each on explicit arrays (the Trace names as local names) --------------------
# A pass computes rows p..T-1 (n = T - p of them; p = 0 for a full pass): the arrays here have n rows,
# row r being position p + r; attention reads the keys of all T positions from the KeyCache.
def embed_stage(W_E: np.ndarray, W_pos: np.ndarray | None, tokens: np.ndarray, p: int, new,
                scale: float = 1.0):
    """embed = W_E[tokens] (ids validated by forward; · √d_model for Gemma: `scale`) and
    resid = embed + W_pos[position], for positions p..T-1. With RoPE (W_pos None) resid is embed itself."""
    T, dm = len(tokens), W_E.shape[1]
    n = T - p
    embed = new((n, dm))                                                    # [n, d_model]
    if W_pos is None:
        np.take(W_E, tokens[p:], axis=0, out=embed)                         # [n, d_model]
        if scale != 1.0:
            embed *= np.float32(scale)                                      # Gemma: · √d_model
        return embed, embed
    resid = new((n, dm))                                                    # [n, d_model]
    if scale != 1.0:                                                        # a scaled embedding with W_pos
        np.take(W_E, tokens[p:], axis=0, out=embed)
        embed *= np.float32(scale)
        np.add(embed, W_pos[p:T], out=resid)
        return embed, resid
    by_rows(partial(embed_rows, W_E, tokens[p:], W_pos[p:T], embed, resid), n, split=n * dm >= 1 << 18)
    return embed, resid


def embed_rows(W_E, tokens, pos_embed, embed, resid, r0, r1, checkpoint) -> None:
    K.embed_rows.serial(W_E, tokens[r0:r1], pos_embed[r0:r1], embed[r0:r1], resid[r0:r1])


def norm_stats(cfg: Config, T: int) -> tuple[np.ndarray, ...]:
    """The per-token statistics a norm keeps: (mean, var) for LayerNorm, (scale,) for RMSNorm."""
    return tuple(np.empty(T, np.float32) for _ in cfg.components.norm.stats)   # [T] each


def norm_rows(cfg: Config, x, w, b, stats, out, r0, r1, checkpoint) -> None:
    """Rows r0:r1 of the config's norm: LayerNorm (stats = mean, var) or RMSNorm (stats = scale)."""
    norm = cfg.components.norm
    if isinstance(norm, RMSNorm):
        K.rms_norm.serial(x[r0:r1], w, stats[0][r0:r1], out[r0:r1], norm.eps)         # [R, d_model]
    else:
        K.layer_norm.serial(x[r0:r1], w, b, stats[0][r0:r1], stats[1][r0:r1], out[r0:r1], norm.eps)


def ln1_qkv_rows(cfg, resid_pre, wb, W_QKV, b_QKV, stats, ln1_out, qkv, qh, kh, vh, qkn, rot, r0, r1,
                 checkpoint) -> None:
    """Rows r0:r1 on one thread: norm 1, the one fused q/k/v product, its bias and head split, with a
    QK-norm each head's RMSNorm of q and k (`qkn` = (qnh, knh, q_scale, k_scale)), and with RoPE the
    rotation of q and k (`rot` = (cos, sin, rqh, rkh), cos and sin of these rows). Without norms before
    attention (OLMo 2) ln1_out is resid_pre itself."""
    if cfg.components.pre_norm:
        norm_rows(cfg, resid_pre, wb["ln1.w"], wb["ln1.b"], stats, ln1_out, r0, r1, checkpoint)
    np.matmul(ln1_out[r0:r1], W_QKV, out=qkv[r0:r1])                       # [R, (H+2KV)*dh] one product
    K.bias_split_heads.serial(qkv[r0:r1], b_QKV, qh[:, r0:r1], kh[:, r0:r1], vh[:, r0:r1])  # + b_Q, b_K, b_V
    if qkn is not None:
        qnh, knh, q_scale, k_scale = qkn
        att = cfg.components.attention
        eps = att.qk_norm.eps
        if att.qk_norm_all_heads:                                           # OLMo 2: over all heads of a row
            H, KV, dh = qh.shape[0], kh.shape[0], qh.shape[2]
            for part, w, scale, heads, lo, hi in ((qnh, "attn.q_norm.w", q_scale, H, 0, H * dh),
                                                  (knh, "attn.k_norm.w", k_scale, KV, H * dh, (H + KV) * dh)):
                flat = np.empty((r1 - r0, hi - lo), np.float32)             # [R, heads*dh]
                K.rms_norm.serial(np.ascontiguousarray(qkv[r0:r1, lo:hi]), wb[w], scale[0, r0:r1], flat, eps)
                part[:, r0:r1] = flat.reshape(r1 - r0, heads, dh).transpose(1, 0, 2)   # head-major
        else:
            for h in range(qh.shape[0]):                                    # [R, dh] of head h, over d_head
                K.rms_norm.serial(qh[h, r0:r1], wb["attn.q_norm.w"], q_scale[h, r0:r1], qnh[h, r0:r1], eps)
            for g in range(kh.shape[0]):
                K.rms_norm.serial(kh[g, r0:r1], wb["attn.k_norm.w"], k_scale[g, r0:r1], knh[g, r0:r1], eps)
        qh, kh = qnh, knh                                                   # RoPE turns the normed ones
    if rot is not None:
        cos, sin, rqh, rkh = rot
        K.rope.serial(qh[:, r0:r1], cos[r0:r1], sin[r0:r1], rqh[:, r0:r1])   # [H, R, dh]  rot_q
        K.rope.serial(kh[:, r0:r1], cos[r0:r1], sin[r0:r1], rkh[:, r0:r1])   # [KV, R, dh] rot_k


def attention_half(cfg: Config, wb, W_QKV, b_QKV, resid_pre, p: int, keys: KeyCache, layer: int, mask,
                   has_mask: bool, new, watch: Stopwatch, window: int = 0, keep_pattern: bool = True) -> dict:
    """One layer from resid_pre to resid_mid for positions p..T-1 (resid_pre has those n rows):
    every attention_names(cfg) value but the score maps (see score_maps), by name; `pattern` rows
    [H, n, T] unless not `keep_pattern` (checkpoints.py makes a head's rows when read). The layer's
    k and v rows go into `keys`, whose rows < p are the earlier ones."""
    n, H, KV, dh, dm = len(resid_pre), cfg.n_heads, cfg.n_kv_heads, cfg.d_head, cfg.d_model
    T = p + n
    hd, kvd = H * dh, KV * dh
    f32 = np.float32
    c = cfg.components
    scale = f32(c.attention.scale)                                          # 1/√d_head (Gemma: 1/√q_p_a_s), or 1
    stats = norm_stats(cfg, n)                                              # [n] each
    named = dict(zip(c.norm.stat_names("ln1"), stats, strict=True))         # ln1_mean, ln1_var | ln1_scale
    ln1_out = new((n, dm)) if c.pre_norm else resid_pre                     # [n, d_model] (OLMo 2: no norm)
    qkv = new((n, hd + 2 * kvd))                                            # [n, (H+2KV)*dh]
    # Head-major copies of q, k, v (made with the bias add) let BLAS run at full speed per head.
    qh, kh, vh = new((H, n, dh)), new((KV, n, dh)), new((KV, n, dh))        # [H|KV, n, dh] each
    qkn = None
    if c.attention.qk_norm is not None:                                     # q_normed, k_normed head-major
        qkn = (new((H, n, dh)), new((KV, n, dh)), np.empty((H, n), f32), np.empty((KV, n), f32))
    rot = None
    if c.positions.rotates:
        cos, sin = rope_tables(T, c.positions.rotary_dim, c.rotary(layer).base)  # [T, r/2] each, this layer's base
        rot = (cos[p:], sin[p:], new((H, n, dh)), new((KV, n, dh)))          # rot_q, rot_k head-major
    by_rows(partial(ln1_qkv_rows, cfg, resid_pre, wb, W_QKV, b_QKV, stats, ln1_out, qkv, qh, kh, vh, qkn, rot),
            n, split=n * dm * (hd + 2 * kvd) >= SPLIT_MIN_MACS)
    q = qkv[:, :hd].reshape(n, H, dh)                                        # [n, H, dh] (view)
    k = qkv[:, hd:hd + kvd].reshape(n, KV, dh)                               # [n, KV, dh] (view)
    v = qkv[:, hd + kvd:].reshape(n, KV, dh)                                 # [n, KV, dh] (view)
    q_heads, k_heads = qh, kh
    if qkn is not None:
        q_normed, k_normed = qkn[0].transpose(1, 0, 2), qkn[1].transpose(1, 0, 2)  # [n, H|KV, dh] (views)
        q_heads, k_heads = qkn[0], qkn[1]
    if rot is not None:
        rot_q, rot_k = rot[2].transpose(1, 0, 2), rot[3].transpose(1, 0, 2)  # [n, H, dh], [n, KV, dh] (views)
        q_heads, k_heads = rot[2], rot[3]                                    # the scores use the rotated ones
    K_all, V_all = keys.k[layer], keys.v[layer]                              # [KV, room, dh] each
    K_all[:, p:T], V_all[:, p:T] = k_heads, vh                               # this pass's keys and values
    watch.lap("qkv")

    pattern = new((H, n, T)) if keep_pattern else None                      # [H, n, T]  rows p..T-1
    z = new((n, H, dh))                                                     # [n, H, dh]
    # Each head's share of attn_out, z_h @ W_O[h]; made head-major for BLAS and handed out as a
    # [n, H, d_model] view (no copy of the largest per-head array).
    res = new((H, n, dm))                                                   # [H, n, d_model]
    rows = block_rows(T)
    # Largest blocks (most keys) first, so the two threads finish together.
    blocks = iter([(h, r0, min(r0 + rows, n)) for r0 in reversed(range(0, n, rows)) for h in range(H)])
    two = _HELPER is not None and H * n * T >= K.PARALLEL_MIN_SIZE and (H > 1 or n > rows)
    parts = [new((n, dm)) for _ in range(2 if two else 1)]                  # [n, d_model] each
    for part in parts:
        part.fill(0.0)
    slabs = 3 if keep_pattern else 4                                        # raw, scaled, masked (, pattern)
    scratch = [np.empty((slabs, min(rows, max(n, 1)), T), np.float32) for _ in parts]   # [3|4, rows, T] per thread
    args = (q_heads, K_all[:, :T], V_all[:, :T], wb["attn.W_O"], scale, f32(c.attention.cap), cfg.causal, mask,
            has_mask, cfg.n_groups, window, p)
    if two:                                                     # stop: leave the helper no more blocks
        on_two_threads(partial(attention_blocks, blocks, *args, scratch[0], pattern, z, res, parts[0]),
                       partial(attention_blocks, blocks, *args, scratch[1], pattern, z, res, parts[1]),
                       partial(list, blocks))
    else:
        attention_blocks(blocks, *args, scratch[0], pattern, z, res, parts[0])
    watch.lap("attention")

    z_concat = z.reshape(n, hd)                                             # [n, H*dh] (view)
    result = res.transpose(1, 0, 2)                                         # [n, H, d_model] (view)
    attn_out = parts[0]                                                     # [n, d_model] (in place)
    resid_mid = new((n, dm))                                                # [n, d_model]
    # attn_out = sum over heads + b_O; resid_mid = resid_pre + attn_out
    K.heads_sum_residual(parts[0], parts[-1], two, wb["attn.b_O"], resid_pre, attn_out, resid_mid)
    if c.post_norm is not None:                                             # Gemma 2/3, OLMo 2
        attn_out_normed = new((n, dm))                                      # [n, d_model]
        K.rms_norm(attn_out, wb["ln1_post.w"], np.empty(n, f32), attn_out_normed, c.post_norm.eps)
        np.add(resid_pre, attn_out_normed, out=resid_mid)                   # resid_mid = resid_pre + normed
    watch.lap("W_O")
    ns = {**locals(), **named}
    return {name: ns[name] for name in attention_names(cfg)
            if not name.startswith("attn_scores") and ns[name] is not None}       # pattern: None unless kept


def mlp_rows(cfg, mlp_in, resid_mid, wb, stats, ln2_out, mlp_pre, mlp_pre_linear, mlp_post, mlp_out, mlp_out_normed,
             resid_post, r0, r1, checkpoint) -> None:
    """Rows r0:r1 on one thread: norm 2 of mlp_in (resid_mid, or resid_pre in parallel; OLMo 2: no
    norm), the MLP (GELU: W_in, GELU; SwiGLU / GeGLU: W_gate and W_in, SiLU or GELU(gate) ⊙ up),
    W_out, its norm after (Gemma, OLMo 2) and the residual."""
    c = cfg.components
    if c.pre_norm:
        norm_rows(cfg, mlp_in, wb["ln2.w"], wb["ln2.b"], stats, ln2_out, r0, r1, checkpoint)
    if c.mlp.gated:
        np.matmul(ln2_out[r0:r1], wb["mlp.W_gate"], out=mlp_pre[r0:r1])       # [R, d_mlp] gate (bias below)
        np.matmul(ln2_out[r0:r1], wb["mlp.W_in"], out=mlp_pre_linear[r0:r1])  # [R, d_mlp] up
        gate = K.bias_gelu_gate if isinstance(c.mlp, GeGLU) else K.bias_silu_gate
        gate.serial(mlp_pre[r0:r1], wb["mlp.b_gate"], mlp_pre_linear[r0:r1], wb["mlp.b_in"],
                    mlp_post[r0:r1])                                      # + biases; SiLU|GELU(gate) * up
    else:
        np.matmul(ln2_out[r0:r1], wb["mlp.W_in"], out=mlp_pre[r0:r1])      # [R, d_mlp] (bias below)
        gelu = K.bias_gelu_erf if cfg.components.mlp.exact else K.bias_gelu   # erf, or GPT-2's tanh
        gelu.serial(mlp_pre[r0:r1], wb["mlp.b_in"], mlp_post[r0:r1])       # mlp_pre += b_in; GELU
    checkpoint()                                                            # a newer edit may stop us here
    np.matmul(mlp_post[r0:r1], wb["mlp.W_out"], out=mlp_out[r0:r1])        # [R, d_model] (bias below)
    K.bias_residual.serial(mlp_out[r0:r1], wb["mlp.b_out"], resid_mid[r0:r1],
                           resid_post[r0:r1])                               # mlp_out += b_out; + resid_mid
    if mlp_out_normed is not None:                                          # resid_post = resid_mid + normed
        K.rms_norm.serial(mlp_out[r0:r1], wb["ln2_post.w"], np.empty(r1 - r0, np.float32), mlp_out_normed[r0:r1],
                          c.post_norm.eps)
        np.add(resid_mid[r0:r1], mlp_out_normed[r0:r1], out=resid_post[r0:r1])


def mlp_half(cfg: Config, wb, mlp_in, resid_mid, new, watch: Stopwatch) -> dict:
    """One layer from resid_mid to resid_post: the mlp_names(cfg) values, by name. ln2 reads
    mlp_in (resid_mid, or resid_pre with attention and MLP in parallel)."""
    T, dm, dmlp = len(resid_mid), cfg.d_model, cfg.d_mlp
    c = cfg.components
    stats = norm_stats(cfg, T)                                              # [T] each
    named = dict(zip(c.norm.stat_names("ln2"), stats, strict=True))         # ln2_mean, ln2_var | ln2_scale
    ln2_out = new((T, dm)) if c.pre_norm else mlp_in                        # [T, d_model] (OLMo 2: no norm)
    if c.experts is not None:
        return experts_half(cfg, wb, mlp_in, resid_mid, stats, named, ln2_out, watch)
    mlp_pre, mlp_post = new((T, dmlp)), new((T, dmlp))                      # [T, d_mlp] each
    mlp_pre_linear = new((T, dmlp)) if c.mlp.gated else None                # [T, d_mlp] SwiGLU's up
    mlp_out, resid_post = new((T, dm)), new((T, dm))                        # [T, d_model] each
    mlp_out_normed = new((T, dm)) if c.post_norm is not None else None      # [T, d_model] Gemma, OLMo 2
    fraction = watch.fraction(0.5)
    macs = c.mlp.macs(dm, dmlp, T)
    by_rows(partial(mlp_rows, cfg, mlp_in, resid_mid, wb, stats, ln2_out, mlp_pre, mlp_pre_linear, mlp_post, mlp_out,
                    mlp_out_normed, resid_post), T, split=macs >= SPLIT_MIN_MACS,
            checkpoint=partial(progress.report, "mlp", fraction))
    watch.lap("mlp")
    ns = {**locals(), **named}
    return {name: ns[name] for name in mlp_names(cfg)}


def experts_half(cfg: Config, wb, mlp_in, resid_mid, stats, named: dict, ln2_out, watch: Stopwatch) -> dict:
    """mlp_half for a mixture of experts (components.Experts): norm 2 by rows, the router, then each
    expert on the rows that chose it (float32 BLAS, the reference's own steps)."""
    T, experts = len(resid_mid), cfg.components.experts
    if cfg.components.pre_norm:
        by_rows(partial(norm_rows, cfg, mlp_in, wb["ln2.w"], wb["ln2.b"], stats, ln2_out), T, split=False)
    router_logits = ln2_out @ wb["moe.W_router"]                            # [T, E]
    router_probs = softmax_rows(router_logits)                              # [T, E] float32, as the reference
    expert_weights, chosen = experts.choose(router_probs)                   # [T, E], [T, k]
    progress.report("mlp", watch.fraction(0.5))                             # a newer edit may stop us here
    expert_out = experts.run(ln2_out, chosen, wb["moe.W_gate"], wb["moe.W_in"], wb["moe.W_out"])  # [T, k, d_model]
    mlp_out = experts.mix(expert_weights, chosen, expert_out).astype(np.float32, copy=False)      # [T, d_model]
    resid_post = resid_mid + mlp_out                                        # [T, d_model]
    watch.lap("mlp")
    ns = {**locals(), **named}
    return {name: ns[name] for name in mlp_names(cfg)}

