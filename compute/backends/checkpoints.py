"""Checkpointed layers: a Trace too large to keep whole keeps each layer's input, and makes the rest again.

Storing every intermediate of every layer grows with T² × layers (SmolLM2-135M at T = 2,048: 7.8 GB).
A checkpointed pass (compute.memory.checkpointed) keeps per layer only `resid_pre` and `resid_post`
(T × d_model each) — the keys and values the incremental pass needs stay in the backend's KeyCache —
and hands every other value over as a `Lazy` of a `Layer`: the first read makes the whole layer again
from its input (the backend's own kernels, all rows, `make`), and the `LayerLRU` keeps the layers read
most recently, dropping the oldest when they exceed their share of the memory budget. A dropped layer
is made again on its next read: the Trace stays immutable and equal to a fully stored one.

The T×T maps are never made whole for a layer: a view reads one head's map, or one query's row
(`Trace.read`), and `Layer.read_map` makes just that from that head's q and k alone (`make_head`: the
two heads' columns of the fused product, not the layer's q/k/v) — the same products, scale, mask and
softmax the pass runs (serial kernels: no lock is taken, whoever reads). One head's four whole maps are
kept at a time (MAPS_KEPT), in the pool's buffers, so the next head's reuse them; after an append the
viewed head's maps start from the earlier Trace's (`before`): its rows and keys < p copied, the new keys
of the earlier queries and the new rows made.
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
# Heads (of any layers) whose four whole maps are kept once made: the one on screen. The one before is
# let go when the next is made, so its buffers (the pool's) are the next head's: fresh memory is the slow
# part here (page faults: measured 0.36 s for the first write of one 64 MB map at T = 4,096, 14 ms for a
# recycled one). An append's layer holds the earlier maps (`before`) until it made its own.
MAPS_KEPT = 1
# Whole maps live in buffers of a side rounded up to this many tokens: the pool hands the same buffers
# to the next append's maps (T + 1 tokens), not only to maps of the same T.
MAP_STEP = 64
# Heads whose q and k alone a layer keeps (made for those maps: a 2·d_head-wide product each).
HEADS_KEPT = 8
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
        self._maps: OrderedDict[tuple[int, int], tuple[weakref.ref, int]] = OrderedDict()   # (layer, head) made whole
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

    def made_maps(self, layer: Layer, head: int) -> None:
        """`layer` made one head's whole maps: most recent now; beyond MAPS_KEPT heads of any layers, the
        oldest are let go (their buffers go back to the pool for the next ones)."""
        victims = []
        with self._lock:
            key = (id(layer), head)
            self._maps.pop(key, None)
            self._maps[key] = (weakref.ref(layer), head)
            for old in [k for k, (ref, _) in self._maps.items() if ref() is None]:
                del self._maps[old]
            while len(self._maps) > MAPS_KEPT:
                _, (ref, h) = self._maps.popitem(last=False)
                victims.append((ref(), h))
        for victim, h in victims:                      # outside the lock, as touch
            if victim is not None:
                victim.forget_maps(h)

    def latest(self) -> tuple[Layer, int] | None:
        """The layer and head whose whole maps were made (or read) last: the head on screen."""
        with self._lock:
            if not self._maps:
                return None
            ref, head = next(reversed(self._maps.values()))
        layer = ref()
        return (layer, head) if layer is not None else None

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
                 make_qk: Callable[[np.ndarray], dict] | None = None,
                 make_head: Callable[[np.ndarray, int], tuple | None] | None = None,
                 before: dict | None = None, new: Callable = np.empty):
        self._make, self._make_qk, self._resid_pre, self.cfg, self.layer = make, make_qk, resid_pre, cfg, layer
        self._make_head, self._new = make_head, new
        self._mask, self._has_mask, self._lru = mask, has_mask, lru
        self._values: dict | None = None               # every value but the maps (made, or seeded by the pass)
        self._complete = False
        self._qk: dict | None = None                   # norm 1 and q, k, v alone (make_qk)
        self._heads: OrderedDict = OrderedDict()       # head -> (q_h, k_g) [T, dh] each, alone (make_head)
        self._whole: OrderedDict = OrderedDict()       # head -> {map name: [T, T]}: its four maps, made
        # head -> (p, {map name: [>= p, >= p]}): an earlier Trace's maps of that head whose rows and keys
        # < p are this layer's (an incremental pass: the same first p tokens), so only the rest is made
        self._before: dict = dict(before or {})
        for head in self._before:                      # the head on screen is this layer's now (a chain of appends)
            lru.made_maps(self, head)
        self._reads: OrderedDict = OrderedDict()       # cuts of the maps, made when read
        self._lock = threading.Lock()
        self._reads_lock = threading.Lock()
        self.nbytes = 0
        self.T = 0                                     # tokens (lazy_values says)

    # -- what the Trace holds ----------------------------------------------------------------------------
    def lazy_values(self, T: int) -> dict:
        """Every value of the layer but KEPT, as Lazy values the Trace does not keep (the LRU does)."""
        self.T = T
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
            self._reads, self._heads, self._whole, self._before = OrderedDict(), OrderedDict(), OrderedDict(), {}
            self.nbytes = 0

    def _recount(self) -> None:
        held = [*(self._values or {}).values(), *(self._qk or {}).values(), *self._reads.values(),
                *(a for qk in self._heads.values() for a in qk), *(a for m in self._whole.values() for a in m.values()),
                *(a for _, m in self._before.values() for a in m.values())]
        self.nbytes = _root_bytes(held)

    def forget_maps(self, head: int) -> None:
        """Let one head's whole maps go (LayerLRU.made_maps): made again when read."""
        with self._reads_lock:
            if self._whole.pop(head, None) is not None:
                self._recount()

    def _held(self) -> bool:
        """Whether anything is made (a layer the LRU dropped meanwhile keeps nothing more)."""
        return bool(self._values is not None or self._qk is not None or self._heads or self._whole or self._before)

    def maps_for_next(self, p: int) -> dict:
        """The whole maps of the head last made (if it is this layer's), for a pass whose first p tokens
        are this one's: head -> (rows valid, maps) (Layer's `before`; no copy). Only the head on screen:
        the next layer holding every head's would keep their buffers from the pool."""
        latest = self._lru.latest()
        if latest is None or latest[0] is not self:
            return {}
        head = latest[1]
        with self._reads_lock:
            maps = self._whole.get(head)
            rows, maps = (len(maps["pattern"]), maps) if maps is not None else self._before.get(head, (0, None))
        return {head: (min(rows, p), maps)} if maps is not None and min(rows, p) > 0 else {}

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
                    self._qk, self._heads = qk, OrderedDict()    # every head's q and k among them
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
                self._heads = OrderedDict()
                self._recount()
                self._lru.made += 1
        self._lru.touch(self)
        return values

    def _part(self, name: str, head: int) -> np.ndarray:
        return self.read_map(name, (head, slice(None)))

    def head_inputs(self, head: int) -> tuple[np.ndarray, np.ndarray]:
        """The score inputs of one head, all rows: (q of `head`, k of its K/V head) [T, d_head] each —
        slices of the layer's q and k when they are made, else that head's alone (make_head)."""
        cfg = self.cfg
        q_name, k_name = cfg.components.score_inputs                      # rot_q, rot_k with RoPE
        g = head // cfg.n_groups
        for source in (self._values, self._qk):
            if source is not None and q_name in source:
                self._lru.touch(self)
                return source[q_name][:, head], source[k_name][:, g]
        with self._reads_lock:
            hit = self._heads.get(head)
        if hit is None and self._make_head is not None:
            made = self._make_head(self._resid_pre(), head)
            if made is not None:
                for a in made:
                    a.setflags(write=False)
                with self._reads_lock:
                    self._heads[head] = hit = made
                    while len(self._heads) > HEADS_KEPT:
                        self._heads.popitem(last=False)
                    self._recount()
        if hit is None:                                                    # no head alone: the layer's q and k
            return self.value(q_name)[:, head], self.value(k_name)[:, g]
        self._lru.touch(self)
        return hit

    def whole_maps(self, head: int) -> dict:
        """One head's four maps, all rows and keys ({name: [T, T]}), made at once (one product, one
        softmax pass: a station shows them side by side). With an earlier Trace's maps of that head
        (`before`: an incremental pass), rows and keys < p are copied from them and only the new keys
        of the earlier queries and the new rows are made."""
        with self._reads_lock:
            hit = self._whole.get(head)
        if hit is not None:
            self._lru.made_maps(self, head)
            self._lru.touch(self)
            return hit
        qh, kh = self.head_inputs(head)                                   # [T, dh] each
        self._lru.made_maps(self, head)                                    # first: the oldest go back to the pool
        T = qh.shape[0]
        scale = np.float32(self.cfg.components.attention.scale)
        side = (T // MAP_STEP + 1) * MAP_STEP                              # room for the next appends: they reuse them
        names = tuple(n for n in MAPS if n in layer_names(self.cfg))       # the capped map: Gemma 2 only
        outs = {n: self._new((side * side,))[:T * T].reshape(T, T) for n in names}   # [T, T] each
        rows, old = self._before.get(head, (0, None))
        p = min(rows, T)
        with BLAS.limit(limits=1, user_api="blas"):                        # as in a pass: no spinning BLAS pool
            if p:
                for n in names:
                    outs[n][:p, :p] = old[n][:p, :p]                       # [p, p] the earlier queries and keys
                raw = outs["attn_scores_raw"][:p, p:]                      # [p, T-p] earlier queries, new keys
                np.matmul(qh[:p], kh[p:].T, out=raw)                       # q_i · k_j
                np.multiply(raw, scale, out=outs["attn_scores_scaled"][:p, p:])
                if "attn_scores_capped" in outs:                           # cap·tanh(scaled / cap), every key
                    K.soft_cap_map(outs["attn_scores_scaled"][:p, p:], np.float32(self.cfg.components.attention.cap),
                                   outs["attn_scores_capped"][:p, p:])
                outs["attn_scores"][:p, p:] = -np.inf                      # reuse is causal: keys after the query
                outs["pattern"][:p, p:] = 0.0
            if p < T:
                self._map_rows({n: a[p:] for n, a in outs.items()}, qh, kh, np.arange(p, T))
        for a in outs.values():
            a.setflags(write=False)
        with self._reads_lock:
            kept = self._held()                                            # not dropped meanwhile
            if kept:
                self._before.pop(head, None)                               # its rows are in ours now
                self._whole[head] = outs
                self._recount()
        if kept:
            self._lru.touch(self)
        return outs

    def read_map(self, name: str, index: tuple) -> np.ndarray:
        """`value[index]` of one of the layer's [H, T, T] maps (index: head, query rows[, key columns]
        as Trace.read cuts them), made from the layer's q and k for those heads and rows only (one head:
        that head's q and k alone). A whole head's map is `whole_maps`."""
        cfg = self.cfg
        T, H = self.T, cfg.n_heads
        head, rows = index[0], index[1]
        cols = index[2] if len(index) > 2 else None
        positions = np.arange(T)[rows]                                     # [R] or one position
        one_head = not isinstance(head, slice)
        if (one_head and cols is None and np.ndim(positions) == 1 and len(positions) == T
                and (T == 0 or positions[0] == 0)):
            return self.whole_maps(int(head))[name]
        key = _read_key(name, index)
        with self._reads_lock:
            hit = self._reads.get(key)
            whole = self._whole.get(int(head)) if one_head else None
        if hit is None and whole is not None:                              # a cut of a head made whole
            hit = np.ascontiguousarray(whole[name][rows] if cols is None else whole[name][rows, cols])
            hit.setflags(write=False)
        if hit is not None:
            self._lru.touch(self)
            return hit
        heads = range(H)[head] if isinstance(head, slice) else [int(head)]
        one = np.ndim(positions) == 0
        positions = np.atleast_1d(positions)
        out = np.empty((len(heads), len(positions), T), np.float32)       # [heads, R, T]
        with BLAS.limit(limits=1, user_api="blas"):                        # as in a pass: no spinning BLAS pool
            if one_head:
                qh, kh = self.head_inputs(heads[0])                        # [T, dh] each
                self._map_rows({name: out[0]}, qh, kh, positions)
            else:
                q_name, k_name = cfg.components.score_inputs
                q, k = self.value(q_name), self.value(k_name)              # [T, H, dh], [T, KV, dh]
                for i, h in enumerate(heads):
                    self._map_rows({name: out[i]}, q[:, h], k[:, h // cfg.n_groups], positions)
        out = out[:, :, cols] if cols is not None else out
        out = out[:, 0] if one else out
        out = out[0] if one_head else out
        out = np.ascontiguousarray(out) if out.ndim else np.array(out)    # one cell stays 0-d
        out.setflags(write=False)
        with self._reads_lock:
            kept = self._held()                                            # not dropped meanwhile
            if kept:
                self._reads[key] = out
                while len(self._reads) > READS_KEPT:
                    self._reads.popitem(last=False)
                self._recount()
        if kept:
            self._lru.touch(self)
        return out

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


def earlier_maps(trace, layer: int, p: int) -> dict:
    """The whole maps a checkpointed `trace`'s layer has made, for an incremental pass that shares its
    first p tokens (Layer's `before`): {} when it has none, or is not checkpointed."""
    value = trace.stored(("pattern", layer)) if trace is not None and p else None
    owner = getattr(getattr(getattr(value, "read", None), "func", None), "__self__", None)  # read = partial(read_map)
    return owner.maps_for_next(p) if isinstance(owner, Layer) else {}


def _read_key(name: str, index: tuple) -> tuple:
    return (name, tuple((i.start, i.stop, i.step) if isinstance(i, slice) else
                        tuple(i.tolist()) if isinstance(i, np.ndarray) else int(i) for i in index))
