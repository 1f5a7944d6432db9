"""Checkpointed layers: a Trace too large to keep whole keeps each layer's input, and makes the rest again.

Storing every intermediate of every layer grows with T² × layers (SmolLM2-135M at T = 2,048: 7.8 GB).
A checkpointed pass (compute.memory.checkpointed) keeps per layer only `resid_pre` and `resid_post`
(T × d_model each) — the keys and values the incremental pass needs stay in the backend's KeyCache —
and hands every other value over as a `Lazy` of a `Layer`: the first read makes the whole layer again
from its input (the backend's own kernels, all rows, `make`), and the `LayerLRU` keeps the layers read
most recently, dropping the oldest when they exceed their share of the memory budget. A dropped layer
is made again on its next read: the Trace stays immutable and equal to a fully stored one.

The T×T maps are never made whole for a layer: a view reads one head's map, or one query's row
(`Trace.read`), and `Layer.read_map` makes just that from the layer's q and k — the same products,
scale, mask and softmax the pass runs (serial kernels: no lock is taken, whoever reads).
"""
from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable
from functools import partial

import numpy as np

from .. import memory
from ..config import Config
from ..names import layer_names, trace_shape
from ..trace import Lazy
from . import cpu_kernels as K
from .blas import BLAS, KERNEL_LOCK

# The values a checkpointed Trace keeps for each layer; every other one is made again when read.
KEPT = ("resid_pre", "resid_post")
MAPS = ("attn_scores_raw", "attn_scores_scaled", "attn_scores_capped", "attn_scores", "pattern")
# Cuts of a layer's maps kept once made (a view reads the same head's map at every repaint).
READS_KEPT = 12
# What a layer's maps are made of (Layer's make_qk): norm 1 and q, k, v, as a model has them.
QK_NAMES = ("ln1_mean", "ln1_var", "ln1_scale", "ln1_out", "q", "k", "v", "q_normed", "k_normed", "rot_q", "rot_k")
# Share of the memory budget the made layers may hold together (at least the last one read is kept).
LRU_SHARE = 0.25
# A map's rows are made in blocks of about this many bytes of scores (in cache; cpu.py's BLOCK_BYTES).
BLOCK_BYTES = 1 << 20


class LayerLRU:
    """The made layers of checkpointed Traces, least recently read first: over `limit()` bytes, the
    oldest are dropped (made again when read). Holds them weakly: a dropped Trace frees its layers."""

    def __init__(self, max_bytes: int | None = None):
        self.max_bytes = max_bytes                     # None: LRU_SHARE of compute.memory's budget, now
        self._order: OrderedDict[int, tuple[weakref.ref, int]] = OrderedDict()
        self._lock = threading.Lock()
        self.made = 0                                  # layers made again (tests, benchmarks)

    def limit(self) -> int:
        return self.max_bytes if self.max_bytes is not None else int(memory.budget_bytes() * LRU_SHARE)

    def touch(self, layer: Layer) -> None:
        """`layer` was read: most recent now; drop the oldest beyond the limit."""
        victims = []
        with self._lock:
            self._order.pop(id(layer), None)
            self._order[id(layer)] = (weakref.ref(layer), layer.nbytes)
            for key in [k for k, (ref, _) in self._order.items() if ref() is None]:
                del self._order[key]                   # their Trace is gone, and its arrays with it
            total, limit = sum(n for _, n in self._order.values()), self.limit()
            for key in list(self._order)[:-1]:         # the one just read stays
                if total <= limit:
                    break
                ref, n = self._order.pop(key)
                total -= n
                victims.append(ref())
        for victim in victims:                         # outside the lock: a victim never waits on it
            if victim is not None:
                victim.drop()

    def held_bytes(self) -> int:
        with self._lock:
            return sum(n for ref, n in self._order.values() if ref() is not None)

    def release(self) -> int:
        """Drop every made layer (compute.memory's reclaimer when memory is short); the bytes freed."""
        with self._lock:
            victims = [(ref(), n) for ref, n in self._order.values()]
            self._order.clear()
        freed = 0
        for victim, n in victims:
            if victim is not None:
                victim.drop()
                freed += n
        return freed


def _root_bytes(values) -> int:
    """Bytes of the arrays the values are views of, each counted once (q, k, v share one product)."""
    roots = {}
    for a in values:
        root = a
        while isinstance(root.base, np.ndarray):
            root = root.base
        roots[id(root)] = root.nbytes
    return sum(roots.values())


class Layer:
    """One layer of a checkpointed pass. `make(resid_pre)` returns every value of the layer but the
    maps (the backend's pass, all rows); `make_qk(resid_pre)`, if given, only norm 1 and q, k, v (with
    QK-norm and RoPE): what the maps are made of, a small part of the layer's work (no T×T step), so a
    view of another layer's maps does not wait for its attention and MLP. `resid_pre()` the layer's
    input (kept by the Trace)."""

    def __init__(self, make: Callable[[np.ndarray], dict], resid_pre: Callable[[], np.ndarray], cfg: Config,
                 layer: int, mask: np.ndarray, has_mask: bool, lru: LayerLRU,
                 make_qk: Callable[[np.ndarray], dict] | None = None):
        self._make, self._make_qk, self._resid_pre, self.cfg, self.layer = make, make_qk, resid_pre, cfg, layer
        self._mask, self._has_mask, self._lru = mask, has_mask, lru
        self._values: dict | None = None               # every value but the maps (made, or seeded by the pass)
        self._complete = False
        self._qk: dict | None = None                   # norm 1 and q, k, v alone (make_qk)
        self._reads: OrderedDict = OrderedDict()       # cuts of the maps, made when read
        self._lock = threading.Lock()
        self._reads_lock = threading.Lock()
        self.nbytes = 0

    # -- what the Trace holds ----------------------------------------------------------------------------
    def lazy_values(self, T: int) -> dict:
        """Every value of the layer but KEPT, as Lazy values the Trace does not keep (the LRU does)."""
        out = {}
        for name in layer_names(self.cfg):
            if name in KEPT:
                continue
            shape = trace_shape(name, self.cfg, T)
            if name in MAPS:
                whole = partial(self.read_map, name, (slice(None), slice(None)))
                out[name, self.layer] = Lazy(whole, shape, cached=False, part=partial(self._part, name),
                                             read=partial(self.read_map, name))
            else:
                out[name, self.layer] = Lazy(partial(self.value, name), shape, cached=False)
        return out

    def seed(self, values: dict, complete: bool) -> None:
        """Values the pass made anyway (all rows): kept as made, so a view reads them without work."""
        made = {n: a for n, a in values.items() if n not in MAPS}
        for a in made.values():
            a.setflags(write=False)
        with self._lock:
            self._values, self._complete = made, complete
            self._recount()
        self._lru.touch(self)

    def drop(self) -> None:
        """Forget the made values (the LRU's eviction): the next read makes them again."""
        with self._reads_lock:
            self._values, self._complete, self._qk = None, False, None
            self._reads = OrderedDict()
            self.nbytes = 0

    def _recount(self) -> None:
        held = [*(self._values or {}).values(), *(self._qk or {}).values(), *self._reads.values()]
        self.nbytes = _root_bytes(held)

    # -- making ------------------------------------------------------------------------------------------
    def value(self, name: str) -> np.ndarray:
        """The layer's value `name`, made now (all of the layer, or its q/k part) if it is not."""
        values = self._values
        if values is not None and name in values:
            self._lru.touch(self)
            return values[name]
        qk = self._qk
        if qk is not None and name in qk:
            self._lru.touch(self)
            return qk[name]
        if self._make_qk is not None and name in QK_NAMES:
            with KERNEL_LOCK, self._lock:              # in this order, as a pass that reads an earlier Trace
                if self._qk is None and (self._values is None or name not in self._values):
                    qk = self._make_qk(self._resid_pre())
                    for a in qk.values():
                        a.setflags(write=False)
                    self._qk = qk
                    self._recount()
            self._lru.touch(self)
            source = self._values if self._values is not None and name in self._values else self._qk
            if source is not None and name in source:
                return source[name]
        return self._all()[name]

    def _all(self) -> dict:
        """Every value but the maps, made now if they are not."""
        with KERNEL_LOCK, self._lock:                  # in this order, as a pass that reads an earlier Trace
            values = self._values
            if values is None or not self._complete:
                values = {n: a for n, a in self._make(self._resid_pre()).items() if n not in MAPS}
                for a in values.values():
                    a.setflags(write=False)
                self._values, self._complete, self._qk = values, True, None   # the same q, k now among them
                self._recount()
                self._lru.made += 1
        self._lru.touch(self)
        return values

    def _part(self, name: str, head: int) -> np.ndarray:
        return self.read_map(name, (head, slice(None)))

    def read_map(self, name: str, index: tuple) -> np.ndarray:
        """`value[index]` of one of the layer's [H, T, T] maps (index: head, query rows[, key columns]
        as Trace.read cuts them), made from the layer's q and k for those heads and rows only. A whole
        head's map makes that head's four maps at once (one product, one softmax pass): a station
        shows them side by side."""
        key = _read_key(name, index)
        with self._reads_lock:
            hit = self._reads.get(key)
        if hit is not None:
            self._lru.touch(self)
            return hit
        cfg = self.cfg
        q_name, k_name = cfg.components.score_inputs                      # rot_q, rot_k with RoPE
        q, k = self.value(q_name), self.value(k_name)                     # [T, H, dh], [T, KV, dh]
        T, H = q.shape[0], q.shape[1]
        head, rows = index[0], index[1]
        cols = index[2] if len(index) > 2 else None
        positions = np.arange(T)[rows]                                     # [R] or one position
        whole_head = (not isinstance(head, slice) and cols is None and np.ndim(positions) == 1
                      and len(positions) == T and (T == 0 or positions[0] == 0))
        names = tuple(n for n in MAPS if n in layer_names(cfg)) if whole_head else (name,)
        heads = range(H)[head] if isinstance(head, slice) else [int(head)]
        one = np.ndim(positions) == 0
        positions = np.atleast_1d(positions)
        outs = {n: np.empty((len(heads), len(positions), T), np.float32) for n in names}   # [heads, R, T] each
        with BLAS.limit(limits=1, user_api="blas"):                        # as in a pass: no spinning BLAS pool
            for i, h in enumerate(heads):
                self._map_rows({n: a[i] for n, a in outs.items()}, q[:, h], k[:, h // cfg.n_groups], positions)
        made = {}
        for n, out in outs.items():
            out = out[:, :, cols] if cols is not None else out
            out = out[:, 0] if one else out
            out = out[0] if not isinstance(head, slice) else out
            out = np.ascontiguousarray(out)
            out.setflags(write=False)
            made[_read_key(n, index)] = out
        with self._reads_lock:
            kept = self._values is not None or self._qk is not None       # not dropped meanwhile
            if kept:
                self._reads.update(made)
                while len(self._reads) > READS_KEPT:
                    self._reads.popitem(last=False)
                self._recount()
        if kept:
            self._lru.touch(self)
        return made[key]

    def _map_rows(self, outs: dict, qh: np.ndarray, kh: np.ndarray, positions: np.ndarray) -> None:
        """Rows `positions` of one head's maps into `outs` (name -> [R, T]), as the pass makes them:
        raw = q_i·k_j, scaled, (soft-capped,) masked and softmax in one go (qh [T, dh] of the head, kh [T, dh]
        of its K/V head)."""
        cfg = self.cfg
        scale = np.float32(cfg.components.attention.scale)                  # 1/√d_head, 1/√q_p_a_s or 1
        cap = np.float32(cfg.components.attention.cap)                      # Gemma 2's soft-cap; 0: none
        window = cfg.window(self.layer) or 0
        T = kh.shape[0]
        step = max(16, BLOCK_BYTES // (4 * max(T, 1)))                     # rows per block: in cache, as the pass
        scratch = np.empty((5, min(step, len(positions)), T), np.float32)  # raw, scaled, capped, masked, pattern
        starts = np.flatnonzero(np.diff(positions, prepend=-2) != 1)       # contiguous stretches of queries
        for a, b in zip(starts, [*starts[1:], len(positions)], strict=True):
            for r0 in range(a, b, step):
                r1 = min(r0 + step, b)
                i0 = int(positions[r0])
                dst = [outs[n][r0:r1] if n in outs else scratch[s, :r1 - r0] for s, n in enumerate(MAPS)]
                raw, scaled, capped, masked, pattern = dst                 # [R, T] each
                np.matmul(qh[i0:i0 + r1 - r0], kh.T, out=raw)              # [R, T]  q_i · k_j
                if outs.keys() == {"attn_scores"}:                         # masked alone: no softmax
                    K.scale_mask(raw, i0, scale, cap, cfg.causal, self._mask, self._has_mask, window, masked)
                elif outs.keys() == {"attn_scores_scaled"}:
                    np.multiply(raw, scale, out=scaled)                    # [R, T]
                elif outs.keys() != {"attn_scores_raw"}:                   # scaled, masked, pattern = softmax
                    K.scale_mask_softmax(raw, i0, scale, cap, cfg.causal, self._mask, self._has_mask, scaled,
                                         masked, pattern, window)
                if "attn_scores_capped" in outs:                           # Gemma 2: cap·tanh(scaled / cap)
                    if outs.keys() == {"attn_scores_capped"}:
                        np.multiply(raw, scale, out=scaled)                # [R, T]
                    K.soft_cap_map(scaled, cap, capped)                    # [R, T]


def _read_key(name: str, index: tuple) -> tuple:
    return (name, tuple((i.start, i.stop, i.step) if isinstance(i, slice) else
                        tuple(i.tolist()) if isinstance(i, np.ndarray) else int(i) for i in index))
